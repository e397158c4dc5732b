#include "driver/study.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "cpu_openmp/openmp_histogram.hpp"
#include "driver/case_range.hpp"
#include "platform/error.hpp"
#include "driver/experiments.hpp"
#include "platform/files.hpp"
#include "platform/host_load.hpp"
#include "driver/inputs.hpp"
#include "platform/printable.hpp"
#include "platform/progress.hpp"
#include "driver/registry.hpp"
#include "driver/sizes.hpp"

namespace hs {
namespace {

std::vector<Placement> placement_sweep() {
  std::vector<Placement> out;
  for (std::uint32_t offset = 0; offset <= 2048; offset += Placement::kAlignment) out.push_back({offset});
  return out;
}

bool runs_somewhere(const Implementation& impl, const std::vector<Executor*>& executors) {
  return std::any_of(executors.begin(), executors.end(), [&](Executor* e) { return e->supports(impl); });
}

bool has_gpu_executor(const std::vector<Executor*>& executors) {
  return std::any_of(executors.begin(), executors.end(), [](Executor* e) { return e->toolchain() != "cpu"; });
}

std::vector<const Implementation*> all_runnable(const std::vector<Executor*>& executors) {
  std::vector<const Implementation*> out;
  for (const auto& impl : implementations())
    if (runs_somewhere(impl, executors)) out.push_back(&impl);
  return out;
}

// --grid and --block launch GPU kernels: a CPU implementation of the same
// run is measured without them.
LaunchPolicy on_its_backend(const Implementation& impl, LaunchPolicy policy) {
  if (impl.backend == Backend::cpu) policy.grid = policy.block = 0;
  return policy;
}

// One case per implementation and input and size; an implementation that
// takes passes once per pass count in `partition_passes`.
void add_cases(std::vector<Case>& cases, const std::string& experiment, const std::vector<std::string>& inputs,
               const std::vector<std::uint64_t>& sizes, const std::vector<const Implementation*>& impls,
               const LaunchPolicy& base, const std::vector<int>& partition_passes,
               const std::vector<Placement>& placements) {
  for (const auto& input : inputs)
    for (auto size : sizes)
      for (const auto* impl : impls)
        for (const auto& placement : impl->backend == Backend::cpu ? std::vector<Placement>{{}} : placements) {
          const LaunchPolicy own = on_its_backend(*impl, base);
          if (!impl->takes_passes) {
            cases.push_back({experiment, input, size, impl, own, placement});
            continue;
          }
          for (int passes : partition_passes) {
            LaunchPolicy policy = own;
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

// The implementations of `impls` that experiment `e` runs: those with one
// of its roles (all of `impls` when the user named them), on the GPU only or
// counting only where it says so.
std::vector<const Implementation*> selected(const Experiment& e, const std::vector<const Implementation*>& impls,
                                            bool named) {
  std::vector<const Implementation*> out;
  for (const auto* impl : impls) {
    const bool by_role = named || e.roles.empty() ||
                         std::any_of(e.roles.begin(), e.roles.end(), [&](auto r) { return has_role(*impl, r); });
    if (by_role && (!e.gpu_only || impl->backend == Backend::cuda) && (!e.counting_only || impl->counts))
      out.push_back(impl);
  }
  if (out.empty())
    throw Unavailable("experiment '" + std::string(e.name) + "' has nothing to run here: it needs " +
                      (e.gpu_only ? "GPU implementations" : "implementations") +
                      (e.counting_only ? " that count" : "") + (e.roles.empty() || named ? "" : " of its roles"));
  return out;
}

// "a", "a and b", "a, b and c".
std::string spoken_list(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

// --grid, --block, --cache, --toolchain and the other GPU-only options: a run
// with no GPU implementation refuses them before it measures anything, rather
// than run without what was asked.
void check_gpu_options_apply(const StudyRequest& request, const std::vector<Case>& cases,
                             const std::vector<Executor*>& executors) {
  std::vector<std::string> named = request.gpu_options;
  if (request.policy.grid) named.push_back("--grid");
  if (request.policy.block) named.push_back("--block");
  if (named.empty()) return;
  if (std::any_of(cases.begin(), cases.end(), [](const Case& c) { return c.impl->backend == Backend::cuda; })) return;
  throw UsageError(spoken_list(named) + (named.size() == 1 ? " applies" : " apply") +
                   " to GPU implementations, and this run has none (" +
                   (has_gpu_executor(executors) ? "those named run on the CPU" : "no usable CUDA GPU here") + ")");
}

// Every case's launch policy resolved on every executor that runs it, as the
// harness will resolve it: a grid, block or size that a variant refuses
// (lane_shared's block of 1024, a grid past the GPU's) stops the run before
// it measures anything, not midway through it.
void check_policies_resolve(const std::vector<Case>& cases, const std::vector<Executor*>& executors,
                            const StudyRequest& request) {
  for (const auto& c : cases) {
    const TimingPlan& timing = c.impl->backend == Backend::cpu ? request.cpu_timing : request.gpu_timing;
    const auto& blocks = find_experiment(c.experiment).blocks;
    try {
      for (auto* e : executors)
        if (e->supports(*c.impl)) (void)e->resolve(*c.impl, c.policy, c.size, timing.runs_between_zeroings());
    } catch (const UsageError& e) {
      if (blocks.empty()) throw;  // the user's own launch: the variant's words say it all
      throw UsageError("the " + c.experiment + " experiment runs every block size from " +
                       std::to_string(blocks.front()) + " to " + std::to_string(blocks.back()) + ", and " + e.what() +
                       ": leave " + std::string(c.impl->name) + " out of it");
    }
  }
}

}  // namespace

TimingPlan StudyRequest::cpu_default_timing() {
  TimingPlan plan;
  plan.warmups = 1;
  // 5 to 10 samples, to 1% noise or 1 s: an input's CPU implementations
  // are sampled in one rotation (run_cases), so the second is theirs together.
  plan.stop = {5, 10, 0.01, 1.0};
  plan.cache = CacheMode::hot;  // the CPU's caches are not flushed
  plan.lesson_warmups = plan.lesson_reps = 0;
  return plan;
}

std::vector<Case> plan_cases(const StudyRequest& request, const std::vector<Executor*>& executors) {
  std::vector<const Implementation*> impls;
  for (const auto& name : request.impls) {
    const Implementation& impl = find_implementation(name);
    if (!runs_somewhere(impl, executors))
      throw Unavailable("implementation '" + name + "' cannot run here (" +
                        (impl.backend == Backend::cpu ? "no CPU executor"
                         : !has_gpu_executor(executors)
                             ? "no usable CUDA GPU"
                             : "none of the toolchains named runs it: a library runs with nvcc alone") +
                        ")");
    impls.push_back(&impl);
  }
  if (impls.empty()) impls = all_runnable(executors);
  for (const auto& input : request.inputs) parse_input(input);  // unknown names fail before any work
  check_one_spelling_per_file(request.inputs);
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
  const std::vector<Placement> placements = request.placements.empty() ? std::vector<Placement>{{}} : request.placements;

  std::vector<Case> cases;
  for (const auto& name : experiments) {
    const Experiment& e = find_experiment(name);
    const auto subjects = selected(e, impls, !request.impls.empty());
    const auto inputs = request.inputs.empty() ? e.inputs : request.inputs;
    const auto e_sizes = request.sizes.empty() && !e.sizes.empty() ? e.sizes : sizes;
    const auto passes = request.passes ? std::vector<int>{request.passes} : e.passes;
    const auto e_placements = request.placements.empty() && e.placement_sweep ? placement_sweep() : placements;
    for (int block : e.blocks.empty() ? std::vector<int>{request.policy.block} : e.blocks) {
      LaunchPolicy policy = request.policy;
      policy.block = block;
      add_cases(cases, name, inputs, e_sizes, subjects, policy, passes, e_placements);
    }
  }
  check_gpu_options_apply(request, cases, executors);
  if (request.passes && std::none_of(cases.begin(), cases.end(), [](const Case& c) { return c.impl->takes_passes; }))
    throw UsageError("--passes applies to implementations that take passes (partitioned), and this run has none");
  add_floors(cases, executors);
  const auto unique = checked_and_unique(cases);
  check_policies_resolve(unique, executors, request);
  return unique;
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
    out.append("; ").append(name).append(": ").append(std::to_string(impls.size()));
    out.append(impls.size() == 1 ? " implementation on " : " implementations on ");
    for (std::size_t i = 0; i < inputs.size(); ++i) out.append(i ? ", " : "").append(printable(inputs[i]));
    out.append(" at");
    for (auto s : sizes) out.append(" ").append(with_commas(s)).append(" B");
  }
  return out;
}

std::string measurement_label(const std::string& experiment, const std::string& toolchain, std::string_view impl,
                              const std::string& input, std::uint64_t size, const LaunchPolicy& policy,
                              std::uint64_t bins_offset) {
  std::string out = experiment + " " + printable(toolchain) + " ";
  out.append(impl).append(" ").append(printable(input)).append(" ").append(with_commas(size)).append(" B (");
  out.append(policy.str()).append(bins_offset ? ", bins +" + std::to_string(bins_offset) : "").append(")");
  return out;
}

std::vector<std::string> plan_lines(const std::vector<Case>& cases, const std::vector<Executor*>& executors,
                                    const StudyRequest& request) {
  std::vector<std::string> lines;
  for (const auto& c : cases) {
    const TimingPlan& timing = c.impl->backend == Backend::cpu ? request.cpu_timing : request.gpu_timing;
    for (auto* e : executors)
      if (e->supports(*c.impl))
        lines.push_back(measurement_label(c.experiment, e->toolchain(), c.impl->name, c.input, c.size,
                                          e->resolve(*c.impl, c.policy, c.size, timing.runs_between_zeroings()),
                                          c.placement.bins_offset));
  }
  return lines;
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
    stop_if_interrupted();
    std::vector<std::uint8_t> data;
    Bins reference{};
    {
      StatusLine status;  // an input of gigabytes takes seconds to make and count once
      status.say("histostudy: preparing " + printable(key.first) + ", " + with_commas(key.second) +
                 " B, and its reference count");
      data = make_input(parse_input(key.first), key.second);
      if (data.empty()) throw Error(key.first + ": input is empty; nothing to measure");
      cpu::reference(data, reference);
    }
    const Subject subject{key.first, data, reference};
    for (auto* e : executors) e->load(data);
    const auto report = [&](std::vector<Row> measured, std::uint64_t bins_offset) {
      for (Row& row : measured) {
        std::ostringstream line;
        line << "[" << ++done << "/" << total << "] "
             << measurement_label(row.experiment, row.toolchain, row.impl, row.input, row.size, row.policy, bins_offset)
             << ": ";
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
    };
    // The CPU cases of an input are sampled in one rotation: a stretch of a
    // shared machine running slow then lands on every one of them alike
    // (and on their read floor), not on one whole case. A GPU case's
    // toolchains are its rotation.
    std::vector<MeasureEntry> cpu_entries;
    for (const Case* c : by_input[key]) {
      std::vector<Executor*> members;
      for (auto* e : executors)
        if (e->supports(*c->impl)) members.push_back(e);
      if (members.empty()) continue;
      if (c->impl->backend == Backend::cpu) {
        for (auto* e : members) cpu_entries.push_back({e, c->impl, c->policy, c->placement, c->experiment});
        continue;
      }
      const CaseRange range(*c, members);  // a profiler attributes the case's launches by it (tools/ncu_profile.py)
      report(measure(members, *c->impl, c->policy, c->placement, subject, request.gpu_timing, c->experiment),
             c->placement.bins_offset);
    }
    if (!cpu_entries.empty()) {
      const CpuUse before = cpu_use_now();
      auto measured = measure(cpu_entries, subject, request.cpu_timing);
      const auto load = host_load(before, cpu_use_now());
      for (Row& row : measured) row.host_load = load;
      report(std::move(measured), 0);  // CPU bins lie anywhere
    }
  }
  attach_floors(rows);
}

}  // namespace hs
