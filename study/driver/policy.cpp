#include "driver/policy.hpp"

#include <sstream>

namespace hs {

std::string LaunchPolicy::str() const {
  std::ostringstream out;
  if (grid) out << "grid=" << grid << " block=" << block << ' ';
  if (threads) out << "threads=" << threads << ' ';
  if (passes > 1) out << "passes=" << passes << ' ';
  if (copies != 1) out << "copies=" << copies << ' ';
  out << "counters=" << counter_bits << "bit";
  if (shared_bytes) out << " shared=" << shared_bytes << 'B';
  return out.str();
}

nlohmann::json LaunchPolicy::to_json() const {
  return {{"grid", grid},       {"block", block},   {"threads", threads},
          {"passes", passes},   {"copies", copies}, {"counter_bits", counter_bits},
          {"shared_bytes", shared_bytes}};
}

}  // namespace hs
