// Launch policy: how an implementation is run (grid, block, copies, passes,
// threads, counter width), kept apart from kernel bodies and dispatch, and
// written into every result row.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace hs {

struct LaunchPolicy {
  int grid = 0;            // GPU blocks (0: implementation default)
  int block = 0;           // GPU threads per block (0: default)
  int threads = 0;         // CPU threads (0: OMP_NUM_THREADS or one per core)
  int passes = 0;          // passes over the input (P, where an implementation takes passes; 0: its default)
  int copies = 1;          // private histogram copies per block
  int counter_bits = 32;   // width of the global bins the implementation adds into
  std::uint64_t shared_bytes = 0;  // shared memory per block

  std::string str() const;
  nlohmann::json to_json() const;
};

}  // namespace hs
