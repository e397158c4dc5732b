#include "cuda/modules.hpp"

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "cuda/kernel_sources.hpp"
#include "cuda/module_executor.hpp"
#include "cuda/nvrtc_library.hpp"
#include "cuda/shared_device.hpp"
#include "cuda/toolchains.hpp"
#include "cuda/variants.hpp"
#include "study/error.hpp"
#include "study/files.hpp"
#include "study/results.hpp"
#include "study/sha256.hpp"

namespace hs::gpu {
namespace {

namespace fs = std::filesystem;

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out.flush()) throw Error("cannot write " + path.string());
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Unavailable(path.string() + ": missing");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// "12.6.85" -> "12.6".
std::string release_of(const std::string& version) { return version.substr(0, version.find('.', version.find('.') + 1)); }

// One target's build by `nvrtc` into DIR/<toolchain>/<target>.{cubin,ptx,log}.
nlohmann::json build_entry(const NvrtcLibrary& nvrtc, const std::string& target, const fs::path& dir) {
  const std::string label = "nvrtc " + nvrtc.version();
  const CompiledKernels compiled = nvrtc.compile_target(target, kernel_names());
  const bool sass = target.starts_with("sm_");
  const fs::path stem = fs::path(slug(label)) / target;
  const std::string file = stem.string() + (sass ? ".cubin" : ".ptx");
  fs::create_directories(dir / slug(label));
  write_file(dir / file, compiled.image);
  write_file(dir / (stem.string() + ".log"), compiled.log + "\n");
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& [name, symbol] : compiled.lowered_names) kernels.push_back({{"name", name}, {"symbol", symbol}});
  return {{"toolchain", label},
          {"release", release_of(nvrtc.version())},
          {"library", nvrtc.path()},
          {"arch", target},
          {"kind", sass ? "sass" : "ptx"},
          {"options", compiled.options},
          {"file", file},
          {"sha256", sha256_hex(compiled.image)},
          {"log", stem.string() + ".log"},
          {"kernels", kernels}};
}

// Why `build` cannot be trusted to be the study's kernels; "" when it can.
std::string distrust(const nlohmann::json& build, const std::string& image) {
  if (sha256_hex(image) != build.value("sha256", "")) return "its SHA-256 differs from the manifest's (altered?)";
  std::set<std::string> names;
  for (const auto& k : build.value("kernels", nlohmann::json::array())) names.insert(k.value("name", ""));
  for (const auto& name : kernel_names())
    if (!names.count(name)) return "it has no kernel " + name;
  return "";
}

}  // namespace

std::vector<nlohmann::json> plan_modules(const nlohmann::json& manifest, int cc, std::vector<std::string>& skipped) {
  std::vector<nlohmann::json> out;
  std::map<std::string, nlohmann::json> newest_ptx;
  const std::string here = std::to_string(cc / 10) + "." + std::to_string(cc % 10);
  for (const auto& b : manifest["builds"]) {
    const std::string arch = b.value("arch", "");
    const bool sass = b.value("kind", "") == "sass";
    const int number = std::atoi(arch.substr(arch.find('_') + 1).c_str());
    const std::string label = b.value("toolchain", "?") + " " + arch + (sass ? "" : " jit");
    if (sass && number == cc) out.push_back(b);
    if (sass && number != cc)
      skipped.push_back(label + ": skipped: SASS for " + arch + " does not run on this GPU (compute capability " +
                        here + ")");
    if (!sass && number > cc)
      skipped.push_back(label + ": skipped: PTX for " + arch + " is newer than this GPU (compute capability " +
                        here + ")");
    if (!sass && number <= cc) {
      auto& best = newest_ptx[b.value("toolchain", "")];
      if (best.is_null() || number > std::atoi(best.value("arch", "").substr(8).c_str())) best = b;
    }
  }
  for (auto& [toolchain, b] : newest_ptx) out.push_back(b);
  return out;
}

nlohmann::json write_modules(const std::vector<std::string>& specs, const std::vector<int>& archs,
                             const fs::path& dir) {
  nlohmann::json builds = nlohmann::json::array(), skipped = nlohmann::json::array();
  std::set<std::string> labels;
  for (const auto& spec : specs) {
    const auto nvrtc = nvrtc_of_spec(spec);
    const std::string label = "nvrtc " + nvrtc->version();
    if (!labels.insert(label).second) throw UsageError("cubins: toolchain " + label + " named twice");
    const auto supported = nvrtc->supported_archs();
    for (int arch : archs) {
      if (std::find(supported.begin(), supported.end(), arch) != supported.end())
        builds.push_back(build_entry(*nvrtc, "sm_" + std::to_string(arch), dir));
      else
        skipped.push_back(label + ": no SASS for sm_" + std::to_string(arch) + " (this NVRTC does not support it)");
      builds.push_back(build_entry(*nvrtc, "compute_" + std::to_string(arch), dir));
    }
  }
  const nlohmann::json manifest = {{"format", kModulesFormat},
                                   {"kernel_sources_sha256", kKernelSourcesSha256},
                                   {"builds", builds},
                                   {"skipped", skipped}};
  write_file(dir / "manifest.json", manifest.dump(2) + "\n");
  return manifest;
}

nlohmann::json read_manifest(const fs::path& dir) {
  std::ifstream in(dir / "manifest.json");
  if (!in) throw UsageError("modules:" + dir.string() + ": no manifest.json (make one with histostudy cubins -o DIR)");
  const auto manifest = nlohmann::json::parse(in, nullptr, false);
  if (manifest.is_discarded() || !manifest.is_object() || manifest.value("format", "") != kModulesFormat ||
      !manifest.contains("builds") || !manifest["builds"].is_array())
    throw UsageError("modules:" + dir.string() + ": manifest.json is not a histostudy modules manifest");
  return manifest;
}

std::vector<std::unique_ptr<Executor>> load_modules(const fs::path& dir, const std::shared_ptr<SharedDevice>& device,
                                                    std::vector<std::string>& skipped) {
  const nlohmann::json manifest = read_manifest(dir);
  std::vector<std::unique_ptr<Executor>> out;
  if (manifest.value("kernel_sources_sha256", "") != kKernelSourcesSha256) {
    skipped.push_back("modules:" + dir.string() + ": built from other kernel sources (SHA-256 " +
                      manifest.value("kernel_sources_sha256", "none") + ", this binary's " + std::string(kKernelSourcesSha256) +
                      "): every entry skipped");
    return out;
  }
  const int cc = device->limits().cc_major * 10 + device->limits().cc_minor;
  for (const auto& build : plan_modules(manifest, cc, skipped)) {
    const bool sass = build.value("kind", "") == "sass";
    const std::string label = build.value("toolchain", "?") + " " + build.value("arch", "?") + (sass ? "" : " jit");
    try {
      const std::string image = read_file(dir / build.value("file", ""));
      if (const std::string why = distrust(build, image); !why.empty()) throw Unavailable(why);
      ModuleImage module{label, build.value("arch", ""), image, {}, build};
      for (const auto& k : build["kernels"]) module.lowered_names.emplace_back(k.value("name", ""), k.value("symbol", ""));
      out.push_back(make_module_executor(std::move(module), device));
    } catch (const Unavailable& e) {
      skipped.push_back(label + ": skipped: " + e.what());
    }
  }
  return out;
}

}  // namespace hs::gpu
