#pragma once
// Runs of a model written as YAML text in a test, with units (the reader's
// conversions are part of what such a test checks): one way of running it
// (an integrator of the event-driven solver, or time stepping) per Way.
#include <string>

#include "io/yaml_model.hpp"
#include "solvers/simulator.hpp"

namespace luztar::test {

struct Way {
  const char* name;      // "exact", "cvode_bdf", "time_stepping"
  const char* settings;  // its `simulation` keys besides t_end and output_step
};

// `body`: the model's bodies and elements; extra: more `simulation` keys ("atol: 1e-14, ").
inline Result run_yaml(const std::string& body, const Way& how, double t_end, double output_step,
                       const std::string& extra = "") {
  const std::string text = "simulation: {t_end: " + std::to_string(t_end) + ", output_step: " +
                           std::to_string(output_step) + ", " + extra + how.settings + "}\n" + body;
  return simulate(io::parse_model(text, "test.yaml", ".", {}));
}

}  // namespace luztar::test
