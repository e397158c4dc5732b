// histostudy env: the environment record a result file carries, alone, as JSON.
#include <iostream>
#include <memory>

#include "cli/cli.hpp"
#include "driver/results.hpp"
#include "driver/session.hpp"

namespace cli {

Command add_env(CLI::App& app) {
  auto device = std::make_shared<std::string>();
  auto* env = app.add_subcommand("env", "Print the environment record as JSON");
  env->add_option("--device", *device, kDeviceHelp)->check(kNotEmpty);
  return {env, [device] {
    const hs::Executors ex = hs::make_executors({}, "none", *device);
    nlohmann::json record = hs::environment_record(ex);
    record["gpu_state"] = hs::gpu_state(ex);
    std::cout << hs::lossless_utf8(record).dump(2) << "\n";
    check_stdout();
    return 0;
  }};
}

}  // namespace cli
