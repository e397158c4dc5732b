#include "platform/nvml.hpp"

#include <array>
#include <fstream>
#include <regex>
#include <utility>

#include "platform/dynamic_library.hpp"
#include "platform/env.hpp"
#include "platform/error.hpp"

// The few NVML declarations used, as nvml.h (not needed to build) has them.
// Only their types are used here: the functions come from the library.
extern "C" {
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
using nvmlEnableState_t = int;
using nvmlClockType_t = int;
using nvmlTemperatureSensors_t = int;
using nvmlPstates_t = int;
nvmlReturn_t nvmlInit_v2();
nvmlReturn_t nvmlShutdown();
const char* nvmlErrorString(nvmlReturn_t result);
nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned length);
nvmlReturn_t nvmlSystemGetNVMLVersion(char* version, unsigned length);
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char* uuid, nvmlDevice_t* device);
nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t* current, nvmlEnableState_t* pending);
nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t* mode);
nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t* state);
nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned* milliwatts);
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned* milliwatts);
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned* milliwatts);
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensor, unsigned* celsius);
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned* mhz);
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned* mhz);
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long* reasons);
}

namespace hs::nvml {
namespace {

constexpr nvmlReturn_t kSuccess = 0;
constexpr nvmlEnableState_t kEnabled = 1;
constexpr nvmlTemperatureSensors_t kGpuSensor = 0;
constexpr unsigned kVersionBytes = 96;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80
const std::array<std::pair<const char*, nvmlClockType_t>, 3> kClocks = {
    {{"graphics", 0}, {"sm", 1}, {"memory", 2}}};
// nvmlClocksEventReason* bits (nvml.h), named as nvidia-smi -q names them.
const std::array<std::pair<unsigned long long, const char*>, 9> kClockEventReasons = {{
    {0x1, "gpu_idle"},
    {0x2, "applications_clocks_setting"},
    {0x4, "sw_power_cap"},
    {0x8, "hw_slowdown"},
    {0x10, "sync_boost"},
    {0x20, "sw_thermal_slowdown"},
    {0x40, "hw_thermal_slowdown"},
    {0x80, "hw_power_brake_slowdown"},
    {0x100, "display_clock_setting"},
}};

#define HS_NVML_FUNCTIONS(F) \
  F(nvmlInit_v2) \
  F(nvmlShutdown) \
  F(nvmlErrorString) \
  F(nvmlSystemGetDriverVersion) \
  F(nvmlSystemGetNVMLVersion) \
  F(nvmlDeviceGetHandleByUUID) \
  F(nvmlDeviceGetEccMode) \
  F(nvmlDeviceGetPersistenceMode) \
  F(nvmlDeviceGetPerformanceState) \
  F(nvmlDeviceGetPowerManagementLimit) \
  F(nvmlDeviceGetEnforcedPowerLimit) \
  F(nvmlDeviceGetPowerUsage) \
  F(nvmlDeviceGetTemperature) \
  F(nvmlDeviceGetClockInfo) \
  F(nvmlDeviceGetMaxClockInfo)

struct Api {
  HS_NVML_FUNCTIONS(HS_FUNCTION_MEMBER)
  decltype(&::nvmlDeviceGetCurrentClocksEventReasons) nvmlDeviceGetCurrentClocksEventReasons = nullptr;
};

Api load_api() {
  const DynamicLibrary nvml("libnvidia-ml.so.1");
  Api api;
  HS_LOAD_FUNCTIONS(nvml, api, HS_NVML_FUNCTIONS);
  try {
    HS_LOAD_FUNCTION(nvml, api, nvmlDeviceGetCurrentClocksEventReasons);
  } catch (const Unavailable&) {  // drivers before 535 have it under its old name
    api.nvmlDeviceGetCurrentClocksEventReasons =
        nvml.function<decltype(&::nvmlDeviceGetCurrentClocksEventReasons)>("nvmlDeviceGetCurrentClocksThrottleReasons");
  }
  return api;
}

// NVML initialized for one query, shut down after it (NVML counts them).
class Session {
 public:
  Session() : api_(load_api()) { check(api_.nvmlInit_v2(), "nvmlInit_v2"); }
  ~Session() { (void)api_.nvmlShutdown(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const Api& api() const { return api_; }
  std::string error(nvmlReturn_t result) const { return api_.nvmlErrorString(result); }
  void check(nvmlReturn_t result, const char* call) const {
    if (result != kSuccess) throw Unavailable(std::string(call) + " failed: " + error(result));
  }

 private:
  Api api_;
};

// Records `name` = convert(value) when `result` is success, else NVML's reason.
class StateBuilder {
 public:
  explicit StateBuilder(const Session& nvml) : nvml_(nvml) {}
  template <typename Value, typename Convert>
  void add(const std::string& name, nvmlReturn_t result, const Value& value, Convert convert) {
    if (result == kSuccess)
      state_[nlohmann::json::json_pointer("/" + name)] = convert(value);
    else
      unavailable_[name] = nvml_.error(result);
  }
  nlohmann::json finish() {
    state_["unavailable"] = unavailable_;
    return state_;
  }

 private:
  const Session& nvml_;
  nlohmann::json state_ = nlohmann::json::object();
  nlohmann::json unavailable_ = nlohmann::json::object();
};

std::string version_string(nvmlReturn_t (*get)(char*, unsigned), const Session& nvml, const char* call) {
  std::array<char, kVersionBytes> buffer{};
  nvml.check(get(buffer.data(), unsigned(buffer.size())), call);
  return buffer.data();
}

// "580.159.04" from the kernel module's banner ("NVRM version: NVIDIA UNIX
// x86_64 Kernel Module  580.159.04  ..."), or "" without one.
std::string proc_driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string banner;
  std::getline(in, banner);
  std::smatch match;
  if (std::regex_search(banner, match, std::regex(R"(Kernel Module\s+(\d+(\.\d+)+))"))) return match[1];
  return "";
}

nlohmann::json clock_event_reasons(unsigned long long mask) {
  nlohmann::json active = nlohmann::json::array();
  for (const auto& [bit, name] : kClockEventReasons)
    if (mask & bit) active.push_back(name);
  return {{"mask", mask}, {"active", active}};
}

}  // namespace

nlohmann::json driver() {
  try {
    const Session nvml;
    const Api& api = nvml.api();
    return {{"driver_version", version_string(api.nvmlSystemGetDriverVersion, nvml, "nvmlSystemGetDriverVersion")},
            {"nvml_version", version_string(api.nvmlSystemGetNVMLVersion, nvml, "nvmlSystemGetNVMLVersion")},
            {"source", "nvml"}};
  } catch (const Unavailable& nvml_missing) {
    const std::string version = proc_driver_version();
    if (!version.empty())
      return {{"driver_version", version}, {"source", "/proc/driver/nvidia/version"}, {"nvml", nvml_missing.what()}};
    return {{"driver_version", nullptr},
            {"source", nullptr},
            {"unavailable", std::string(nvml_missing.what()) + "; no /proc/driver/nvidia/version"}};
  }
}

nlohmann::json gpu_state(const std::string& uuid) {
  try {
    const Session nvml;
    const Api& api = nvml.api();
    nvmlDevice_t device = nullptr;
    nvml.check(api.nvmlDeviceGetHandleByUUID(uuid.c_str(), &device), "nvmlDeviceGetHandleByUUID");
    const auto enabled = [](nvmlEnableState_t s) { return s == kEnabled; };
    const auto watts = [](unsigned milliwatts) { return milliwatts / 1000.0; };
    const auto same = [](auto v) { return v; };
    StateBuilder state(nvml);
    nvmlEnableState_t ecc = 0, ecc_pending = 0, persistence = 0;
    const nvmlReturn_t ecc_result = api.nvmlDeviceGetEccMode(device, &ecc, &ecc_pending);
    state.add("ecc", ecc_result, ecc, enabled);
    state.add("ecc_pending", ecc_result, ecc_pending, enabled);
    state.add("persistence_mode", api.nvmlDeviceGetPersistenceMode(device, &persistence), persistence, enabled);
    nvmlPstates_t pstate = 0;
    state.add("performance_state", api.nvmlDeviceGetPerformanceState(device, &pstate), pstate,
              [](int p) {
                std::string name = "P";  // appended, not "P" + ...: GCC 12 warns falsely (-Wrestrict) on that
                return name += std::to_string(p);
              });
    unsigned limit = 0, enforced = 0, draw = 0, temperature = 0;
    state.add("power_limit_w", api.nvmlDeviceGetPowerManagementLimit(device, &limit), limit, watts);
    state.add("enforced_power_limit_w", api.nvmlDeviceGetEnforcedPowerLimit(device, &enforced), enforced, watts);
    state.add("power_draw_w", api.nvmlDeviceGetPowerUsage(device, &draw), draw, watts);
    state.add("temperature_c", api.nvmlDeviceGetTemperature(device, kGpuSensor, &temperature), temperature, same);
    for (const auto& [name, type] : kClocks) {
      unsigned now = 0, max = 0;
      state.add(std::string("clocks_mhz/") + name, api.nvmlDeviceGetClockInfo(device, type, &now), now, same);
      state.add(std::string("max_clocks_mhz/") + name, api.nvmlDeviceGetMaxClockInfo(device, type, &max), max, same);
    }
    unsigned long long reasons = 0;
    state.add("clock_event_reasons", api.nvmlDeviceGetCurrentClocksEventReasons(device, &reasons), reasons,
              clock_event_reasons);
    nlohmann::json snapshot = state.finish();
    snapshot["taken_at"] = utc_now();
    return snapshot;
  } catch (const Unavailable& e) {
    return {{"unavailable", e.what()}, {"taken_at", utc_now()}};
  }
}

}  // namespace hs::nvml
