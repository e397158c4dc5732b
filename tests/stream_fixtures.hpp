// What the count tests of both suites (test_cpu.cpp, test_gpu.cpp) feed
// their readers: a temporary file of given bytes, and a pipe a thread fills.
#pragma once
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <thread>

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
