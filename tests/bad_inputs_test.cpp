// The bad-input catalogue: every tests/bad_inputs/*.yaml is a complete model
// (or sweep) with one mistake, and says how the command line must reject it.
//
//   line 1: # expect: LINE:COL: FIELD: TEXT
//   line 2: # command: sweep --dry-run          (optional; default: validate)
//
// `luztar <command> <file>` must exit with code 1 (not crash, not succeed),
// print `<file>:LINE:COL: FIELD: TEXT` on stderr (TEXT may be a prefix of the
// message; with no field, `<file>:LINE:COL: TEXT`), and write no file. Files a
// case reads (CSV tables) sit beside it as <case>.*; `{dir}` in TEXT stands for
// their folder (a message that names such a file names it by its full path). The list is read when the
// tests are listed (ctest lists them before it runs), so a new file is a new
// test without rebuilding.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using luztar::test_support::Outcome;
using luztar::test_support::run_shell;

const fs::path kCases = LUZTAR_BAD_INPUTS_DIR;

std::vector<std::string> case_files() {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(kCases))
    if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

// What a case expects, read from its first two lines.
struct Expectation {
  std::string message;                   // "LINE:COL: FIELD: TEXT"
  std::string command = "validate";      // the subcommand and its flags
};

bool read_expectation(const fs::path& file, Expectation& x, std::string& problem) {
  std::ifstream in(file);
  std::string first, second;
  std::getline(in, first);
  std::getline(in, second);
  const std::string expect = "# expect: ", command = "# command: ";
  if (first.rfind(expect, 0) != 0) {
    problem = "line 1 must be '# expect: LINE:COL: FIELD: TEXT', got '" + first + "'";
    return false;
  }
  x.message = first.substr(expect.size());
  int line = 0, col = 0;
  if (std::sscanf(x.message.c_str(), "%d:%d: ", &line, &col) != 2 || line < 1 || col < 1) {
    problem = "the expectation must start with LINE:COL, got '" + x.message + "'";
    return false;
  }
  if (second.rfind(command, 0) == 0) x.command = second.substr(command.size());
  for (std::size_t at; (at = x.message.find("{dir}")) != std::string::npos;) x.message.replace(at, 5, kCases.string());
  return true;
}

// Runs `luztar args` in `dir`, keeping stderr only.
Outcome run_in(const fs::path& dir, const std::string& args) {
  return run_shell("cd '" + dir.string() + "' && " + LUZTAR_CLI + " " + args + " 2>&1 1>/dev/null");
}

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

class BadInput : public ::testing::TestWithParam<std::string> {};

TEST_P(BadInput, IsRejectedWithItsLocation) {
  const fs::path file = kCases / GetParam();
  Expectation x;
  std::string problem;
  ASSERT_TRUE(read_expectation(file, x, problem)) << file << ": " << problem;
  const fs::path work = fs::temp_directory_path() / ("luztar_bad_input_" + file.stem().string() + "_" +
                                                     std::to_string(::getpid()));
  fs::create_directories(work);
  const std::set<std::string> before = listing(kCases);
  const Outcome r = run_in(work, x.command + " '" + file.string() + "'");
  EXPECT_EQ(r.code, 1) << "luztar " << x.command << " " << file.string() << "\n" << r.out;
  const std::string wanted = file.string() + ":" + x.message;
  EXPECT_NE(r.out.find(wanted), std::string::npos) << "expected on stderr: " << wanted << "\ngot: " << r.out;
  EXPECT_TRUE(listing(work).empty()) << "the rejected input left files in the working directory";
  EXPECT_EQ(listing(kCases), before) << "the rejected input left files beside it";
  fs::remove_all(work);
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = fs::path(info.param).stem().string();
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadInput, ::testing::ValuesIn(case_files()), test_name);

// The catalogue covers the rules broadly; it only grows.
TEST(BadInputCatalogue, HasAtLeastSixtyCases) { EXPECT_GE(case_files().size(), 60u); }

}  // namespace
