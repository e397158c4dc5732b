// Launch constants of the lesson's kernels (lesson_kernels.cuh), shared by
// the kernels and their host plans (cuda/variants.cpp). Macros only, so
// nvcc, NVRTC and the host compiler read the same values.
#ifndef HISTOSTUDY_LESSON_CONSTANTS_CUH
#define HISTOSTUDY_LESSON_CONSTANTS_CUH

// The bins, and the width of one shared counter (32-bit, the lesson's).
#define HS_LESSON_BINS 256
#define HS_LESSON_COUNTER_BYTES 4
// The threads one per-warp copy serves.
#define HS_LESSON_WARP 32

#endif  // HISTOSTUDY_LESSON_CONSTANTS_CUH
