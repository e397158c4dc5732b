// LD_PRELOAD shim for the hostile suite: a file that fails or changes under
// its reader, as a disk error or another process would. On a file (a
// descriptor past standard error), once HISTOSTUDY_FAIL_READ_AFTER bytes
// have been read from files, read() and pread() fail with EIO; once
// HISTOSTUDY_RESIZE_AFTER bytes have, the file just read from is truncated
// (or extended with zeros) to HISTOSTUDY_RESIZE_TO bytes, once, by its
// path. Without these variables every read passes through. With
// HISTOSTUDY_SHIM_FILE, only reads of that file (the same device and inode)
// count, fail or resize: once a budget is spent, failing every descriptor's
// reads would fail the CUDA driver's own too, and a GPU count that waits on
// a copy (a blocking event) hung on the H200 instead of reporting the read
// error (data/explorations/20261202T1800Z_gpu_count_clock/, call 5).
//
// Both pread and pread64 are defined: built with 64-bit offsets, the
// headers would rename pread to pread64, so the shim is built without.
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

long long setting(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::atoll(value) : -1;
}

// The file HISTOSTUDY_SHIM_FILE names, as {device, inode}: every file where
// none is named; none where the one named cannot be found (said on stderr),
// so that the test expecting its reads to fail fails instead.
struct FileId {
  bool every = true;
  dev_t dev = 0;
  ino_t ino = 0;
};

FileId shim_file() {
  const char* path = std::getenv("HISTOSTUDY_SHIM_FILE");
  if (!path) return {};
  struct stat st{};
  if (::stat(path, &st) != 0) {
    std::perror("failing_read: HISTOSTUDY_SHIM_FILE");
    return {false, 0, 0};
  }
  return {false, st.st_dev, st.st_ino};
}

struct Settings {
  long long fail_after = setting("HISTOSTUDY_FAIL_READ_AFTER");
  long long resize_after = setting("HISTOSTUDY_RESIZE_AFTER");
  long long resize_to = setting("HISTOSTUDY_RESIZE_TO");
  FileId only = shim_file();
};

// Whether a read of `fd` is one the shim counts: a file past standard error,
// and the shim's file where one is named.
bool watched(int fd, const Settings& s) {
  if (fd <= 2) return false;
  if (s.only.every) return true;
  struct stat st{};
  return s.only.ino != 0 && ::fstat(fd, &st) == 0 && st.st_dev == s.only.dev && st.st_ino == s.only.ino;
}

const Settings& settings() {
  static const Settings s;
  return s;
}

std::atomic<long long> read_so_far{0};
std::atomic<bool> resized{false};

// Resizes the file open as `fd` through its /proc/self/fd link, leaving errno
// as the read set it. The test checks the size it finds afterwards.
void resize(int fd, long long size) {
  const int saved = errno;
  char link[32];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  if (::truncate(link, size) != 0) std::perror("failing_read: truncate");
  errno = saved;
}

// Runs `call` (the real function) unless the failure budget is spent, then
// resizes the file once the resize budget is.
template <typename Call>
ssize_t counted(int fd, Call call) {
  const Settings& s = settings();
  if ((s.fail_after < 0 && s.resize_after < 0) || !watched(fd, s)) return call();
  if (s.fail_after >= 0 && read_so_far.load() >= s.fail_after) {
    errno = EIO;
    return -1;
  }
  const ssize_t n = call();
  if (n > 0 && (read_so_far += n) >= s.resize_after && s.resize_after >= 0 && !resized.exchange(true))
    resize(fd, s.resize_to);
  return n;
}

template <typename F>
F real(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" ssize_t read(int fd, void* buf, size_t count) {
  static const auto next = real<ssize_t (*)(int, void*, size_t)>("read");
  return counted(fd, [&] { return next(fd, buf, count); });
}

extern "C" ssize_t pread64(int fd, void* buf, size_t count, std::int64_t offset) {
  static const auto next = real<ssize_t (*)(int, void*, size_t, std::int64_t)>("pread64");
  return counted(fd, [&] { return next(fd, buf, count, offset); });
}

extern "C" ssize_t pread(int fd, void* buf, size_t count, long offset) {
  static const auto next = real<ssize_t (*)(int, void*, size_t, long)>("pread");
  return counted(fd, [&] { return next(fd, buf, count, offset); });
}
