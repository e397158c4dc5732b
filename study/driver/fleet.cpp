#include "driver/fleet.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "platform/env.hpp"
#include "platform/error.hpp"
#include "driver/results.hpp"

extern char** environ;

namespace hs {

bool names_several_devices(const std::string& spec) {
  return spec == "all" || spec.find(',') != std::string::npos;
}

std::vector<std::string> device_list(const std::string& spec) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const auto comma = std::min(spec.find(',', start), spec.size());
    const auto item = spec.substr(start, comma - start);
    if (!item.empty()) {
      if (std::find(items.begin(), items.end(), item) != items.end())
        throw UsageError("--device " + spec + ": " + item + " named twice (each GPU runs the study once)");
      items.push_back(item);
    }
    start = comma + 1;
  }
  if (items.empty()) throw UsageError("--device " + spec + ": name GPUs by index or UUID, or all");
  return items;
}

std::vector<std::string> without_options(const std::vector<std::string>& argv,
                                         std::initializer_list<std::string_view> options) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const auto& a = argv[i];
    const auto named = [&](std::string_view o) { return a == o; };
    const auto joined = [&](std::string_view o) { return a.starts_with(o) && a.size() > o.size() && a[o.size()] == '='; };
    if (i > 0 && std::any_of(options.begin(), options.end(), named)) {
      ++i;  // and its value
      continue;
    }
    if (i == 0 || std::none_of(options.begin(), options.end(), joined)) out.push_back(a);
  }
  return out;
}

std::vector<std::string> member_argv(const std::vector<std::string>& argv, const std::string& device,
                                     const std::string& run_id) {
  std::vector<std::string> out = without_options(argv, {"--device", "--run-id", "--result-path-fd"});
  for (const auto& a : {std::string("--device"), device, std::string("--run-id"), run_id,
                        std::string("--result-path-fd"), std::to_string(kMemberResultFd)})
    out.push_back(a);
  return out;
}

std::string new_run_id() {
  std::array<char, 256> host{};
  if (::gethostname(host.data(), host.size() - 1) != 0) host[0] = '\0';
  return utc_now(true) + "-" + slug(host.data()) + "-" + std::to_string(::getpid());
}

void check_run_id(const std::string& id) {
  const auto allowed = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'; };
  if (id.empty() || id.size() > 100 || !std::isalnum(static_cast<unsigned char>(id[0])) ||
      !std::all_of(id.begin(), id.end(), allowed))
    throw UsageError("--run-id " + id + ": name it with 1 to 100 letters, digits, '.', '_' or '-', "
                     "starting with a letter or digit");
}

namespace {

// Signals caught while members run, handed to the poll loop through a pipe
// (a handler may only write).
int g_signal_pipe = -1;

extern "C" void pass_signal_on(int signal) {
  const unsigned char s = static_cast<unsigned char>(signal);
  if (g_signal_pipe >= 0) (void)!::write(g_signal_pipe, &s, 1);
}

constexpr std::array kPassedSignals = {SIGINT, SIGTERM, SIGHUP};

// Catches kPassedSignals for as long as it lives, then puts the earlier
// handlers back.
class SignalRelay {
 public:
  SignalRelay() {
    if (::pipe2(fds_.data(), O_CLOEXEC | O_NONBLOCK) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
    g_signal_pipe = fds_[1];
    struct sigaction sa{};
    sa.sa_handler = pass_signal_on;
    sigemptyset(&sa.sa_mask);
    for (std::size_t i = 0; i < kPassedSignals.size(); ++i) ::sigaction(kPassedSignals[i], &sa, &before_[i]);
  }
  ~SignalRelay() {
    for (std::size_t i = 0; i < kPassedSignals.size(); ++i) ::sigaction(kPassedSignals[i], &before_[i], nullptr);
    g_signal_pipe = -1;
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  SignalRelay(const SignalRelay&) = delete;
  SignalRelay& operator=(const SignalRelay&) = delete;
  int fd() const { return fds_[0]; }

 private:
  std::array<int, 2> fds_{};
  std::array<struct sigaction, kPassedSignals.size()> before_{};
};

struct Stream {
  int fd = -1;
  std::string pending;  // bytes not yet relayed
};

struct Running {
  const Member* member;
  pid_t pid = -1;
  Stream out, err;
  int result_path = -1;  // the read end of the member's kMemberResultFd
  MemberExit exit;
};

std::string prefixed_lines(const std::string& label, const std::string& text) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = std::min(text.find('\n', start), text.size());
    out += "[" + label + "] " + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

// Relays the complete lines of `pending` (all of it at the end of the stream).
void relay_lines(const std::string& label, std::string& pending, bool at_end, std::ostream& to) {
  const auto newline = pending.rfind('\n');
  const std::size_t used = at_end ? pending.size() : newline == std::string::npos ? 0 : newline + 1;
  if (used == 0) return;
  to << prefixed_lines(label, pending.substr(0, used)) << std::flush;
  pending.erase(0, used);
}

// The path an ended member wrote to its kMemberResultFd, up to its NUL; ""
// for none (or one cut short). Read once the member has exited: a path is
// far less than a pipe holds, so the member never waits for this reader.
std::string result_path_of(int fd) {
  std::string written;
  std::array<char, 4096> buf{};
  for (ssize_t n; (n = ::read(fd, buf.data(), buf.size())) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    written.append(buf.data(), std::size_t(n));
  }
  const auto nul = written.find('\0');
  return nul == std::string::npos ? "" : written.substr(0, nul);
}

// Three pipes, closed on exec: the member's standard output and error, and
// its result path, whose reader never waits (it reads once the member has exited).
std::array<std::array<int, 2>, 3> member_pipes() {
  std::array<std::array<int, 2>, 3> pipes{};
  for (std::size_t i = 0; i < pipes.size(); ++i)
    if (::pipe2(pipes[i].data(), O_CLOEXEC) != 0) {
      const int error = errno;
      for (std::size_t k = 0; k < i; ++k) ::close(pipes[k][0]), ::close(pipes[k][1]);
      throw Error(std::string("pipe: ") + std::strerror(error));
    }
  ::fcntl(pipes[2][0], F_SETFL, O_NONBLOCK);
  return pipes;
}

void start(Running& r, const std::string& program) {
  const auto [out, err, result_path] = member_pipes();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  posix_spawn_file_actions_adddup2(&actions, result_path[1], kMemberResultFd);
  std::vector<char*> args;
  for (const auto& a : r.member->argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // Each child in a process group of its own: a terminal's Ctrl-C (or a
  // signal to our group) reaches it once, passed on by the parent, so its
  // first signal stops it and saves what it measured; a second, straight
  // from the terminal, would have ended it with nothing saved.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  const int failed = ::posix_spawn(&r.pid, program.c_str(), &actions, &attributes, args.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  ::close(err[1]);
  ::close(result_path[1]);
  r.out.fd = out[0];
  r.err.fd = err[0];
  r.result_path = result_path[0];
  if (failed) {
    ::close(r.result_path);
    r.result_path = -1;
    r.pid = -1;
    r.exit.status = 127;
    r.exit.how = "could not start " + program + ": " + std::strerror(failed);
  }
}

void close_stream(Stream& s) {
  if (s.fd >= 0) ::close(s.fd);
  s.fd = -1;
}

// Reads what `s` has; at its end relays what is left and closes it.
void drain(Stream& s, const std::string& label, bool live, std::ostream& to) {
  std::array<char, 65536> buf{};
  const ssize_t n = ::read(s.fd, buf.data(), buf.size());
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n > 0) {
    s.pending.append(buf.data(), std::size_t(n));
    if (live) relay_lines(label, s.pending, false, to);
    return;
  }
  close_stream(s);
}

// Waits for the member to end, then takes the result path it wrote.
void reap(Running& r) {
  if (r.pid < 0) return;
  int status = 0;
  while (::waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.pid = -1;
  if (WIFEXITED(status)) {
    r.exit.status = WEXITSTATUS(status);
    r.exit.how = "exited " + std::to_string(r.exit.status);
  } else if (WIFSIGNALED(status)) {
    r.exit.status = 128 + WTERMSIG(status);
    r.exit.how = "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  }
  r.exit.result_file = result_path_of(r.result_path);
  ::close(r.result_path);
  r.result_path = -1;
}

void pass_on(int signal_fd, std::vector<Running>& running) {
  unsigned char s = 0;
  while (::read(signal_fd, &s, 1) == 1)
    for (auto& r : running)
      if (r.pid > 0) ::kill(r.pid, s);
}

// Relays the members' output until every one has closed both streams,
// passing caught signals on to them.
void watch(std::vector<Running>& running, const SignalRelay& relay, std::ostream& out, std::ostream& err) {
  for (;;) {
    std::vector<pollfd> fds = {{relay.fd(), POLLIN, 0}};
    std::vector<std::pair<Running*, Stream*>> owners = {{nullptr, nullptr}};
    for (auto& r : running)
      for (Stream* s : {&r.err, &r.out})
        if (s->fd >= 0) {
          fds.push_back({s->fd, POLLIN, 0});
          owners.emplace_back(&r, s);
        }
    if (fds.size() == 1) break;
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("poll: ") + std::strerror(errno));
    }
    if (fds[0].revents) pass_on(relay.fd(), running);
    for (std::size_t i = 1; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      auto [r, s] = owners[i];
      const bool live = s == &r->err;
      drain(*s, r->member->label, live, live ? err : out);
      if (s->fd < 0 && live) relay_lines(r->member->label, s->pending, true, err);
      if (r->out.fd < 0 && r->err.fd < 0) {  // ended: its output as one block
        relay_lines(r->member->label, r->out.pending, true, out);
        reap(*r);
      }
    }
  }
}

}  // namespace

std::vector<MemberExit> run_members(const std::vector<Member>& members, const std::string& program, std::ostream& out,
                                    std::ostream& err) {
  SignalRelay relay;
  std::vector<Running> running(members.size());
  try {
    for (std::size_t i = 0; i < members.size(); ++i) {
      running[i].member = &members[i];
      running[i].exit.label = members[i].label;
      start(running[i], program);
    }
    watch(running, relay, out, err);
  } catch (...) {  // an error of the parent's own: no member is left running on its GPU unwatched
    for (auto& r : running)
      if (r.pid > 0) ::kill(r.pid, SIGTERM);  // each stops and saves what it measured
    try {
      watch(running, relay, out, err);  // their last lines (the files they saved) relayed
    } catch (...) {
      for (auto& r : running)
        for (Stream* s : {&r.out, &r.err}) close_stream(*s);
    }
    for (auto& r : running) reap(r);
    throw;
  }
  std::vector<MemberExit> exits;
  for (auto& r : running) {
    reap(r);
    exits.push_back(r.exit);
  }
  return exits;
}

}  // namespace hs
