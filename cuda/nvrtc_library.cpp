#include "cuda/nvrtc_library.hpp"

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cuda/check.hpp"
#include "cuda/kernel_sources.hpp"
#include "platform/error.hpp"

namespace hs::gpu {
namespace {

namespace fs = std::filesystem;

// How far above the library file its package's records may lie: pip
// --target puts <wheel>.dist-info three levels up (nvidia/<pkg>/lib/).
constexpr int kPackageSearchLevels = 4;

// The version a record in `dir` gives for NVRTC: a wheel's
// "nvidia_cuda_nvrtc[_cuXX]-<version>.dist-info" folder (in `dir`, or in
// dir/dist-info as a wheel-built toolkit keeps them), or a runfile toolkit's
// version.json. "" when there is none.
std::string recorded_version(const fs::path& dir) {
  std::error_code ec;
  for (const fs::path& place : {dir, dir / "dist-info"})
    for (const auto& entry : fs::directory_iterator(place, ec)) {
      const std::string name = entry.path().filename().string();
      const std::string suffix = ".dist-info";
      const auto dash = name.find('-');
      if (name.starts_with("nvidia_cuda_nvrtc") && name.ends_with(suffix) && dash != std::string::npos)
        return name.substr(dash + 1, name.size() - dash - 1 - suffix.size());
    }
  std::ifstream version_json(dir / "version.json");
  if (!version_json) return "";
  const auto doc = nlohmann::json::parse(version_json, nullptr, false);
  if (doc.is_discarded() || !doc.contains("cuda_nvrtc")) return "";
  return doc["cuda_nvrtc"].value("version", "");
}

// major.minor.patch from the package that installed `library`, when its
// records agree with what the library itself reports; else from the name
// of the file it resolves to (a toolkit's libnvrtc.so.13.0.88, where no
// record came with it); else major.minor.
std::string full_version(const std::string& library, const std::string& major_minor) {
  std::error_code ec;
  const fs::path file = fs::canonical(library, ec);
  fs::path dir = file.parent_path();
  for (int level = 0; !ec && level < kPackageSearchLevels && dir.has_relative_path(); ++level) {
    const std::string version = recorded_version(dir);
    if (version.starts_with(major_minor + ".")) return version;
    dir = dir.parent_path();
  }
  const std::string name = file.filename().string(), stem = "libnvrtc.so." + major_minor + ".";
  if (!ec && name.starts_with(stem) && name.size() > stem.size() &&
      name.find_first_not_of("0123456789", stem.size()) == std::string::npos)
    return name.substr(stem.size() - major_minor.size() - 1);
  return major_minor;
}

// "sm_75" when NVRTC can build a cubin for it; else PTX ("compute_70") for
// the newest arch below it, which the driver compiles at load time.
std::string target_for(int arch, const std::vector<int>& supported, const std::string& version) {
  int best_below = 0;
  for (int a : supported) {
    if (a == arch) return "sm_" + std::to_string(arch);
    if (a < arch && a > best_below) best_below = a;
  }
  if (best_below == 0)
    throw Unavailable("NVRTC " + version + " supports no architecture at or below sm_" + std::to_string(arch));
  return "compute_" + std::to_string(best_below);
}

// NVRTC, like nvcc, fully optimizes device code by default (ptxas -O3;
// nvcc's -O3 is for host code). ptxas -v logs each kernel's registers,
// shared memory and spills for the record; it does not change the code.
// PTX is not assembled here, so it gets no ptxas options.
std::vector<std::string> options_for(const std::string& target) {
  std::vector<std::string> options = {"--gpu-architecture=" + target, "--std=c++17"};
  if (target.starts_with("sm_")) options.push_back("--ptxas-options=-v");
  return options;
}

// Destroys the program however compile() leaves.
struct Program {
  decltype(&::nvrtcDestroyProgram) destroy;
  nvrtcProgram handle = nullptr;
  ~Program() {
    if (handle) (void)destroy(&handle);
  }
};

}  // namespace

NvrtcLibrary::NvrtcLibrary(const std::string& library) : library_(library) {
  HS_LOAD_FUNCTIONS(library_, api_, HS_NVRTC_FUNCTIONS);
  nvrtc_error_string = api_.nvrtcGetErrorString;
  int major = 0, minor = 0;
  HS_CUDA(api_.nvrtcVersion(&major, &minor));
  version_ = full_version(path(), std::to_string(major) + "." + std::to_string(minor));
}

std::vector<int> NvrtcLibrary::supported_archs() const {
  int count = 0;
  HS_CUDA(api_.nvrtcGetNumSupportedArchs(&count));
  std::vector<int> archs(static_cast<std::size_t>(count));
  if (count > 0) HS_CUDA(api_.nvrtcGetSupportedArchs(archs.data()));
  return archs;
}

std::string NvrtcLibrary::program_log(nvrtcProgram program) const {
  std::size_t size = 0;
  HS_CUDA(api_.nvrtcGetProgramLogSize(program, &size));
  std::string log(size, '\0');
  if (size) HS_CUDA(api_.nvrtcGetProgramLog(program, log.data()));
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

std::string NvrtcLibrary::output(nvrtcProgram program, bool cubin) const {
  std::size_t size = 0;
  HS_CUDA(cubin ? api_.nvrtcGetCUBINSize(program, &size) : api_.nvrtcGetPTXSize(program, &size));
  std::string image(size, '\0');
  HS_CUDA(cubin ? api_.nvrtcGetCUBIN(program, image.data()) : api_.nvrtcGetPTX(program, image.data()));
  return image;
}

CompiledKernels NvrtcLibrary::compile(int arch, const std::vector<std::string>& name_expressions) const {
  return compile_target(target_for(arch, supported_archs(), version_), name_expressions);
}

CompiledKernels NvrtcLibrary::compile_target(const std::string& target,
                                             const std::vector<std::string>& name_expressions) const {
  CompiledKernels out;
  out.target = target;
  out.options = options_for(out.target);

  // The sources go in as headers under their own names, so messages name
  // the real file; the program itself only includes them.
  std::vector<std::string> names, texts;
  std::string program_source;
  for (const auto& file : kKernelSourceFiles) {
    names.emplace_back(file.name);
    texts.emplace_back(file.text);
    program_source += "#include \"" + names.back() + "\"\n";
  }
  std::vector<const char*> name_ptrs, text_ptrs, option_ptrs;
  for (std::size_t i = 0; i < names.size(); ++i) {
    name_ptrs.push_back(names[i].c_str());
    text_ptrs.push_back(texts[i].c_str());
  }
  for (const auto& option : out.options) option_ptrs.push_back(option.c_str());

  Program program{api_.nvrtcDestroyProgram};
  HS_CUDA(api_.nvrtcCreateProgram(&program.handle, program_source.c_str(), "histostudy_kernels.cu",
                                  int(texts.size()), text_ptrs.data(), name_ptrs.data()));
  for (const auto& name : name_expressions) HS_CUDA(api_.nvrtcAddNameExpression(program.handle, name.c_str()));
  const nvrtcResult compiled = api_.nvrtcCompileProgram(program.handle, int(option_ptrs.size()), option_ptrs.data());
  out.log = program_log(program.handle);
  check(compiled, "nvrtcCompileProgram(kernel sources)", __FILE__, __LINE__, out.log);
  out.image = output(program.handle, out.target.starts_with("sm_"));
  for (const auto& name : name_expressions) {
    const char* lowered = nullptr;
    HS_CUDA(api_.nvrtcGetLoweredName(program.handle, name.c_str(), &lowered));
    out.lowered_names.emplace_back(name, lowered);
  }
  return out;
}

}  // namespace hs::gpu
