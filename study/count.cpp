#include "study/count.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "study/error.hpp"

namespace hs {
namespace {

constexpr std::size_t kChunk = 64u << 20;  // 64 MiB: large enough to amortize a GPU launch

std::string os_error(const std::string& path, const std::string& what) {
  return path + ": " + what + " (" + std::strerror(errno) + ")";
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ > 2) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

int open_for_reading(const std::string& path) {
  if (path == "-") return STDIN_FILENO;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(os_error(path, "cannot open"));
  struct stat st{};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error(path + ": is a directory");
  }
  return fd;
}

// Fills as much of buf as the stream gives; 0 at the end.
std::size_t read_some(int fd, std::vector<std::uint8_t>& buf, const std::string& path) {
  std::size_t got = 0;
  while (got < buf.size()) {
    ssize_t n = ::read(fd, buf.data() + got, buf.size() - got);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(os_error(path, "read error"));
    }
    got += std::size_t(n);
  }
  return got;
}

void write_all(int fd, const std::uint8_t* data, std::size_t n, const std::string& path) {
  while (n) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw Error(os_error(path, "write error"));
    }
    data += w;
    n -= std::size_t(w);
  }
}

}  // namespace

Bins count_stream(const std::string& path, const Implementation& impl, Executor& executor, int threads) {
  if (!impl.counts) throw UsageError(std::string(impl.name) + " is a read floor: it counts nothing");
  Fd fd(open_for_reading(path));
  const std::string name = path == "-" ? "standard input" : path;
  Bins total{};
  std::vector<std::uint8_t> chunk(kChunk);
  while (std::size_t n = read_some(fd.get(), chunk, name)) {
    std::span<const std::uint8_t> bytes(chunk.data(), n);
    LaunchPolicy requested;
    requested.threads = threads;
    const LaunchPolicy policy = executor.resolve(impl, requested, n, 1);
    executor.load(bytes);
    const RunOutput out = executor.run_once(impl, policy, Placement{});
    for (int v = 0; v < kBins; ++v) total[v] += out.bins[v];
    if (n < chunk.size()) break;
  }
  return total;
}

void generate_input(const InputSpec& spec, std::uint64_t size, const std::string& path) {
  if (!spec.synthetic())
    throw UsageError("'" + spec.name() + "' is a file; generate writes the study's own inputs");
  const bool to_stdout = path.empty() || path == "-";
  if (to_stdout && ::isatty(STDOUT_FILENO))
    throw UsageError("refusing to write binary bytes to a terminal: use -o FILE or redirect the output");
  const std::string tmp = to_stdout ? "" : path + ".tmp." + std::to_string(::getpid());
  int fd = to_stdout ? STDOUT_FILENO : ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(os_error(path, "cannot create"));
  Fd guard(fd);
  try {
    std::vector<std::uint8_t> chunk(kChunk);
    for (std::uint64_t offset = 0; offset < size;) {
      const std::size_t n = std::size_t(std::min<std::uint64_t>(chunk.size(), size - offset));
      fill_synthetic(spec, offset, {chunk.data(), n});
      write_all(fd, chunk.data(), n, to_stdout ? "standard output" : path);
      offset += n;
    }
    if (!to_stdout && ::fsync(fd) != 0) throw Error(os_error(path, "cannot flush"));
  } catch (...) {
    if (!to_stdout) ::unlink(tmp.c_str());
    throw;
  }
  if (!to_stdout && ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw Error(os_error(path, "cannot write"));
  }
}

}  // namespace hs
