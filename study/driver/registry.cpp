#include "driver/registry.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "count/count.hpp"
#include "driver/experiments.hpp"
#include "driver/inputs.hpp"
#include "platform/error.hpp"

namespace hs {
namespace {

std::vector<Implementation> collect() {
  std::vector<Implementation> all = cpu::implementations();
  const auto& gpus = gpu::implementations();
  all.insert(all.end(), gpus.begin(), gpus.end());
  for (const auto& impl : all)
    for (auto role : impl.roles)
      if (std::find(std::begin(kRoles), std::end(kRoles), role) == std::end(kRoles))
        throw Error(std::string(impl.name) + ": unknown role '" + std::string(role) + "'");
  return all;
}

}  // namespace

std::string_view backend_name(Backend b) { return b == Backend::cpu ? "cpu" : "cuda"; }

const std::vector<Implementation>& implementations() {
  static const std::vector<Implementation> all = collect();
  return all;
}

std::optional<std::uint64_t> global_atomic_bytes(const Implementation& impl, const LaunchPolicy& policy, std::uint64_t n) {
  if (impl.atomic_bytes) return impl.atomic_bytes(policy, n);
  const auto updates = impl.global_atomics(policy, n);
  if (!updates) return std::nullopt;
  return *updates * std::uint64_t(policy.counter_bits / 8);
}

bool has_role(const Implementation& impl, std::string_view role) {
  return std::find(impl.roles.begin(), impl.roles.end(), role) != impl.roles.end();
}

std::vector<const Implementation*> with_role(std::string_view role) {
  std::vector<const Implementation*> out;
  for (const auto& impl : implementations())
    if (has_role(impl, role)) out.push_back(&impl);
  return out;
}

const Implementation& find_implementation(std::string_view name) {
  for (const auto& impl : implementations())
    if (impl.name == name) return impl;
  std::string known;
  for (const auto& impl : implementations()) known += (known.empty() ? "" : ", ") + std::string(impl.name);
  throw UsageError("unknown implementation '" + std::string(name) + "' (known: " + known + ")");
}

const Implementation& floor_for(const Implementation& impl) {
  for (const auto* floor : with_role("floor"))
    if (floor->backend == impl.backend) return *floor;
  throw Error(std::string(backend_name(impl.backend)) + ": no implementation has the role 'floor'");
}

std::string registry_json() {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& impl : implementations()) {
    nlohmann::ordered_json roles = nlohmann::ordered_json::array();
    for (auto role : impl.roles) roles.push_back(role);
    list.push_back({{"name", impl.name}, {"backend", backend_name(impl.backend)}, {"roles", roles}});
  }
  // count's own reading plans, as count-bench records a file's: the paper judges only files timed with them.
  const nlohmann::ordered_json plans = {
      {"cpu", {{"piece_bytes", kCpuPiece}}},
      {"cuda", {{"chunk_bytes", kGpuChunk}, {"buffers", kGpuBuffers}, {"piece_bytes", kGpuPiece}}}};
  nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
  for (const auto& input : input_kinds()) inputs.push_back({{"name", input.name}, {"description", input.description}});
  return nlohmann::ordered_json{{"implementations", list},
                                {"count_plans", plans},
                                {"inputs", inputs},
                                {"experiments", experiments_json()["experiments"]}}
             .dump(2) + "\n";
}

}  // namespace hs
