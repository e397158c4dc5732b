#include "study/results.hpp"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "study/error.hpp"

namespace hs {

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

std::filesystem::path write_result(const nlohmann::json& doc, const std::filesystem::path& dir,
                                   const std::string& stem) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(dir.string() + ": cannot create directory (" + ec.message() + ")");
  const auto tmp = dir / ("." + stem + "." + std::to_string(getpid()) + ".tmp");
  {
    std::ofstream out(tmp);
    out << doc.dump(1) << '\n';
    if (!out.flush()) throw Error(tmp.string() + ": cannot write (" + std::strerror(errno) + ")");
  }
  for (int n = 1; n < 1000; ++n) {
    std::string name = stem;
    if (n > 1) name.append("-").append(std::to_string(n));
    auto path = dir / name.append(".json");
    if (::link(tmp.c_str(), path.c_str()) == 0) {
      std::filesystem::remove(tmp, ec);
      return path;
    }
    if (errno != EEXIST) {
      std::string why = std::strerror(errno);
      std::filesystem::remove(tmp, ec);
      throw Error(path.string() + ": cannot write (" + why + ")");
    }
  }
  std::filesystem::remove(tmp, ec);
  throw Error(dir.string() + ": too many result files named " + stem);
}

}  // namespace hs
