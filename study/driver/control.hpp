// The A/A control of a comparison (docs/controls.md): a second, independent entry of
// one toolchain (its own executor: for NVRTC its own compile and module),
// labelled "<toolchain> (A/A control)". Measured in the same rotation as the
// toolchains compared, it shows what "same" looks like: a report gives a
// faster/slower verdict between toolchains only where the A/A pair is same.
#pragma once
#include <memory>
#include <string>

#include "driver/executor.hpp"

namespace hs {

inline constexpr const char* kControlSuffix = " (A/A control)";

// Wraps `entry` (a freshly made executor of the toolchain to repeat).
std::unique_ptr<Executor> make_control(std::unique_ptr<Executor> entry);

}  // namespace hs
