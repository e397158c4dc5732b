// histostudy cubins -o DIR: every NVRTC release's SASS and PTX of the
// kernels, with a manifest, for the codegen audit (no GPU needed).
#include <algorithm>
#include <iostream>
#include <memory>

#include "build_config.hpp"
#include "cli/cli.hpp"
#include "platform/error.hpp"
#include "platform/printable.hpp"
#if HISTOSTUDY_HAVE_CUDA
#include "cuda/modules.hpp"
#include "cuda/toolchains.hpp"
#endif

namespace cli {
namespace {

#if HISTOSTUDY_HAVE_CUDA
std::vector<int> parse_archs(const std::vector<std::string>& items) {
  std::vector<int> archs;
  for (const auto& item : split_commas(items)) {
    const auto digits = item.starts_with("sm_") ? item.substr(3) : item;
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 4)
      throw hs::UsageError("--arch " + item + ": name a compute capability such as 75 or sm_90");
    const int arch = std::stoi(digits);
    if (std::find(archs.begin(), archs.end(), arch) == archs.end()) archs.push_back(arch);  // 75,sm_75: built once
  }
  return archs;  // not empty: --arch's list refuses empty items (kList)
}
#endif

int cubins_command(const std::vector<std::string>& toolchains, const std::vector<std::string>& archs,
                   const std::string& out_dir) {
#if HISTOSTUDY_HAVE_CUDA
  std::vector<std::string> specs = unique(split_commas(toolchains));
  if (specs.empty())
    for (const auto& t : hs::gpu::find_toolchains())
      if (t.spec != "nvcc") specs.push_back(t.spec);
  const auto manifest = hs::gpu::write_modules(specs, parse_archs(archs), out_dir);
  std::cout << manifest["builds"].size() << " modules (SASS and PTX) in " << hs::printable(out_dir)
            << " (manifest.json)\n";
  check_stdout("modules written: " + out_dir);
  return 0;
#else
  (void)toolchains, (void)archs, (void)out_dir;
  throw hs::Unavailable("this histostudy was built without CUDA: no NVRTC toolchains");
#endif
}

struct CubinsOptions {
  std::vector<std::string> toolchains, archs = {"75,90"};
  std::string out_dir;
};

}  // namespace

Command add_cubins(CLI::App& app) {
  auto options = std::make_shared<CubinsOptions>();
  auto* cubins = app.add_subcommand("cubins", "Compile the kernels with NVRTC toolchains into SASS and PTX modules, as their "
                                              "executors would, for the codegen audit (no GPU needed)");
  cubins->add_option("--toolchain", options->toolchains, "NVRTC toolchains (default: every one `list` shows)")
      ->check(kList);
  cubins->add_option("--arch", options->archs, "compute capabilities (default 75,90)")->check(kList);
  cubins->add_option("-o,--out-dir", options->out_dir, "where cubins, logs and manifest.json go")->required();
  return {cubins, [options] { return cubins_command(options->toolchains, options->archs, options->out_dir); }};
}

}  // namespace cli
