// The one error path for every CUDA call: runtime API (cudaError_t), driver
// API (CUresult) and NVRTC (nvrtcResult). Wrap each call, and check each
// launch with HS_CUDA(cudaGetLastError()):
//
//   HS_CUDA(cudaMalloc(&p, bytes));
//   kernel<<<g, b, 0, s>>>(...); HS_CUDA(cudaGetLastError());
//
// A failure throws hs::Error naming the file, line, call text and the
// library's own message (and, for a failed NVRTC compile, its log).
// libcuda and libnvrtc are never linked: they are loaded at run time
// (cuda/driver_api.cpp, cuda/nvrtc_library.cpp), so the binary runs where
// they are absent, and their loaders set the message functions below.
#pragma once
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <string>

#include "platform/error.hpp"

namespace hs::gpu {

// The loaded libraries' own message functions; null: the number alone.
inline CUresult (*driver_error_name)(CUresult, const char**) = nullptr;
inline CUresult (*driver_error_string)(CUresult, const char**) = nullptr;
inline const char* (*nvrtc_error_string)(nvrtcResult) = nullptr;

[[noreturn]] inline void throw_cuda_error(const char* library, const std::string& what, const char* call,
                                          const char* file, int line) {
  throw Error(std::string(library) + " error at " + file + ":" + std::to_string(line) + ": " + call +
              " failed: " + what);
}

inline void check(cudaError_t result, const char* call, const char* file, int line) {
  if (result == cudaSuccess) return;
  throw_cuda_error("CUDA", std::string(cudaGetErrorString(result)) + " (" + cudaGetErrorName(result) + ")", call,
                   file, line);
}

// The driver's words for `result`: "device kernel image is invalid
// (CUDA_ERROR_INVALID_SOURCE, 300)".
inline std::string driver_error_text(CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (!driver_error_name || driver_error_name(result, &name) != CUDA_SUCCESS) name = "unknown CUresult";
  if (!driver_error_string || driver_error_string(result, &text) != CUDA_SUCCESS) text = "unknown error";
  return std::string(text) + " (" + name + ", " + std::to_string(int(result)) + ")";
}

inline void check(CUresult result, const char* call, const char* file, int line) {
  if (result == CUDA_SUCCESS) return;
  throw_cuda_error("CUDA driver", driver_error_text(result), call, file, line);
}

// `log`: the program's compile log, appended to the message when not empty.
inline void check(nvrtcResult result, const char* call, const char* file, int line, const std::string& log = "") {
  if (result == NVRTC_SUCCESS) return;
  std::string what = nvrtc_error_string ? nvrtc_error_string(result) : "nvrtcResult " + std::to_string(int(result));
  if (!log.empty()) what += "; compile log:\n" + log;
  throw_cuda_error("NVRTC", what, call, file, line);
}

}  // namespace hs::gpu

#define HS_CUDA(call) ::hs::gpu::check((call), #call, __FILE__, __LINE__)
