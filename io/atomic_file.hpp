#pragma once
// Output written to a temporary file beside the target and renamed over it only
// when complete: a failed or interrupted write never leaves a half-written file
// under the requested name.
#include <string>

namespace luztar::io {

class AtomicOutput {
 public:
  explicit AtomicOutput(std::string path);
  ~AtomicOutput();  // removes the temporary file unless committed
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  const std::string& temp_path() const { return temp_; }
  // Renames the temporary file to the target (throws std::runtime_error on failure).
  void commit();

 private:
  std::string path_, temp_;
  bool committed_ = false;
};

}  // namespace luztar::io
