// Summaries of raw timing samples: the median with its spread.
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

namespace hs {

struct Summary {
  double median = 0, min = 0, max = 0, p10 = 0, p90 = 0, mean = 0;
  nlohmann::json to_json() const;
};

// Percentile by linear interpolation between order statistics (numpy's
// default), so the Python reports recompute the same numbers.
double percentile(std::vector<double> samples, double pct);

// Throws Error for an empty sample set.
Summary summarize(const std::vector<double>& samples);

}  // namespace hs
