#include "apps/cli/summary.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>

#include "core/energy.hpp"
#include "core/number_text.hpp"
#include "core/units.hpp"
#include "luztar/version.hpp"

namespace luztar::app {

namespace {
std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}
}  // namespace

std::string energy_warning(const Result& r) {
  const DissipationFall fall = dissipation_fall(r);
  if (!(fall.relative <= energy_residual_limit(r)))  // no integration error: an impulse made kinetic energy
    return "warning: the dissipated energy fell by " + format("%.3g", fall.fall) + " J (relative " +
           format("%.2e", fall.relative) + ") by t = " + format("%.6g", fall.time) + " s, above " +
           format("%.0e", energy_residual_limit(r)) +
           ": the results are suspect (an impact or a step's impulses created kinetic energy; tightening rtol/atol "
           "or the step does not change it: report the model)";
  const std::string head = std::string(r.integrator == "moreau_jean" ? "warning: the relative energy residual "
                                                                      : "warning: the largest relative energy residual over the samples ") +
                           format("%.2e", r.stats.energy_residual) +
                           " exceeds " + format("%.0e", energy_residual_limit(r)) + ": the results are suspect ";
  if (r.integrator == "exact")  // closed-form energies: no tolerance to tighten
    return head + "(the exact integrator's energy self-check failed: run it with integrator: cvode_bdf)";
  return head + "(tighten rtol/atol, take a smaller step, or check the step against the stiffest spring's period)";
}

std::string solver_outcome_warning(const Result& r) {
  const RunStats& st = r.stats;
  const std::pair<long, const char*> counts[] = {
      {st.selection_fallbacks, " S-S groups re-solved by Lemke after the box QP missed its tolerance"},
      {st.selection_unsolved, " S-S groups whose box-LCP missed its tolerance (modes from the best iterate)"},
      {st.impact_fallbacks, " impacts re-solved by PGS after Lemke failed"},
      {st.impacts_unsolved, " impacts whose LCP missed its tolerance (impulses from the best iterate)"}};
  std::string out;
  for (const auto& [n, what] : counts)
    if (n) out += (out.empty() ? "warning: " : "; ") + std::to_string(n) + what;
  return out;
}

namespace {

// "dissipated by element": the three largest shares of the dissipated energy
// at the last sample, then the rest (a file written before luztar stored
// them, or a run that dissipated nothing, prints nothing).
void print_dissipated_by_element(std::ostream& out, const Result& r) {
  const std::size_t ne = r.element_names.size(), nt = r.time.size();
  if (nt == 0 || ne == 0 || r.element_dissipated.size() != nt * ne || !(r.dissipated.back() > 0.0)) return;
  const double total = r.dissipated.back();
  std::vector<std::size_t> order(ne);
  for (std::size_t e = 0; e < ne; ++e) order[e] = e;
  const double* last = r.element_dissipated.data() + (nt - 1) * ne;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return last[a] > last[b]; });
  const auto share = [&](double d) {
    return format("%.6g", d) + " " + unit::energy + " (" + format("%.1f", 100.0 * d / total) + " %)";
  };
  out << "  dissipated by element:";
  double rest = 0.0;
  for (std::size_t k = 0; k < ne; ++k) {
    if (k < 3 && last[order[k]] > 0.0) out << (k ? ", " : " ") << r.element_names[order[k]] << " " << share(last[order[k]]);
    else rest += last[order[k]];
  }
  if (ne > 3) out << "; the rest " << share(rest);
  out << "\n";
}

}  // namespace

void print_summary(std::ostream& out, const Model& model, const SimulationSettings& s, const Result& r) {
  print_summary(out, SummarySource{model.name, model.source_path, model.reductions}, s, r);
}

void print_summary(std::ostream& out, const SummarySource& model, const SimulationSettings& s, const Result& r) {
  const std::string name =
      !model.name.empty() ? model.name : std::filesystem::path(model.source_path).stem().string();
  out << "luztar " << kVersion << ": " << (name.empty() ? "model" : name);
  if (!model.source_path.empty()) out << " (" << model.source_path << ")";
  out << "\n";
  const double t_last = r.time.empty() ? s.t_start : r.time.back();
  out << "  time       " << shortest(s.t_start) << " .. " << shortest(t_last) << " " << unit::time << ", "
      << r.num_samples() << " samples, status "
      << to_string(r.status) << "\n";
  if (!r.message.empty()) out << "  stopped:   " << r.message << "\n";

  if (!model.reductions.empty()) {
    out << "  reduced    " << model.reductions.size() << " step(s) of the luz/tar algebra (details: luztar reduce)\n";
    for (const std::string& step : model.reductions) out << "    " << step.substr(0, step.find(':')) << "\n";
  }
  std::array<long, kNumEventKinds> by_kind{};
  for (const EventRecord& e : r.events) ++by_kind[static_cast<int>(e.kind)];
  out << "  events     " << r.stats.events << " instants, " << r.events.size() << " element changes:";
  for (int k = 0; k < kNumEventKinds; ++k)
    if (by_kind[k]) out << " " << to_string(static_cast<EventKind>(k)) << " " << by_kind[k];
  out << "\n";

  const double span = t_last - s.t_start;
  std::size_t width = 0;  // the names in one column
  auto sticks = [&](int e) {
    return r.element_kinds[e] == "friction" || r.element_kinds[e] == "one_way_clutch" ||
           r.element_kinds[e] == "lossy_gear";
  };
  for (int e = 0; e < r.num_elements(); ++e)
    if (sticks(e)) width = std::max(width, r.element_names[e].size());
  if (width > 0) out << "  time stuck\n";
  for (int e = 0; e < r.num_elements(); ++e) {
    if (!sticks(e)) continue;
    const double ts = r.time_stuck[e];
    out << "    " << r.element_names[e] << std::string(width - r.element_names[e].size() + 2, ' ')
        << format("%.6g", ts) << " " << unit::time << " (" << format("%.1f", span > 0 ? 100.0 * ts / span : 0.0)
        << " %)" << (r.element_kinds[e] == "one_way_clutch" ? " locked" : "") << "\n";
  }
  if (r.num_samples() > 0) {
    const EnergyBalance b = energy_balance(r, r.num_samples() - 1);
    const std::string J = std::string(" ") + unit::energy;
    // the balance over the run: the stored energies' changes, not their values
    out << "  energy     input " << format("%.6g", b.input) << J << " = kinetic change "
        << format("%.6g", b.kinetic_change) << J << " + elastic change " << format("%.6g", b.elastic_change) << J
        << " + dissipated "
        << format("%.6g", b.dissipated) << J << "; residual " << format("%.2e", b.residual) << J << " (relative "
        << format("%.2e", b.relative) << ")\n";
  }
  print_dissipated_by_element(out, r);
  if (r.stats.energy_residual_exceeded) out << "  " << energy_warning(r) << "\n";
  if (s.solver == "time_stepping") {
    out << "  solver     Moreau-Jean time stepping: " << r.stats.steps << " steps (h " << shortest(s.step) << " " << unit::time << ", theta " << shortest(s.theta)
        << ")\n";
    if (r.stats.lcp_not_converged)
      out << "  note       " << r.stats.lcp_not_converged << " steps whose impulse LCP missed its tolerance\n";
  } else if (r.integrator == "exact") {  // closed form: the tolerances do not apply (solvers/exact/)
    out << "  solver     exact: " << r.stats.steps << " sub-steps, " << r.stats.jac_evals << " modes identified, "
        << r.stats.reinits << " restarts\n";
  } else {
    out << "  solver     " << r.integrator << ": " << r.stats.steps << " steps, " << r.stats.rhs_evals << " RHS, " << r.stats.jac_evals
        << " Jacobians, " << r.stats.reinits << " restarts (rtol " << shortest(s.rtol) << ", atol " << shortest(s.atol) << ")\n";
  }
  if (!r.integrator_note.empty()) out << "  note       " << r.integrator_note << "\n";
  if (const std::string w = solver_outcome_warning(r); !w.empty()) out << "  " << w << "\n";
  if (r.stats.redundant_splits)
    out << "  note       " << r.stats.redundant_splits
        << " stuck groups with a non-unique static torque split (minimum weighted norm reported)\n";
  out << "  wall time  " << format("%.3f", r.stats.wall_time) << " " << unit::time << "\n";
}

}  // namespace luztar::app
