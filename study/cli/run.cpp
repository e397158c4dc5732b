// histostudy run: the study (default: lesson + sweep) -> runs/*.json; with
// --device all or a list, one child process per GPU (driver/fleet.hpp).
#include <fcntl.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <iostream>
#include <memory>

#include "cli/cli.hpp"
#include "cpu_openmp/openmp_histogram.hpp"
#include "cuda/variants.hpp"
#include "driver/experiments.hpp"
#include "driver/fleet.hpp"
#include "driver/report.hpp"
#include "driver/results.hpp"
#include "driver/session.hpp"
#include "driver/sizes.hpp"
#include "driver/study.hpp"
#include "platform/env.hpp"
#include "platform/error.hpp"
#include "platform/files.hpp"
#include "platform/printable.hpp"

namespace cli {
namespace {

// "-s 67,109,475" would otherwise measure 67, 109 and 475 bytes, "-s 65,536"
// 65 and 536: a list that reads as one number with digit-grouping commas is
// ambiguous, so it is refused with both ways to say what was meant (a list
// of such sizes is written -s 128 -s 256, or with a unit: 128,256B).
// One to three digits, then one or more groups of a comma and three digits
// (no std::regex: it recurses once per character, and a long argument
// overflowed the stack).
bool digit_grouped(const std::string& item) {
  const auto comma = item.find(',');
  if (comma == std::string::npos || comma == 0 || comma > 3) return false;
  for (std::size_t i = 0; i < item.size(); ++i) {
    const bool comma_here = i >= comma && (i - comma) % 4 == 0;
    if (comma_here ? item[i] != ',' : !std::isdigit(static_cast<unsigned char>(item[i]))) return false;
  }
  return (item.size() - comma) % 4 == 0;
}

void refuse_grouped_digits(const std::vector<std::string>& sizes) {
  for (const auto& item : sizes) {
    if (!digit_grouped(item)) continue;
    std::string digits = item, separate;
    std::erase(digits, ',');
    for (const auto& part : split_commas({item})) separate += " -s " + part;
    throw hs::UsageError("--size " + item + " could be one number with digit-grouping commas or a list: write -s " +
                         digits + " for one size, or" + separate + " for several");
  }
}

// --input items split at commas, except an item that names an existing
// file as a whole.
std::vector<std::string> split_inputs(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    if (item.find(',') != std::string::npos && names_a_file(item))
      out.push_back(item);
    else
      for (const auto& part : split_commas({item})) out.push_back(part);
  }
  return out;
}

constexpr const char* kRunDeviceHelp =
    "the GPU: its index (0, 1, ...) or UUID (GPU-..., as nvidia-smi -L prints it; a unique start will do); "
    "all, or a list (0,2): the study on each of them at once, one process per GPU, one result file each "
    "with a common run id; default: the first";

struct RunOptions {
  std::vector<std::string> experiments, impls, inputs, sizes, toolchains, bins_offsets;
  int grid = 0, block = 0, threads = 0, passes = 0, warmups = 3, reps = 20, max_reps = 200;
  int lesson_reps = hs::TimingPlan{}.lesson_reps;
  double noise_pct = 0.5, max_time_s = 5.0, throttle = 0.75;
  std::string cache = "cold", control = "auto";
  std::string device;  // --device: index or UUID; "" the first GPU; "all" or a list: one child each
  std::string run_id;  // --run-id: the run of several GPUs or Slurm tasks this one is part of
  std::string out_dir = "runs";  // ignored by git: a user's runs never change the committed paper
  bool no_save = false;
  bool dry_run = false;  // --dry-run: every check, then the plan; nothing measured or written
  int result_path_fd = -1;  // --result-path-fd: where the result file's exact path goes; -1 nowhere
  std::vector<std::string> gpu_options;  // those of kGpuOnlyOptions given on the command line
};

// run's options that only GPU implementations take beside --grid and --block
// (which the request's policy carries): the CPU's timing is its own, one
// warm-up, 5 to 10 samples within a second, hot.
constexpr const char* kGpuOnlyOptions[] = {"--toolchain", "--control",     "--warmups", "--reps",
                                           "--max-reps",  "--lesson-reps", "--noise",   "--max-time",
                                           "--cache",     "--throttle",    "--bins-offset"};

std::vector<hs::Placement> parse_placements(const std::vector<std::string>& items) {
  std::vector<hs::Placement> out;
  for (const auto& item : split_commas(items)) {
    std::size_t used = 0;
    long long offset = -1;
    try {
      offset = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size()) throw hs::UsageError("--bins-offset " + item + ": not a number of bytes");
    out.push_back(hs::Placement::checked(offset));
  }
  return out;
}

// --result-path-fd: a descriptor open for writing (0, 1 and 2, the run's
// own streams, are refused by its range), then closed on exec: --device
// all's children are each given one of their own.
void check_result_path_fd(int fd) {
  if (fd < 0) return;
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY)
    throw hs::UsageError("--result-path-fd " + std::to_string(fd) + ": not a descriptor open for writing");
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
}

// A saved result file's exact path, ended by a NUL byte (a path may hold
// any other byte), on --result-path-fd for a script such as ./dev: said as
// soon as the file is saved, before anything printed could fail.
void tell_result_path(const std::string& saved, int fd) {
  if (fd < 0 || saved.empty()) return;
  try {
    hs::write_all(fd, saved.c_str(), saved.size() + 1, "--result-path-fd " + std::to_string(fd));
  } catch (const hs::Error& e) {  // a closed pipe too: the file is saved, and says where
    throw hs::Error(std::string(e.what()) + "; result file: " + saved);
  }
}

// "result file: PATH" on standard output, PATH escaped for people; a script reads --result-path-fd.
void say_result_file(const std::string& saved) { std::cout << "result file: " << hs::printable(saved) << std::endl; }

// Checked before any measurement: what a run could otherwise learn only
// after measuring.
void check_before_measuring(const RunOptions& opt) {
  hs::check_carried_commit();
  if (!opt.no_save) hs::check_writable_dir(opt.out_dir);
  check_result_path_fd(opt.result_path_fd);
}

// The lesson tables, every row and the GPU's shared-memory rates.
void print_measurements(const hs::RunRecord& record, std::ostream& out) {
  hs::print_lesson_tables(record.rows, out);
  hs::print_all_rows(record.rows, out);
  if (!record.hardware.is_null()) out << "\nShared-memory update rates (this GPU):\n" << record.hardware.dump(1) << "\n";
}

// A run a signal stopped: where its measurements are (the result file, or
// with --no-save standard output, the only copy), then the end by that signal.
[[noreturn]] void end_interrupted(const hs::RunRecord& record, const std::string& saved) {
  if (saved.empty())
    print_measurements(record, std::cout);
  else
    say_result_file(saved);
  std::cout.flush();
  const int signal = record.stopped_by_signal;
  const std::string why = !record.incomplete.empty() ? hs::printable(record.incomplete)
                                                     : "interrupted by signal " + std::to_string(signal) + " (" +
                                                           strsignal(signal) + ") after its last case";
  std::cerr << "histostudy: " << why
            << (saved.empty() ? "; nothing saved (--no-save): what was measured is on standard output"
                              : " (what was measured is in " + hs::printable(saved) + ")")
            << std::endl;
  hs::die_of(signal);
}

// A run stopped before its first row: nothing to keep, so no file (one of no rows would pass for a run); said in
// one line, then the end by that signal or as the error that stopped it.
[[noreturn]] void end_with_nothing_measured(const hs::RunRecord& record) {
  const std::string why = !record.incomplete.empty() ? hs::printable(record.incomplete)
                                                     : "interrupted by signal " + std::to_string(record.stopped_by_signal);
  if (!record.stopped_by_signal) throw hs::Error(why + " before its first case: nothing measured, nothing saved");
  std::cerr << "histostudy: " << why << " before its first case: nothing measured, nothing saved" << std::endl;
  hs::die_of(record.stopped_by_signal);
}

// --device all or a list: the same command on every GPU named at once, one
// child process each with --device naming its GPU and a common --run-id.
int run_on_gpus(const RunOptions& opt, const std::vector<std::string>& argv) {
  const auto gpus = hs::gpus_named(opt.device);
  const std::string run_id = opt.run_id.empty() ? hs::new_run_id() : opt.run_id;
  std::cerr << "histostudy: run " << run_id << " on " << gpus.size() << " GPUs at once, one process each:\n";
  std::vector<hs::Member> members;
  for (const auto& gpu : gpus) {
    std::cerr << "histostudy:   GPU " << gpu.line << "\n";
    members.push_back({"GPU " + std::to_string(gpu.index), hs::member_argv(argv, std::to_string(gpu.index), run_id)});
  }
  // The very binary running now, even should a rebuild have replaced its file.
  const auto exits = hs::run_members(members, "/proc/self/exe", std::cout, std::cerr);
  const bool saves = !opt.no_save && !opt.dry_run;
  int status = 0;
  std::string saved;
  if (saves) std::cout << "\nresult files of run " << run_id << ":\n";
  for (const auto& e : exits) {
    if (!e.result_file.empty()) {
      std::cout << "  " << e.label << ": " << hs::printable(e.result_file) << "\n";
      tell_result_path(e.result_file, opt.result_path_fd);
      saved += (saved.empty() ? "result files: " : ", ") + e.result_file;
    }
    std::cerr << "histostudy: " << e.label << " " << e.how << (e.result_file.empty() ? ", no result file" : "") << "\n";
    if (e.status != 0 && status == 0) status = e.status;
  }
  if (saves)
    std::cerr << "histostudy: the GPUs side by side: /usr/bin/python3 -m plots.fleet " << hs::printable(opt.out_dir)
              << "\n";
  check_stdout(saved);
  return status;
}

hs::TimingPlan gpu_timing_of(const RunOptions& opt) {
  hs::TimingPlan plan;
  plan.warmups = opt.warmups;
  plan.stop = {opt.reps, opt.max_reps, opt.noise_pct / 100.0, opt.max_time_s};
  plan.cache = hs::parse_cache_mode(opt.cache);
  plan.throttle_fraction = opt.throttle;
  plan.lesson_reps = opt.lesson_reps;
  return plan;
}

int run_study(const RunOptions& opt, const std::vector<std::string>& argv) {
  hs::StudyRequest request;
  request.experiments = unique(split_commas(opt.experiments));
  request.impls = unique(split_commas(opt.impls));
  request.inputs = unique(split_inputs(opt.inputs));
  refuse_grouped_digits(opt.sizes);
  for (const auto& s : unique(split_commas(opt.sizes))) request.sizes.push_back(hs::parse_size(s));
  request.policy.grid = opt.grid;
  request.policy.block = opt.block;
  request.policy.threads = opt.threads;
  request.passes = opt.passes;
  request.placements = parse_placements(opt.bins_offsets);
  if (opt.max_reps < opt.reps)
    throw hs::UsageError("--max-reps " + std::to_string(opt.max_reps) + " is below --reps " + std::to_string(opt.reps));
  request.gpu_timing = gpu_timing_of(opt);
  request.gpu_options = opt.gpu_options;
  if (!opt.run_id.empty()) hs::check_run_id(opt.run_id);
  check_before_measuring(opt);
  if (hs::names_several_devices(opt.device)) return run_on_gpus(opt, argv);

  const hs::Executors ex = hs::make_executors(split_commas(opt.toolchains), opt.control, opt.device);
  const auto cases = hs::plan_cases(request, ex.all());
  // From the plan on, a signal ends the run in the words a stopped first case ends it in.
  hs::say_when_interrupted("histostudy: interrupted before its first case: nothing measured, nothing saved");
  if (!ex.gpu_absent.empty())
    std::cerr << "histostudy: no GPU executor (" << hs::printable(ex.gpu_absent) << "); CPU only\n";
  if (!ex.device_line.empty()) std::cerr << "histostudy: on " << hs::printable(ex.device_line) << "\n";
  std::cerr << "histostudy: " << hs::describe_plan(cases) << "\n";
  if (request.experiments.empty() && (!request.impls.empty() || !request.inputs.empty() || !request.sizes.empty()))
    std::cerr << "histostudy: --impl, --input and --size replace the default experiments (lesson, sweep) with "
                 "'custom'; name --experiment to run those instead\n";
  if (opt.dry_run) {
    for (const auto& line : hs::plan_lines(cases, ex.all(), request)) std::cout << line << "\n";
    check_stdout();
    return 0;
  }
  hs::RunRecord record = [&] {
    const hs::MeasuringStopsOnSignal stops;  // a first Ctrl-C saves what was measured
    // Each progress line in one write, so that the signal's own line never lands inside one.
    // The command line recorded without --result-path-fd, which says where the path goes, not what is
    // measured: the command a reader retypes from the record needs no descriptor.
    auto r = hs::record_run(request, cases, ex, hs::without_options(argv, {"--result-path-fd"}),
                            [](const std::string& line) { std::cerr << line + "\n"; });
    // One that came after the last sample stopped nothing, but the run still ends by it once saved.
    if (!r.stopped_by_signal) r.stopped_by_signal = hs::stop_signal();
    return r;
  }();
  record.run_id = opt.run_id;
  if (record.rows.empty() && (record.stopped_by_signal || !record.incomplete.empty())) end_with_nothing_measured(record);
  // Saved before anything is printed: a closed pipe on standard output loses no run.
  std::string saved;
  if (!opt.no_save) {
    try {
      saved = hs::save_run(record, ex, opt.out_dir);
    } catch (const std::exception& e) {  // a full disk: the measurements exist nowhere else but on the screen
      print_measurements(record, std::cout);
      std::cout.flush();
      const std::string what = hs::message_of(e) + "; nothing saved: the measurements are printed on standard output" +
                               (record.incomplete.empty() ? "" : " (the run had stopped: " + record.incomplete + ")");
      if (dynamic_cast<const hs::UsageError*>(&e)) throw hs::UsageError(what);
      throw hs::Error(what);
    }
  }
  tell_result_path(saved, opt.result_path_fd);
  if (!saved.empty()) hs::say_when_interrupted("histostudy: interrupted; result file: " + hs::printable(saved));
  if (record.stopped_by_signal) end_interrupted(record, saved);
  if (!record.incomplete.empty()) {
    // Said on standard output too, beside what the run printed (the error names it as well).
    if (!saved.empty()) say_result_file(saved);
    throw hs::Error(record.incomplete + (saved.empty() ? "" : " (what was measured before it is in " + saved + ")"));
  }

  print_measurements(record, std::cout);
  if (!saved.empty()) {
    std::cout << "\n";
    say_result_file(saved);
  }
  check_stdout(saved.empty() ? "" : "result file: " + saved);
  const auto& rows = record.rows;
  bool all_passed = std::all_of(rows.begin(), rows.end(), [](const hs::Row& r) { return r.check_passed; });
  if (!all_passed) std::cerr << "histostudy: some implementations FAILED their check (see above)\n";
  return all_passed ? 0 : 1;
}

}  // namespace

nlohmann::json default_gpu_timing() { return gpu_timing_of(RunOptions{}).to_json(); }

Command add_run(CLI::App& app, const std::vector<std::string>& args) {
  auto options = std::make_shared<RunOptions>();
  RunOptions& run_opt = *options;
  auto* run = app.add_subcommand("run", "Run the study; write <date>_<gpu>_<toolchains>.json into --out-dir "
                                        "(default " + run_opt.out_dir + "/)");
  run->add_option("-e,--experiment", run_opt.experiments,
                  hs::experiment_names() + " (default: lesson,sweep; see list)")->check(kList);
  run->add_option("-i,--impl", run_opt.impls, "implementations (default: all that run here; see list)")->check(kList);
  run->add_option("--input", run_opt.inputs, "inputs, replacing the experiments' (see list)")->check(kInputList);
  run->add_option("-s,--size", run_opt.sizes,
                  "sizes: 611, 64MiB, 1GiB, 64MiB+611 (default " + std::to_string(hs::kLessonSize) + ", the lesson's)")
      ->check(kList);
  run->add_option("--grid", run_opt.grid, "GPU blocks (default 1024, the lesson's); CPU implementations run without")
      ->transform(whole_number_in(1, 1 << 30));
  run->add_option("--block", run_opt.block, "GPU threads per block (default 256); CPU implementations run without")
      ->transform(whole_number_in(1, 1024));
  run->add_option("-t,--threads", run_opt.threads, "CPU threads (default OMP_NUM_THREADS or one per core)")
      ->transform(whole_number_in(1, hs::cpu::kMaxThreads));
  run->add_option("-p,--passes", run_opt.passes, "passes P of the implementations that take them (default: the "
                  "experiment's)")
      ->check(CLI::IsMember(std::vector<int>(hs::gpu::kPassCounts.begin(), hs::gpu::kPassCounts.end())));
  run->add_option("--warmups", run_opt.warmups, "untimed GPU runs of each toolchain before its samples")
      ->capture_default_str()->transform(whole_number_in(0, 1000));
  run->add_option("--reps", run_opt.reps, "at least this many GPU samples (runs timed one by one) per toolchain")
      ->capture_default_str()->transform(whole_number_in(1, 100000));
  run->add_option("--max-reps", run_opt.max_reps, "at most this many GPU samples (rounded up to whole rotations)")
      ->capture_default_str()->transform(whole_number_in(1, 100000));
  run->add_option("--lesson-reps", run_opt.lesson_reps,
                  "the lesson's own timing per GPU case: this many back-to-back runs as one, after 3 warm-ups; "
                  "0 skips it (a profiler then sees only the check and the samples)")
      ->capture_default_str()->transform(whole_number_in(0, 100000));
  run->add_option("--noise", run_opt.noise_pct, "stop sampling once the median's 95% interval is within +-this %")
      ->capture_default_str()->check(number_in(0.0, 100.0));
  run->add_option("--max-time", run_opt.max_time_s, "stop sampling a case after this many seconds (after --reps)")
      ->capture_default_str()->check(number_in(0.0, 3600.0));
  run->add_option("--cache", run_opt.cache, "cold: L2 flushed before every GPU sample; hot: back to back")
      ->capture_default_str()->check(CLI::IsMember({"cold", "hot"}));
  run->add_option("--throttle", run_opt.throttle,
                  "a GPU sample whose SM clock is below this fraction of the peak is throttled: left out")
      ->capture_default_str()->check(number_in(0.0, 1.0));
  run->add_option("--control", run_opt.control,
                  "A/A control: auto (repeat the first toolchain when 2+ are compared), none, or a toolchain spec")
      ->capture_default_str()->check(kNotEmpty);
  run->add_option("--bins-offset", run_opt.bins_offsets,
                  "bytes past a 2 MiB boundary where the bins start: multiples of 128 up to 1 MiB (default 0; "
                  "the placement experiment sweeps 0..2048)")->check(kList);
  run->add_option("-o,--out-dir", run_opt.out_dir, "where result files go")->capture_default_str();
  run->add_flag("--no-save", run_opt.no_save, "print only; write no result file");
  run->add_flag("--dry-run", run_opt.dry_run,
                "check everything a run checks, then print its plan (one line a measurement) and stop: nothing is "
                "measured or written");
  run->add_option("--result-path-fd", run_opt.result_path_fd,
                  "also write the result file's exact path, ended by a NUL byte, to this open descriptor (for "
                  "scripts: the path printed on standard output is escaped)")
      ->transform(whole_number_in(3, INT_MAX));
  run->add_option("--device", run_opt.device, kRunDeviceHelp)->check(kNotEmpty);
  run->add_option("--run-id", run_opt.run_id,
                  "the run of several GPUs or Slurm tasks this one is part of, written into the result file "
                  "(--device all sets it; tools/slurm_fleet.sh gives each array job one)")->check(kNotEmpty);
  run->add_option("--toolchain", run_opt.toolchains,
                  "GPU toolchains, sampled in rotation on shared buffers: nvcc, nvrtc, an NVRTC release by name "
                  "(12.6 or nvrtc-12.6: ./dev nvrtc installs it), nvrtc:/path/to/libnvrtc.so.N, modules:DIR "
                  "(default nvcc; see list)")->check(kList);
  return {run, [run, options, args] {
    for (const char* name : kGpuOnlyOptions)
      if (run->count(name) > 0) options->gpu_options.push_back(name);
    return run_study(*options, args);
  }};
}

}  // namespace cli
