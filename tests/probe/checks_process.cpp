// Probe checks: network, processes, files, environment, state.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "checks.hpp"

namespace holdfast::probe {
namespace {

// --- network -------------------------------------------------------------

Outcome socket_check(long domain, int type, int protocol, std::string detail) {
  return fd_outcome(::syscall(SYS_socket, domain, type, protocol), std::move(detail));
}

Outcome socketpair_unix() {
  int fds[2];
  const int rc = ::socketpair(AF_UNIX, SOCK_STREAM, 0, fds);
  Outcome out = from_rc(rc, "socketpair(AF_UNIX, SOCK_STREAM)");
  if (rc == 0) {
    ::close(fds[0]);
    ::close(fds[1]);
  }
  return out;
}

Outcome connect_tcp(const std::string& arg) {
  const auto colon = arg.rfind(':');
  if (colon == std::string::npos) return {false, EINVAL, "connect-tcp needs HOST:PORT", "", false};
  const std::string host = arg.substr(0, colon);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(std::atoi(arg.c_str() + colon + 1)));
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    return {false, EINVAL, "connect-tcp needs a numeric IPv4 HOST", "", false};
  }
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return from_rc(-1, "socket(AF_INET) for connect to " + arg);
  const int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  Outcome out = from_rc(rc, "connect to tcp " + arg);
  ::close(fd);
  return out;
}

Outcome connect_unix(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) return {false, ENAMETOOLONG, path, "", false};
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return from_rc(-1, "socket(AF_UNIX) for connect to " + path);
  const int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  Outcome out = from_rc(rc, "connect to unix " + path);
  ::close(fd);
  return out;
}

// --- processes -----------------------------------------------------------

Outcome fork_exec() {
  const pid_t pid = ::fork();
  if (pid < 0) return from_rc(-1, "fork");
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) ::dup2(null, STDOUT_FILENO);
    char name[] = "holdfast-probe";
    char* argv[] = {name, nullptr};
    ::execv("/proc/self/exe", argv);
    ::_exit(127);
  }
  const int status = wait_status(pid);
  Outcome out;
  out.allowed = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  out.detail = "fork, then exec /proc/self/exe; child status " + std::to_string(status);
  return out;
}

Outcome thread_check() {
  pthread_t thread;
  const int rc = ::pthread_create(
      &thread, nullptr, [](void*) -> void* { return nullptr; }, nullptr);
  if (rc != 0) return {false, rc, "pthread_create", "", false};
  ::pthread_join(thread, nullptr);
  return {true, 0, "pthread_create and pthread_join", "", false};
}

pid_t paused_child() {
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (;;) ::pause();
  }
  return pid;
}

Outcome ptrace_child() {
  const pid_t pid = paused_child();
  if (pid < 0) return from_rc(-1, "fork");
  const long rc = ::ptrace(PTRACE_SEIZE, pid, nullptr, nullptr);
  Outcome out = from_rc(rc, "ptrace(PTRACE_SEIZE) of a child");
  ::kill(pid, SIGKILL);
  wait_status(pid);
  return out;
}

Outcome process_vm_readv_check() {
  char source[8] = "secret", target[8] = {};
  iovec local{target, sizeof target}, remote{source, sizeof source};
  return from_rc(::process_vm_readv(::getpid(), &local, 1, &remote, 1, 0),
                 "process_vm_readv of own memory");
}

Outcome kill_check(const std::string& arg) {
  const auto colon = arg.find(':');
  const pid_t pid = static_cast<pid_t>(std::atol(arg.substr(0, colon).c_str()));
  const int sig = colon == std::string::npos ? 0 : std::atoi(arg.c_str() + colon + 1);
  return from_rc(::kill(pid, sig),
                 "kill(" + std::to_string(pid) + ", " + std::to_string(sig) + ")");
}

// --- files, environment, state -------------------------------------------

// mkfifo at PATH, removed again when it was made.
Outcome mkfifo_check(const std::string& path) {
  if (::mkfifo(path.c_str(), 0600) != 0) return from_rc(-1, "mkfifo " + path);
  ::unlink(path.c_str());
  return {true, 0, "made (and removed) the FIFO " + path, "", false};
}

Outcome write_check(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd >= 0) {
    ::close(fd);
    return {true, 0, "opened existing " + path + " for writing (nothing written)", "", false};
  }
  if (errno != ENOENT) return from_rc(-1, "open existing " + path + " for writing");
  fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return from_rc(-1, "create " + path);
  ::close(fd);
  ::unlink(path.c_str());
  return {true, 0, "created (and removed) " + path, "", false};
}

Outcome read_check(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return from_rc(-1, "open " + path + " for reading");
  char byte;
  const ssize_t n = ::read(fd, &byte, 1);
  ::close(fd);
  return from_rc(n, "open and read one byte of " + path);
}

Outcome env_check(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  Outcome out{value != nullptr, 0, "environment variable " + name, value ? value : "",
              value != nullptr};
  return out;
}

Outcome seccomp_status() {
  std::ifstream in("/proc/self/status");
  if (!in) return from_rc(-1, "read /proc/self/status");
  std::string line, value;
  while (std::getline(in, line)) {
    if (line.rfind("Seccomp:", 0) == 0 || line.rfind("NoNewPrivs:", 0) == 0) {
      line.erase(std::remove(line.begin(), line.end(), '\t'), line.end());
      if (!value.empty()) value += ' ';
      value += line;
    }
  }
  return with_value("Seccomp and NoNewPrivs of /proc/self/status", value);
}

}  // namespace

void add_process_checks(CheckTable& table) {
  table.insert({{"socket-inet",
                 [](auto&) {
                   return socket_check(AF_INET, SOCK_STREAM, 0, "socket(AF_INET, SOCK_STREAM)");
                 }},
                {"socket-inet6",
                 [](auto&) {
                   return socket_check(AF_INET6, SOCK_STREAM, 0, "socket(AF_INET6, SOCK_STREAM)");
                 }},
                {"socket-netlink",
                 [](auto&) {
                   return socket_check(AF_NETLINK, SOCK_RAW, 0,
                                       "socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE)");
                 }},
                {"socket-unix",
                 [](auto&) {
                   return socket_check(AF_UNIX, SOCK_STREAM, 0, "socket(AF_UNIX, SOCK_STREAM)");
                 }},
                {"socket-unix-highbits",
                 [](auto&) {
                   return socket_check((1L << 32) | AF_UNIX, SOCK_STREAM, 0,
                                       "socket(AF_UNIX | 1<<32, SOCK_STREAM)");
                 }},
                {"socketpair-unix", [](auto&) { return socketpair_unix(); }},
                {"connect-tcp", connect_tcp},
                {"connect-unix", connect_unix},
                {"fork-exec", [](auto&) { return fork_exec(); }},
                {"thread", [](auto&) { return thread_check(); }},
                {"ptrace-child", [](auto&) { return ptrace_child(); }},
                {"process-vm-readv", [](auto&) { return process_vm_readv_check(); }},
                {"kill", kill_check},
                {"write", write_check},
                {"mkfifo", mkfifo_check},
                {"read", read_check},
                {"env", env_check},
                {"id",
                 [](auto&) {
                   return with_value("real uid and gid", "uid=" + std::to_string(::getuid()) +
                                                             " gid=" + std::to_string(::getgid()));
                 }},
                {"seccomp-status", [](auto&) { return seccomp_status(); }}});
}

}  // namespace holdfast::probe
