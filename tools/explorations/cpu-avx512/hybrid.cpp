// Scratch behind README.md ("Tried"): openmp_fast's avx512 path with the scalar-8x16 path counting W
// 8-byte words beside each 64-byte vector in the same loop, one core, 1 MiB cache-resident, thread CPU clock.
// It includes commit ced845e's cpu_openmp/openmp_fast.cpp to reach its internals:
//   g++ -std=c++20 -O3 -fopenmp -I. -Istudy -Ibuild-cpu tools/explorations/cpu-avx512/hybrid.cpp build-cpu/libhistostudy_core.a -o hybrid
//   tools/explorations/cpu-avx512/when_quiet.sh ./hybrid 1048576 15
#include "cpu_openmp/openmp_fast.cpp"
#include <ctime>
#include <cstdio>
#include <random>
#include <vector>
namespace hs::cpu { namespace {
template <int W>
HS_AVX512 void count_hybrid(const std::uint8_t* p, std::uint64_t n, Avx512Counts& s, SubHistograms& subs, Bins& totals) {
  constexpr std::uint64_t iters = W == 0 ? 32 : (W == 1 ? 28 : (W == 2 ? 26 : 24));
  constexpr std::uint64_t block = iters * (64 + 8 * W);
  std::uint64_t words_in_subs = 0;
  std::uint64_t done = 0;
  for (; done + block <= n; done += block) {
    std::uint8_t* out[kGroups];
    for (int g = 0; g < kGroups; ++g) out[g] = s.group[g].buf + s.group[g].left;
    const std::uint8_t* sp = p + done + iters * 64;
    for (std::uint64_t i = 0; i < iters; ++i) {
      bin_vector(_mm512_loadu_si512(p + done + 64 * i), ~0ull, out);
      for (int k = 0; k < W; ++k) {
        std::uint64_t w; std::memcpy(&w, sp + 8 * (W * i + k), 8);
        for (int j = 0; j < kSubs; j += 2) { ++subs.c[j][w & 0xFF]; ++subs.c[j + 1][(w >> 8) & 0xFF]; w >>= 16; asm("" : "+r"(w)); }
      }
    }
    for (int g = 0; g < kGroups; ++g) {
      Group& grp = s.group[g];
      const std::uint64_t held = std::uint64_t(out[g] - grp.buf), whole = held / 64;
      count_morsels(grp.buf, whole, grp, g, totals);
      if (whole) _mm512_store_si512(grp.buf, _mm512_loadu_si512(grp.buf + 64 * whole));
      grp.left = int(held % 64);
    }
    words_in_subs += iters * W;
    if (words_in_subs + iters * W > 65535) {
      for (int q = 0; q < kSubs; ++q) for (int v = 0; v < kBins; ++v) totals[v] += subs.c[q][v];
      std::memset(&subs, 0, sizeof subs); words_in_subs = 0;
    }
  }
  for (int q = 0; q < kSubs; ++q) for (int v = 0; v < kBins; ++v) totals[v] += subs.c[q][v];
  std::memset(&subs, 0, sizeof subs);
  count_avx512(p + done, n - done, s, totals);
}
template <int W> void one_core(const std::uint8_t* p, std::uint64_t n, Bins& totals) {
  Avx512Counts counts; SubHistograms subs{};
  count_hybrid<W>(p, n, counts, subs, totals); finish_avx512(counts, totals);
}
void current(const std::uint8_t* p, std::uint64_t n, Bins& totals) {
  Avx512Counts counts; count_avx512(p, n, counts, totals); finish_avx512(counts, totals);
}
}}
using namespace hs::cpu;
double cpu_now() { timespec t{}; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char** argv) {
  const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], 0, 0) : (1 << 20);
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 15;
  using F = void (*)(const std::uint8_t*, std::uint64_t, hs::Bins&);
  const F fs[] = {current, one_core<1>, one_core<2>, one_core<3>};
  const char* names[] = {"avx512 (current)", "hybrid W=1", "hybrid W=2", "hybrid W=3"};
  for (const char* input : {"uniform", "one_byte", "english-ish"}) {
    std::vector<std::uint8_t> d(n); std::mt19937_64 rng(7);
    for (auto& b : d) b = input[0] == 'u' ? std::uint8_t(rng()) : input[0] == 'o' ? 'e' : std::uint8_t("etaoin shrdlu"[rng() % 13]);
    hs::Bins want{}; for (auto b : d) ++want[b];
    std::vector<double> t[4];
    const int reps = std::max<std::uint64_t>(1, (64ull << 20) / n);
    for (int r = 0; r < rounds; ++r) for (int k = 0; k < 4; ++k) {
      int e = (r + k) % 4; hs::Bins got{};
      fs[e](d.data(), n, got); if (got != want) { std::printf("%s miscounts %s\n", names[e], input); return 1; }
      double t0 = cpu_now(); for (int i = 0; i < reps; ++i) { hs::Bins b{}; fs[e](d.data(), n, b); asm volatile("" :: "r"(b.data()) : "memory"); } t[e].push_back((cpu_now() - t0) / reps);
    }
    for (int e = 0; e < 4; ++e) { auto v = t[e]; std::sort(v.begin(), v.end());
      std::printf("%-12s %-18s median %6.2f GB/s  p10 %6.2f  p90 %6.2f\n", input, names[e], n / v[v.size() / 2] / 1e9, n / v[v.size() * 9 / 10] / 1e9, n / v[v.size() / 10] / 1e9); }
  }
}
