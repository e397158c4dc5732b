// One NVRTC library, of any version, loaded at run time, and the one way the
// study compiles its kernels with it: the embedded device-only sources
// (cuda/floor_kernels.cuh, cuda/lesson_kernels.cuh), every name expression
// the launch plans use, fixed options. The NVRTC executor and the cubins
// the codegen audit reads (histostudy cubins) both come from compile().
#pragma once
#include <nvrtc.h>

#include <string>
#include <utility>
#include <vector>

#include "platform/dynamic_library.hpp"

#define HS_NVRTC_FUNCTIONS(F) \
  F(nvrtcVersion) \
  F(nvrtcGetErrorString) \
  F(nvrtcGetNumSupportedArchs) \
  F(nvrtcGetSupportedArchs) \
  F(nvrtcCreateProgram) \
  F(nvrtcDestroyProgram) \
  F(nvrtcAddNameExpression) \
  F(nvrtcCompileProgram) \
  F(nvrtcGetProgramLogSize) \
  F(nvrtcGetProgramLog) \
  F(nvrtcGetCUBINSize) \
  F(nvrtcGetCUBIN) \
  F(nvrtcGetPTXSize) \
  F(nvrtcGetPTX) \
  F(nvrtcGetLoweredName)

namespace hs::gpu {

struct CompiledKernels {
  std::string target;                // "sm_90": a cubin; "compute_90": PTX the driver compiles
  std::vector<std::string> options;  // exactly what NVRTC was given
  std::string image;                 // the cubin, or the PTX (NUL-terminated)
  std::string log;                   // NVRTC's log, with ptxas's per-kernel resource lines
  std::vector<std::pair<std::string, std::string>> lowered_names;  // name expression, mangled name
};

class NvrtcLibrary {
 public:
  // `library`: a path, or a file name the default search path resolves.
  // Throws Unavailable when it cannot be loaded or is not an NVRTC.
  explicit NvrtcLibrary(const std::string& library);

  // "12.6.85": nvrtcVersion's major.minor, and the patch level from the
  // package the library came from (a wheel's or toolkit's records beside it);
  // "12.6" when none records it.
  const std::string& version() const { return version_; }
  std::string path() const { return library_.path(); }
  std::vector<int> supported_archs() const;

  // Compiles every instantiation in `name_expressions` for compute
  // capability `arch` (75 for sm_75): a cubin when this NVRTC supports the
  // arch; otherwise PTX for the newest arch below it, or throws Unavailable
  // when there is none. Needs no GPU.
  CompiledKernels compile(int arch, const std::vector<std::string>& name_expressions) const;
  // The same for an explicit target: "sm_90" (a cubin) or "compute_90" (PTX).
  CompiledKernels compile_target(const std::string& target, const std::vector<std::string>& name_expressions) const;

 private:
  struct Api {
    HS_NVRTC_FUNCTIONS(HS_FUNCTION_MEMBER)
  };

  std::string program_log(nvrtcProgram program) const;
  std::string output(nvrtcProgram program, bool cubin) const;

  DynamicLibrary library_;
  Api api_;
  std::string version_;
};

}  // namespace hs::gpu
