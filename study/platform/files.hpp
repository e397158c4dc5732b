// Files as the study writes and reads them, in one place: descriptors that
// close themselves, whole reads and writes, inputs read with one sized read,
// and output written so that nothing is lost or destroyed: a new
// file appears whole or not at all, an existing regular file is replaced
// only when asked, anything else (a FIFO, a device, a symlink's target) is
// written through, and a temporary file never outlives an error or a
// termination signal; a new folder, too, appears whole or not at all.
#pragma once
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hs {

// "path: what (strerror(errno))".
std::string os_error(const std::string& path, const std::string& what);

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd();
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Call first in main. Each standard descriptor closed at start is held by a
// path-only descriptor (O_PATH) of /proc/self's link, which cannot be read or
// written (EBADF, as a closed one), so no descriptor opened later (a GPU's
// device node, a reader's eventfd) takes a standard stream's number and is
// read or written as if it were the stream. Reopened by name (/dev/stdin,
// /dev/stdout) it is refused as closed by open_for_reading,
// write_output_file and check_writable_dir. False if one could not be held
// (errno says why).
bool hold_closed_standard_descriptors();

// Opens for reading ("-": standard input). Throws Error for a missing or
// unreadable path or a directory, or standard input closed at start.
int open_for_reading(const std::string& path);
// What says a regular file changed while it was read: its size and
// modification time.
struct FileVersion {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  bool operator==(const FileVersion&) const = default;
};
// fd's version; nothing for pipes, terminals, directories and the like.
std::optional<FileVersion> regular_file_version(int fd);
// The version a stat of a regular file gives.
FileVersion version_of(const struct stat& st);

// Fills as much of `buf` as the stream gives; 0 at the end. Throws Error.
std::size_t read_some(int fd, std::uint8_t* buf, std::size_t size, const std::string& path);
// The same at `offset` of a regular file (pread), leaving the file offset alone.
std::size_t pread_some(int fd, std::uint8_t* buf, std::size_t size, std::uint64_t offset, const std::string& path);
// read_some, but each read waits in poll(2) until fd or `stop` (an eventfd)
// is readable, and nothing is returned once `stop` is: a thread reading a
// pipe whose writer stays open and silent can be stopped.
std::optional<std::size_t> read_some_unless(int fd, int stop, std::uint8_t* buf, std::size_t size,
                                            const std::string& path);
// Throws Error (ENOSPC...) naming `path`; ClosedPipe for EPIPE.
void write_all(int fd, const void* data, std::size_t n, const std::string& path);

// The size of a regular file that a run can read whole. Throws Error for a
// missing, unreadable, non-regular (a FIFO, /dev/zero) or empty file, or one
// larger than the available memory; a FIFO is refused without waiting for a writer.
std::uint64_t whole_file_size(const std::string& path);
// Reads such a file with one sized read loop.
std::vector<std::uint8_t> read_whole_file(const std::string& path);

// Installs the termination-signal handlers that remove the temporary file
// in flight (SIGINT, SIGTERM, SIGHUP; one inherited as ignored stays so, as
// nohup asks) and ignores SIGPIPE, so a closed pipe
// is a write error the command reports, not a silent death. Call once, first.
void install_signal_handlers();
// The line those handlers write to standard error before the process dies
// ("histostudy: interrupted before its first case: nothing measured, nothing saved"); "" (the default): none.
void say_when_interrupted(const std::string& line);

// While one lives, the first termination signal does not end the process:
// it says so on standard error and is remembered, and stop_if_interrupted()
// then throws Interrupted, so that a run stops before its next sample and
// saves the cases it finished. A second signal ends the process as before.
class MeasuringStopsOnSignal {
 public:
  MeasuringStopsOnSignal();
  ~MeasuringStopsOnSignal();
  MeasuringStopsOnSignal(const MeasuringStopsOnSignal&) = delete;
  MeasuringStopsOnSignal& operator=(const MeasuringStopsOnSignal&) = delete;
};
void stop_if_interrupted();
// The signal that asked the measuring to stop; 0: none came.
int stop_signal();

// Ends the process by `signal`, as if it had not been caught.
[[noreturn]] void die_of(int signal);

// Writes `path` by calling `write(fd)`: a new file through a temporary in the
// same folder, linked into place (never over an existing file); an existing
// regular file only with `replace` (renamed over it), else UsageError; a
// FIFO, a character device or a symlink to one is written through; a
// symlink to a regular file is written through (truncated) only with
// `replace`. A folder that cannot take the new file (missing, not a folder,
// not writable) is a UsageError before anything is written. On any error the
// temporary is removed.
void write_output_file(const std::string& path, bool replace, const std::function<void(int fd)>& write);

// Writes `bytes` as DIR/STEM.json (DIR made if missing), or STEM-002.json... if taken: never over
// an earlier file, never partially visible. Falls back to an exclusive
// create where the filesystem has no hard links. Returns the path written.
std::filesystem::path write_new_file(const std::filesystem::path& dir, const std::string& stem,
                                     const std::string& bytes);

// Throws UsageError unless files can be created in `dir`, or where missing
// in the nearest folder above it that is there (write_new_file makes it):
// checked before a run measures anything, and making nothing.
void check_writable_dir(const std::filesystem::path& dir);

// Throws UsageError unless write_new_folder can make `dir`: missing or an
// empty folder (never one with anything in it, an earlier run's), in a
// folder where files can be created (made if missing, as check_writable_dir
// makes it). Checked before the work that fills it.
void check_new_folder(const std::filesystem::path& dir);

// Writes `files` (a path inside the folder, and its bytes) as the new folder
// `dir`: into a temporary folder beside it, each file flushed to disk, then
// renamed into place, so `dir` appears whole or not at all and never
// replaces a folder with anything in it. SIGINT, SIGTERM and SIGHUP wait
// until it is done (call it from a process's only thread); on any error the
// temporary folder is removed.
void write_new_folder(const std::filesystem::path& dir, const std::map<std::string, std::string>& files);

}  // namespace hs
