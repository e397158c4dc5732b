#include "study/study.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "cpu_openmp/openmp_histogram.hpp"
#include "study/error.hpp"
#include "study/inputs.hpp"
#include "study/registry.hpp"
#include "study/sizes.hpp"

namespace hs {
namespace {

// STUDY-SPEC.md 1: the lesson's three inputs, plus our own prose beside its English.
const std::vector<std::string> kLessonInputs = {"uniform", "lesson_english", "prose", "one_byte"};
// STUDY-SPEC.md 1: the exercise's partition counts (4 in the lesson) and the ones around it.
const std::vector<int> kPartitionPasses = {1, 2, 4, 8};
const std::vector<int> kDefaultPasses = {4};
// Issue 6: the fast kernel against its peers, at 1 GiB (several times the
// 60 MB L2, so the floor is HBM's) on every input of the lesson and the sweep.
const std::vector<std::string> kPerfImpls = {"lane_shared", "per_warp", "cub"};
constexpr std::uint64_t kPerfSize = 1ull << 30;
// Claim C8: the block-size sweep of the global and per-block kernels.
const std::vector<int> kBlockSweep = {64, 128, 256, 512, 1024};

std::vector<std::string> sweep_inputs() {  // Table 16-4: 256, 128, ..., 1 distinct values
  std::vector<std::string> inputs;
  for (int k = 256; k >= 1; k /= 2) inputs.push_back("distinct_" + std::to_string(k));
  return inputs;
}

bool runs_somewhere(const Implementation& impl, const std::vector<Executor*>& executors) {
  return std::any_of(executors.begin(), executors.end(), [&](Executor* e) { return e->supports(impl); });
}

std::vector<const Implementation*> all_runnable(const std::vector<Executor*>& executors) {
  std::vector<const Implementation*> out;
  for (const auto& impl : implementations())
    if (runs_somewhere(impl, executors)) out.push_back(&impl);
  return out;
}

// One case per implementation and input and size; `partitioned` once per
// pass count in `partition_passes`.
void add_cases(std::vector<Case>& cases, const std::string& experiment, const std::vector<std::string>& inputs,
               const std::vector<std::uint64_t>& sizes, const std::vector<const Implementation*>& impls,
               const LaunchPolicy& base, const std::vector<int>& partition_passes) {
  for (const auto& input : inputs)
    for (auto size : sizes)
      for (const auto* impl : impls) {
        if (impl->name != "partitioned") {
          cases.push_back({experiment, input, size, impl, base});
          continue;
        }
        for (int passes : partition_passes) {
          LaunchPolicy policy = base;
          policy.passes = passes;
          cases.push_back({experiment, input, size, impl, policy});
        }
      }
}

void add_floors(std::vector<Case>& cases, const std::vector<Executor*>& executors) {
  std::set<std::tuple<std::string, std::string, std::uint64_t, std::string>> have;
  for (const auto& c : cases) have.insert({c.experiment, c.input, c.size, std::string(c.impl->name)});
  std::vector<Case> floors;
  for (const auto& c : cases) {
    const Implementation& floor = floor_for(*c.impl);
    if (!runs_somewhere(floor, executors)) continue;
    if (have.insert({c.experiment, c.input, c.size, std::string(floor.name)}).second) {
      LaunchPolicy policy;
      policy.threads = c.impl->backend == Backend::cpu ? c.policy.threads : 0;
      floors.push_back({c.experiment, c.input, c.size, &floor, policy});
    }
  }
  cases.insert(cases.end(), floors.begin(), floors.end());
}

}  // namespace

std::vector<std::pair<std::string, std::string>> experiment_descriptions() {
  return {{"lesson", "every implementation on the lesson's inputs (uniform, lesson_english, prose, one_byte) at "
                     "67,109,475 bytes; partitioned with P = 1, 2, 4, 8"},
          {"sweep", "the Table 16-4 contention sweep: every implementation on distinct_256, 128, ..., 1"},
          {"blocks", "claim C8: global and per_block with 64 to 1024 threads per block on the lesson's inputs"},
          {"perf", "the fastest kernels (lane_shared, per_warp, cub) at 1 GiB on every input, "
                   "with the GPU's measured shared-memory update rates"}};
}

std::vector<Case> plan_cases(const StudyRequest& request, const std::vector<Executor*>& executors) {
  std::vector<const Implementation*> impls;
  for (const auto& name : request.impls) {
    const Implementation& impl = find_implementation(name);
    if (!runs_somewhere(impl, executors))
      throw Unavailable("implementation '" + name + "' cannot run here (" +
                        (impl.backend == Backend::cuda ? "no usable CUDA GPU" : "no CPU executor") + ")");
    impls.push_back(&impl);
  }
  if (impls.empty()) impls = all_runnable(executors);
  for (const auto& input : request.inputs) check_readable(parse_input(input));  // fail before any work

  std::vector<std::string> experiments = request.experiments;
  const bool custom = !request.impls.empty() || !request.inputs.empty() || !request.sizes.empty();
  if (experiments.empty()) experiments = custom ? std::vector<std::string>{"custom"}
                                                : std::vector<std::string>{"lesson", "sweep"};
  const auto sizes = request.sizes.empty() ? std::vector<std::uint64_t>{kLessonSize} : request.sizes;
  auto inputs_or = [&](const std::vector<std::string>& fallback) {
    return request.inputs.empty() ? fallback : request.inputs;
  };
  auto passes_or = [&](const std::vector<int>& fallback) {
    return request.passes ? std::vector<int>{request.passes} : fallback;
  };

  std::vector<Case> cases;
  for (const auto& experiment : experiments) {
    if (experiment == "lesson" || experiment == "custom") {
      add_cases(cases, experiment, inputs_or(kLessonInputs), sizes, impls, request.policy,
                passes_or(experiment == "lesson" ? kPartitionPasses : kDefaultPasses));
    } else if (experiment == "sweep") {
      add_cases(cases, experiment, inputs_or(sweep_inputs()), sizes, impls, request.policy, passes_or(kDefaultPasses));
    } else if (experiment == "perf") {
      std::vector<const Implementation*> subjects;
      for (const auto* impl : impls)
        if (request.impls.size() || std::count(kPerfImpls.begin(), kPerfImpls.end(), impl->name)) subjects.push_back(impl);
      if (subjects.empty()) throw Unavailable("experiment 'perf' needs the GPU kernels");
      std::vector<std::string> inputs = kLessonInputs;
      for (const auto& k : sweep_inputs()) inputs.push_back(k);
      add_cases(cases, experiment, inputs_or(inputs), request.sizes.empty() ? std::vector<std::uint64_t>{kPerfSize} : sizes,
                subjects, request.policy, passes_or(kDefaultPasses));
    } else if (experiment == "blocks") {
      std::vector<const Implementation*> subjects;
      for (const auto* impl : impls)
        if (impl->name == "global" || impl->name == "per_block") subjects.push_back(impl);
      if (subjects.empty()) throw Unavailable("experiment 'blocks' needs the global or per_block GPU kernels");
      for (int block : kBlockSweep) {
        LaunchPolicy policy = request.policy;
        policy.block = block;
        add_cases(cases, experiment, inputs_or({"uniform", "lesson_english", "one_byte"}), sizes, subjects, policy,
                  kDefaultPasses);
      }
    } else {
      throw UsageError("unknown experiment '" + experiment + "' (known: lesson, sweep, blocks, perf)");
    }
  }
  add_floors(cases, executors);
  return cases;
}

std::vector<Row> run_cases(const std::vector<Case>& cases, const std::vector<Executor*>& executors,
                           const StudyRequest& request, const std::function<void(const std::string&)>& progress) {
  // Group by (input, size) so each input is generated and referenced once.
  std::map<std::pair<std::string, std::uint64_t>, std::vector<const Case*>> by_input;
  std::vector<std::pair<std::string, std::uint64_t>> order;
  for (const auto& c : cases) {
    auto key = std::make_pair(c.input, c.size);
    if (!by_input.count(key)) order.push_back(key);
    by_input[key].push_back(&c);
  }
  std::size_t total = 0, done = 0;
  for (const auto& c : cases)
    for (auto* e : executors) total += e->supports(*c.impl);

  std::vector<Row> rows;
  for (const auto& key : order) {
    const auto data = make_input(parse_input(key.first), key.second);
    if (data.empty()) throw Error(key.first + ": input is empty; nothing to measure");
    Bins reference{};
    cpu::reference(data, reference);
    const Subject subject{key.first, data, reference};
    for (auto* e : executors) e->load(data);
    for (const Case* c : by_input[key])
      for (auto* e : executors) {
        if (!e->supports(*c->impl)) continue;
        const TimingPlan& timing = c->impl->backend == Backend::cpu ? request.cpu_timing : request.gpu_timing;
        Row row = measure(*e, *c->impl, c->policy, subject, timing, c->experiment);
        std::ostringstream line;
        line << "[" << ++done << "/" << total << "] " << c->experiment << " " << row.toolchain << " "
             << row.impl << " " << row.input << " " << with_commas(row.size) << " B (" << row.policy.str() << "): ";
        if (row.check_passed)
          line << row.summary.median << " ms, " << row.gbps << " GB/s";
        else
          line << "CHECK FAILED: " << row.check_detail;
        progress(line.str());
        rows.push_back(std::move(row));
      }
  }
  attach_floors(rows);
  return rows;
}

}  // namespace hs
