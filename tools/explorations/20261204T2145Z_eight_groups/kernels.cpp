// Scratch behind README.md: openmp_fast's avx512 path as committed at 7e2ab1f ("cur", twice: its A/A pair)
// against binning into eight groups on the top three bits, whole kernel (bin + count), in rotation, 15 rounds.
// Built by explore.sh as
//   kernels MiB THREADS INPUT...   (THREADS 1: one core by its CPU clock; more: the team by the wall clock)
// Variants:
//   G8      eight groups (top three bits), morsels 0..31 as one-hot dwords: four rotates and three full adders
//           a vector of morsels where four groups take eight and seven, for eight compressing stores a vector
//           of input where four groups take four; binning block 2 KiB (eight buffers: 17 KiB of L1)
//   G8/1K   the same with a 1 KiB binning block (9 KiB of buffers)
//   G4/xK   the committed four groups with a binning block of x KiB (2: the committed loop's own, a copy check)
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
constexpr int kGroups8 = 8;
constexpr int kMorsels8 = 32;
template <std::uint64_t block>
struct Group8 {
  alignas(64) std::uint8_t planes[kPlanes][64]{};
  alignas(64) std::uint8_t carries[64]{};
  int column_adds = 0;
  int left = 0;
  alignas(64) std::uint8_t buf[64 + block + 64]{};
};
template <std::uint64_t block>
struct Counts8 {
  Group8<block> group[kGroups8];
};
// Byte m of a column count is morsel m % 32's count in dword half m / 32 of the 8 qwords.
template <class G>
void flush8(G& g, int group, Bins& totals) {
  for (int m = 0; m < 64; ++m) totals[group * kMorsels8 + m % kMorsels8] += kCarryWeight * g.carries[m];
  std::memset(g.carries, 0, sizeof g.carries);
  g.column_adds = 0;
}
template <class G>
HS_AVX512 inline void add_carry8(__m512i carry, __m512i& carries, G& g, int group, Bins& totals) {
  carries = _mm512_add_epi8(carries, column_counts(carry));
  if (++g.column_adds == kMaxColumnAdds) {
    _mm512_store_si512(g.carries, carries);
    flush8(g, group, totals);
    carries = _mm512_setzero_si512();
  }
}
// The 64 morsels at q (0..31) into d0, d1; returns the weight-4 carry. Dword j of the load at q + k starts with
// byte 4j + k, and a dword rotate counts modulo 32: no shifts (the loads read up to 3 bytes past the vector).
HS_AVX512 inline __m512i fold8(const std::uint8_t* q, __m512i& d0, __m512i& d1) {
  const __m512i one = _mm512_set1_epi32(1);
  __m512i x[4];
  for (int k = 0; k < 4; ++k) x[k] = _mm512_rolv_epi32(one, _mm512_loadu_si512(q + k));
  const __m512i t0 = add_into(d0, x[0], x[1]), t1 = add_into(d0, x[2], x[3]);
  return add_into(d1, t0, t1);
}
template <class G>
HS_AVX512 void count8(const std::uint8_t* p, std::uint64_t vectors, G& g, int group, Bins& totals) {
  __m512i d0 = _mm512_load_si512(g.planes[0]), d1 = _mm512_load_si512(g.planes[1]);
  __m512i d2 = _mm512_load_si512(g.planes[2]), d3 = _mm512_load_si512(g.planes[3]);
  __m512i carries = _mm512_load_si512(g.carries);
  const __m512i zero = _mm512_setzero_si512();
  std::uint64_t i = 0;
  for (; i + 4 <= vectors; i += 4) {
    const __m512i f0 = fold8(p + 64 * i, d0, d1), f1 = fold8(p + 64 * i + 64, d0, d1);
    const __m512i f2 = fold8(p + 64 * i + 128, d0, d1), f3 = fold8(p + 64 * i + 192, d0, d1);
    const __m512i e0 = add_into(d2, f0, f1), e1 = add_into(d2, f2, f3);
    add_carry8(add_into(d3, e0, e1), carries, g, group, totals);
  }
  if (i < vectors) {  // one to three vectors: the missing ones' carries are zero
    __m512i f[4] = {zero, zero, zero, zero};
    for (int k = 0; i + k < vectors; ++k) f[k] = fold8(p + 64 * (i + k), d0, d1);
    const __m512i e0 = add_into(d2, f[0], f[1]), e1 = add_into(d2, f[2], f[3]);
    add_carry8(add_into(d3, e0, e1), carries, g, group, totals);
  }
  _mm512_store_si512(g.planes[0], d0), _mm512_store_si512(g.planes[1], d1);
  _mm512_store_si512(g.planes[2], d2), _mm512_store_si512(g.planes[3], d3);
  _mm512_store_si512(g.carries, carries);
}
HS_AVX512 inline void bin8(__m512i v, __mmask64 valid, std::uint8_t* out[kGroups8]) {
  const __m512i morsels = _mm512_and_si512(v, _mm512_set1_epi8(0x1F));
  const __m512i tops = _mm512_and_si512(v, _mm512_set1_epi8(char(0xE0)));
  __mmask64 in[kGroups8];
  for (int g = 0; g < kGroups8; ++g) in[g] = _mm512_mask_cmpeq_epi8_mask(valid, tops, _mm512_set1_epi8(char(g << 5)));
  for (int g = 0; g < kGroups8; ++g) {
    _mm512_storeu_si512(out[g], _mm512_maskz_compress_epi8(in[g], morsels));
    out[g] += _mm_popcnt_u64(in[g]);
  }
}
template <std::uint64_t block>
HS_AVX512 void count_g8(const std::uint8_t* p, std::uint64_t n, Counts8<block>& s, Bins& totals) {
  for (std::uint64_t done = 0; done < n;) {
    const std::uint64_t take = std::min(block, n - done);
    std::uint8_t* out[kGroups8];
    for (int g = 0; g < kGroups8; ++g) out[g] = s.group[g].buf + s.group[g].left;
    std::uint64_t i = 0;
    for (; i + 64 <= take; i += 64) bin8(_mm512_loadu_si512(p + done + i), ~0ull, out);
    if (i < take) {
      const std::uint64_t valid = (1ull << (take - i)) - 1;
      bin8(_mm512_maskz_loadu_epi8(valid, p + done + i), valid, out);
    }
    for (int g = 0; g < kGroups8; ++g) {
      auto& grp = s.group[g];
      const std::uint64_t held = std::uint64_t(out[g] - grp.buf), whole = held / 64;
      count8(grp.buf, whole, grp, g, totals);
      if (whole) _mm512_store_si512(grp.buf, _mm512_loadu_si512(grp.buf + 64 * whole));
      grp.left = int(held % 64);
    }
    done += take;
  }
}
template <std::uint64_t block>
HS_AVX512 void finish_g8(Counts8<block>& s, Bins& totals) {
  for (int g = 0; g < kGroups8; ++g) {
    auto& grp = s.group[g];
    flush8(grp, g, totals);
    for (int w = 0; w < kPlanes; ++w) {
      alignas(64) std::uint8_t counts[64];
      _mm512_store_si512(counts, column_counts(_mm512_load_si512(grp.planes[w])));
      for (int m = 0; m < 64; ++m) totals[g * kMorsels8 + m % kMorsels8] += std::uint64_t(counts[m]) << w;
    }
    for (int i = 0; i < grp.left; ++i) ++totals[g * kMorsels8 + grp.buf[i]];
    grp = Group8<block>{};
  }
}
// The committed four-group loop with its binning block as a parameter (buffers of their own; the committed
// Group's planes, carries and count of held morsels).
template <std::uint64_t block>
struct Counts4 {
  Avx512Counts s;
  alignas(64) std::uint8_t buf[kGroups][64 + block + 64]{};
};
template <std::uint64_t block>
HS_AVX512 void count_g4(const std::uint8_t* p, std::uint64_t n, Counts4<block>& c, Bins& totals) {
  for (std::uint64_t done = 0; done < n;) {
    const std::uint64_t take = std::min(block, n - done);
    std::uint8_t* out[kGroups];
    for (int g = 0; g < kGroups; ++g) out[g] = c.buf[g] + c.s.group[g].left;
    std::uint64_t i = 0;
    for (; i + 64 <= take; i += 64) bin_vector(_mm512_loadu_si512(p + done + i), ~0ull, out);
    if (i < take) {
      const std::uint64_t valid = (1ull << (take - i)) - 1;
      bin_vector(_mm512_maskz_loadu_epi8(valid, p + done + i), valid, out);
    }
    for (int g = 0; g < kGroups; ++g) {
      Group& grp = c.s.group[g];
      const std::uint64_t held = std::uint64_t(out[g] - c.buf[g]), whole = held / 64;
      count_morsels(c.buf[g], whole, grp, g, totals);
      if (whole) _mm512_store_si512(c.buf[g], _mm512_loadu_si512(c.buf[g] + 64 * whole));
      grp.left = int(held % 64);
    }
    done += take;
  }
}
template <std::uint64_t block>
HS_AVX512 void finish_g4(Counts4<block>& c, Bins& totals) {
  for (int g = 0; g < kGroups; ++g) {
    for (int i = 0; i < c.s.group[g].left; ++i) ++totals[g * kMorsels + c.buf[g][i]];
    c.s.group[g].left = 0;
  }
  finish_avx512(c.s, totals);
}
// A kernel and the state it keeps between chunks, behind one interface.
struct Kernel {
  virtual ~Kernel() = default;
  virtual void count(const std::uint8_t* p, std::uint64_t n, Bins& totals) = 0;
  virtual void finish(Bins& totals) = 0;
};
struct Cur : Kernel {
  std::unique_ptr<Avx512Counts> s = std::make_unique<Avx512Counts>();
  void count(const std::uint8_t* p, std::uint64_t n, Bins& t) override { count_avx512(p, n, *s, t); }
  void finish(Bins& t) override { finish_avx512(*s, t); }
};
template <std::uint64_t block>
struct G8 : Kernel {
  std::unique_ptr<Counts8<block>> s = std::make_unique<Counts8<block>>();
  void count(const std::uint8_t* p, std::uint64_t n, Bins& t) override { count_g8<block>(p, n, *s, t); }
  void finish(Bins& t) override { finish_g8<block>(*s, t); }
};
template <std::uint64_t block>
struct G4 : Kernel {
  std::unique_ptr<Counts4<block>> s = std::make_unique<Counts4<block>>();
  void count(const std::uint8_t* p, std::uint64_t n, Bins& t) override { count_g4<block>(p, n, *s, t); }
  void finish(Bins& t) override { finish_g4<block>(*s, t); }
};
using Make = std::unique_ptr<Kernel> (*)();
struct Variant {
  const char* name;
  Make make;
};
hs::Bins histogram(Make make, const std::vector<std::uint8_t>& m) {
  auto k = make();
  hs::Bins t{};
  k->count(m.data(), m.size(), t), k->finish(t);
  return t;
}
void parallel(Make make, const std::vector<std::uint8_t>& m, int threads) {  // as run_avx512
#pragma omp parallel num_threads(threads)
  {
    auto k = make();
    hs::Bins mine{};
#pragma omp for schedule(dynamic, 1) nowait
    for (std::int64_t c = 0; c < chunks_of(m.size()); ++c) {
      const std::uint64_t lo = std::uint64_t(c) * kChunkBytes;
      k->count(m.data() + lo, std::min(kChunkBytes, m.size() - lo), mine);
    }
    k->finish(mine);
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
  const Variant vs[] = {{"cur", [] { return std::unique_ptr<Kernel>(new Cur); }},
                        {"cur again", [] { return std::unique_ptr<Kernel>(new Cur); }},
                        {"G8", [] { return std::unique_ptr<Kernel>(new G8<2048>); }},
                        {"G8/1K", [] { return std::unique_ptr<Kernel>(new G8<1024>); }},
                        {"G4/2K", [] { return std::unique_ptr<Kernel>(new G4<2048>); }},
                        {"G4/4K", [] { return std::unique_ptr<Kernel>(new G4<4096>); }},
                        {"G4/8K", [] { return std::unique_ptr<Kernel>(new G4<8192>); }},
                        {"G4/16K", [] { return std::unique_ptr<Kernel>(new G4<16384>); }}};
  const int kv = int(std::size(vs));
  for (int a = 3; a < argc; ++a) {
    const std::vector<std::uint8_t> m = hs::make_input(hs::parse_input(argv[a]), n);
    hs::Bins want{};
    for (auto b : m) ++want[b];
    for (auto& v : vs)
      if (histogram(v.make, m) != want) { std::printf("%s miscounts %s\n", v.name, argv[a]); return 1; }
    // an odd length too: the masked tail and the one-to-three-vector remainders
    const std::vector<std::uint8_t> odd(m.begin(), m.begin() + std::min<std::uint64_t>(m.size(), 100003));
    hs::Bins want_odd{};
    for (auto b : odd) ++want_odd[b];
    for (auto& v : vs)
      if (histogram(v.make, odd) != want_odd) { std::printf("%s miscounts %s (100,003 bytes)\n", v.name, argv[a]); return 1; }
    std::vector<std::vector<double>> t(kv);
    const int reps = std::max<int>(1, int((32ull << 20) / n));
    std::vector<std::unique_ptr<Kernel>> ks;
    for (auto& v : vs) ks.push_back(v.make());
    hs::Bins sink{};
    for (int round = 0; round < 15; ++round)
      for (int j = 0; j < kv; ++j) {
        const int e = (round + j) % kv;
        const double t0 = threads == 1 ? cpu_now() : wall_now();
        for (int r = 0; r < reps; ++r) threads == 1 ? ks[e]->count(m.data(), m.size(), sink) : parallel(vs[e].make, m, threads);
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
