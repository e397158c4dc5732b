// Launch constants and the argument struct of the lesson's kernels
// (lesson_kernels.cuh), shared by the kernels and their host plans
// (cuda/variants.cpp). Macros and a plain struct of builtin types only, so
// nvcc, NVRTC and the host compiler read the same values and layout.
#ifndef HISTOSTUDY_LESSON_CONSTANTS_CUH
#define HISTOSTUDY_LESSON_CONSTANTS_CUH

// The bins, and the width of one shared counter (32-bit, the lesson's).
#define HS_LESSON_BINS 256
#define HS_LESSON_COUNTER_BYTES 4
// The threads one per-warp copy serves.
#define HS_LESSON_WARP 32

// Every lesson kernel's one parameter: the n input bytes at `data`, and the
// global bins they add into (256 of the kernel's Counter type).
// `first_bin`: the first of the bins a partitioned pass counts (a multiple
// of its width); the kernels that count all 256 bins ignore it (their plans
// pass 0).
struct hs_lesson_args {
  const unsigned char* data;
  unsigned long long n;
  void* bins;
  unsigned first_bin;
};
static_assert(sizeof(hs_lesson_args) == 32, "host and device lay hs_lesson_args out alike");

#endif  // HISTOSTUDY_LESSON_CONSTANTS_CUH
