// Does anything a guest can time beside a sample tell when this host is slow? Each iteration times one study-like
// sample (openmp_fast, 2 threads, 64 MiB of the input named) and then, on both threads at once, four probes:
// clock (a chain of dependent adds, GHz), vec (8 vpternlogq zmm chains, zmm instructions a ns), kern (openmp_fast on
// one thread over its own 256 KiB, GB/s), copy (memcpy of 256 KiB within L2, GB/s); and the guest's steal (/proc/stat)
// over the sample. One line an iteration:
//   g++ -std=c++20 -O3 -fopenmp -I. -Istudy -Ibuild tools/explorations/20261203T2145Z_zen4_probe/probe.cpp build/libhistostudy_core.a -o build/zen4-probe
//   build/zen4-probe SECONDS INPUT
#include <immintrin.h>
#include <omp.h>
#include <time.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "cpu_openmp/openmp_fast.hpp"
#include "driver/inputs.hpp"
static double wall() { timespec t{}; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static long steal_ticks() {
  FILE* f = std::fopen("/proc/stat", "r"); long v[8] = {}; std::fscanf(f, "cpu %ld %ld %ld %ld %ld %ld %ld %ld", v, v + 1, v + 2, v + 3, v + 4, v + 5, v + 6, v + 7);
  std::fclose(f); return v[7];
}
static double clock_ghz() {
  unsigned long x = 0; const long n = 500'000; double t0 = wall();
  for (long k = 0; k < n; ++k) asm volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(x));
  return 4.0 * n / (wall() - t0) / 1e9;
}
__attribute__((target("avx512f"))) static double vec_per_ns() {
  __m512i a[8]; for (int i = 0; i < 8; ++i) a[i] = _mm512_set1_epi64(i);
  const __m512i b = _mm512_set1_epi64(3), c = _mm512_set1_epi64(5); const long n = 200'000; double t0 = wall();
  for (long k = 0; k < n; ++k)
    asm volatile("vpternlogq $0x96, %[c], %[b], %[a0]\n\tvpternlogq $0x96, %[c], %[b], %[a1]\n\t"
                 "vpternlogq $0x96, %[c], %[b], %[a2]\n\tvpternlogq $0x96, %[c], %[b], %[a3]\n\t"
                 "vpternlogq $0x96, %[c], %[b], %[a4]\n\tvpternlogq $0x96, %[c], %[b], %[a5]\n\t"
                 "vpternlogq $0x96, %[c], %[b], %[a6]\n\tvpternlogq $0x96, %[c], %[b], %[a7]"
                 : [a0] "+v"(a[0]), [a1] "+v"(a[1]), [a2] "+v"(a[2]), [a3] "+v"(a[3]), [a4] "+v"(a[4]), [a5] "+v"(a[5]),
                   [a6] "+v"(a[6]), [a7] "+v"(a[7]) : [b] "v"(b), [c] "v"(c));
  return 8.0 * n / (wall() - t0) / 1e9;
}
int main(int argc, char** argv) {
  const double seconds = std::atof(argv[1]);
  const std::vector<std::uint8_t> m = hs::make_input(hs::parse_input(argv[2]), 64ull << 20);
  hs::Bins want{}, got{};
  for (auto b : m) ++want[b];
  hs::cpu::openmp_fast(m, got, 2);
  if (got != want) { std::puts("openmp_fast miscounts"); return 1; }
  std::printf("# t_s sample_GBps steal_ms | per thread: clock_GHz vec_per_ns kern_GBps copy_GBps\n");
  const double start = wall();
  while (wall() - start < seconds) {
    const long s0 = steal_ticks();
    const double t0 = wall(); hs::Bins bins{}; hs::cpu::openmp_fast(m, bins, 2); const double ts = wall() - t0;
    const long steal = steal_ticks() - s0;
    double pr[2][4];
#pragma omp parallel num_threads(2)
    { const int me = omp_get_thread_num(); std::vector<std::uint8_t> own(m.begin(), m.begin() + (256 << 10)), dst(256 << 10);
      double* p = pr[me]; p[0] = clock_ghz(); p[1] = vec_per_ns();
      hs::Bins k{}; double k0 = wall(); for (int r = 0; r < 16; ++r) hs::cpu::openmp_fast(own, k, 1); p[2] = 16.0 * own.size() / (wall() - k0) / 1e9;
      k0 = wall(); for (int r = 0; r < 32; ++r) { std::memcpy(dst.data(), own.data(), own.size()); asm volatile("" ::"r"(dst.data()) : "memory"); }
      p[3] = 32.0 * own.size() / (wall() - k0) / 1e9; }
    std::printf("%7.2f %6.2f %5ld | %.2f %.2f %5.2f %5.1f | %.2f %.2f %5.2f %5.1f\n", wall() - start, m.size() / ts / 1e9,
                steal * 10, pr[0][0], pr[0][1], pr[0][2], pr[0][3], pr[1][0], pr[1][1], pr[1][2], pr[1][3]);
    std::fflush(stdout);
  }
}
