// Pins the first second of every model in models/: event sequence (instants,
// elements, kinds, states) and every sampled output, against files written
// before the redesign of the solvers (tests/data/pinned/<model>.txt). A
// refactoring that is meant to change no behaviour must keep these within
// 1e-12 (absolute for times, relative to max(1, |value|) for values).
// The gear train is chaotic after its first second, so one second is pinned.
//
// The files are the CVODE BDF path's results at each model's own tolerances;
// they are regenerated only when a change of behaviour is intended and
// explained:  LUZTAR_PIN_REGENERATE=1 build/tests/pinned_models_test
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/yaml_model.hpp"
#include "solvers/simulator.hpp"
#include "tests/model_builder.hpp"

namespace {

constexpr double kPinTolerance = 1e-12;

using luztar::test::model_files;

// One line per record: "event t element kind before after" or
// "sample t v1 v2 ..." (every stride-th sample) (angles, velocities, element torques, states, energies, blocks).
std::vector<std::string> records(const luztar::Result& r) {
  std::vector<std::string> out;
  char buf[64];
  for (const auto& e : r.events) {
    std::snprintf(buf, sizeof buf, "%.17g", e.t);
    out.push_back(std::string("event ") + buf + " " + r.element_names[e.element] + " " + luztar::to_string(e.kind) +
                  " " + std::to_string(e.before) + " " + std::to_string(e.after));
  }
  const int nb = r.num_bodies(), ne = r.num_elements(), nsb = r.num_blocks();
  // At most ~200 samples per model (and always the last) keep the files small.
  const int stride = std::max(1, r.num_samples() / 200);
  for (int k = 0; k < r.num_samples(); ++k) {
    if (k % stride != 0 && k != r.num_samples() - 1) continue;
    std::ostringstream os;
    os.precision(17);
    os << "sample " << r.time[k];
    for (int j = 0; j < nb; ++j) os << ' ' << r.angle[k * nb + j];
    for (int j = 0; j < nb; ++j) os << ' ' << r.velocity[k * nb + j];
    for (int j = 0; j < ne; ++j) os << ' ' << r.element_torque[k * ne + j];
    for (int j = 0; j < ne; ++j) os << ' ' << int(r.element_state[k * ne + j]);
    os << ' ' << r.input_work[k] << ' ' << r.kinetic[k] << ' ' << r.elastic[k] << ' ' << r.dissipated[k];
    for (int j = 0; j < nsb; ++j) os << ' ' << r.block_output[k * nsb + j];
    out.push_back(os.str());
  }
  out.push_back(std::string("status ") + luztar::to_string(r.status));
  return out;
}

std::vector<std::string> split(const std::string& line) {
  std::istringstream is(line);
  std::vector<std::string> w;
  for (std::string s; is >> s;) w.push_back(s);
  return w;
}

// Compares two records word by word: numbers within kPinTolerance, the rest exactly.
::testing::AssertionResult same_record(const std::string& want, const std::string& got) {
  const auto a = split(want), b = split(got);
  if (a.size() != b.size()) return ::testing::AssertionFailure() << "want: " << want << "\n got: " << got;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char* end_a = nullptr;
    char* end_b = nullptr;
    const double x = std::strtod(a[i].c_str(), &end_a), y = std::strtod(b[i].c_str(), &end_b);
    const bool numbers = *end_a == '\0' && *end_b == '\0' && end_a != a[i].c_str() && end_b != b[i].c_str();
    if (!numbers) {
      if (a[i] != b[i]) return ::testing::AssertionFailure() << "word " << i << "\nwant: " << want << "\n got: " << got;
      continue;
    }
    if (std::abs(x - y) > kPinTolerance * std::max(1.0, std::abs(x)))
      return ::testing::AssertionFailure() << "word " << i << " differs by " << std::abs(x - y) << "\nwant: " << want
                                           << "\n got: " << got;
  }
  return ::testing::AssertionSuccess();
}

class PinnedModel : public ::testing::TestWithParam<std::string> {};

TEST_P(PinnedModel, FirstSecondUnchanged) {
  const std::string name = GetParam();
  luztar::Model m = luztar::io::load_model(std::string(LUZTAR_MODELS_DIR) + "/" + name + ".yaml");
  auto s = m.simulation;
  s.t_end = std::min(s.t_end, s.t_start + 1.0);
  s.integrator = "cvode_bdf";  // the path the files pin (auto runs exact where it can: tests/exact_models_test.cpp)
  const auto got = records(luztar::simulate(m, s));
  const std::string path = std::string(LUZTAR_TEST_DATA_DIR) + "/pinned/" + name + ".txt";
  if (std::getenv("LUZTAR_PIN_REGENERATE")) {
    std::ofstream f(path);
    for (const auto& line : got) f << line << '\n';
    GTEST_SKIP() << "regenerated " << path;
  }
  std::ifstream f(path);
  ASSERT_TRUE(f) << "no pinned results " << path << " (a new model: regenerate, see the file's comment)";
  std::vector<std::string> want;
  for (std::string line; std::getline(f, line);) want.push_back(line);
  ASSERT_EQ(want.size(), got.size()) << "number of events and samples changed for " << name;
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_TRUE(same_record(want[i], got[i])) << name << " record " << i;
}

INSTANTIATE_TEST_SUITE_P(Models, PinnedModel, ::testing::ValuesIn(model_files()),
                         [](const auto& info) { return info.param; });

}  // namespace
