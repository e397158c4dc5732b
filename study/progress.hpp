// Progress on long work for a person watching: while a ReadProgress lives,
// once 2 s have passed, a line on standard error every second, the bytes
// this process has read so far (/proc/self/io's rchar: every read and pread
// of every thread, whatever reads them) and their rate, rewritten in place
// and erased when it is destroyed. Only where standard error is a terminal:
// a log or a pipe gets nothing, as from cat or wc.
#pragma once
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace hs {

class ReadProgress {
 public:
  // `what` starts the line: "histostudy count: read" gives
  // "histostudy count: read 12.9 GB (6.3 GB/s)".
  explicit ReadProgress(std::string what);
  ~ReadProgress();
  ReadProgress(const ReadProgress&) = delete;
  ReadProgress& operator=(const ReadProgress&) = delete;

 private:
  void show();

  std::string what_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false, shown_ = false;
  std::thread thread_;  // last: starts once everything above exists
};

}  // namespace hs
