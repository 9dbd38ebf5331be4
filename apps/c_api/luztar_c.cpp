// The C API (apps/c_api/luztar.h) over the C++ facade (luztar/luztar.hpp):
// exceptions become status codes and a per-thread message; handles own their
// C++ objects. A facade Model is shared by the simulators made from it, so
// freeing the model handle first is safe.
#include "luztar.h"  // apps/c_api/luztar.h

#include <cmath>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "luztar/luztar.hpp"

namespace lz = luztar::api;

struct luztar_model {
  lz::Model model;
};

struct luztar_simulator {
  explicit luztar_simulator(const lz::Model& m) : sim(m) {}
  lz::Simulator sim;
  std::vector<lz::Output> outputs;  // C ids index this, one entry per distinct output
};

struct luztar_snapshot {
  lz::Snapshot snapshot;
};

namespace {

thread_local std::string last_error;

luztar_status fail(luztar_status s, const std::string& why) {
  last_error = why;
  return s;
}

// Runs f, turning exceptions into status codes.
template <class F>
luztar_status guarded(F&& f) {
  try {
    last_error.clear();
    return f();
  } catch (const lz::Error& e) {
    return fail(LUZTAR_BAD_MODEL, e.what());
  } catch (const std::invalid_argument& e) {
    return fail(LUZTAR_BAD_ARGUMENT, e.what());
  } catch (const std::bad_alloc&) {
    return fail(LUZTAR_INTERNAL, "out of memory");
  } catch (const std::exception& e) {
    return fail(LUZTAR_INTERNAL, e.what());
  }
}

luztar_status status_of(lz::Status s, const std::string& message) {
  switch (s) {
    case lz::Status::reached_time: return LUZTAR_OK;
    case lz::Status::event_limit: return fail(LUZTAR_EVENT_LIMIT, message);
    case lz::Status::event_storm: return fail(LUZTAR_EVENT_STORM, message);
    case lz::Status::solver_failure: return fail(LUZTAR_SOLVER_FAILURE, message);
  }
  return fail(LUZTAR_INTERNAL, "unknown step status");
}

// *out = make(), with exceptions turned into status codes.
template <class T, class Make>
luztar_status create(T** out, Make&& make) {
  *out = nullptr;
  return guarded([&] {
    *out = make();
    return LUZTAR_OK;
  });
}

// An id from `resolve` (-1 and the reason when it fails).
template <class Resolve>
int resolve_id(const void* sim, const char* name, const char* function, Resolve&& resolve) {
  if (!sim || !name) {
    fail(LUZTAR_BAD_ARGUMENT, std::string(function) + ": null argument");
    return -1;
  }
  int id = -1;
  guarded([&] {
    id = resolve();
    return LUZTAR_OK;
  });
  return id;
}

#define LUZTAR_REQUIRE(p) \
  if (!(p)) return fail(LUZTAR_BAD_ARGUMENT, std::string(__func__) + ": " #p " is null")

}  // namespace

extern "C" {

const char* luztar_version(void) { return lz::version(); }
const char* luztar_last_error(void) { return last_error.c_str(); }

luztar_status luztar_model_load(const char* path, luztar_model** out) {
  LUZTAR_REQUIRE(path);
  LUZTAR_REQUIRE(out);
  return create(out, [&] {
    return new luztar_model{lz::Model::load(path)};
  });
}

luztar_status luztar_model_parse(const char* yaml_text, luztar_model** out) {
  LUZTAR_REQUIRE(yaml_text);
  LUZTAR_REQUIRE(out);
  return create(out, [&] {
    return new luztar_model{lz::Model::parse(yaml_text)};
  });
}

void luztar_model_free(luztar_model* model) { delete model; }

luztar_status luztar_simulator_new(const luztar_model* model, luztar_simulator** out) {
  LUZTAR_REQUIRE(model);
  LUZTAR_REQUIRE(out);
  return create(out, [&] { return new luztar_simulator(model->model); });  // shares the model
}

void luztar_simulator_free(luztar_simulator* sim) { delete sim; }

int luztar_input(luztar_simulator* sim, const char* name) {
  return resolve_id(sim, name, __func__, [&] { return sim->sim.input(name).position(); });
}

int luztar_output(luztar_simulator* sim, const char* name) {
  return resolve_id(sim, name, __func__, [&] {
    const lz::Output id = sim->sim.output(name);
    for (std::size_t k = 0; k < sim->outputs.size(); ++k)  // asked before (by this or another name)
      if (sim->outputs[k] == id) return static_cast<int>(k);
    sim->outputs.push_back(id);
    return static_cast<int>(sim->outputs.size()) - 1;
  });
}

luztar_status luztar_set_input(luztar_simulator* sim, int input, double value) {
  LUZTAR_REQUIRE(sim);
  return guarded([&] {
    sim->sim.set_input(lz::Input(input), value);
    return LUZTAR_OK;
  });
}

luztar_status luztar_advance_to(luztar_simulator* sim, double t) {
  LUZTAR_REQUIRE(sim);
  return guarded([&] {
    lz::Status s;
    try {
      s = sim->sim.advance_to(t);
    } catch (const std::invalid_argument& e) {  // the time refused, the simulator unchanged: name this function
      throw std::invalid_argument(std::string("luztar_") + e.what());
    }
    return status_of(s, sim->sim.message());
  });
}

luztar_status luztar_value(luztar_simulator* sim, int output, double* value) {
  LUZTAR_REQUIRE(sim);
  LUZTAR_REQUIRE(value);
  if (output < 0 || output >= static_cast<int>(sim->outputs.size()))
    return fail(LUZTAR_BAD_ARGUMENT, "luztar_value: unknown output id " + std::to_string(output));
  return guarded([&] {
    *value = sim->sim.value(sim->outputs[static_cast<std::size_t>(output)]);
    return LUZTAR_OK;
  });
}

double luztar_time(const luztar_simulator* sim) {
  if (sim) return sim->sim.time();
  fail(LUZTAR_BAD_ARGUMENT, "luztar_time: sim is null");
  return NAN;
}

luztar_status luztar_get_stats(const luztar_simulator* sim, luztar_stats* out) {
  LUZTAR_REQUIRE(sim);
  LUZTAR_REQUIRE(out);
  return guarded([&] {
    const lz::Stats s = sim->sim.stats();
    *out = {s.steps, s.rhs_evals, s.jac_evals, s.root_evals, s.events, s.reinits};
    return LUZTAR_OK;
  });
}

luztar_status luztar_snapshot_take(luztar_simulator* sim, luztar_snapshot** out) {
  LUZTAR_REQUIRE(sim);
  LUZTAR_REQUIRE(out);
  return create(out, [&] { return new luztar_snapshot{sim->sim.snapshot()}; });
}

luztar_status luztar_snapshot_restore(luztar_simulator* sim, const luztar_snapshot* snapshot) {
  LUZTAR_REQUIRE(sim);
  LUZTAR_REQUIRE(snapshot);
  return guarded([&] {
    sim->sim.restore(snapshot->snapshot);
    return LUZTAR_OK;
  });
}

void luztar_snapshot_free(luztar_snapshot* snapshot) { delete snapshot; }

}  // extern "C"
