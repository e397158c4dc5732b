#include "driver/control.hpp"

#include <utility>

namespace hs {
namespace {

// Everything is the entry's own; only the label says it is the control.
class ControlEntry final : public Executor {
 public:
  explicit ControlEntry(std::unique_ptr<Executor> entry) : entry_(std::move(entry)) {}

  std::string toolchain() const override { return entry_->toolchain() + kControlSuffix; }
  std::string control_of() const override { return entry_->toolchain(); }
  std::string code_path() const override { return entry_->code_path(); }
  nlohmann::json describe() const override {
    nlohmann::json d = entry_->describe();
    d["control_of"] = entry_->toolchain();
    return d;
  }
  bool supports(const Implementation& impl) const override { return entry_->supports(impl); }
  LaunchPolicy resolve(const Implementation& impl, LaunchPolicy requested, std::uint64_t n,
                       int runs) const override {
    return entry_->resolve(impl, requested, n, runs);
  }
  void load(std::span<const std::uint8_t> data) override { entry_->load(data); }
  RunOutput run_once(const Implementation& impl, const LaunchPolicy& policy, const Placement& placement) override {
    return entry_->run_once(impl, policy, placement);
  }
  std::unique_ptr<Sampler> sampler(const Implementation& impl, const LaunchPolicy& policy,
                                   const Placement& placement, CacheMode mode) override {
    return entry_->sampler(impl, policy, placement, mode);
  }
  CacheMode honoured(CacheMode requested) const override { return entry_->honoured(requested); }
  double time_back_to_back(const Implementation& impl, const LaunchPolicy& policy, const Placement& placement,
                           int warmups, int reps) override {
    return entry_->time_back_to_back(impl, policy, placement, warmups, reps);
  }
  nlohmann::json placement_record(const Placement& placement) const override {
    return entry_->placement_record(placement);
  }
  double peak_clock_mhz() const override { return entry_->peak_clock_mhz(); }

 private:
  std::unique_ptr<Executor> entry_;
};

}  // namespace

std::unique_ptr<Executor> make_control(std::unique_ptr<Executor> entry) {
  return std::make_unique<ControlEntry>(std::move(entry));
}

}  // namespace hs
