#include "platform/host_load.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

namespace hs {

CpuUse cpu_use_now() {
  CpuUse use;
  use.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  std::ifstream stat("/proc/stat");
  std::string cpu;
  unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) {
    const double tick = double(::sysconf(_SC_CLK_TCK));
    use.machine_busy_s = double(user + nice + system + irq + softirq + steal) / tick;
    use.steal_s = double(steal) / tick;
  }
  rusage self{};
  ::getrusage(RUSAGE_SELF, &self);
  auto s = [](const timeval& t) { return double(t.tv_sec) + 1e-6 * double(t.tv_usec); };
  use.this_process_s = s(self.ru_utime) + s(self.ru_stime);
  double load[1];
  if (::getloadavg(load, 1) == 1) use.loadavg_1m = load[0];
  return use;
}

double others_cpu_s(const CpuUse& before, const CpuUse& after) {
  return (after.machine_busy_s - before.machine_busy_s) - (after.this_process_s - before.this_process_s);
}

nlohmann::json host_load(const CpuUse& before, const CpuUse& after) {
  const auto load = [](double l) { return l < 0 ? nlohmann::json(nullptr) : nlohmann::json(l); };
  return {{"seconds", after.wall_s - before.wall_s},
          {"cores", std::thread::hardware_concurrency()},
          {"other_processes_cpu_s", std::max(0.0, others_cpu_s(before, after))},
          {"steal_s", after.steal_s - before.steal_s},
          {"loadavg_1m", {load(before.loadavg_1m), load(after.loadavg_1m)}}};
}

}  // namespace hs
