// Scratch comparison behind README.md (run at commit b626f0d, linked against its
// build-cpu/libhistostudy_core.a): count_stream's reader ring, counting an mmap of the
// file, read-and-discard, and a pread per thread counted by the same thread, in rotation.
//   g++ -std=c++20 -O3 -fopenmp -I. -Istudy -Ibuild-cpu designs.cpp build-cpu/libhistostudy_core.a -o designs
//   tools/explorations/cpu-avx512/when_quiet.sh ./designs FILE 9
// scratch: count a page-cached file via mmap (no copy) vs count_stream vs read-and-discard
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <vector>
#include <atomic>
#include <algorithm>
#include "cpu_openmp/openmp_fast.hpp"
#include "count/count.hpp"
#include "driver/executor.hpp"
#include "driver/registry.hpp"
using clk = std::chrono::steady_clock;
int main(int argc, char** argv) {
  const char* path = argv[1];
  int rounds = argc > 2 ? atoi(argv[2]) : 7;
  struct stat st; stat(path, &st); size_t n = st.st_size;
  auto cpu = hs::make_cpu_executor();
  const auto& fast = hs::find_implementation("openmp_fast");
  std::vector<double> t[4];
  for (int r = 0; r < rounds; ++r) for (int k = 0; k < 4; ++k) {
    int e = (r + k) % 4;
    auto t0 = clk::now();
    if (e == 0) { auto b = hs::count_stream(path, fast, *cpu, 0); if (b[0] == 12345678) puts("x"); }
    if (e == 1) {
      int fd = open(path, O_RDONLY); void* m = mmap(nullptr, n, PROT_READ, MAP_SHARED, fd, 0);
      madvise(m, n, MADV_SEQUENTIAL);
      hs::Bins b{}; hs::cpu::openmp_fast({(const uint8_t*)m, n}, b, 0); munmap(m, n); close(fd);
      if (b[0] == 12345678) puts("x");
    }
    if (e == 2) { int fd = open(path, O_RDONLY); std::vector<uint8_t> buf(4 << 20); while (read(fd, buf.data(), buf.size()) > 0) {} close(fd); }
    if (e == 3) {
      int fd = open(path, O_RDONLY); std::atomic<size_t> next{0}; hs::Bins total{};
      #pragma omp parallel
      { std::vector<uint8_t> buf(512 << 10); hs::Bins mine{};
        for (;;) { size_t off = next.fetch_add(buf.size()); ssize_t k = pread(fd, buf.data(), buf.size(), off); if (k <= 0) break;
          hs::cpu::openmp_fast({buf.data(), size_t(k)}, mine, 1); }
        #pragma omp critical
        for (int v = 0; v < 256; ++v) total[v] += mine[v]; }
      close(fd); if (total[0] == 12345678) puts("x");
    }
    t[e].push_back(std::chrono::duration<double>(clk::now() - t0).count());
  }
  const char* names[4] = {"count_stream (read ring)", "mmap + openmp_fast", "read-and-discard 4 MiB", "pread per thread + count"};
  for (int e = 0; e < 4; ++e) { auto v = t[e]; std::sort(v.begin(), v.end()); printf("%-26s median %6.2f GB/s  best %6.2f\n", names[e], n / v[v.size()/2] / 1e9, n / v[0] / 1e9); }
}
