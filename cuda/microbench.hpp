// The H200's (or any GPU's) shared-memory update rates, measured: how many
// counter updates one SM makes per clock with shared atomics (every lane its
// own bank, or every lane one address) and with plain load-add-store on
// lane-private counters. One-update-per-byte designs cannot beat these, so
// the paper sets each kernel against them (docs/study-spec.md section 5), not only against the
// read floor.
#pragma once
#include <string>
#include <vector>

namespace hs::gpu {

struct SharedRate {
  std::string pattern;          // atomic_distinct, atomic_same, rmw_distinct
  double updates_per_clock_sm;  // per SM, from clock64 over the timed loop
  double ceiling_gbps;          // one update per byte at the SM clock: the GB/s it allows
};

struct SharedRates {
  int sm_count = 0;
  double sm_clock_mhz = 0;  // the clock the ceilings assume (cudaDevAttrClockRate)
  int threads_per_block = 0, blocks_per_sm = 0;
  std::vector<SharedRate> rates;
};

SharedRates measure_shared_rates(int device);

}  // namespace hs::gpu
