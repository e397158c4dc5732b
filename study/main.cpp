// histostudy: the command-line front end. Library layers throw hs::Error;
// this file alone prints errors and chooses exit codes.
//
//   histostudy [run ...]          the study (default: lesson + sweep) -> runs/*.json
//   histostudy count [FILE|-]     256 lines "value count"
//   histostudy count-bench FILE   count against its floor on a page-cached file (reading it; GPU: pinned copies)
//   histostudy generate INPUT     a study input's exact bytes
//   histostudy list               implementations, inputs, experiments, toolchains
//   histostudy env                the environment record alone
//   histostudy cubins             NVRTC-built cubins for the codegen audit (no GPU needed)
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <cctype>
#include <climits>

#include "build_config.hpp"
#include "cpu_openmp/openmp_histogram.hpp"
#include "cuda/variants.hpp"
#include "study/control.hpp"
#include "study/count.hpp"
#include "study/count_bench.hpp"
#include "study/env.hpp"
#include "study/experiments.hpp"
#include "study/files.hpp"
#include "study/fleet.hpp"
#include "study/error.hpp"
#include "study/inputs.hpp"
#include "study/nvml.hpp"
#include "study/printable.hpp"
#include "study/progress.hpp"
#include "study/registry.hpp"
#include "study/report.hpp"
#include "study/results.hpp"
#include "study/session.hpp"
#include "study/sizes.hpp"
#include "study/study.hpp"
#if HISTOSTUDY_HAVE_CUDA
#include "cuda/driver_api.hpp"
#include "cuda/microbench.hpp"
#include "cuda/modules.hpp"
#include "cuda/toolchain_spec.hpp"
#include "cuda/toolchains.hpp"
#endif

namespace {

std::vector<std::string> split_commas(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::size_t start = 0;
    while (start <= item.size()) {
      auto comma = item.find(',', start);
      auto part = item.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!part.empty()) out.push_back(part);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

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

// Each name once, in the order first given (a name repeated would be measured twice).
std::vector<std::string> unique(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items)
    if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
  return out;
}

// An --input item that names an existing file as a whole (a path may contain commas).
bool names_a_file(const std::string& item) {
  std::error_code ec;
  return std::filesystem::is_regular_file(item, ec);
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

// An error's one line on standard error, names in it escaped (a path may hold a newline).
void say_error(const std::string& what) { std::cerr << "histostudy: error: " << hs::printable(what) << "\n"; }

// A closed pipe's exit status: what the shell reports for a process that
// SIGPIPE ended, as `yes | head` leaves it.
constexpr int kClosedPipeStatus = 128 + SIGPIPE;

// Throws Error when standard output could not be written (a full disk, a
// closed pipe): a command that printed nothing must not exit 0. `saved`
// ("result file: PATH"), what standard output failed to say, is said here;
// with nothing to say, a closed pipe is a ClosedPipe.
void check_stdout(const std::string& saved = "") {
  std::cout.flush();
  if (std::cout) return;
  const int error = errno;
  const std::string what = std::string("standard output: write error (") + std::strerror(error) + ")";
  if (error == EPIPE && saved.empty()) throw hs::ClosedPipe(what);
  throw hs::Error(what + (saved.empty() ? "" : "; " + saved));
}

constexpr const char* kDeviceHelp =
    "the GPU: its index (0, 1, ...) or UUID (GPU-..., as nvidia-smi -L prints it; a unique start will do); "
    "default: the first";
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

// OMP_NUM_THREADS beyond what --threads accepts is refused before OpenMP
// starts any thread (libgomp crashed at 100,000).
void check_thread_variable() {
  const char* value = std::getenv("OMP_NUM_THREADS");
  if (!value || !*value) return;
  const std::string first = std::string(value).substr(0, std::string(value).find(','));
  char* end = nullptr;
  errno = 0;
  const long long threads = std::strtoll(first.c_str(), &end, 10);
  if (end == first.c_str() || *end || errno == ERANGE || threads < 1 || threads > hs::cpu::kMaxThreads)
    throw hs::UsageError("OMP_NUM_THREADS=" + std::string(value) + ": name 1 to " +
                         std::to_string(hs::cpu::kMaxThreads) + " threads");
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

// `list --experiments`: the experiments, and the GPU timing plan `run` uses by default.
void list_experiments_command() {
  nlohmann::json doc = hs::experiments_json();
  doc["gpu_timing"] = gpu_timing_of(RunOptions{}).to_json();
  std::cout << doc.dump(2) << "\n";
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
  hs::say_when_interrupted("histostudy: interrupted: nothing saved");
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

int count_command(const std::string& impl_name, const std::string& path, int threads, const std::string& device) {
  const hs::Implementation& impl = hs::find_implementation(impl_name);
  const hs::Executors ex = hs::make_executors({}, "none", device);
  const hs::Bins bins = [&] {
    std::optional<hs::IoProgress> progress;  // not over what a person types into the count
    if (!(path == "-" && ::isatty(STDIN_FILENO)))
      progress.emplace(hs::IoProgress::Bytes::read, "histostudy count: read");
    return hs::count_stream(path, impl, hs::executor_for(ex, impl), threads);
  }();
  std::string out;
  for (int v = 0; v < hs::kBins; ++v) out += std::to_string(v) + " " + std::to_string(bins[v]) + "\n";
  std::cout << out;
  check_stdout();
  return 0;
}

void list_command() {
  const hs::Executors ex = hs::make_executors();
  std::cout << "implementations (histostudy run --impl NAME):\n";
  for (const auto& impl : hs::implementations()) {
    bool here = std::any_of(ex.owned.begin(), ex.owned.end(), [&](const auto& e) { return e->supports(impl); });
    std::printf("  %-18s %-5s %s (%s)%s\n", std::string(impl.name).c_str(),
                std::string(hs::backend_name(impl.backend)).c_str(), std::string(impl.idea).c_str(),
                std::string(impl.family).c_str(), here ? "" : "  [cannot run here]");
  }
  std::cout << "inputs (--input NAME):\n";
  for (const auto& name : hs::input_names()) std::cout << "  " << name << "\n";
  std::cout << "experiments (--experiment NAME):\n";
  for (const auto& e : hs::experiments())
    std::printf("  %-9s %s\n", std::string(e.name).c_str(), std::string(e.description).c_str());
  std::cout << "toolchains (--toolchain SPEC):\n  cpu                always\n";
#if HISTOSTUDY_HAVE_CUDA
  for (const auto& t : hs::gpu::find_toolchains())
    std::printf("  %-18s %s%s\n", hs::printable(t.label).c_str(), hs::printable(t.spec).c_str(),
                t.spec.ends_with(t.where) ? "" : (" (" + hs::printable(t.where) + ")").c_str());
  std::string missing;
  for (const auto& r : hs::gpu::nvrtc_releases())
    if (!hs::gpu::installed_release_library(r.release)) missing += (missing.empty() ? "" : ", ") + r.release;
  if (!missing.empty()) std::cout << "  NVRTC releases not installed (./dev nvrtc RELEASE): " << missing << "\n";
#endif
  if (!ex.gpu_absent.empty()) std::cout << "  (no GPU here to run them: " << hs::printable(ex.gpu_absent) << ")\n";
}

#if HISTOSTUDY_HAVE_CUDA
std::vector<int> parse_archs(const std::vector<std::string>& items) {
  std::vector<int> archs;
  for (const auto& item : split_commas(items)) {
    const auto digits = item.starts_with("sm_") ? item.substr(3) : item;
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 4)
      throw hs::UsageError("--arch " + item + ": name a compute capability such as 75 or sm_90");
    const int arch = std::stoi(digits);
    if (std::find(archs.begin(), archs.end(), arch) == archs.end()) archs.push_back(arch);  // 75,sm_75: built once
  }
  return archs;  // not empty: --arch's list refuses empty items (kList)
}
#endif

int cubins_command(const std::vector<std::string>& toolchains, const std::vector<std::string>& archs,
                   const std::string& out_dir) {
#if HISTOSTUDY_HAVE_CUDA
  std::vector<std::string> specs = unique(split_commas(toolchains));
  if (specs.empty())
    for (const auto& t : hs::gpu::find_toolchains())
      if (t.spec != "nvcc") specs.push_back(t.spec);
  const auto manifest = hs::gpu::write_modules(specs, parse_archs(archs), out_dir);
  std::cout << manifest["builds"].size() << " modules (SASS and PTX) in " << hs::printable(out_dir)
            << " (manifest.json)\n";
  check_stdout("modules written: " + out_dir);
  return 0;
#else
  (void)toolchains, (void)archs, (void)out_dir;
  throw hs::Unavailable("this histostudy was built without CUDA: no NVRTC toolchains");
#endif
}

// CLI11's Range says "Value abc not in range 1 to 4096" for a word: these
// say what is wrong with the value first.
CLI::Validator whole_number_in(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        long long value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc::result_out_of_range) return text + " is too large";
        if (ec != std::errc() || end != text.data() + text.size()) return text + " is not a whole number";
        if (value < lo || value > hi) return text + " is outside " + std::to_string(lo) + ".." + std::to_string(hi);
        text = std::to_string(value);  // as read, in decimal: CLI11 would take 010 as octal 8
        return "";
      },
      "INT in " + std::to_string(lo) + ".." + std::to_string(hi));
}

// An empty --device would mean the default GPU; a user who typed one meant a name.
const CLI::Validator kNotEmpty(
    [](std::string& text) -> std::string { return text.empty() ? "an empty value names nothing" : ""; }, "TEXT");

// A list option's value: items between commas, none empty (split_commas
// would drop it, and -e '' ran the default study); a user who typed one meant a name.
std::string empty_item_in(const std::string& text) {
  if (text.empty()) return "an empty value names nothing";
  const bool empty_item = text.front() == ',' || text.back() == ',' || text.find(",,") != std::string::npos;
  return empty_item ? "an empty item in '" + text + "' names nothing" : "";
}
const CLI::Validator kList([](std::string& text) { return empty_item_in(text); }, "");
// --input's, where an existing file is named whole, commas and all.
const CLI::Validator kInputList([](std::string& text) { return names_a_file(text) ? "" : empty_item_in(text); }, "");

// --chunk and --piece: a size, not 0 (which would read as "count's own", and
// nobody asks for that by typing it); generate's --size: 0 is a usage error.
const CLI::Validator kNonzeroSize(
    [](std::string& text) -> std::string {
      try {
        return hs::parse_size(text) == 0 ? text + " is a size of 0 bytes" : "";
      } catch (const hs::UsageError& e) {
        return e.what();
      }
    },
    "SIZE");

CLI::Validator number_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || *end || !std::isfinite(value)) return text + " is not a finite number";
        if (value < lo || value > hi) return text + " is outside " + CLI::detail::to_string(lo) + ".." +
                                             CLI::detail::to_string(hi);
        return "";
      },
      "NUMBER in " + CLI::detail::to_string(lo) + ".." + CLI::detail::to_string(hi));
}

// 0 when standard output took all that was printed to it; else one line and 1.
int stdout_status() {
  try {
    check_stdout();
  } catch (const hs::ClosedPipe&) {
    return kClosedPipeStatus;
  } catch (const hs::Error& e) {
    say_error(e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (!hs::hold_closed_standard_descriptors()) {
    std::fprintf(stderr, "histostudy: error: cannot hold a closed standard stream's descriptor (%s)\n",
                 std::strerror(errno));
    return 1;
  }
  hs::install_signal_handlers();
  const std::vector<std::string> args(argv, argv + argc);
  CLI::App app{"histostudy: a reproducibility study of 256-bin byte histograms on GPUs and CPUs.\n"
               "With no command, prints this help on stderr and exits 2, measuring nothing: histostudy run runs "
               "the default study."};
  app.set_version_flag("--version", std::string("histostudy ") + HISTOSTUDY_VERSION);
  app.require_subcommand(0, 1);

  RunOptions run_opt;
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

  // count's default: the CPU's privatized implementation.
  std::string count_impl, count_path = "-";
  for (const auto* impl : hs::with_role("privatized"))
    if (impl->backend == hs::Backend::cpu && count_impl.empty()) count_impl = impl->name;
  int count_threads = 0;
  std::string count_device;
  auto* count = app.add_subcommand("count", "Print a file's byte histogram: 256 lines 'value count'");
  count->add_option("FILE", count_path, "file to count, or - for standard input (default)");
  count->add_option("--impl", count_impl,
                    "implementation (default: the CPU's privatized one); a GPU one (lane_shared, cub, ...) counts " +
                        std::to_string(hs::kGpuChunk >> 20) + " MiB chunks on the GPU while the next are read into "
                        "pinned memory")
      ->capture_default_str();
  count->add_option("-t,--threads", count_threads,
                    "CPU threads: counting (default: one per core), or for a GPU implementation reading the file "
                    "(default: seven eighths of the cores)")
      ->transform(whole_number_in(1, hs::cpu::kMaxThreads));
  count->add_option("--device", count_device, kDeviceHelp)->check(kNotEmpty);

  hs::CountBenchRequest bench;
  std::string bench_chunk;
  auto* count_bench = app.add_subcommand(
      "count-bench", "Time count on a page-cached file against its floor: reading the file and discarding it (CPU "
                     "implementations) or copying as many bytes to the GPU from pinned memory (GPU ones)");
  count_bench->add_option("FILE", bench.path, "a regular file")->required();
  count_bench->add_option("--impl", bench.impl, "implementation that counts, CPU or GPU")->capture_default_str();
  count_bench->add_option("-t,--threads", bench.threads,
                          "CPU threads: counting (default: one per core), or for a GPU implementation reading the file "
                          "(default: seven eighths of the cores)")
      ->transform(whole_number_in(1, hs::cpu::kMaxThreads));
  count_bench->add_option("--chunk", bench_chunk,
                          "GPU implementations: bytes per chunk, whole pieces up to 1GiB (default count's, " +
                              std::to_string(hs::kGpuChunk >> 20) + "MiB)")->check(kNonzeroSize);
  std::string bench_piece;
  count_bench->add_option("--buffers", bench.buffers,
                          "GPU implementations: pinned buffers in the ring (default count's, " +
                              std::to_string(hs::kGpuBuffers) + ")")
      ->transform(whole_number_in(2, 64));
  count_bench->add_option("--piece", bench_piece,
                          "GPU implementations: bytes each reading thread preads at a time, whole 64KiB dividing "
                          "the chunk (default count's, " + std::to_string(hs::kGpuPiece >> 20) + "MiB)")->check(kNonzeroSize);
  count_bench->add_option("--device", bench.device, kDeviceHelp)->check(kNotEmpty);
  count_bench->add_option("--rounds", bench.rounds, "rounds: each times every entry once (five entries; six for a CPU implementation)")->capture_default_str()
      ->transform(whole_number_in(1, 1000));
  count_bench->add_option("--settle", bench.settle_ms, "ms idle before each timed pass, so that none inherits what the "
                          "pass before it left; 0: back to back")->capture_default_str()
      ->transform(whole_number_in(0, hs::kMaxSettleMs));
  count_bench->add_option("-o,--out-dir", bench.out_dir, "where the result file goes")->capture_default_str();
  count_bench->add_flag("--no-save", bench.no_save, "print only; write no result file");

  std::string gen_input, gen_size = std::to_string(hs::kLessonSize), gen_out = "-";
  auto* generate = app.add_subcommand("generate", "Write a study input's exact bytes");
  generate->add_option("INPUT", gen_input, "uniform, lesson_english, prose, one_byte, distinct_K")->required();
  generate->add_option("-s,--size", gen_size, "bytes (default: the lesson's)")->capture_default_str()->check(kNonzeroSize);
  generate->add_option("-o,--output", gen_out, "file to write (default standard output); a FIFO or device is written "
                                              "through, an existing file only with --force");
  bool gen_force = false;
  generate->add_flag("-f,--force", gen_force, "replace an existing file");

  auto* list = app.add_subcommand("list", "List implementations, inputs, experiments and toolchains");
  bool list_json = false;
  list->add_flag("--json", list_json,
                 "the registry as JSON: names, backends and roles, and count's reading plans (data/registry.json)");
  bool list_experiments = false;
  list->add_flag("--experiments", list_experiments,
                 "the experiments as JSON: each one's inputs, sizes and roles, and run's default GPU timing plan "
                 "(what tools/peers.py runs)")
      ->excludes("--json");
  auto* env = app.add_subcommand("env", "Print the environment record as JSON");
  std::string env_device;
  env->add_option("--device", env_device, kDeviceHelp)->check(kNotEmpty);

  std::vector<std::string> cubin_toolchains, cubin_archs = {"75,90"};
  std::string cubin_dir;
  auto* cubins = app.add_subcommand("cubins", "Compile the kernels with NVRTC toolchains into SASS and PTX modules, as their "
                                              "executors would, for the codegen audit (no GPU needed)");
  cubins->add_option("--toolchain", cubin_toolchains, "NVRTC toolchains (default: every one `list` shows)")
      ->check(kList);
  cubins->add_option("--arch", cubin_archs, "compute capabilities (default 75,90)")->check(kList);
  cubins->add_option("-o,--out-dir", cubin_dir, "where cubins, logs and manifest.json go")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version
      app.exit(e);
      return stdout_status();
    }
    // A usage error: one line, exit 2, whatever CLI11's own code would be.
    // Options before any command that `run` would take: run typed without its name.
    if (dynamic_cast<const CLI::ExtrasError*>(&e) && app.get_subcommands().empty() && argc > 1 && argv[1][0] == '-') {
      std::vector<std::string> as_run(std::make_reverse_iterator(args.end()), std::make_reverse_iterator(args.begin() + 1));
      as_run.push_back("run");  // CLI11 takes the words last first
      std::string line;
      for (auto word = args.begin() + 1; word != args.end(); ++word) line += " " + *word;
      try {
        app.clear();
        app.parse(as_run);
        say_error("options come after a command; did you mean: histostudy run" + line + " (see --help)");
        return 2;
      } catch (const CLI::ParseError&) {  // not run's either: CLI11's own words
      }
    }
    say_error(e.what() + std::string(" (see --help)"));
    return 2;
  }
  if (app.get_subcommands().empty()) {  // no study runs, nor writes ./runs/, unasked
    std::cerr << app.help();
    return 2;
  }
  try {
    check_thread_variable();
    if (*count) return count_command(count_impl, count_path, count_threads, count_device);
    if (*count_bench) {
      if (!bench_chunk.empty()) bench.chunk = hs::parse_size(bench_chunk);
      if (!bench_piece.empty()) bench.piece = hs::parse_size(bench_piece);
      const nlohmann::json doc = hs::count_bench(bench, args);
      std::cout << hs::describe_count_bench(doc);
      check_stdout(doc.contains("result_file") ? "result file: " + doc["result_file"].get<std::string>() : "");
      return 0;
    }
    if (*generate) {
      std::optional<hs::IoProgress> progress;  // not between the bytes it writes to a terminal
      if (!(gen_out == "-" && ::isatty(STDOUT_FILENO)))
        progress.emplace(hs::IoProgress::Bytes::written, "histostudy generate: wrote");
      hs::generate_input(hs::parse_input(gen_input), hs::parse_size(gen_size), gen_out, gen_force);
      return 0;
    }
    if (*list) {
      if (list_experiments) {
        list_experiments_command();
        check_stdout();
        return 0;
      }
      if (list_json) {
        std::cout << hs::registry_json();
        check_stdout();
        return 0;
      }
      list_command();
      check_stdout();
      return 0;
    }
    if (*env) {
      const hs::Executors ex = hs::make_executors({}, "none", env_device);
      nlohmann::json record = hs::environment_record(ex);
      record["gpu_state"] = hs::gpu_state(ex);
      std::cout << hs::lossless_utf8(record).dump(2) << "\n";
      check_stdout();
      return 0;
    }
    if (*cubins) return cubins_command(cubin_toolchains, cubin_archs, cubin_dir);
    for (const char* name : kGpuOnlyOptions)
      if (run->count(name) > 0) run_opt.gpu_options.push_back(name);
    return run_study(run_opt, args);
  } catch (const hs::UsageError& e) {
    say_error(e.what());
    return 2;
  } catch (const hs::ClosedPipe&) {
    return kClosedPipeStatus;
  } catch (const std::exception& e) {
    say_error(hs::message_of(e));
    return 1;
  }
}
