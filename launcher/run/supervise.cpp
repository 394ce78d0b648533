#include "launcher/run/supervise.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "settings/errors.hpp"
#include "settings/fd.hpp"

namespace holdfast::launcher {

using settings::SystemError;
using settings::UniqueFd;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

struct Pipe {
  UniqueFd read_end;
  UniqueFd write_end;
};

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw SystemError("cannot create a pipe for", "bwrap", errno);
  // Our end never blocks: bwrap (and the sandbox) may keep the write end
  // open for the whole run, and a blocking read would stall the poll loop
  // (no signal forwarding, no timeout) until the command ends.
  if (::fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw SystemError("cannot make non-blocking a pipe for", "bwrap", errno);
  }
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

// Blocks the forwarded signals and SIGCHLD for the life of the launch, so
// they arrive through a signalfd instead of interrupting us; restores the
// old mask on destruction.
class BlockedSignals {
 public:
  BlockedSignals() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : kForwardedSignals) sigaddset(&set, s);
    sigaddset(&set, SIGCHLD);
    ::sigprocmask(SIG_BLOCK, &set, &previous_);
    fd_.reset(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
    if (!fd_.valid()) throw SystemError("cannot create a signalfd for", "signal forwarding", errno);
  }
  ~BlockedSignals() { ::sigprocmask(SIG_SETMASK, &previous_, nullptr); }
  BlockedSignals(const BlockedSignals&) = delete;
  BlockedSignals& operator=(const BlockedSignals&) = delete;
  int fd() const { return fd_.get(); }
  const sigset_t& previous() const { return previous_; }

 private:
  sigset_t previous_{};
  UniqueFd fd_;
};

// In the forked child: make exactly `keep` inheritable, restore the signal
// mask, tie bwrap's life to ours, exec. Only async-signal-safe calls.
[[noreturn]] void exec_bwrap(const std::vector<char*>& argv, const std::vector<int>& keep,
                             const sigset_t& mask, pid_t parent) {
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);
  // If holdfast dies, bwrap dies, and --die-with-parent takes the sandbox.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(kExitRefused);
  ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
  for (int fd : keep) {
    const int flags = ::fcntl(fd, F_GETFD);
    if (flags < 0 || ::fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) != 0) ::_exit(kExitRefused);
  }
  ::execv(argv[0], argv.data());
  const char message[] = "holdfast: cannot execute bwrap\n";
  if (::write(2, message, sizeof message - 1) < 0) {
    // nothing more can be said
  }
  ::_exit(kExitRefused);
}

// What the (non-blocking) pipe holds now; `closed` is set at end of file
// (or on an error other than EAGAIN, so the loop never spins on it).
std::string read_available(int fd, bool& closed) {
  std::string out;
  char buffer[4096];
  closed = false;
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      out.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    closed = n == 0 || errno != EAGAIN;
    return out;
  }
}

// bwrap writes one JSON object per line to --json-status-fd.
std::optional<int> exit_code_from_status(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  std::optional<int> code;
  while (std::getline(lines, line)) {
    const auto value = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (value.is_object() && value.contains("exit-code")) code = value["exit-code"].get<int>();
  }
  return code;
}

long child_pid_from_info(const std::string& text) {
  const auto value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_object() && value.contains("child-pid")) return value["child-pid"].get<long>();
  return 0;
}

// The confined command: the child of the sandbox's init.
pid_t command_pid(long init_pid) {
  std::ifstream children("/proc/" + std::to_string(init_pid) + "/task/" + std::to_string(init_pid) +
                         "/children");
  long pid = 0;
  children >> pid;
  return static_cast<pid_t>(pid);
}

}  // namespace

SuperviseOutcome supervise(const SuperviseRequest& request) {
  SuperviseOutcome outcome;
  BlockedSignals signals;
  Pipe info = make_pipe();
  Pipe status = make_pipe();

  std::vector<std::string> args = {request.bwrap_path, "--info-fd",
                                   std::to_string(info.write_end.get()), "--json-status-fd",
                                   std::to_string(status.write_end.get())};
  args.insert(args.end(), request.bwrap_args.begin(), request.bwrap_args.end());
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<int> keep = request.inherited_fds;
  keep.push_back(info.write_end.get());
  keep.push_back(status.write_end.get());

  const auto spawned_at = Clock::now();
  const pid_t parent = ::getpid();
  const pid_t bwrap = ::fork();
  if (bwrap < 0) throw SystemError("cannot fork to start", request.bwrap_path, errno);
  if (bwrap == 0) exec_bwrap(argv, keep, signals.previous(), parent);
  // Only bwrap holds the write ends now: EOF on them means bwrap is done.
  info.write_end.reset();
  status.write_end.reset();
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, bwrap, 0)));
  if (!pidfd.valid()) {
    ::kill(bwrap, SIGKILL);
    ::waitpid(bwrap, nullptr, 0);
    throw SystemError("cannot open a pidfd for", request.bwrap_path, errno);
  }

  std::optional<Clock::time_point> deadline;
  if (request.timeout) deadline = spawned_at + *request.timeout;
  std::optional<Clock::time_point> kill_at;
  std::string info_text;
  std::string status_text;
  bool info_open = true;
  bool status_open = true;
  bool exited = false;

  const auto forward = [&](int signal) {
    outcome.forwarded_signals.push_back(signal);
    const pid_t command = outcome.sandbox_init_pid > 0 ? command_pid(outcome.sandbox_init_pid) : 0;
    // Before the sandbox is up there is no command yet: stop bwrap itself.
    ::kill(command > 0 ? command : bwrap, signal);
  };

  while (!exited || status_open || info_open) {
    int timeout_ms = -1;
    const auto now = Clock::now();
    for (const auto& when : {deadline, kill_at}) {
      if (!when || exited) continue;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*when - now).count();
      const int ms = static_cast<int>(std::max<long>(0, left));
      timeout_ms = timeout_ms < 0 ? ms : std::min(timeout_ms, ms);
    }
    pollfd fds[4] = {{signals.fd(), POLLIN, 0},
                     {exited ? -1 : pidfd.get(), POLLIN, 0},
                     {info_open ? info.read_end.get() : -1, POLLIN, 0},
                     {status_open ? status.read_end.get() : -1, POLLIN, 0}};
    const int ready = ::poll(fds, 4, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) throw SystemError("cannot poll while supervising", request.bwrap_path, errno);

    // The info pipe before the signals: a signal that arrives together with
    // the sandbox's pid must reach the command, not bwrap (which would take
    // the sandbox down without the command's own handling).
    if ((fds[2].revents & (POLLIN | POLLHUP)) != 0) {
      bool closed = false;
      info_text += read_available(info.read_end.get(), closed);
      if (outcome.sandbox_init_pid == 0) {
        // Parsed as soon as the object is whole: the write end may stay open.
        outcome.sandbox_init_pid = child_pid_from_info(info_text);
        if (outcome.sandbox_init_pid > 0) {
          outcome.started_after =
              std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - spawned_at);
        }
      }
      if (closed) info_open = false;
    }
    if ((fds[0].revents & POLLIN) != 0) {
      signalfd_siginfo info_record{};
      while (::read(signals.fd(), &info_record, sizeof info_record) == sizeof info_record) {
        if (info_record.ssi_signo != SIGCHLD && !exited)
          forward(static_cast<int>(info_record.ssi_signo));
      }
    }
    if ((fds[3].revents & (POLLIN | POLLHUP)) != 0) {
      bool closed = false;
      status_text += read_available(status.read_end.get(), closed);
      if (closed) status_open = false;
    }
    if ((fds[1].revents & POLLIN) != 0) {
      int wait_status = 0;
      if (::waitpid(bwrap, &wait_status, 0) == bwrap) {
        exited = true;
        outcome.bwrap_wait_status = wait_status;
        outcome.finished_after =
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - spawned_at);
      }
    }
    if (!exited) {
      const auto later = Clock::now();
      if (deadline && later >= *deadline && !outcome.timed_out) {
        outcome.timed_out = true;
        forward(SIGTERM);
        kill_at = later + request.kill_grace;
      } else if (kill_at && later >= *kill_at) {
        ::kill(bwrap, SIGKILL);  // --die-with-parent takes the sandbox with it
        kill_at.reset();
      }
    }
  }
  outcome.command_status = exit_code_from_status(status_text);
  return outcome;
}

int exit_status_of(const SuperviseOutcome& outcome) {
  if (outcome.timed_out) return kExitTimeout;
  if (outcome.command_status) return *outcome.command_status;
  return kExitRefused;
}

}  // namespace holdfast::launcher
