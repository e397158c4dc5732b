// LD_PRELOAD shim for the hostile suite: read() and pread() on a file (a
// descriptor past standard error) fail with EIO once
// HISTOSTUDY_FAIL_READ_AFTER bytes have been read from files, as a disk
// error in the middle of a file would. Without that variable every read
// passes through.
//
// Both pread and pread64 are defined: built with 64-bit offsets, the
// headers would rename pread to pread64, so the shim is built without.
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <sys/types.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace {

long long budget() {
  static const long long bytes = [] {
    const char* value = std::getenv("HISTOSTUDY_FAIL_READ_AFTER");
    return value ? std::atoll(value) : -1;
  }();
  return bytes;
}

std::atomic<long long> read_so_far{0};

// Runs `call` (the real function) unless the budget is spent.
template <typename Call>
ssize_t counted(int fd, Call call) {
  if (fd <= 2 || budget() < 0) return call();
  if (read_so_far.load() >= budget()) {
    errno = EIO;
    return -1;
  }
  const ssize_t n = call();
  if (n > 0) read_so_far += n;
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
