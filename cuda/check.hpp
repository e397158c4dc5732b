// The one error path for every CUDA call: runtime API (cudaError_t), driver
// API (CUresult) and NVRTC (nvrtcResult). Wrap each call, and check each
// launch with HS_CUDA(cudaGetLastError()):
//
//   HS_CUDA(cudaMalloc(&p, bytes));
//   kernel<<<g, b, 0, s>>>(...); HS_CUDA(cudaGetLastError());
//
// A failure throws hs::Error naming the file, line, call text and the
// library's own message. The overloads are inline: a program that never
// checks a driver or NVRTC call does not link libcuda or libnvrtc.
#pragma once
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <string>

#include "study/error.hpp"

namespace hs::gpu {

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

inline void check(CUresult result, const char* call, const char* file, int line) {
  if (result == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS) name = "unknown CUresult";
  if (cuGetErrorString(result, &text) != CUDA_SUCCESS) text = "unknown error";
  throw_cuda_error("CUDA driver", std::string(text) + " (" + name + ", " + std::to_string(int(result)) + ")",
                   call, file, line);
}

inline void check(nvrtcResult result, const char* call, const char* file, int line) {
  if (result == NVRTC_SUCCESS) return;
  throw_cuda_error("NVRTC", nvrtcGetErrorString(result), call, file, line);
}

}  // namespace hs::gpu

#define HS_CUDA(call) ::hs::gpu::check((call), #call, __FILE__, __LINE__)
