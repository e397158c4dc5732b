// One error type for every library layer: it carries a one-line message for
// the user. Library code throws it; only the command line (study/cli/) catches it,
// prints it and exits non-zero.
#pragma once
#include <new>
#include <stdexcept>
#include <string>

namespace hs {

// An exception's one line for the user: its own message, or for a failed
// allocation (whose message is "std::bad_alloc") what ran out.
inline std::string message_of(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e))
    return "out of memory: this machine, or its limits (ulimit -v), cannot hold what was asked; try a smaller size";
  return e.what();
}

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad command-line input (unknown name, malformed size): exit status 2.
class UsageError : public Error {
 public:
  using Error::Error;
};

// "No GPU here" and similar: the CLI reports it; tests turn it into a skip.
class Unavailable : public Error {
 public:
  using Error::Error;
};

// The reader of standard output (or of an -o FIFO) closed it, as `| head`
// does. The CLI exits 141 without a word, as a process that SIGPIPE ended
// would in the shell; a command that saved a file names it instead (Error).
class ClosedPipe : public Error {
 public:
  using Error::Error;
};

// A termination signal asked a run to stop measuring (MeasuringStopsOnSignal).
class Interrupted : public Error {
 public:
  Interrupted(const std::string& what, int signal) : Error(what), signal_(signal) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

}  // namespace hs
