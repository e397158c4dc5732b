// Progress on long work for a person watching: while an IoProgress lives,
// once 2 s have passed, a line on standard error every second, the bytes
// this process has read or written so far (/proc/self/io's rchar or wchar:
// every read or write of every thread, whatever makes them) and their rate,
// rewritten in place and erased when it is destroyed. Only where standard
// error is a terminal: a log or a pipe gets nothing, as from cat or wc.
#pragma once
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace hs {

class IoProgress {
 public:
  enum class Bytes { read, written };
  // `what` starts the line: "histostudy count: read" gives
  // "histostudy count: read 12.9 GB (6.3 GB/s)".
  IoProgress(Bytes counted, std::string what);
  ~IoProgress();
  IoProgress(const IoProgress&) = delete;
  IoProgress& operator=(const IoProgress&) = delete;

 private:
  void show();

  Bytes counted_;
  std::string what_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false, shown_ = false;
  std::thread thread_;  // last: starts once everything above exists
};

// What is under way, for a person watching: one line on standard error,
// rewritten by each say() and erased when the StatusLine is destroyed. Only
// where standard error is a terminal, like IoProgress; no thread: a line is
// written only when said, never while a benchmark's passes are timed.
class StatusLine {
 public:
  StatusLine();
  ~StatusLine();
  StatusLine(const StatusLine&) = delete;
  StatusLine& operator=(const StatusLine&) = delete;
  void say(const std::string& text);

 private:
  bool terminal_, shown_ = false;
};

}  // namespace hs
