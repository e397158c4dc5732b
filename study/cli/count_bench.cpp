// histostudy count-bench FILE: count against its floor on a page-cached file
// (reading it; GPU: pinned copies), in one run (count/count_bench.hpp).
#include <iostream>
#include <memory>

#include "cli/cli.hpp"
#include "count/count.hpp"
#include "count/count_bench.hpp"
#include "cpu_openmp/openmp_histogram.hpp"
#include "driver/sizes.hpp"

namespace cli {
namespace {

struct CountBenchOptions {
  hs::CountBenchRequest bench;
  std::string chunk, piece;  // as typed: parsed when the command runs
};

}  // namespace

Command add_count_bench(CLI::App& app, const std::vector<std::string>& args) {
  auto options = std::make_shared<CountBenchOptions>();
  hs::CountBenchRequest& bench = options->bench;
  auto* count_bench = app.add_subcommand(
      "count-bench", "Time count on a page-cached file against its floor: reading the file and discarding it (CPU "
                     "implementations) or copying as many bytes to the GPU from pinned memory (GPU ones)");
  count_bench->add_option("FILE", bench.path, "a regular file")->required();
  count_bench->add_option("--impl", bench.impl, "implementation that counts, CPU or GPU")->capture_default_str();
  count_bench->add_option("-t,--threads", bench.threads,
                          "CPU threads: counting (default: one per core), or for a GPU implementation reading the file "
                          "(default: seven eighths of the cores)")
      ->transform(whole_number_in(1, hs::cpu::kMaxThreads));
  count_bench->add_option("--chunk", options->chunk,
                          "GPU implementations: bytes per chunk, whole pieces up to 1GiB (default count's, " +
                              std::to_string(hs::kGpuChunk >> 20) + "MiB)")->check(kNonzeroSize);
  count_bench->add_option("--buffers", bench.buffers,
                          "GPU implementations: pinned buffers in the ring (default count's, " +
                              std::to_string(hs::kGpuBuffers) + ")")
      ->transform(whole_number_in(2, 64));
  count_bench->add_option("--piece", options->piece,
                          "GPU implementations: bytes each reading thread preads at a time, whole 64KiB dividing "
                          "the chunk (default count's, " + std::to_string(hs::kGpuPiece >> 20) + "MiB)")->check(kNonzeroSize);
  count_bench->add_option("--device", bench.device, kDeviceHelp)->check(kNotEmpty);
  count_bench->add_option("--rounds", bench.rounds, "rounds: each times every entry once (five entries; six for a CPU implementation)")->capture_default_str()
      ->transform(whole_number_in(1, 1000));
  count_bench->add_option("--settle", bench.settle_ms, "ms idle before each timed pass, so that none inherits what the "
                          "pass before it left; 0: back to back")->capture_default_str()
      ->transform(whole_number_in(0, hs::kMaxSettleMs));
  count_bench->add_option("-o,--out-dir", bench.out_dir, "where the result file goes")->capture_default_str();
  count_bench->add_flag("--no-save", bench.no_save, "print only; write no result file");
  return {count_bench, [options, args] {
    hs::CountBenchRequest& bench = options->bench;
    if (!options->chunk.empty()) bench.chunk = hs::parse_size(options->chunk);
    if (!options->piece.empty()) bench.piece = hs::parse_size(options->piece);
    const nlohmann::json doc = hs::count_bench(bench, args);
    std::cout << hs::describe_count_bench(doc);
    check_stdout(doc.contains("result_file") ? "result file: " + doc["result_file"].get<std::string>() : "");
    return 0;
  }};
}

}  // namespace cli
