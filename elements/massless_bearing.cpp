#include "elements/massless_bearing.hpp"

#include "elements/friction.hpp"

namespace luztar {

bool massless_has_kinks(const Model& m, int body) {
  for (const Friction& f : m.frictions)
    if (bearing_body(f) == body && can_have_dry_friction(m, f)) return true;
  return false;
}

void massless_witnesses(int body, int side, std::vector<Witness>& out) {
  if (side >= 0) out.push_back({WitnessKind::massless_upper, body, side == 0 ? +1 : -1});
  if (side <= 0) out.push_back({WitnessKind::massless_lower, body, side == 0 ? -1 : +1});
}

double massless_witness(const Model&, const Witness& w, const WitnessInputs& in) {
  const double M = in.force[w.index], L = in.massless_mt0[w.index];
  return w.kind == WitnessKind::massless_upper ? M - L : M + L;
}

SolvedReach massless_reach(const Model&, const Witness& w, const WitnessInputs& in) {
  return {nullptr, w.index, in.massless_mt0[w.index]};
}

}  // namespace luztar
