// The two commands for people's own data: count a file's bytes with any
// implementation, and write a study input's exact bytes.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "driver/bins.hpp"
#include "driver/executor.hpp"
#include "platform/files.hpp"
#include "driver/inputs.hpp"
#include "driver/registry.hpp"

namespace hs {

// How a stream is read for counting: bytes per chunk, chunks in flight, and
// for a regular file the bytes each reading thread preads at a time (a
// divisor of chunk; 0 in a plan for pipes).
struct ReadPlan {
  std::size_t chunk;
  int buffers;
  std::size_t piece = 0;
};

// CPU streams' chunks, and the pieces each counting thread takes at a time,
// of a stream's chunks or of a regular file (why these sizes: docs/decisions/count-plan.md).
inline constexpr std::size_t kCpuChunk = 4u << 20;
inline constexpr std::size_t kCpuPiece = 512u << 10;
// GPU implementations: chunks copied to the GPU and counted there, a ring of
// pinned host buffers they are read into, and the pieces each reading thread
// preads at a time (why these sizes: docs/decisions/count-plan.md).
inline constexpr std::size_t kGpuChunk = 4u << 20;
inline constexpr int kGpuBuffers = 8;
inline constexpr std::size_t kGpuPiece = 1u << 20;

// The plan count_stream reads a stream by for `impl`.
ReadPlan read_plan(const Implementation& impl);
// A GPU implementation's plan for a regular file of `size` bytes: `wanted`
// (its chunk a multiple of its piece), the chunk no larger than the whole
// pieces the file needs.
ReadPlan gpu_file_plan(std::uint64_t size, ReadPlan wanted = {kGpuChunk, kGpuBuffers, kGpuPiece});

// A stream's chunks, in order, each in one buffer of a ring: a chunk's bytes
// stay valid, and its buffer unread into, until release(seq). A caller holds
// fewer chunks than the ring has buffers when it calls next() (else the
// readers cannot read the next chunk). next() and release() may be called
// from any threads.
class ChunkSource {
 public:
  struct Chunk {
    std::size_t seq = 0;                  // 0, 1, 2... in stream order
    std::span<const std::uint8_t> bytes;  // full-sized but for the last; empty at the end
  };
  virtual ~ChunkSource() = default;
  // The stream's next chunk; empty at the end (and after). Throws the
  // readers' Error.
  virtual Chunk next() = 0;
  virtual void release(std::size_t seq) = 0;
};

// Reads a stream on its own thread into a ring of chunks, so that reading
// overlaps whatever the callers do with the chunks. Works on pipes and
// terminals as on files; does not own fd. next() throws the reader's Error
// once the chunks read before it are taken. Its thread waits for the stream
// in poll(2), beside an eventfd its destructor signals, so that destroying
// it (a count failed) never waits for a pipe's writer. The standard
// descriptors must be open or held (hold_closed_standard_descriptors, as
// main does): else the eventfd may take one of their numbers.
class ChunkReader final : public ChunkSource {
 public:
  // Into plan.buffers buffers of its own.
  ChunkReader(int fd, std::string name, ReadPlan plan);
  // Into the caller's buffers (a GPU stream's pinned ones), which outlive it.
  ChunkReader(int fd, std::string name, std::vector<std::span<std::uint8_t>> buffers);
  ~ChunkReader() override;
  ChunkReader(const ChunkReader&) = delete;
  ChunkReader& operator=(const ChunkReader&) = delete;
  Chunk next() override;
  void release(std::size_t seq) override;

 private:
  void read_all();

  int fd_;
  std::string name_;
  std::vector<std::vector<std::uint8_t>> owned_;  // empty when the buffers are the caller's
  std::vector<std::span<std::uint8_t>> buffers_;
  std::vector<std::size_t> filled_;  // bytes in each buffer
  std::vector<bool> free_;           // each buffer: released, may be read into
  Fd wake_;                          // an eventfd, readable once the reader is to stop
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t produced_ = 0, taken_ = 0;  // chunks read, chunks handed out
  bool ended_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: starts once everything above exists
};

// What count's CPU team counted (count_in_pieces): the bins, where the first
// short piece ended (UINT64_MAX: none did) and the bytes counted.
struct PieceCount {
  Bins bins{};
  std::uint64_t end = UINT64_MAX;
  std::uint64_t counted = 0;
};
// The piece of kCpuPiece bytes (fewer at the end) at `offset`: read into
// `buffer` (the thread's own) or taken from elsewhere.
using PieceReader = std::function<std::span<const std::uint8_t>(std::span<std::uint8_t> buffer, std::uint64_t offset)>;
// count's CPU team: policy.threads threads each taking the next kCpuPiece
// bytes from offset 0 through `read` and counting them alone with `impl`,
// until a short piece; the first error any thread meets is rethrown once
// all have stopped. A regular file (count_stream) or bytes in memory
// (count-bench's counting alone).
PieceCount count_in_pieces(const PieceReader& read, const Implementation& impl, const LaunchPolicy& policy);

// Reads a regular file into the caller's ring of buffers (all of one size, a
// multiple of `piece`; at least two) with `threads` threads, each preading
// the file's next `piece` bytes at a time into the chunk they belong to, so
// that several cores read at once and no thread waits for a chunk's other
// pieces. The file ends at the first short piece: no piece is taken after
// it. next() throws a read error at once, and at the end throws Error if the
// pieces read do not tile the file up to that end, or its version is not
// `opened`, the one its caller took when it opened fd: it changed while
// read (grew, shrank or was written), as count's CPU path says
// (count_cpu_file, count.cpp).
// Does not own fd; the buffers outlive it.
class FileChunkReader final : public ChunkSource {
 public:
  FileChunkReader(int fd, std::string name, FileVersion opened, std::vector<std::span<std::uint8_t>> buffers,
                  std::size_t piece, int threads);
  ~FileChunkReader() override;
  FileChunkReader(const FileChunkReader&) = delete;
  FileChunkReader& operator=(const FileChunkReader&) = delete;
  Chunk next() override;
  void release(std::size_t seq) override;

 private:
  void read_pieces();
  bool next_piece_free() const;
  bool complete(std::size_t slot, std::size_t seq) const;
  void stop_readers() noexcept;

  int fd_;
  std::string name_;
  std::vector<std::span<std::uint8_t>> buffers_;
  std::size_t piece_, pieces_per_chunk_;
  FileVersion opened_;  // the file's version when it was opened
  std::mutex mutex_;
  std::condition_variable freed_;     // readers wait here: a buffer released, or the end
  std::condition_variable progress_;  // next() waits here: a chunk complete, an error, a reader done
  std::vector<std::size_t> slot_seq_;  // the chunk each buffer holds or is read into
  std::vector<std::size_t> taken_in_, done_in_, filled_;  // each buffer: pieces taken, pieces read, bytes
  std::uint64_t next_piece_ = 0;  // pieces taken from the file's start
  std::uint64_t end_ = UINT64_MAX;  // where the first short piece ended: the file's end as read
  std::uint64_t read_ = 0;  // bytes read in all
  bool ended_ = false, stop_ = false, finished_ = false;
  int running_ = 0;  // reading threads not yet done
  std::size_t taken_ = 0;  // chunks handed out
  std::exception_ptr error_;
  std::vector<std::thread> threads_;  // last: start once everything above exists
};

// What count needs of a GPU for a GPU implementation (cuda/stream_count.cpp):
// chunks read into its pinned host buffers are copied to the GPU on one
// stream and counted on another while the next ones are read.
class GpuStream {
 public:
  virtual ~GpuStream() = default;
  // The pinned ring the chunks are read into.
  virtual std::vector<std::span<std::uint8_t>> buffers() = 0;
  // The histogram of every chunk of `source` (read into buffers()).
  virtual Bins count(ChunkSource& source) = 0;
  // Copies `bytes` host to device in the plan's chunks from buffers(),
  // nothing read or counted: count's floor.
  virtual void copy(std::uint64_t bytes) = 0;
  // What every chunk is counted with (64-bit bins: any stream's total fits).
  virtual const LaunchPolicy& policy() const = 0;
};

// The GPU stream of `impl` on `executor` (a GPU executor), buffers as `plan`
// says. Throws Unavailable in a build without CUDA, UsageError for an
// executor that is not a GPU one.
std::unique_ptr<GpuStream> make_gpu_stream(Executor& executor, const Implementation& impl, ReadPlan plan);

// The threads a GPU stream reads a regular file with: `requested`, or for 0
// seven eighths of OpenMP's default (one per core), at least one: the rest
// leave the thread that enqueues the copies, and the driver's, a core.
int gpu_reading_threads(int requested);

// Counts fd through `stream`: a regular file, whose version when it was
// opened is `opened` (regular_file_version just after the open), read by
// `threads` threads (0: gpu_reading_threads' default) preading `piece` bytes
// at a time (a divisor of the stream's chunk); a stream (`opened` empty) by
// a ChunkReader; either into the stream's buffers.
Bins count_on_gpu(int fd, const std::string& name, std::optional<FileVersion> opened, GpuStream& stream, int threads,
                  std::size_t piece = kGpuPiece);

// Streams `path` ("-" for standard input) through `impl` in chunks, so a
// file larger than memory works, reading overlapping counting: for a CPU
// implementation on a regular file, each thread preads kCpuPiece bytes at a
// time and counts them itself; on a pipe a ChunkReader reads while the chunks
// before are counted; a GPU implementation counts through a GpuStream
// (count_on_gpu). Standard input that is a regular file is counted from its
// offset, as cat and wc count it, and left at its end. Throws Error for
// missing, unreadable or directory paths,
// for a read error anywhere in the stream, and for a regular file that
// changed while counted.
Bins count_stream(const std::string& path, const Implementation& impl, Executor& executor, int threads);

// Writes `size` bytes of a synthetic input to `path` ("-" for standard
// output), streaming, as write_output_file does (study/platform/files.hpp): an
// existing regular file is replaced only with `force`.
void generate_input(const InputSpec& spec, std::uint64_t size, const std::string& path, bool force);

}  // namespace hs
