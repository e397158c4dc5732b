#include "study/error.hpp"

namespace hs {

void fail(const std::string& message) { throw Error(message); }

}  // namespace hs
