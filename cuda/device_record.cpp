#include "cuda/device_record.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <cstdio>
#include <string>

#include "cuda/check.hpp"

namespace hs::gpu {
namespace {

// An attribute for the record, or null where this driver does not report
// it: a missing fact must not stop a run.
nlohmann::json attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  if (cudaDeviceGetAttribute(&value, attr, device) == cudaSuccess) return value;
  (void)cudaGetLastError();  // clear it: an answer, not a fault
  return nullptr;
}

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx": 16 bytes grouped 4-2-2-2-6.
std::string uuid_string(const cudaUUID_t& uuid) {
  std::string out = "GPU";
  for (int i = 0; i < 16; ++i) {
    if (i == 0 || i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    std::array<char, 3> hex{};
    std::snprintf(hex.data(), hex.size(), "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    out += hex.data();
  }
  return out;
}

}  // namespace

nlohmann::json device_record(int device) {
  cudaDeviceProp prop{};
  HS_CUDA(cudaGetDeviceProperties(&prop, device));
  std::array<char, 32> pci{};
  HS_CUDA(cudaDeviceGetPCIBusId(pci.data(), int(pci.size()), device));
  const nlohmann::json memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, device);
  const nlohmann::json bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
  const nlohmann::json sm_clock_khz = attribute(cudaDevAttrClockRate, device);
  const auto mhz = [](const nlohmann::json& khz) {
    return khz.is_null() ? khz : nlohmann::json(khz.get<double>() / 1e3);
  };
  // Two transfers per memory clock, as deviceQuery and the vendors' data
  // sheets count them (DDR and HBM alike).
  nlohmann::json bandwidth_gbps = nullptr;
  if (!memory_clock_khz.is_null() && !bus_width_bits.is_null())
    bandwidth_gbps = 2.0 * memory_clock_khz.get<double>() * 1e3 * bus_width_bits.get<double>() / 8.0 / 1e9;
  const nlohmann::json ecc = attribute(cudaDevAttrEccEnabled, device);
  return {{"uuid", uuid_string(prop.uuid)},
          {"pci_bus_id", pci.data()},
          {"memory_bytes", prop.totalGlobalMem},
          {"l2_cache_bytes", attribute(cudaDevAttrL2CacheSize, device)},
          {"memory_bus_width_bits", bus_width_bits},
          {"memory_clock_peak_mhz", mhz(memory_clock_khz)},
          {"theoretical_bandwidth_gbps", bandwidth_gbps},
          {"sm_clock_peak_mhz", mhz(sm_clock_khz)},
          {"ecc_enabled", ecc.is_null() ? ecc : nlohmann::json(ecc.get<int>() != 0)}};
}

}  // namespace hs::gpu
