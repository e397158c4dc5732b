// histostudy list: implementations and their roles, inputs, experiments and
// toolchains, for people; --json and --experiments, for scripts.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

#include "build_config.hpp"
#include "cli/cli.hpp"
#include "driver/experiments.hpp"
#include "driver/inputs.hpp"
#include "driver/registry.hpp"
#include "driver/session.hpp"
#include "platform/printable.hpp"
#if HISTOSTUDY_HAVE_CUDA
#include "cuda/toolchain_spec.hpp"
#include "cuda/toolchains.hpp"
#endif

namespace cli {
namespace {

void list_command() {
  const hs::Executors ex = hs::make_executors();
  std::cout << "implementations (histostudy run --impl NAME):\n";
  for (const auto& impl : hs::implementations()) {
    bool here = std::any_of(ex.owned.begin(), ex.owned.end(), [&](const auto& e) { return e->supports(impl); });
    std::printf("  %-18s %-5s %s (%s)%s\n", std::string(impl.name).c_str(),
                std::string(hs::backend_name(impl.backend)).c_str(), std::string(impl.idea).c_str(),
                std::string(impl.family).c_str(), here ? "" : "  [cannot run here]");
  }
  std::cout << "inputs (--input NAME):\n";
  for (const auto& input : hs::input_kinds())
    std::printf("  %-15s %s\n", std::string(input.name).c_str(), std::string(input.description).c_str());
  std::cout << "experiments (--experiment NAME):\n";
  for (const auto& e : hs::experiments())
    std::printf("  %-9s %s\n", std::string(e.name).c_str(), std::string(e.description).c_str());
  std::cout << "toolchains (--toolchain SPEC):\n  cpu                always\n";
#if HISTOSTUDY_HAVE_CUDA
  for (const auto& t : hs::gpu::find_toolchains())
    std::printf("  %-18s %s%s\n", hs::printable(t.label).c_str(), hs::printable(t.spec).c_str(),
                t.spec.ends_with(t.where) ? "" : (" (" + hs::printable(t.where) + ")").c_str());
  std::string missing;
  for (const auto& r : hs::gpu::nvrtc_releases())
    if (!hs::gpu::installed_release_library(r.release)) missing += (missing.empty() ? "" : ", ") + r.release;
  if (!missing.empty()) std::cout << "  NVRTC releases not installed (./dev nvrtc RELEASE): " << missing << "\n";
#endif
  if (!ex.gpu_absent.empty()) std::cout << "  (no GPU here to run them: " << hs::printable(ex.gpu_absent) << ")\n";
}

// `list --experiments`: the experiments, and the GPU timing plan `run` uses by default.
void list_experiments_command() {
  nlohmann::ordered_json doc = hs::experiments_json();
  doc["gpu_timing"] = default_gpu_timing();
  std::cout << doc.dump(2) << "\n";
}

struct ListOptions {
  bool json = false, experiments = false;
};

}  // namespace

Command add_list(CLI::App& app) {
  auto options = std::make_shared<ListOptions>();
  auto* list = app.add_subcommand("list", "List implementations, inputs, experiments and toolchains");
  list->add_flag("--json", options->json,
                 "the registry as JSON (data/registry.json): implementations with their backends and roles, count's "
                 "reading plans, the inputs, and the experiments as --experiments gives them");
  list->add_flag("--experiments", options->experiments,
                 "the experiments as JSON: each one's inputs, sizes and roles, and run's default GPU timing plan "
                 "(what tools/peers.py runs)")
      ->excludes("--json");
  return {list, [options] {
    if (options->experiments)
      list_experiments_command();
    else if (options->json)
      std::cout << hs::registry_json();
    else
      list_command();
    check_stdout();
    return 0;
  }};
}

}  // namespace cli
