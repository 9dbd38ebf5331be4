#include "core/result.hpp"

namespace luztar {

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
  }
  return "?";
}

}  // namespace luztar
