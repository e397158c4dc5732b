// The fast CPU histogram (family: openmp_fast). openmp_private stays the
// lesson-faithful subject; this one is the engineered peer. Each OpenMP
// thread takes the input in 524,280-byte chunks handed out dynamically and
// counts them by one of two paths, chosen once at run time from the CPU's
// features (openmp_fast_path() names the one taken):
//
//   avx512        where the CPU has AVX-512 F, BW, VBMI, VBMI2, BITALG and
//                 GFNI (Ice Lake and later Xeons, AMD Zen 4 and later).
//                 Bytes are binned by their top two bits (a byte compare into
//                 a mask register and a compressing store per quarter of the
//                 byte range, 2 KiB at a time); in each
//                 bin, every byte's low six bits become a one-hot 64-bit lane
//                 (a rotate of 1, its count loaded unaligned, not shifted),
//                 and full adders (vpternlog) sum the one-hots bit-sliced
//                 into digits of weight 1, 2, 4 and 8; each weight-16 carry
//                 is column-counted (byte transpose, GF(2) affine bit
//                 transpose, byte popcount) into byte counters flushed to
//                 64-bit totals before they can wrap. No counter
//                 in memory is incremented, so repeated values cost nothing
//                 extra. The idea is Harold Aptroot's ("Histogramming bytes
//                 with positional popcount", bitmath.blogspot.com, 2024),
//                 written anew here. On the 2-core AMD EPYC (Zen 5): 19.6-21.8
//                 GB/s on every lesson and sweep input at 67,109,475 bytes,
//                 against 8.3-14.4 for scalar-8x16 in the same runs; about
//                 11 GB/s a core, compute-bound (26-48% of the read floor).
//                 On a Zen 4 (512-bit work on 256-bit units): 0.52 cycles a
//                 byte on one core at 1 MiB, half binning, half counting
//                 (data/explorations/20261203T1630Z_cpu_kernel/runs/parts.txt);
//                 this loop in eight study runs on one 2-core guest, 4.2-14.1
//                 GB/s, at least 10 on every input in one of them, the host
//                 setting the pace (data/explorations/20261203T1850Z_zen4_hours);
//                 a day later, on a quieter host, in 11 of 14 (10.2-14.4 GB/s
//                 where met; data/explorations/20261204T2219Z_zen4_series).
//   scalar-8x16   elsewhere: 8 interleaved private 16-bit sub-histograms
//                 (byte j of every 8-byte word goes to sub-histogram j, so
//                 runs of one byte value update 8 counters, not one),
//                 flushed into 64-bit totals every 65,535 words.
//
//                      histostudy count --impl openmp_fast FILE
//                      histostudy run --impl openmp_fast,openmp_private,reference --experiment lesson,sweep
//                      data/explorations/cpu-avx512/explore.sh 64MiB 2 15 uniform one_byte   (both paths)
//
// The AVX-512 path's measurements and what was tried for it are in
// data/explorations/cpu-avx512/README.md (Zen 5) and
// data/explorations/20261203T1630Z_cpu_kernel/README.md (Zen 4 and the H200
// host's Xeon: unaligned loads for the shifts and a fourth digit plane,
// 8-22% faster on the Xeon, level or ahead on Zen 4, and kept; 32-byte or
// masked stores, 256-bit compresses, binning one block while counting the
// last, none faster) and data/explorations/20261203T1845Z_zen4_kernel/README.md
// (Zen 4: group masks by compares, up to 8% faster, kept; fewer unaligned loads
// with shifts no faster, 32-byte stores not clearly) and
// data/explorations/20261204T2145Z_eight_groups/README.md (Zen 4: eight groups
// with one-hot dwords 10-32% slower; binning blocks of 4-16 KiB slower on two
// threads). What follows is the scalar path's.
//
// Why it is faster. openmp_private does one increment per byte on one
// counter per value: on one_byte (and distinct_1, distinct_2) each increment
// waits for the previous one's store to forward to its load, about 0.9 GB/s
// whatever the thread count. Eight sub-histograms break that chain; 8-byte
// reads with shifts replace one load per byte; dynamic chunks keep both
// cores busy to the end. What is left is about one counter update per byte
// per cycle on each core, so on uniform bytes it stayed near 40-50% of the
// read floor of then (8-byte words; the floor now reads with vectors).
//
// How the constants were chosen: candidates were registered for a while as
// extra implementations and run with
//   histostudy run --impl <candidates>,openmp_private --experiment lesson --no-save
// on this machine (2-core Xeon, KVM, g++ 12 -O3 -march=x86-64, 2 threads,
// 67,109,475 bytes), each run started once the machine had been idle for 3 s;
// figures are the median over 5 to 8 such runs of each run's median GB/s.
// Each constant's comment in openmp_fast.cpp cites its figures.
//
// Tried and did not pay (figures as above, "openmp_fast" being the chosen
// design: uniform 4.4-4.55 GB/s, one_byte 4.0-4.6 GB/s):
//   - 4 sub-histograms: one_byte 3.1 GB/s; 2: one_byte 1.75 GB/s.
//   - 32-bit sub-counters (padded by 64 bytes against 4 KiB aliasing between
//     sub-histograms): uniform 3.6 GB/s, one_byte 3.75 GB/s, no better.
//   - a static split into one range per thread: uniform 3.4, one_byte 3.3
//     GB/s (one thread finishes late; dynamic chunks 4.4 and 4.0).
//   - chunks of 4 flush blocks (2 MiB): uniform 4.4, one_byte 4.0, the same
//     as 1 block, which balances better at small sizes.
//   - letting GCC extract each byte with its own shift of the word (no asm
//     barrier): uniform 4.4, one_byte 3.55 GB/s against 4.55 and 4.6.
//   In a scratch single-thread benchmark (min of 11 runs, noisier): a table
//   of 65,536 counters indexed by byte pairs (half the increments) was ~1.5x
//   faster on English text and distinct_4..32 but ~0.6x on uniform and
//   one_byte (the table spills L1); byte loads instead of word shifts, a lea
//   per counter address (non-indexed read-modify-write), and 16
//   sub-histograms over 2 words per iteration were all within noise.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

#include "study/bins.hpp"

namespace hs::cpu {

// Words (8 bytes) counted between flushes of the 16-bit sub-histograms, and
// the unit of work handed to a thread: 8 x 65,535 = 524,280 bytes.
inline constexpr std::uint64_t fast_flush_words = 65535;

// Adds the histogram of `data` into `bins` (never clears it), by the path
// openmp_fast_path() names. `threads` <= 0 means OpenMP's default
// (OMP_NUM_THREADS, else one per core).
void openmp_fast(std::span<const std::uint8_t> data, Bins& bins, int threads);

// The code paths of openmp_fast (see above).
enum class FastPath { scalar_8x16, avx512 };

// "scalar-8x16" or "avx512": the path openmp_fast takes on this CPU, chosen
// once at run time from the CPU's features.
std::string_view openmp_fast_path();
FastPath openmp_fast_chosen_path();
std::string_view fast_path_name(FastPath path);
bool fast_path_supported(FastPath path);

// openmp_fast by a given path, for tests and benchmarks. Throws Unavailable
// for a path this CPU cannot run.
void openmp_fast_via(FastPath path, std::span<const std::uint8_t> data, Bins& bins, int threads);

}  // namespace hs::cpu
