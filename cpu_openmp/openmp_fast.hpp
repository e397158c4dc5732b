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
//                 extra (Harold Aptroot's positional popcount, written anew).
//   scalar-8x16   elsewhere: 8 interleaved private 16-bit sub-histograms
//                 (byte j of every 8-byte word goes to sub-histogram j, so
//                 runs of one byte value update 8 counters, not one),
//                 flushed into 64-bit totals every 65,535 words.
//
//                      build/histostudy count --impl openmp_fast FILE
//                      build/histostudy run --impl openmp_fast,openmp_private,reference --experiment lesson,sweep
//                      tools/explorations/cpu-avx512/explore.sh 64MiB 2 15 uniform one_byte   (both paths)
//
// Reads: the input once (8-byte words, or 64-byte vectors). Contends on:
// nothing shared; each thread has its own counters, merged once at the end.
// Why it is faster than openmp_private: one increment per byte on one
// counter per value waits, on one_byte, for the last store to forward
// (about 0.9 GB/s); eight sub-histograms, or no counters in memory at all,
// break that chain. The measurements behind both paths and every constant,
// and what was tried: docs/decisions/openmp-fast.md.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

#include "driver/bins.hpp"

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
