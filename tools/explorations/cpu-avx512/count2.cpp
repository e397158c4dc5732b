// Scratch behind README.md ("Tried"): count_morsels with its seven 64-bit shifts replaced by vpmultishiftqb, or by
// vpmovzxbq loads of 8 morsels each, on bytes already in 0..63; one core, 1 MiB, thread CPU clock. Includes commit
// ced845e's cpu_openmp/openmp_fast.cpp:
//   g++ -std=c++20 -O3 -fopenmp -I. -Istudy -Ibuild-cpu tools/explorations/cpu-avx512/count2.cpp build-cpu/libhistostudy_core.a -o count2
//   tools/explorations/cpu-avx512/when_quiet.sh ./count2
#include "cpu_openmp/openmp_fast.cpp"
#include <ctime>
#include <cstdio>
#include <random>
#include <vector>
namespace hs::cpu { namespace {
// mode 1: vpmultishiftqb brings byte k of each qword to byte 0; mode 2: vpmovzxbq from memory, 8 morsels a load.
template <int mode>
HS_AVX512 void count_morsels2(const std::uint8_t* p, std::uint64_t vectors, Group& g, int group, Bins& totals) {
  __m512i d0 = _mm512_load_si512(g.planes[0]);
  __m512i d1 = _mm512_load_si512(g.planes[1]);
  __m512i d2 = _mm512_load_si512(g.planes[2]);
  __m512i eights = _mm512_load_si512(g.eights);
  const __m512i one = _mm512_set1_epi64(1);
  for (std::uint64_t i = 0; i < vectors; ++i) {
    __m512i x[8];
    if constexpr (mode == 1) {
      const __m512i v = _mm512_loadu_si512(p + 64 * i);
      x[0] = _mm512_rolv_epi64(one, v);
      for (int k = 1; k < 8; ++k) x[k] = _mm512_rolv_epi64(one, _mm512_multishift_epi64_epi8(_mm512_set1_epi64(8 * k), v));
    } else {
      // morsel order differs (a qword's 8 morsels spread over 8 lanes), the counts do not
      for (int k = 0; k < 8; ++k) x[k] = _mm512_rolv_epi64(one, _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i*)(p + 64 * i + 8 * k))));
    }
    const __m512i t0 = add_into(d0, x[0], x[1]), t1 = add_into(d0, x[2], x[3]);
    const __m512i t2 = add_into(d0, x[4], x[5]), t3 = add_into(d0, x[6], x[7]);
    const __m512i f0 = add_into(d1, t0, t1), f1 = add_into(d1, t2, t3);
    const __m512i e = add_into(d2, f0, f1);
    eights = _mm512_add_epi8(eights, column_counts(e));
    if (++g.column_adds == kMaxColumnAdds) {
      _mm512_store_si512(g.eights, eights);
      flush_eights(g, group, totals);
      eights = _mm512_setzero_si512();
    }
  }
  _mm512_store_si512(g.planes[0], d0);
  _mm512_store_si512(g.planes[1], d1);
  _mm512_store_si512(g.planes[2], d2);
  _mm512_store_si512(g.eights, eights);
}
template <int mode>
HS_AVX512 void count_only(const std::uint8_t* m, std::uint64_t n, Avx512Counts& s, Bins& totals) {
  for (std::uint64_t done = 0; done + kBinBlock <= n; done += kBinBlock) {
    const int g = int((done / kBinBlock) % 4);
    if constexpr (mode == 0) count_morsels(m + done, kBinBlock / 64, s.group[g], g, totals);
    else count_morsels2<mode>(m + done, kBinBlock / 64, s.group[g], g, totals);
  }
}
template <int mode> hs::Bins counts_of(const std::uint8_t* m, std::uint64_t n) {
  Avx512Counts s; hs::Bins t{}; count_only<mode>(m, n, s, t);
  for (int g = 0; g < kGroups; ++g) { s.group[g].left = 0; } finish_avx512(s, t); return t;
}
}}
using namespace hs::cpu;
double cpu_now() { timespec t{}; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main() {
  const std::uint64_t n = 1 << 20;
  std::vector<std::uint8_t> m(n); std::mt19937_64 rng(7);
  for (auto& b : m) b = std::uint8_t(rng() & 63);
  const auto want = counts_of<0>(m.data(), n);
  if (counts_of<1>(m.data(), n) != want || counts_of<2>(m.data(), n) != want) { std::puts("miscount"); return 1; }
  auto time = [&](auto f) { std::vector<double> t; for (int r = 0; r < 15; ++r) { double t0 = cpu_now(); for (int k = 0; k < 64; ++k) f(); t.push_back((cpu_now() - t0) / 64); } std::sort(t.begin(), t.end()); return n / t[7] / 1e9; };
  Avx512Counts s; hs::Bins tot{};
  for (int round = 0; round < 2; ++round) {
    std::printf("count_morsels (srli)         %6.2f GB/s\n", time([&] { count_only<0>(m.data(), n, s, tot); }));
    std::printf("multishift                   %6.2f GB/s\n", time([&] { count_only<1>(m.data(), n, s, tot); }));
    std::printf("vpmovzxbq loads              %6.2f GB/s\n", time([&] { count_only<2>(m.data(), n, s, tot); }));
  }
}
