// histostudy count-bench FILE: how close `histostudy count` comes to the
// speed of its input. On a page-cached regular file it times count_stream
// (reading overlapping counting) against reading the same file and
// discarding it (one thread, as dd does) and against count's own parallel
// reads without the count, in rotating order with an A/A repeat of the
// read, after checking the count bin for bin against the reference; medians
// with spread and every raw sample go to a JSON result file.
//
//   histostudy count-bench FILE [--impl openmp_fast] [--rounds 9] [-o runs/count-bench]
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hs {

struct CountBenchRequest {
  std::string path;
  std::string impl = "openmp_fast";
  int threads = 0;  // 0: OpenMP's default
  int rounds = 9;
  std::string out_dir = "runs/count-bench";
  bool no_save = false;
};

// Measures, saves (unless no_save) and returns the result document, with
// "result_file" set to where it was saved. Throws UsageError for a file that
// is not regular or an implementation that is not a CPU one, Error for a
// count that disagrees with the reference.
nlohmann::json count_bench(const CountBenchRequest& request, const std::vector<std::string>& argv);

// The lines `histostudy count-bench` prints for a result document.
std::string describe_count_bench(const nlohmann::json& doc);

}  // namespace hs
