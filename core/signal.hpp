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
#include <cmath>
#include <string>
#include <vector>

namespace luztar {

struct Signal {
  enum class Kind { constant, sine, step, ramp, table, sum, product, input, reference };
  Kind kind = Kind::constant;
  double value = 0.0;                        // constant
  double amplitude = 0.0, frequency = 0.0;   // sine: [unit], [Hz]
  double phase = 0.0, offset = 0.0;          // sine: [rad], [unit]
  double time = 0.0;                         // step: switch time [s]
  double start = 0.0, end = 0.0;             // ramp: [s]
  double initial = 0.0, final_value = 0.0;   // step, ramp: values before / after
  std::vector<double> table_t, table_v;      // table: strictly increasing times, values
  std::string table_file;                    // table: where the samples came from
  std::vector<Signal> terms;                 // sum, product
  std::string reference;                     // reference: name in ModelSpec::signals
  int input = -1;                            // input: index in Model::inputs (value = initial value)
  double lower = -INFINITY, upper = INFINITY;  // input: admissible values

  static Signal make_constant(double v) {
    Signal s;
    s.value = v;
    return s;
  }
};

// Linear interpolation in samples (t increasing), held constant outside them.
double interpolate(const std::vector<double>& t, const std::vector<double>& v, double x);

// Value at time t (t at a step or corner takes the value after it). Inputs
// take inputs[s.input], or their initial value when `inputs` is null.
double evaluate(const Signal& s, double t, const double* inputs = nullptr);

// True when the signal is the same constant for all t.
bool is_constant(const Signal& s);

// Times in (t0, t1] where the signal or its slope jumps: step times, ramp
// corners, table knots. The integrator stops there so that no step straddles one.
void collect_breakpoints(const Signal& s, double t0, double t1, std::vector<double>& out);

}  // namespace luztar
