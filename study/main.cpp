// histostudy: the command-line front end. Library layers throw hs::Error;
// this file alone prints errors and chooses exit codes.
//
//   histostudy [run ...]          the study (default: lesson + sweep) -> data/runs/*.json
//   histostudy count [FILE|-]     256 lines "value count"
//   histostudy count-bench FILE   count against read-and-discard of a page-cached file
//   histostudy generate INPUT     a study input's exact bytes
//   histostudy list               implementations, inputs, experiments, toolchains
//   histostudy env                the environment record alone
//   histostudy cubins             NVRTC-built cubins for the codegen audit (no GPU needed)
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>

#include "build_config.hpp"
#include "cpu_openmp/openmp_histogram.hpp"
#include "study/control.hpp"
#include "study/count.hpp"
#include "study/count_bench.hpp"
#include "study/env.hpp"
#include "study/files.hpp"
#include "study/error.hpp"
#include "study/inputs.hpp"
#include "study/nvml.hpp"
#include "study/registry.hpp"
#include "study/report.hpp"
#include "study/results.hpp"
#include "study/sizes.hpp"
#include "study/study.hpp"
#if HISTOSTUDY_HAVE_CUDA
#include "cuda/driver_api.hpp"
#include "cuda/microbench.hpp"
#include "cuda/modules.hpp"
#include "cuda/toolchains.hpp"
#endif

namespace {

using hs::Executor;

struct Executors {
  std::vector<std::unique_ptr<Executor>> owned;
  std::string gpu_absent;  // why there is no GPU executor, if there is none
  std::vector<std::string> skipped;  // toolchain entries left out (modules:DIR), a line each
  std::vector<Executor*> all() const {
    std::vector<Executor*> out;
    for (const auto& e : owned) out.push_back(e.get());
    return out;
  }
};

#if HISTOSTUDY_HAVE_CUDA
// --control: "auto" repeats the first toolchain when two or more are
// compared (a modules directory holds many); "none" adds no control; a spec
// repeats that toolchain (of a modules directory, its first entry).
std::string control_spec(const std::string& control, const std::vector<std::string>& toolchains) {
  if (control == "none") return "";
  if (control != "auto") return control;
  const bool several = toolchains.size() >= 2 || (toolchains.size() == 1 && hs::gpu::modules_dir_of(toolchains[0]));
  return several ? toolchains.front() : "";
}
#endif

// The CPU executor, and one GPU executor per toolchain spec ("nvcc",
// "nvrtc", "nvrtc:LIBRARY"), in order, plus the A/A control entry, all on
// one shared device: the study samples them in rotation.
Executors make_executors(const std::vector<std::string>& toolchains = {"nvcc"}, const std::string& control = "none") {
  Executors ex;
  ex.owned.push_back(hs::make_cpu_executor());
#if HISTOSTUDY_HAVE_CUDA
  const std::string repeated = control_spec(control, toolchains);
  for (const auto& spec : toolchains) hs::gpu::check_toolchain(spec);
  if (!repeated.empty()) hs::gpu::check_toolchain(repeated);
  try {
    const auto device = hs::gpu::open_device(0);
    std::vector<std::string> labels;
    for (const auto& spec : toolchains)
      for (auto& executor : hs::gpu::make_gpu_executors(spec, device, ex.skipped)) {
        if (std::find(labels.begin(), labels.end(), executor->toolchain()) != labels.end())
          throw hs::UsageError("toolchain " + executor->toolchain() + " named twice (--toolchain " + spec + ")");
        labels.push_back(executor->toolchain());
        ex.owned.push_back(std::move(executor));
      }
    if (!repeated.empty()) {
      std::vector<std::string> again;  // a modules directory's skips were said once already
      auto entries = hs::gpu::make_gpu_executors(repeated, device, again);
      if (entries.empty()) throw hs::UsageError("--control " + repeated + ": no entry of it can run here");
      ex.owned.push_back(hs::make_control(std::move(entries.front())));
    }
    for (const auto& line : ex.skipped) std::cerr << "histostudy: " << line << "\n";
  } catch (const hs::Unavailable& e) {
    ex.owned.resize(1);
    ex.gpu_absent = e.what();
  }
#else
  (void)toolchains, (void)control;
  ex.gpu_absent = "this histostudy was built without CUDA";
#endif
  return ex;
}

// The GPU's UUID, from the first GPU executor; "" without one.
std::string gpu_uuid(const Executors& ex) {
  for (const auto& e : ex.owned) {
    const auto d = e->describe();
    if (d.contains("device") && d["device"].contains("uuid")) return d["device"]["uuid"].get<std::string>();
  }
  return "";
}

// NVML's snapshot of the run's GPU (clocks, power, temperature...); null without one.
nlohmann::json gpu_state(const Executors& ex) {
  const std::string uuid = gpu_uuid(ex);
  return uuid.empty() ? nlohmann::json(nullptr) : hs::nvml::gpu_state(uuid);
}

nlohmann::json environment_record(const Executors& ex) {
  nlohmann::json executors = nlohmann::json::array();
  for (const auto& e : ex.owned) executors.push_back({{"toolchain", e->toolchain()}, {"describe", e->describe()}});
  nlohmann::json loading = nullptr;
#if HISTOSTUDY_HAVE_CUDA
  if (ex.gpu_absent.empty()) {
    const char* variable = std::getenv("CUDA_MODULE_LOADING");
    loading = {{"CUDA_MODULE_LOADING", variable ? nlohmann::json(variable) : nlohmann::json(nullptr)},
               {"mode", hs::gpu::module_loading_mode()},
               {"kernels_loaded_before_timing", true}};
  }
#endif
  return {{"host", hs::host_environment()},
          {"build", hs::build_environment()},
          {"driver", hs::nvml::driver()},
          {"executors", executors},
          {"module_loading", loading},
          {"skipped_toolchains", ex.skipped},
          {"gpu_absent", ex.gpu_absent.empty() ? nlohmann::json(nullptr) : nlohmann::json(ex.gpu_absent)}};
}

// "<date>_<gpu or cpu>_<toolchains>": what the file is, from its name alone.
// File names stay far below NAME_MAX (255 bytes): a run of 27 toolchains
// once failed its save on a name of 600.
constexpr std::size_t kMaxStemToolchains = 100;

std::string result_stem(const Executors& ex, const std::vector<hs::Row>& rows) {
  std::string device = "cpu";
  std::vector<std::string> used;
  for (const auto& e : ex.owned) {
    const auto d = e->describe();
    if (d.contains("device") && d["device"].contains("name")) device = d["device"]["name"].get<std::string>();
    if (std::any_of(rows.begin(), rows.end(), [&](const hs::Row& r) { return r.toolchain == e->toolchain(); }))
      used.push_back(e->toolchain());
  }
  std::string toolchains;
  for (const auto& t : used) toolchains += (toolchains.empty() ? "" : "+") + t;
  if (hs::slug(toolchains).size() > kMaxStemToolchains && used.size() > 1)
    toolchains = used.front() + " and " + std::to_string(used.size() - 1) + " more toolchains";
  return hs::utc_now(true) + "_" + hs::slug(device) + "_" + hs::slug(toolchains);
}

// Saves the run; should its name be refused, under a plain one, so that no
// measurement is lost to a file name.
std::string save(const hs::RunRecord& record, const std::string& dir, const std::string& stem) {
  const auto doc = hs::result_document(record);
  try {
    return hs::write_result(doc, dir, stem).string();
  } catch (const hs::Error& e) {
    std::cerr << "histostudy: " << e.what() << "; saving as a plain name\n";
    return hs::write_result(doc, dir, stem.substr(0, stem.find('_')) + "_run").string();
  }
}

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

// Each name once, in the order first given (a name repeated would be measured twice).
std::vector<std::string> unique(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items)
    if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
  return out;
}

// --input items split at commas, except an item that names an existing
// file as a whole (a path may contain commas).
std::vector<std::string> split_inputs(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::error_code ec;
    if (item.find(',') != std::string::npos && std::filesystem::is_regular_file(item, ec))
      out.push_back(item);
    else
      for (const auto& part : split_commas({item})) out.push_back(part);
  }
  return out;
}

// Throws Error when standard output could not be written (a full disk, a
// closed pipe): a command that printed nothing must not exit 0.
void check_stdout() {
  std::cout.flush();
  if (!std::cout) throw hs::Error(std::string("standard output: write error (") + std::strerror(errno) + ")");
}

// The perf experiment records the GPU's shared-memory update rates, the
// ceiling of one-update-per-byte designs (issue 6), beside its rows.
nlohmann::json shared_rates_if_asked(const hs::StudyRequest& request, const Executors& ex) {
#if HISTOSTUDY_HAVE_CUDA
  const auto& e = request.experiments;
  if (std::find(e.begin(), e.end(), "perf") == e.end() || !ex.gpu_absent.empty()) return nullptr;
  std::cerr << "histostudy: measuring shared-memory update rates" << std::endl;
  const hs::gpu::SharedRates r = hs::gpu::measure_shared_rates(0);
  nlohmann::json rates = nlohmann::json::array();
  for (const auto& rate : r.rates)
    rates.push_back({{"pattern", rate.pattern},
                     {"updates_per_clock_sm", rate.updates_per_clock_sm},
                     {"ceiling_gbps", rate.ceiling_gbps}});
  return {{"shared_rates", rates},
          {"sm_count", r.sm_count},
          {"sm_clock_mhz", r.sm_clock_mhz},
          {"threads_per_block", r.threads_per_block},
          {"blocks_per_sm", r.blocks_per_sm}};
#else
  (void)request;
  (void)ex;
  return nullptr;
#endif
}

struct RunOptions {
  std::vector<std::string> experiments, impls, inputs, sizes, toolchains, bins_offsets;
  int grid = 0, block = 0, threads = 0, passes = 0, warmups = 3, reps = 20, max_reps = 200;
  double noise_pct = 0.5, max_time_s = 5.0, throttle = 0.75;
  std::string cache = "cold", control = "auto";
  std::string out_dir = "runs";  // ignored by git: a user's runs never change the committed paper
  bool no_save = false;
};

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
// starts any thread (issue 13: libgomp crashed at 100,000).
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

// Checked before any measurement: what a run could otherwise learn only
// after measuring (issue 13).
void check_before_measuring(const RunOptions& opt) {
  hs::check_carried_commit();
  if (!opt.no_save) hs::check_writable_dir(opt.out_dir);
}

int run_study(const RunOptions& opt, const std::vector<std::string>& argv) {
  hs::StudyRequest request;
  request.experiments = unique(split_commas(opt.experiments));
  request.impls = unique(split_commas(opt.impls));
  request.inputs = unique(split_inputs(opt.inputs));
  for (const auto& s : unique(split_commas(opt.sizes))) request.sizes.push_back(hs::parse_size(s));
  request.policy.grid = opt.grid;
  request.policy.block = opt.block;
  request.policy.threads = opt.threads;
  request.passes = opt.passes;
  request.placements = parse_placements(opt.bins_offsets);
  if (opt.max_reps < opt.reps)
    throw hs::UsageError("--max-reps " + std::to_string(opt.max_reps) + " is below --reps " + std::to_string(opt.reps));
  request.gpu_timing.warmups = opt.warmups;
  request.gpu_timing.stop = {opt.reps, opt.max_reps, opt.noise_pct / 100.0, opt.max_time_s};
  request.gpu_timing.cache = hs::parse_cache_mode(opt.cache);
  request.gpu_timing.throttle_fraction = opt.throttle;
  check_before_measuring(opt);

  hs::RunRecord record;
  record.started = hs::utc_now();
  const auto toolchains = split_commas(opt.toolchains);
  Executors ex = make_executors(toolchains.empty() ? std::vector<std::string>{"nvcc"} : toolchains, opt.control);
  const auto cases = hs::plan_cases(request, ex.all());
  if (!ex.gpu_absent.empty()) std::cerr << "histostudy: no GPU executor (" << ex.gpu_absent << "); CPU only\n";
  std::cerr << "histostudy: " << hs::describe_plan(cases) << "\n";
  if (request.experiments.empty() && (!request.impls.empty() || !request.inputs.empty() || !request.sizes.empty()))
    std::cerr << "histostudy: --impl, --input and --size replace the default experiments (lesson, sweep) with "
                 "'custom'; name --experiment to run those instead\n";
  record.provenance = hs::provenance(argv);
  record.timing = {{"gpu", request.gpu_timing.to_json()}, {"cpu", request.cpu_timing.to_json()}};
  const nlohmann::json state_before = gpu_state(ex);
  try {
    hs::run_cases(cases, ex.all(), request, [](const std::string& line) { std::cerr << line << std::endl; },
                  record.rows);
    record.hardware = shared_rates_if_asked(request, ex);
  } catch (const std::exception& e) {  // keep every measurement taken: the file says where it stopped
    record.incomplete = e.what();
    hs::attach_floors(record.rows);
  }
  record.environment = environment_record(ex);
  record.environment["gpu_state_before"] = state_before;
  record.environment["gpu_state_after"] = gpu_state(ex);
  record.finished = hs::utc_now();
  // Saved before anything is printed: a closed pipe on standard output loses no run.
  std::string saved;
  if (!opt.no_save) saved = save(record, opt.out_dir, result_stem(ex, record.rows));
  if (!record.incomplete.empty())
    throw hs::Error(record.incomplete + (saved.empty() ? "" : " (what was measured before it is in " + saved + ")"));

  hs::print_lesson_tables(record.rows, std::cout);
  hs::print_all_rows(record.rows, std::cout);
  if (!record.hardware.is_null())
    std::cout << "\nShared-memory update rates (this GPU):\n" << record.hardware.dump(1) << "\n";
  if (!saved.empty()) std::cout << "\nresult file: " << saved << "\n";
  check_stdout();
  const auto& rows = record.rows;
  bool all_passed = std::all_of(rows.begin(), rows.end(), [](const hs::Row& r) { return r.check_passed; });
  if (!all_passed) std::cerr << "histostudy: some implementations FAILED their check (see above)\n";
  return all_passed ? 0 : 1;
}

int count_command(const std::string& impl_name, const std::string& path, int threads) {
  const hs::Implementation& impl = hs::find_implementation(impl_name);
  Executors ex = make_executors();
  for (auto* e : ex.all())
    if (e->supports(impl)) {
      const hs::Bins bins = hs::count_stream(path, impl, *e, threads);
      std::string out;
      for (int v = 0; v < hs::kBins; ++v) out += std::to_string(v) + " " + std::to_string(bins[v]) + "\n";
      std::cout << out;
      check_stdout();
      return 0;
    }
  throw hs::Unavailable("implementation '" + impl_name + "' cannot run here (" + ex.gpu_absent + ")");
}

void list_command() {
  Executors ex = make_executors();
  std::cout << "implementations (histostudy run --impl NAME):\n";
  for (const auto& impl : hs::implementations()) {
    bool here = std::any_of(ex.owned.begin(), ex.owned.end(), [&](const auto& e) { return e->supports(impl); });
    std::printf("  %-18s %-5s %s%s\n", std::string(impl.name).c_str(), std::string(hs::backend_name(impl.backend)).c_str(),
                std::string(impl.idea).c_str(), here ? "" : "  [cannot run here]");
  }
  std::cout << "inputs (--input NAME):\n";
  for (const auto& name : hs::input_names()) std::cout << "  " << name << "\n";
  std::cout << "experiments (--experiment NAME):\n";
  for (const auto& [name, what] : hs::experiment_descriptions()) std::printf("  %-8s %s\n", name.c_str(), what.c_str());
  std::cout << "toolchains (--toolchain SPEC):\n  cpu                always\n";
#if HISTOSTUDY_HAVE_CUDA
  for (const auto& t : hs::gpu::find_toolchains())
    std::printf("  %-18s %s%s\n", t.label.c_str(), t.spec.c_str(),
                t.spec.ends_with(t.where) ? "" : (" (" + t.where + ")").c_str());
#endif
  if (!ex.gpu_absent.empty()) std::cout << "  (no GPU here to run them: " << ex.gpu_absent << ")\n";
}

std::vector<int> parse_archs(const std::vector<std::string>& items) {
  std::vector<int> archs;
  for (const auto& item : split_commas(items)) {
    const auto digits = item.starts_with("sm_") ? item.substr(3) : item;
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 4)
      throw hs::UsageError("--arch " + item + ": name a compute capability such as 75 or sm_90");
    archs.push_back(std::stoi(digits));
  }
  if (archs.empty()) throw hs::UsageError("--arch: name at least one compute capability, such as 75 or sm_90");
  return archs;
}

int cubins_command(const std::vector<std::string>& toolchains, const std::vector<std::string>& archs,
                   const std::string& out_dir) {
#if HISTOSTUDY_HAVE_CUDA
  std::vector<std::string> specs = split_commas(toolchains);
  if (specs.empty())
    for (const auto& t : hs::gpu::find_toolchains())
      if (t.spec != "nvcc") specs.push_back(t.spec);
  const auto manifest = hs::gpu::write_modules(specs, parse_archs(archs), out_dir);
  std::cout << manifest["builds"].size() << " modules (SASS and PTX) in " << out_dir << " (manifest.json)\n";
  for (const auto& line : manifest["skipped"]) std::cerr << "histostudy: " << line.get<std::string>() << "\n";
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
        return "";
      },
      "INT in " + std::to_string(lo) + ".." + std::to_string(hi));
}

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

}  // namespace

int main(int argc, char** argv) {
  hs::install_signal_handlers();
  const std::vector<std::string> args(argv, argv + argc);
  CLI::App app{"histostudy: a reproducibility study of 256-bin byte histograms on GPUs and CPUs.\n"
               "With no command, runs the default study (histostudy run)."};
  app.set_version_flag("--version", std::string("histostudy ") + HISTOSTUDY_VERSION);
  app.require_subcommand(0, 1);

  RunOptions run_opt;
  auto* run = app.add_subcommand("run", "Run the study; write data/runs/<date>_<gpu>_<toolchains>.json");
  run->add_option("-e,--experiment", run_opt.experiments, "lesson, sweep, blocks, perf, placement (default: lesson,sweep; see list)");
  run->add_option("-i,--impl", run_opt.impls, "implementations (default: all that run here; see list)");
  run->add_option("--input", run_opt.inputs, "inputs, replacing the experiments' (see list)");
  run->add_option("-s,--size", run_opt.sizes, "sizes: 611, 64MiB, 1GiB, 64MiB+611 (default 67,109,475)");
  run->add_option("--grid", run_opt.grid, "GPU blocks (default 1024, the lesson's)")->check(whole_number_in(1, 1 << 30));
  run->add_option("--block", run_opt.block, "GPU threads per block (default 256)")->check(whole_number_in(1, 1024));
  run->add_option("-t,--threads", run_opt.threads, "CPU threads (default OMP_NUM_THREADS or one per core)")
      ->check(whole_number_in(1, hs::cpu::kMaxThreads));
  run->add_option("-p,--passes", run_opt.passes, "partitioned passes P: 1, 2, 4, 8")
      ->check(CLI::IsMember({1, 2, 4, 8}));
  run->add_option("--warmups", run_opt.warmups, "untimed GPU runs of each toolchain before its samples")
      ->capture_default_str()->check(whole_number_in(0, 1000));
  run->add_option("--reps", run_opt.reps, "at least this many GPU samples (runs timed one by one) per toolchain")
      ->capture_default_str()->check(whole_number_in(1, 100000));
  run->add_option("--max-reps", run_opt.max_reps, "at most this many GPU samples (rounded up to whole rotations)")
      ->capture_default_str()->check(whole_number_in(1, 100000));
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
      ->capture_default_str();
  run->add_option("--bins-offset", run_opt.bins_offsets,
                  "bytes past a 2 MiB boundary where the bins start: multiples of 128 up to 1 MiB (default 0; "
                  "the placement experiment sweeps 0..2048)");
  run->add_option("-o,--out-dir", run_opt.out_dir, "where result files go")->capture_default_str();
  run->add_flag("--no-save", run_opt.no_save, "print only; write no result file");
  run->add_option("--toolchain", run_opt.toolchains,
                  "GPU toolchains, sampled in rotation on shared buffers: nvcc, nvrtc, nvrtc:/path/to/libnvrtc.so.N "
                  "(default nvcc; see list)");

  std::string count_impl = "openmp_private", count_path = "-";
  int count_threads = 0;
  auto* count = app.add_subcommand("count", "Print a file's byte histogram: 256 lines 'value count'");
  count->add_option("FILE", count_path, "file to count, or - for standard input (default)");
  count->add_option("--impl", count_impl, "implementation (default openmp_private)")->capture_default_str();
  count->add_option("-t,--threads", count_threads, "CPU threads")->check(whole_number_in(1, hs::cpu::kMaxThreads));

  hs::CountBenchRequest bench;
  auto* count_bench = app.add_subcommand("count-bench", "Time count against reading and discarding a page-cached file");
  count_bench->add_option("FILE", bench.path, "a regular file")->required();
  count_bench->add_option("--impl", bench.impl, "CPU implementation")->capture_default_str();
  count_bench->add_option("-t,--threads", bench.threads, "CPU threads")->check(whole_number_in(1, hs::cpu::kMaxThreads));
  count_bench->add_option("--rounds", bench.rounds, "rotations of the four entries")->capture_default_str()
      ->check(whole_number_in(1, 1000));
  count_bench->add_option("-o,--out-dir", bench.out_dir, "where the result file goes")->capture_default_str();
  count_bench->add_flag("--no-save", bench.no_save, "print only; write no result file");

  std::string gen_input, gen_size = std::to_string(hs::kLessonSize), gen_out = "-";
  auto* generate = app.add_subcommand("generate", "Write a study input's exact bytes");
  generate->add_option("INPUT", gen_input, "uniform, lesson_english, prose, one_byte, distinct_K")->required();
  generate->add_option("-s,--size", gen_size, "bytes (default 67,109,475)")->capture_default_str();
  generate->add_option("-o,--output", gen_out, "file to write (default standard output); a FIFO or device is written "
                                              "through, an existing file only with --force");
  bool gen_force = false;
  generate->add_flag("-f,--force", gen_force, "replace an existing file");

  auto* list = app.add_subcommand("list", "List implementations, inputs, experiments and toolchains");
  auto* env = app.add_subcommand("env", "Print the environment record as JSON");

  std::vector<std::string> cubin_toolchains, cubin_archs = {"75,90"};
  std::string cubin_dir;
  auto* cubins = app.add_subcommand("cubins", "Compile the kernels with NVRTC toolchains into SASS and PTX modules, as their "
                                              "executors would, for the codegen audit (no GPU needed)");
  cubins->add_option("--toolchain", cubin_toolchains, "NVRTC toolchains (default: every one `list` shows)");
  cubins->add_option("--arch", cubin_archs, "compute capabilities (default 75,90)");
  cubins->add_option("-o,--out-dir", cubin_dir, "where cubins, logs and manifest.json go")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // A usage error: one line, exit 2, whatever CLI11's own code would be.
    std::cerr << "histostudy: error: " << e.what() << " (see --help)\n";
    return 2;
  }
  try {
    check_thread_variable();
    if (*count) return count_command(count_impl, count_path, count_threads);
    if (*count_bench) {
      std::cout << hs::describe_count_bench(hs::count_bench(bench, args));
      check_stdout();
      return 0;
    }
    if (*generate) {
      hs::generate_input(hs::parse_input(gen_input), hs::parse_size(gen_size), gen_out, gen_force);
      return 0;
    }
    if (*list) {
      list_command();
      check_stdout();
      return 0;
    }
    if (*env) {
      const Executors ex = make_executors();
      nlohmann::json record = environment_record(ex);
      record["gpu_state"] = gpu_state(ex);
      std::cout << hs::lossless_utf8(record).dump(2) << "\n";
      check_stdout();
      return 0;
    }
    if (*cubins) return cubins_command(cubin_toolchains, cubin_archs, cubin_dir);
    return run_study(run_opt, args);
  } catch (const hs::UsageError& e) {
    std::cerr << "histostudy: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "histostudy: error: " << e.what() << "\n";
    return 1;
  }
}
