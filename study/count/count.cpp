#include "count/count.hpp"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "build_config.hpp"
#include "cpu_openmp/openmp_histogram.hpp"
#include "platform/error.hpp"
#include "platform/files.hpp"
#if HISTOSTUDY_HAVE_CUDA
#include "cuda/stream_count.hpp"
#endif

namespace hs {
namespace {

constexpr std::size_t kGenerateChunk = 64u << 20;  // generate's writes

}  // namespace

ReadPlan read_plan(const Implementation& impl) {
  // CPU streams (pipes; files are preaded, see count_cpu_file): three
  // chunks of 4 MiB; on a pipe the writer sets the pace.
  if (impl.backend == Backend::cpu) return {kCpuChunk, 3};
  // GPU implementations (cuda/stream_count.cpp): eight pinned buffers of
  // 4 MiB chunks, read in 1 MiB pieces by gpu_reading_threads. Two buffers
  // are the driver's (one being copied, the one before until its copy is
  // done); the readers fill the rest. Chosen over 16 MiB x 4 and 8 MiB x 6,
  // settled, in rotation: docs/decisions/count-plan.md.
  return {kGpuChunk, kGpuBuffers};
}

ReadPlan gpu_file_plan(std::uint64_t size, ReadPlan wanted) {
  if (wanted.piece == 0) throw Error("GPU file plan: a file is read in pieces of at least 1 byte");
  const std::uint64_t pieces = (std::max<std::uint64_t>(size, 1) + wanted.piece - 1) / wanted.piece;
  wanted.chunk = std::size_t(std::min<std::uint64_t>(wanted.chunk, pieces * wanted.piece));
  return wanted;
}

namespace {

std::vector<std::span<std::uint8_t>> spans_of(std::vector<std::vector<std::uint8_t>>& buffers) {
  std::vector<std::span<std::uint8_t>> spans;
  for (auto& b : buffers) spans.emplace_back(b);
  return spans;
}

// A regular file whose pieces do not tile it up to where it ended, or
// whose version changed, while it was counted.
Error changed_while_counted(const std::string& name) { return Error(name + ": changed while counted"); }

// What stops a ChunkReader's thread (see read_some_unless). It takes no
// closed standard stream's number where those are held, as main holds them
// (hold_closed_standard_descriptors).
int new_stop_event() {
  const int fd = ::eventfd(0, EFD_CLOEXEC);
  if (fd < 0) throw Error(os_error("chunk reader", "cannot make an eventfd"));
  return fd;
}

}  // namespace

ChunkReader::ChunkReader(int fd, std::string name, ReadPlan plan)
    : fd_(fd),
      name_(std::move(name)),
      owned_(std::size_t(plan.buffers), std::vector<std::uint8_t>(plan.chunk)),
      buffers_(spans_of(owned_)),
      filled_(buffers_.size()),
      free_(buffers_.size(), true),
      wake_(new_stop_event()) {
  thread_ = std::thread([this] { read_all(); });
}

ChunkReader::ChunkReader(int fd, std::string name, std::vector<std::span<std::uint8_t>> buffers)
    : fd_(fd),
      name_(std::move(name)),
      buffers_(std::move(buffers)),
      filled_(buffers_.size()),
      free_(buffers_.size(), true),
      wake_(new_stop_event()) {
  thread_ = std::thread([this] { read_all(); });
}

ChunkReader::~ChunkReader() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  ::eventfd_write(wake_.get(), 1);  // ends a wait for the stream
  thread_.join();
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
      // The buffer filled unless the stream ends first; nothing once stopped.
      const auto got = read_some_unless(fd_, wake_.get(), buffers_[slot].data(), buffers_[slot].size(), name_);
      if (!got) return;
      const std::size_t n = *got;
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

ChunkSource::Chunk ChunkReader::next() {
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

FileChunkReader::FileChunkReader(int fd, std::string name, FileVersion opened,
                                 std::vector<std::span<std::uint8_t>> buffers, std::size_t piece, int threads)
    : fd_(fd),
      name_(std::move(name)),
      buffers_(std::move(buffers)),
      piece_(piece),
      pieces_per_chunk_(buffers_.empty() || piece == 0 ? 0 : buffers_[0].size() / piece),
      opened_(opened),
      slot_seq_(buffers_.size()),
      taken_in_(buffers_.size()),
      done_in_(buffers_.size()),
      filled_(buffers_.size()) {
  bool whole = buffers_.size() >= 2 && pieces_per_chunk_ > 0 && threads >= 1;
  for (const auto& b : buffers_) whole = whole && b.size() == pieces_per_chunk_ * piece_;
  if (!whole)
    throw Error("file reader: needs two or more buffers of whole pieces and a thread (got " +
                std::to_string(buffers_.size()) + " buffers, " + std::to_string(piece) + "-byte pieces, " +
                std::to_string(threads) + " threads)");
  for (std::size_t slot = 0; slot < slot_seq_.size(); ++slot) slot_seq_[slot] = slot;
  running_ = threads;
  try {
    for (int t = 0; t < threads; ++t) threads_.emplace_back([this] { read_pieces(); });
  } catch (...) {
    stop_readers();
    throw;
  }
}

FileChunkReader::~FileChunkReader() { stop_readers(); }

void FileChunkReader::stop_readers() noexcept {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  freed_.notify_all();
  for (auto& t : threads_) t.join();  // a thread's read in flight is one piece of a regular file
  threads_.clear();
}

// The next piece's buffer holds its chunk (the chunk there before was released).
bool FileChunkReader::next_piece_free() const {
  const std::uint64_t seq = next_piece_ / pieces_per_chunk_;
  return slot_seq_[std::size_t(seq % buffers_.size())] == seq;
}

// Every piece of chunk `seq` read, or every one taken before the end was found.
bool FileChunkReader::complete(std::size_t slot, std::size_t seq) const {
  return slot_seq_[slot] == seq && done_in_[slot] == taken_in_[slot] &&
         (taken_in_[slot] == pieces_per_chunk_ || ended_);
}

void FileChunkReader::read_pieces() {
  std::unique_lock lock(mutex_);
  for (;;) {
    // A piece is taken only once its buffer is free (no thread holds a piece
    // while it waits), and none once the end is found.
    freed_.wait(lock, [&] { return stop_ || ended_ || error_ || next_piece_free(); });
    if (stop_ || ended_ || error_) break;
    const std::uint64_t piece = next_piece_++;
    const std::size_t slot = std::size_t(piece / pieces_per_chunk_ % buffers_.size());
    ++taken_in_[slot];
    lock.unlock();
    std::size_t n = 0;
    std::exception_ptr error;
    try {
      n = pread_some(fd_, buffers_[slot].data() + piece % pieces_per_chunk_ * piece_, piece_, piece * piece_, name_);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error) {
      if (!error_) error_ = error;
      freed_.notify_all();
      break;
    }
    filled_[slot] += n;
    read_ += n;
    ++done_in_[slot];
    if (n < piece_) {
      ended_ = true;
      end_ = std::min(end_, piece * piece_ + n);
      freed_.notify_all();
    }
    if (ended_ || done_in_[slot] == pieces_per_chunk_) progress_.notify_all();
  }
  --running_;
  progress_.notify_all();
}

ChunkSource::Chunk FileChunkReader::next() {
  std::unique_lock lock(mutex_);
  const std::size_t slot = taken_ % buffers_.size();
  progress_.wait(lock, [&] { return error_ || finished_ || complete(slot, taken_); });
  if (error_) std::rethrow_exception(error_);
  if (!finished_ && filled_[slot] > 0) {
    const std::size_t seq = taken_++;
    return {seq, {buffers_[slot].data(), filled_[slot]}};
  }
  // The end. Once every reader is done, the pieces read must tile the file
  // up to where it ended and no further, and the file be as it was.
  progress_.wait(lock, [&] { return running_ == 0; });
  if (error_) std::rethrow_exception(error_);
  if (read_ != end_ || regular_file_version(fd_) != opened_) throw changed_while_counted(name_);
  finished_ = true;
  return {taken_, {}};
}

void FileChunkReader::release(std::size_t seq) {
  {
    std::lock_guard lock(mutex_);
    const std::size_t slot = seq % buffers_.size();
    slot_seq_[slot] = seq + buffers_.size();
    taken_in_[slot] = done_in_[slot] = filled_[slot] = 0;
  }
  freed_.notify_all();
}

namespace {

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
// is read and counted by one core out of its own cache, and the team's reads
// and counts interleave with no reader thread. Pieces of kCpuPiece = 512 KiB
// (docs/decisions/count-plan.md).
// A file that grows, shrinks or is written while counted is refused as
// changed: its pieces do not tile it up to where it ended, or its version
// at the end is not `opened`. It is not counted up to its size when opened,
// since files of /proc and /sys report sizes that are not their bytes: the
// count reads to the end as read.
Bins count_cpu_file(int fd, const std::string& name, const FileVersion& opened, const Implementation& impl,
                    const LaunchPolicy& policy) {
  const PieceCount pieces = count_in_pieces(
      [fd, &name](std::span<std::uint8_t> buffer, std::uint64_t offset) {
        return std::span<const std::uint8_t>(buffer.data(), pread_some(fd, buffer.data(), buffer.size(), offset, name));
      },
      impl, policy);
  // Every piece below the end was whole and none past it held a byte, and
  // the file is as it was, unless it changed under the count.
  if (pieces.counted != pieces.end || regular_file_version(fd) != opened) throw changed_while_counted(name);
  return pieces.bins;
}

}  // namespace

PieceCount count_in_pieces(const PieceReader& read, const Implementation& impl, const LaunchPolicy& policy) {
  LaunchPolicy one = policy;
  one.threads = 1;
  std::atomic<std::uint64_t> next_offset{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::exception_ptr error;
  PieceCount total;
#pragma omp parallel num_threads(policy.threads)
  {
    std::vector<std::uint8_t> buf(kCpuPiece);
    Bins mine{};
    std::uint64_t mine_bytes = 0;
    try {
      while (!stop.load(std::memory_order_relaxed)) {
        const std::uint64_t offset = next_offset.fetch_add(kCpuPiece);
        const std::span<const std::uint8_t> piece = read(buf, offset);
        if (!piece.empty()) impl.cpu_histogram(piece, mine, one);
        mine_bytes += piece.size();
        if (piece.size() < buf.size()) {
          std::lock_guard lock(mutex);
          total.end = std::min(total.end, offset + piece.size());
          stop = true;
        }
      }
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!error) error = std::current_exception();
      stop = true;
    }
    std::lock_guard lock(mutex);
    for (int v = 0; v < kBins; ++v) total.bins[v] += mine[v];
    total.counted += mine_bytes;
  }
  if (error) std::rethrow_exception(error);
  return total;
}

std::unique_ptr<GpuStream> make_gpu_stream(Executor& executor, const Implementation& impl, ReadPlan plan) {
#if HISTOSTUDY_HAVE_CUDA
  return gpu::make_stream_count(executor, impl, plan);
#else
  (void)executor, (void)plan;
  throw Unavailable(std::string(impl.name) + ": this histostudy was built without CUDA");
#endif
}

// An eighth of the cores left to the thread that enqueues the copies and
// to the driver's: on 16 cores, 12 readers beat 16, and 14 beat 12 where the host
// read slowly (docs/decisions/count-plan.md).
int gpu_reading_threads(int requested) {
  return requested ? cpu::resolve_threads(requested) : std::max(1, cpu::resolve_threads(0) * 7 / 8);
}

Bins count_on_gpu(int fd, const std::string& name, std::optional<FileVersion> opened, GpuStream& stream, int threads,
                  std::size_t piece) {
  if (opened) {
    FileChunkReader reader(fd, name, *opened, stream.buffers(), piece, gpu_reading_threads(threads));
    return stream.count(reader);
  }
  ChunkReader reader(fd, name, stream.buffers());
  return stream.count(reader);
}

namespace {

// Standard input that is a regular file is counted from where its offset
// stands, as cat and wc do, and left at its end: from its start by preads
// (which move no offset, hence the seek after), else read as a stream by one
// thread, and refused as changed if its version at the end is not the one
// it had when opened.
bool at_start(int fd) { return ::lseek(fd, 0, SEEK_CUR) == 0; }

void leave_at_end(int fd, const Bins& bins, const std::string& name) {
  if (::lseek(fd, off_t(stats_of(bins).total), SEEK_SET) < 0) throw Error(os_error(name, "cannot seek"));
}

Bins count_open(int fd, const std::string& name, std::optional<FileVersion> version, const Implementation& impl,
                Executor& executor, int threads) {
  // Reading overlaps counting everywhere; an error anywhere in the stream is
  // thrown before any total is returned, so no partial histogram passes for
  // a whole one.
  if (impl.backend == Backend::cpu && impl.cpu_histogram) {
    LaunchPolicy requested;
    requested.threads = threads;
    const LaunchPolicy policy = executor.resolve(impl, requested, kCpuChunk, 1);
    if (version) return count_cpu_file(fd, name, *version, impl, policy);
    ChunkReader reader(fd, name, read_plan(impl));
    return count_cpu_stream(reader, impl, policy);
  }
  // A small file gets buffers no larger than it needs.
  const ReadPlan plan = version ? gpu_file_plan(version->size) : read_plan(impl);
  const auto stream = make_gpu_stream(executor, impl, plan);
  return count_on_gpu(fd, name, version, *stream, threads, plan.piece);
}

}  // namespace

Bins count_stream(const std::string& path, const Implementation& impl, Executor& executor, int threads) {
  if (!impl.counts) throw UsageError(std::string(impl.name) + " is a read floor: it counts nothing");
  Fd fd(open_for_reading(path));
  const bool standard_input = path == "-";
  const std::string name = standard_input ? "standard input" : path;
  const auto version = regular_file_version(fd.get());
  if (!standard_input || !version) return count_open(fd.get(), name, version, impl, executor, threads);
  if (!at_start(fd.get())) {
    const Bins rest = count_open(fd.get(), name, std::nullopt, impl, executor, threads);
    if (regular_file_version(fd.get()) != version) throw changed_while_counted(name);
    return rest;
  }
  const Bins bins = count_open(fd.get(), name, version, impl, executor, threads);
  leave_at_end(fd.get(), bins, name);
  return bins;
}

void generate_input(const InputSpec& spec, std::uint64_t size, const std::string& path, bool force) {
  if (!spec.synthetic())
    throw UsageError("'" + spec.name() + "' is a file; generate writes the study's own inputs");
  const bool to_stdout = path == "-";
  if (to_stdout && ::isatty(STDOUT_FILENO))
    throw UsageError("refusing to write binary bytes to a terminal: use -o FILE or redirect the output");
  const std::string shown = to_stdout ? "standard output" : path;
  auto write = [&](int fd) {
    std::vector<std::uint8_t> chunk(kGenerateChunk);
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
