// What does a page cost to touch after the CPU has left it alone a while?
// After 40 ms of anything else, a read pass into count's pinned ring ran
// 16-30% slower than right after another, and only writing the ring (a read
// pass over another file, or a memset) kept it warm
// (data/explorations/20261202T0250Z_gpu_count_hybrid/). One guess that fits every case: the
// hypervisor tracks which guest pages are written and re-arms that tracking
// every few tens of ms, so the first write to each page after it costs a
// trap; a pass over a 64 MiB ring then pays for 16,384 pages.
//
// One thread, 64 MiB buffers of three kinds: anonymous memory in 4 KiB
// pages (MADV_NOHUGEPAGE), anonymous memory in transparent huge pages
// (MADV_HUGEPAGE), and pinned memory as count's ring has it (cudaHostAlloc).
// Each measurement: one untimed pass of the operation, GAP ms asleep, then a
// timed pass that writes (adds 1 to) or reads one byte of every 4 KiB page.
// Printed per (buffer, operation, gap): the median, min and max ns per page
// over the rounds (the order rotating by one a round), and the guest's own
// minor faults in the timed passes (getrusage): where a slow touch shows no
// guest fault, the time went outside the guest.
//   nvcc -O2 -std=c++17 -arch=sm_90 -o touch_probe touch_probe.cu
//   ./touch_probe [ROUNDS]
#include <cuda_runtime.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t kBytes = std::size_t(64) << 20;
constexpr std::size_t kPage = 4096;
constexpr std::size_t kPages = kBytes / kPage;
constexpr int kGapsMs[] = {0, 1, 3, 10, 30, 50, 100, 300};

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt;
}

unsigned char* anonymous(bool huge) {
  void* p = mmap(nullptr, kBytes + (2u << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) std::exit(1);
  auto* aligned = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(p) + (2u << 20) - 1) & ~std::uintptr_t((2u << 20) - 1));
  madvise(aligned, kBytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  std::memset(aligned, 1, kBytes);
  return aligned;
}

// Null where there is no GPU (a probe of the anonymous kinds only).
unsigned char* pinned() {
  void* p = nullptr;
  if (const cudaError_t e = cudaHostAlloc(&p, kBytes, cudaHostAllocDefault); e != cudaSuccess) {
    std::printf("pinned: skipped (%s)\n", cudaGetErrorString(e));
    return nullptr;
  }
  std::memset(p, 1, kBytes);
  return static_cast<unsigned char*>(p);
}

volatile unsigned sink;

void touch(unsigned char* b, bool write) {
  volatile unsigned char* v = b;
  if (write) {
    for (std::size_t i = 0; i < kPages; ++i) v[i * kPage] = v[i * kPage] + 1;
  } else {
    unsigned s = 0;
    for (std::size_t i = 0; i < kPages; ++i) s += v[i * kPage];
    sink = s;
  }
}

struct Case {
  std::string buffer;
  unsigned char* b;
  bool write;
  int gap_ms;
  std::vector<double> ns_per_page;
  long faults = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
  const std::pair<std::string, unsigned char*> buffers[] = {
      {"anon_4k", anonymous(false)}, {"anon_thp", anonymous(true)}, {"pinned", pinned()}};
  std::vector<Case> cases;
  for (const auto& [name, b] : buffers)
    if (b)
      for (bool write : {true, false})
        for (int gap : kGapsMs) cases.push_back({name, b, write, gap, {}});
  for (int r = 0; r < rounds; ++r)
    for (std::size_t k = 0; k < cases.size(); ++k) {
      Case& c = cases[(k + r) % cases.size()];
      touch(c.b, c.write);
      std::this_thread::sleep_for(std::chrono::milliseconds(c.gap_ms));
      const long f = minor_faults();
      const double t = now();
      touch(c.b, c.write);
      c.ns_per_page.push_back((now() - t) * 1e9 / kPages);
      c.faults += minor_faults() - f;
    }
  std::printf("%d rounds; %zu pages of 4 KiB a pass; ns per page touched\n", rounds, kPages);
  std::printf("%-9s %-5s %6s %9s %9s %9s %7s\n", "buffer", "op", "gap_ms", "median", "min", "max", "faults");
  for (Case& c : cases) {
    std::sort(c.ns_per_page.begin(), c.ns_per_page.end());
    std::printf("%-9s %-5s %6d %9.1f %9.1f %9.1f %7ld\n", c.buffer.c_str(), c.write ? "write" : "read", c.gap_ms,
                c.ns_per_page[c.ns_per_page.size() / 2], c.ns_per_page.front(), c.ns_per_page.back(), c.faults);
  }
  return 0;
}
