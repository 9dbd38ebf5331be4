#include "apps/cli/plot_command.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/hdf5_reader.hpp"

extern char** environ;

namespace luztar::app {

namespace {
// The plot script: $LUZTAR_PLOT_SCRIPT when set; else the installed layout
// relative to this executable (PREFIX/bin/luztar -> PREFIX/share/luztar/luztar_plot.py),
// so an install works in whatever prefix it was put or moved to; else the source
// tree's script, for the executable in the build tree.
std::string find_script() {
  if (const char* env = std::getenv("LUZTAR_PLOT_SCRIPT")) {
    if (!std::filesystem::is_regular_file(env))
      throw std::runtime_error(std::string("LUZTAR_PLOT_SCRIPT=") + env + ": no such file");
    return env;
  }
  std::vector<std::filesystem::path> candidates;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(exe.parent_path().parent_path() / "share" / "luztar" / "luztar_plot.py");
  candidates.emplace_back(LUZTAR_PLOT_SCRIPT_SOURCE);
  std::string looked;
  for (const std::filesystem::path& p : candidates) {
    if (std::filesystem::is_regular_file(p, ec)) return p.string();
    looked += (looked.empty() ? "" : ", ") + p.string();
  }
  throw std::runtime_error("cannot find the plot script luztar_plot.py (looked for " + looked +
                           "; set LUZTAR_PLOT_SCRIPT to its path)");
}
}  // namespace

int run_plot(const std::string& input, const std::string& output, const std::vector<std::string>& extra) {
  const std::string script = find_script();
  // the picture goes to a temporary file renamed over `output` when the script
  // succeeds; a link, FIFO or device at `output` is refused here, before plotting
  // (no output: the script only lists what it would draw)
  std::optional<io::AtomicOutput> out;
  if (!output.empty()) {
    io::remove_temporaries_on_signal({SIGINT, SIGTERM, SIGHUP});
    io::remove_stale_temporaries(output);
    out.emplace(output);
  }
  // an input that is not HDF5 is bad input (std::runtime_error, exit code 1, the
  // message of `luztar info`), not a failed plot
  io::require_hdf5_file(input);
  // Debian's interpreter is the one that has python3-h5py and python3-matplotlib,
  // even when another python3 comes first on PATH.
  const std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::vector<std::string> args = {python, script, input};
  if (out) args.insert(args.end(), {"-o", output, "--write-to", out->temp_path()});
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("cannot start python3 for plotting");
  int status = 0;
  waitpid(pid, &status, 0);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  if (code == 0 && out) out->commit();
  return code;
}

}  // namespace luztar::app
