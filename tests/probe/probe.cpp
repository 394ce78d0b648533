// holdfast-probe — asks, from inside a sandbox, "may I do X?" for each check
// named on the command line, and prints the answers as ONE JSON line on
// stdout:
//
//   {"results":[{"check":"socket-inet","allowed":false,"errno":1,
//                "errname":"EPERM","detail":"socket(AF_INET, SOCK_STREAM)"}, ...]}
//
// Each result: "check" (as given), "allowed" (the operation succeeded),
// "errno" (0 when allowed or when no system call failed), "errname",
// "detail" (what was attempted), and when relevant "value" (env:, id,
// seccomp-status) and "signal" (the check's process was killed by this
// signal: SIGSYS (31) is seccomp's kill action, e.g. for a foreign ABI).
//
// The checks live in checks_process.cpp and checks_kernel.cpp (checks.hpp).
// Every check runs in its own forked child, so a check that kills, changes
// namespaces or personality cannot affect the next one, and the order of
// checks does not matter. Exit status: 0 when every check ran (whatever the
// answers), 2 for an unknown check or bad usage (message on stderr).
//
// Options (before the checks):
//   --load-seccomp FD   load the classic-BPF program in FD (as bwrap
//                       --seccomp does: no_new_privs, then the filter) before
//                       running the checks. Lets a test apply the filter to a
//                       process with real host privileges, so refusals the
//                       kernel would make anyway in a sandbox (kexec, modules)
//                       can still be told apart from the filter's.
//
// Checks. Calls that could change the host use arguments the kernel rejects
// harmlessly; the expected kernel answer without a filter is given, so that
// EPERM from seccomp can be told from the kernel's own answer.
//   network:    socket-inet socket-inet6 socket-netlink socket-unix
//               socketpair-unix socket-unix-highbits (domain AF_UNIX|1<<32,
//               which the kernel truncates to AF_UNIX)
//               connect-tcp:HOST:PORT  connect-unix:PATH
//   processes:  fork-exec (fork, exec this program, exit 0)  thread
//               (pthread_create+join)  ptrace-child (PTRACE_SEIZE of a child)
//               process-vm-readv (own memory)  kill:PID[:SIG] (SIG 0 default)
//   namespaces: unshare-user unshare-net  setns (fd -1: EBADF)
//               clone-newns clone-newuser clone-newnet (clone(2), flags|SIGCHLD)
//               clone3 (plain clone3 with no flags)
//   mounts:     mount (target missing: ENOENT)  umount (target missing: ENOENT)
//               pivot-root (paths missing: ENOENT, or EPERM without CAP_SYS_ADMIN)
//               fsopen (tmpfs; EPERM without CAP_SYS_ADMIN)  fsconfig (fd -1:
//               EBADF/EINVAL)  fsmount (fd -1: EBADF)  fspick (path missing)
//               move-mount (fd -1)  open-tree ("/", no clone: succeeds)
//               mount-setattr (fd -1)
//   kernel:     io-uring (setup, 1 entry)  io-uring-enter (fd -1: EBADF)
//               io-uring-register (fd -1: EBADF)  bpf (BPF_OBJ_GET_INFO_BY_FD on
//               fd -1: EBADF)  perf-event (own task clock, user only)
//               keyctl (KEYCTL_GET_KEYRING_ID, process keyring, create)
//               add-key (user key in the process keyring)  request-key (a
//               missing key: ENOKEY)  userfaultfd (UFFD_USER_MODE_ONLY)
//               kexec-load kexec-file-load (bad flags: EINVAL as root, else EPERM)
//               init-module (empty image: ENOEXEC as root, else EPERM)
//               finit-module (fd -1) delete-module (missing module: ENOENT as root)
//               personality (ADDR_NO_RANDOMIZE)  personality-linux (PER_LINUX)
//               personality-query (0xffffffff)
//   terminal:   (a new pty, made the controlling terminal of a new session)
//               tiocsti  tiocsti-highbits (request | 1<<32)  tioclinux  tcgets
//               tiocsetd (N_TTY, the discipline it has)
//   processes:  pidfd-open (own pid)  pidfd-getfd (a child's descriptor 0)
//               pidfd-send-signal (signal 0 to a child)  kcmp (KCMP_FILE, own
//               pid twice)  memfd-secret
//   ABI:        x32-syscall (getpid | __X32_SYSCALL_BIT)  i386-int80 (getpid
//               through int 0x80)
//   files, env: write:PATH (append-open an existing file without writing, or
//               create-and-remove a missing one)  mkfifo:PATH (make and
//               remove a FIFO)  read:PATH (open and read a
//               byte)  env:NAME (allowed = set; value)
//   state:      id (value "uid=U gid=G")  seccomp-status (value: the Seccomp
//               and NoNewPrivs lines of /proc/self/status)
//   host:       writable-files:DIR (value: every regular file under DIR that
//               opens for writing, symlinks not followed; under /proc the
//               numbered directories, the sandbox's own processes, are
//               skipped; allowed = one was found)
//               setuid:HOW:PATH setgid:HOW:PATH (HOW: chmod fchmod fchmodat
//               fchmodat2 on a new 0755 file; open openat creat mknod mknodat
//               tmpfile creating it with the bit; allowed = the file carries it)
//               environ-contains:HEX (the text in hexadecimal, so that no
//               command line holds it; value "readable=PIDS found=PIDS" over
//               every /proc/PID/environ and cmdline)  fds (value: descriptors
//               open when the probe started, e.g. "0 1 2")
//               socketpair-dgram  socketpair-dgram-sendto:PATH (a datagram
//               socketpair pointed at a host socket)  unix-local-pair:PATH
//               (bind, listen, connect a stream socket at PATH)
//               fs-size:PATH (value: bytes)  fill:PATH:BYTES (write that much;
//               value: bytes written)  fork-count:N (value: children started)
//               alloc:BYTES (map that much private writable memory)
//               touch:BYTES (map and write that much)  touch-together:N:BYTES
//               (N processes hold BYTES each at once; value: how many did)
//               memfd-fill:BYTES  fork-hold:N:DIR (fork up to N children,
//               write the count to the FIFO DIR/ready, hold them until the
//               FIFO DIR/release is written)
//               rlimit:nproc|data|cpu|core (value "soft:hard")
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "checks.hpp"

// The probe runs under the filter it tests, and the filter refuses ptrace,
// which LeakSanitizer needs at exit. Leak checking is for the library tests,
// not for this tool.
extern "C" const char* __lsan_default_options() { return "detect_leaks=0"; }
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }

namespace holdfast::probe {

Outcome from_rc(long rc, std::string detail) {
  Outcome out;
  out.allowed = rc >= 0;
  out.error = rc >= 0 ? 0 : errno;
  out.detail = std::move(detail);
  return out;
}

Outcome fd_outcome(long fd, std::string detail) {
  Outcome out = from_rc(fd, std::move(detail));
  if (fd >= 0) ::close(static_cast<int>(fd));
  return out;
}

Outcome with_value(std::string detail, std::string value) {
  return {true, 0, std::move(detail), std::move(value), true};
}

int wait_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, __WALL) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

namespace {

using nlohmann::json;

const CheckTable& checks() {
  static const CheckTable table = [] {
    CheckTable t;
    add_process_checks(t);
    add_kernel_checks(t);
    add_host_checks(t);
    return t;
  }();
  return table;
}

// Runs one check in a forked child; the child sends its JSON answer through
// a pipe. A child killed by a signal (SIGSYS from seccomp) is reported as such.
json run_check(const std::string& spec, const CheckFn& fn, const std::string& arg) {
  json result = {{"check", spec}};
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    result.update({{"allowed", false}, {"errno", errno}, {"detail", "probe: pipe failed"}});
    return result;
  }
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    const Outcome out = fn(arg);
    json answer = {{"allowed", out.allowed}, {"errno", out.error}, {"detail", out.detail}};
    if (out.has_value) answer["value"] = out.value;
    const std::string text = answer.dump();
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(pipe_fds[1], text.data() + done, text.size() - done);
      if (n <= 0) ::_exit(1);
      done += static_cast<std::size_t>(n);
    }
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(pipe_fds[0]);
  const int status = pid < 0 ? -1 : wait_status(pid);
  if (pid > 0 && WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    result.update({{"allowed", false},
                   {"errno", 0},
                   {"signal", sig},
                   {"detail", std::string("killed by signal ") + std::to_string(sig) +
                                  (sig == SIGSYS ? " (SIGSYS: seccomp kill)" : "")}});
  } else if (text.empty()) {
    result.update(
        {{"allowed", false}, {"errno", 0}, {"detail", "probe: the check's process failed"}});
  } else {
    result.update(json::parse(text));
  }
  const int error = result["errno"].get<int>();
  result["errname"] = error == 0 ? "" : (::strerrorname_np(error) ? ::strerrorname_np(error) : "");
  return result;
}

bool load_seccomp(int fd) {
  std::string program;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    program.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (program.empty() || program.size() % sizeof(sock_filter) != 0) return false;
  sock_fprog prog{static_cast<unsigned short>(program.size() / sizeof(sock_filter)),
                  reinterpret_cast<sock_filter*>(program.data())};
  return ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

}  // namespace
}  // namespace holdfast::probe

int main(int argc, char** argv) {
  using namespace holdfast::probe;
  using nlohmann::json;
  record_inherited_fds();
  std::vector<std::string> specs(argv + 1, argv + argc);
  std::size_t first = 0;
  if (specs.size() >= 2 && specs[0] == "--load-seccomp") {
    if (!load_seccomp(std::atoi(specs[1].c_str()))) {
      std::cerr << "holdfast-probe: cannot load the seccomp program from fd " << specs[1] << ": "
                << std::strerror(errno) << "\n";
      return 2;
    }
    first = 2;
  }
  json results = json::array();
  for (std::size_t i = first; i < specs.size(); ++i) {
    const std::string& spec = specs[i];
    const auto colon = spec.find(':');
    const std::string name = spec.substr(0, colon);
    const std::string arg = colon == std::string::npos ? "" : spec.substr(colon + 1);
    const auto found = checks().find(name);
    if (found == checks().end()) {
      std::cerr << "holdfast-probe: unknown check '" << name
                << "'; see the header of tests/probe/probe.cpp for the list\n";
      return 2;
    }
    results.push_back(run_check(spec, found->second, arg));
  }
  std::cout << json{{"results", results}}.dump() << "\n";
  return 0;
}
