#include "driver/results.hpp"

#include <cctype>

#include "platform/files.hpp"
#include "platform/printable.hpp"

namespace hs {
namespace {

nlohmann::json utf8_only(const nlohmann::json& value, const std::string& where, std::vector<std::string>& changed) {
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    if (is_utf8(s)) return value;
    changed.push_back(where);
    return utf8_escaped(s);
  }
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (std::size_t i = 0; i < value.size(); ++i) out.push_back(utf8_only(value[i], where + "/" + std::to_string(i), changed));
    return out;
  }
  if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, item] : value.items()) {
      std::string name = key;
      if (!is_utf8(name)) {
        changed.push_back(where + "/" + utf8_escaped(name) + " (key)");
        name = utf8_escaped(name);
      }
      out[name] = utf8_only(item, where + "/" + name, changed);
    }
    return out;
  }
  return value;
}

}  // namespace

std::string slug(const std::string& label) {
  std::string out;
  for (char c : label) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += char(std::tolower(static_cast<unsigned char>(c)));
    else if (c == '.')
      out += '.';
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "unknown" : out;
}

nlohmann::json lossless_utf8(const nlohmann::json& doc) {
  std::vector<std::string> changed;
  nlohmann::json out = utf8_only(doc, "", changed);
  if (!changed.empty() && out.is_object())
    out["escaped_strings"] = {{"note", "bytes that are not UTF-8 are written as \\xNN and backslashes doubled"},
                              {"where", changed}};
  return out;
}

nlohmann::json result_document(const RunRecord& record) {
  nlohmann::json doc = {{"format", kResultFormat},
                        {"schema_version", kResultSchemaVersion},
                        {"started", record.started},
                        {"finished", record.finished},
                        {"provenance", record.provenance},
                        {"environment", record.environment},
                        {"timing", record.timing},
                        {"rows", nlohmann::json::array()}};
  for (const auto& r : record.rows) doc["rows"].push_back(r.to_json());
  if (!record.hardware.is_null()) doc["hardware"] = record.hardware;
  if (!record.run_id.empty()) doc["run_id"] = record.run_id;
  if (!record.incomplete.empty()) doc["incomplete"] = {{"error", record.incomplete}};
  return doc;
}

std::filesystem::path write_result(const nlohmann::json& doc, const std::filesystem::path& dir,
                                   const std::string& stem) {
  return write_new_file(dir, stem, lossless_utf8(doc).dump(1) + "\n");
}

}  // namespace hs
