// One study on several GPUs of a machine at once (histostudy run --device
// all, or a list such as --device 0,2): one child process per GPU, each the
// same command line with --device naming its GPU and --run-id naming the
// run they share, so no GPU waits for another and every child writes its
// own result file. This process starts them together, relays their output
// with each line tagged by its GPU, forwards termination signals, and
// reports how each child ended. plots/fleet.py groups the files by run id.
#pragma once
#include <initializer_list>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace hs {

// Whether a --device value names several GPUs: "all", or a list with a comma.
bool names_several_devices(const std::string& spec);

// The items of a --device list ("0,2", "GPU-8a1f,GPU-77c0"). Throws
// UsageError for a list that names nothing or one item twice.
std::vector<std::string> device_list(const std::string& spec);

// `argv` (a command line, argv[0] first) without `options`, each given as
// "--option value" or "--option=value".
std::vector<std::string> without_options(const std::vector<std::string>& argv,
                                         std::initializer_list<std::string_view> options);

// The descriptor each member writes its result file's exact path to
// (run --result-path-fd): a pipe run_members reads.
inline constexpr int kMemberResultFd = 3;

// `argv` (a run's command line) without its --device, --run-id and
// --result-path-fd options, then "--device DEVICE --run-id RUN_ID
// --result-path-fd 3": what one GPU's child runs.
std::vector<std::string> member_argv(const std::vector<std::string>& argv, const std::string& device,
                                     const std::string& run_id);

// A fresh run id, "<UTC second>-<host>-<pid>", unique on a machine.
std::string new_run_id();

// Throws UsageError unless `id` is 1 to 100 letters, digits, '.', '_' or '-',
// starting with a letter or digit: safe in a file or folder name.
void check_run_id(const std::string& id);

struct Member {
  std::string label;              // "GPU 1": the tag of its output lines
  std::vector<std::string> argv;  // argv[0] as the user typed it
};

struct MemberExit {
  std::string label;
  int status = 0;           // the exit status; 128 + N for a child killed by signal N
  std::string how;          // "exited 0", "killed by signal 15 (Terminated)", "could not start: ..."
  std::string result_file;  // the exact path it wrote to kMemberResultFd; "" without one
};

// Starts every member at once as `program` (its own executable), with a
// pipe on its descriptor kMemberResultFd for its result path; relays each
// member's standard error line by line as it comes, and its standard output
// as one block when it ends, every line prefixed "[label] "; passes SIGINT,
// SIGTERM and SIGHUP on to every member still running; returns when all have
// ended, in the members' order.
std::vector<MemberExit> run_members(const std::vector<Member>& members, const std::string& program, std::ostream& out,
                                    std::ostream& err);

}  // namespace hs
