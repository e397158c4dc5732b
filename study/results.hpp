// Result files: one JSON document per run, in the versioned format of
// data/schema/result.schema.json, written atomically and never over an
// earlier file.
#pragma once
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace hs {

inline constexpr const char* kResultFormat = "histostudy-result";
inline constexpr int kResultSchemaVersion = 1;

// Writes `doc` as DIR/STEM.json (STEM-2.json, ... if taken) through a
// temporary file and a hard link, so a reader never sees a partial file and
// no earlier run is replaced. Returns the path written; throws Error.
std::filesystem::path write_result(const nlohmann::json& doc, const std::filesystem::path& dir,
                                   const std::string& stem);

// A file-name-safe form of a label ("NVIDIA H200" -> "nvidia-h200").
std::string slug(const std::string& label);

}  // namespace hs
