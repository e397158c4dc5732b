// The environment recorded with every result: host, build, provenance (and,
// through the GPU executors, the device and its toolchains).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hs {

// CPU model, its identity (cpu_identity), cores, OpenMP threads, OMP_*, CUDA_*
// and SLURM_* variables, OS, kernel.
nlohmann::json host_environment();

// The CPU beside its model name, which names no generation ("AMD EPYC" is
// Zen 4 and Zen 5 alike): vendor, model name, family, model and stepping as
// /proc/cpuinfo gives them ("25", "17", "1": Zen 4), and which of the
// features openmp_fast's paths need it has.
nlohmann::json cpu_identity();

// How this binary was built: version, compiler, build type, CUDA flags and archs.
nlohmann::json build_environment();

// git_commit and git_dirty of the build (the code that ran), tree_commit and
// tree_dirty of the source tree at run time, argv, the working directory
// (null, with cwd_error, when it was deleted). Throws UsageError for a
// carried HISTOSTUDY_GIT_COMMIT that is not a commit.
nlohmann::json provenance(const std::vector<std::string>& argv);

// Throws UsageError unless HISTOSTUDY_GIT_COMMIT is unset or 40 hex digits:
// a run checks it before measuring.
void check_carried_commit();

// UTC now, ISO 8601 ("2026-11-29T11:08:30Z"); compact = "20261129T110830Z".
std::string utc_now(bool compact = false);

}  // namespace hs
