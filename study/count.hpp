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

// CPU chunks (see read_plan in count.cpp for why this size).
inline constexpr std::size_t kCpuChunk = 4u << 20;

// The plan count_stream reads by for `impl`.
ReadPlan read_plan(const Implementation& impl);

// Reads a stream on its own thread into a ring of plan.buffers chunks, so
// that reading overlaps whatever the caller does with the chunks. Works on
// pipes and terminals as on files; does not own fd.
class ChunkReader {
 public:
  ChunkReader(int fd, std::string name, ReadPlan plan);
  ~ChunkReader();
  ChunkReader(const ChunkReader&) = delete;
  ChunkReader& operator=(const ChunkReader&) = delete;
  // The stream's next chunk, in order (full-sized but for the last); empty
  // at the end. Valid until the next call. Throws the reader's Error once
  // the chunks read before it are taken.
  std::span<const std::uint8_t> next();

 private:
  void read_all();

  int fd_;
  std::string name_;
  std::vector<std::vector<std::uint8_t>> buffers_;
  std::vector<std::size_t> filled_;  // bytes in each buffer
  std::mutex mutex_;
  std::condition_variable changed_;
  // Chunks by sequence number: read, handed out, and given back.
  std::size_t produced_ = 0, taken_ = 0, released_ = 0;
  bool ended_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: starts once everything above exists
};

// Streams `path` ("-" for standard input) through `impl` in chunks, so a
// file larger than memory works, reading the next chunks while counting
// one. Throws Error for missing, unreadable or directory paths, and for a
// read error anywhere in the stream.
Bins count_stream(const std::string& path, const Implementation& impl, Executor& executor, int threads);

// Writes `size` bytes of a synthetic input to `path` ("-" for standard
// output), streaming, as write_output_file does (study/files.hpp): an
// existing regular file is replaced only with `force`.
void generate_input(const InputSpec& spec, std::uint64_t size, const std::string& path, bool force);

}  // namespace hs
