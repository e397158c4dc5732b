// The two commands for people's own data: count a file's bytes with any
// implementation, and write a study input's exact bytes.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "study/bins.hpp"
#include "study/executor.hpp"
#include "study/inputs.hpp"
#include "study/registry.hpp"

namespace hs {

// How a stream is read for counting: bytes per chunk, chunks in flight.
struct ReadPlan {
  std::size_t chunk;
  int buffers;
};

// CPU streams' chunks, and the pieces each counting thread takes at a time,
// of a stream's chunks or of a regular file (see count.cpp for why these sizes).
inline constexpr std::size_t kCpuChunk = 4u << 20;
inline constexpr std::size_t kCpuPiece = 512u << 10;

// The plan count_stream reads by for `impl`.
ReadPlan read_plan(const Implementation& impl);

// Reads a stream on its own thread into a ring of plan.buffers chunks, so
// that reading overlaps whatever the callers do with the chunks. Works on
// pipes and terminals as on files; does not own fd. next() and release()
// may be called from any threads.
class ChunkReader {
 public:
  struct Chunk {
    std::size_t seq = 0;                  // 0, 1, 2... in stream order
    std::span<const std::uint8_t> bytes;  // full-sized but for the last; empty at the end
  };
  ChunkReader(int fd, std::string name, ReadPlan plan);
  ~ChunkReader();
  ChunkReader(const ChunkReader&) = delete;
  ChunkReader& operator=(const ChunkReader&) = delete;
  // The stream's next chunk. Its bytes stay valid, and its buffer unread
  // into, until release(seq). Throws the reader's Error once the chunks read
  // before it are taken.
  Chunk next();
  void release(std::size_t seq);

 private:
  void read_all();

  int fd_;
  std::string name_;
  std::vector<std::vector<std::uint8_t>> buffers_;
  std::vector<std::size_t> filled_;  // bytes in each buffer
  std::vector<bool> free_;           // each buffer: released, may be read into
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t produced_ = 0, taken_ = 0;  // chunks read, chunks handed out
  bool ended_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: starts once everything above exists
};

// Streams `path` ("-" for standard input) through `impl` in chunks, so a
// file larger than memory works, reading overlapping counting: for a CPU
// implementation on a regular file, each thread preads kCpuPiece bytes at a
// time and counts them itself; on a pipe (or for a GPU implementation) a
// ChunkReader reads while the chunks before are counted. Throws Error for missing, unreadable or directory paths, and for a
// read error anywhere in the stream.
Bins count_stream(const std::string& path, const Implementation& impl, Executor& executor, int threads);

// Writes `size` bytes of a synthetic input to `path` ("-" for standard
// output), streaming, as write_output_file does (study/files.hpp): an
// existing regular file is replaced only with `force`.
void generate_input(const InputSpec& spec, std::uint64_t size, const std::string& path, bool force);

}  // namespace hs
