// LD_PRELOAD shim for the hostile suite: read() on a file (a descriptor
// past standard error) fails with EIO once HISTOSTUDY_FAIL_READ_AFTER bytes
// have been read from files, as a disk error in the middle of a file would.
// Without that variable every read passes through.
#include <dlfcn.h>
#include <sys/types.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>

extern "C" ssize_t read(int fd, void* buf, size_t count) {
  using Read = ssize_t (*)(int, void*, size_t);
  static const Read real = reinterpret_cast<Read>(dlsym(RTLD_NEXT, "read"));
  static const long long budget = [] {
    const char* value = std::getenv("HISTOSTUDY_FAIL_READ_AFTER");
    return value ? std::atoll(value) : -1;
  }();
  static std::atomic<long long> done{0};
  if (fd <= 2 || budget < 0) return real(fd, buf, count);
  if (done.load() >= budget) {
    errno = EIO;
    return -1;
  }
  const ssize_t n = real(fd, buf, count);
  if (n > 0) done += n;
  return n;
}
