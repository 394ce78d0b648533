#include "tests/support/process.hpp"

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>

#include "base/process.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

extern char** environ;  // NOLINT

namespace holdfast::testing {

std::string enter_own_namespaces(int flags) {
  if (::unshare(flags) != 0) {
    const uid_t uid = ::getuid();
    const gid_t gid = ::getgid();
    if (::unshare(CLONE_NEWUSER | flags) != 0) {
      return std::string("cannot make namespaces of its own here: ") + std::strerror(errno);
    }
    for (const auto& [file, text] :
         {std::pair<const char*, std::string>{"/proc/self/setgroups", "deny"},
          {"/proc/self/uid_map", "0 " + std::to_string(uid) + " 1"},
          {"/proc/self/gid_map", "0 " + std::to_string(gid) + " 1"}}) {
      std::ofstream out(file);
      out << text;
      if (!out.flush()) return std::string("cannot write ") + file;
    }
  }
  if ((flags & CLONE_NEWNS) != 0 &&
      ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return std::string("cannot make / private: ") + std::strerror(errno);
  }
  return "";
}

pid_t fork_child(const std::function<int()>& body) { return base::fork_call(body).release(); }

int wait_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

int exit_code_of(int status) {
  if (status == -1) return -1000;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -1000;
}

int wait_exit_code(pid_t pid) { return exit_code_of(wait_status(pid)); }

int run_in_child(const std::function<int()>& body) { return wait_exit_code(fork_child(body)); }

Child::Child(const std::function<void()>& body)
    : pid_(fork_child([&] {
        body();
        return 0;
      })) {}

Child::~Child() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    wait_status(pid_);
  }
}

int Child::wait() {
  const int status = wait_status(pid_);
  pid_ = -1;
  return status;
}

Pipe::Pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) std::abort();
  read_end = fds[0];
  write_end = fds[1];
}

Pipe::~Pipe() {
  close_read();
  close_write();
}

void Pipe::close_read() {
  if (read_end >= 0) ::close(read_end);
  read_end = -1;
}

void Pipe::close_write() {
  if (write_end >= 0) ::close(write_end);
  write_end = -1;
}

bool Pipe::write_all(const void* bytes, std::size_t size) {
  return ::write(write_end, bytes, size) == static_cast<ssize_t>(size);
}

bool Pipe::read_all(void* bytes, std::size_t size) {
  std::size_t got = 0;
  auto* at = static_cast<char*>(bytes);
  while (got < size) {
    const ssize_t n = ::read(read_end, at + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
  }
  return true;
}

Started start_command(const Command& command) {
  // Everything the child needs is prepared before fork: after it, only
  // async-signal-safe calls.
  std::vector<std::string> argv = command.argv;
  std::vector<char*> argv_ptrs;
  for (auto& a : argv) argv_ptrs.push_back(a.data());
  argv_ptrs.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (const auto& [name, value] : command.env) env_strings.push_back(name + "=" + value);
  std::vector<char*> env_ptrs;
  for (auto& s : env_strings) env_ptrs.push_back(s.data());
  env_ptrs.push_back(nullptr);

  Started started;
  started.out = command.out;
  started.err = command.err;
  started.pid = ::fork();
  if (started.pid == 0) {
    const int in = ::open(command.in ? command.in->c_str() : "/dev/null", O_RDONLY);
    const int out = ::open(command.out.c_str(),
                           O_WRONLY | O_CREAT | (command.append_out ? O_APPEND : O_TRUNC), 0644);
    const int err = ::open(command.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0 || ::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 ||
        ::dup2(err, 2) < 0) {
      ::_exit(200);
    }
    for (const auto& procs : command.join_cgroups) {
      const int fd = ::open(procs.c_str(), O_WRONLY);
      if (fd < 0 || ::write(fd, "0", 1) != 1) ::_exit(204);
      ::close(fd);
    }
    if (command.uid) {
      const gid_t gid = *command.uid;
      if (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(*command.uid) != 0) {
        ::_exit(201);
      }
    }
    if (command.cwd && ::chdir(command.cwd->c_str()) != 0) ::_exit(202);
    ::execve(argv_ptrs[0], argv_ptrs.data(), env_ptrs.data());
    ::_exit(203);
  }
  return started;
}

CommandResult wait_command(const Started& started) {
  CommandResult result;
  result.exit_code = wait_exit_code(started.pid);
  result.out = read_file(started.out);
  result.err = read_file(started.err);
  return result;
}

std::map<std::string, std::string> current_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return env;
}

CommandResult run_command(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env,
                          const std::optional<std::filesystem::path>& cwd) {
  const TempDir capture;
  Command command;
  command.argv = argv;
  command.env = current_environment();
  for (const auto& [name, value] : env) command.env[name] = value;
  command.cwd = cwd;
  command.out = capture / "stdout";
  command.err = capture / "stderr";
  return wait_command(start_command(command));
}

}  // namespace holdfast::testing
