#include "io/csv_writer.hpp"

#include <cstdio>
#include <stdexcept>

#include "core/number_text.hpp"
#include "core/signal_paths.hpp"
#include "core/units.hpp"
#include "io/atomic_file.hpp"

namespace luztar::io {

namespace {

// Buffered writing of one row: numbers in their shortest round-trip text.
class Row {
 public:
  explicit Row(std::FILE* f) : f_(f) {}
  void number(double v) {
    separate();
    char buf[32];
    char* end = shortest(buf, buf + sizeof buf, v);
    std::fwrite(buf, 1, static_cast<std::size_t>(end - buf), f_);
  }
  void whole(int v) {
    separate();
    std::fprintf(f_, "%d", v);
  }
  // A header column: "name [unit]".
  void column(const std::string& name, const char* unit) {
    separate();
    std::fprintf(f_, "%s [%s]", name.c_str(), unit);
  }
  void end() {
    std::fputc('\n', f_);
    first_ = true;
  }

 private:
  void separate() {
    if (!first_) std::fputc(',', f_);
    first_ = false;
  }
  std::FILE* f_;
  bool first_ = true;
};

}  // namespace

void write_csv(const std::string& path, const Result& r) {
  AtomicOutput out(path);
  write_csv(out, r);
  out.commit();
}

void write_csv(AtomicOutput& out, const Result& r) {
  const std::string& path = out.path();
  std::FILE* f = std::fopen(out.temp_path().c_str(), "w");
  if (!f) throw std::runtime_error(path + ": cannot open the output file for writing");
  const int nb = r.num_bodies(), ne = r.num_elements(), nsb = r.num_blocks();
  Row row(f);
  row.column("time", unit::time);
  // The quantities the Result holds (one read from an older file lacks some).
  const auto held = [&](const OwnerQuantity& q, int n) {
    return !q.values || (r.*(q.values)).size() == r.time.size() * static_cast<std::size_t>(n);
  };
  for (int j = 0; j < nb; ++j)
    for (const OwnerQuantity& q : kBodyQuantities)
      if (held(q, nb)) row.column(r.body_names[j] + "." + q.name, r.body_unit(j, q.unit));
  for (int e = 0; e < ne; ++e)
    for (const OwnerQuantity& q : kElementQuantities)
      if (held(q, ne)) row.column(r.element_names[e] + "." + q.name, r.element_unit(e, q.unit));
  for (int b = 0; b < r.num_blocks(); ++b) row.column(r.block_names[b], r.block_unit(b));
  for (const char* e : {"input_work", "kinetic", "elastic", "dissipated"}) row.column(e, unit::energy);
  row.end();
  for (int k = 0; k < r.num_samples(); ++k) {
    row.number(r.time[k]);
    for (int j = 0; j < nb; ++j)
      for (const OwnerQuantity& q : kBodyQuantities)
        if (held(q, nb)) row.number((r.*(q.values))[k * nb + j]);
    for (int e = 0; e < ne; ++e)
      for (const OwnerQuantity& q : kElementQuantities) {
        if (!q.values) row.whole(r.element_state[k * ne + e]);
        else if (held(q, ne)) row.number((r.*(q.values))[k * ne + e]);
      }
    for (int b = 0; b < nsb; ++b) row.number(r.block_output[k * nsb + b]);
    for (const double v : {r.input_work[k], r.kinetic[k], r.elastic[k], r.dissipated[k]}) row.number(v);
    row.end();
  }
  const bool failed = std::ferror(f) != 0;
  if (std::fclose(f) != 0 || failed) throw std::runtime_error(path + ": error while writing");
}

}  // namespace luztar::io
