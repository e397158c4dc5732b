// What runs slower right after a core idled? (the count target: a GPU count pass after 50 ms idle runs
// 5-7 ms slower than one right after another; data/explorations/20261202T0520Z_gpu_count_cold/ found every memory
// access 43-106% dearer after >= 30 ms asleep, and a pass that wrote the ring first gained nothing,
// data/explorations/20261202T0250Z_gpu_count_hybrid/.) After `gap` ms asleep, T threads (each pinned to its own CPU)
// work for 40 ms in slices, and each slice is filed under the window after waking it ended in; rounds
// rotate the order of the gaps. Three kinds of work:
//   add     a chain of dependent adds, 2^14 a slice: adds a ns, about the core's clock in GHz
//   chase   a chain of dependent loads through a random cycle over MIB (default 256) a thread (one
//           64-byte line a node), 256 a slice: ns a load, the memory's latency
//   stream  sums of 256 KiB of a buffer of MIB a thread, read in turn: GB/s of the thread
// It prints the median over rounds and threads per gap and window. A core clock that ramps after idle
// shows in `add`; a memory system slow to wake (caches, the uncore's clock) in `chase` and `stream`;
// a chase over 1 MiB (in the core's L2) that stays slow after its first lap tells a slow clock from
// caches emptied while asleep.
//   g++ -O2 -std=c++17 -pthread -static -o wake_probe wake_probe.cpp && ./wake_probe add|chase|stream THREADS ROUNDS [MIB]
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

namespace {

double now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

const double kWindowsMs[] = {0.25, 0.5, 1, 2, 5, 10, 20, 40};  // window i is (edge i-1, edge i]
constexpr int kWindows = sizeof kWindowsMs / sizeof kWindowsMs[0];
std::size_t buffer_bytes = std::size_t(256) << 20;  // chase and stream, a thread: MIB, default 256
constexpr std::size_t kLine = 64;

enum class Work { add, chase, stream };

struct Thread {
  std::vector<std::uint64_t> buffer;  // chase: next node's index at each line's start; stream: bytes
  std::size_t at = 0;
};

// One slice of work; returns its units (adds, loads or bytes).
double slice(Work work, Thread& t) {
  switch (work) {
    case Work::add: {
      unsigned long x = t.at;
      for (int i = 0; i < (1 << 14); ++i) asm volatile("add $1, %0" : "+r"(x));
      t.at = x;
      return 1 << 14;
    }
    case Work::chase: {
      std::size_t p = t.at;
      for (int i = 0; i < 256; ++i) p = t.buffer[p];
      t.at = p;
      return 256;
    }
    case Work::stream: {
      constexpr std::size_t kWords = (256 << 10) / 8;
      const std::uint64_t* w = t.buffer.data() + t.at;
      std::uint64_t sum = 0;
      for (std::size_t i = 0; i < kWords; ++i) sum += w[i];
      asm volatile("" : : "r"(sum));
      t.at = (t.at + kWords) % t.buffer.size();
      return 256 << 10;
    }
  }
  return 0;
}

// Units a ns in each window of the 40 ms after the call.
std::vector<double> run_after_wake(Work work, Thread& t) {
  std::vector<double> units(kWindows, 0), ns(kWindows, 0);
  const double start = now_ns();
  for (double t0 = start, elapsed = 0; elapsed < kWindowsMs[kWindows - 1] * 1e6;) {
    const double u = slice(work, t);
    const double t1 = now_ns();
    elapsed = t1 - start;
    int w = 0;
    while (w < kWindows - 1 && elapsed > kWindowsMs[w] * 1e6) ++w;
    units[w] += u;
    ns[w] += t1 - t0;
    t0 = t1;
  }
  for (int w = 0; w < kWindows; ++w) units[w] = ns[w] > 0 ? units[w] / ns[w] : 0;
  return units;
}

void prepare(Work work, Thread& t, unsigned seed) {
  if (work == Work::add) return;
  t.buffer.assign(buffer_bytes / 8, 1);
  if (work == Work::stream) return;
  // One random cycle through every line: line order[i] points at line order[i + 1].
  const std::size_t lines = buffer_bytes / kLine, per_line = kLine / 8;
  std::vector<std::uint32_t> order(lines);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  for (std::size_t i = 0; i < lines; ++i) t.buffer[order[i] * per_line] = order[(i + 1) % lines] * per_line;
  t.at = order[0] * per_line;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || (std::strcmp(argv[1], "add") && std::strcmp(argv[1], "chase") && std::strcmp(argv[1], "stream"))) {
    std::fprintf(stderr, "usage: %s add|chase|stream [THREADS] [ROUNDS] [MIB]\n", argv[0]);
    return 2;
  }
  const Work work = argv[1][0] == 'a' ? Work::add : argv[1][0] == 'c' ? Work::chase : Work::stream;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 7;
  if (argc > 4) buffer_bytes = std::size_t(std::atoi(argv[4])) << 20;
  const int gaps[] = {0, 1, 10, 30, 50, 100, 300};
  constexpr int kGaps = sizeof gaps / sizeof gaps[0];
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, nullptr, threads);
  std::vector<std::vector<std::vector<double>>> mine(threads);  // per thread: {gap, window values...}
  std::vector<std::thread> team;
  for (int i = 0; i < threads; ++i)
    team.emplace_back([&, i] {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(i % std::thread::hardware_concurrency(), &set);
      pthread_setaffinity_np(pthread_self(), sizeof set, &set);
      Thread t;
      prepare(work, t, 1234u + unsigned(i));
      run_after_wake(work, t);  // untimed
      for (int r = 0; r < rounds; ++r)
        for (int k = 0; k < kGaps; ++k) {
          const int g = (k + r) % kGaps;
          pthread_barrier_wait(&barrier);
          if (gaps[g]) {
            timespec d{gaps[g] / 1000, (gaps[g] % 1000) * 1000000L};
            nanosleep(&d, nullptr);
          }
          auto w = run_after_wake(work, t);
          w.insert(w.begin(), g);
          mine[i].push_back(w);
        }
    });
  for (auto& th : team) th.join();
  std::vector<std::vector<std::vector<double>>> results(kGaps, std::vector<std::vector<double>>(kWindows));
  for (auto& m : mine)
    for (auto& w : m)
      for (int i = 0; i < kWindows; ++i) results[int(w[0])][i].push_back(w[i + 1]);
  const char* unit = work == Work::add ? "adds a ns (about GHz)" : work == Work::chase ? "ns a load" : "GB/s a thread";
  std::printf("%s, %d threads, %d rounds", argv[1], threads, rounds);
  if (work != Work::add) std::printf(", %zu MiB a thread", buffer_bytes >> 20);
  std::printf(": %s, median, in each window after waking\n", unit);
  std::printf("%-8s", "gap ms");
  for (int i = 0; i < kWindows; ++i) std::printf(" %5gms", kWindowsMs[i]);
  std::printf("\n");
  for (int g = 0; g < kGaps; ++g) {
    std::printf("%-8d", gaps[g]);
    for (int i = 0; i < kWindows; ++i) {
      const double v = median(results[g][i]);
      std::printf(" %7.2f", work == Work::chase && v > 0 ? 1 / v : v);
    }
    std::printf("\n");
  }
}
