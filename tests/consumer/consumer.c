/* Installed-package consumer (C): the same block through luztar.h, plus
 * snapshot/restore (bit for bit) and error reporting. Exit 0 when all hold. */
#include <luztar/luztar.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int run(luztar_simulator* sim, int u, int w, int from, int to, double* out) {
  for (int k = from; k < to; ++k) {
    if (luztar_set_input(sim, u, 3.0 + sin(0.01 * k)) != LUZTAR_OK) return 1;
    if (luztar_advance_to(sim, (k + 1) * 1e-3) != LUZTAR_OK) return 1;
    if (luztar_value(sim, w, &out[k - from]) != LUZTAR_OK) return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  luztar_model* model = NULL;
  luztar_simulator* sim = NULL;
  luztar_snapshot* snap = NULL;
  static double first[1000], second[1000];
  int failures = 0;

  if (luztar_model_parse("bodies: {b: {inertia: -1}}", &model) != LUZTAR_BAD_MODEL ||
      strstr(luztar_last_error(), "simulation") == NULL) {
    fprintf(stderr, "a bad model must be refused with a message, got: %s\n", luztar_last_error());
    ++failures;
  }
  if (argc != 2) return 2;
  if (luztar_model_load(argv[1], &model) != LUZTAR_OK || luztar_simulator_new(model, &sim) != LUZTAR_OK) {
    fprintf(stderr, "cannot start: %s\n", luztar_last_error());
    return 1;
  }
  const int u = luztar_input(sim, "u"), w = luztar_output(sim, "bodies.block.velocity");
  if (u < 0 || w < 0 || luztar_input(sim, "nothere") != -1 || luztar_set_input(sim, u, NAN) != LUZTAR_BAD_ARGUMENT) {
    fprintf(stderr, "ids or argument checks wrong: %s\n", luztar_last_error());
    ++failures;
  }
  failures += run(sim, u, w, 0, 500, first);
  if (luztar_snapshot_take(sim, &snap) != LUZTAR_OK) return 1;
  failures += run(sim, u, w, 500, 1500, first);
  if (luztar_snapshot_restore(sim, snap) != LUZTAR_OK) return 1;
  failures += run(sim, u, w, 500, 1500, second);
  if (memcmp(first, second, sizeof first) != 0) {
    fprintf(stderr, "restore did not repeat the run bit for bit\n");
    ++failures;
  }
  luztar_stats stats;
  luztar_get_stats(sim, &stats);
  printf("consumer_c: luztar %s, t = %g s, w = %.6f rad/s, %ld steps, %ld events\n", luztar_version(),
         luztar_time(sim), second[999], stats.steps, stats.events);
  luztar_snapshot_free(snap);
  luztar_simulator_free(sim);
  luztar_model_free(model);
  return failures == 0 ? 0 : 1;
}
