// CPU implementations of the 256-bin byte histogram (family: openmp).
//
//   reference          single thread, one increment per byte; written to be
//                      obviously right: the oracle every other variant is
//                      checked against.            histostudy count --impl reference FILE
//   openmp_private     the lesson's privatization on the CPU: each OpenMP
//                      thread counts into its own 256 counters in the hot
//                      loop and merges them once at the end; no shared
//                      counter is touched in the loop.
//                                                  histostudy count --impl openmp_private FILE
//   openmp_read_floor  reads every byte and sums them, no counting: the CPU's
//                      parallel read floor. It reads with the widest loads the
//                      CPU has (openmp_read_floor_path(): "avx512bw", "avx2"
//                      or "8-byte words"), summed by vpsadbw, so that no
//                      vectorized histogram outruns it.
//                                                  histostudy run --impl openmp_read_floor
//
// Every function adds into `bins` (it never clears it), so the timed loop
// never zeroes the bins. `threads` <= 0 means OpenMP's default
// (OMP_NUM_THREADS, else one per core).
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

#include "driver/bins.hpp"

namespace hs::cpu {

void reference(std::span<const std::uint8_t> data, Bins& bins);
void openmp_private(std::span<const std::uint8_t> data, Bins& bins, int threads);
// Returns the byte sum so the compiler cannot drop the reads.
std::uint64_t openmp_read_floor(std::span<const std::uint8_t> data, int threads);
// The loads openmp_read_floor uses on this CPU, chosen once at run time.
std::string_view openmp_read_floor_path();

// The thread count a call with `threads` would ask for.
int resolve_threads(int threads);

// The threads a parallel region that asks for `threads` gets: fewer where
// OMP_THREAD_LIMIT (or OMP_DYNAMIC) says so.
int team_size(int threads);

// The most CPU threads a run may ask for, by --threads or OMP_NUM_THREADS
// (libgomp crashes creating 100,000).
inline constexpr int kMaxThreads = 4096;

}  // namespace hs::cpu
