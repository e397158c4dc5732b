// histostudy: the command-line front end. Library layers throw hs::Error;
// the command line (study/cli/) alone prints errors and chooses exit codes.
// main() registers the subcommands, each built by one function with its
// action (cli.hpp), parses, and runs the one named:
//
//   histostudy run ...            the study (default: lesson + sweep) -> runs/*.json     (run.cpp)
//   histostudy count [FILE|-]     256 lines "value count"                                (count.cpp)
//   histostudy count-bench FILE   count against its floor on a page-cached file          (count_bench.cpp)
//                                 (reading it; GPU: pinned copies)
//   histostudy generate INPUT     a study input's exact bytes                            (generate.cpp)
//   histostudy list               implementations, inputs, experiments, toolchains       (list.cpp)
//   histostudy env                the environment record alone                           (env.cpp)
//   histostudy cubins             NVRTC-built cubins for the codegen audit (no GPU needed) (cubins.cpp)
//
// With no command, it prints its help on stderr and exits 2, measuring nothing.
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <iterator>

#include "build_config.hpp"
#include "cli/cli.hpp"
#include "cpu_openmp/openmp_histogram.hpp"
#include "platform/error.hpp"
#include "platform/files.hpp"

namespace {

// OMP_NUM_THREADS beyond what --threads accepts is refused before OpenMP
// starts any thread (libgomp crashed at 100,000).
void check_thread_variable() {
  const char* value = std::getenv("OMP_NUM_THREADS");
  if (!value || !*value) return;
  const std::string first = std::string(value).substr(0, std::string(value).find(','));
  char* end = nullptr;
  errno = 0;
  const long long threads = std::strtoll(first.c_str(), &end, 10);
  if (end == first.c_str() || *end || errno == ERANGE || threads < 1 || threads > hs::cpu::kMaxThreads)
    throw hs::UsageError("OMP_NUM_THREADS=" + std::string(value) + ": name 1 to " +
                         std::to_string(hs::cpu::kMaxThreads) + " threads");
}

}  // namespace

int main(int argc, char** argv) {
  using cli::say_error;
  if (!hs::hold_closed_standard_descriptors()) {
    std::fprintf(stderr, "histostudy: error: cannot hold a closed standard stream's descriptor (%s)\n",
                 std::strerror(errno));
    return 1;
  }
  hs::install_signal_handlers();
  const std::vector<std::string> args(argv, argv + argc);
  CLI::App app{"histostudy: a reproducibility study of 256-bin byte histograms on GPUs and CPUs.\n"
               "With no command, prints this help on stderr and exits 2, measuring nothing: histostudy run runs "
               "the default study."};
  app.set_version_flag("--version", std::string("histostudy ") + HISTOSTUDY_VERSION);
  app.require_subcommand(0, 1);
  const cli::Command commands[] = {cli::add_run(app, args),  cli::add_count(app), cli::add_count_bench(app, args),
                                   cli::add_generate(app),   cli::add_list(app),  cli::add_env(app),
                                   cli::add_cubins(app)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version
      app.exit(e);
      return cli::stdout_status();
    }
    // Options before any command that `run` would take: run typed without its name.
    if (dynamic_cast<const CLI::ExtrasError*>(&e) && app.get_subcommands().empty() && argc > 1 && argv[1][0] == '-') {
      std::vector<std::string> as_run(std::make_reverse_iterator(args.end()), std::make_reverse_iterator(args.begin() + 1));
      as_run.push_back("run");  // CLI11 takes the words last first
      std::string line;
      for (auto word = args.begin() + 1; word != args.end(); ++word) line += " " + *word;
      try {
        app.clear();
        app.parse(as_run);
        say_error("options come after a command; did you mean: histostudy run" + line + " (see --help)");
        return 2;
      } catch (const CLI::ParseError&) {  // not run's either: CLI11's own words
      }
    }
    say_error(e.what() + std::string(" (see --help)"));
    return 2;
  }
  if (app.get_subcommands().empty()) {  // no study runs, nor writes ./runs/, unasked
    std::cerr << app.help();
    return 2;
  }
  try {
    check_thread_variable();
    for (const auto& command : commands)
      if (*command.app) return command.action();
    return 2;  // not reached: a command was parsed
  } catch (const hs::UsageError& e) {
    say_error(e.what());
    return 2;
  } catch (const hs::ClosedPipe&) {
    return cli::kClosedPipeStatus;
  } catch (const std::exception& e) {
    say_error(hs::message_of(e));
    return 1;
  }
}
