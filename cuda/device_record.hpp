// The GPU's identity and memory system for the environment record:
// everything GpuExecutor::device_json() reports beyond its launch limits.
#pragma once
#include <nlohmann/json.hpp>

namespace hs::gpu {

// UUID ("GPU-8c0f...", the form nvidia-smi and NVML use), PCI bus id,
// memory size, L2 size, memory bus width and peak memory clock, the
// theoretical bandwidth they give, peak SM clock and ECC, for `device`.
nlohmann::json device_record(int device);

}  // namespace hs::gpu
