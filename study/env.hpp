// The environment recorded with every result: host, build, provenance (and,
// through the GPU executors, the device and its toolchains).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hs {

// CPU model, cores, OpenMP threads, OMP_* and CUDA_* variables, OS, kernel.
nlohmann::json host_environment();

// How this binary was built: version, compiler, build type, CUDA flags and archs.
nlohmann::json build_environment();

// git commit and dirty flag of the source tree, argv.
nlohmann::json provenance(const std::vector<std::string>& argv);

// UTC now, ISO 8601 ("2026-11-29T11:08:30Z"); compact = "20261129T110830Z".
std::string utc_now(bool compact = false);

}  // namespace hs
