// Can a zero-copy producer add to count's readers where they are slow? On a
// host that read slowly, GPU count's readers (pread into a pinned ring)
// moved 33-47 GB/s against 54-55 GB/s of pinned copies, and count kept pace
// with them (data/explorations/20261201T2136Z_gpu_count_copy/). A thread that registers
// the file's mapping (cudaHostRegister, read-only) and lets the copy engine
// read the page cache copies no byte on the CPU: 7-10.5 GB/s alone there.
// Beside the readers, taking chunks from the same counter, does it add its
// rate, or take it from them?
//
// Entries, each timed once a round, the order rotating by one a round:
//   h2d_pinned, h2d_pinned_again  16 MiB copies from one cudaHostAlloc'd
//                 buffer into two device buffers: the floor and its A/A pair
//   ringT         T reader threads pread 1 MiB pieces of 16 MiB chunks into
//                 a ring of four pinned 16 MiB buffers; the main thread
//                 copies each full chunk to the GPU and frees its buffer once
//                 copied (count's plan without the kernel: count kept
//                 98-102% of this)
//   ringT_again   its A/A pair
//   ringT+zcZ     the same, and Z threads each taking chunks from the same
//                 counter: register the chunk of a fresh read-only mapping,
//                 copy it on their own stream, wait, unregister
// T = 12 (count's readers on 16 cores) and 6 (readers made slow on purpose,
// as a host that reads slowly would make them); Z = 1, 2. Every pass copies
// every chunk exactly once (counted). Also printed for each entry: the
// median share of chunks the zero-copy threads took, and the hypervisor's
// steal during the entry's passes (/proc/stat).
//
// With `carryover` (the second question, asked after the first call found
// ring12 10-25% slower than ring12_again, which always ran right after it):
// what does a ring12 pass owe to the pass before it? Each round, in rotating
// order, one conditioner then one timed ring12 pass: after ring12 itself,
// after two h2d_pinned passes (as ring12 follows them above), after 40 ms of
// sleep, after 12 threads spinning 40 ms on registers (busy cores, no
// memory), after 12 threads memcpy'ing anonymous memory for 40 ms (busy
// cores and memory, no file). With OTHER (a third call, to tell which state
// carries over), also: after ring12 over OTHER, another file of FILE's size
// (the ring's buffers warm, FILE's pages not); after 12 threads memset the
// ring's buffers (only the ring warm); after 12 threads pread one byte of
// each 4 KiB page of FILE (its page-cache entries warm, nothing copied);
// after ring12 then 10 ms asleep.
// With `prime` (a fourth call: the warm state is the ring's, so can a pass
// make it for itself?): every timed pass after 40 ms asleep (cold), ring12
// alone, and ring12 whose timed pass begins with 12 threads writing the
// ring's buffers whole (memset) or one byte of each 4 KiB page; beside them
// ring12 right after ring12 (warm), untimed nothing before.
// With `dma` (a fifth call: priming the ring from the CPU did not help, so
// is it the copy engine's side?): no file read at all. Each timed pass
// copies 1 GiB to the GPU in 16 MiB copies cycling through a pinned source
// (4 MiB copies for the 16 MiB ring of 4 MiB buffers), after 40 ms asleep
// (cold) or right after the same pass (warm): the floor's one 16 MiB
// buffer; the ring's 4 x 16 MiB; 4 x 4 MiB; 16 x 16 MiB (256 MiB); and 4 x
// 16 MiB of anonymous memory in transparent huge pages, cudaHostRegister'ed.
//   nvcc -O2 -std=c++17 -arch=sm_90 -o hybrid_probe hybrid_probe.cu -lpthread
//   ./hybrid_probe FILE [ROUNDS] [carryover [OTHER] | prime | dma]
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
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
constexpr std::size_t kPiece = std::size_t(1) << 20;
constexpr int kSlots = 4;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// All CPUs' steal, in seconds, from /proc/stat's first line.
double steal_s() {
  std::ifstream f("/proc/stat");
  std::string cpu;
  long long v[8] = {};
  f >> cpu;
  for (auto& x : v) f >> x;
  return double(v[7]) / double(sysconf(_SC_CLK_TCK));
}

struct Setup {
  int fd;
  std::size_t size, chunks;
  unsigned char* pinned_one;  // the floor's source
  unsigned char* ring;        // kSlots x kChunk, pinned
  unsigned char* dev;         // 2 x kChunk for the ring, 2 x kChunk per zero-copy thread after
  cudaStream_t stream;
};

std::size_t len_of(const Setup& s, std::size_t k) { return std::min(kChunk, s.size - k * kChunk); }

double h2d_pinned(Setup& s) {
  const double t = now();
  for (std::size_t k = 0; k < s.chunks; ++k)
    CK(cudaMemcpyAsync(s.dev + (k % 2) * kChunk, s.pinned_one, len_of(s, k), cudaMemcpyHostToDevice, s.stream));
  CK(cudaStreamSynchronize(s.stream));
  return now() - t;
}

struct Slot {
  std::size_t chunk = SIZE_MAX;  // SIZE_MAX: free
  std::size_t pieces = 0;
  std::atomic<std::size_t> done{0};
  bool copying = false;
  cudaEvent_t copied{};
};

struct Pass {
  double seconds;
  double zc_share;  // of the chunks
};

Pass ring_pass(Setup& s, int readers, int zc_threads) {
  const double t = now();
  std::atomic<std::size_t> next{0}, copied_chunks{0}, zc_chunks{0};
  std::vector<std::thread> zc;
  unsigned char* map = nullptr;
  if (zc_threads) {
    void* m = mmap(nullptr, s.size, PROT_READ, MAP_SHARED, s.fd, 0);
    if (m == MAP_FAILED) std::perror("mmap"), std::exit(1);
    map = static_cast<unsigned char*>(m);
  }
  for (int z = 0; z < zc_threads; ++z)
    zc.emplace_back([&, z] {
      cudaStream_t st;
      CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
      unsigned char* dev = s.dev + (2 + 2 * std::size_t(z)) * kChunk;
      for (std::size_t k, i = 0; (k = next++) < s.chunks; ++i) {
        CK(cudaHostRegister(map + k * kChunk, len_of(s, k), cudaHostRegisterReadOnly));
        CK(cudaMemcpyAsync(dev + (i % 2) * kChunk, map + k * kChunk, len_of(s, k), cudaMemcpyHostToDevice, st));
        CK(cudaStreamSynchronize(st));
        CK(cudaHostUnregister(map + k * kChunk));
        ++zc_chunks;
        ++copied_chunks;
      }
      CK(cudaStreamDestroy(st));
    });

  Slot slots[kSlots];
  for (auto& sl : slots) CK(cudaEventCreateWithFlags(&sl.copied, cudaEventDisableTiming));
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::pair<int, std::size_t>> work;  // (slot, piece)
  bool finished = false;
  std::vector<std::thread> team;
  for (int r = 0; r < readers; ++r)
    team.emplace_back([&] {
      for (;;) {
        std::pair<int, std::size_t> w;
        {
          std::unique_lock<std::mutex> l(m);
          cv.wait(l, [&] { return finished || !work.empty(); });
          if (work.empty()) return;
          w = work.front();
          work.pop_front();
        }
        Slot& sl = slots[w.first];
        const std::size_t off = sl.chunk * kChunk + w.second * kPiece;
        const std::size_t n = std::min(kPiece, s.size - off);
        unsigned char* dst = s.ring + std::size_t(w.first) * kChunk + w.second * kPiece;
        for (std::size_t got = 0; got < n;) {
          const ssize_t r = pread(s.fd, dst + got, n - got, off_t(off + got));
          if (r <= 0) std::perror("pread"), std::exit(1);
          got += std::size_t(r);
        }
        sl.done.fetch_add(1, std::memory_order_release);
      }
    });
  bool claiming = true;
  std::size_t ring_copies = 0;
  for (;;) {
    bool busy = false;
    for (int i = 0; i < kSlots; ++i) {
      Slot& sl = slots[i];
      if (sl.chunk == SIZE_MAX) {
        if (!claiming) continue;
        const std::size_t k = next++;
        if (k >= s.chunks) {
          claiming = false;
          continue;
        }
        sl.chunk = k;
        sl.pieces = (len_of(s, k) + kPiece - 1) / kPiece;
        sl.done = 0;
        {
          std::lock_guard<std::mutex> l(m);
          for (std::size_t p = 0; p < sl.pieces; ++p) work.emplace_back(i, p);
        }
        cv.notify_all();
        busy = true;
      } else if (!sl.copying) {
        busy = true;
        if (sl.done.load(std::memory_order_acquire) == sl.pieces) {
          CK(cudaMemcpyAsync(s.dev + (ring_copies++ % 2) * kChunk, s.ring + std::size_t(i) * kChunk,
                             len_of(s, sl.chunk), cudaMemcpyHostToDevice, s.stream));
          CK(cudaEventRecord(sl.copied, s.stream));
          sl.copying = true;
        }
      } else {
        busy = true;
        if (cudaEventQuery(sl.copied) == cudaSuccess) {
          sl.chunk = SIZE_MAX;
          sl.copying = false;
          ++copied_chunks;
        }
      }
    }
    if (!busy) break;
    std::this_thread::yield();
  }
  {
    std::lock_guard<std::mutex> l(m);
    finished = true;
  }
  cv.notify_all();
  for (auto& th : team) th.join();
  for (auto& th : zc) th.join();
  CK(cudaStreamSynchronize(s.stream));
  if (map) munmap(map, s.size);
  const double dt = now() - t;
  for (auto& sl : slots) CK(cudaEventDestroy(sl.copied));
  if (copied_chunks != s.chunks)
    std::fprintf(stderr, "copied %zu chunks of %zu\n", copied_chunks.load(), s.chunks), std::exit(1);
  return {dt, double(zc_chunks) / double(s.chunks)};
}

// `threads` threads doing `work` until `seconds` have passed.
void for_a_while(int threads, double seconds, const std::function<void(int)>& work) {
  const double until = now() + seconds;
  std::vector<std::thread> team;
  for (int i = 0; i < threads; ++i)
    team.emplace_back([&, i] {
      while (now() < until) work(i);
    });
  for (auto& th : team) th.join();
}

// `threads` threads writing the ring's buffers: every byte, or one of each 4 KiB page.
void write_ring(Setup& s, int threads, bool whole) {
  std::vector<std::thread> team;
  const std::size_t part = kSlots * kChunk / std::size_t(threads) / 4096 * 4096;
  for (int i = 0; i < threads; ++i)
    team.emplace_back([&, i] {
      unsigned char* from = s.ring + std::size_t(i) * part;
      const std::size_t n = i == threads - 1 ? kSlots * kChunk - std::size_t(i) * part : part;
      if (whole)
        std::memset(from, i, n);
      else
        for (std::size_t k = 0; k < n; k += 4096) from[k] = static_cast<unsigned char>(i);
    });
  for (auto& th : team) th.join();
}

// 1 GiB to the GPU in copies of `copy` bytes, cycling through `source`'s `bytes`.
double h2d_from(Setup& s, const unsigned char* source, std::size_t bytes, std::size_t copy) {
  const std::size_t total = std::size_t(1) << 30;
  const double t = now();
  for (std::size_t done = 0, k = 0; done < total; done += copy, ++k)
    CK(cudaMemcpyAsync(s.dev + (k % 2) * kChunk, source + (k * copy) % bytes, copy, cudaMemcpyHostToDevice, s.stream));
  CK(cudaStreamSynchronize(s.stream));
  return double(total) / (now() - t) / 1e9;
}

int dma(Setup& s, int rounds) {
  constexpr std::size_t kMiB = std::size_t(1) << 20;
  unsigned char* big = nullptr;
  CK(cudaHostAlloc(&big, 256 * kMiB, cudaHostAllocDefault));
  const std::size_t thp_bytes = 64 * kMiB;
  void* thp = mmap(nullptr, thp_bytes + 2 * kMiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (thp == MAP_FAILED) std::perror("mmap"), std::exit(1);
  auto* thp_at = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(thp) + 2 * kMiB - 1) & ~(2 * kMiB - 1));
  if (madvise(thp_at, thp_bytes, MADV_HUGEPAGE) != 0) std::perror("madvise");
  std::memset(thp_at, 1, thp_bytes);
  CK(cudaHostRegister(thp_at, thp_bytes, cudaHostRegisterDefault));
  std::printf("AnonHugePages after the THP buffer:");
  std::fflush(stdout);
  std::system("grep AnonHugePages /proc/self/status /proc/meminfo | tr '\\n' ' '; cat /sys/kernel/mm/transparent_hugepage/enabled");
  struct Source {
    std::string name;
    const unsigned char* at;
    std::size_t bytes, copy;
  };
  const std::vector<Source> sources{{"one 16 MiB (the floor's)", s.pinned_one, 16 * kMiB, 16 * kMiB},
                                    {"4 x 16 MiB (count's ring)", s.ring, 64 * kMiB, 16 * kMiB},
                                    {"4 x 4 MiB", s.ring, 16 * kMiB, 4 * kMiB},
                                    {"16 x 16 MiB", big, 256 * kMiB, 16 * kMiB},
                                    {"4 x 16 MiB THP, registered", thp_at, thp_bytes, 16 * kMiB}};
  struct Way {
    std::string name;
    std::function<void()> before;
    std::function<double()> timed;
    std::vector<double> gbps;
  };
  std::vector<Way> ways;
  for (const auto& src : sources) {
    auto pass = [&s, src] { return h2d_from(s, src.at, src.bytes, src.copy); };
    ways.push_back({"cold: " + src.name, [] { std::this_thread::sleep_for(std::chrono::milliseconds(40)); }, pass});
    ways.push_back({"warm: " + src.name, [pass] { pass(); }, pass});
  }
  for (auto& w : ways) w.timed();
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < ways.size(); ++i) {
      Way& w = ways[(i + std::size_t(r)) % ways.size()];
      w.before();
      w.gbps.push_back(w.timed());
    }
  std::printf("%d rounds: GB/s of 1 GiB copied to the GPU\n", rounds);
  for (auto& w : ways) {
    std::vector<double> g = w.gbps;
    std::sort(g.begin(), g.end());
    auto at = [&](double q) { return g[std::size_t(q * double(g.size() - 1) + 0.5)]; };
    std::printf("%-34s median %6.1f  p10 %6.1f  p90 %6.1f  samples", w.name.c_str(), at(0.5), at(0.1), at(0.9));
    for (double x : w.gbps) std::printf(" %.1f", x);
    std::printf("\n");
  }
  return 0;
}

int prime(Setup& s, int rounds) {
  constexpr int kThreads = 12;
  auto asleep = [] { std::this_thread::sleep_for(std::chrono::milliseconds(40)); };
  struct Way {
    std::string name;
    std::function<void()> before;
    std::function<void()> timed;
    std::vector<double> gbps;
  };
  std::vector<Way> ways{
      {"cold: ring12", asleep, [&] { ring_pass(s, kThreads, 0); }},
      {"cold: memset ring, ring12", asleep, [&] { write_ring(s, kThreads, true), ring_pass(s, kThreads, 0); }},
      {"cold: 1 B a page, ring12", asleep, [&] { write_ring(s, kThreads, false), ring_pass(s, kThreads, 0); }},
      {"warm: ring12 after ring12", [&] { ring_pass(s, kThreads, 0); }, [&] { ring_pass(s, kThreads, 0); }}};
  ring_pass(s, kThreads, 0);
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < ways.size(); ++i) {
      Way& w = ways[(i + std::size_t(r)) % ways.size()];
      w.before();
      const double t = now();
      w.timed();
      w.gbps.push_back(double(s.size) / (now() - t) / 1e9);
    }
  std::printf("file %zu bytes, %d rounds: GB/s of the timed pass\n", s.size, rounds);
  for (auto& w : ways) {
    std::vector<double> g = w.gbps;
    std::sort(g.begin(), g.end());
    auto at = [&](double q) { return g[std::size_t(q * double(g.size() - 1) + 0.5)]; };
    std::printf("%-27s median %6.1f  p10 %6.1f  p90 %6.1f  samples", w.name.c_str(), at(0.5), at(0.1), at(0.9));
    for (double x : w.gbps) std::printf(" %.1f", x);
    std::printf("\n");
  }
  return 0;
}

// `threads` threads preading one byte of every 4 KiB page of s's file.
void touch_pages(const Setup& s, int threads) {
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> team;
  for (int i = 0; i < threads; ++i)
    team.emplace_back([&] {
      char byte;
      for (std::size_t page; (page = next++) < s.size / 4096;)
        if (pread(s.fd, &byte, 1, off_t(page * 4096)) != 1) std::perror("pread"), std::exit(1);
    });
  for (auto& th : team) th.join();
}

int carryover(Setup& s, int rounds, const char* other) {
  constexpr int kThreads = 12;
  constexpr double kBusy = 0.040;
  std::vector<std::vector<unsigned char>> from(kThreads, std::vector<unsigned char>(std::size_t(8) << 20, 1)),
      to(kThreads, std::vector<unsigned char>(std::size_t(8) << 20));
  struct Before {
    std::string name;
    std::function<void()> run;
    std::vector<double> gbps;
    double steal = 0, time = 0;
  };
  std::vector<Before> befores{
      {"after ring12", [&] { ring_pass(s, kThreads, 0); }},
      {"after h2d_pinned x2", [&] { h2d_pinned(s), h2d_pinned(s); }},
      {"after 40 ms asleep", [&] { std::this_thread::sleep_for(std::chrono::milliseconds(40)); }},
      {"after 40 ms spinning x12", [&] {
         for_a_while(kThreads, kBusy, [](int) {
           volatile unsigned x = 1;
           for (int k = 0; k < 100000; ++k) x = x * 3 + 1;
         });
       }},
      {"after 40 ms memcpy x12", [&] {
         for_a_while(kThreads, kBusy, [&](int i) { std::memcpy(to[i].data(), from[i].data(), to[i].size()); });
       }}};
  Setup o = s;
  if (other) {
    o.fd = open(other, O_RDONLY);
    struct stat st{};
    if (o.fd < 0 || fstat(o.fd, &st) != 0 || std::size_t(st.st_size) != s.size)
      return std::fprintf(stderr, "%s: not a file of %zu bytes\n", other, s.size), 1;
    befores.push_back({"after ring12 over OTHER", [&] { ring_pass(o, kThreads, 0); }});
    befores.push_back({"after memset ring x12", [&] {
                         std::vector<std::thread> team;
                         for (int i = 0; i < kThreads; ++i)
                           team.emplace_back([&, i] {
                             const std::size_t part = kSlots * kChunk / kThreads;
                             std::memset(s.ring + i * part, i, part);
                           });
                         for (auto& th : team) th.join();
                       }});
    befores.push_back({"after 1 B a page x12", [&] { touch_pages(s, kThreads); }});
    befores.push_back({"after ring12, 10 ms asleep", [&] {
                         ring_pass(s, kThreads, 0);
                         std::this_thread::sleep_for(std::chrono::milliseconds(10));
                       }});
  }
  ring_pass(s, kThreads, 0);
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < befores.size(); ++i) {
      Before& b = befores[(i + std::size_t(r)) % befores.size()];
      b.run();
      const double s0 = steal_s();
      const Pass p = ring_pass(s, kThreads, 0);
      b.steal += steal_s() - s0;
      b.time += p.seconds;
      b.gbps.push_back(double(s.size) / p.seconds / 1e9);
    }
  std::printf("file %zu bytes, %d rounds: ring12 GB/s by what ran before it\n", s.size, rounds);
  for (auto& b : befores) {
    std::vector<double> g = b.gbps;
    std::sort(g.begin(), g.end());
    auto at = [&](double q) { return g[std::size_t(q * double(g.size() - 1) + 0.5)]; };
    std::printf("%-26s median %6.1f  p10 %6.1f  p90 %6.1f  steal %.2f s/s  samples", b.name.c_str(), at(0.5), at(0.1),
                at(0.9), b.steal / b.time);
    for (double x : b.gbps) std::printf(" %.1f", x);
    std::printf("\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 5)
    return std::fprintf(stderr, "usage: hybrid_probe FILE [ROUNDS] [carryover [OTHER] | prime | dma]\n"), 2;
  const int rounds = argc >= 3 ? std::atoi(argv[2]) : 9;
  Setup s{};
  s.fd = open(argv[1], O_RDONLY);
  struct stat st{};
  if (s.fd < 0 || fstat(s.fd, &st) != 0) return std::perror(argv[1]), 1;
  s.size = std::size_t(st.st_size);
  s.chunks = (s.size + kChunk - 1) / kChunk;
  constexpr int kMaxZc = 2;
  CK(cudaMalloc(&s.dev, (2 + 2 * kMaxZc) * kChunk));
  CK(cudaHostAlloc(&s.pinned_one, kChunk, cudaHostAllocDefault));
  CK(cudaHostAlloc(&s.ring, kSlots * kChunk, cudaHostAllocDefault));
  CK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));

  if (argc == 4 && std::string(argv[3]) == "prime") return prime(s, rounds);
  if (argc == 4 && std::string(argv[3]) == "dma") return dma(s, rounds);
  if (argc >= 4) return carryover(s, rounds, argc == 5 ? argv[4] : nullptr);

  struct Entry {
    std::string name;
    std::function<Pass()> pass;
    std::vector<double> gbps, share;
    double steal = 0, time = 0;
  };
  std::vector<Entry> entries{{"h2d_pinned", [&] { return Pass{h2d_pinned(s), 0}; }},
                             {"h2d_pinned_again", [&] { return Pass{h2d_pinned(s), 0}; }}};
  for (int t : {12, 6}) {
    entries.push_back({"ring" + std::to_string(t), [&s, t] { return ring_pass(s, t, 0); }});
    entries.push_back({"ring" + std::to_string(t) + "_again", [&s, t] { return ring_pass(s, t, 0); }});
    for (int z = 1; z <= kMaxZc; ++z)
      entries.push_back(
          {"ring" + std::to_string(t) + "+zc" + std::to_string(z), [&s, t, z] { return ring_pass(s, t, z); }});
  }
  for (auto& e : entries) e.pass();  // warm every path once
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < entries.size(); ++i) {
      Entry& e = entries[(i + std::size_t(r)) % entries.size()];
      const double s0 = steal_s();
      const Pass p = e.pass();
      e.steal += steal_s() - s0;
      e.time += p.seconds;
      e.gbps.push_back(double(s.size) / p.seconds / 1e9);
      e.share.push_back(p.zc_share);
    }
  std::printf("file %s, %zu bytes, %d rounds, %d-thread host\n", argv[1], s.size, rounds,
              int(std::thread::hardware_concurrency()));
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  for (auto& e : entries) {
    std::vector<double> g = e.gbps;
    std::sort(g.begin(), g.end());
    auto at = [&](double q) { return g[std::size_t(q * double(g.size() - 1) + 0.5)]; };
    std::printf("%-17s median %6.1f GB/s  p10 %6.1f  p90 %6.1f  zc share %4.0f%%  steal %.2f s/s  samples",
                e.name.c_str(), at(0.5), at(0.1), at(0.9), 100 * median(e.share), e.steal / e.time);
    for (double x : e.gbps) std::printf(" %.1f", x);
    std::printf("\n");
  }
  return 0;
}
