#pragma once
// Permanent link (issue 19 item 2): a bilateral kinematic constraint on a
// coordinate row (core/coordinate.hpp) that is never released,
//
//   x' = sum_k c_k w_k = 0 at all times,
//
// a planetary set's Willis relation w_s + p w_r - (1 + p) w_c = 0, an open
// differential's w_left + w_right - 2 w_cage = 0. In the redundant Lagrange
// model it is a stuck friction element whose torque has no bound: its link
// (LinkKind::permanent) is locked from t_start on, its multiplier lambda comes
// from the structure (the S-S box-LCP with the box [-inf, inf], the static
// split of its locked cluster, an impulse row of the impact LCP and of the
// time stepper), and it acts as -c_k lambda on body k, as a spring's torque on
// its row. It has no limit, so no reserve and no witness; it does no work
// (lambda x' = 0), so it neither stores nor dissipates energy; its state is
// always 0 and it logs no events.
#include "core/model.hpp"
#include "elements/kinds.hpp"

namespace luztar {

// Its row in the table of kinds (elements/kinds.hpp).
extern const ElementKindInfo kPermanentLinkKind;

// Its rate x' = sum c_k w_k [rad/s] (0 up to roundoff while the run holds it).
inline double permanent_link_rate(const PermanentLink& l, const double* w) { return row_value(l.row, w); }

}  // namespace luztar
