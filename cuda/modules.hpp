// Modules directories (the release audit): every kernel of the study built by each
// NVRTC release, as SASS for the chosen archs and as PTX, with a manifest,
// on a machine without a GPU (`histostudy cubins`); and the toolchain
// `modules:DIR` that runs them on the GPU through the driver API: each
// release's SASS as it built it, and each release's PTX compiled by the
// driver at load time (the driver's own compiler: the "across drivers" axis
// on one machine). An entry that cannot be trusted or loaded is skipped
// with one line saying why, never measured with the wrong code.
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/executor.hpp"

namespace hs::gpu {

class SharedDevice;

inline constexpr const char* kModulesFormat = "histostudy-modules";

// Every NVRTC toolchain in `specs` compiles the kernels for every arch in
// `archs` (75: sm_75) as SASS and as PTX (compute_75), exactly as an NVRTC
// executor would: DIR/<toolchain>/sm_75.cubin, compute_75.ptx and their
// logs, listed in DIR/manifest.json with each file's SHA-256 and the kernel
// sources' (returned). DIR is a new folder, written whole once everything
// is compiled (study/platform/files.hpp's write_new_folder). Throws UsageError before
// compiling anything for a DIR that is not new, a toolchain that cannot be
// loaded or a release named twice, or an arch a toolchain cannot compile
// for. Needs no GPU.
nlohmann::json write_modules(const std::vector<std::string>& specs, const std::vector<int>& archs,
                             const std::filesystem::path& dir);

// The entries of `manifest` a GPU of compute capability `cc` (90) runs:
// SASS for its own arch, and per toolchain the newest PTX at or below it.
// SASS for another arch and PTX for a newer one get a line in `skipped`.
std::vector<nlohmann::json> plan_modules(const nlohmann::json& manifest, int cc, std::vector<std::string>& skipped);

// Throws UsageError unless DIR/manifest.json is a modules manifest.
nlohmann::json read_manifest(const std::filesystem::path& dir);

// One executor per entry of DIR's manifest that this GPU can run: each
// release's SASS for its arch ("nvrtc 12.6.85 sm_90") and its newest PTX at
// or below it ("nvrtc 12.6.85 compute_90 jit"). Entries that are missing,
// altered, built from other kernel sources, or refused by the driver are
// left out; `skipped` gets one line each.
std::vector<std::unique_ptr<Executor>> load_modules(const std::filesystem::path& dir,
                                                    const std::shared_ptr<SharedDevice>& device,
                                                    std::vector<std::string>& skipped);

}  // namespace hs::gpu
