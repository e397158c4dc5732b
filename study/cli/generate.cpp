// histostudy generate INPUT: a study input's exact bytes (count/count.hpp's
// generate_input), to a file or standard output.
#include <unistd.h>

#include <memory>
#include <optional>

#include "cli/cli.hpp"
#include "count/count.hpp"
#include "driver/inputs.hpp"
#include "driver/sizes.hpp"
#include "platform/progress.hpp"

namespace cli {
namespace {

struct GenerateOptions {
  std::string input, size = std::to_string(hs::kLessonSize), out = "-";
  bool force = false;
};

}  // namespace

Command add_generate(CLI::App& app) {
  auto options = std::make_shared<GenerateOptions>();
  auto* generate = app.add_subcommand("generate", "Write a study input's exact bytes");
  generate->add_option("INPUT", options->input, "uniform, lesson_english, prose, one_byte, distinct_K")->required();
  generate->add_option("-s,--size", options->size, "bytes (default: the lesson's)")->capture_default_str()->check(kNonzeroSize);
  generate->add_option("-o,--output", options->out, "file to write (default standard output); a FIFO or device is "
                                                    "written through, an existing file only with --force");
  generate->add_flag("-f,--force", options->force, "replace an existing file");
  return {generate, [options] {
    std::optional<hs::IoProgress> progress;  // not between the bytes it writes to a terminal
    if (!(options->out == "-" && ::isatty(STDOUT_FILENO)))
      progress.emplace(hs::IoProgress::Bytes::written, "histostudy generate: wrote");
    hs::generate_input(hs::parse_input(options->input), hs::parse_size(options->size), options->out, options->force);
    return 0;
  }};
}

}  // namespace cli
