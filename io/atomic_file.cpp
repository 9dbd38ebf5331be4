#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace luztar::io {

namespace {

// The temporaries a signal handler must remove. A handler can only reach
// process-wide state and may call only async-signal-safe functions (unlink), so
// this is a fixed table of path buffers, each published by an atomic state.
// A temporary that finds no free entry (more than kSlots at once, or a path
// longer than PATH_MAX) is still removed by its destructor and by
// remove_stale_temporaries(), only not by the handler.
constexpr int kSlots = 32;
enum SlotState : int { kFree = 0, kFilling = 1, kLive = 2 };
struct Slot {
  std::atomic<int> state{kFree};
  char path[4096];
};
std::array<Slot, kSlots> g_temporaries;
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads the slot states");

int register_temporary(const std::string& temp) {
  if (temp.size() >= sizeof(Slot::path)) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_temporaries[i].state.compare_exchange_strong(expected, kFilling)) continue;
    std::memcpy(g_temporaries[i].path, temp.c_str(), temp.size() + 1);
    g_temporaries[i].state.store(kLive);
    return i;
  }
  return -1;
}

void unregister_temporary(int slot) {
  if (slot >= 0) g_temporaries[slot].state.store(kFree);
}

extern "C" void remove_temporaries_and_die(int sig) {
  const int saved = errno;
  for (Slot& s : g_temporaries)
    if (s.state.load() == kLive) ::unlink(s.path);
  errno = saved;
  // SA_RESETHAND restored the default action; the signal, blocked while this
  // handler runs, is delivered again when it returns and ends the process.
  ::raise(sig);
}

std::atomic<unsigned> g_serial{0};  // distinguishes two temporaries of one target in one process

std::string directory_of(const std::string& path) {
  const std::filesystem::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

}  // namespace

PathKind classify_path(const std::string& path) {
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return PathKind::missing;
    throw std::runtime_error(path + ": cannot examine the output path: " + std::strerror(errno));
  }
  if (S_ISREG(st.st_mode)) return PathKind::regular;
  if (S_ISDIR(st.st_mode)) return PathKind::directory;
  if (S_ISLNK(st.st_mode)) return PathKind::symlink;
  if (S_ISFIFO(st.st_mode)) return PathKind::fifo;
  if (S_ISCHR(st.st_mode)) return PathKind::character_device;
  if (S_ISBLK(st.st_mode)) return PathKind::block_device;
  if (S_ISSOCK(st.st_mode)) return PathKind::socket;
  return PathKind::other;
}

const char* to_string(PathKind kind) {
  switch (kind) {
    case PathKind::missing: return "missing";
    case PathKind::regular: return "a regular file";
    case PathKind::directory: return "a directory";
    case PathKind::symlink: return "a symbolic link";
    case PathKind::fifo: return "a FIFO";
    case PathKind::character_device: return "a character device";
    case PathKind::block_device: return "a block device";
    case PathKind::socket: return "a socket";
    case PathKind::other: return "not a regular file";
  }
  return "not a regular file";
}

void check_output_path(const std::string& path) {
  if (path.empty()) throw std::runtime_error("the output path is empty");
  const PathKind kind = classify_path(path);
  if (kind == PathKind::symlink) {
    std::error_code ec;
    const std::string target = std::filesystem::read_symlink(path, ec).string();
    throw std::runtime_error(path + ": is a symbolic link (to '" + target +
                             "'); output goes only to a new path or a regular file: links are neither followed nor "
                             "replaced");
  }
  if (kind != PathKind::missing && kind != PathKind::regular)
    throw std::runtime_error(path + ": is " + std::string(to_string(kind)) +
                             "; output goes only to a new path or a regular file");
  const std::string dir = directory_of(path);
  struct stat st{};
  if (::stat(dir.c_str(), &st) != 0)
    throw std::runtime_error(path + ": the output directory '" + dir + "' does not exist (" + std::strerror(errno) +
                             ")");
  if (!S_ISDIR(st.st_mode)) throw std::runtime_error(path + ": '" + dir + "' is not a directory");
}

AtomicOutput::AtomicOutput(std::string path) : path_(std::move(path)) {
  check_output_path(path_);
  temp_ = path_ + ".partial-" + std::to_string(::getpid()) + "-" + std::to_string(g_serial++);
  // a file of this name can only be left by a dead process that had our pid
  ::unlink(temp_.c_str());
  // Registered before it exists: a signal arriving once the file is there
  // always finds it in the handler's list (removing a name not yet created is
  // harmless).
  slot_ = register_temporary(temp_);
  const int fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int err = errno;
    unregister_temporary(slot_);
    throw std::runtime_error(path_ + ": cannot create a file in the output directory '" + directory_of(path_) +
                             "': " + std::strerror(err));
  }
  ::close(fd);
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) std::remove(temp_.c_str());
  unregister_temporary(slot_);
}

void AtomicOutput::commit() {
  check_output_path(path_);
  if (std::rename(temp_.c_str(), path_.c_str()) != 0)
    throw std::runtime_error(path_ + ": cannot write the output file: " + std::strerror(errno));
  committed_ = true;
  unregister_temporary(slot_);
  slot_ = -1;
}

void remove_temporaries_on_signal(std::initializer_list<int> signals) {
  struct sigaction action{};
  action.sa_handler = remove_temporaries_and_die;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  for (const int sig : signals) {
    struct sigaction before{};
    // a signal the process was told to ignore (nohup, a background job) stays ignored
    if (::sigaction(sig, nullptr, &before) == 0 && before.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &action, nullptr);
  }
}

void remove_stale_temporaries(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string prefix = p.filename().string() + ".partial-";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory_of(path), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    char* end = nullptr;
    const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
    if (end == name.c_str() + prefix.size() || (*end != '\0' && *end != '-')) continue;  // not one of ours
    const bool alive = pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
    if (!alive) std::filesystem::remove(entry.path(), ec);
  }
}

}  // namespace luztar::io
