#include "core/run_frame.hpp"

#include <cmath>
#include <charconv>
#include <stdexcept>
#include <string>

#include "core/times.hpp"
#include "core/units.hpp"

namespace luztar {

double output_sample_count(const SimulationSettings& s) {
  const double n = std::floor((s.t_end - s.t_start) / s.output_step * (1.0 + 1e-12));
  return std::isfinite(n) && n >= 0.0 ? n + 2.0 : INFINITY;  // + t_start, + t_end off the grid
}

std::vector<double> output_times(const SimulationSettings& s) {
  if (!(output_sample_count(s) <= kMaxStoredValues))
    throw std::invalid_argument("output grid: t_end - t_start and output_step must be > 0 and give at most " +
                                std::to_string(static_cast<long>(kMaxStoredValues)) + " samples");
  const double dt = s.output_step;
  long n = static_cast<long>(std::floor((s.t_end - s.t_start) / dt));
  if (same_time(s.t_start + static_cast<double>(n + 1) * dt, s.t_end)) ++n;  // the quotient rounded down
  std::vector<double> grid;
  grid.reserve(static_cast<std::size_t>(n) + 2);
  for (long k = 0; k <= n; ++k) grid.push_back(s.t_start + static_cast<double>(k) * dt);
  if (same_time(grid.back(), s.t_end)) grid.back() = s.t_end;  // 700 * 0.001 ends at 0.7 itself
  else if (grid.back() < s.t_end) grid.push_back(s.t_end);
  return grid;
}

std::string stopped_by_caller(double t) {
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, t).ptr;  // shortest round trip
  return "stopped by the caller at t = " + std::string(buf, end) + " s";
}

Result labelled_result(const Model& m) {
  Result r;
  r.body_names = m.reported_body_names;  // a merged body too (core/model.hpp)
  r.element_names = m.element_names;
  r.block_names = m.sampled_names;
  r.input_names = m.input_names;
  r.block_units = block_units(m);
  for (int e = 0; e < m.num_elements(); ++e) {  // a load on a translational body is a force
    const bool moves = e < static_cast<int>(m.element_translational.size()) && m.element_translational[e];
    // its type as written (force, rack_pinion); a Model built by hand has none
    r.element_kinds.push_back(e < static_cast<int>(m.element_type.size()) ? m.element_type[e]
                              : moves ? "force" : to_string(m.element_kind[e]));
  }
  for (bool t : m.translational) r.body_translational.push_back(t ? 1 : 0);
  for (bool t : m.element_translational) r.element_translational.push_back(t ? 1 : 0);
  return r;
}

}  // namespace luztar
