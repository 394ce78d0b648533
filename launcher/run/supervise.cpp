#include "launcher/run/supervise.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "base/fd.hpp"
#include "base/system_error.hpp"
#include "launcher/run/trusted_executable.hpp"
#include "launcher/sandbox/refusal.hpp"

namespace holdfast::launcher {

using base::SystemError;
using base::UniqueFd;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// Our end never blocks: bwrap (and the sandbox) may keep the write end
// open for the whole run, and a blocking read would stall the poll loop
// (no signal forwarding, no timeout) until the command ends.
base::Pipe make_bwrap_pipe() {
  base::Pipe pipe = base::make_pipe("bwrap");
  if (::fcntl(pipe.read_end.get(), F_SETFL, O_NONBLOCK) != 0) {
    throw SystemError("cannot make non-blocking a pipe for", "bwrap", errno);
  }
  return pipe;
}

// Blocks the forwarded signals, SIGCHLD and SIGPIPE for the life of the
// launch, so they arrive through a signalfd instead of interrupting us (a
// relay writing into a pipe the command closed gets EPIPE, not death);
// restores the old mask on destruction.
class BlockedSignals {
 public:
  BlockedSignals() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : kForwardedSignals) sigaddset(&set, s);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGPIPE);
    ::sigprocmask(SIG_BLOCK, &set, &previous_);
    fd_.reset(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
    if (!fd_.valid()) throw SystemError("cannot create a signalfd for", "signal forwarding", errno);
  }
  ~BlockedSignals() {
    // A SIGPIPE of a relay's last write must not reach us once unblocked.
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    const timespec now{0, 0};
    while (::sigtimedwait(&pipe_signal, nullptr, &now) == SIGPIPE) {
    }
    ::sigprocmask(SIG_SETMASK, &previous_, nullptr);
  }
  BlockedSignals(const BlockedSignals&) = delete;
  BlockedSignals& operator=(const BlockedSignals&) = delete;
  int fd() const { return fd_.get(); }
  const sigset_t& previous() const { return previous_; }

 private:
  sigset_t previous_{};
  UniqueFd fd_;
};

// What the child needs between clone and exec, prepared by the parent so
// the child allocates nothing.
struct ExecRequest {
  int bwrap_fd;
  const std::vector<char*>* argv;
  const std::vector<char*>* envp;
  const std::vector<int>* keep;
  const std::vector<ResourceLimit>* limits;
  const std::vector<int>* cgroup_join;
  sigset_t mask;
  pid_t parent;
  int stdin_fd;  // -1: ours
  int stdout_fd;
  int stderr_fd;
};

// Says why the child cannot go on and returns the refusal status. Only
// write(2): safe between clone and exec.
int child_failure(const char* message, std::size_t length) {
  if (::write(2, message, length) < 0) {
    // nothing more can be said
  }
  return kExitRefused;
}

// In the child: make exactly `keep` inheritable, restore the signal mask,
// tie bwrap's life to ours, exec. Only async-signal-safe calls, and no
// writes to memory (the child shares the parent's). Returns only on error,
// as the child's exit status.
int exec_bwrap(void* raw) {
  const auto& request = *static_cast<const ExecRequest*>(raw);
  ::sigprocmask(SIG_SETMASK, &request.mask, nullptr);
  // If holdfast dies, bwrap dies, and --die-with-parent takes the sandbox.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != request.parent) return kExitRefused;
  // dup2 leaves the copy without FD_CLOEXEC: bwrap and the command inherit it.
  if (request.stdin_fd >= 0 && ::dup2(request.stdin_fd, 0) < 0) return kExitRefused;
  if (request.stdout_fd >= 0 && ::dup2(request.stdout_fd, 1) < 0) return kExitRefused;
  if (request.stderr_fd >= 0 && ::dup2(request.stderr_fd, 2) < 0) return kExitRefused;
  ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
  for (int fd : *request.keep) {
    const int flags = ::fcntl(fd, F_GETFD);
    if (flags < 0 || ::fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) != 0) return kExitRefused;
  }
  // Into the launch's cgroup before anything of the sandbox exists: writing
  // "0" moves the writer (and bwrap's children are born inside).
  for (int fd : *request.cgroup_join) {
    if (::write(fd, "0", 1) != 1) {
      static constexpr char kMessage[] = "holdfast: cannot join the launch's cgroup\n";
      return child_failure(kMessage, sizeof kMessage - 1);
    }
  }
  for (const ResourceLimit& limit : *request.limits) {
    const rlimit value{limit.value, limit.value};
    if (::setrlimit(limit.resource, &value) != 0) {
      static constexpr char kMessage[] = "holdfast: cannot set the policy's resource limits\n";
      return child_failure(kMessage, sizeof kMessage - 1);
    }
  }
  execute_descriptor(request.bwrap_fd, request.argv->data(), request.envp->data());
  static constexpr char kMessage[] = "holdfast: cannot execute bwrap\n";
  return child_failure(kMessage, sizeof kMessage - 1);
}

// Starts bwrap the way posix_spawn starts a program: clone(CLONE_VM |
// CLONE_VFORK) on a stack of its own. The child shares our memory instead
// of copying the page tables as fork() would, which is measurable on every
// launch (bench/compare-launch.sh); we are suspended until it has exec'ed or
// failed. posix_spawn itself cannot be used: it has no PR_SET_PDEATHSIG.
pid_t spawn_bwrap(ExecRequest& request) {
  constexpr std::size_t kStackSize = 64 * 1024;
  // Not zeroed (make_unique would touch all 16 pages): the child uses a few.
  const auto stack = std::make_unique_for_overwrite<std::byte[]>(kStackSize);
  void* stack_top = stack.get() + kStackSize;  // the stack grows down; new[] aligns to 16
  return ::clone(exec_bwrap, stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD, &request);
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

// The sandbox init's pid from what --info-fd has delivered so far. bwrap
// writes `{"child-pid": N` in one write() of a few bytes, which a pipe
// delivers whole (writes under PIPE_BUF are atomic), so the number is
// complete as soon as it is there: no need to wait for the whole object.
long child_pid_from_info(const std::string& text) {
  constexpr std::string_view key = "\"child-pid\"";
  std::size_t at = text.find(key);
  if (at == std::string::npos) return 0;
  at += key.size();
  while (at < text.size() && (text[at] == ' ' || text[at] == ':' || text[at] == '\n')) ++at;
  long pid = 0;
  for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at)
    pid = pid * 10 + (text[at] - '0');
  return pid;
}

// The confined command: the child of the sandbox's init.
pid_t command_pid(long init_pid) {
  std::ifstream children("/proc/" + std::to_string(init_pid) + "/task/" + std::to_string(init_pid) +
                         "/children");
  long pid = 0;
  children >> pid;
  return static_cast<pid_t>(pid);
}

// One relay's copying: a buffer between one read and one write, each made
// only when poll() says it will not block (a regular file always says so).
class RelayPump {
 public:
  explicit RelayPump(Relay& relay) : relay_(relay) {}

  // What to wait for now; fd -1 once done.
  pollfd wanted() const {
    if (done_) return {-1, 0, 0};
    if (pending_.empty()) return {from(), POLLIN, 0};
    return {to(), POLLOUT, 0};
  }

  // After poll() reported `revents` for wanted().
  void step(short revents, std::vector<std::string>& errors) {
    if (done_ || revents == 0) return;
    if (pending_.empty()) {
      fill(errors);
      return;
    }
    const ssize_t n = ::write(to(), pending_.data() + written_, pending_.size() - written_);
    if (n > 0) {
      written_ += static_cast<std::size_t>(n);
      if (written_ == pending_.size()) {
        pending_.clear();
        written_ = 0;
      }
    } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
      write_failed(errors);
    }
  }

  // Once bwrap has exited (and so every process of the sandbox): what is
  // left in an output pipe goes to the caller's file; an input pipe closes.
  void finish(std::vector<std::string>& errors) {
    if (relay_.into_command) {
      relay_.ours.reset();
      done_ = true;
      return;
    }
    while (!done_) {
      if (pending_.empty()) {
        if (!fill(errors)) break;  // nothing more now: every writer is gone
        continue;
      }
      try {
        base::write_all(to(), std::string_view(pending_).substr(written_), "the relayed output");
      } catch (const SystemError& e) {
        errors.push_back(e.what());
        break;
      }
      pending_.clear();
      written_ = 0;
    }
  }

 private:
  int from() const { return relay_.into_command ? relay_.caller_fd : relay_.ours.get(); }
  int to() const { return relay_.into_command ? relay_.ours.get() : relay_.caller_fd; }

  // One read into the buffer; false when nothing came.
  bool fill(std::vector<std::string>& errors) {
    char buffer[65536];
    const ssize_t n = ::read(from(), buffer, sizeof buffer);
    if (n > 0) {
      if (!discarding_) pending_.assign(buffer, static_cast<std::size_t>(n));
      return true;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return false;
    if (n < 0) {
      errors.push_back(std::string("cannot read the ") +
                       (relay_.into_command ? "caller's input" : "command's output") + ": " +
                       std::strerror(errno));
    }
    // End of the input (the command then sees end of file), or every
    // writer of the output pipe is gone.
    if (relay_.into_command) relay_.ours.reset();
    done_ = true;
    return false;
  }

  void write_failed(std::vector<std::string>& errors) {
    pending_.clear();
    written_ = 0;
    if (relay_.into_command) {
      // EPIPE: the command closed its input; nothing more to give it.
      if (errno != EPIPE) {
        errors.push_back(std::string("cannot give the command its input: ") + std::strerror(errno));
      }
      relay_.ours.reset();
      done_ = true;
      return;
    }
    // The caller's file cannot take more: keep emptying the pipe, so the
    // command is not blocked, and say so afterwards.
    errors.push_back(std::string("cannot write the command's output: ") + std::strerror(errno));
    discarding_ = true;
  }

  Relay& relay_;
  std::string pending_;
  std::size_t written_ = 0;
  bool done_ = false;
  bool discarding_ = false;
};

}  // namespace

SuperviseOutcome supervise(SuperviseRequest request) {
  SuperviseOutcome outcome;
  BlockedSignals signals;
  base::Pipe info = make_bwrap_pipe();
  base::Pipe status = make_bwrap_pipe();

  std::vector<std::string> args = {request.bwrap_path, "--info-fd",
                                   std::to_string(info.write_end.get()), "--json-status-fd",
                                   std::to_string(status.write_end.get())};
  args.insert(args.end(), request.bwrap_args.begin(), request.bwrap_args.end());
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> environment = request.environment;
  std::vector<char*> envp;
  for (auto& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  if (request.bwrap_fd < 0) {
    throw SystemError("cannot start", request.bwrap_path, "no trusted bubblewrap was opened");
  }
  std::vector<int> keep = request.inherited_fds;
  keep.push_back(info.write_end.get());
  keep.push_back(status.write_end.get());
  if (request.bwrap_is_script) keep.push_back(request.bwrap_fd);
  // A caller whose own hard limit is lower keeps it: raising a hard limit
  // needs privilege, and the lower bound is the stricter one anyway.
  std::vector<ResourceLimit> limits = request.limits;
  for (ResourceLimit& limit : limits) {
    rlimit current{};
    if (::getrlimit(limit.resource, &current) == 0 && current.rlim_max != RLIM_INFINITY) {
      limit.value = std::min<std::uint64_t>(limit.value, current.rlim_max);
    }
  }

  const auto spawned_at = Clock::now();
  ExecRequest exec_request{request.bwrap_fd,
                           &argv,
                           &envp,
                           &keep,
                           &limits,
                           &request.cgroup_join_fds,
                           signals.previous(),
                           ::getpid(),
                           request.stdin_fd,
                           request.stdout_fd,
                           request.stderr_fd};
  const pid_t bwrap = spawn_bwrap(exec_request);
  if (bwrap < 0) throw SystemError("cannot start a process for", request.bwrap_path, errno);
  // Only bwrap holds the write ends now: EOF on them means bwrap is done.
  info.write_end.reset();
  status.write_end.reset();
  std::vector<RelayPump> relays;
  for (Relay& relay : request.relays) {
    relay.theirs.reset();  // the command's end of each relay pipe is the command's alone
    relays.emplace_back(relay);
  }
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, bwrap, 0)));
  if (!pidfd.valid()) {
    ::kill(bwrap, SIGKILL);
    ::waitpid(bwrap, nullptr, 0);
    throw SystemError("cannot open a pidfd for", request.bwrap_path, errno);
  }
  // bubblewrap builds the sandbox from here on, on another CPU where there
  // is one: work the gate needs done first overlaps it.
  if (request.gate && request.gate->meanwhile) request.gate->meanwhile();

  std::optional<Clock::time_point> deadline;
  if (request.timeout) deadline = spawned_at + *request.timeout;
  std::optional<Clock::time_point> kill_at;
  std::string info_text;
  bool info_open = true;
  bool gate_waiting = request.gate.has_value();

  // The sandbox's pid, from what the info pipe holds now.
  const auto read_info = [&] {
    if (!info_open || outcome.sandbox_init_pid > 0) return;
    bool closed = false;
    info_text += read_available(info.read_end.get(), closed);
    if (closed) info_open = false;
    outcome.sandbox_init_pid = child_pid_from_info(info_text);
    if (outcome.sandbox_init_pid > 0) {
      outcome.started_after =
          std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - spawned_at);
    }
  };
  const auto forward = [&](int signal) {
    read_info();  // a signal that arrives with the sandbox's pid must reach the command
    outcome.forwarded_signals.push_back(signal);
    const pid_t command = outcome.sandbox_init_pid > 0 ? command_pid(outcome.sandbox_init_pid) : 0;
    // Before the sandbox is up there is no command yet: stop bwrap itself.
    ::kill(command > 0 ? command : bwrap, signal);
  };

  // Wakes only for what needs an answer: a signal to forward, bwrap's exit,
  // a deadline, the info pipe until it has named the sandbox's pid, and the
  // start gate once.
  // bwrap writes its info and status objects a few bytes per write() while
  // it builds the sandbox; waking for each would take the CPU from bwrap
  // about a dozen times per launch. The status pipe is read once bwrap has
  // exited: everything it says was written before it exited.
  bool exited = false;
  while (!exited) {
    int timeout_ms = -1;
    const auto now = Clock::now();
    for (const auto& when : {deadline, kill_at}) {
      if (!when) continue;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*when - now).count();
      const int ms = static_cast<int>(std::max<long>(0, left));
      timeout_ms = timeout_ms < 0 ? ms : std::min(timeout_ms, ms);
    }
    const bool want_info = info_open && outcome.sandbox_init_pid == 0;
    const bool want_gate = gate_waiting && outcome.sandbox_init_pid > 0;
    std::vector<pollfd> fds = {{signals.fd(), POLLIN, 0},
                               {pidfd.get(), POLLIN, 0},
                               {want_info ? info.read_end.get() : -1, POLLIN, 0},
                               {want_gate ? request.gate->ready_fd : -1, POLLOUT, 0}};
    for (const RelayPump& relay : relays) fds.push_back(relay.wanted());
    const int ready = ::poll(fds.data(), fds.size(), timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) throw SystemError("cannot poll while supervising", request.bwrap_path, errno);
    for (std::size_t i = 0; i < relays.size(); ++i) {
      relays[i].step(fds[4 + i].revents, outcome.relay_errors);
    }

    if ((fds[2].revents & (POLLIN | POLLHUP)) != 0) read_info();
    if ((fds[3].revents & POLLOUT) != 0) {
      gate_waiting = false;
      if (!request.gate->open(outcome.sandbox_init_pid)) {
        outcome.gate_refused = true;
        // The sandbox's init is still building (bubblewrap ties it to its
        // parent only later): both go.
        ::kill(static_cast<pid_t>(outcome.sandbox_init_pid), SIGKILL);
        ::kill(bwrap, SIGKILL);
      }
    } else if ((fds[3].revents & (POLLERR | POLLHUP)) != 0) {
      gate_waiting = false;  // bwrap is gone before reaching the gate
    }
    if ((fds[0].revents & POLLIN) != 0) {
      signalfd_siginfo info_record{};
      while (::read(signals.fd(), &info_record, sizeof info_record) == sizeof info_record) {
        const auto signal = static_cast<int>(info_record.ssi_signo);
        if (signal != SIGCHLD && signal != SIGPIPE) forward(signal);
      }
    }
    if ((fds[1].revents & POLLIN) != 0) {
      int wait_status = 0;
      if (::waitpid(bwrap, &wait_status, 0) == bwrap) {
        exited = true;
        outcome.bwrap_wait_status = wait_status;
        outcome.finished_after =
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - spawned_at);
        break;
      }
    }
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
  for (RelayPump& relay : relays) relay.finish(outcome.relay_errors);
  read_info();
  bool status_closed = false;
  const std::string status_text = read_available(status.read_end.get(), status_closed);
  outcome.command_status = exit_code_from_status(status_text);
  return outcome;
}

std::vector<ResourceLimit> resource_limits(const sandbox::Limits& limits) {
  std::vector<ResourceLimit> out;
  if (!limits.core_dumps) out.push_back({RLIMIT_CORE, 0});
  if (limits.cpu_seconds) out.push_back({RLIMIT_CPU, *limits.cpu_seconds});
  return out;
}

std::vector<std::string> environment_entries(
    const std::vector<std::pair<std::string, std::string>>& variables) {
  std::vector<std::string> out;
  out.reserve(variables.size());
  for (const auto& [name, value] : variables) out.push_back(name + "=" + value);
  return out;
}

int exit_status_of(const SuperviseOutcome& outcome) {
  if (outcome.timed_out) return kExitTimeout;
  if (outcome.command_status) return *outcome.command_status;
  return kExitRefused;
}

}  // namespace holdfast::launcher
