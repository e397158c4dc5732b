// The `cpu` suite's part of --device all (study/driver/fleet.hpp) that needs no GPU:
// what each GPU's child runs, and the running of children side by side with
// /bin/sh in their place: their output tagged, their exits told, signals
// passed on, and none waiting for another.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <sstream>

#include "platform/error.hpp"
#include "driver/fleet.hpp"

namespace {

using Args = std::vector<std::string>;

hs::Member shell(const std::string& label, const std::string& script) { return {label, {"sh", "-c", script}}; }

struct Ran {
  std::vector<hs::MemberExit> exits;
  std::string out, err;
  double seconds;
};

Ran run_shells(const std::vector<hs::Member>& members, const std::string& program = "/bin/sh") {
  std::ostringstream out, err;
  const auto t0 = std::chrono::steady_clock::now();
  auto exits = hs::run_members(members, program, out, err);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - t0;
  return {exits, out.str(), err.str(), took.count()};
}

}  // namespace

TEST_CASE("several devices: all, or a list") {
  CHECK(hs::names_several_devices("all"));
  CHECK(hs::names_several_devices("0,2"));
  CHECK(hs::names_several_devices("1,"));
  CHECK_FALSE(hs::names_several_devices("1"));
  CHECK_FALSE(hs::names_several_devices("GPU-8a1f"));
  CHECK_FALSE(hs::names_several_devices(""));
  CHECK(hs::device_list("0,2") == Args{"0", "2"});
  CHECK(hs::device_list("GPU-8a,,3,") == Args{"GPU-8a", "3"});
  CHECK_THROWS_AS(hs::device_list(","), hs::UsageError);
  CHECK_THROWS_WITH_AS(hs::device_list("1,0,1"), "--device 1,0,1: 1 named twice (each GPU runs the study once)",
                       hs::UsageError);
}

TEST_CASE("each GPU's child: the same command with its --device, the common --run-id and its result path's pipe") {
  const Args argv = {"./histostudy", "run", "--device", "all", "-s", "64KiB", "--run-id=old", "--reps", "3",
                     "--result-path-fd", "7"};
  CHECK(hs::member_argv(argv, "1", "R") == Args{"./histostudy", "run", "-s", "64KiB", "--reps", "3", "--device", "1",
                                                "--run-id", "R", "--result-path-fd", "3"});
  CHECK(hs::member_argv({"h", "run", "--device=0,1", "--impl", "global", "--result-path-fd=9"}, "0", "R") ==
        Args{"h", "run", "--impl", "global", "--device", "0", "--run-id", "R", "--result-path-fd", "3"});
}

TEST_CASE("run ids are safe names") {
  CHECK(std::regex_match(hs::new_run_id(), std::regex(R"(\d{8}T\d{6}Z-[a-z0-9.-]+-\d+)")));
  CHECK_NOTHROW(hs::check_run_id(hs::new_run_id()));
  CHECK_NOTHROW(hs::check_run_id("slurm-1234_7.a"));
  for (const std::string& bad : Args{"", "-x", "a b", "../up", "a/b", std::string(101, 'a')})
    CHECK_THROWS_AS(hs::check_run_id(bad), hs::UsageError);
}

TEST_CASE("children run side by side, their lines tagged, each exit told") {
  // A waits for B's file: run one after the other, A would give up (exit 3).
  // A's result path, on descriptor 3, holds a newline; B prints a decoy.
  const auto flag = std::filesystem::temp_directory_path() / ("fleet-" + hs::new_run_id());
  const auto ran = run_shells({
      shell("GPU 0", "for i in $(seq 1000); do [ -e '" + flag.string() +
                         "' ] && { echo waited; printf 'runs/a\\nb.json\\0' >&3; exit 0; }; sleep 0.01; done; exit 3"),
      shell("GPU 1", "echo progress >&2; touch '" + flag.string() +
                         "'; echo 'result file: decoy.json'; printf 'no newline'; exit 5"),
      shell("GPU 2", "kill -9 $$"),
  });
  std::filesystem::remove(flag);
  REQUIRE(ran.exits.size() == 3);
  CHECK(ran.exits[0].label == "GPU 0");
  CHECK(ran.exits[0].how == "exited 0");
  CHECK(ran.exits[0].result_file == "runs/a\nb.json");
  CHECK(ran.exits[1].status == 5);
  CHECK(ran.exits[1].how == "exited 5");
  CHECK(ran.exits[1].result_file.empty());
  CHECK(ran.exits[2].status == 128 + 9);
  CHECK(ran.exits[2].how.starts_with("killed by signal 9"));
  CHECK(ran.err == "[GPU 1] progress\n");
  // Standard output as one block per child, in the order they ended.
  CHECK(ran.out.find("[GPU 0] waited\n") != std::string::npos);
  CHECK(ran.out.find("[GPU 1] no newline\n") != std::string::npos);
}

TEST_CASE("a program that cannot start is told, not thrown") {
  const auto ran = run_shells({shell("GPU 0", "exit 0")}, "/nonexistent/histostudy");
  REQUIRE(ran.exits.size() == 1);
  CHECK(ran.exits[0].status == 127);
  CHECK(ran.exits[0].how.starts_with("could not start /nonexistent/histostudy: "));
}

TEST_CASE("SIGTERM to the parent reaches every child") {
  // GPU 1 would sleep 20 s; GPU 0 sends this process SIGTERM, passed on to both.
  const auto ran = run_shells({
      shell("GPU 0", "sleep 0.3; kill -TERM $PPID"),
      shell("GPU 1", "trap 'kill $!; exit 7' TERM; sleep 20 & wait"),
  });
  REQUIRE(ran.exits.size() == 2);
  CHECK(ran.seconds < 10);
  CHECK((ran.exits[1].status == 7 || ran.exits[1].status == 128 + 15));
}
