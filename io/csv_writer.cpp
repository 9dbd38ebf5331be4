#include "io/csv_writer.hpp"

#include <cstdio>
#include <stdexcept>

#include "io/atomic_file.hpp"

namespace luztar::io {

void write_csv(const std::string& path, const Result& r) {
  AtomicOutput out(path);
  write_csv(out, r);
  out.commit();
}

void write_csv(AtomicOutput& out, const Result& r) {
  const std::string& path = out.path();
  {
    std::FILE* f = std::fopen(out.temp_path().c_str(), "w");
    if (!f) throw std::runtime_error(path + ": cannot open the output file for writing");
    const int nb = r.num_bodies(), ne = r.num_elements();
    std::fprintf(f, "time");
    for (const auto& b : r.body_names) std::fprintf(f, ",%s.angle,%s.velocity", b.c_str(), b.c_str());
    for (const auto& e : r.element_names) std::fprintf(f, ",%s.torque,%s.state", e.c_str(), e.c_str());
    for (const auto& b : r.block_names) std::fprintf(f, ",%s", b.c_str());
    std::fprintf(f, ",input_work,kinetic,elastic,dissipated\n");
    for (int k = 0; k < r.num_samples(); ++k) {
      std::fprintf(f, "%.17g", r.time[k]);
      for (int j = 0; j < nb; ++j) std::fprintf(f, ",%.17g,%.17g", r.angle[k * nb + j], r.velocity[k * nb + j]);
      for (int e = 0; e < ne; ++e)
        std::fprintf(f, ",%.17g,%d", r.element_torque[k * ne + e], static_cast<int>(r.element_state[k * ne + e]));
      for (int b = 0; b < r.num_blocks(); ++b) std::fprintf(f, ",%.17g", r.block_output[k * r.num_blocks() + b]);
      std::fprintf(f, ",%.17g,%.17g,%.17g,%.17g\n", r.input_work[k], r.kinetic[k], r.elastic[k], r.dissipated[k]);
    }
    const bool failed = std::ferror(f) != 0;
    if (std::fclose(f) != 0 || failed) throw std::runtime_error(path + ": error while writing");
  }
}

}  // namespace luztar::io
