#include "base/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "base/fd.hpp"
#include "base/system_error.hpp"

extern char** environ;  // NOLINT

namespace holdfast::base {

namespace {

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// posix_spawn's file actions, destroyed on every path.
class FileActions {
 public:
  FileActions() { ::posix_spawn_file_actions_init(&actions_); }
  ~FileActions() { ::posix_spawn_file_actions_destroy(&actions_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

// Reads every descriptor of `sources` to its end into its sink.
void drain(std::vector<std::pair<int, std::string*>> sources) {
  std::vector<pollfd> fds;
  for (const auto& [fd, sink] : sources) fds.push_back({fd, POLLIN, 0});
  std::size_t open = fds.size();
  char buffer[16384];
  while (open > 0) {
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw_errno("cannot wait for", "a program's output");
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sources[i].second->append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0) {
        fds[i].fd = -1;  // poll ignores negative descriptors
        --open;
      } else if (errno != EINTR) {
        throw_errno("cannot read", "a program's output");
      }
    }
  }
}

}  // namespace

int exit_code(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return -1;
}

Child::Child(Child&& other) noexcept : pid_(std::exchange(other.pid_, -1)) {}

Child& Child::operator=(Child&& other) noexcept {
  if (this != &other) {
    kill_and_reap();
    pid_ = std::exchange(other.pid_, -1);
  }
  return *this;
}

Child::~Child() { kill_and_reap(); }

void Child::kill_and_reap() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

int Child::wait() {
  // waitpid(-1) would reap any child of ours.
  if (pid_ <= 0) throw SystemError("cannot wait for", "a process", "it was waited for already");
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) throw_errno("cannot wait for", "process " + std::to_string(pid_));
  }
  pid_ = -1;
  return status;
}

void Child::kill(int signal) const {
  if (pid_ > 0) ::kill(pid_, signal);
}

int Child::stop(std::chrono::milliseconds grace) {
  // A pidfd turns "ended within the grace period" into an event to wait for.
  const UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0)));
  kill(SIGTERM);
  bool ended = false;
  if (pidfd.valid()) {
    pollfd fd{pidfd.get(), POLLIN, 0};
    int ready = 0;
    while ((ready = ::poll(&fd, 1, static_cast<int>(grace.count()))) < 0 && errno == EINTR) {
    }
    ended = ready > 0;
  }
  if (!ended) kill(SIGKILL);
  return wait();
}

Child spawn(const SpawnRequest& request) {
  if (request.argv.empty()) throw SystemError("cannot start", "a program", "no argv given");
  FileActions actions;
  for (const FdMapping& fd : request.fds) {
    if (const int error = ::posix_spawn_file_actions_adddup2(actions.get(), fd.from, fd.to)) {
      throw SystemError("cannot start", request.argv[0], error);
    }
  }
  if (!request.cwd.empty()) {
    if (const int error =
            ::posix_spawn_file_actions_addchdir_np(actions.get(), request.cwd.c_str())) {
      throw SystemError("cannot start", request.argv[0], error);
    }
  }
  const auto args = c_strings(request.argv);
  std::vector<char*> envp;
  if (request.environment) envp = c_strings(*request.environment);
  pid_t pid = -1;
  const int error = ::posix_spawn(&pid, args[0], actions.get(), nullptr, args.data(),
                                  request.environment ? envp.data() : environ);
  if (error != 0) throw SystemError("cannot start", request.argv[0], error);
  return Child(pid);
}

Captured run_captured(SpawnRequest request, Stderr stderr_goes) {
  Pipe out = make_pipe("a program's output");
  std::optional<Pipe> err;
  request.fds.push_back({out.write_end.get(), 1});
  if (stderr_goes == Stderr::separate) {
    err = make_pipe("a program's output");
    request.fds.push_back({err->write_end.get(), 2});
  } else {
    request.fds.push_back({out.write_end.get(), 2});
  }
  Child child = spawn(request);
  // Only the child holds the write ends now: end of file when it ends.
  out.write_end.reset();
  if (err) err->write_end.reset();
  Captured result;
  std::vector<std::pair<int, std::string*>> sources = {{out.read_end.get(), &result.out}};
  if (err) sources.emplace_back(err->read_end.get(), &result.err);
  drain(std::move(sources));
  result.status = child.wait();
  return result;
}

Child fork_call(const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid < 0) throw_errno("cannot fork", "a child process");
  if (pid == 0) {
    int code = 125;
    try {
      code = body();
    } catch (...) {
    }
    ::_exit(code);
  }
  return Child(pid);
}

std::vector<std::string> environment_with(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (extra.count(entry.substr(0, entry.find('='))) == 0) out.push_back(entry);
  }
  for (const auto& [name, value] : extra) out.push_back(name + "=" + value);
  return out;
}

}  // namespace holdfast::base
