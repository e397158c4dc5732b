// The command line's shared pieces. Each subcommand is one function (run.cpp,
// count.cpp, count_bench.cpp, generate.cpp, list.cpp, env.cpp, cubins.cpp)
// that adds its CLI11 subcommand, with its options, to the app and returns
// its action; main.cpp registers them, parses, and runs the one named.
// Library layers throw hs::Error; the command line alone prints errors and
// chooses exit codes.
#pragma once
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <csignal>
#include <functional>
#include <string>
#include <vector>

namespace cli {

// A subcommand: CLI11's (true once parsed) and what it does, returning the exit status.
struct Command {
  CLI::App* app;
  std::function<int()> action;
};

// The subcommands, in the order --help lists them. `args`: the whole command line, as recorded.
Command add_run(CLI::App& app, const std::vector<std::string>& args);
Command add_count(CLI::App& app);
Command add_count_bench(CLI::App& app, const std::vector<std::string>& args);
Command add_generate(CLI::App& app);
Command add_list(CLI::App& app);
Command add_env(CLI::App& app);
Command add_cubins(CLI::App& app);

// run's default GPU timing plan, as `list --experiments` shows it.
nlohmann::json default_gpu_timing();

// Items between commas, empty ones dropped.
std::vector<std::string> split_commas(const std::vector<std::string>& items);

// Each name once, in the order first given (a name repeated would be measured twice).
std::vector<std::string> unique(const std::vector<std::string>& items);

// An --input item that names an existing file as a whole (a path may contain commas).
bool names_a_file(const std::string& item);

// An error's one line on standard error, names in it escaped (a path may hold a newline).
void say_error(const std::string& what);

// A closed pipe's exit status: what the shell reports for a process that
// SIGPIPE ended, as `yes | head` leaves it.
constexpr int kClosedPipeStatus = 128 + SIGPIPE;

// Throws Error when standard output could not be written (a full disk, a
// closed pipe): a command that printed nothing must not exit 0. `saved`
// ("result file: PATH"), what standard output failed to say, is said here;
// with nothing to say, a closed pipe is a ClosedPipe.
void check_stdout(const std::string& saved = "");

// 0 when standard output took all that was printed to it; else one line and 1.
int stdout_status();

extern const char* const kDeviceHelp;

// CLI11's Range says "Value abc not in range 1 to 4096" for a word: these
// say what is wrong with the value first.
CLI::Validator whole_number_in(long long lo, long long hi);
CLI::Validator number_in(double lo, double hi);

// An empty --device would mean the default GPU; a user who typed one meant a name.
extern const CLI::Validator kNotEmpty;
// A list option's value: items between commas, none empty.
extern const CLI::Validator kList;
// --input's, where an existing file is named whole, commas and all.
extern const CLI::Validator kInputList;
// A size, not 0.
extern const CLI::Validator kNonzeroSize;

}  // namespace cli
