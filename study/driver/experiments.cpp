#include "driver/experiments.hpp"

#include "cuda/variants.hpp"
#include "platform/error.hpp"
#include "driver/sizes.hpp"

namespace hs {
namespace {

// docs/study-spec.md section 1: the lesson's three inputs, plus our own prose beside its English.
std::vector<std::string> lesson_inputs() { return {"uniform", "lesson_english", "prose", "one_byte"}; }

std::vector<std::string> sweep_inputs() {  // Table 16-4: 256, 128, ..., 1 distinct values
  std::vector<std::string> inputs;
  for (int k = 256; k >= 1; k /= 2) inputs.push_back("distinct_" + std::to_string(k));
  return inputs;
}

std::vector<std::string> lesson_and_sweep_inputs() {
  auto inputs = lesson_inputs();
  for (const auto& k : sweep_inputs()) inputs.push_back(k);
  return inputs;
}

std::vector<Experiment> table() {
  return {
      {.name = "lesson",
       .description = "every implementation on the lesson's inputs (uniform, lesson_english, prose, one_byte) at "
                      "67,109,475 bytes; P = 1, 2, 4, 8 passes where an implementation takes them",
       .inputs = lesson_inputs(),
       // docs/study-spec.md section 1: the exercise's partition counts (4 in the lesson) and the ones around it.
       .passes = {gpu::kPassCounts.begin(), gpu::kPassCounts.end()}},
      {.name = "sweep",
       .description = "the Table 16-4 contention sweep: every implementation on distinct_256, 128, ..., 1",
       .inputs = sweep_inputs(),
       .passes = {gpu::kLessonPasses}},
      {.name = "blocks",
       .description = "claim C8: the baseline and privatized GPU kernels with 64 to 1024 threads per block on "
                      "uniform, lesson_english and one_byte",
       .inputs = {"uniform", "lesson_english", "one_byte"},
       .roles = {"baseline", "privatized"},
       .gpu_only = true,
       .passes = {gpu::kLessonPasses},
       .blocks = {64, 128, 256, 512, 1024}},
      // 1 GiB: several times the 60 MB L2 of the H200, so the floor is HBM's.
      {.name = "perf",
       .description = "the fastest GPU kernels (subject, contenders, peer) at 1 GiB on every input of the lesson "
                      "and the sweep, with the GPU's measured shared-memory update rates",
       .inputs = lesson_and_sweep_inputs(),
       .sizes = {1ull << 30},
       .roles = {"subject", "contender", "peer"},
       .gpu_only = true,
       .passes = {gpu::kLessonPasses},
       .measures_shared_rates = true},
      // The size sweep: the fixed costs show at small sizes, the floor's L2 share
      // below about 48 MiB (cold samples flush it), HBM's rate above.
      {.name = "sizes",
       .description = "the subject and the peer GPU kernels beside the read floor from 1 MiB to 4 GiB on uniform, "
                      "lesson_english and one_byte",
       .inputs = {"uniform", "lesson_english", "one_byte"},
       .sizes = {1ull << 20, 4ull << 20, 16ull << 20, (64ull << 20) + 611, 256ull << 20, 1ull << 30, 4ull << 30},
       .roles = {"subject", "peer"},
       .gpu_only = true,
       .passes = {gpu::kLessonPasses}},
      // Two periods of the 1 KiB placement pattern first seen on the H200.
      {.name = "placement",
       .description = "every GPU kernel that adds into global bins, with the bins 0 to 2,048 bytes past a 2 MiB "
                      "boundary in 128-byte steps, on uniform, lesson_english and one_byte",
       .inputs = {"uniform", "lesson_english", "one_byte"},
       .gpu_only = true,
       .counting_only = true,
       .passes = {gpu::kLessonPasses},
       .placement_sweep = true},
      {.name = "custom",
       .description = "what --impl, --input and --size name alone (inputs: the lesson's; P = 4)",
       .inputs = lesson_inputs(),
       .passes = {gpu::kLessonPasses}},
  };
}

}  // namespace

const std::vector<Experiment>& experiments() {
  static const std::vector<Experiment> all = table();
  return all;
}

std::string experiment_names() {
  std::string names;
  for (const auto& e : experiments()) names += (names.empty() ? "" : ", ") + std::string(e.name);
  return names;
}

const Experiment& find_experiment(std::string_view name) {
  for (const auto& e : experiments())
    if (e.name == name) return e;
  throw UsageError("unknown experiment '" + std::string(name) + "' (known: " + experiment_names() + ")");
}

nlohmann::ordered_json experiments_json() {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& e : experiments()) {
    nlohmann::ordered_json roles = nlohmann::ordered_json::array();
    for (auto role : e.roles) roles.push_back(role);
    const auto sizes = e.sizes.empty() ? std::vector<std::uint64_t>{kLessonSize} : e.sizes;
    list.push_back({{"name", e.name},
                    {"description", e.description},
                    {"inputs", e.inputs},
                    {"sizes", sizes},
                    {"roles", roles},
                    {"gpu_only", e.gpu_only}});
  }
  return nlohmann::ordered_json{{"experiments", list}};
}

}  // namespace hs
