#include "study/env.hpp"

#include <omp.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "build_config.hpp"

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

// Output of a command, trimmed; "" when it fails (no git, not a checkout).
std::string command_output(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen((command + " 2>/dev/null").c_str(), "r"), pclose);
  if (!pipe) return "";
  std::string out;
  std::array<char, 256> buf{};
  while (std::fgets(buf.data(), int(buf.size()), pipe.get())) out += buf.data();
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

nlohmann::json host_environment() {
  utsname uts{};
  uname(&uts);
  return {{"cpu_model", first_value("/proc/cpuinfo", "model name", ':')},
          {"logical_cores", std::thread::hardware_concurrency()},
          {"openmp_max_threads", omp_get_max_threads()},
          {"variables", variables_with_prefixes({"OMP_", "CUDA_"})},
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
          {"cuda_flags", HISTOSTUDY_CUDA_FLAGS},
          {"gpu_archs", HISTOSTUDY_GPU_ARCHS}};
}

nlohmann::json provenance(const std::vector<std::string>& argv) {
  const std::string git = "git -C '" + std::string(HISTOSTUDY_SOURCE_DIR) + "' ";
  const std::string commit = command_output(git + "rev-parse HEAD");
  nlohmann::json dirty = nullptr;
  if (!commit.empty()) dirty = !command_output(git + "status --porcelain --untracked-files=no").empty();
  return {{"git_commit", commit.empty() ? nlohmann::json(nullptr) : nlohmann::json(commit)},
          {"git_dirty", dirty},
          {"argv", argv},
          {"cwd", std::filesystem::current_path().string()}};
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
