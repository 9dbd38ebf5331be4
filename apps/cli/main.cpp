// luztar command line: run, validate, reduce, sweep, plot, info, compare.
//
// Exit codes: 0 success; 1 bad input (model, file, option value); 2 usage error
// (also a plot option the plot script refuses: format, signal, unit, element);
// 3 the run stopped early (event storm, event limit, solver failure; results up
// to that point are still written), or some runs of a sweep did; 4 plotting
// failed; 130 a sweep was interrupted (finished runs kept, --resume continues).
// compare: 0 within the tolerance, 1 not, 2 an error (a file, differing grids).
// A run or plot ended by SIGINT, SIGTERM or SIGHUP removes its temporary output
// files and dies of the signal.
#include <CLI/CLI.hpp>

#include <cctype>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <optional>
#include <utility>

#include "apps/cli/plot_command.hpp"
#include "apps/cli/result_commands.hpp"
#include "apps/cli/summary.hpp"
#include "apps/sweep/sweep_command.hpp"
#include "core/errors.hpp"
#include "core/number_text.hpp"
#include "core/reduce.hpp"
#include "io/atomic_file.hpp"
#include "io/csv_writer.hpp"
#include "io/hdf5_writer.hpp"
#include "io/output_paths.hpp"
#include "io/yaml_model.hpp"
#include "io/yaml_sweep.hpp"
#include "io/yaml_writer.hpp"
#include "luztar/version.hpp"
#include "solvers/simulator.hpp"

namespace {

struct RunOptions {
  std::string model;
  std::string output;
  std::string csv;
  std::optional<double> t_end, output_step, rtol, atol, step, theta;
  std::optional<std::string> solver, integrator;
  std::vector<std::string> sets;  // --set PATH=VALUE
  bool quiet = false;
};

// The command-line option of simulation field `field`: t_end -> t-end.
std::string option_name(std::string field) {
  for (char& c : field)
    if (c == '_') c = '-';
  return field;
}

// The model file, with the --set fields replaced (the same overrides as a sweep run's).
// The simulation options given beside --set go in as overrides too, named by
// their option: the rules are checked once on the run the command line
// describes (--set simulation.t_start=5 --t-end 8 is a valid run, although the
// file with the --set alone is not).
luztar::ModelSpec read_with_sets(const std::string& path, const RunOptions* o, luztar::io::InputFiles& files) {
  if (!o || o->sets.empty()) return luztar::io::read_model_spec(path, files);  // read only: assemble() checks the rules
  std::vector<luztar::io::FieldOverride> sets;
  for (const std::string& s : o->sets) sets.push_back(luztar::io::set_option(s));
  auto add = [&](const char* field, const char* option, const std::string& value) {
    sets.push_back({std::string("simulation.") + field, value, std::string(option) + " " + value});
  };
  const std::pair<const std::optional<double>*, const char*> numbers[] = {
      {&o->t_end, "t_end"}, {&o->output_step, "output_step"}, {&o->rtol, "rtol"},
      {&o->atol, "atol"},   {&o->step, "step"},               {&o->theta, "theta"}};
  for (const auto& [option, field] : numbers)
    if (*option) add(field, ("--" + option_name(field)).c_str(), luztar::shortest(**option));
  if (o->solver) add("solver", "--solver", *o->solver);
  if (o->integrator) add("integrator", "--integrator", *o->integrator);
  return luztar::io::load_model_spec(path, sets, files);  // a rule a value breaks is reported at its --set or option
}

// (files: the table files the model read, by the path it opened them at)
luztar::Model load(const std::string& path, const RunOptions* overrides, luztar::io::InputFiles& files) {
  const luztar::ModelSpec file = read_with_sets(path, overrides, files);
  luztar::ModelSpec spec = file;
  std::vector<std::string> set;  // the fields the command line overrode
  if (overrides) {
    auto& s = spec.simulation;
    auto put = [&](const auto& option, auto& field, const char* name) {
      if (!option) return;
      field = *option;
      set.push_back(std::string("simulation.") + name);
    };
    put(overrides->t_end, s.t_end, "t_end");
    put(overrides->output_step, s.output_step, "output_step");
    put(overrides->rtol, s.rtol, "rtol");
    put(overrides->atol, s.atol, "atol");
    put(overrides->solver, s.solver, "solver");
    put(overrides->integrator, s.integrator, "integrator");
    put(overrides->step, s.step, "step");
    put(overrides->theta, s.theta, "theta");
  }
  // --step and --theta would be ignored by the event-driven solver: a user who
  // gives them means the time stepper, so a run without it is a mistake to name.
  if (overrides && spec.simulation.solver != "time_stepping")
    for (const auto& [given, name] : {std::pair{overrides->step.has_value(), "step"}, {overrides->theta.has_value(), "theta"}})
      if (given)
        throw luztar::ModelError(std::string("simulation.") + name,
                                 "applies to the time-stepping solver, and this run is " + spec.simulation.solver +
                                     " (add --solver time_stepping) (set on the command line)",
                                 luztar::where(spec, std::string("simulation.") + name));
  if (set.empty()) return luztar::assemble(spec);  // every rule checked once, located in the file
  // A rule the file itself breaks is reported as the file's, whatever the command line sets.
  (void)luztar::validate_and_reduce(file);
  try {
    return luztar::assemble(spec);
  } catch (const luztar::ModelError& e) {  // a rule that the overridden values break
    for (const std::string& f : set)
      if (e.field() == f) throw luztar::ModelError(e.field(), e.detail() + " (set on the command line)", path);
    std::string options;  // a field of the file, now wrong with the values given on the command line
    for (const std::string& f : set) options += (options.empty() ? "" : ", ") + f;
    throw luztar::ModelError(e.field(), e.detail() + " (with " + options + " set on the command line)",
                             luztar::where(spec, e.field()));
  }
}

using luztar::io::same_file;

// An HDF5 output path (-o of run and sweep) that names the input file or
// has a text format's extension is refused before anything runs: the run
// would replace the model with HDF5, or write HDF5 under a name that says CSV.
void check_hdf5_output(const std::string& out, const std::string& input) {
  if (out.empty()) return;
  if (same_file(out, input))
    throw std::runtime_error(out + ": -o/--output names the input file; the HDF5 results would replace it");
  std::string ext = std::filesystem::path(out).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".csv")
    throw std::runtime_error(out + ": -o/--output writes HDF5 (.h5); for CSV give --csv " + out);
  if (ext == ".yaml" || ext == ".yml")
    throw std::runtime_error(out + ": -o/--output writes HDF5 (.h5), not YAML; name the file .h5");
}

int run(const RunOptions& o) {
  check_hdf5_output(o.output, o.model);
  luztar::io::InputFiles tables;
  const luztar::Model model = load(o.model, &o, tables);
  const std::string out = o.output.empty() ? std::filesystem::path(o.model).stem().string() + ".h5" : o.output;
  // Both outputs are checked and their temporary files created before the run,
  // so a bad path fails now, not after it; both are committed only once both are
  // written. A kill removes the temporaries (and the leftovers of a killed run
  // are removed here).
  if (!o.csv.empty() && same_file(out, o.csv))
    throw std::runtime_error(o.csv + ": --csv names the HDF5 output file too; give them different paths");
  luztar::io::require_not_an_input(out, "-o/--output", o.model, tables);
  luztar::io::require_not_an_input(o.csv, "--csv", o.model, tables);
  luztar::io::remove_temporaries_on_signal({SIGINT, SIGTERM, SIGHUP});
  luztar::io::remove_stale_temporaries(out);
  luztar::io::AtomicOutput h5_out(out);
  std::optional<luztar::io::AtomicOutput> csv_out;
  if (!o.csv.empty()) {
    luztar::io::remove_stale_temporaries(o.csv);
    csv_out.emplace(o.csv);
  }
  const luztar::Result r = luztar::simulate(model);
  std::vector<std::string> sets;  // stored, so that the file says how it was run
  for (const std::string& s : o.sets) sets.push_back("--set " + s);
  luztar::io::write_hdf5(h5_out, model, model.simulation, r, sets);
  if (csv_out) luztar::io::write_csv(*csv_out, r);
  h5_out.commit();
  if (csv_out) csv_out->commit();
  if (!o.quiet) {
    luztar::app::print_summary(std::cout, model, model.simulation, r);
    std::cout << "  wrote      " << out << (o.csv.empty() ? "" : ", " + o.csv) << "\n";
  }
  if (r.stats.energy_residual_exceeded) std::cerr << "luztar: " << luztar::app::energy_warning(r) << "\n";
  if (const std::string w = luztar::app::solver_outcome_warning(r); !w.empty()) std::cerr << "luztar: " << w << "\n";
  if (r.status != luztar::StepStatus::reached_time) {
    std::cerr << "luztar: run stopped early (" << luztar::to_string(r.status) << "): " << r.message << "\n";
    return 3;
  }
  return 0;
}

int reduce(const std::string& path, std::string output) {
  luztar::io::InputFiles tables;
  const luztar::ModelSpec spec = luztar::io::read_model_spec(path, tables);
  const luztar::Reduction r = luztar::validate_and_reduce(spec);  // every rule checked, located in the file
  if (output.empty()) output = std::filesystem::path(path).stem().string() + "_reduced.yaml";
  luztar::io::require_not_an_input(output, "-o/--output", path, tables);
  luztar::io::AtomicOutput out(output);
  std::cout << "luztar reduce: " << path << " (" << spec.bodies.size() << " bodies) -> " << output << " ("
            << r.spec.bodies.size() << " bodies)\n";
  if (r.steps.empty()) std::cout << "  nothing to reduce: no massless or rigid parts\n";
  for (std::size_t i = 0; i < r.steps.size(); ++i) std::cout << "  " << i + 1 << ". " << r.steps[i] << "\n";
  std::vector<std::string> comment = {"Reduced by luztar reduce from " + path + " (Zardecki's luz/tar algebra):"};
  for (std::size_t i = 0; i < r.steps.size(); ++i) comment.push_back("  " + std::to_string(i + 1) + ". " + r.steps[i]);
  luztar::ModelSpec reduced = r.spec;
  if (!reduced.name.empty()) reduced.name += "_reduced";
  luztar::io::write_yaml(out, reduced, comment);
  out.commit();
  return 0;
}

int validate(const std::string& path) {
  luztar::io::InputFiles tables;
  const luztar::Model m = load(path, nullptr, tables);
  std::cout << path << ": valid model '" << m.name << "': " << m.num_bodies() << " bodies, " << m.springs.size()
            << " springs, " << m.frictions.size() << " friction elements, " << m.loads.size() << " torques";
  if (!m.one_way_clutches.empty()) std::cout << ", " << m.one_way_clutches.size() << " one-way clutches";
  if (!m.permanent_links.empty()) std::cout << ", " << m.permanent_links.size() << " links";
  std::cout << "\n";
  return 0;
}

}  // namespace

// Command-line numbers checked with messages a user can act on (CLI11's own
// range checks print the whole double range).
const CLI::Validator kFiniteNonnegative(
    [](const std::string& text) -> std::string {
      double v = 0.0;
      if (!CLI::detail::lexical_cast(text, v) || !std::isfinite(v) || v < 0.0)
        return "must be a finite number >= 0 (got " + text + ")";
      return {};
    },
    "FINITE >= 0");
const CLI::Validator kCount(
    [](const std::string& text) -> std::string {
      long long v = 0;
      if (!CLI::detail::lexical_cast(text, v) || v < 1) return "must be a whole number >= 1 (got " + text + ")";
      return {};
    },
    "INT >= 1");

int main(int argc, char** argv) {
  CLI::App app{"luztar: drivetrains with freeplay and dry friction, simulated exactly", "luztar"};
  app.set_version_flag("--version", std::string("luztar ") + luztar::kVersion);
  app.require_subcommand(1);

  RunOptions ro;
  CLI::App* run_cmd = app.add_subcommand("run", "Simulate a model file and write HDF5 (and CSV) results");
  run_cmd->add_option("model", ro.model, "Model file (YAML)")->required();
  run_cmd->add_option("-o,--output", ro.output, "HDF5 result file (default: <model file name>.h5)");
  run_cmd->add_option("--csv", ro.csv, "Also write the trajectories as CSV");
  run_cmd->add_option("--t-end", ro.t_end, "End time [s] (overrides simulation.t_end)");
  run_cmd->add_option("--output-step", ro.output_step, "Output sampling step [s] (overrides simulation.output_step)");
  run_cmd->add_option("--rtol", ro.rtol, "Relative tolerance (overrides simulation.rtol)");
  run_cmd->add_option("--atol", ro.atol, "Absolute tolerance (overrides simulation.atol)");
  run_cmd->add_option("--solver", ro.solver, "event_driven or time_stepping (overrides simulation.solver)");
  run_cmd->add_option("--integrator", ro.integrator,
                      "auto, exact, cvode_bdf or cvode_adams: what integrates between events (overrides simulation.integrator)");
  run_cmd->add_option("--step", ro.step, "Time-stepping step h [s] (overrides simulation.step)");
  run_cmd->add_option("--theta", ro.theta, "Time-stepping theta in [0.5, 1] (overrides simulation.theta)");
  run_cmd->add_option("--set", ro.sets,
                      "Field PATH=VALUE, as a sweep's --set names it (e.g. elements.mesh.freeplay=0.5deg; repeatable)")
      ->allow_extra_args(false);
  run_cmd->add_flag("-q,--quiet", ro.quiet, "Print nothing on success");

  std::string validate_path;
  CLI::App* validate_cmd = app.add_subcommand("validate", "Check a model file without running it");
  validate_cmd->add_option("model", validate_path, "Model file (YAML)")->required();

  std::string reduce_in, reduce_out;
  CLI::App* reduce_cmd =
      app.add_subcommand("reduce", "Reduce massless and rigid parts with the luz/tar algebra and write the model");
  reduce_cmd->add_option("model", reduce_in, "Model file (YAML)")->required();
  reduce_cmd->add_option("-o,--output", reduce_out, "Reduced model file (default: <model file name>_reduced.yaml)");

  luztar::app::SweepOptions so;
  CLI::App* sweep_cmd = app.add_subcommand(
      "sweep", "Run a parameter sweep on every core (or under mpirun across ranks) and write one HDF5 file");
  sweep_cmd->add_option("input", so.input, "Model file with a sweep: section, or a sweep file naming its model")
      ->required();
  sweep_cmd->add_option("--set", so.sets,
                        "Swept field PATH=VALUES: v1,v2,..  FROM:TO:COUNT[:log]  uniform:LOW:HIGH[:log]  "
                        "lhs:LOW:HIGH[:log]  or YAML such as '{from: 0, to: 1, count: 3}' (repeatable)")
      ->allow_extra_args(false);  // one value per --set: a model file after it stays the input
  sweep_cmd->add_option("--metric", so.metrics,
                        "Recorded figure NAME=SPEC, e.g. 'psi_rms=rms: bodies.psi.velocity' (repeatable)")
      ->allow_extra_args(false);
  sweep_cmd->add_option("-o,--output", so.output, "HDF5 sweep file (default: <input name>_sweep.h5)");
  sweep_cmd->add_option("-j,--jobs", so.threads, "Runs at a time (default: every core; 1 per rank under mpirun)")
      ->check(kCount);
  sweep_cmd->add_flag("--zip", so.zip, "Take the i-th values of all parameters together instead of every combination");
  sweep_cmd->add_option("--samples", so.samples, "Number of draws of the sampled parameters")->check(kCount);
  sweep_cmd->add_option("--seed", so.seed, "Seed of the sampled parameters")->check(CLI::NonNegativeNumber);
  sweep_cmd->add_flag("--trajectories", so.trajectories, "Also store every run's trajectories");
  sweep_cmd->add_flag("--resume", so.resume, "Run only the runs missing from an interrupted sweep's file");
  sweep_cmd->add_flag("--overwrite", so.overwrite, "Start again even if the output holds an unfinished sweep");
  sweep_cmd->add_option("--integrator", so.integrator,
                        "auto, exact, cvode_bdf or cvode_adams: what integrates between events in every run (overrides "
                        "simulation.integrator)");
  sweep_cmd->add_flag("--dry-run", so.dry_run, "Check the sweep and list its runs without running them");
  sweep_cmd->add_flag("-q,--quiet", so.quiet, "No progress or summary");

  std::string plot_in, plot_out, plot_metric, plot_x, plot_y, plot_signals, plot_units, plot_xy, plot_against;
  bool plot_list = false;
  CLI::App* plot_cmd = app.add_subcommand(
      "plot",
      "Draw a result (signals by kind, events, stuck intervals; element characteristics) or a sweep (map of a metric)");
  plot_cmd->add_option("result", plot_in, "HDF5 result or sweep file")->required();
  plot_cmd->add_option("-o,--output", plot_out, "Picture file; its extension is the format (png, svg, pdf, ...)");
  plot_cmd->add_option("--signals", plot_signals,
                       "Run: comma-separated globs over the stored signals, "
                       "e.g. 'bodies.*.velocity,elements.clutch.torque'");
  plot_cmd->add_option("--units", plot_units, "Display units, comma-separated, e.g. 'deg,rpm,N mm,kJ,ms'");
  plot_cmd->add_option("--xy", plot_xy,
                       "Run: characteristics: globs over elements.E.torque, drawn against the relative angle "
                       "(spring) or velocity (friction)");
  plot_cmd->add_option("--against", plot_against, "With --xy: angle or velocity on the x axis")
      ->check(CLI::IsMember({"angle", "velocity"}));
  plot_cmd->add_flag("--list", plot_list,
                     "Print the selected signals, panels, events and stuck intervals (a sweep: the map's runs); "
                     "draw nothing");
  plot_cmd->add_option("--metric", plot_metric, "Sweep: the metric to map (default: the first)");
  plot_cmd->add_option("--x", plot_x, "Sweep: parameter on the x axis (default: the first)");
  plot_cmd->add_option("--y", plot_y, "Sweep: parameter on the y axis (default: the second)");

  std::string info_in;
  std::optional<double> info_around, info_window;
  CLI::App* info_cmd = app.add_subcommand("info", "Summary of a stored result; events around a time");
  info_cmd->add_option("result", info_in, "HDF5 result file (luztar run)")->required();
  info_cmd->add_option("--events-around", info_around, "List the events near this time [s]");
  info_cmd->add_option("--window", info_window, "Half-width of --events-around [s] (default: the output step)");

  std::string compare_a, compare_b;
  luztar::app::CompareOptions compare;
  CLI::App* compare_cmd = app.add_subcommand(
      "compare", "Largest difference per stored signal and of the event logs of two results; exit 0 when within "
                 "--tolerance, 1 when not, 2 for errors");
  compare_cmd->add_option("a", compare_a, "HDF5 result file A (the reference)")->required();
  compare_cmd->add_option("b", compare_b, "HDF5 result file B")->required();
  compare_cmd->add_option("--tolerance", compare.tolerance,
                          "A signal differs when max|A-B| > tolerance * max(1, max|A|) (default 1e-9)")
      ->check(kFiniteNonnegative);
  compare_cmd->add_flag("--interpolate", compare.interpolate,
                        "Compare on A's time grid, B interpolated linearly, when the grids differ");

  if (argc == 1) {  // `luztar` alone: what it can do, as --help says it (a usage error)
    std::cerr << app.help();
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }

  try {
    if (*run_cmd) return run(ro);
    if (*validate_cmd) return validate(validate_path);
    if (*reduce_cmd) return reduce(reduce_in, reduce_out);
    if (*sweep_cmd) {
      check_hdf5_output(so.output, so.input);
      return luztar::app::run_sweep(so);
    }
    if (*info_cmd) {
      luztar::app::print_info(std::cout, info_in, info_around, info_window);
      return 0;
    }
    if (*compare_cmd) {
      try {
        return luztar::app::compare_results(std::cout, compare_a, compare_b, compare);
      } catch (const std::exception& e) {  // not a difference: the comparison could not be made
        std::cerr << "luztar: " << e.what() << "\n";
        return 2;
      }
    }
    if (*plot_cmd) {
      if (!std::filesystem::exists(plot_in)) {
        std::cerr << "luztar: " << plot_in << ": no such result file\n";
        return 1;
      }
      if (plot_out.empty() && !plot_list) {
        std::cerr << "luztar plot: -o is required (unless --list)\n";
        return 2;
      }
      std::vector<std::string> extra;
      for (const auto& [flag, value] : {std::pair<const char*, const std::string&>{"--metric", plot_metric},
                                        {"--x", plot_x}, {"--y", plot_y}, {"--signals", plot_signals},
                                        {"--units", plot_units}, {"--xy", plot_xy}, {"--against", plot_against}})
        if (!value.empty()) extra.insert(extra.end(), {flag, value});
      if (plot_list) extra.push_back("--list");
      // the script exits 2 for a refused option (format, signal, unit, element);
      // --list draws nothing, so an -o beside it writes nothing either (it
      // emptied the file it named: the staged picture was empty)
      const int code = luztar::app::run_plot(plot_in, plot_list ? std::string() : plot_out, extra);
      return code == 0 || code == 2 ? code : 4;
    }
  } catch (const luztar::ModelError& e) {
    std::cerr << "luztar: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "luztar: " << e.what() << "\n";
    return 1;
  }
  return 2;
}
