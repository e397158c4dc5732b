// Result files: one JSON document per run, in the versioned format of
// data/schema/result.schema.json, written atomically and never over an
// earlier file.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/harness.hpp"

namespace hs {

inline constexpr const char* kResultFormat = "histostudy-result";
inline constexpr int kResultSchemaVersion = 1;

// The parts of one run's result file, as the run collects them.
struct RunRecord {
  std::string started, finished;
  nlohmann::json provenance, environment, timing;
  std::vector<Row> rows;
  nlohmann::json hardware;   // the perf experiment's shared-memory rates; null otherwise
  std::string incomplete;    // the error that stopped the run after measuring; "" when it finished
  int stopped_by_signal = 0;  // the termination signal that stopped it (Interrupted); 0: none did
  std::string run_id;        // the run of several GPUs (or Slurm tasks) this file is one part of; "" alone
};

// The result document of data/schema/result.schema.json.
nlohmann::json result_document(const RunRecord& record);

// `doc` with every string (and key) that is not UTF-8 escaped losslessly
// (\xNN for each stray byte, backslashes doubled) and, if any was, an
// "escaped_strings" entry naming where: JSON holds only UTF-8.
nlohmann::json lossless_utf8(const nlohmann::json& doc);

// Writes lossless_utf8(doc) as DIR/STEM.json (STEM-002.json, ... if taken)
// through a temporary file and a hard link (or an exclusive create where
// the filesystem has none), so a reader never sees a partial file and no
// earlier run is replaced. Returns the path written; throws Error.
std::filesystem::path write_result(const nlohmann::json& doc, const std::filesystem::path& dir,
                                   const std::string& stem);

// A file-name-safe form of a label ("NVIDIA H200" -> "nvidia-h200").
std::string slug(const std::string& label);

}  // namespace hs
