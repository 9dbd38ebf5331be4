#pragma once
// Signal helpers shared by the exact integrator's tests (the others are in
// tests/model_builder.hpp).
#include "core/signal.hpp"

namespace luztar::test {

inline Signal step(double time, double initial, double final_value) {
  Signal s;
  s.kind = Signal::Kind::step;
  s.time = time;
  s.initial = initial;
  s.final_value = final_value;
  return s;
}

}  // namespace luztar::test
