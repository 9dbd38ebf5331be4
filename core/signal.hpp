#pragma once
// Time signals: external torques and time-varying friction limits (MT0(t)).
//
//   constant  value
//   sine      offset + amplitude * sin(2 pi frequency t + phase)   [frequency in Hz, phase in rad]
//   step      initial for t < time, final for t >= time
//   ramp      initial before start, final after end, linear between
//   table     linear interpolation in (t, value) samples, held constant outside
//   sum, product of other signals
//   input     a value set from outside while the model runs (embedding API),
//             held until it is set again; declared by name in `signals:` with
//             its initial value and optional bounds [lower, upper]
//   reference to a named signal (resolved by assemble(); never evaluated)
//
// Complementarity blocks in a signal path (seed 001; their complementarity
// forms and LCP evaluations are in solvers/blocks/complementarity_blocks.hpp):
//   dead_zone   of signal `of`: of - upper above upper, of - lower below lower, 0 between
//   saturation  of signal `of`: clamped to [lower, upper]
// These are memoryless and act in continuous time. The blocks with memory are
// sampled (digital) blocks: at the instants t_start + n period they read `of`
// and set their output, which is held until the next instant (zero-order hold):
//   hold                  the sampled value of `of`
//   play                  backlash (play operator) of total width `width`, initial output `initial`
//   saturated_integrator  integral of `of` (backward Euler over the period), kept in
//                         [lower, upper], initial output `initial`
//   relay                 +value once `of` exceeds +threshold, -value once it falls below
//                         -threshold, unchanged between; initial state `initial` = +1 or -1
// Inside the `of` of a sampled block (and only there) a signal may measure the
// system at the sample instant:
//   angle, velocity   of the body named in `reference` [rad], [rad/s]
// so that a sampled block closes a control loop (a digital controller).
#include <cmath>
#include <string>
#include <vector>

namespace luztar {

struct Signal {
  enum class Kind {
    constant, sine, step, ramp, table, sum, product, input, reference,
    dead_zone, saturation,                       // memoryless blocks: terms[0] is `of`
    hold, play, saturated_integrator, relay,     // sampled blocks: terms[0] is `of`
    angle, velocity                              // measurements (inside sampled blocks only)
  };
  Kind kind = Kind::constant;
  double value = 0.0;                        // constant; relay: output magnitude
  double amplitude = 0.0, frequency = 0.0;   // sine: [unit], [Hz]
  double phase = 0.0, offset = 0.0;          // sine: [rad], [unit]
  double time = 0.0;                         // step: switch time [s]
  double start = 0.0, end = 0.0;             // ramp: [s]
  // step, ramp: values before / after; play, saturated_integrator: output
  // before the first sample; relay: state before the first sample (+1 or -1)
  double initial = 0.0, final_value = 0.0;
  std::vector<double> table_t, table_v;      // table: strictly increasing times, values
  std::string table_file;                    // table: where the samples came from
  std::vector<Signal> terms;                 // sum, product; the input `of` of a block (one term)
  std::string reference;                     // reference: name in ModelSpec::signals; angle, velocity: body name
  // input: index in Model::inputs (value = initial value); sampled block: index
  // of its held output in the input values (after the named inputs, Model::sampled); angle,
  // velocity: body index. Set by assemble().
  int input = -1;
  double lower = -INFINITY, upper = INFINITY;  // input: admissible values; dead_zone, saturation,
                                               // saturated_integrator: the breakpoints / bounds
  double period = 0.0;                       // sampled blocks: sample period [s]
  double width = 0.0;                        // play: total width of the gap (2 a) [unit of of]
  double threshold = 0.0;                    // relay: switching threshold [unit of of]

  static Signal make_constant(double v) {
    Signal s;
    s.value = v;
    return s;
  }
};

// Linear interpolation in samples (t increasing), held constant outside them.
double interpolate(const std::vector<double>& t, const std::vector<double>& v, double x);

// Value at time t (t at a step or corner, or the same instant as one
// (core/times.hpp), takes the value after it). Inputs
// and sampled blocks take inputs[s.input] (their held value), or their initial
// value when `inputs` is null. Measurements read the body angles q and
// velocities w; only the sampler passes them (a measurement outside a sampled
// block is a validation error), without them they are NaN.
double evaluate(const Signal& s, double t, const double* inputs = nullptr, const double* q = nullptr,
                const double* w = nullptr);

// A signal value used at run time (an applied torque, a friction limit, a
// sampled block's input) must be finite: a product of inf and 0 (NaN) or an
// overflow would otherwise reach the integrator or an LCP as an opaque
// failure. Returns v when finite; else throws std::domain_error
//   "<kind> <name>: <what> is not finite (inf|-inf|nan) at t = <t> s"
// e.g. "element probe: torque is not finite (nan) at t = 0.18 s".
[[noreturn]] void throw_not_finite(double v, double t, const char* kind, const std::string& name,
                                   const char* what);
inline double require_finite_at(double v, double t, const char* kind, const std::string& name, const char* what) {
  if (!std::isfinite(v)) throw_not_finite(v, t, kind, name, what);
  return v;
}

// The map of a memoryless block (dead_zone, saturation) at input x.
double memoryless_block(const Signal& s, double x);

// The largest magnitude among the numbers of s's own description (value,
// amplitude, offset, initial and final values, table values; its terms
// apart) and of its whole tree [s's unit]: the scale of what it can reach.
double own_magnitude(const Signal& s);
double tree_magnitude(const Signal& s);

// The output a sampled block holds before its first sample.
double initial_output(const Signal& s);

bool is_sampled_block(Signal::Kind k);
bool is_measurement(Signal::Kind k);
// YAML name of a signal kind ("saturated_integrator").
const char* kind_name(Signal::Kind k);
// Field path of term i of s under `field`, as the reader names it:
// field.sum[i], field.product[i], or field.<block>.of.
std::string term_field(const std::string& field, const Signal& s, std::size_t i);

// True when the signal is the same constant for all t.
bool is_constant(const Signal& s);

// The shortest time over which the signal can turn back between its
// breakpoints [s]: a sine's period; a product of two time-varying terms (a
// parabola between breakpoints when both are linear there) also the shortest
// ramp or table segment of its terms. INFINITY when the signal is monotone
// between breakpoints (constant, step, ramp, table, their sums and memoryless
// blocks) or held there (inputs, sampled blocks). A root function of the
// signals can enter and leave zero within this time, so the solver never
// steps over more than a fraction of it (solvers/simulator.hpp).
double turning_time(const Signal& s);

// Times in (t0, t1] where the signal or its slope jumps: step times, ramp
// corners, table knots (none at the same instant as t0, core/times.hpp). The integrator stops there so that no step straddles one.
// Sampled blocks contribute nothing here (the solvers stop at their instants,
// solvers/blocks/sampled_blocks.hpp), nor does their input, which is read only there.
void collect_breakpoints(const Signal& s, double t0, double t1, std::vector<double>& out);

// The time derivative of s as a signal, exact between breakpoints: a drive's
// velocity and acceleration (core/model_spec.hpp BodySpec::prescribed). A
// sine's is a sine, a ramp's or a table's a sum of steps (the slopes of its
// pieces, at most kMaxDerivedTablePoints knots), a sum's the sum, a product's
// the product rule; a constant, or a step at or before t_start, has 0.
// Throws std::domain_error saying why there is none: a step, an input or a
// sampled block jumps (its derivative is an impulse), a dead_zone's or a
// saturation's switches with its input. References must be resolved.
Signal derivative(const Signal& s, double t_start);
inline constexpr std::size_t kMaxDerivedTablePoints = 64;

}  // namespace luztar
