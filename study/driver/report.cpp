#include "driver/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>

#include "platform/printable.hpp"
#include "driver/registry.hpp"
#include "driver/sizes.hpp"

namespace hs {
namespace {

// printf's `format` of the arguments, whatever its length: a table line
// holds names of any length and must keep its newline.
__attribute__((format(printf, 1, 2))) std::string fmt(const char* format, ...) {
  std::va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  std::string out(std::size_t(std::max(0, std::vsnprintf(nullptr, 0, format, args))), '\0');
  va_end(args);
  std::vsnprintf(out.data(), out.size() + 1, format, again);
  va_end(again);
  return out;
}

// Milliseconds to `decimals` places, or to three significant digits where
// that shows fewer (a 611-byte run takes microseconds, which "0.000" would
// hide), to 1 ns.
std::string ms_text(double ms, int decimals) {
  const int digits = ms > 0 ? int(std::floor(std::log10(ms))) : 0;
  return fmt(("%." + std::to_string(std::clamp(2 - digits, decimals, 6)) + "f").c_str(), ms);
}

const Row* find_row(const std::vector<Row>& rows, const Row& like, std::string_view impl) {
  for (const auto& r : rows)
    if (r.impl == impl && r.toolchain == like.toolchain && r.input == like.input && r.size == like.size &&
        r.check_passed && !r.samples_ms.empty() && (r.experiment == "lesson" || r.experiment == "custom"))
      return &r;
  return nullptr;
}

// ", cold L2, bins at +0 B": how the table's GPU samples were taken.
std::string sampling_conditions(const std::vector<Row>& rows, const std::string& toolchain, std::uint64_t size) {
  for (const auto& r : rows)
    if (r.toolchain == toolchain && r.size == size && r.check_passed) {
      std::string s = ", " + r.cache_mode + (r.cache_mode == "cold" ? " L2" : "");
      if (r.placement.is_object()) s += ", bins at +" + std::to_string(r.placement.value("bins_offset", 0)) + " B";
      return s;
    }
  return "";
}

std::string ms_or_dash(const Row* r) { return r ? ms_text(r->summary.median, 3) : "-"; }

// The implementation of `backend` with `role`; "" when none has it.
std::string_view with_role_on(const std::string& backend, std::string_view role) {
  for (const auto* impl : with_role(role))
    if (backend_name(impl->backend) == backend) return impl->name;
  return "";
}

// The lesson compares its baseline with its privatized kernel: on the GPU
// global atomics against per-block copies, on the CPU one thread against
// per-thread copies.
std::pair<std::string_view, std::string_view> lesson_pair(const std::string& backend) {
  return {with_role_on(backend, "baseline"), with_role_on(backend, "privatized")};
}

// The lesson's floor row and its atomic counts, from the first input measured.
void print_floor_and_atomics(const std::vector<Row>& rows, const std::string& toolchain, std::uint64_t size,
                             std::string_view base, std::string_view priv, std::ostream& out) {
  const std::string* input = nullptr;
  for (const auto& r : rows)
    if (r.toolchain == toolchain && r.size == size && r.check_passed) {
      input = &r.input;
      break;
    }
  if (!input) return;
  for (const auto& r : rows)
    if (r.toolchain == toolchain && r.size == size && r.input == *input && r.check_passed &&
        !r.samples_ms.empty() && !find_implementation(r.impl).counts)
      out << "floor (" << printable(*input) << "): " << r.impl << " " << ms_text(r.summary.median, 3) << " ms, "
            << fmt("%.1f", r.gbps) << " GB/s\n";
  const Row* b = nullptr;
  const Row* p = nullptr;
  for (const auto& r : rows)
    if (r.toolchain == toolchain && r.size == size && r.input == *input) {
      if (r.impl == base && !b) b = &r;
      if (r.impl == priv && !p) p = &r;
    }
  if (b && p && b->global_atomics && p->global_atomics && *p->global_atomics)
    out << "global atomic updates per run: " << base << " " << with_commas(*b->global_atomics) << ", " << priv
        << " " << with_commas(*p->global_atomics) << " (a factor of "
        << fmt("%.1f", double(*b->global_atomics) / double(*p->global_atomics)) << ")\n";
}

}  // namespace

void print_lesson_tables(const std::vector<Row>& rows, std::ostream& out) {
  std::vector<std::tuple<std::string, std::string, std::uint64_t>> tables;
  for (const auto& r : rows) {
    auto key = std::make_tuple(r.toolchain, r.backend, r.size);
    if ((r.experiment == "lesson" || r.experiment == "custom") &&
        std::find(tables.begin(), tables.end(), key) == tables.end())
      tables.push_back(key);
  }
  for (const auto& [toolchain, backend, size] : tables) {
    auto [base, priv] = lesson_pair(backend);
    // Only where the lesson's pair ran (a read floor alone, or other
    // implementations, are in the table of all measurements below).
    if (std::none_of(rows.begin(), rows.end(), [&, &toolchain = toolchain, &size = size](const Row& r) {
          return r.toolchain == toolchain && r.size == size && (r.impl == base || r.impl == priv);
        }))
      continue;
    out << "\nLesson table: " << printable(toolchain) << ", " << with_commas(size) << " bytes (median ms"
        << sampling_conditions(rows, toolchain, size) << ")\n";
    out << fmt("%-16s %8s %5s %14s %14s %8s %10s %7s\n", "input", "busiest", "bins",
               (std::string(base) + " ms").c_str(), (std::string(priv) + " ms").c_str(), "speedup", "GB/s", "%floor");
    std::vector<std::string> seen;
    for (const auto& r : rows) {
      if (r.toolchain != toolchain || r.size != size || std::find(seen.begin(), seen.end(), r.input) != seen.end())
        continue;
      const Row* b = find_row(rows, r, base);
      const Row* p = find_row(rows, r, priv);
      if (!b && !p) continue;
      seen.push_back(r.input);
      std::string speedup = b && p ? fmt("%.1fx", b->summary.median / p->summary.median) : "-";
      out << fmt("%-16s %7.2f%% %5d %14s %14s %8s %10s %7s\n", printable(r.input).c_str(),
                 r.input_stats.busiest_pct(), r.input_stats.bins_used, ms_or_dash(b).c_str(), ms_or_dash(p).c_str(),
                 speedup.c_str(), p ? fmt("%.1f", p->gbps).c_str() : "-",
                 p && p->pct_of_floor ? fmt("%.0f%%", *p->pct_of_floor).c_str() : "-");
    }
    print_floor_and_atomics(rows, toolchain, size, base, priv, out);
    if (size < kMinFloorBytes)
      out << "(%floor: not given below " << with_commas(kMinFloorBytes)
          << " bytes, where launch and timer costs, not reads, set both times)\n";
    for (const auto& r : rows)
      if (r.toolchain == toolchain && r.size == size && !r.check_passed)
        out << "  CHECK FAILED: " << r.impl << " on " << printable(r.input) << ": " << printable(r.check_detail) << "\n";
  }
}

void print_all_rows(const std::vector<Row>& rows, std::ostream& out) {
  out << "\nAll measurements (median ms with p10..p90; GB/s of the median; % of the floor in the same run)\n";
  out << fmt("%-7s %-14s %-18s %-16s %-40s %10s %21s %9s %7s %14s\n", "exp", "toolchain", "impl", "input", "policy",
             "median", "p10..p90", "GB/s", "%floor", "global atomics");
  for (const auto& r : rows) {
    std::string atomics = r.global_atomics ? with_commas(*r.global_atomics) : "n/a";
    const std::string toolchain = printable(r.toolchain), input = printable(r.input);
    if (!r.check_passed) {
      out << fmt("%-7s %-14s %-18s %-16s CHECK FAILED: %s\n", r.experiment.c_str(), toolchain.c_str(),
                 r.impl.c_str(), input.c_str(), printable(r.check_detail).c_str());
    } else if (r.samples_ms.empty()) {
      out << fmt("%-7s %-14s %-18s %-16s not timed: all %zu samples throttled\n", r.experiment.c_str(),
                 toolchain.c_str(), r.impl.c_str(), input.c_str(), r.sample_log.size());
    } else {
      std::string spread = ms_text(r.summary.p10, 4) + ".." + ms_text(r.summary.p90, 4);
      out << fmt("%-7s %-14s %-18s %-16s %-40s %10s %21s %9.1f %7s %14s\n", r.experiment.c_str(), toolchain.c_str(),
                 r.impl.c_str(), input.c_str(), r.policy.str().c_str(), ms_text(r.summary.median, 4).c_str(),
                 spread.c_str(), r.gbps, r.pct_of_floor ? fmt("%.0f%%", *r.pct_of_floor).c_str() : "-",
                 atomics.c_str());
    }
  }
}

}  // namespace hs
