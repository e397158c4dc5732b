#include "study/count.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "study/error.hpp"
#include "study/files.hpp"

namespace hs {
namespace {

constexpr std::size_t kChunk = 64u << 20;  // 64 MiB: large enough to amortize a GPU launch

}  // namespace

ReadPlan read_plan(const Implementation& impl) {
  // CPU streams (pipes; files are preaded, see count_cpu_file): three
  // chunks of 4 MiB. Timed on a file before files were preaded, this ring
  // gave 68% of read-and-discard, 80% with 16 MiB chunks, 48% with two
  // buffers (data/explorations/count-overlap/README.md); on a pipe the
  // writer sets the pace and no size was measured. GPU: as before.
  if (impl.backend == Backend::cpu) return {kCpuChunk, 3};
  return {kChunk, 2};
}

ChunkReader::ChunkReader(int fd, std::string name, ReadPlan plan)
    : fd_(fd),
      name_(std::move(name)),
      buffers_(std::size_t(plan.buffers)),
      filled_(std::size_t(plan.buffers)),
      free_(std::size_t(plan.buffers), true) {
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
        changed_.wait(lock, [&] { return stop_ || free_[slot]; });
        if (stop_) return;
        free_[slot] = false;
      }
      // read_some fills the buffer unless the stream ends first.
      const std::size_t n = read_some(fd_, buffers_[slot].data(), buffers_[slot].size(), name_);
      const bool last = n < buffers_[slot].size();
      {
        std::lock_guard lock(mutex_);
        filled_[slot] = n;
        if (n) produced_ = seq + 1;
        ended_ = last;
      }
      changed_.notify_all();
      if (last) return;
    }
  } catch (...) {
    {
      std::lock_guard lock(mutex_);
      error_ = std::current_exception();
    }
    changed_.notify_all();
  }
}

ChunkReader::Chunk ChunkReader::next() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return produced_ > taken_ || ended_ || error_; });
  if (produced_ > taken_) {
    const std::size_t seq = taken_++, slot = seq % buffers_.size();
    return {seq, {buffers_[slot].data(), filled_[slot]}};
  }
  if (error_) std::rethrow_exception(error_);
  return {taken_, {}};
}

void ChunkReader::release(std::size_t seq) {
  {
    std::lock_guard lock(mutex_);
    free_[seq % buffers_.size()] = true;
  }
  changed_.notify_all();
}

namespace {

bool is_regular_file(int fd) {
  struct stat st{};
  return ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

// Hands the reader's chunks out in pieces to any number of counting threads,
// giving each chunk back to the reader once all its pieces are counted.
// A thread with nothing to take blocks (it does not spin).
class PieceSource {
 public:
  PieceSource(ChunkReader& reader, std::size_t piece) : reader_(reader), piece_(piece) {}

  struct Piece {
    std::size_t seq;
    std::span<const std::uint8_t> bytes;
  };

  // The next piece; nothing at the end of the stream or after an error
  // (which rethrow() then throws). One thread at a time fetches the next
  // chunk, with the lock released, so that done() can give chunks back to
  // the reader meanwhile; the others wait for it.
  std::optional<Piece> take() {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (error_ || ended_) return std::nullopt;
      if (offset_ < chunk_.bytes.size()) break;
      if (fetching_) {
        fetched_.wait(lock);
        continue;
      }
      fetching_ = true;
      lock.unlock();
      ChunkReader::Chunk next;
      std::exception_ptr error;
      try {
        next = reader_.next();
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      fetching_ = false;
      fetched_.notify_all();
      if (error) {
        error_ = error;
        return std::nullopt;
      }
      if (next.bytes.empty()) {
        ended_ = true;
        return std::nullopt;
      }
      chunk_ = next;
      offset_ = 0;
      pending_[chunk_.seq] = (chunk_.bytes.size() + piece_ - 1) / piece_;
    }
    const std::size_t n = std::min(piece_, chunk_.bytes.size() - offset_);
    const Piece p{chunk_.seq, chunk_.bytes.subspan(offset_, n)};
    offset_ += n;
    return p;
  }

  void done(const Piece& p) {
    std::lock_guard lock(mutex_);
    if (--pending_[p.seq] == 0) {
      pending_.erase(p.seq);
      reader_.release(p.seq);
    }
  }

  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  ChunkReader& reader_;
  const std::size_t piece_;
  std::mutex mutex_;
  std::condition_variable fetched_;
  bool fetching_ = false;
  ChunkReader::Chunk chunk_;
  std::size_t offset_ = 0;
  std::map<std::size_t, std::size_t> pending_;  // pieces not yet counted, by chunk
  bool ended_ = false;
  std::exception_ptr error_;
};

// CPU implementations: one team of threads for the whole stream, each
// thread counting pieces with the implementation on one thread (so no
// OpenMP team is started per chunk, and no idle thread spins while the
// reader reads).
Bins count_cpu_stream(ChunkReader& reader, const Implementation& impl, const LaunchPolicy& policy) {
  PieceSource source(reader, kCpuPiece);
  LaunchPolicy one = policy;
  one.threads = 1;
  Bins total{};
#pragma omp parallel num_threads(policy.threads)
  {
    Bins mine{};
    while (const auto piece = source.take()) {
      impl.cpu_histogram(piece->bytes, mine, one);
      source.done(*piece);
    }
#pragma omp critical(histostudy_count_merge)
    for (int v = 0; v < kBins; ++v) total[v] += mine[v];
  }
  source.rethrow();
  return total;
}

// CPU implementations on a regular file: every thread of the team preads
// the next piece into its own buffer and counts it there, so that a piece
// is read and counted by one core out of its own cache (a chunk handed from
// a reader thread to another core's count crossed cores: 6.7-6.9 GB/s on
// the 2-core EPYC against 9.0-9.9 this way, data/explorations/count-overlap),
// and the team's reads and counts interleave with no reader thread. Pieces
// of kCpuPiece = 512 KiB, half an L2 of that EPYC: 108-112% of
// read-and-discard there, against 103-109% for 128 KiB to 2 MiB.
Bins count_cpu_file(int fd, const std::string& name, const Implementation& impl, const LaunchPolicy& policy) {
  LaunchPolicy one = policy;
  one.threads = 1;
  std::atomic<std::uint64_t> next_offset{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::exception_ptr error;
  std::uint64_t end = UINT64_MAX;  // where the first short piece ended: the file's end as read
  std::uint64_t counted = 0;
  Bins total{};
#pragma omp parallel num_threads(policy.threads)
  {
    std::vector<std::uint8_t> buf(kCpuPiece);
    Bins mine{};
    std::uint64_t mine_bytes = 0;
    try {
      while (!stop.load(std::memory_order_relaxed)) {
        const std::uint64_t offset = next_offset.fetch_add(kCpuPiece);
        const std::size_t n = pread_some(fd, buf.data(), buf.size(), offset, name);
        if (n) impl.cpu_histogram({buf.data(), n}, mine, one);
        mine_bytes += n;
        if (n < buf.size()) {
          std::lock_guard lock(mutex);
          end = std::min(end, offset + n);
          stop = true;
        }
      }
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!error) error = std::current_exception();
      stop = true;
    }
    std::lock_guard lock(mutex);
    for (int v = 0; v < kBins; ++v) total[v] += mine[v];
    counted += mine_bytes;
  }
  if (error) std::rethrow_exception(error);
  // Every piece below the end was whole and none past it held a byte,
  // unless the file changed under the count.
  if (counted != end) throw Error(name + ": changed while counted");
  return total;
}

// Other executors: each chunk counted by one run, while the next is read.
Bins count_chunks(ChunkReader& reader, const Implementation& impl, Executor& executor, int threads) {
  Bins total{};
  for (auto chunk = reader.next(); !chunk.bytes.empty(); chunk = reader.next()) {
    LaunchPolicy requested;
    requested.threads = threads;
    const LaunchPolicy policy = executor.resolve(impl, requested, chunk.bytes.size(), 1);
    executor.load(chunk.bytes);
    const RunOutput out = executor.run_once(impl, policy, Placement{});
    for (int v = 0; v < kBins; ++v) total[v] += out.bins[v];
    reader.release(chunk.seq);
  }
  return total;
}

}  // namespace

Bins count_stream(const std::string& path, const Implementation& impl, Executor& executor, int threads) {
  if (!impl.counts) throw UsageError(std::string(impl.name) + " is a read floor: it counts nothing");
  Fd fd(open_for_reading(path));
  const std::string name = path == "-" ? "standard input" : path;
  // Reading overlaps counting everywhere; an error anywhere in the stream is
  // thrown before any total is returned, so no partial histogram passes for
  // a whole one.
  if (impl.backend == Backend::cpu && impl.cpu_histogram) {
    LaunchPolicy requested;
    requested.threads = threads;
    const LaunchPolicy policy = executor.resolve(impl, requested, kCpuChunk, 1);
    if (is_regular_file(fd.get())) return count_cpu_file(fd.get(), name, impl, policy);
    ChunkReader reader(fd.get(), name, read_plan(impl));
    return count_cpu_stream(reader, impl, policy);
  }
  ChunkReader reader(fd.get(), name, read_plan(impl));
  return count_chunks(reader, impl, executor, threads);
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
