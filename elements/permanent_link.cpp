#include "elements/permanent_link.hpp"

// --- its row in the table of kinds (elements/kinds.hpp) ----------------------
// Its link (PermanentLink::link) holds its torque; it has no limit (0 in the
// Workspace: nothing reads a permanent link's limit).

namespace luztar {

namespace {

const CoordinateRow& relation_of(const Model& m, int i) { return m.permanent_links[i].row; }

// Its torque is the structure's (solvers/static_friction); its limit none.
void forces(const Model& m, int i, const ModeFrame&, const ForceTargets& out) {
  out.limit[m.permanent_links[i].link] = 0.0;
}

// Locked always: no tangent of its own.
bool tangent(const Model&, int, const State&, const double*, Tangent&) { return false; }

ElementOutput output(const Model& m, int i, const ModeFrame& f) { return {f.lambda[m.permanent_links[i].link], 0}; }

// lambda = -P / h, P its row's impulse over the step.
ElementOutput step_output(const Model& m, int i, const StepFrame& f) {
  return {-f.link_impulse[m.permanent_links[i].link] / f.h, 0};
}

}  // namespace

// No state of its own (always 0: no events), no witnesses, no work.
const ElementKindInfo kPermanentLinkKind = {
    .kind = ElementKind::link,
    .relation = relation_of,
    .forces = forces,
    .tangent = tangent,
    .output = output,
    .step_output = step_output,
};

}  // namespace luztar
