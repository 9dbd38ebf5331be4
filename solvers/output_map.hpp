#pragma once
// A sample's outputs through per-mode affine maps (issue 17: the element
// tables' evaluation at every output sample was a tenth of a gear-train run).
//
// Within a mode, the outputs the simulator samples (element torques, the
// model bodies' accelerations, drive torques) are affine in
//   u = (x_k - a_k for each distinct spring row k, w, sigma, 1),
// x_k the row's coordinate, a_k its first spring's branch anchor in the mode
// (elements/freeplay_spring.hpp branch_anchor: a flank, a table's knot), w
// the velocities, sigma the signal slots, for the models the exact
// integrator serves (core/model.hpp exact_integrator_refusal: no algebraic
// groups, whose angles are piecewise; no loops of links, whose static torques
// are a Chebyshev split) whose springs' rows are independent (the laws read
// angles through springs only). A mode's map M is identified by probing the
// element tables at u = 0 and the unit vectors (as the exact integrator
// identifies its modes; the angles of a probe q = F^+ (a + e_k), F the rows,
// its columns taken against the coordinates the tables actually read there),
// on the mode's first sample, and checked against the tables at one fixed
// point of u, entry by entry to 1e-12 of its terms (not at the state: whether
// a mode's map serves depends on the mode alone, so outputs never depend on
// which samples came first). A mode whose map fails the check, whose probes
// are not finite (a massless body's acceleration is NaN) or move an element's
// state code, or whose row is shared by springs measured from different
// anchors, keeps the tables. A sample is then one sparse product M u.
//
// Roundoff. The coordinates enter as the laws form them (x - a: a contact
// torque just past its flank keeps its digits; absolute angles of shafts
// that have turned far never meet a stiffness), and the element coordinates
// and rates are the tables' own (element_coordinate_rows). What differs from
// the tables is the order of the sums: the outputs agree with them to the
// roundoff of their terms (tests/output_map_test.cpp). The removed bodies'
// accelerations (core/model.hpp reported_bodies: a body balanced between
// freeplay springs is piecewise in q) and the powers (torque times rate) are
// formed from the mapped values.
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include <Eigen/Dense>

#include "core/coordinate.hpp"
#include "core/model.hpp"
#include "core/state.hpp"
#include "solvers/element_outputs.hpp"

namespace luztar {

class OutputMaps {
 public:
  // The generic evaluation of every output at (q, w, sigma) in the current
  // modes, into o (the simulator's element tables).
  using Evaluate = std::function<void(const double* q, const double* w, const double* sigma, OutputSample& o)>;

  // slots: the number of signal slots. Maps are used only for the models the
  // exact integrator can serve (see above), and only when `enabled` (the
  // simulator enables them where the exact integrator runs: its new modes
  // are met at restarts, where enter() files a map's storage, so a step
  // that identifies no mode allocates nothing; CVODE's runs keep the tables).
  OutputMaps(const Model& m, int slots, bool enabled);

  // The mode of `modes` was entered (a restart): its map's storage is filed
  // now, where the integrator files the mode's own (a step that meets no new
  // mode allocates nothing).
  void enter(const State& modes);
  // The outputs at (modes.q, modes.w, sigma) in the modes of `modes` into o:
  // through the mode's map (built here on its first sample; every sample of
  // a mode takes its map, so outputs are a function of the mode and the
  // state, not of which samples came first: a restored snapshot repeats them
  // bit for bit), else by `evaluate`. Returns whether a map gave them.
  // entered: no mode change since the last enter() (its mode's key need not
  // be formed again).
  bool outputs(const State& modes, const double* sigma, const Evaluate& evaluate, OutputSample& o,
               bool entered = false);

  long maps_built() const { return built_; }     // identified and checked
  long maps_refused() const { return refused_; }  // failed a check: generic
  long mapped_samples() const { return mapped_; }

 private:
  struct Map {
    bool usable = false;   // built and checked
    bool refused = false;  // built and failed a check
    Eigen::MatrixXd M;     // outputs x (2 nb + slots + 1)
    // M's nonzero entries by rows (most outputs read a few coordinates: an
    // element's relative angle two)
    std::vector<int> row_start, col;
    std::vector<double> value;
    std::vector<std::int8_t> state;  // the elements' state codes in this mode
    std::vector<double> anchor;      // (nf) each spring coordinate's origin in u (branch_anchor)
  };
  Map& current(const State& modes);
  void point(const Map& map, const State& modes, const double* sigma);  // u_ at the state
  // Identifies and checks the map; false: refused, the tables' values at the state in o.
  bool build(Map& map, const State& modes, const double* sigma, const Evaluate& evaluate, OutputSample& o);
  void apply(const Map& map, const State& modes, const double* sigma, OutputSample& o);
  // The mapped outputs of o, stacked (torque, relative, rate, the model
  // bodies' accelerations, drive torques), and back.
  void stack(const OutputSample& o, Eigen::Ref<Eigen::VectorXd> r) const;
  void unstack(const Eigen::VectorXd& r, const State& modes, const std::vector<std::int8_t>& state,
               OutputSample& o) const;

  const Model& model_;
  bool enabled_ = false;
  int nb_ = 0, ne_ = 0, slots_ = 0, drives_ = 0;
  int nf_ = 0;                          // the springs' distinct coordinate rows
  std::vector<CoordinateRow> rows_of_;  // (nf)
  std::vector<int> feature_spring_;     // (nf) the first spring on each row (its anchor is the row's)
  std::vector<int> feature_of_spring_;  // (ns) each spring's row
  Eigen::MatrixXd probe_q_;             // (nb x nf) q = F^+ e_k: coordinate k 1, the others 0
  Eigen::Index rows_ = 0, cols_ = 0;
  std::unordered_map<std::string, Map> maps_;
  std::vector<std::int8_t> key_, last_key_;
  std::string lookup_;
  Map* last_ = nullptr;
  Eigen::VectorXd u_, r_;
  std::vector<double> power_sign_;  // element_powers' factors (power_signs)
  std::vector<ElementCoordinate> coordinates_;  // element_coordinate_rows
  std::vector<double> pq_, pw_, psigma_;  // a probe's u
  std::vector<double> sigma_;             // the slots at the state a map is built at (the caller's may be probed over)
  Eigen::VectorXd anchors_, q0_, mapped_r_, terms_, fb_;  // build's scratch
  Eigen::MatrixXd E_, corr_;
  OutputSample probe_;
  long built_ = 0, refused_ = 0, mapped_ = 0;
};

}  // namespace luztar
