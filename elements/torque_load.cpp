#include "elements/torque_load.hpp"

// --- its row in the table of kinds (elements/kinds.hpp) ----------------------

namespace luztar {

namespace {

void forces(const Model& m, int l, const ModeFrame& f, const ForceTargets& out) {
  out.force[m.loads[l].body] += f.sigma[m.loads[l].slot];
}

double input_power(const Model& m, int l, const ModeFrame& f) {
  return load_power(m, l, f.sigma[m.loads[l].slot], f.w);
}

ElementOutput output(const Model& m, int l, const ModeFrame& f) { return load_output(f.sigma[m.loads[l].slot]); }

// theta-weighted over the step (the time stepper's input work).
void step_input(const Model& m, int l, double t0, double t1, double theta, const double* inputs, double* force) {
  force[m.loads[l].body] += (1.0 - theta) * load_torque(m, l, t0, inputs) + theta * load_torque(m, l, t1, inputs);
}

ElementOutput step_output(const Model& m, int l, const StepFrame& f) { return load_output(m, l, f.t, f.inputs); }

int body_of(const Model& m, int l) { return m.loads[l].body; }

}  // namespace

// No relation, no state, no witnesses: an external torque, the input power of the energy balance.
const ElementKindInfo kTorqueKind = {
    .kind = ElementKind::torque,
    .body = body_of,
    .forces = forces,
    .input_power = input_power,
    .output = output,
    .step_input = step_input,
    .step_output = step_output,
};

}  // namespace luztar
