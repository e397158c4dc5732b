#include "driver/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "platform/error.hpp"

namespace hs {

double percentile(std::vector<double> samples, double pct) {
  if (samples.empty()) throw Error("percentile of no samples");
  std::sort(samples.begin(), samples.end());
  const double rank = pct / 100.0 * double(samples.size() - 1);
  const auto lo = std::size_t(std::floor(rank));
  const auto hi = std::min(lo + 1, samples.size() - 1);
  return samples[lo] + (rank - double(lo)) * (samples[hi] - samples[lo]);
}

Summary summarize(const std::vector<double>& samples) {
  if (samples.empty()) throw Error("no timing samples to summarize");
  Summary s;
  s.median = percentile(samples, 50);
  s.p10 = percentile(samples, 10);
  s.p90 = percentile(samples, 90);
  s.min = *std::min_element(samples.begin(), samples.end());
  s.max = *std::max_element(samples.begin(), samples.end());
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / double(samples.size());
  return s;
}

nlohmann::json Summary::to_json() const {
  return {{"median", median}, {"min", min}, {"max", max}, {"p10", p10}, {"p90", p90}, {"mean", mean}};
}

}  // namespace hs
