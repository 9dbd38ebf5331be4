#include "elements/kinds.hpp"

#include "elements/freeplay_spring.hpp"
#include "elements/friction.hpp"
#include "elements/lossy_gear.hpp"
#include "elements/massless_bearing.hpp"
#include "elements/one_way_clutch.hpp"
#include "elements/permanent_link.hpp"
#include "elements/torque_load.hpp"

namespace luztar {

namespace {

// A stuck group with one loop is watched as a whole (its static split is not
// unique): 1 - its largest |lambda| / limit. Index: the static split.
double group_witness(const Model&, const Witness& w, const WitnessInputs& in) {
  return 1.0 - in.group_utilisation[w.index];
}

// In the order of ElementKind; each row is defined beside its kind's functions.
const ElementKindInfo* const kElementKinds[kNumElementKinds] = {&kSpringKind, &kFrictionKind, &kTorqueKind,
                                                                &kOneWayClutchKind, &kPermanentLinkKind,
                                                                &kLossyGearKind};

}  // namespace

const ElementKind kSumOrder[kNumElementKinds] = {ElementKind::torque, ElementKind::spring, ElementKind::friction,
                                                 ElementKind::one_way_clutch, ElementKind::link,
                                                 ElementKind::lossy_gear};  // (a lossy gear reads the sum before it)
const ElementKind kListOrder[kNumElementKinds] = {ElementKind::friction, ElementKind::spring, ElementKind::torque,
                                                  ElementKind::one_way_clutch, ElementKind::link,
                                                  ElementKind::lossy_gear};

// In the order of WitnessKind.
const WitnessKindInfo kWitnessKinds[kNumWitnessKinds] = {
    {WitnessKind::slip_velocity, "slip_velocity",
     "a slipping friction element (an overrunning one-way clutch) arrives at rest", Crossing::arrives_at_rest, 0,
     nullptr, friction_witness},
    {WitnessKind::stick_upper, "stick_upper",
     "a stuck friction element's (a locked one-way clutch's) reserve runs out: it breaks away (overruns) in +",
     Crossing::reserve_exhausted, +1, friction_reach, friction_witness},
    {WitnessKind::stick_lower, "stick_lower",
     "a stuck friction element's (a locked one-way clutch's) reserve runs out: it breaks away (overruns) in -",
     Crossing::reserve_exhausted, -1, friction_reach, friction_witness},
    {WitnessKind::group_reserve, "group_reserve", "a link of a stuck group with one loop reaches its limit",
     Crossing::group_exhausted, 0, nullptr, group_witness},
    {WitnessKind::freeplay_upper, "freeplay_upper", "x = +a: the teeth meet or part on the + flank",
     Crossing::freeplay_flank, +1, nullptr, spring_witness},
    {WitnessKind::freeplay_lower, "freeplay_lower", "x = -a: the teeth meet or part on the - flank",
     Crossing::freeplay_flank, -1, nullptr, spring_witness},
    {WitnessKind::massless_upper, "massless_upper", "M = +MT0: a massless body starts or stops moving in +",
     Crossing::massless_kink, +1, massless_reach, massless_witness},
    {WitnessKind::massless_lower, "massless_lower", "M = -MT0: a massless body starts or stops moving in -",
     Crossing::massless_kink, -1, massless_reach, massless_witness},
    {WitnessKind::contact_force, "contact_force", "rigid freeplay teeth in contact unload",
     Crossing::contact_unloads, 0, spring_reach, spring_witness},
    {WitnessKind::gap_turnaround, "gap_turnaround", "x' turns back towards the nearer flank (no mode change)",
     Crossing::none, 0, nullptr, spring_witness},
    {WitnessKind::damping_upper, "damping_upper", "c x' = +|Tc|: a contact-law spring's damping clamps at +|Tc|, or leaves it",
     Crossing::own_mode, +1, spring_reach, spring_witness},
    {WitnessKind::damping_lower, "damping_lower", "c x' = -|Tc|: a contact-law spring's damping clamps at -|Tc|, or leaves it",
     Crossing::own_mode, -1, spring_reach, spring_witness},
    {WitnessKind::knot_upper, "knot_upper", "a slipping friction element's speed reaches the next knot of its table",
     Crossing::own_mode, +1, nullptr, friction_witness},
    {WitnessKind::knot_lower, "knot_lower", "a slipping friction element's speed falls to the knot below its segment",
     Crossing::own_mode, -1, nullptr, friction_witness},
    {WitnessKind::stage_upper, "stage_upper", "x = x_k: a table spring passes its segment's upper knot into the next stage",
     Crossing::segment, +1, nullptr, spring_witness},
    {WitnessKind::stage_lower, "stage_lower", "x = x_k-1: a table spring passes its segment's lower knot back a stage",
     Crossing::segment, -1, nullptr, spring_witness},
    {WitnessKind::gear_mesh, "gear_mesh",
     "a lossy gear's mesh torque changes sign: moving, the power flow reverses (forward <-> back-driven); stuck, "
     "the half of its cone", Crossing::own_mode, 0, lossy_gear_reach, lossy_gear_witness},
    {WitnessKind::gear_upper, "gear_upper", "a stuck lossy gear's reserve L_max(lambda) - L runs out: it starts to turn +",
     Crossing::reserve_exhausted, +1, lossy_gear_reach, lossy_gear_witness},
    {WitnessKind::gear_lower, "gear_lower", "a stuck lossy gear's reserve L - L_min(lambda) runs out: it starts to turn -",
     Crossing::reserve_exhausted, -1, lossy_gear_reach, lossy_gear_witness},
};

const ElementKindInfo& element_kind_info(ElementKind k) { return *kElementKinds[static_cast<int>(k)]; }

double output_scale(const Model& m, int e) {
  return m.element_output_scale.empty() ? 1.0 : m.element_output_scale[static_cast<std::size_t>(e)];
}

std::int8_t state_as_written(const Model& m, const ElementKindInfo& row, int i, int e, std::int8_t state) {
  if (output_scale(m, e) >= 0.0) return state;
  return row.reversed_state ? row.reversed_state(m, i, state) : static_cast<std::int8_t>(-state);
}

ElementOutput as_written(const Model& m, const ElementKindInfo& row, int i, int e, ElementOutput o) {
  o.torque *= output_scale(m, e);  // (1 for an element no merge carried: the same bits)
  o.state = state_as_written(m, row, i, e, o.state);
  return o;
}

double elastic_energy(const Model& m, const std::vector<double>& q) {
  double e = 0.0;
  for_each_element(m, kSumOrder, [&](const ElementKindInfo& row, int i) {
    if (row.elastic_energy) e += row.elastic_energy(m, i, q.data());
  });
  return e;
}

int max_witness_count(const Model& m) {
  int n = kMaxMasslessWitnesses * m.num_bodies();
  for (ElementKind k : kSumOrder) n += element_kind_info(k).max_witnesses * static_cast<int>(m.elements_of(k).size());
  return n;
}

}  // namespace luztar
