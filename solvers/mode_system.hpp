#pragma once
// The equations of the current modes as an integrator sees them
// (solvers/integrator.hpp): the reduced state y of the mode structure, its
// right-hand side and Jacobian (solvers/dynamics.hpp), the mode's root
// functions padded to a fixed count with constants that never cross, and the
// quadratures: input work, dissipated energy, then each dissipative element's
// dissipated energy (solvers/element_outputs.hpp dissipative_elements order),
// whose integrands add up to the global one's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "solvers/dynamics.hpp"
#include "solvers/element_outputs.hpp"
#include "solvers/exact/affine_mode_system.hpp"
#include "solvers/integrator.hpp"

namespace luztar {

class ModeSystem final : public OdeSystem {
 public:
  static constexpr int kQuadInput = 0, kQuadDissipated = 1, kQuadElements = 2;
  // The number of quadratures: the two global ones and one per dissipative element.
  static int quadrature_count(const Model& m) {
    return kQuadElements + dissipative_element_count(m);
  }
  // The quadratures' integrands at the forces in ws (applied_forces, and the
  // drives' torques when bodies are driven): the input power, the dissipated
  // power as the sum of the elements' terms in their order from 0 (each term
  // evaluated once), and those terms.
  static void quadrature_rates(const Model& m, const State& modes, const Workspace& ws, double* qdot) {
    qdot[kQuadInput] = input_power(m, ws);
    const int n = element_dissipation_powers(m, modes, ws, qdot + kQuadElements);
    double sum = 0.0;
    for (int k = 0; k < n; ++k) sum += qdot[kQuadElements + k];
    qdot[kQuadDissipated] = sum;
  }

  // root_slots: the number of root functions the integrator watches (max_root_count).
  ModeSystem(const Model& m, const State& modes, const ModeStructure& ms, Workspace& ws, int root_slots)
      : model_(m), modes_(modes), ms_(ms), ws_(ws), root_slots_(root_slots) {}

  void rhs(double t, const double* y, double* ydot) override { luztar::rhs(model_, modes_, ms_, t, y, ydot, ws_); }
  void jacobian(double t, const double* y, JacobianSink& jac) override {
    luztar::jacobian(model_, modes_, ms_, t, y, jac, ws_);
  }
  // A contact torque is watched from 64 eps of the solved torques behind it
  // (solved_torque_scales: its own clusters') below 0: one that is 0 with all its terms (bodies
  // whose viscous damping is proportional to their inertia) changes sign with
  // its roundoff, and CVODE's root finder took each change for an unloading
  // and chattered contact/separation pairs.
  void roots(double t, const double* y, double* g) override {
    root_functions(model_, modes_, ms_, t, y, g, ws_);
    const bool contacts = std::any_of(ms_.roots.begin(), ms_.roots.end(),
                                      [](const Witness& w) { return w.kind == WitnessKind::contact_force; });
    if (contacts) solved_torque_scales(model_, ms_, ws_, ws_.root_scale.data());
    for (std::size_t r = 0; contacts && r < ms_.roots.size(); ++r)
      if (ms_.roots[r].kind == WitnessKind::contact_force)
        g[r] += 64.0 * std::numeric_limits<double>::epsilon() * ws_.root_scale[r];
    std::fill(g + ms_.roots.size(), g + root_slots_, 1.0);
  }
  void quadrature(double t, const double* y, double* qdot) override {
    signal_values(model_, t, ws_);  // (a drive's slots give its body's motion)
    unpack(ms_, y, ws_);
    applied_forces(model_, modes_, ws_);
    if (!model_.driven_bodies.empty()) cluster_accelerations(model_, ms_, ws_);  // the drives' torques
    quadrature_rates(model_, modes_, ws_, qdot);
  }

 private:
  const Model& model_;
  const State& modes_;
  const ModeStructure& ms_;
  Workspace& ws_;
  int root_slots_;
};

// The same equations as the exact integrator sees them (solvers/exact/
// affine_mode_system.hpp): rhs, roots and quadratures at (y, sigma), sigma the
// signal slots (solvers/dynamics.hpp: signal_values), through the same
// dynamics functions. Affine within a mode only for the models that
// exact_integrator_refusal (core/model.hpp) accepts: the integrator checks its
// identified maps against this system at the state it identified them at.
class ExactModeSystem final : public exact::AffineModeSystem {
 public:
  ExactModeSystem(const Model& m, const State& modes, const ModeStructure& ms, Workspace& ws, int root_slots)
      : model_(m), modes_(modes), ms_(ms), ws_(ws), root_slots_(root_slots),
        quadratures_(ModeSystem::quadrature_count(m)) {}

  int size() const override { return 2 * model_.num_bodies(); }
  int slot_count() const override { return signal_slot_count(model_); }
  int root_count() const override { return root_slots_; }
  // ModeSystem's: each a quadratic form of its own, so that the elements' add
  // up to the global one to roundoff.
  int quadrature_count() const override { return quadratures_; }

  // The modes of the State (append_mode_key), then the watched witnesses: which
  // ones a structure watches also depends on where it was built (a rigid
  // freeplay's gap turnaround watches the nearer flank). The clusters, stuck
  // groups and contacts follow from the modes; the slip margin is fixed.
  void mode_key(std::vector<std::int8_t>& key) const override {
    key.clear();
    append_mode_key(modes_, key);
    for (const Witness& w : ms_.roots) {
      key.push_back(static_cast<std::int8_t>(w.kind));
      for (int b = 0; b < 4; ++b) key.push_back(static_cast<std::int8_t>((w.index >> (8 * b)) & 0xff));
      key.push_back(static_cast<std::int8_t>(w.direction));
      // its level itself: a margin that follows the torques (margin_scale) is a mode of its own
      std::int8_t level[sizeof(double)];
      std::memcpy(level, &w.level, sizeof(double));
      key.insert(key.end(), level, level + sizeof(double));
    }
  }
  void rhs(const double* y, const double* sigma, double* ydot) override {
    set_slots(sigma);
    luztar::rhs(model_, modes_, ms_, y, ydot, ws_);
  }
  void roots(const double* y, const double* sigma, double* g) override {
    set_slots(sigma);
    root_functions(model_, modes_, ms_, y, g, ws_);
    std::fill(g + ms_.roots.size(), g + root_slots_, 1.0);
  }
  // The solved torques of the last roots() (solved_torque_scales).
  void root_term_scales(double* scale) const override {
    solved_torque_scales(model_, ms_, ws_, scale);
    std::fill(scale + ms_.roots.size(), scale + root_slots_, 0.0);
  }
  void quadrature(const double* y, const double* sigma, double* qdot) override {
    set_slots(sigma);
    unpack(ms_, y, ws_);
    applied_forces(model_, modes_, ws_);
    if (!model_.driven_bodies.empty()) cluster_accelerations(model_, ms_, ws_);  // the drives' torques
    ModeSystem::quadrature_rates(model_, modes_, ws_, qdot);  // (the polarisation calls this ~N^2 / 2 times a mode)
  }
  // Every velocity slot, and each spring's coordinate sum c_k q_k
  // (y[2j] = q_j, y[2j+1] its velocity slot): the laws read angles through
  // springs only.
  int relation_rows(std::vector<double>& rows) const override {
    const int n = size();
    auto row = [&]() {
      rows.resize(rows.size() + static_cast<std::size_t>(n), 0.0);
      return rows.end() - n;
    };
    for (int j = 0; j < model_.num_bodies(); ++j) row()[2 * j + 1] = 1.0;
    for (const Spring& sp : model_.springs) {
      auto r = row();
      for (int k = 0; k < sp.row.n; ++k)  // (an angle drive's body reads its angle from its slot, not y)
        if (model_.drives[sp.row.body[k]].angle_slot < 0) r[2 * sp.row.body[k]] += sp.row.c[k];
    }
    return model_.num_bodies() + static_cast<int>(model_.springs.size());
  }

 private:
  void set_slots(const double* sigma) { std::copy(sigma, sigma + ws_.sigma.size(), ws_.sigma.begin()); }

  const Model& model_;
  const State& modes_;
  const ModeStructure& ms_;
  Workspace& ws_;
  int root_slots_;
  int quadratures_;
};

}  // namespace luztar
