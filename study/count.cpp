#include "study/count.hpp"

#include <unistd.h>

#include <utility>
#include <vector>

#include "study/error.hpp"
#include "study/files.hpp"

namespace hs {
namespace {

constexpr std::size_t kChunk = 64u << 20;  // 64 MiB: large enough to amortize a GPU launch

}  // namespace

ReadPlan read_plan(const Implementation& impl) {
  // CPU: chunks that stay in the last-level cache between the copy that
  // reads them and the count, three so the reader is never kept waiting
  // (chosen in data/explorations/count-overlap/README.md). GPU: as before.
  if (impl.backend == Backend::cpu) return {kCpuChunk, 3};
  return {kChunk, 2};
}

ChunkReader::ChunkReader(int fd, std::string name, ReadPlan plan)
    : fd_(fd), name_(std::move(name)), buffers_(std::size_t(plan.buffers)), filled_(std::size_t(plan.buffers)) {
  for (auto& b : buffers_) b.resize(plan.chunk);
  thread_ = std::thread([this] { read_all(); });
}

ChunkReader::~ChunkReader() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();  // at most one read in flight: a pipe's writer ends it
}

void ChunkReader::read_all() {
  try {
    for (std::size_t seq = 0;; ++seq) {
      const std::size_t slot = seq % buffers_.size();
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stop_ || seq < released_ + buffers_.size(); });
        if (stop_) return;
      }
      // read_some fills the buffer unless the stream ends first.
      const std::size_t n = read_some(fd_, buffers_[slot].data(), buffers_[slot].size(), name_);
      {
        std::lock_guard lock(mutex_);
        filled_[slot] = n;
        if (n) produced_ = seq + 1;
        ended_ = n < buffers_[slot].size();
      }
      changed_.notify_all();
      if (n < buffers_[slot].size()) return;
    }
  } catch (...) {
    {
      std::lock_guard lock(mutex_);
      error_ = std::current_exception();
    }
    changed_.notify_all();
  }
}

std::span<const std::uint8_t> ChunkReader::next() {
  std::unique_lock lock(mutex_);
  released_ = taken_;  // the chunk returned last is counted: its buffer may be refilled
  changed_.notify_all();
  changed_.wait(lock, [&] { return produced_ > taken_ || ended_ || error_; });
  if (produced_ > taken_) {
    const std::size_t slot = taken_++ % buffers_.size();
    return {buffers_[slot].data(), filled_[slot]};
  }
  if (error_) std::rethrow_exception(error_);
  return {};
}

Bins count_stream(const std::string& path, const Implementation& impl, Executor& executor, int threads) {
  if (!impl.counts) throw UsageError(std::string(impl.name) + " is a read floor: it counts nothing");
  Fd fd(open_for_reading(path));
  ChunkReader reader(fd.get(), path == "-" ? "standard input" : path, read_plan(impl));
  Bins total{};
  // Each chunk is counted while the reader fills the next ones; an error
  // anywhere in the stream reaches the caller from next() before any total
  // is returned, so no partial histogram passes for a whole one.
  for (auto bytes = reader.next(); !bytes.empty(); bytes = reader.next()) {
    LaunchPolicy requested;
    requested.threads = threads;
    const LaunchPolicy policy = executor.resolve(impl, requested, bytes.size(), 1);
    executor.load(bytes);
    const RunOutput out = executor.run_once(impl, policy, Placement{});
    for (int v = 0; v < kBins; ++v) total[v] += out.bins[v];
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
