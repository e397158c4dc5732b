// Scratch behind README.md: openmp_fast's avx512 path as committed at 21d8473 ("cur", twice: its A/A pair)
// against variants, whole kernel (bin + count), in rotation, 15 rounds. Built by explore.sh as
//   kernels MiB THREADS INPUT...   (THREADS 1: one core by its CPU clock; more: the team by the wall clock)
// Variants (L: how a vector's 8 one-hot inputs are made; B: how a vector is binned; K: group masks):
//   L4  4 unaligned loads (q + 0..3) and 4 64-bit shifts by 32 of them (fewer split loads, shifts on other pipes)
//   L2  2 unaligned loads (q + 0, 1) and 6 shifts by 16, 32, 48
//   L1  one load and 7 shifts (the loop before f95303f, with its fourth plane)
//   B1  each group's compressed vector stored as its low 32 bytes, the high 32 only where more than 32 went in
//   K   group masks by byte compares into mask registers (no general-register and/andn)
#include "cpu_openmp/openmp_fast.cpp"
#include "driver/inputs.hpp"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>
namespace hs::cpu { namespace {
template <int loads>
HS_AVX512 inline void one_hots_v(const std::uint8_t* q, __m512i x[8]) {
  const __m512i one = _mm512_set1_epi64(1);
  constexpr int shifts = 8 / loads;  // each load gives `shifts` inputs, shifted by 8 * loads bits apart
  for (int k = 0; k < loads; ++k) {
    const __m512i v = _mm512_loadu_si512(q + k);
    for (int s = 0; s < shifts; ++s)
      x[k + loads * s] = _mm512_rolv_epi64(one, s ? _mm512_srli_epi64(v, 8 * loads * s) : v);
  }
}
template <int loads>
HS_AVX512 inline void fold_v(const std::uint8_t* q, __m512i& d0, __m512i& d1, __m512i& f0, __m512i& f1) {
  __m512i x[8];
  one_hots_v<loads>(q, x);
  const __m512i t0 = add_into(d0, x[0], x[1]), t1 = add_into(d0, x[2], x[3]);
  const __m512i t2 = add_into(d0, x[4], x[5]), t3 = add_into(d0, x[6], x[7]);
  f0 = add_into(d1, t0, t1);
  f1 = add_into(d1, t2, t3);
}
template <int loads>
HS_AVX512 void count_v(const std::uint8_t* p, std::uint64_t vectors, Group& g, int group, Bins& totals) {
  __m512i d0 = _mm512_load_si512(g.planes[0]), d1 = _mm512_load_si512(g.planes[1]);
  __m512i d2 = _mm512_load_si512(g.planes[2]), d3 = _mm512_load_si512(g.planes[3]);
  __m512i carries = _mm512_load_si512(g.carries);
  std::uint64_t i = 0;
  for (; i + 2 <= vectors; i += 2) {
    __m512i f0, f1, f2, f3;
    fold_v<loads>(p + 64 * i, d0, d1, f0, f1);
    fold_v<loads>(p + 64 * i + 64, d0, d1, f2, f3);
    const __m512i e0 = add_into(d2, f0, f1), e1 = add_into(d2, f2, f3);
    add_carry(add_into(d3, e0, e1), carries, g, group, totals);
  }
  if (i < vectors) {
    __m512i f0, f1;
    fold_v<loads>(p + 64 * i, d0, d1, f0, f1);
    add_carry(add_into(d3, add_into(d2, f0, f1), _mm512_setzero_si512()), carries, g, group, totals);
  }
  _mm512_store_si512(g.planes[0], d0), _mm512_store_si512(g.planes[1], d1);
  _mm512_store_si512(g.planes[2], d2), _mm512_store_si512(g.planes[3], d3);
  _mm512_store_si512(g.carries, carries);
}
template <bool b1, bool kmasks>
HS_AVX512 inline void bin_v(__m512i v, std::uint64_t valid, std::uint8_t* out[kGroups]) {
  const __m512i morsels = _mm512_and_si512(v, _mm512_set1_epi8(0x3F));
  __mmask64 in[kGroups];
  if constexpr (kmasks) {
    const __m512i top = _mm512_and_si512(v, _mm512_set1_epi8(char(0xC0)));
    for (int g = 0; g < kGroups; ++g) in[g] = _mm512_mask_cmpeq_epi8_mask(valid, top, _mm512_set1_epi8(char(g << 6)));
  } else {
    const std::uint64_t bit7 = _mm512_movepi8_mask(v);
    const std::uint64_t bit6 = _mm512_movepi8_mask(_mm512_add_epi8(v, v));
    in[0] = ~bit7 & ~bit6 & valid, in[1] = ~bit7 & bit6 & valid, in[2] = bit7 & ~bit6 & valid;
    in[3] = bit7 & bit6 & valid;
  }
  for (int g = 0; g < kGroups; ++g) {
    const __m512i c = _mm512_maskz_compress_epi8(in[g], morsels);
    const unsigned n = unsigned(_mm_popcnt_u64(in[g]));
    if constexpr (b1) {
      _mm256_storeu_si256((__m256i*)out[g], _mm512_castsi512_si256(c));
      if (n > 32) _mm256_storeu_si256((__m256i*)(out[g] + 32), _mm512_extracti64x4_epi64(c, 1));
    } else {
      _mm512_storeu_si512(out[g], c);
    }
    out[g] += n;
  }
}
template <int loads, bool b1, bool kmasks>
HS_AVX512 void count_all(const std::uint8_t* p, std::uint64_t n, Avx512Counts& s, Bins& totals) {
  for (std::uint64_t done = 0; done < n;) {
    const std::uint64_t take = std::min(kBinBlock, n - done);
    std::uint8_t* out[kGroups];
    for (int g = 0; g < kGroups; ++g) out[g] = s.group[g].buf + s.group[g].left;
    std::uint64_t i = 0;
    for (; i + 64 <= take; i += 64) bin_v<b1, kmasks>(_mm512_loadu_si512(p + done + i), ~0ull, out);
    if (i < take) {
      const std::uint64_t valid = (1ull << (take - i)) - 1;
      bin_v<b1, kmasks>(_mm512_maskz_loadu_epi8(valid, p + done + i), valid, out);
    }
    for (int g = 0; g < kGroups; ++g) {
      Group& grp = s.group[g];
      const std::uint64_t held = std::uint64_t(out[g] - grp.buf), whole = held / 64;
      count_v<loads>(grp.buf, whole, grp, g, totals);
      if (whole) _mm512_store_si512(grp.buf, _mm512_loadu_si512(grp.buf + 64 * whole));
      grp.left = int(held % 64);
    }
    done += take;
  }
}
using CountFn = void (*)(const std::uint8_t*, std::uint64_t, Avx512Counts&, Bins&);
struct Variant {
  const char* name;
  CountFn count;
};
hs::Bins histogram(CountFn count, const std::vector<std::uint8_t>& m) {
  auto s = std::make_unique<Avx512Counts>();
  hs::Bins t{};
  count(m.data(), m.size(), *s, t), finish_avx512(*s, t);
  return t;
}
void parallel(CountFn count, const std::vector<std::uint8_t>& m, int threads) {  // as run_avx512
#pragma omp parallel num_threads(threads)
  {
    auto s = std::make_unique<Avx512Counts>();
    hs::Bins mine{};
#pragma omp for schedule(dynamic, 1) nowait
    for (std::int64_t c = 0; c < chunks_of(m.size()); ++c) {
      const std::uint64_t lo = std::uint64_t(c) * kChunkBytes;
      count(m.data() + lo, std::min(kChunkBytes, m.size() - lo), *s, mine);
    }
    finish_avx512(*s, mine);
    asm volatile("" ::"r"(mine.data()) : "memory");
  }
}
}}  // namespace hs::cpu::(anonymous)
using namespace hs::cpu;
static double cpu_now() { timespec t{}; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static double wall_now() { timespec t{}; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char** argv) {
  if (argc < 4) { std::puts("usage: kernels MiB THREADS INPUT... (the study's input names)"); return 2; }
  const std::uint64_t n = std::strtoull(argv[1], nullptr, 10) << 20;
  const int threads = std::atoi(argv[2]);
  const Variant all[] = {{"cur", count_avx512}, {"cur again", count_avx512},
                         {"L4", count_all<4, false, false>}, {"L2", count_all<2, false, false>},
                         {"L1", count_all<1, false, false>}, {"B1", count_all<8, true, false>},
                         {"K", count_all<8, false, true>}, {"B1+K", count_all<8, true, true>},
                         {"L4+B1+K", count_all<4, true, true>}, {"L8 (cur, copied)", count_all<8, false, false>},
                         {"L1+K", count_all<1, false, true>}, {"L2+K", count_all<2, false, true>}};
  // VARIANTS=name,name,... picks some (cur and its repeat always run)
  std::vector<Variant> vs(all, all + 2);
  const std::string pick = std::getenv("VARIANTS") ? std::string(",") + std::getenv("VARIANTS") + "," : "";
  for (auto& v : all)
    if (&v >= all + 2 && (pick.empty() || pick.find("," + std::string(v.name) + ",") != std::string::npos)) vs.push_back(v);
  const int kv = int(vs.size());
  for (int a = 3; a < argc; ++a) {
    const std::vector<std::uint8_t> m = hs::make_input(hs::parse_input(argv[a]), n);
    hs::Bins want{};
    for (auto b : m) ++want[b];
    for (auto& v : vs)
      if (histogram(v.count, m) != want) { std::printf("%s miscounts %s\n", v.name, argv[a]); return 1; }
    std::vector<std::vector<double>> t(kv);
    const int reps = std::max<int>(1, int((32ull << 20) / n));
    auto s = std::make_unique<Avx512Counts>();
    hs::Bins sink{};
    for (int round = 0; round < 15; ++round)
      for (int j = 0; j < kv; ++j) {
        const int e = (round + j) % kv;
        const double t0 = threads == 1 ? cpu_now() : wall_now();
        for (int r = 0; r < reps; ++r) threads == 1 ? vs[e].count(m.data(), m.size(), *s, sink) : parallel(vs[e].count, m, threads);
        t[e].push_back(((threads == 1 ? cpu_now() : wall_now()) - t0) / reps);
      }
    std::printf("%-14s %4llu MiB %d thread(s):", argv[a], (unsigned long long)(n >> 20), threads);
    for (int e = 0; e < kv; ++e) {
      std::sort(t[e].begin(), t[e].end());
      std::printf("  %s %.2f (%.2f-%.2f)", vs[e].name, n / t[e][7] / 1e9, n / t[e][12] / 1e9, n / t[e][2] / 1e9);
    }
    std::printf(" GB/s\n");
  }
}
