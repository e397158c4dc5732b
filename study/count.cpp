#include "study/count.hpp"

#include <unistd.h>

#include <future>
#include <utility>
#include <vector>

#include "study/error.hpp"
#include "study/files.hpp"

namespace hs {
namespace {

constexpr std::size_t kChunk = 64u << 20;  // 64 MiB: large enough to amortize a GPU launch

}  // namespace

Bins count_stream(const std::string& path, const Implementation& impl, Executor& executor, int threads) {
  if (!impl.counts) throw UsageError(std::string(impl.name) + " is a read floor: it counts nothing");
  Fd fd(open_for_reading(path));
  const std::string name = path == "-" ? "standard input" : path;
  Bins total{};
  std::vector<std::uint8_t> chunk(kChunk), next_chunk;
  // The next chunk is read while this one is counted (issue 13): reading and
  // counting no longer take turns.
  auto read_into = [&](std::vector<std::uint8_t>& buf) { return read_some(fd.get(), buf.data(), buf.size(), name); };
  std::size_t n = read_into(chunk);
  while (n) {
    const bool last = n < chunk.size();
    std::future<std::size_t> next;
    if (!last) {
      next_chunk.resize(kChunk);
      next = std::async(std::launch::async, read_into, std::ref(next_chunk));
    }
    std::span<const std::uint8_t> bytes(chunk.data(), n);
    LaunchPolicy requested;
    requested.threads = threads;
    const LaunchPolicy policy = executor.resolve(impl, requested, n, 1);
    executor.load(bytes);
    const RunOutput out = executor.run_once(impl, policy, Placement{});
    for (int v = 0; v < kBins; ++v) total[v] += out.bins[v];
    n = last ? 0 : next.get();
    std::swap(chunk, next_chunk);
  }
  return total;
}

void generate_input(const InputSpec& spec, std::uint64_t size, const std::string& path, bool force) {
  if (!spec.synthetic())
    throw UsageError("'" + spec.name() + "' is a file; generate writes the study's own inputs");
  const bool to_stdout = path == "-";
  if (to_stdout && ::isatty(STDOUT_FILENO))
    throw UsageError("refusing to write binary bytes to a terminal: use -o FILE or redirect the output");
  const std::string shown = to_stdout ? "standard output" : path;
  auto write = [&](int fd) {
    std::vector<std::uint8_t> chunk(kChunk);
    for (std::uint64_t offset = 0; offset < size;) {
      const std::size_t n = std::size_t(std::min<std::uint64_t>(chunk.size(), size - offset));
      fill_synthetic(spec, offset, {chunk.data(), n});
      write_all(fd, chunk.data(), n, shown);
      offset += n;
    }
  };
  if (to_stdout)
    write(STDOUT_FILENO);
  else
    write_output_file(path, force, write);
}

}  // namespace hs
