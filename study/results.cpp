#include "study/results.hpp"

#include <cctype>
#include <cstdio>

#include "study/files.hpp"

namespace hs {
namespace {

// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong
// forms, no surrogates, nothing past U+10FFFF); 0 if there is none.
std::size_t utf8_sequence(const std::string& s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  const unsigned c = byte(i);
  const auto continuation = [&](std::size_t k) { return (byte(k) & 0xC0u) == 0x80u; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return continuation(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return byte(i + 1) >= lo && byte(i + 1) <= hi && continuation(i + 2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return byte(i + 1) >= lo && byte(i + 1) <= hi && continuation(i + 2) && continuation(i + 3) ? 4 : 0;
  }
  return 0;
}

bool is_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence(s, i);
    if (!n) return false;
    i += n;
  }
  return true;
}

// Lossless: each byte outside a well-formed sequence as \xNN, each
// backslash doubled, so the original bytes can be recovered exactly.
std::string escaped(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence(s, i);
    if (n == 1 && s[i] == '\\') {
      out += "\\\\";
    } else if (n) {
      out.append(s, i, n);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned char>(s[i]));
      out += hex;
      i += 1;
      continue;
    }
    i += n;
  }
  return out;
}

nlohmann::json utf8_only(const nlohmann::json& value, const std::string& where, std::vector<std::string>& changed) {
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    if (is_utf8(s)) return value;
    changed.push_back(where);
    return escaped(s);
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
        changed.push_back(where + "/" + escaped(name) + " (key)");
        name = escaped(name);
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
