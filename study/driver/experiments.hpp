// The experiments, as data: which inputs, sizes and implementations (by
// role) each runs, and the policy axes it sweeps. The driver (study.cpp)
// expands them into cases and `histostudy list` prints them.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hs {

struct Experiment {
  std::string_view name = {}, description = {};
  std::vector<std::string> inputs = {};
  std::vector<std::uint64_t> sizes = {};  // the lesson's size when empty
  std::vector<std::string_view> roles = {};  // implementations with any of these roles; every one when empty
  bool gpu_only = false;               // GPU implementations only (also of those named with --impl)
  bool counting_only = false;          // implementations that count (not read floors) only
  std::vector<int> passes = {};        // P for implementations that take passes
  std::vector<int> blocks = {};        // block sizes swept; the request's when empty
  bool placement_sweep = false;        // the bins 0..2,048 bytes past a 2 MiB boundary, in 128-byte steps
  bool measures_shared_rates = false;  // records the GPU's shared-memory update rates beside its rows
};

// lesson, sweep, blocks, perf, sizes, placement; and custom, what --impl,
// --input or --size alone run.
const std::vector<Experiment>& experiments();

// Their names, in order: "lesson, sweep, ...".
std::string experiment_names();

// Throws UsageError listing the known names.
const Experiment& find_experiment(std::string_view name);

// {"experiments": [...]}: each experiment's name, description, inputs, sizes (the lesson's where it names
// none), roles (empty: every implementation) and gpu_only, in that order; what `histostudy list --experiments`
// prints for tools that run the same cases (tools/peers.py), and `list --json` (data/registry.json) holds.
nlohmann::ordered_json experiments_json();

}  // namespace hs
