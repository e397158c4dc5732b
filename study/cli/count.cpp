// histostudy count [FILE|-]: a file's byte histogram, 256 lines "value count",
// by any implementation (count/count.hpp).
#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>

#include "cli/cli.hpp"
#include "count/count.hpp"
#include "cpu_openmp/openmp_histogram.hpp"
#include "driver/registry.hpp"
#include "driver/session.hpp"
#include "platform/progress.hpp"

namespace cli {
namespace {

int count_command(const std::string& impl_name, const std::string& path, int threads, const std::string& device) {
  const hs::Implementation& impl = hs::find_implementation(impl_name);
  const hs::Executors ex = hs::make_executors({}, "none", device);
  const hs::Bins bins = [&] {
    std::optional<hs::IoProgress> progress;  // not over what a person types into the count
    if (!(path == "-" && ::isatty(STDIN_FILENO)))
      progress.emplace(hs::IoProgress::Bytes::read, "histostudy count: read");
    return hs::count_stream(path, impl, hs::executor_for(ex, impl), threads);
  }();
  std::string out;
  for (int v = 0; v < hs::kBins; ++v) out += std::to_string(v) + " " + std::to_string(bins[v]) + "\n";
  std::cout << out;
  check_stdout();
  return 0;
}

struct CountOptions {
  std::string impl, path = "-";
  int threads = 0;
  std::string device;
};

}  // namespace

Command add_count(CLI::App& app) {
  auto options = std::make_shared<CountOptions>();
  // count's default: the CPU's privatized implementation.
  for (const auto* impl : hs::with_role("privatized"))
    if (impl->backend == hs::Backend::cpu && options->impl.empty()) options->impl = impl->name;
  auto* count = app.add_subcommand("count", "Print a file's byte histogram: 256 lines 'value count'");
  count->add_option("FILE", options->path, "file to count, or - for standard input (default)");
  count->add_option("--impl", options->impl,
                    "implementation (default: the CPU's privatized one); a GPU one (lane_shared, cub, ...) counts " +
                        std::to_string(hs::kGpuChunk >> 20) + " MiB chunks on the GPU while the next are read into "
                        "pinned memory")
      ->capture_default_str();
  count->add_option("-t,--threads", options->threads,
                    "CPU threads: counting (default: one per core), or for a GPU implementation reading the file "
                    "(default: seven eighths of the cores)")
      ->transform(whole_number_in(1, hs::cpu::kMaxThreads));
  count->add_option("--device", options->device, kDeviceHelp)->check(kNotEmpty);
  return {count, [options] { return count_command(options->impl, options->path, options->threads, options->device); }};
}

}  // namespace cli
