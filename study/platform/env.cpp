#include "platform/env.hpp"

#include <omp.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <thread>
#include <vector>

#include "platform/build_commit.hpp"
#include "build_config.hpp"
#include "platform/error.hpp"

extern char** environ;

namespace hs {
namespace {

std::string first_value(const std::string& path, const std::string& key, char separator) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) != 0) continue;
    auto pos = line.find(separator);
    if (pos == std::string::npos) continue;
    std::string value = line.substr(pos + 1);
    value.erase(0, value.find_first_not_of(" \t\""));
    while (!value.empty() && (value.back() == '"' || value.back() == ' ')) value.pop_back();
    return value;
  }
  return "";
}

// Output of a program run with `argv` (no shell: a path holding quotes is
// an argument like any other), trimmed; nullopt when it cannot run or exits
// non-zero (no git, not a checkout: `git rev-parse HEAD` then prints "HEAD").
std::optional<std::string> command_output(const std::vector<std::string>& argv) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  std::string out;
  std::array<char, 256> buf{};
  for (ssize_t n; spawned == 0 && (n = ::read(fds[0], buf.data(), buf.size())) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.append(buf.data(), std::size_t(n));
  }
  ::close(fds[0]);
  int status = 0;
  if (spawned != 0) return std::nullopt;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

nlohmann::json variables_with_prefixes(std::initializer_list<std::string_view> prefixes) {
  nlohmann::json vars = nlohmann::json::object();
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    for (auto prefix : prefixes)
      if (entry.starts_with(prefix)) {
        auto eq = entry.find('=');
        vars[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
      }
  }
  return vars;
}

}  // namespace

nlohmann::json cpu_identity() {
  std::ifstream in("/proc/cpuinfo");
  std::map<std::string, std::string> fields;
  for (std::string line; std::getline(in, line) && !line.empty();) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    fields[key] = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
  }
  nlohmann::json features = nlohmann::json::array();
  const std::string flags = " " + fields["flags"] + " ";
  for (const char* f : {"avx2", "avx512f", "avx512bw", "avx512vbmi", "avx512_vbmi2", "avx512_bitalg", "gfni"})
    if (flags.find(std::string(" ") + f + " ") != std::string::npos) features.push_back(f);
  return {{"vendor", fields["vendor_id"]}, {"model_name", fields["model name"]}, {"family", fields["cpu family"]},
          {"model", fields["model"]},       {"stepping", fields["stepping"]},     {"features", features}};
}

nlohmann::json host_environment() {
  utsname uts{};
  uname(&uts);
  const nlohmann::json cpu = cpu_identity();
  return {{"cpu_model", cpu["model_name"]},
          {"cpu", cpu},
          {"logical_cores", std::thread::hardware_concurrency()},
          {"openmp_max_threads", omp_get_max_threads()},
          {"variables", variables_with_prefixes({"OMP_", "CUDA_", "SLURM_"})},  // SLURM_: which job and task ran it
          {"os", first_value("/etc/os-release", "PRETTY_NAME", '=')},
          {"kernel", std::string(uts.sysname) + " " + uts.release},
          {"machine", uts.machine},
          {"hostname", uts.nodename}};
}

nlohmann::json build_environment() {
  return {{"histostudy_version", HISTOSTUDY_VERSION},
          {"host_compiler", HISTOSTUDY_CXX},
          {"build_type", HISTOSTUDY_BUILD_TYPE},
          {"cuda_built", bool(HISTOSTUDY_HAVE_CUDA)},
          {"cuda_compiler", HISTOSTUDY_CUDA_COMPILER},
          {"cuda_flags", HISTOSTUDY_CUDA_FLAGS},
          {"gpu_archs", HISTOSTUDY_GPU_ARCHS}};
}

void check_carried_commit() {
  const char* carried = std::getenv("HISTOSTUDY_GIT_COMMIT");
  if (!carried || !*carried) return;
  const std::string commit = carried;
  if (commit.size() != 40 || commit.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw UsageError("HISTOSTUDY_GIT_COMMIT=" + commit + ": not a commit (40 lowercase hex digits)");
  const char* dirty = std::getenv("HISTOSTUDY_GIT_DIRTY");
  if (dirty && std::string(dirty) != "0" && std::string(dirty) != "1")
    throw UsageError("HISTOSTUDY_GIT_DIRTY=" + std::string(dirty) + ": not 0 (a clean tree) or 1 (edited)");
}

nlohmann::json provenance(const std::vector<std::string>& argv) {
  check_carried_commit();
  nlohmann::json commit = nullptr, dirty = nullptr;
  // A commit given in the environment wins: tools/h200_run.sh pack records
  // it for a copy of the tree (the GPU machine's), whose .git may be missing
  // or stale (seen on 2026-11-29: an older HEAD, so "dirty").
  const char* carried = std::getenv("HISTOSTUDY_GIT_COMMIT");
  if (carried && *carried) {
    commit = carried;
    if (const char* carried_dirty = std::getenv("HISTOSTUDY_GIT_DIRTY")) dirty = std::string(carried_dirty) == "1";  // 0 or 1: checked
  } else {
    const std::vector<std::string> git = {"git", "-C", HISTOSTUDY_SOURCE_DIR};
    const auto with = [&](std::initializer_list<std::string> args) {
      auto argv = git;
      argv.insert(argv.end(), args);
      return argv;
    };
    if (const auto head = command_output(with({"rev-parse", "HEAD"}))) {
      commit = *head;
      if (const auto status = command_output(with({"status", "--porcelain", "--untracked-files=no"})))
        dirty = !status->empty();
    }
  }
  std::error_code ec;
  const auto cwd = std::filesystem::current_path(ec);
  // The commit the binary was built from is the code that ran; the tree's at
  // run time can differ (a commit or an edit after building).
  const nlohmann::json built = HISTOSTUDY_BUILD_COMMIT ? nlohmann::json(HISTOSTUDY_BUILD_COMMIT) : nlohmann::json(nullptr);
  const nlohmann::json built_dirty = HISTOSTUDY_BUILD_DIRTY < 0 ? nlohmann::json(nullptr)
                                                                 : nlohmann::json(HISTOSTUDY_BUILD_DIRTY == 1);
  return {{"git_commit", built},
          {"git_dirty", built_dirty},
          {"commit_of", "the build"},
          {"tree_commit", commit},
          {"tree_dirty", dirty},
          {"argv", argv},
          {"cwd", ec ? nlohmann::json(nullptr) : nlohmann::json(cwd.string())},
          {"cwd_error", ec ? nlohmann::json(ec.message()) : nlohmann::json(nullptr)}};
}

std::string utc_now(bool compact) {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> buf{};
  std::strftime(buf.data(), buf.size(), compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf.data();
}

}  // namespace hs
