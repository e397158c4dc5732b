#include "cuda/toolchains.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <regex>
#include <set>

#include "build_config.hpp"
#include "cuda/kernel_sources.hpp"
#include "cuda/nvcc_kernels.hpp"
#include "cuda/nvrtc_library.hpp"
#include "cuda/shared_device.hpp"
#include "cuda/variants.hpp"
#include "study/error.hpp"
#include "study/results.hpp"

namespace hs::gpu {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kNvrtcPrefix = "nvrtc:";
// What plain "nvrtc" loads: the first of these the default search path has.
const std::vector<std::string> kDefaultNvrtcNames = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"};

// The NVRTC library a spec names; nullopt for "nvcc". Throws UsageError.
std::optional<std::string> nvrtc_library_of(const std::string& spec) {
  if (spec == "nvcc") return std::nullopt;
  if (spec == "nvrtc") return "";
  if (spec.starts_with(kNvrtcPrefix) && spec.size() > kNvrtcPrefix.size()) return spec.substr(kNvrtcPrefix.size());
  throw UsageError("unknown toolchain '" + spec + "' (known: nvcc, nvrtc, nvrtc:/path/to/libnvrtc.so.N)");
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

// Library files `./dev nvrtc` installed: .deps/nvrtc/<version>/**/libnvrtc.so.<major>.
std::vector<std::string> installed_nvrtc_libraries() {
  std::vector<std::string> found;
  std::error_code ec;
  const std::regex library_name(R"(libnvrtc\.so\.\d+)");
  for (fs::recursive_directory_iterator it(fs::path(HISTOSTUDY_SOURCE_DIR) / ".deps" / "nvrtc", ec), end;
       !ec && it != end; it.increment(ec))
    if (std::regex_match(it->path().filename().string(), library_name)) found.push_back(it->path().string());
  std::sort(found.begin(), found.end());
  return found;
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out.flush()) throw Error("cannot write " + path.string());
}

}  // namespace

std::unique_ptr<Executor> make_gpu_executor(const std::string& spec, std::shared_ptr<SharedDevice> device) {
  const auto library = nvrtc_library_of(spec);
  if (!library) return make_nvcc_executor(std::move(device));
  return make_nvrtc_executor(load_nvrtc(*library), std::move(device));
}

void check_toolchain(const std::string& spec) {
  if (const auto library = nvrtc_library_of(spec)) load_nvrtc(*library);
}

std::shared_ptr<SharedDevice> open_device(int device) { return std::make_shared<SharedDevice>(device); }

std::vector<FoundToolchain> find_toolchains() {
  std::vector<FoundToolchain> found = {{"nvcc", "nvcc " + nvcc::version(), "built in"}};
  std::set<std::string> labels = {found.front().label};
  std::vector<std::string> specs = {"nvrtc"};
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

nlohmann::json write_cubins(const std::vector<std::string>& specs, const std::vector<int>& archs,
                            const fs::path& dir) {
  nlohmann::json builds = nlohmann::json::array();
  std::set<std::string> labels;
  for (const auto& spec : specs) {
    const auto library = nvrtc_library_of(spec);
    if (!library)
      throw UsageError("cubins: nvcc's kernels are built into the binary at build time; name NVRTC toolchains");
    const auto nvrtc = load_nvrtc(*library);
    const std::string label = "nvrtc " + nvrtc->version();
    if (!labels.insert(label).second) throw UsageError("cubins: toolchain " + label + " named twice");
    fs::create_directories(dir / slug(label));
    for (int arch : archs) {
      const CompiledKernels compiled = nvrtc->compile(arch, kernel_names());
      const std::string target = "sm_" + std::to_string(arch);
      if (compiled.target != target)
        throw UsageError("cubins: " + label + " cannot build a cubin for " + target + " (its executor would load " +
                         compiled.target + " PTX)");
      const fs::path stem = fs::path(slug(label)) / target;
      write_file(dir / stem.string().append(".cubin"), compiled.image);
      write_file(dir / stem.string().append(".log"), compiled.log + "\n");
      nlohmann::json kernels = nlohmann::json::array();
      for (const auto& [name, symbol] : compiled.lowered_names) kernels.push_back({{"name", name}, {"symbol", symbol}});
      builds.push_back({{"toolchain", label},
                        {"library", nvrtc->path()},
                        {"arch", target},
                        {"options", compiled.options},
                        {"cubin", stem.string() + ".cubin"},
                        {"log", stem.string() + ".log"},
                        {"kernels", kernels}});
    }
  }
  const nlohmann::json manifest = {{"format", "histostudy-cubins"},
                                   {"kernel_sources_sha256", kKernelSourcesSha256},
                                   {"builds", builds}};
  write_file(dir / "manifest.json", manifest.dump(2) + "\n");
  return manifest;
}

}  // namespace hs::gpu
