#include "study/study.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "cpu_openmp/openmp_histogram.hpp"
#include "study/case_range.hpp"
#include "study/error.hpp"
#include "study/inputs.hpp"
#include "study/registry.hpp"
#include "study/sizes.hpp"

namespace hs {
namespace {

// docs/study-spec.md section 1: the lesson's three inputs, plus our own prose beside its English.
const std::vector<std::string> kLessonInputs = {"uniform", "lesson_english", "prose", "one_byte"};
// docs/study-spec.md section 1: the exercise's partition counts (4 in the lesson) and the ones around it.
const std::vector<int> kPartitionPasses = {1, 2, 4, 8};
const std::vector<int> kDefaultPasses = {4};
// Issue 6: the fast kernel against its peers, at 1 GiB (several times the
// 60 MB L2, so the floor is HBM's) on every input of the lesson and the sweep.
const std::vector<std::string> kPerfImpls = {"lane_shared", "per_warp", "cub"};
constexpr std::uint64_t kPerfSize = 1ull << 30;
// Claim C8: the block-size sweep of the global and per-block kernels.
const std::vector<int> kBlockSweep = {64, 128, 256, 512, 1024};
// Issue 10: the bins' offset from a 2 MiB boundary, 0 to 2 KiB in 128-byte
// (one L2 line) steps: two periods of the 1 KiB pattern first seen on the H200.
constexpr std::uint32_t kPlacementSweepEnd = 2048;
const std::vector<std::string> kPlacementInputs = {"uniform", "lesson_english", "one_byte"};

std::vector<Placement> placement_sweep() {
  std::vector<Placement> out;
  for (std::uint32_t offset = 0; offset <= kPlacementSweepEnd; offset += Placement::kAlignment) out.push_back({offset});
  return out;
}

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
               const LaunchPolicy& base, const std::vector<int>& partition_passes,
               const std::vector<Placement>& placements) {
  for (const auto& input : inputs)
    for (auto size : sizes)
      for (const auto* impl : impls)
        for (const auto& placement : impl->backend == Backend::cpu ? std::vector<Placement>{{}} : placements) {
          if (impl->name != "partitioned") {
            cases.push_back({experiment, input, size, impl, base, placement});
            continue;
          }
          for (int passes : partition_passes) {
            LaunchPolicy policy = base;
            policy.passes = passes;
            cases.push_back({experiment, input, size, impl, policy, placement});
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
      floors.push_back({c.experiment, c.input, c.size, &floor, policy, Placement{}});
    }
  }
  cases.insert(cases.end(), floors.begin(), floors.end());
}

// Every input and size checked before any measurement (sizes of 0, sizes
// that do not fit, unreadable, empty or non-regular files); a file's size
// is its own, so sizes given for it collapse into one case; repeated cases
// (a name given twice) are measured once.
std::vector<Case> checked_and_unique(const std::vector<Case>& cases) {
  std::map<std::pair<std::string, std::uint64_t>, std::uint64_t> measured;
  std::set<std::string> seen;
  std::vector<Case> out;
  for (Case c : cases) {
    const auto key = std::make_pair(c.input, c.size);
    if (!measured.count(key)) measured[key] = checked_input_size(parse_input(c.input), c.size);
    c.size = measured[key];
    const std::string id = c.experiment + "|" + c.input + "|" + std::to_string(c.size) + "|" +
                           std::string(c.impl->name) + "|" + c.policy.to_json().dump() + "|" +
                           std::to_string(c.placement.bins_offset);
    if (seen.insert(id).second) out.push_back(c);
  }
  return out;
}

}  // namespace

TimingPlan StudyRequest::cpu_default_timing() {
  TimingPlan plan;
  plan.warmups = 1;
  plan.stop = {5, 10, 0.01, 1.0};
  plan.cache = CacheMode::hot;  // the CPU's caches are not flushed
  plan.lesson_warmups = plan.lesson_reps = 0;
  return plan;
}

std::vector<std::pair<std::string, std::string>> experiment_descriptions() {
  return {{"lesson", "every implementation on the lesson's inputs (uniform, lesson_english, prose, one_byte) at "
                     "67,109,475 bytes; partitioned with P = 1, 2, 4, 8"},
          {"sweep", "the Table 16-4 contention sweep: every implementation on distinct_256, 128, ..., 1"},
          {"blocks", "claim C8: global and per_block with 64 to 1024 threads per block on the lesson's inputs"},
          {"perf", "the fastest kernels (lane_shared, per_warp, cub) at 1 GiB on every input, "
                   "with the GPU's measured shared-memory update rates"},
          {"placement", "every GPU kernel that adds into global bins, with the bins 0 to 2,048 bytes past a 2 MiB "
                        "boundary in 128-byte steps, on uniform, lesson_english and one_byte"}};
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
  for (const auto& input : request.inputs) parse_input(input);  // unknown names fail before any work
  if (!request.inputs.empty() && !request.sizes.empty() &&
      std::none_of(request.inputs.begin(), request.inputs.end(), [](const std::string& i) {
        return parse_input(i).synthetic();
      }))
    throw UsageError("--size does not apply to file inputs: a file is measured whole, at its own size");

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
  const std::vector<Placement> placements = request.placements.empty() ? std::vector<Placement>{{}} : request.placements;

  std::vector<Case> cases;
  for (const auto& experiment : experiments) {
    if (experiment == "lesson" || experiment == "custom") {
      add_cases(cases, experiment, inputs_or(kLessonInputs), sizes, impls, request.policy,
                passes_or(experiment == "lesson" ? kPartitionPasses : kDefaultPasses), placements);
    } else if (experiment == "sweep") {
      add_cases(cases, experiment, inputs_or(sweep_inputs()), sizes, impls, request.policy, passes_or(kDefaultPasses),
                placements);
    } else if (experiment == "perf") {
      std::vector<const Implementation*> subjects;
      for (const auto* impl : impls)
        if (request.impls.size() || std::count(kPerfImpls.begin(), kPerfImpls.end(), impl->name)) subjects.push_back(impl);
      if (subjects.empty()) throw Unavailable("experiment 'perf' needs the GPU kernels");
      std::vector<std::string> inputs = kLessonInputs;
      for (const auto& k : sweep_inputs()) inputs.push_back(k);
      add_cases(cases, experiment, inputs_or(inputs), request.sizes.empty() ? std::vector<std::uint64_t>{kPerfSize} : sizes,
                subjects, request.policy, passes_or(kDefaultPasses), placements);
    } else if (experiment == "blocks") {
      std::vector<const Implementation*> subjects;
      for (const auto* impl : impls)
        if (impl->name == "global" || impl->name == "per_block") subjects.push_back(impl);
      if (subjects.empty()) throw Unavailable("experiment 'blocks' needs the global or per_block GPU kernels");
      for (int block : kBlockSweep) {
        LaunchPolicy policy = request.policy;
        policy.block = block;
        add_cases(cases, experiment, inputs_or({"uniform", "lesson_english", "one_byte"}), sizes, subjects, policy,
                  kDefaultPasses, placements);
      }
    } else if (experiment == "placement") {
      std::vector<const Implementation*> subjects;
      for (const auto* impl : impls)
        if (impl->backend == Backend::cuda && impl->counts) subjects.push_back(impl);
      if (subjects.empty()) throw Unavailable("experiment 'placement' needs the GPU kernels that count");
      add_cases(cases, experiment, inputs_or(kPlacementInputs), sizes, subjects, request.policy,
                passes_or(kDefaultPasses), request.placements.empty() ? placement_sweep() : request.placements);
    } else {
      throw UsageError("unknown experiment '" + experiment + "' (known: lesson, sweep, blocks, perf, placement)");
    }
  }
  add_floors(cases, executors);
  return checked_and_unique(cases);
}

std::string describe_plan(const std::vector<Case>& cases) {
  std::map<std::string, std::tuple<std::set<std::string>, std::vector<std::string>, std::set<std::uint64_t>>> by;
  std::vector<std::string> order;
  for (const auto& c : cases) {
    if (!by.count(c.experiment)) order.push_back(c.experiment);
    auto& [impls, inputs, sizes] = by[c.experiment];
    impls.insert(std::string(c.impl->name));
    if (std::find(inputs.begin(), inputs.end(), c.input) == inputs.end()) inputs.push_back(c.input);
    sizes.insert(c.size);
  }
  std::string out = std::to_string(cases.size()) + " cases";
  for (const auto& name : order) {
    const auto& [impls, inputs, sizes] = by[name];
    // Appended piece by piece: GCC 12 warns falsely on "literal" + string chains.
    out.append("; ").append(name).append(": ").append(std::to_string(impls.size())).append(" implementations on ");
    for (std::size_t i = 0; i < inputs.size(); ++i) out.append(i ? ", " : "").append(inputs[i]);
    out.append(" at");
    for (auto s : sizes) out.append(" ").append(with_commas(s)).append(" B");
  }
  return out;
}

void run_cases(const std::vector<Case>& cases, const std::vector<Executor*>& executors, const StudyRequest& request,
               const std::function<void(const std::string&)>& progress, std::vector<Row>& rows) {
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

  for (const auto& key : order) {
    const auto data = make_input(parse_input(key.first), key.second);
    if (data.empty()) throw Error(key.first + ": input is empty; nothing to measure");
    Bins reference{};
    cpu::reference(data, reference);
    const Subject subject{key.first, data, reference};
    for (auto* e : executors) e->load(data);
    for (const Case* c : by_input[key]) {
      std::vector<Executor*> members;
      for (auto* e : executors)
        if (e->supports(*c->impl)) members.push_back(e);
      if (members.empty()) continue;
      const TimingPlan& timing = c->impl->backend == Backend::cpu ? request.cpu_timing : request.gpu_timing;
      const CaseRange range(*c, members);  // a profiler attributes the case's launches by it (tools/ncu_profile.py)
      for (Row& row : measure(members, *c->impl, c->policy, c->placement, subject, timing, c->experiment)) {
        std::ostringstream line;
        line << "[" << ++done << "/" << total << "] " << c->experiment << " " << row.toolchain << " " << row.impl
             << " " << row.input << " " << with_commas(row.size) << " B (" << row.policy.str();
        if (c->placement.bins_offset) line << ", bins +" << c->placement.bins_offset;
        line << "): ";
        if (!row.check_passed)
          line << "CHECK FAILED: " << row.check_detail;
        else if (row.samples_ms.empty())
          line << "every sample throttled: not timed";
        else
          line << row.summary.median << " ms, " << row.gbps << " GB/s, " << row.samples_ms.size() << " samples ("
               << row.stop.reason << ")";
        progress(line.str());
        rows.push_back(std::move(row));
      }
    }
  }
  attach_floors(rows);
}

}  // namespace hs
