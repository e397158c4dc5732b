#include "cuda/toolchains.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <set>

#include <cuda_runtime_api.h>

#include "build_config.hpp"
#include "cuda/check.hpp"
#include "cuda/device_record.hpp"
#include "cuda/kernel_sources.hpp"
#include "cuda/modules.hpp"
#include "cuda/nvcc_kernels.hpp"
#include "cuda/nvrtc_library.hpp"
#include "cuda/shared_device.hpp"
#include "cuda/toolchain_spec.hpp"
#include "cuda/variants.hpp"
#include "platform/error.hpp"
#include "driver/fleet.hpp"
#include "driver/results.hpp"

namespace hs::gpu {
namespace {

namespace fs = std::filesystem;

// What plain "nvrtc" loads: the first of these the default search path has.
const std::vector<std::string> kDefaultNvrtcNames = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"};

// The NVRTC library a spec names; nullopt for "nvcc". Throws UsageError,
// also for a modules directory, which holds many toolchains.
std::optional<std::string> nvrtc_library_of(const std::string& spec) {
  const ToolchainSpec parsed = parse_toolchain(spec);
  if (parsed.kind == ToolchainSpec::Kind::modules)
    throw UsageError("toolchain " + spec + ": a modules directory holds many toolchains; name nvcc or nvrtc here");
  if (parsed.kind == ToolchainSpec::Kind::nvcc) return std::nullopt;
  return parsed.path;
}

// Loads `library`, or with "" the default search path's libnvrtc.
// Throws UsageError: the user asked for a toolchain this machine lacks.
std::shared_ptr<const NvrtcLibrary> load_nvrtc(const std::string& library) {
  std::string failures;
  for (const auto& name : library.empty() ? kDefaultNvrtcNames : std::vector<std::string>{library}) {
    try {
      return std::make_shared<const NvrtcLibrary>(name);
    } catch (const Unavailable& e) {
      failures += std::string(failures.empty() ? "" : "; ") + e.what();
    }
  }
  throw UsageError("no NVRTC toolchain: " + failures);
}

}  // namespace

std::optional<std::string> modules_dir_of(const std::string& spec) {
  const ToolchainSpec parsed = parse_toolchain(spec);
  if (parsed.kind == ToolchainSpec::Kind::modules) return parsed.path;
  return std::nullopt;
}

std::vector<std::unique_ptr<Executor>> make_gpu_executors(const std::string& spec,
                                                          const std::shared_ptr<SharedDevice>& device,
                                                          std::vector<std::string>& skipped) {
  std::vector<std::unique_ptr<Executor>> out;
  if (const auto dir = modules_dir_of(spec)) return load_modules(*dir, device, skipped);
  out.push_back(make_gpu_executor(spec, device));
  return out;
}

std::unique_ptr<Executor> make_gpu_executor(const std::string& spec, std::shared_ptr<SharedDevice> device) {
  const auto library = nvrtc_library_of(spec);
  if (!library) return make_nvcc_executor(std::move(device));
  return make_nvrtc_executor(load_nvrtc(*library), std::move(device));
}

void check_toolchain(const std::string& spec) {
  if (const auto dir = modules_dir_of(spec)) {
    read_manifest(*dir);
    return;
  }
  if (const auto library = nvrtc_library_of(spec)) load_nvrtc(*library);
}

std::string gpu_line(int device) {
  cudaDeviceProp prop{};
  HS_CUDA(cudaGetDeviceProperties(&prop, device));
  const auto record = device_record(device);
  return std::to_string(device) + ": " + prop.name + ", " + record["uuid"].get<std::string>() + ", PCI " +
         record["pci_bus_id"].get<std::string>();
}

namespace {

[[noreturn]] void no_such_device(const std::string& spec, const std::string& why) {
  std::string found;
  for (const auto& line : gpu_lines()) found += (found.empty() ? "" : "; ") + line;
  throw UsageError("--device " + spec + ": " + why + " (GPUs here: " + found + ")");
}

int device_index(const std::string& spec, int count) {
  if (spec.empty()) return 0;
  if (spec.find_first_not_of("0123456789") == std::string::npos && spec.size() <= 6) {
    const int index = std::stoi(spec);
    if (index >= count) no_such_device(spec, "no GPU of that index");
    return index;
  }
  if (!spec.starts_with("GPU-")) no_such_device(spec, "name a GPU by its index or its UUID (GPU-...)");
  std::vector<int> matches;
  for (int d = 0; d < count; ++d)
    if (device_record(d)["uuid"].get<std::string>().starts_with(spec)) matches.push_back(d);
  if (matches.empty()) no_such_device(spec, "no GPU has that UUID");
  if (matches.size() > 1) no_such_device(spec, "more than one GPU's UUID starts so");
  return matches.front();
}

}  // namespace

std::vector<std::string> gpu_lines() {
  std::vector<std::string> lines;
  for (int d = 0; d < SharedDevice::count(); ++d) lines.push_back(gpu_line(d));
  return lines;
}

std::vector<int> device_indices(const std::string& spec) {
  const int count = SharedDevice::count();
  std::vector<int> indices;
  if (spec == "all") {
    for (int d = 0; d < count; ++d) indices.push_back(d);
    return indices;
  }
  for (const auto& item : device_list(spec)) {
    const int index = device_index(item, count);
    if (std::find(indices.begin(), indices.end(), index) != indices.end())
      no_such_device(spec, "GPU " + std::to_string(index) + " named twice (each GPU runs the study once)");
    indices.push_back(index);
  }
  return indices;
}

std::shared_ptr<SharedDevice> open_device(const std::string& spec) {
  return std::make_shared<SharedDevice>(device_index(spec, SharedDevice::count()));
}

std::vector<FoundToolchain> find_toolchains() {
  std::vector<FoundToolchain> found = {{"nvcc", "nvcc " + nvcc::version(), "built in"}};
  std::set<std::string> labels = {found.front().label};
  std::vector<std::string> specs;
  for (const auto& release : nvrtc_releases())  // installed releases first, so they go by their names
    if (installed_release_library(release.release)) specs.push_back(release.release);
  specs.push_back("nvrtc");
  for (const auto& library : installed_nvrtc_libraries()) specs.push_back(std::string(kNvrtcPrefix) + library);
  for (const auto& spec : specs) {
    try {
      const auto nvrtc = load_nvrtc(*nvrtc_library_of(spec));
      const std::string label = "nvrtc " + nvrtc->version();
      if (labels.insert(label).second) found.push_back({spec, label, nvrtc->path()});
    } catch (const UsageError&) {  // not on this machine: not listed
    }
  }
  return found;
}

std::shared_ptr<const NvrtcLibrary> nvrtc_of_spec(const std::string& spec) {
  const ToolchainSpec parsed = parse_toolchain(spec);
  if (parsed.kind != ToolchainSpec::Kind::nvrtc)
    throw UsageError("toolchain " + spec + ": " +
                     (parsed.kind == ToolchainSpec::Kind::nvcc ? "nvcc's kernels are built into the binary at build time"
                                                               : "a modules directory holds kernels already built") +
                     "; name NVRTC toolchains here (nvrtc, nvrtc:/path/to/libnvrtc.so.N)");
  return load_nvrtc(parsed.path);
}

}  // namespace hs::gpu
