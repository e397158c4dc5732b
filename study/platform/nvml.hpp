// The NVIDIA driver as NVML reports it: its version, and one GPU's state
// (ECC, persistence, power, clocks, clock-event reasons, temperature).
// libnvidia-ml.so.1 is loaded at run time, so the program runs, and says
// why these are missing, where there is no driver.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace hs::nvml {

// {"driver_version": "580.159.04", "source": "nvml"}; the source is
// "/proc/driver/nvidia/version" where NVML is missing, and the version is
// null (with "unavailable": why) where neither is there.
nlohmann::json driver();

// One snapshot of the GPU whose UUID is `uuid` ("GPU-8c0f..."), taken now:
// values NVML could not give are listed under "unavailable" with its
// reason. {"unavailable": why} when NVML itself is missing.
nlohmann::json gpu_state(const std::string& uuid);

}  // namespace hs::nvml
