// libFuzzer target: the bytes are a model file (YAML). They go through what
// `luztar validate`, `luztar reduce` and `luztar sweep --dry-run` do before a
// run: read + validate + reduce (io::parse_model_spec), assemble(), the
// reduced model written and read back (io::to_yaml), and the sweep section
// read, expanded and every run's model built (app::make_plan).
//
// Bad input must give a luztar::ModelError, nothing else: any other exception
// escapes and libFuzzer reports it as a crash, as it does a sanitizer report,
// a timeout or running out of memory. A written model that does not read back
// is a bug of the writer or of reduce(), and aborts too.
//
// What is left out, and why: nothing is simulated (a run is bounded by
// t_end / output_step, which validation accepts up to the limits the README
// gives, and checking those limits is the loader's job, done above), and a
// sweep of more than kMaxRuns runs is only read, not expanded (its size is
// what the sweep loader checks; building thousands of models per input would
// only slow the fuzzer down). Table files are looked up in a folder that does
// not exist, so that no input reads the disk through a relative `file:`.
//
// Build and run: `bash bootstrap.sh fuzz [SECONDS]` (README "Fuzzing").
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "apps/sweep/sweep_plan.hpp"
#include "core/model.hpp"
#include "core/errors.hpp"
#include "core/reduce.hpp"
#include "io/yaml_model.hpp"
#include "io/yaml_sweep.hpp"
#include "io/yaml_writer.hpp"

namespace {

constexpr const char* kOrigin = "fuzz.yaml";
constexpr const char* kNoDir = "/nonexistent-luztar-fuzz-dir";
constexpr std::size_t kMaxRuns = 16;

[[noreturn]] void bug(const char* what, const std::string& text, const luztar::ModelError& e) {
  std::fprintf(stderr, "model_fuzzer: %s does not read back: %s\n--- text:\n%s\n---\n", what, e.what(), text.c_str());
  std::abort();
}

// The written model must read back as a valid model.
void check_round_trip(const luztar::ModelSpec& spec, const char* what) {
  const std::string text = luztar::io::to_yaml(spec);
  try {
    luztar::io::parse_model_spec(text, "written.yaml", kNoDir);
  } catch (const luztar::ModelError& e) {
    bug(what, text, e);
  }
}

// Runs of the sweep, bounded: SIZE_MAX when more than kMaxRuns.
std::size_t run_count(const luztar::SweepSpec& spec) {
  std::size_t n = 1, zipped = 0;
  for (const luztar::SweepParameter& p : spec.parameters) {
    if (p.sampled()) continue;
    const std::size_t k = p.kind == luztar::SweepParameter::Kind::list
                              ? p.values.size()
                              : static_cast<std::size_t>(p.count < 0 ? 0 : p.count);
    if (spec.zip) {
      zipped = k > zipped ? k : zipped;
      continue;
    }
    if (k != 0 && n > kMaxRuns / k) return SIZE_MAX;
    n *= k;
  }
  if (spec.zip && zipped > 0) n = zipped;
  if (spec.samples > 0) {
    if (static_cast<std::size_t>(spec.samples) > kMaxRuns / (n == 0 ? 1 : n)) return SIZE_MAX;
    n *= static_cast<std::size_t>(spec.samples);
  }
  return n;
}

void sweep(const std::string& text) {
  luztar::io::SweepInput in = luztar::io::parse_sweep(text, kOrigin, kNoDir);
  if (run_count(in.spec) > kMaxRuns) return;
  luztar::app::make_plan(std::move(in));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const luztar::ModelSpec spec = luztar::io::parse_model_spec(text, kOrigin, kNoDir);
    const luztar::Model model = luztar::assemble(spec);
    check_round_trip(spec, "the model as written by io::to_yaml");
    check_round_trip(luztar::reduce(spec).spec, "the reduced model");
  } catch (const luztar::ModelError&) {
  }
  try {
    sweep(text);
  } catch (const luztar::ModelError&) {
  }
  return 0;
}
