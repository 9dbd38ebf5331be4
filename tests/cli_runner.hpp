#pragma once
// Runs the `luztar` command line from tests: exit code and merged output.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace luztar::test_support {

struct Outcome {
  int code;
  std::string out;
};

// Runs a shell command: its exit code (-1 if it did not exit normally, e.g. a
// crash) and what it printed on stdout.
inline Outcome run_shell(const std::string& cmd) {
  Outcome o{-1, ""};
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) o.out += buf;
  const int status = pclose(p);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

inline Outcome run_cli(const std::string& args) { return run_shell(std::string(LUZTAR_CLI) + " " + args + " 2>&1"); }

// A fresh directory per test, removed afterwards.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("luztar_" + std::string(info->test_suite_name()) + "_" + info->name() + "_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

}  // namespace luztar::test_support
