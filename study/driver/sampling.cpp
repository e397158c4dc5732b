#include "driver/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "platform/error.hpp"
#include "driver/stats.hpp"

namespace hs {

std::string cache_mode_name(CacheMode mode) { return mode == CacheMode::cold ? "cold" : "hot"; }

CacheMode parse_cache_mode(const std::string& name) {
  if (name == "cold") return CacheMode::cold;
  if (name == "hot") return CacheMode::hot;
  throw UsageError("--cache " + name + ": name cold (L2 flushed before every sample) or hot (back to back)");
}

Placement Placement::checked(std::int64_t bins_offset) {
  if (bins_offset < 0 || bins_offset > kMaxOffset || bins_offset % kAlignment != 0)
    throw UsageError("bins offset " + std::to_string(bins_offset) + ": name a multiple of " +
                     std::to_string(kAlignment) + " bytes from 0 to " + std::to_string(kMaxOffset));
  return Placement{std::uint32_t(bins_offset)};
}

nlohmann::json StopRule::to_json() const {
  return {{"min_samples", min_samples},
          {"max_samples", max_samples},
          {"target_noise", target_noise},
          {"max_seconds", max_seconds}};
}

double median_noise(std::vector<double> samples) {
  const std::size_t n = samples.size();
  if (n < 2) return std::numeric_limits<double>::quiet_NaN();
  std::sort(samples.begin(), samples.end());
  const double half = 0.98 * std::sqrt(double(n));  // 1.96 sqrt(n) / 2: the binomial 95% interval of the rank
  const auto lo = std::size_t(std::max(0.0, std::floor(double(n) / 2 - half)));
  const auto hi = std::min(n - 1, std::size_t(std::ceil(double(n) / 2 + half)));
  const double median = percentile(samples, 50);
  return median > 0 ? (samples[hi] - samples[lo]) / 2 / median : std::numeric_limits<double>::infinity();
}

StopOutcome should_stop(const StopRule& rule, const std::vector<double>& used, int taken, double seconds) {
  const double noise = median_noise(used);
  if (int(used.size()) >= rule.min_samples && noise <= rule.target_noise) return {"noise", noise};
  if (taken >= rule.max_samples) return {"max_samples", noise};
  if (int(used.size()) >= rule.min_samples && seconds >= rule.max_seconds) return {"max_time", noise};
  return {"", noise};
}

std::vector<int> rotation(int members, int round) {
  std::vector<int> order;
  for (int i = 0; i < members; ++i) order.push_back((i + round) % members);
  return order;
}

}  // namespace hs
