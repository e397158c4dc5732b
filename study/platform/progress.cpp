#include "platform/progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <utility>

namespace hs {
namespace {

// Shorter counts show nothing; longer ones a fresh figure each second.
constexpr auto kAfter = std::chrono::seconds(2), kEvery = std::chrono::seconds(1);

// Bytes this process has read or written (rchar or wchar of /proc/self/io);
// nothing where that cannot be read.
std::optional<std::uint64_t> bytes_of_process(IoProgress::Bytes counted) {
  const std::string wanted = counted == IoProgress::Bytes::read ? "rchar:" : "wchar:";
  std::ifstream io("/proc/self/io");
  std::string key;
  std::uint64_t value = 0;
  while (io >> key >> value)
    if (key == wanted) return value;
  return std::nullopt;
}

std::string progress_line(const std::string& what, std::uint64_t bytes, double seconds) {
  char line[128];
  std::snprintf(line, sizeof line, "%s %.1f GB (%.1f GB/s)", what.c_str(), double(bytes) / 1e9,
                seconds > 0 ? double(bytes) / seconds / 1e9 : 0.0);
  return line;
}

}  // namespace

IoProgress::IoProgress(Bytes counted, std::string what) : counted_(counted), what_(std::move(what)) {
  if (::isatty(STDERR_FILENO) && bytes_of_process(counted_)) thread_ = std::thread([this] { show(); });
}

IoProgress::~IoProgress() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  thread_.join();
  if (shown_) std::fputs("\r\033[K", stderr);  // the line erased: what follows starts clean
}

void IoProgress::show() {
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t before = bytes_of_process(counted_).value_or(0);
  std::unique_lock<std::mutex> lock(mutex_);
  for (std::chrono::milliseconds wait = kAfter; !stop_.wait_for(lock, wait, [this] { return stopping_; }); wait = kEvery) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::uint64_t moved = bytes_of_process(counted_).value_or(before) - before;
    std::fprintf(stderr, "\r\033[K%s", progress_line(what_, moved, seconds).c_str());
    std::fflush(stderr);
    shown_ = true;
  }
}

StatusLine::StatusLine() : terminal_(::isatty(STDERR_FILENO)) {}

StatusLine::~StatusLine() {
  if (shown_) std::fputs("\r\033[K", stderr);
}

void StatusLine::say(const std::string& text) {
  if (!terminal_) return;
  std::fprintf(stderr, "\r\033[K%s", text.c_str());
  std::fflush(stderr);
  shown_ = true;
}

}  // namespace hs
