#pragma once
// Complementarity blocks for control and actuator paths (seed 001, "Infusing
// complementarity conditions in the standard Simulink library"): each block is
// defined by its complementarity form, and every evaluation solves that form
// as an LCP (solvers/numerics/lcp.hpp, Lemke) instead of coding the piecewise map. The
// piecewise maps are what the tests compare against.
//
// Memoryless blocks are functions. Blocks with memory (play, saturated
// integrator, relay) are small state objects advanced once per sample; a host
// loop (e.g. a steering controller around an embedded Simulator) calls
// update() at its own rate. Discrete forms are the implicit (catching-up)
// ones of Moreau: the state after a sample satisfies the complementarity
// conditions at that sample, so they are exact at sample instants for the
// inputs named below.
//
// They live in solvers/ because evaluating them is solving an LCP
// (solvers/numerics/lcp.hpp); elements/ holds the laws of the mechanical elements.
//
// Outputs are read from the active set the LCP finds (a saturated output is
// the bound itself), so they keep the closed form's digits for any finite
// input, also one ~1e15 times the bounds. An input that is not finite (inf,
// NaN) has no solution: the block throws std::domain_error (the sampler,
// solvers/blocks/sampled_blocks.hpp, names the block and the time first). A finite
// LCP that Lemke cannot solve would be a bug (every M here is positive
// semi-definite with a solution): it throws std::logic_error.
namespace luztar {

// Dead zone with breakpoints lower < upper (lower <= 0 <= upper for a zone
// around 0): y = x - upper above, x - lower below, 0 between. Symmetric
// (-a, a) it is Żardecki's luz(x, a).
//   y = k - v,  x = u - v + lower,  x = k - l + upper,
//   0 <= u  perp  v >= 0,   0 <= k  perp  l >= 0
double dead_zone(double x, double lower, double upper);

// Saturation to [lower, upper]: y = x - a + b,
//   0 <= a  perp  upper - y >= 0,   0 <= b  perp  y - lower >= 0
double saturation(double x, double lower, double upper);

// Coulomb + viscous friction, y in viscous x + coulomb Sgn(x) (= viscous
// tar(x, coulomb / viscous), set-valued at x = 0). Its well-posed direction,
// the one an actuator model needs, is the inverse: the velocity x under a
// driving torque y. With x = u - v and s the Coulomb multiplier,
//   y = viscous x + coulomb s,  0 <= u  perp  1 - s >= 0,  0 <= v  perp  1 + s >= 0
// which gives x = luz(y, coulomb) / viscous (Part 1's duality of tar and luz).
// viscous > 0, coulomb >= 0.
double coulomb_viscous_velocity(double torque, double viscous, double coulomb);

// Backlash (play operator) of total width B >= 0: the output follows the input
// only when pushed by an edge of the gap, y' = k - l,
//   0 <= y - x + B/2  perp  k >= 0,   0 <= x - y + B/2  perp  l >= 0.
// Sampled: y_n = y_n-1 + k - l with the conditions at x_n, i.e. the play map
// y_n = min(x_n + B/2, max(x_n - B/2, y_n-1)), exact at samples for any input
// monotone between samples.
class Play {
 public:
  Play(double width, double y0) : half_(0.5 * width), y_(y0) {}
  double update(double x);
  double output() const { return y_; }

 private:
  double half_, y_;
};

// Integrator saturated to [lower, upper]: y' = x + k - l,
//   0 <= y - lower  perp  k >= 0,   0 <= upper - y  perp  l >= 0.
// Sampled with the input held over each step h (implicit Euler, catching-up):
// exact at samples for an input constant over each step.
class SaturatedIntegrator {
 public:
  SaturatedIntegrator(double lower, double upper, double y0) : lower_(lower), upper_(upper), y_(y0) {}
  double update(double x, double h);
  double output() const { return y_; }

 private:
  double lower_, upper_, y_;
};

// Relay with hysteresis: output +on_value once the input exceeds +threshold,
// -on_value once it falls below -threshold, unchanged in between:
//   s_n in Sgn(x_n + threshold s_n-1),  z = u - v,  0 <= u  perp  v >= 0,
//   0 <= u  perp  1 - s >= 0,  0 <= v  perp  1 + s >= 0,
// and at z = 0 (where Sgn leaves s open) the relay keeps its state.
// threshold >= 0 (0: an ideal relay that holds its state at x = 0).
class Relay {
 public:
  Relay(double threshold, double on_value, int s0) : threshold_(threshold), value_(on_value), s_(s0 < 0 ? -1 : 1) {}
  double update(double x);
  double output() const { return value_ * s_; }

 private:
  double threshold_, value_;
  int s_;
};

}  // namespace luztar
