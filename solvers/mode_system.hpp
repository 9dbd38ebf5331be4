#pragma once
// The equations of the current modes as an integrator sees them
// (solvers/integrator.hpp): the reduced state y of the mode structure, its
// right-hand side and Jacobian (solvers/dynamics.hpp), the mode's root
// functions padded to a fixed count with constants that never cross, and the
// quadratures (input work, dissipated energy).
#include <algorithm>

#include "solvers/dynamics.hpp"
#include "solvers/integrator.hpp"

namespace luztar {

class ModeSystem final : public OdeSystem {
 public:
  static constexpr int kQuadInput = 0, kQuadDissipated = 1;

  // root_slots: the number of root functions the integrator watches (max_root_count).
  ModeSystem(const Model& m, const State& modes, const ModeStructure& ms, Workspace& ws, int root_slots)
      : model_(m), modes_(modes), ms_(ms), ws_(ws), root_slots_(root_slots) {}

  void rhs(double t, const double* y, double* ydot) override { luztar::rhs(model_, modes_, ms_, t, y, ydot, ws_); }
  void jacobian(double t, const double* y, JacobianSink& jac) override {
    luztar::jacobian(model_, modes_, ms_, t, y, jac, ws_);
  }
  void roots(double t, const double* y, double* g) override {
    root_functions(model_, modes_, ms_, t, y, g, ws_);
    std::fill(g + ms_.roots.size(), g + root_slots_, 1.0);
  }
  void quadrature(double t, const double* y, double* qdot) override {
    unpack(ms_, y, ws_);
    applied_forces(model_, modes_, t, ws_);
    qdot[kQuadInput] = input_power(model_, t, ws_);
    qdot[kQuadDissipated] = dissipation_power(model_, modes_, ws_);
  }

 private:
  const Model& model_;
  const State& modes_;
  const ModeStructure& ms_;
  Workspace& ws_;
  int root_slots_;
};

}  // namespace luztar
