#include "platform/files.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "platform/error.hpp"
#include "driver/inputs.hpp"
#include "driver/sizes.hpp"

namespace hs {
namespace {

namespace fs = std::filesystem;

constexpr int kTerminationSignals[] = {SIGINT, SIGTERM, SIGHUP};

// The temporary file being written, for the signal handler: a fixed buffer,
// since a handler may not allocate.
char g_temporary[4096];
std::atomic<bool> g_has_temporary{false};

// The standard descriptors closed at start (see hold_closed_standard_descriptors).
bool g_closed_at_start[3] = {false, false, false};
const char* const kStreamNames[3] = {"standard input", "standard output", "standard error"};

// Where `path` names a standard stream closed at start (reopened by name:
// /dev/stdin, /proc/self/fd/1), refuses it as closed: the held descriptor is
// no file to read or write, and the path would resolve to what holds it.
void refuse_closed_stream(const std::string& path) {
  struct stat named{};
  if (::stat(path.c_str(), &named) != 0) return;
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    struct stat held{};
    // Only /proc/self's link is refused: a stream held on / (no /proc) leaves / itself usable.
    if (g_closed_at_start[fd] && ::fstat(fd, &held) == 0 && S_ISLNK(held.st_mode) && held.st_dev == named.st_dev &&
        held.st_ino == named.st_ino)
      throw Error(path + ": " + kStreamNames[fd] + ", which is closed");
  }
}

// The line a termination signal writes to standard error (say_when_interrupted), in a
// fixed buffer for the same reason; its length 0 while it is rewritten or there is none.
char g_interrupted_line[8192];
std::atomic<std::size_t> g_interrupted_length{0};

// Set while a signal must wait (TerminationSignalsHeld); the signal that came meanwhile.
std::atomic<bool> g_holding{false};
std::atomic<int> g_held_signal{0};

// Set while a first signal only stops the measuring (MeasuringStopsOnSignal); that signal.
std::atomic<bool> g_stops_measuring{false};
std::atomic<int> g_stop_signal{0};
constexpr char kStoppingLine[] =
    "histostudy: interrupted: stopping to save what was measured (interrupt again to quit without saving)\n";

extern "C" void remove_temporary_and_die(int signal) {
  if (g_holding.load()) {  // on whichever thread it lands: the holder raises it once done
    g_held_signal.store(signal);
    return;
  }
  int none = 0;
  if (g_stops_measuring.load() && g_stop_signal.compare_exchange_strong(none, signal)) {
    const int saved_errno = errno;  // returning to code that may be about to read it
    [[maybe_unused]] const ssize_t said = ::write(STDERR_FILENO, kStoppingLine, sizeof kStoppingLine - 1);
    errno = saved_errno;
    return;
  }
  if (g_has_temporary.load()) ::unlink(g_temporary);
  if (const std::size_t n = g_interrupted_length.load()) {
    [[maybe_unused]] const ssize_t said = ::write(STDERR_FILENO, g_interrupted_line, n);  // write(2): signal-safe
  }
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

// Marks `path` as the temporary in flight for as long as it lives.
class TemporaryFile {
 public:
  explicit TemporaryFile(std::string path) : path_(std::move(path)) {
    if (path_.size() < sizeof g_temporary) {
      std::memcpy(g_temporary, path_.c_str(), path_.size() + 1);
      g_has_temporary.store(true);
    }
  }
  ~TemporaryFile() {
    g_has_temporary.store(false);
    if (!kept_) ::unlink(path_.c_str());
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  const std::string& path() const { return path_; }
  void keep() { kept_ = true; }  // it was renamed or linked into place (or is gone)

 private:
  std::string path_;
  bool kept_ = false;
};

// ".NAME.PID.tmp" in the target's folder (appended piece by piece: GCC 12
// warns falsely on a chain of string + string).
std::string temporary_beside(const std::filesystem::path& target) {
  std::string name = ".";
  name.append(target.filename().string()).append(".").append(std::to_string(::getpid())).append(".tmp");
  return (target.parent_path() / name).string();
}

// Writes a new temporary beside `target` through `write`, flushed to disk.
void fill_temporary(const TemporaryFile& tmp, const std::string& shown, const std::function<void(int)>& write) {
  Fd fd(::open(tmp.path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) throw Error(os_error(shown, "cannot create"));
  write(fd.get());
  if (::fsync(fd.get()) != 0) throw Error(os_error(shown, "cannot flush"));
}

// Holds the termination signals for as long as it lives: one that arrives
// meanwhile, on any thread (NVRTC's and CUDA's included), is raised again,
// and ends the process, once it is gone.
class TerminationSignalsHeld {
 public:
  TerminationSignalsHeld() { g_holding.store(true); }
  ~TerminationSignalsHeld() {
    g_holding.store(false);
    if (const int signal = g_held_signal.exchange(0)) std::raise(signal);
  }
  TerminationSignalsHeld(const TerminationSignalsHeld&) = delete;
  TerminationSignalsHeld& operator=(const TerminationSignalsHeld&) = delete;
};

// Whether a file can be created in the folder `dir` (errno says why not).
bool can_create_in(const fs::path& dir) {
  const auto probe = dir / (".histostudy-probe." + std::to_string(::getpid()));
  Fd fd(::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (fd.get() < 0) return false;
  ::unlink(probe.c_str());
  return true;
}

// Throws UsageError unless a new file can be created beside `path` (docs/commands.md:
// an output folder that cannot be written is a usage error).
void check_folder_of(const std::string& path) {
  const fs::path folder = fs::path(path).parent_path();
  if (!can_create_in(folder.empty() ? "." : folder)) throw UsageError(os_error(path, "cannot create"));
}

// The folder `dir` names, as write_new_folder renames onto it: without a
// trailing separator or "." steps ("out/" and "./out" are "out").
fs::path folder_named(const fs::path& dir) {
  const fs::path normal = dir.lexically_normal();
  return normal.has_filename() ? normal : normal.parent_path();
}

// Hard links are missing on some filesystems (FAT, some network ones).
bool no_hard_links(int error) { return error == EPERM || error == EOPNOTSUPP || error == ENOSYS || error == EXDEV; }

// `bytes` into `path`, which must not exist: O_EXCL, so no earlier file is replaced.
bool create_exclusive(const std::filesystem::path& path, const std::string& bytes) {
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) {
    if (errno == EEXIST) return false;
    throw Error(os_error(path.string(), "cannot create"));
  }
  try {
    write_all(fd.get(), bytes.data(), bytes.size(), path.string());
    if (::fsync(fd.get()) != 0) throw Error(os_error(path.string(), "cannot flush"));
  } catch (...) {
    ::unlink(path.c_str());
    throw;
  }
  return true;
}

}  // namespace

std::string os_error(const std::string& path, const std::string& what) {
  return path + ": " + what + " (" + std::strerror(errno) + ")";
}

bool hold_closed_standard_descriptors() {
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    if (::fcntl(fd, F_GETFD) >= 0) continue;
    g_closed_at_start[fd] = true;
    // The lowest free number is fd itself: the ones below it are open or held
    // by now. /proc/self's link itself (not its target), else / where there
    // is no /proc (and no /dev/stdin to reopen it by).
    int held = ::open("/proc/self", O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (held < 0) held = ::open("/", O_PATH | O_CLOEXEC);
    if (held == fd) continue;
    if (held >= 0) {
      ::close(held);
      errno = EBADF;  // another number: fd was taken after all
    }
    return false;
  }
  return true;
}

Fd::~Fd() {
  if (fd_ > 2) ::close(fd_);
}

namespace {

// Opens `path` for reading with `flags` besides; refuses a directory.
int open_path(const std::string& path, int flags) {
  refuse_closed_stream(path);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | flags);
  if (fd < 0) throw Error(os_error(path, "cannot open"));
  struct stat st{};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error(path + ": is a directory");
  }
  return fd;
}

// A file a run reads whole, opened without waiting: a FIFO's open would
// block until a writer came, before it could be refused as no regular file.
int open_whole_file(const std::string& path) { return open_path(path, O_NONBLOCK); }

// The size of the regular file open on `fd`, checked as whole_file_size says.
std::uint64_t checked_whole_size(int fd, const std::string& path) {
  struct stat st{};
  if (::fstat(fd, &st) != 0) throw Error(os_error(path, "cannot stat"));
  if (!S_ISREG(st.st_mode))
    throw Error(path + ": not a regular file; run reads its inputs whole (histostudy count streams any file)");
  const auto size = std::uint64_t(st.st_size);
  if (size == 0)
    throw Error(path + ": is empty; nothing to measure (a /proc or /sys file says size 0 whatever it holds: "
                       "histostudy count reads such a file to its end)");
  if (size > available_memory_bytes())
    throw Error(path + ": " + with_commas(size) + " bytes do not fit in this machine's available memory (" +
                with_commas(available_memory_bytes()) + " bytes)");
  return size;
}

}  // namespace

int open_for_reading(const std::string& path) {
  if (path == "-") {
    if (g_closed_at_start[STDIN_FILENO]) throw Error("standard input: is closed");
    return STDIN_FILENO;
  }
  return open_path(path, 0);
}

namespace {

// Calls `call(done)` (a read or pread of the bytes after `done`) until
// `size` bytes or the end, retrying interrupted calls.
template <typename Call>
std::size_t read_until(std::size_t size, const std::string& path, Call call) {
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = call(got);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(os_error(path, "read error"));
    }
    got += std::size_t(n);
  }
  return got;
}

}  // namespace

FileVersion version_of(const struct stat& st) {
  return FileVersion{std::uint64_t(st.st_size), std::int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
}

std::optional<FileVersion> regular_file_version(int fd) {
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return version_of(st);
}

std::size_t read_some(int fd, std::uint8_t* buf, std::size_t size, const std::string& path) {
  return read_until(size, path, [&](std::size_t got) { return ::read(fd, buf + got, size - got); });
}

std::optional<std::size_t> read_some_unless(int fd, int stop, std::uint8_t* buf, std::size_t size,
                                            const std::string& path) {
  bool stopped = false;
  const std::size_t n = read_until(size, path, [&](std::size_t got) -> ssize_t {
    pollfd ready[2] = {{fd, POLLIN, 0}, {stop, POLLIN, 0}};
    if (::poll(ready, 2, -1) < 0) return -1;  // EINTR is retried
    if (ready[1].revents) {
      stopped = true;
      return 0;
    }
    // Readable, at its end or in error: the read does not block (unless
    // another reader of the pipe takes its bytes first).
    return ::read(fd, buf + got, size - got);
  });
  if (stopped) return std::nullopt;
  return n;
}

std::size_t pread_some(int fd, std::uint8_t* buf, std::size_t size, std::uint64_t offset, const std::string& path) {
  return read_until(size, path,
                    [&](std::size_t got) { return ::pread(fd, buf + got, size - got, off_t(offset + got)); });
}

void write_all(int fd, const void* data, std::size_t n, const std::string& path) {
  auto bytes = static_cast<const std::uint8_t*>(data);
  while (n) {
    ssize_t w = ::write(fd, bytes, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) throw ClosedPipe(os_error(path, "write error"));
      throw Error(os_error(path, "write error"));
    }
    bytes += w;
    n -= std::size_t(w);
  }
}

std::uint64_t whole_file_size(const std::string& path) {
  Fd fd(open_whole_file(path));
  return checked_whole_size(fd.get(), path);
}

std::vector<std::uint8_t> read_whole_file(const std::string& path) {
  Fd fd(open_whole_file(path));
  const std::uint64_t size = checked_whole_size(fd.get(), path);
  // A regular file's reads then block as any others (the flag was for the open).
  if (::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK) != 0)
    throw Error(os_error(path, "cannot read"));
  std::vector<std::uint8_t> bytes(size);
  const std::size_t got = read_some(fd.get(), bytes.data(), bytes.size(), path);
  if (got != size) throw Error(path + ": changed while read (" + with_commas(got) + " of " + with_commas(size) + " bytes)");
  return bytes;
}

void say_when_interrupted(const std::string& line) {
  g_interrupted_length.store(0);
  if (line.empty() || line.size() + 1 > sizeof g_interrupted_line) return;
  std::memcpy(g_interrupted_line, line.data(), line.size());
  g_interrupted_line[line.size()] = '\n';
  g_interrupted_length.store(line.size() + 1);
}

MeasuringStopsOnSignal::MeasuringStopsOnSignal() {
  g_stop_signal.store(0);
  g_stops_measuring.store(true);
}

MeasuringStopsOnSignal::~MeasuringStopsOnSignal() { g_stops_measuring.store(false); }

int stop_signal() { return g_stop_signal.load(); }

void stop_if_interrupted() {
  if (const int signal = g_stop_signal.load())
    throw Interrupted("interrupted by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")", signal);
}

void die_of(int signal) {
  std::signal(signal, SIG_DFL);
  std::raise(signal);
  std::_Exit(128 + signal);  // should the signal be blocked
}

void install_signal_handlers() {
  std::signal(SIGPIPE, SIG_IGN);
  for (int s : kTerminationSignals) {
    struct sigaction was{};
    // One ignored by whoever started us (nohup; a shell's background job) stays ignored.
    if (::sigaction(s, nullptr, &was) == 0 && was.sa_handler == SIG_IGN) continue;
    std::signal(s, remove_temporary_and_die);
  }
}

void write_output_file(const std::string& path, bool replace, const std::function<void(int fd)>& write) {
  if (path.empty()) throw UsageError("-o: empty path");
  refuse_closed_stream(path);
  struct stat st{};
  const bool exists = ::lstat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) throw UsageError(path + ": is a directory");
  if (exists && S_ISLNK(st.st_mode)) {
    struct stat target{};
    if (::stat(path.c_str(), &target) != 0) throw UsageError(os_error(path, "is a symlink to nothing"));
    if (S_ISDIR(target.st_mode)) throw UsageError(path + ": is a symlink to a directory");
    if (S_ISREG(target.st_mode) && !replace)
      throw UsageError(path + ": exists (a symlink to a file); --force writes through it");
    st = target;
  } else if (exists && S_ISREG(st.st_mode)) {
    if (!replace) throw UsageError(path + ": exists; --force replaces it");
    check_folder_of(path);
    TemporaryFile tmp(temporary_beside(path));
    fill_temporary(tmp, path, write);
    if (::rename(tmp.path().c_str(), path.c_str()) != 0) throw Error(os_error(path, "cannot write"));
    tmp.keep();
    return;
  }
  if (exists) {  // a FIFO, a device, a socket, or through a symlink: written through, never replaced
    Fd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | (S_ISREG(st.st_mode) ? O_TRUNC : 0)));
    if (fd.get() < 0) throw Error(os_error(path, "cannot open for writing"));
    write(fd.get());
    return;
  }
  check_folder_of(path);
  TemporaryFile tmp(temporary_beside(path));
  fill_temporary(tmp, path, write);
  if (::link(tmp.path().c_str(), path.c_str()) == 0) return;  // ~TemporaryFile removes the temporary name
  if (errno == EEXIST) throw UsageError(path + ": appeared while written; --force replaces it");
  if (!no_hard_links(errno)) throw Error(os_error(path, "cannot write"));
  if (::rename(tmp.path().c_str(), path.c_str()) != 0) throw Error(os_error(path, "cannot write"));
  tmp.keep();
}

std::filesystem::path write_new_file(const std::filesystem::path& dir, const std::string& stem,
                                     const std::string& bytes) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(dir.string() + ": cannot create directory (" + ec.message() + ")");
  auto name = [&](int n) {
    char suffix[16] = "";
    if (n > 1) std::snprintf(suffix, sizeof suffix, "-%03d", n);  // -002 sorts before -010
    return dir / (stem + suffix + ".json");
  };
  TemporaryFile tmp(temporary_beside(dir / (stem + ".json")));
  fill_temporary(tmp, tmp.path(), [&](int fd) { write_all(fd, bytes.data(), bytes.size(), tmp.path()); });
  bool linked = true;
  for (int n = 1; n < 1000; ++n) {
    const auto path = name(n);
    if (linked) {
      if (::link(tmp.path().c_str(), path.c_str()) == 0) return path;
      if (errno == EEXIST) continue;
      if (!no_hard_links(errno)) throw Error(os_error(path.string(), "cannot write"));
      linked = false;  // this filesystem has no hard links: exclusive creates from here on
    }
    if (create_exclusive(path, bytes)) return path;
  }
  throw Error(dir.string() + ": too many result files named " + stem);
}

void check_writable_dir(const std::filesystem::path& dir) {
  if (dir.empty()) throw UsageError("-o: empty path");
  refuse_closed_stream(dir.string());
  // The folder, or the nearest one above it that is there (a link to nothing is there): where files or the
  // folders down to `dir` will be created. Nothing is made yet: a run refused later leaves no folder.
  std::error_code ec;
  fs::path there = dir;
  while (!there.empty() && !fs::exists(fs::symlink_status(there, ec))) there = there.parent_path();
  if (there.empty()) there = ".";
  if (!fs::is_directory(there, ec))
    throw UsageError(dir.string() + ": " + (there == dir ? "" : there.string() + " is ") +
                     "not a directory (-o names the folder result files go to)");
  if (!can_create_in(there)) throw UsageError(os_error(dir.string(), "cannot create result files here"));
}

void check_new_folder(const fs::path& dir) {
  if (dir.empty()) throw UsageError("-o: empty path");
  const fs::path folder = folder_named(dir);
  if (folder.filename() == "." || folder.filename() == "..")
    throw UsageError(dir.string() + ": an existing folder; -o names a new one");
  std::error_code ec;
  const auto status = fs::symlink_status(folder, ec);
  if (fs::is_symlink(status)) throw UsageError(dir.string() + ": a symlink; -o names a new folder");
  if (fs::exists(status) && !fs::is_directory(status))
    throw UsageError(dir.string() + ": not a directory (-o names a new folder)");
  std::error_code unreadable;
  if (fs::is_directory(status) && !fs::is_empty(folder, unreadable))
    throw UsageError(dir.string() + (unreadable ? ": cannot read (" + unreadable.message() + ")"
                                                : ": not empty (an earlier run's?); name a new folder, or remove it"));
  check_writable_dir(folder.has_parent_path() ? folder.parent_path() : ".");
}

void write_new_folder(const fs::path& dir, const std::map<std::string, std::string>& files) {
  const TerminationSignalsHeld held;
  check_new_folder(dir);  // again: the work that made `files` took a while
  const fs::path folder = folder_named(dir), tmp = temporary_beside(folder);
  std::error_code ignored;  // a parent that cannot be made fails the mkdir below, which says so
  if (folder.has_parent_path()) fs::create_directories(folder.parent_path(), ignored);  // as run -o makes its folder
  if (::mkdir(tmp.c_str(), 0755) != 0) throw Error(os_error(tmp.string(), "cannot create directory"));
  try {
    for (const auto& [name, bytes] : files) {
      const fs::path file = tmp / name;
      std::error_code ec;
      fs::create_directories(file.parent_path(), ec);
      if (ec) throw Error(file.parent_path().string() + ": cannot create directory (" + ec.message() + ")");
      create_exclusive(file, bytes);  // a new folder: nothing there to collide with
    }
    if (::rename(tmp.c_str(), folder.c_str()) == 0) return;
    if (errno == ENOTEMPTY || errno == EEXIST)
      throw UsageError(dir.string() + ": appeared while written; name a new folder");
    throw Error(os_error(dir.string(), "cannot write"));
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
}

}  // namespace hs
