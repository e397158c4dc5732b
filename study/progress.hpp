// Progress on long work for a person watching: while a ReadProgress lives,
// once `after` has passed, a line on standard error every `every`, the bytes
// this process has read so far (/proc/self/io's rchar: every read and pread
// of every thread, whatever reads them) and their rate, rewritten in place
// and erased when it is destroyed. Only where standard error is a terminal:
// a log or a pipe gets nothing, as from cat or wc.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace hs {

// Bytes this process has read (rchar of /proc/self/io); nothing where that
// cannot be read.
std::optional<std::uint64_t> bytes_read_by_process();

// "histostudy count: read 12.9 GB (6.3 GB/s)" for `what` "histostudy count: read":
// the line a ReadProgress shows.
std::string progress_line(const std::string& what, std::uint64_t bytes, double seconds);

class ReadProgress {
 public:
  explicit ReadProgress(std::string what, std::chrono::milliseconds after = std::chrono::seconds(2),
                        std::chrono::milliseconds every = std::chrono::seconds(1));
  ~ReadProgress();
  ReadProgress(const ReadProgress&) = delete;
  ReadProgress& operator=(const ReadProgress&) = delete;

 private:
  void show(std::chrono::milliseconds after, std::chrono::milliseconds every);

  std::string what_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false, shown_ = false;
  std::thread thread_;  // last: starts once everything above exists
};

}  // namespace hs
