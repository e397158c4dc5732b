// A GPU executor over one code image (cuda/module_executor.cpp): a cubin,
// or PTX the driver compiles when it loads it.
#pragma once
#include <cuda.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/error.hpp"
#include "driver/executor.hpp"

namespace hs::gpu {

class SharedDevice;

struct ModuleImage {
  std::string label;   // the toolchain name rows use
  std::string target;  // "sm_90" (SASS) or "compute_90" (PTX)
  std::string image;   // the bytes cuModuleLoadData takes (PTX NUL-terminated)
  std::vector<std::pair<std::string, std::string>> lowered_names;  // name expression, symbol
  nlohmann::json record;  // what made it, for describe()
};

// The driver would not load an image (PTX newer than the driver, no code
// for this GPU, a corrupt file): the caller skips that entry.
class ModuleRefused : public Unavailable {
 public:
  ModuleRefused(CUresult result, const std::string& what) : Unavailable(what), result_(result) {}
  CUresult result() const { return result_; }

 private:
  CUresult result_;
};

// "sass sm_90" for a cubin's target, "ptx compute_90, compiled by the driver" for PTX's.
std::string code_path_for(const std::string& target);

// Loads `image` into the device's primary context; throws ModuleRefused
// when the driver refuses it.
std::unique_ptr<Executor> make_module_executor(ModuleImage image, std::shared_ptr<SharedDevice> device);

}  // namespace hs::gpu
