// luztar command line: run, validate, reduce, plot.
//
// Exit codes: 0 success; 1 bad input (model, file, option value); 2 usage error;
// 3 the run stopped early (event storm, event limit, solver failure; results up
// to that point are still written); 4 plotting failed.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <optional>

#include "apps/plot_command.hpp"
#include "apps/summary.hpp"
#include "core/errors.hpp"
#include "core/reduce.hpp"
#include "io/csv_writer.hpp"
#include "io/hdf5_writer.hpp"
#include "io/yaml_model.hpp"
#include "io/yaml_writer.hpp"
#include "luztar/version.hpp"
#include "solvers/simulator.hpp"

namespace {

struct RunOptions {
  std::string model;
  std::string output;
  std::string csv;
  std::optional<double> t_end, output_step, rtol, atol;
  bool quiet = false;
};

luztar::Model load(const std::string& path, const RunOptions* overrides) {
  luztar::ModelSpec spec = luztar::io::load_model_spec(path);
  if (overrides) {
    auto& s = spec.simulation;
    if (overrides->t_end) s.t_end = *overrides->t_end;
    if (overrides->output_step) s.output_step = *overrides->output_step;
    if (overrides->rtol) s.rtol = *overrides->rtol;
    if (overrides->atol) s.atol = *overrides->atol;
  }
  try {
    return luztar::assemble(spec);
  } catch (const luztar::ModelError& e) {  // only an override can fail here
    throw luztar::ModelError(e.field(), e.detail() + " (set on the command line)", path);
  }
}

int run(const RunOptions& o) {
  const luztar::Model model = load(o.model, &o);
  const std::string out = o.output.empty() ? std::filesystem::path(o.model).stem().string() + ".h5" : o.output;
  const luztar::Result r = luztar::simulate(model);
  luztar::io::write_hdf5(out, model, model.simulation, r);
  if (!o.csv.empty()) luztar::io::write_csv(o.csv, r);
  if (!o.quiet) {
    luztar::app::print_summary(std::cout, model, model.simulation, r);
    std::cout << "  wrote      " << out << (o.csv.empty() ? "" : ", " + o.csv) << "\n";
  }
  if (r.status != luztar::StepStatus::reached_time) {
    std::cerr << "luztar: run stopped early (" << luztar::to_string(r.status) << "): " << r.message << "\n";
    return 3;
  }
  return 0;
}

int reduce(const std::string& path, std::string output) {
  const luztar::ModelSpec spec = luztar::io::load_model_spec(path);
  const luztar::Reduction r = luztar::reduce(spec);
  if (output.empty()) output = std::filesystem::path(path).stem().string() + "_reduced.yaml";
  std::cout << "luztar reduce: " << path << " (" << spec.bodies.size() << " bodies) -> " << output << " ("
            << r.spec.bodies.size() << " bodies)\n";
  if (r.steps.empty()) std::cout << "  nothing to reduce: no massless or rigid parts\n";
  for (std::size_t i = 0; i < r.steps.size(); ++i) std::cout << "  " << i + 1 << ". " << r.steps[i] << "\n";
  std::vector<std::string> comment = {"Reduced by luztar reduce from " + path + " (Zardecki's luz/tar algebra):"};
  for (std::size_t i = 0; i < r.steps.size(); ++i) comment.push_back("  " + std::to_string(i + 1) + ". " + r.steps[i]);
  luztar::ModelSpec reduced = r.spec;
  if (!reduced.name.empty()) reduced.name += "_reduced";
  luztar::io::write_yaml(output, reduced, comment);
  return 0;
}

int validate(const std::string& path) {
  const luztar::Model m = load(path, nullptr);
  std::cout << path << ": valid model '" << m.name << "': " << m.num_bodies() << " bodies, " << m.springs.size()
            << " springs, " << m.frictions.size() << " friction elements, " << m.loads.size() << " torques\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"luztar: drivetrains with freeplay and dry friction, simulated exactly"};
  app.set_version_flag("--version", std::string("luztar ") + luztar::kVersion);
  app.require_subcommand(1);

  RunOptions ro;
  CLI::App* run_cmd = app.add_subcommand("run", "Simulate a model file and write HDF5 (and CSV) results");
  run_cmd->add_option("model", ro.model, "Model file (YAML)")->required();
  run_cmd->add_option("-o,--output", ro.output, "HDF5 result file (default: <model name>.h5)");
  run_cmd->add_option("--csv", ro.csv, "Also write the trajectories as CSV");
  run_cmd->add_option("--t-end", ro.t_end, "End time [s] (overrides simulation.t_end)");
  run_cmd->add_option("--output-step", ro.output_step, "Output sampling step [s] (overrides simulation.output_step)");
  run_cmd->add_option("--rtol", ro.rtol, "Relative tolerance (overrides simulation.rtol)");
  run_cmd->add_option("--atol", ro.atol, "Absolute tolerance (overrides simulation.atol)");
  run_cmd->add_flag("-q,--quiet", ro.quiet, "Print nothing on success");

  std::string validate_path;
  CLI::App* validate_cmd = app.add_subcommand("validate", "Check a model file without running it");
  validate_cmd->add_option("model", validate_path, "Model file (YAML)")->required();

  std::string reduce_in, reduce_out;
  CLI::App* reduce_cmd =
      app.add_subcommand("reduce", "Reduce massless and rigid parts with the luz/tar algebra and write the model");
  reduce_cmd->add_option("model", reduce_in, "Model file (YAML)")->required();
  reduce_cmd->add_option("-o,--output", reduce_out, "Reduced model file (default: <model name>_reduced.yaml)");

  std::string plot_in, plot_out;
  CLI::App* plot_cmd = app.add_subcommand("plot", "Draw angles and velocities of a result, stuck intervals shaded");
  plot_cmd->add_option("result", plot_in, "HDF5 result file")->required();
  plot_cmd->add_option("-o,--output", plot_out, "Picture file (PNG, SVG or PDF)")->required();

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
    if (*plot_cmd) {
      if (!std::filesystem::exists(plot_in)) {
        std::cerr << "luztar: " << plot_in << ": no such result file\n";
        return 1;
      }
      return luztar::app::run_plot(plot_in, plot_out) == 0 ? 0 : 4;
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
