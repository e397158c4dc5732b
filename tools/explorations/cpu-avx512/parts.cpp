// Scratch behind README.md ("Where the time goes"): where openmp_fast's avx512 path spends its time on one core, 1 MiB
// cache-resident: binning alone (the compressing stores into the four groups), counting alone (count_morsels
// over bytes already in 0..63), both (count_avx512). Includes commit ced845e's cpu_openmp/openmp_fast.cpp:
//   g++ -std=c++20 -O3 -fopenmp -I. -Istudy -Ibuild-cpu tools/explorations/cpu-avx512/parts.cpp build-cpu/libhistostudy_core.a -o parts
//   tools/explorations/cpu-avx512/when_quiet.sh ./parts
#include "cpu_openmp/openmp_fast.cpp"
#include <ctime>
#include <cstdio>
#include <random>
#include <vector>
namespace hs::cpu { namespace {
HS_AVX512 void bin_only(const std::uint8_t* p, std::uint64_t n, Avx512Counts& s) {
  for (std::uint64_t done = 0; done + kBinBlock <= n; done += kBinBlock) {
    std::uint8_t* out[kGroups];
    for (int g = 0; g < kGroups; ++g) out[g] = s.group[g].buf;
    for (std::uint64_t i = 0; i < kBinBlock; i += 64) bin_vector(_mm512_loadu_si512(p + done + i), ~0ull, out);
    asm volatile("" :: "r"(out[0]), "r"(out[1]), "r"(out[2]), "r"(out[3]) : "memory");
  }
}
HS_AVX512 void count_only(const std::uint8_t* morsels, std::uint64_t n, Avx512Counts& s, Bins& totals) {
  for (std::uint64_t done = 0; done + kBinBlock <= n; done += kBinBlock)
    count_morsels(morsels + done, kBinBlock / 64, s.group[(done / kBinBlock) % 4], int((done / kBinBlock) % 4), totals);
}
}}
using namespace hs::cpu;
double cpu_now() { timespec t{}; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main() {
  const std::uint64_t n = 1 << 20;
  std::vector<std::uint8_t> d(n), m(n); std::mt19937_64 rng(7);
  for (auto& b : d) b = std::uint8_t(rng());
  for (std::uint64_t i = 0; i < n; ++i) m[i] = d[i] & 63;
  auto time = [&](auto f) { std::vector<double> t; for (int r = 0; r < 15; ++r) { double t0 = cpu_now(); for (int k = 0; k < 64; ++k) f(); t.push_back((cpu_now() - t0) / 64); } std::sort(t.begin(), t.end()); return n / t[7] / 1e9; };
  Avx512Counts s; hs::Bins tot{};
  for (int round = 0; round < 2; ++round) {
    std::printf("bin only    %6.2f GB/s\n", time([&] { bin_only(d.data(), n, s); }));
    std::printf("count only  %6.2f GB/s\n", time([&] { count_only(m.data(), n, s, tot); }));
    std::printf("both        %6.2f GB/s\n", time([&] { count_avx512(d.data(), n, s, tot); }));
  }
}
