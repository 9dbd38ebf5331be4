#include "core/result.hpp"

namespace luztar {

void Result::reserve_samples(std::size_t n) {
  const auto more = [n](auto& column, std::size_t per_sample) { column.reserve(column.size() + n * per_sample); };
  const std::size_t nb = body_names.size(), ne = element_names.size();
  for (std::vector<double>* c : {&time, &input_work, &kinetic, &elastic, &dissipated}) more(*c, 1);
  for (std::vector<double>* c : {&angle, &velocity, &acceleration}) more(*c, nb);
  if (!drive_torque.empty()) more(drive_torque, nb);
  for (std::vector<double>* c :
       {&element_torque, &element_relative, &element_relative_velocity, &element_power, &element_dissipated})
    more(*c, ne);
  more(element_state, ne);
  more(block_output, block_names.size());
}

const char* to_string(StepStatus s) {
  switch (s) {
    case StepStatus::reached_time: return "reached_time";
    case StepStatus::event_limit: return "event_limit";
    case StepStatus::event_storm: return "event_storm";
    case StepStatus::solver_failure: return "solver_failure";
  }
  return "?";
}

const char* to_string(EventKind k) {
  switch (k) {
    case EventKind::stick: return "stick";
    case EventKind::break_away: return "break_away";
    case EventKind::reversal: return "reversal";
    case EventKind::contact: return "contact";
    case EventKind::separation: return "separation";
    case EventKind::impact: return "impact";
    case EventKind::stage: return "stage";
    case EventKind::lock: return "lock";
    case EventKind::overrun: return "overrun";
    case EventKind::power_flow: return "power_flow";
  }
  return "?";
}

}  // namespace luztar
