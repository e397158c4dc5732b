// What the rest of the host did while the study measured on its CPU: the
// CPU seconds other processes took (the machine's busy time from /proc/stat
// less this process's getrusage), the seconds the hypervisor stole, and the
// 1-minute load average before and after. A CPU row's time on a shared
// machine moves with these (the audit prints them beside a CPU verdict).
#pragma once
#include <nlohmann/json.hpp>

namespace hs {

// A reading of the counters; two readings bound a stretch of work.
struct CpuUse {
  double wall_s = 0;          // steady clock
  double machine_busy_s = 0;  // every CPU's non-idle time, steal included (0 where /proc/stat is missing)
  double steal_s = 0;         // time the hypervisor gave other guests (0 off a virtual machine)
  double this_process_s = 0;  // user + system time of this process
  double loadavg_1m = -1;     // -1 where getloadavg fails
};

CpuUse cpu_use_now();

// The CPU seconds other processes used between two readings.
double others_cpu_s(const CpuUse& before, const CpuUse& after);

// {seconds, cores, other_processes_cpu_s, steal_s, loadavg_1m: [before, after]}.
nlohmann::json host_load(const CpuUse& before, const CpuUse& after);

}  // namespace hs
