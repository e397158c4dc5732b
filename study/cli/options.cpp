// The helpers every subcommand shares (cli.hpp): lists split at commas,
// standard output checked, errors said, and the validators of option values.
#include "cli/cli.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "driver/sizes.hpp"
#include "platform/error.hpp"
#include "platform/printable.hpp"

namespace cli {

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

std::vector<std::string> unique(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items)
    if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
  return out;
}

bool names_a_file(const std::string& item) {
  std::error_code ec;
  return std::filesystem::is_regular_file(item, ec);
}

void say_error(const std::string& what) { std::cerr << "histostudy: error: " << hs::printable(what) << "\n"; }

void check_stdout(const std::string& saved) {
  std::cout.flush();
  if (std::cout) return;
  const int error = errno;
  const std::string what = std::string("standard output: write error (") + std::strerror(error) + ")";
  if (error == EPIPE && saved.empty()) throw hs::ClosedPipe(what);
  throw hs::Error(what + (saved.empty() ? "" : "; " + saved));
}

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

const char* const kDeviceHelp =
    "the GPU: its index (0, 1, ...) or UUID (GPU-..., as nvidia-smi -L prints it; a unique start will do); "
    "default: the first";

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

const CLI::Validator kNotEmpty(
    [](std::string& text) -> std::string { return text.empty() ? "an empty value names nothing" : ""; }, "TEXT");

namespace {

// Items between commas, none empty (split_commas would drop it, and -e ''
// ran the default study); a user who typed one meant a name.
std::string empty_item_in(const std::string& text) {
  if (text.empty()) return "an empty value names nothing";
  const bool empty_item = text.front() == ',' || text.back() == ',' || text.find(",,") != std::string::npos;
  return empty_item ? "an empty item in '" + text + "' names nothing" : "";
}

}  // namespace

const CLI::Validator kList([](std::string& text) { return empty_item_in(text); }, "");
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

}  // namespace cli
