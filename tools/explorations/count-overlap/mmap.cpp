// Scratch comparison behind README.md ("Counting in place"), linked against the CPU-only build of
// commit f003e71 (count's CPU path as at 4c63126):
//   g++ -std=c++20 -O3 -fopenmp -I. -Istudy -Ibuild-cpu tools/explorations/count-overlap/mmap.cpp build-cpu/libhistostudy_core.a -o mmap
//   tools/explorations/cpu-avx512/when_quiet.sh ./mmap FILE ROUNDS
// ROUNDS rotations (wall clock) of 8 entries, 7 printed: read_discard (and _again, its A/A control), count_stream,
// mmap_populate, mmap_fault_seq, mmap_kept (one mapping made before the rotation), in_memory; each timed mmap entry
// maps and unmaps the file inside its timing. The eighth, mmap_populate_huge, is mmap_populate again (no huge-page
// flag was ever added), timed and not printed: kept as it ran.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>
#include "cpu_openmp/openmp_fast.hpp"
#include "count/count.hpp"
#include "driver/executor.hpp"
#include "driver/registry.hpp"
using clk = std::chrono::steady_clock;
static size_t n;
static hs::Bins count_span(const uint8_t* p, size_t len) {
  std::atomic<size_t> next{0}; hs::Bins total{};
#pragma omp parallel num_threads(2)
  { hs::Bins mine{};
    for (;;) { size_t off = next.fetch_add(512 << 10); if (off >= len) break;
      hs::cpu::openmp_fast({p + off, std::min<size_t>(512 << 10, len - off)}, mine, 1); }
#pragma omp critical
    for (int v = 0; v < 256; ++v) total[v] += mine[v]; }
  return total;
}
int main(int argc, char** argv) {
  const char* path = argv[1]; int rounds = argc > 2 ? atoi(argv[2]) : 9;
  struct stat st; stat(path, &st); n = st.st_size;
  auto cpu = hs::make_cpu_executor();
  const auto& fast = hs::find_implementation("openmp_fast");
  std::vector<uint8_t> copy(n); { int fd = open(path, O_RDONLY); size_t d = 0; while (d < n) d += read(fd, copy.data() + d, n - d); close(fd); }
  const hs::Bins want = count_span(copy.data(), n);
  int kfd = open(path, O_RDONLY); const uint8_t* kept = (const uint8_t*)mmap(nullptr, n, PROT_READ, MAP_SHARED | MAP_POPULATE, kfd, 0);
  const char* names[] = {"read_discard", "count_stream", "mmap_populate", "mmap_fault_seq", "mmap_kept", "in_memory", "read_discard_again", "mmap_populate_huge"};
  const int E = 8; std::vector<double> t[E]; int bad = 0;
  for (int r = 0; r < rounds; ++r) for (int k = 0; k < E; ++k) {
    int e = (r + k) % E; hs::Bins b{}; bool check = true;
    auto t0 = clk::now();
    if (e == 0 || e == 6) { check = false; int fd = open(path, O_RDONLY); std::vector<uint8_t> buf(4 << 20); while (read(fd, buf.data(), buf.size()) > 0) {} close(fd); }
    if (e == 1) b = hs::count_stream(path, fast, *cpu, 2);
    if (e == 2 || e == 7) { int fd = open(path, O_RDONLY); void* m = mmap(nullptr, n, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
      b = count_span((const uint8_t*)m, n); munmap(m, n); close(fd); }
    if (e == 3) { int fd = open(path, O_RDONLY); void* m = mmap(nullptr, n, PROT_READ, MAP_SHARED, fd, 0); madvise(m, n, MADV_SEQUENTIAL);
      b = count_span((const uint8_t*)m, n); munmap(m, n); close(fd); }
    if (e == 4) b = count_span(kept, n);
    if (e == 5) b = count_span(copy.data(), n);
    t[e].push_back(std::chrono::duration<double>(clk::now() - t0).count());
    if (check && b != want) bad++;
  }
  double rd; { auto v = t[0]; std::sort(v.begin(), v.end()); rd = n / v[v.size()/2] / 1e9; }
  for (int e = 0; e < E - 1; ++e) { auto v = t[e]; std::sort(v.begin(), v.end());
    double med = n / v[v.size()/2] / 1e9; printf("%-20s median %6.2f GB/s  p10 %6.2f p90 %6.2f  %5.1f%% of read_discard\n", names[e], med, n / v[v.size()*9/10 < v.size() ? v.size()*9/10 : v.size()-1] / 1e9, n / v[v.size()/10] / 1e9, 100 * med / rd); }
  printf("miscounts %d\n", bad);
}
