// What the count tests of both suites (test_cpu.cpp, test_gpu.cpp) feed
// their readers: a temporary file of given bytes and its version as opened,
// a pipe a thread fills, and a pipe whose writer stalls.
#pragma once
#include <doctest/doctest.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <span>
#include <string>
#include <thread>
#include <utility>

#include "platform/files.hpp"

// A file of `bytes` in the temporary folder, removed when it goes.
struct TempFile {
  std::filesystem::path path;
  explicit TempFile(std::span<const std::uint8_t> bytes, const std::string& tag = "file")
      : path(std::filesystem::temp_directory_path() /
             ("histostudy-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(bytes.size()))) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    REQUIRE(out);
  }
  ~TempFile() { std::filesystem::remove(path); }
};

// A regular file's version, as its opener takes it.
inline hs::FileVersion version_of(const hs::Fd& fd) {
  const auto version = hs::regular_file_version(fd.get());
  REQUIRE(version);
  return *version;
}

// A pipe whose write end a thread fills with `bytes`, `piece` bytes a write,
// then closes; read it from read_end(). Going, it waits for the writer, then
// closes the read end: a test reads the pipe to its end first.
class FedPipe {
 public:
  FedPipe(std::span<const std::uint8_t> bytes, std::size_t piece) {
    REQUIRE(::pipe(fds_) == 0);
    writer_ = std::thread([this, bytes, piece] {
      for (std::size_t at = 0; at < bytes.size();) {
        const ssize_t w = ::write(fds_[1], bytes.data() + at, std::min(bytes.size() - at, piece));
        if (w <= 0) break;
        at += std::size_t(w);
      }
      ::close(fds_[1]);
    });
  }
  FedPipe(const FedPipe&) = delete;
  FedPipe& operator=(const FedPipe&) = delete;
  ~FedPipe() {
    writer_.join();
    ::close(fds_[0]);
  }
  int read_end() const { return fds_[0]; }

 private:
  int fds_[2] = {-1, -1};
  std::thread writer_;
};

// A pipe holding `bytes` (no more than a pipe holds) whose write end stays
// open and silent until close_writer() or its end, as a writer that stalls
// would: a read past those bytes waits for it.
class IdlePipe {
 public:
  explicit IdlePipe(std::span<const std::uint8_t> bytes) {
    REQUIRE(::pipe(fds_) == 0);
    REQUIRE(::write(fds_[1], bytes.data(), bytes.size()) == ssize_t(bytes.size()));
  }
  IdlePipe(const IdlePipe&) = delete;
  IdlePipe& operator=(const IdlePipe&) = delete;
  ~IdlePipe() {
    close_writer();
    ::close(fds_[0]);
  }
  int read_end() const { return fds_[0]; }
  void close_writer() {
    if (fds_[1] >= 0) ::close(std::exchange(fds_[1], -1));
  }
  // Whether a reader took every byte written within 5 s: its next read
  // waits for the writer.
  bool drained() const {
    for (int ms = 0; ms < 5000; ++ms) {
      int queued = 0;
      if (::ioctl(fds_[0], FIONREAD, &queued) == 0 && queued == 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
  }

  // Whether `body` (which must not throw) returns within 5 s, run on a
  // thread. If it does not, the writer is closed, which ends any read of the
  // pipe, so that a reader that waits on it fails the test rather than
  // hanging the suite.
  template <typename Body>
  bool returns_in_time(Body body) {
    std::promise<void> returned;
    auto done = returned.get_future();
    std::thread runner([&] {
      body();
      returned.set_value();
    });
    const bool in_time = done.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
    if (!in_time) close_writer();
    runner.join();
    return in_time;
  }

 private:
  int fds_[2] = {-1, -1};
};
