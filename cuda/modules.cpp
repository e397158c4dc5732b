#include "cuda/modules.hpp"

#include <algorithm>
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
#include "platform/error.hpp"
#include "platform/files.hpp"
#include "driver/results.hpp"
#include "platform/sha256.hpp"

namespace hs::gpu {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Unavailable(path.string() + ": missing");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// "12.6.85" -> "12.6".
std::string release_of(const std::string& version) { return version.substr(0, version.find('.', version.find('.') + 1)); }

// One target's build by `nvrtc`: its manifest entry, and its files
// <toolchain>/<target>.{cubin,ptx,log} added to `files`.
nlohmann::json build_entry(const NvrtcLibrary& nvrtc, const std::string& target,
                           std::map<std::string, std::string>& files) {
  const std::string label = "nvrtc " + nvrtc.version();
  const CompiledKernels compiled = nvrtc.compile_target(target, kernel_names());
  const bool sass = target.starts_with("sm_");
  const fs::path stem = fs::path(slug(label)) / target;
  const std::string file = stem.string() + (sass ? ".cubin" : ".ptx");
  files[file] = compiled.image;
  files[stem.string() + ".log"] = compiled.log + "\n";
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

// The NVRTC of each spec, in order; a release two specs name is refused.
std::vector<std::shared_ptr<const NvrtcLibrary>> load_toolchains(const std::vector<std::string>& specs) {
  std::vector<std::shared_ptr<const NvrtcLibrary>> out;
  std::set<std::string> versions;
  for (const auto& spec : specs) {
    out.push_back(nvrtc_of_spec(spec));
    if (!versions.insert(out.back()->version()).second)
      throw UsageError("cubins: toolchain nvrtc " + out.back()->version() + " named twice (--toolchain " + spec + ")");
  }
  return out;
}

// Throws UsageError for an arch `nvrtc` cannot compile for (NVRTC's own
// refusal would come only once the others were compiled, as its error).
void check_archs(const NvrtcLibrary& nvrtc, const std::vector<int>& archs) {
  const auto supported = nvrtc.supported_archs();
  for (int arch : archs) {
    if (std::find(supported.begin(), supported.end(), arch) != supported.end()) continue;
    std::string list;
    for (int a : supported) list += (list.empty() ? "" : ", ") + std::to_string(a);
    throw UsageError("--arch " + std::to_string(arch) + ": not a compute capability NVRTC " + nvrtc.version() +
                     " can compile for (it supports " + list + ")");
  }
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
  check_new_folder(dir);
  const auto toolchains = load_toolchains(specs);
  for (const auto& nvrtc : toolchains) check_archs(*nvrtc, archs);
  nlohmann::json builds = nlohmann::json::array();
  std::map<std::string, std::string> files;
  for (const auto& nvrtc : toolchains)
    for (int arch : archs)
      for (const char* kind : {"sm_", "compute_"})
        builds.push_back(build_entry(*nvrtc, kind + std::to_string(arch), files));
  const nlohmann::json manifest = {
      {"format", kModulesFormat}, {"kernel_sources_sha256", kKernelSourcesSha256}, {"builds", builds}};
  files["manifest.json"] = manifest.dump(2) + "\n";
  write_new_folder(dir, files);
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
