#pragma once
// The equations of motion in one variable structure (fixed freeplay sides and
// stick/slip modes), in the form CVODE integrates.
//
// State vector (interleaved so that chains give a banded Jacobian):
//   y[2j]   = q_j, angle of body j [rad]
//   y[2j+1] = velocity slot of body j [rad/s]; it carries the velocity of the
//             locked cluster when j is the cluster's representative, or one of
//             a dense cluster's coordinates when j is one of its free members
//             (bodies/clusters.hpp); other slots are frozen (derivative 0) and
//             ignored.
// Bodies of a cluster tied to the base have velocity exactly 0; bodies of a free
// cluster share one velocity exactly (a dense cluster: w = N v exactly).
//
// Quadratures (integrated by CVODE beside the state):
//   input work   W' = sum_loads tau(t) w_body
//   dissipation  D' = sum_springs c x'^2 + sum_slipping (mu v + MT0 dir) v
//                + sum_overrunning one-way clutches (mu v + D o) v
#include <Eigen/Dense>
#include <span>
#include <vector>

#include "bodies/clusters.hpp"
#include "core/model.hpp"
#include "core/state.hpp"
#include "elements/kinds.hpp"
#include "elements/massless_bearing.hpp"
#include "elements/witness.hpp"
#include "solvers/algebraic_bodies.hpp"
#include "solvers/static_friction.hpp"

namespace luztar {

// What stays fixed while the variable structure stays: built at every event,
// into the same object (its storage, and the static splits of clusters seen
// before, are reused: rebuilding allocates nothing in a steady state).
struct ModeStructure {
  LockedClusters clusters;
  std::vector<int> contacts;         // rigid freeplay springs in persistent contact
  std::vector<int> held_elements;    // element ids of the stuck frictions and locked one-way clutches (time stuck)
  std::vector<Witness> roots;       // root functions (elements/witness.hpp, elements/kinds.hpp)
  bool roots_need_forces = false;    // some root watches a static torque or a massless body's torque

  // One static split per cluster with stuck links.
  int num_splits() const { return static_cast<int>(active.size()); }
  const StaticSplit& split(int s) const { return *active[s]; }

  // Storage behind the above, kept between builds: the splits met so far,
  // filed under their lowest link (a link is in one cluster at a time), a few
  // compositions per link, least recently built replaced first.
  struct Filed {
    StaticSplit split;
    long used = 0;  // build number of the last use
  };
  std::vector<std::vector<Filed>> filed;  // (num_links)
  std::vector<const StaticSplit*> active;
  long builds = 0;
  std::vector<int> split_links;      // links of the split being built
  std::vector<int> link_ids;         // the structure's locked links, in link order (Model::links)
  LockedRows stuck_links;            // (link_ids) their rows
  std::vector<char> rate_held;       // (num_links) 1: a contact link whose rate the clusters hold at 0
  ClusterGroups stuck_by_cluster;    // link ids grouped by cluster
  std::vector<char> in_group;        // (num_links) link watched through its group's reserve
};

// Scratch space for evaluations; sized once, no allocation in the hot path.
// The two spans view the simulation's state, which the workspace does not own.
struct Workspace {
  std::vector<double> q, w;      // (nb) full angles and velocities
  std::vector<double> sigma;     // (signal_slot_count) the signal slots sigma: each load's torque, then each
                                 // friction element's MT0 [N m] (signal_values, or set by the caller)
  std::vector<double> force;     // (nb) applied torques (without static friction)
  std::vector<double> limit;     // (num_links) static limit static_ratio * MT0(t) [N m] (frictions; one-way
                                 // clutches: against overrun, static_ratio * D(t))
  std::vector<double> lambda;    // (num_links) friction torques (static for stuck elements), then
                                 // contact torques of rigid freeplays, then one-way clutch torques [N m]
                                 // (Model::links)
  std::vector<double> acc;       // (nc) cluster accelerations [rad/s^2] (the fast path's clusters)
  std::vector<double> slot_acc;  // (nb) accelerations of dense clusters' coordinates, at their free members [rad/s^2]
  std::vector<double> group_utilisation;  // (splits) largest |lambda|/limit of each stuck group
  std::vector<double> massless_mt0;       // (nb) summed MT0(t) of the bearings of massless bodies [N m]
  std::vector<double> cluster_torque;     // (nb) solved_torque_scales' scratch: per locked cluster [N m]
  std::vector<double> body_roundoff, cluster_roundoff;  // (nb) solved_torque_roundoffs' scratch [N m]
  std::vector<double> root_scale;         // (max_root_count) its result where the caller keeps none
  // (nb) the torque each drive applies to its prescribed body [N m] (Model::drives; 0 for a free body),
  // set by cluster_accelerations (reset by applied_forces, whose ws.force it is then part of)
  std::vector<double> drive_torque;
  std::vector<Drive> drives;              // (nb) Model::drives (unpack reads them)
  std::vector<int> driven_bodies;         // Model::driven_bodies
  std::vector<char> drive_cluster;        // (nb) jacobian's scratch: per cluster, 1 moved by a drive, 2 its
                                          // velocities the drive's too
  std::span<double> algebraic_q;          // (nb) last angles of algebraic bodies (warm start) [rad]: the
                                          // simulation's (SimData::algebraic_q), bound by its owner
  std::vector<struct Coupling> couplings; // Schur couplings through algebraic groups (Jacobian scratch)
  std::span<double> inputs;               // (Model::num_input_values) named inputs, then held block outputs:
                                          // the simulation's (SimData::inputs), bound by its owner
  bool massless_bearings;                 // the model has massless bodies on bearings (massless_velocities)
  explicit Workspace(const Model& m);
};
// True when some body is massless on bearings (first-order, Theorem 5.3).
bool has_massless_bearings(const Model& m);
// The state in ws as the element kinds' rows read it (elements/kinds.hpp); modes may be null for laws that read none.
ModeFrame mode_frame(const State* modes, const Workspace& ws);

// Destination of Jacobian entries (dense or banded matrix).
class JacobianSink {
 public:
  virtual ~JacobianSink() = default;
  virtual void add(int row, int col, double value) = 0;
};

// slip_margin [rad/s]: a slipping element's velocity root lies this far past
// zero (at -margin for slip+, +margin for slip-). An element set slipping at an
// event starts at v = 0 exactly; when its acceleration is tiny (a break-away
// at the threshold), the integrator's roundoff in v can be larger than a t and
// of either sign, which a root at exactly 0 would take for a return to rest,
// again and again (an event storm). The margin is far below the integration
// error (the simulator uses 1e-3 atol), so a genuine arrival moves by
// margin / |a| only (Integrator::slip_margin: 0 for the exact integrator).
// torque_scale (links) [N m]: each link's torque scale, the unit of a locked
// one-way clutch's reserve margin (elements/one_way_clutch.hpp); null: 1.
void build_mode_structure(const Model& m, const State& modes, double t, const double* inputs, double slip_margin,
                          ModeStructure& ms, const double* torque_scale = nullptr);
// Upper bound of ModeStructure::roots.size() for any structure of the model.
int max_root_count(const Model& m);
// Whether link l (Model::links) locks its bodies in `modes`: a stuck friction
// element, rigid freeplay teeth in contact, a locked one-way clutch, a
// permanent link or a lossy gear's mesh (always), a stuck lossy gear's loss.
bool link_locked(const Model& m, const State& modes, int l);

// The bodies' velocities w (nb) from the velocity slots of y (y[2j + 1]) in
// the structure: w_j = g_j v_rep (0 when held), a dense cluster's w = N v.
// Given y', the bodies' accelerations.
void body_velocities(const ModeStructure& ms, const double* y, double* w);
// y -> full q, w in ws. A prescribed body's angle (an angle drive) and its
// cluster's velocities (an angle or velocity drive) come from its drive's
// slots in ws.sigma, which must hold the signals at y's time.
void unpack(const ModeStructure& ms, const double* y, Workspace& ws);
// Throws std::domain_error when the structure locks a prescribed body into a
// cluster it cannot drive: with another prescribed body, or a dense cluster.
void check_driven_clusters(const Model& m, const ModeStructure& ms, double t);
// Full q, w -> y (velocity slots of a cluster take the representative's velocity).
void pack(const ModeStructure& ms, const std::vector<double>& q, const std::vector<double>& w, double* y);

// The signal slots sigma: the values of the model's time signals that the laws
// read (Model::slots: each load's torque, then each friction element's MT0).
// Every law below reads them from ws.sigma, so a caller may set them directly
// (the exact integrator: sigma = C xi of its exosystem).
int signal_slot_count(const Model& m);
// The signal of each slot (slot order; they live in the model).
std::vector<const Signal*> slot_signals(const Model& m);
// sigma at t into ws.sigma, each finite (core/signal.hpp: require_finite_at,
// named after its element: a NaN torque would end as a convergence failure).
void signal_values(const Model& m, double t, Workspace& ws);

// Applied torques on bodies from ws.q, ws.w and ws.sigma, each element's
// through its kind's row (elements/kinds.hpp: loads, springs in their side,
// slipping friction); stuck friction is left out. Fills ws.force and the static
// limits ws.limit. Then the velocities of massless bodies,
// mu q' = luz(M, MT0) on the branch in modes.massless_side (Theorem 5.3), into
// ws.w, and their bearings' torques.
void applied_forces(const Model& m, const State& modes, Workspace& ws);
// The same with sigma evaluated at t first (signal_values).
void applied_forces(const Model& m, const State& modes, double t, Workspace& ws);
// Velocities of massless bodies and their bearings' torques (part of applied_forces).
void massless_velocities(const Model& m, const State& modes, Workspace& ws);
// Cluster accelerations from ws.force (ws.acc, ws.slot_acc). A cluster with a
// prescribed body P (gain g_P) moves with it, acc = a_P / g_P, and the drive
// applies R = (I_k acc - sum g_j f_j) / g_P to P: ws.drive_torque, added to ws.force.
void cluster_accelerations(const Model& m, const ModeStructure& ms, Workspace& ws);
// Static friction of stuck elements and contact torques into ws.lambda (needs force and acc).
void static_friction(const Model& m, const State& modes, const ModeStructure& ms, Workspace& ws);
// Everything the element tables read, at ws.q, ws.w and ws.sigma in the
// modes: applied_forces, cluster_accelerations and static_friction, in that
// order (the event pipeline at its state, the output tables at a sample).
void static_torques(const Model& m, const State& modes, const ModeStructure& ms, Workspace& ws);

// y' at (y, ws.sigma); the second form evaluates sigma at t first.
void rhs(const Model& m, const State& modes, const ModeStructure& ms, const double* y, double* ydot, Workspace& ws);
void rhs(const Model& m, const State& modes, const ModeStructure& ms, double t, const double* y,
         double* ydot, Workspace& ws);
void jacobian(const Model& m, const State& modes, const ModeStructure& ms, double t, const double* y,
              JacobianSink& jac, Workspace& ws);
// The structure's root functions at (y, ws.sigma); the second form evaluates sigma at t first.
void root_functions(const Model& m, const State& modes, const ModeStructure& ms, const double* y, double* g,
                    Workspace& ws);
void root_functions(const Model& m, const State& modes, const ModeStructure& ms, double t, const double* y,
                    double* g, Workspace& ws);
// The solved torques behind each of the structure's root functions at ws
// [N m], after root_functions (scale, one per ms.roots): a contact torque or a
// reserve is solved from the applied torques on the bodies and the link
// torques of the locked clusters its coordinate touches, and from nothing
// else, so its roundoff is eps times the largest of those, and a reserve's
// own limit (a static limit, a massless body's MT0, a lossy gear's bearing
// friction). 0 for a root that reads no solved torque (WitnessKindInfo::
// solved). Per cluster, not over the model: a brake of 1e11 N m elsewhere
// made a contact's real unloading read as roundoff.
void solved_torque_scales(const Model& m, const ModeStructure& ms, Workspace& ws, double* scale);
// The roundoff of those solved torques from the angles at ws.q [N m] (one
// per ms.roots; 0 for a root that reads no solved torque): eps times the
// terms of the springs' coordinates on the locked clusters the root's
// coordinate touches, carried into torque by their stiffness in the modes'
// branches (spring_coordinate_roundoff). One rounding: each caller scales it
// to the margin it needs. Grows with the angles turned where the solved
// torques themselves need not.
void solved_torque_roundoffs(const Model& m, const State& modes, const ModeStructure& ms, Workspace& ws,
                             double* roundoff);
// Power of the external torques [W] from ws (after applied_forces; the
// drives' power sum R w_P after cluster_accelerations). The dissipated power
// is the sum of element_dissipation_powers (solvers/element_outputs.hpp).
double input_power(const Model& m, const Workspace& ws);

// Half-bandwidth of the Jacobian in the interleaved layout for any variable structure.
int jacobian_half_bandwidth(const Model& m);

}  // namespace luztar
