// An NVTX range around one case's measurement. Under a profiler that
// records NVTX (tools/ncu_profile.py runs Nsight Compute with --nvtx), every
// kernel launch of the case carries the range's name, so each counter is
// attributed to its case by name, never guessed from the order of launches.
// Without CUDA it is nothing; with no profiler attached an NVTX call costs
// a branch (nvtx3 is header-only and loads a tool only when one asks).
#pragma once
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "build_config.hpp"
#include "driver/executor.hpp"
#include "driver/study.hpp"
#if HISTOSTUDY_HAVE_CUDA
#include <nvtx3/nvToolsExt.h>
#endif

namespace hs {

// A range value with every byte but letters, digits and " ._+-/()" as %XX:
// ASCII, and free of ':' (Nsight Compute's separator within a range) and of
// '|' and '=' (the name's own).
inline std::string range_value(const std::string& value) {
  std::string out;
  for (unsigned char ch : value) {
    const bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                       std::string_view(" ._+-/()").find(char(ch)) != std::string_view::npos;
    if (plain) {
      out += char(ch);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", ch);
      out += hex;
    }
  }
  return out;
}

// "hs-case|experiment=lesson|impl=global|input=uniform|size=67109475|grid=0|
// block=0|passes=0|bins_offset=0|toolchains=nvcc 13.0.88|": the case as
// planned (0: the implementation's default) and the toolchains measuring it,
// each encoded, joined by ','; tools/ncu_csv.py reads it back.
inline std::string case_range_name(const Case& c, const std::vector<Executor*>& members) {
  std::string toolchains;
  for (const auto* e : members) toolchains.append(toolchains.empty() ? "" : ",").append(range_value(e->toolchain()));
  const std::pair<const char*, std::string> fields[] = {
      {"experiment", range_value(c.experiment)}, {"impl", range_value(std::string(c.impl->name))},
      {"input", range_value(c.input)}, {"size", std::to_string(c.size)}, {"grid", std::to_string(c.policy.grid)},
      {"block", std::to_string(c.policy.block)}, {"passes", std::to_string(c.policy.passes)},
      {"bins_offset", std::to_string(c.placement.bins_offset)}, {"toolchains", toolchains}};
  std::string name = "hs-case|";
  for (const auto& [key, value] : fields) name.append(key).append("=").append(value).append("|");
  return name;
}

class CaseRange {
 public:
  CaseRange(const Case& c, const std::vector<Executor*>& members) {
#if HISTOSTUDY_HAVE_CUDA
    nvtxRangePushA(case_range_name(c, members).c_str());
#else
    (void)c, (void)members;
#endif
  }
  ~CaseRange() {
#if HISTOSTUDY_HAVE_CUDA
    nvtxRangePop();
#endif
  }
  CaseRange(const CaseRange&) = delete;
  CaseRange& operator=(const CaseRange&) = delete;
};

}  // namespace hs
