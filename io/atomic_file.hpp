#pragma once
// Output written to a temporary file beside the target and renamed over it only
// when complete: a failed or interrupted write never leaves a half-written file
// under the requested name.
//
// Only a new path or a regular file takes output. Whatever else is at the path
// (a symbolic link, even to a regular file; a FIFO; a device; a socket; a
// directory) is refused, never replaced or written through: renaming over it
// would turn /dev/null or a link into a regular file, and opening it could
// block (FIFO) or write into something that is not the user's result.
//
// The temporary file is "<target>.partial-<pid>-<n>"; it is created when the
// AtomicOutput is constructed, so an unusable target or directory fails before
// any work is done, and removed unless committed: by the destructor, by the
// handler of remove_temporaries_on_signal() when the process is killed, and by
// remove_stale_temporaries() for the leftovers of a process that died (SIGKILL).
#include <initializer_list>
#include <string>

namespace luztar::io {

// What is at a path, found with lstat(): nothing is opened and no link is followed.
enum class PathKind { missing, regular, directory, symlink, fifo, character_device, block_device, socket, other };
PathKind classify_path(const std::string& path);
const char* to_string(PathKind kind);  // "a symbolic link", "a FIFO", ...

// Throws std::runtime_error ("<path>: is a FIFO; ...") unless `path` is missing
// or a regular file and its directory exists. Writability is proven only by
// creating a file there, which AtomicOutput does.
void check_output_path(const std::string& path);

class AtomicOutput {
 public:
  // Checks the target (check_output_path) and creates the empty temporary file;
  // throws std::runtime_error naming the path and the reason on failure.
  explicit AtomicOutput(std::string path);
  ~AtomicOutput();  // removes the temporary file unless committed
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_; }
  // Checks the target again (it may have changed during the run) and renames the
  // temporary file over it (throws std::runtime_error on failure).
  void commit();

 private:
  std::string path_, temp_;
  int slot_ = -1;  // entry in the signal handler's list of temporaries, -1 if none
  bool committed_ = false;
};

// Installs a handler for `signals` (e.g. SIGINT, SIGTERM) that removes every
// uncommitted AtomicOutput temporary of the process and then lets the signal
// end the process as it would have (killed by that signal); a signal that is
// ignored (nohup, a background job of a script) stays ignored. Process-wide by
// nature: for command-line tools, not for a library embedded in a host.
void remove_temporaries_on_signal(std::initializer_list<int> signals);

// Removes "<path>.partial-<pid>*" files left by processes that are no longer
// alive (a temporary of a live writer is kept).
void remove_stale_temporaries(const std::string& path);

}  // namespace luztar::io
