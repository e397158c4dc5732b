// Can several threads registering a file's mapping feed the copy engine at
// the pinned rate? One thread registered at 29.6-36 GB/s
// (../20261201T1610Z_gpu_count/zero_copy_probe.cu), too slow beside the
// 54-55 GB/s copies; but registering is pinning pages, not copying bytes,
// so a thread registers about ten times the bytes a second that a thread
// preads (count's 14 readers: 40-55 GB/s together). Does it scale?
//
// Entries, each timed once a round, the order rotating by one a round:
//   h2d_pinned, h2d_pinned_again  16 MiB copies from one cudaHostAlloc'd
//                 buffer into two device buffers, one stream: the floor and
//                 its A/A control (as count-bench's)
//   regT          a fresh read-only mapping of the file (MAP_SHARED, not
//                 populated), every 16 MiB region cudaHostRegister'ed
//                 (ReadOnly) by T threads; timed until all are registered
//                 (unregistering and munmap after, untimed)
//   zcT           the whole zero-copy pass, timed from mmap to munmap: T
//                 threads register regions (at most W = 8 registered and
//                 not yet unregistered), the main thread copies each as it
//                 is ready (any order: a histogram does not care) and
//                 unregisters each once its copy is done
// Prints every entry's median and p10..p90 GB/s and its samples.
//   nvcc -O2 -std=c++17 -arch=sm_90 -o register_probe register_probe.cu -lpthread
//   ./register_probe FILE [ROUNDS]
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#define CK(call)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

namespace {

constexpr std::size_t kChunk = std::size_t(16) << 20;
constexpr int kWindow = 8;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Setup {
  int fd;
  std::size_t size, chunks;
  unsigned char *dev, *pinned;
  cudaStream_t stream;
  std::vector<cudaEvent_t> copied;  // one per chunk
};

std::size_t len_of(const Setup& s, std::size_t k) { return std::min(kChunk, s.size - k * kChunk); }

unsigned char* map_file(const Setup& s) {
  void* m = mmap(nullptr, s.size, PROT_READ, MAP_SHARED, s.fd, 0);
  if (m == MAP_FAILED) std::perror("mmap"), std::exit(1);
  return static_cast<unsigned char*>(m);
}

double h2d_pinned(Setup& s) {
  const double t = now();
  for (std::size_t k = 0; k < s.chunks; ++k)
    CK(cudaMemcpyAsync(s.dev + (k % 2) * kChunk, s.pinned, len_of(s, k), cudaMemcpyHostToDevice, s.stream));
  CK(cudaStreamSynchronize(s.stream));
  return now() - t;
}

double reg(Setup& s, int threads) {
  unsigned char* map = map_file(s);
  std::atomic<std::size_t> next{0};
  const double t = now();
  std::vector<std::thread> team;
  for (int i = 0; i < threads; ++i)
    team.emplace_back([&] {
      for (std::size_t k; (k = next++) < s.chunks;)
        CK(cudaHostRegister(map + k * kChunk, len_of(s, k), cudaHostRegisterReadOnly));
    });
  for (auto& th : team) th.join();
  const double dt = now() - t;
  for (std::size_t k = 0; k < s.chunks; ++k) CK(cudaHostUnregister(map + k * kChunk));
  munmap(map, s.size);
  return dt;
}

double zero_copy(Setup& s, int threads) {
  const double t = now();
  unsigned char* map = map_file(s);
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::size_t> ready;
  std::size_t next = 0;
  int held = 0;  // registered, not yet unregistered
  std::vector<std::thread> team;
  for (int i = 0; i < threads; ++i)
    team.emplace_back([&] {
      for (;;) {
        std::size_t k;
        {
          std::unique_lock<std::mutex> l(m);
          cv.wait(l, [&] { return held < kWindow || next >= s.chunks; });
          if (next >= s.chunks) return;
          k = next++;
          ++held;
        }
        CK(cudaHostRegister(map + k * kChunk, len_of(s, k), cudaHostRegisterReadOnly));
        {
          std::lock_guard<std::mutex> l(m);
          ready.push_back(k);
        }
        cv.notify_all();
      }
    });
  std::deque<std::size_t> pending;  // copied or being copied, still registered
  auto retire = [&](bool wait) {
    const std::size_t k = pending.front();
    if (wait)
      CK(cudaEventSynchronize(s.copied[k]));
    else if (cudaEventQuery(s.copied[k]) != cudaSuccess)
      return false;
    CK(cudaHostUnregister(map + k * kChunk));
    pending.pop_front();
    {
      std::lock_guard<std::mutex> l(m);
      --held;
    }
    cv.notify_all();
    return true;
  };
  for (std::size_t copied = 0; copied < s.chunks;) {
    while (!pending.empty() && retire(false)) {
    }
    std::size_t k = SIZE_MAX;
    {
      std::unique_lock<std::mutex> l(m);
      if (ready.empty()) cv.wait_for(l, std::chrono::microseconds(pending.empty() ? 1000 : 20));
      if (!ready.empty()) k = ready.front(), ready.pop_front();
    }
    if (k == SIZE_MAX) continue;
    CK(cudaMemcpyAsync(s.dev + (copied % 2) * kChunk, map + k * kChunk, len_of(s, k), cudaMemcpyHostToDevice,
                       s.stream));
    CK(cudaEventRecord(s.copied[k], s.stream));
    pending.push_back(k);
    ++copied;
  }
  while (!pending.empty()) retire(true);
  for (auto& th : team) th.join();
  munmap(map, s.size);
  return now() - t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) return std::fprintf(stderr, "usage: register_probe FILE [ROUNDS]\n"), 2;
  const int rounds = argc == 3 ? std::atoi(argv[2]) : 9;
  Setup s{};
  s.fd = open(argv[1], O_RDONLY);
  struct stat st{};
  if (s.fd < 0 || fstat(s.fd, &st) != 0) return std::perror(argv[1]), 1;
  s.size = std::size_t(st.st_size);
  s.chunks = (s.size + kChunk - 1) / kChunk;
  CK(cudaMalloc(&s.dev, 2 * kChunk));
  CK(cudaHostAlloc(&s.pinned, kChunk, cudaHostAllocDefault));
  CK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
  s.copied.resize(s.chunks);
  for (auto& e : s.copied) CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));

  struct Entry {
    std::string name;
    std::function<double()> pass;
    std::vector<double> gbps;
  };
  std::vector<Entry> entries{{"h2d_pinned", [&] { return h2d_pinned(s); }, {}},
                             {"h2d_pinned_again", [&] { return h2d_pinned(s); }, {}}};
  for (int t : {1, 2, 4, 8}) entries.push_back({"reg" + std::to_string(t), [&s, t] { return reg(s, t); }, {}});
  for (int t : {1, 2, 4, 8}) entries.push_back({"zc" + std::to_string(t), [&s, t] { return zero_copy(s, t); }, {}});
  for (auto& e : entries) e.pass();  // warm every path once
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < entries.size(); ++i) {
      Entry& e = entries[(i + std::size_t(r)) % entries.size()];
      e.gbps.push_back(double(s.size) / e.pass() / 1e9);
    }
  std::printf("file %s, %zu bytes, %d rounds, %d-thread host\n", argv[1], s.size, rounds,
              int(std::thread::hardware_concurrency()));
  for (auto& e : entries) {
    std::vector<double> g = e.gbps;
    std::sort(g.begin(), g.end());
    auto at = [&](double q) { return g[std::size_t(q * double(g.size() - 1) + 0.5)]; };
    std::printf("%-17s median %6.1f GB/s  p10 %6.1f  p90 %6.1f  samples", e.name.c_str(), at(0.5), at(0.1), at(0.9));
    for (double x : e.gbps) std::printf(" %.1f", x);
    std::printf("\n");
  }
  return 0;
}
