#include "driver/session.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "build_config.hpp"
#include "driver/control.hpp"
#include "platform/env.hpp"
#include "platform/error.hpp"
#include "driver/experiments.hpp"
#include "driver/fleet.hpp"
#include "platform/nvml.hpp"
#include "platform/printable.hpp"
#include "driver/results.hpp"
#if HISTOSTUDY_HAVE_CUDA
#include "cuda/driver_api.hpp"
#include "cuda/microbench.hpp"
#include "cuda/modules.hpp"
#include "cuda/shared_device.hpp"
#include "cuda/toolchains.hpp"
#else
#include "cuda/toolchain_spec.hpp"
#endif

namespace hs {

std::vector<Executor*> Executors::all() const {
  std::vector<Executor*> out;
  for (const auto& e : owned) out.push_back(e.get());
  return out;
}

namespace {

#if HISTOSTUDY_HAVE_CUDA
// --control: "auto" repeats the first toolchain when two or more are
// compared (a modules directory holds many); "none" adds no control; a spec
// repeats that toolchain (of a modules directory, its first entry).
std::string control_spec(const std::string& control, const std::vector<std::string>& toolchains) {
  if (control == "none") return "";
  if (control != "auto") return control;
  const bool several = toolchains.size() >= 2 || (toolchains.size() == 1 && gpu::modules_dir_of(toolchains[0]));
  return several ? toolchains.front() : "";
}
#else
// A toolchain named to a build without CUDA: refused in the words a build
// with CUDA uses for a spelling it does not know, else as needing CUDA.
[[noreturn]] void needs_cuda(const std::string& option, const std::string& spec) {
  gpu::parse_toolchain(spec);
  throw UsageError(option + " " + spec + ": this histostudy was built without CUDA, which GPU toolchains need");
}
#endif

// The run's GPU as the first GPU executor describes it (index, uuid, name...);
// null without one.
nlohmann::json gpu_described(const Executors& ex) {
  for (const auto& e : ex.owned) {
    const auto d = e->describe();
    if (d.contains("device")) return d["device"];
  }
  return nullptr;
}

// The GPU's UUID; "" without one.
std::string gpu_uuid(const Executors& ex) {
  const auto device = gpu_described(ex);
  return device.contains("uuid") ? device["uuid"].get<std::string>() : "";
}

}  // namespace

Executors make_executors(const std::vector<std::string>& toolchains, const std::string& control,
                         const std::string& device_spec) {
  // Several GPUs are run's alone (study/driver/fleet.hpp): said on any machine, GPU or not.
  if (names_several_devices(device_spec))
    throw UsageError("--device " + device_spec + ": this command runs on one GPU (run takes all or a list)");
  Executors ex;
  ex.owned.push_back(make_cpu_executor());
#if HISTOSTUDY_HAVE_CUDA
  const auto specs = toolchains.empty() ? std::vector<std::string>{"nvcc"} : toolchains;
  const std::string repeated = control_spec(control, specs);
  for (const auto& spec : specs) gpu::check_toolchain(spec);
  if (!repeated.empty()) gpu::check_toolchain(repeated);
  try {
    const auto device = gpu::open_device(device_spec);
    ex.device_line = "GPU " + gpu::gpu_line(device->device());
    std::vector<std::string> labels;
    for (const auto& spec : specs)
      for (auto& executor : gpu::make_gpu_executors(spec, device, ex.skipped)) {
        if (std::find(labels.begin(), labels.end(), executor->toolchain()) != labels.end())
          throw UsageError("toolchain " + executor->toolchain() + " named twice (--toolchain " + spec + ")");
        labels.push_back(executor->toolchain());
        ex.owned.push_back(std::move(executor));
      }
    if (!repeated.empty()) {
      std::vector<std::string> again;  // a modules directory's skips were said once already
      auto entries = gpu::make_gpu_executors(repeated, device, again);
      if (entries.empty()) throw UsageError("--control " + repeated + ": no entry of it can run here");
      ex.owned.push_back(make_control(std::move(entries.front())));
    }
    for (const auto& line : ex.skipped) std::cerr << "histostudy: " << printable(line) << "\n";
  } catch (const Unavailable& e) {
    if (!device_spec.empty()) throw Unavailable("--device " + device_spec + ": " + e.what());
    ex.owned.resize(1);
    ex.gpu_absent = e.what();
  }
#else
  for (const auto& spec : toolchains) needs_cuda("--toolchain", spec);
  if (control != "auto" && control != "none") needs_cuda("--control", control);
  if (!device_spec.empty()) throw Unavailable("--device " + device_spec + ": this histostudy was built without CUDA");
  ex.gpu_absent = "this histostudy was built without CUDA";
#endif
  return ex;
}

Executor& executor_for(const Executors& ex, const Implementation& impl) {
  for (const auto& e : ex.owned)
    if (e->supports(impl)) return *e;
  throw Unavailable("implementation '" + std::string(impl.name) + "' cannot run here (" + ex.gpu_absent + ")");
}

std::vector<NamedGpu> gpus_named(const std::string& spec) {
  if (spec != "all") device_list(spec);  // a malformed list is refused on any machine
#if HISTOSTUDY_HAVE_CUDA
  try {
    std::vector<NamedGpu> gpus;
    for (const int index : gpu::device_indices(spec)) gpus.push_back({index, gpu::gpu_line(index)});
    return gpus;
  } catch (const Unavailable& e) {
    throw Unavailable("--device " + spec + ": " + e.what());
  }
#else
  throw Unavailable("--device " + spec + ": this histostudy was built without CUDA");
#endif
}

// NVML's snapshot of the run's GPU (clocks, power, temperature...); null without one.
nlohmann::json gpu_state(const Executors& ex) {
  const std::string uuid = gpu_uuid(ex);
  return uuid.empty() ? nlohmann::json(nullptr) : nvml::gpu_state(uuid);
}

nlohmann::json environment_record(const Executors& ex) {
  nlohmann::json executors = nlohmann::json::array();
  for (const auto& e : ex.owned) executors.push_back({{"toolchain", e->toolchain()}, {"describe", e->describe()}});
  nlohmann::json loading = nullptr;
#if HISTOSTUDY_HAVE_CUDA
  if (ex.gpu_absent.empty()) {
    const char* variable = std::getenv("CUDA_MODULE_LOADING");
    loading = {{"CUDA_MODULE_LOADING", variable ? nlohmann::json(variable) : nlohmann::json(nullptr)},
               {"mode", gpu::module_loading_mode()},
               {"kernels_loaded_before_timing", true}};
  }
#endif
  return {{"host", host_environment()},
          {"build", build_environment()},
          {"driver", nvml::driver()},
          {"executors", executors},
          {"module_loading", loading},
          {"skipped_toolchains", ex.skipped},
          {"gpu_absent", ex.gpu_absent.empty() ? nlohmann::json(nullptr) : nlohmann::json(ex.gpu_absent)}};
}

namespace {

// "<date>_<gpu or cpu>_<toolchains>": what the file is, from its name alone.
// File names stay far below NAME_MAX (255 bytes): a run of 27 toolchains
// once failed its save on a name of 600.
constexpr std::size_t kMaxStemToolchains = 100;

std::string result_stem(const Executors& ex, const RunRecord& record) {
  const auto& rows = record.rows;
  const auto gpu = gpu_described(ex);
  std::string device = gpu.contains("name") ? gpu["name"].get<std::string>() : "cpu";
  if (gpu.contains("name") && !record.run_id.empty() && gpu.contains("index")) device += " gpu" + gpu["index"].dump();
  std::vector<std::string> used;
  for (const auto& e : ex.owned) {
    if (std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return r.toolchain == e->toolchain(); }))
      used.push_back(e->toolchain());
  }
  std::string toolchains;
  for (const auto& t : used) toolchains += (toolchains.empty() ? "" : "+") + t;
  if (slug(toolchains).size() > kMaxStemToolchains && used.size() > 1)
    toolchains = used.front() + " and " + std::to_string(used.size() - 1) + " more toolchains";
  return utc_now(true) + "_" + slug(device) + "_" + slug(toolchains);
}

// Saves the run; should its name be refused, under a plain one, so that no
// measurement is lost to a file name.
std::string save(const RunRecord& record, const std::string& dir, const std::string& stem) {
  const auto doc = result_document(record);
  try {
    return write_result(doc, dir, stem).string();
  } catch (const Error& e) {
    std::cerr << "histostudy: " << printable(e.what()) << "; saving as a plain name\n";
    return write_result(doc, dir, stem.substr(0, stem.find('_')) + "_run").string();
  }
}


// The perf experiment records the GPU's shared-memory update rates, the
// ceiling of one-update-per-byte designs, beside its rows.
nlohmann::json shared_rates_if_asked(const StudyRequest& request, const Executors& ex) {
#if HISTOSTUDY_HAVE_CUDA
  const auto& e = request.experiments;
  if (std::none_of(e.begin(), e.end(), [](const std::string& name) {
        return find_experiment(name).measures_shared_rates;
      }) || !ex.gpu_absent.empty())
    return nullptr;
  std::cerr << "histostudy: measuring shared-memory update rates" << std::endl;
  const gpu::SharedRates r = gpu::measure_shared_rates(gpu_described(ex)["index"].get<int>());
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

}  // namespace

RunRecord record_run(const StudyRequest& request, const std::vector<Case>& cases, const Executors& ex,
                     const std::vector<std::string>& argv, const std::function<void(const std::string&)>& progress) {
  RunRecord record;
  record.started = utc_now();
  record.provenance = provenance(argv);
  record.timing = {{"gpu", request.gpu_timing.to_json()}, {"cpu", request.cpu_timing.to_json()}};
  const nlohmann::json state_before = gpu_state(ex);
  try {
    run_cases(cases, ex.all(), request, progress, record.rows);
    record.hardware = shared_rates_if_asked(request, ex);
  } catch (const std::exception& e) {  // keep every measurement taken: the file says where it stopped
    record.incomplete = message_of(e);
    if (const auto* interrupted = dynamic_cast<const Interrupted*>(&e)) record.stopped_by_signal = interrupted->signal();
    attach_floors(record.rows);
  }
  record.environment = environment_record(ex);
  record.environment["gpu_state_before"] = state_before;
  record.environment["gpu_state_after"] = gpu_state(ex);
  record.finished = utc_now();
  return record;
}

std::string save_run(const RunRecord& record, const Executors& ex, const std::string& dir) {
  return save(record, dir, result_stem(ex, record));
}

}  // namespace hs
