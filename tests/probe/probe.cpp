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
//   ABI:        x32-syscall (getpid | __X32_SYSCALL_BIT)  i386-int80 (getpid
//               through int 0x80)
//   files, env: write:PATH (append-open an existing file without writing, or
//               create-and-remove a missing one)  read:PATH (open and read a
//               byte)  env:NAME (allowed = set; value)
//   state:      id (value "uid=U gid=G")  seccomp-status (value: the Seccomp
//               and NoNewPrivs lines of /proc/self/status)
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <linux/userfaultfd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// The probe runs under the filter it tests, and the filter refuses ptrace,
// which LeakSanitizer needs at exit. Leak checking is for the library tests,
// not for this tool.
extern "C" const char* __lsan_default_options() { return "detect_leaks=0"; }
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }

namespace {

using nlohmann::json;

struct Outcome {
  bool allowed = false;
  int error = 0;
  std::string detail;
  std::string value;
  bool has_value = false;
};

Outcome from_rc(long rc, std::string detail) {
  Outcome out;
  out.allowed = rc >= 0;
  out.error = rc >= 0 ? 0 : errno;
  out.detail = std::move(detail);
  return out;
}

// Runs `body` in a child and returns the child's exit status (for checks
// that create a process and judge it by how it ended).
int wait_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, __WALL) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

// --- network -------------------------------------------------------------

Outcome socket_check(long domain, int type, int protocol, std::string detail) {
  const long fd = ::syscall(SYS_socket, domain, type, protocol);
  Outcome out = from_rc(fd, std::move(detail));
  if (fd >= 0) ::close(static_cast<int>(fd));
  return out;
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

// --- namespaces ----------------------------------------------------------

Outcome clone_check(unsigned long flags, std::string detail) {
  // Raw clone(2): fork()'s glibc path never sets namespace flags.
  const long pid = ::syscall(SYS_clone, flags | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
  if (pid == 0) ::_exit(0);
  Outcome out = from_rc(pid, std::move(detail));
  if (pid > 0) wait_status(static_cast<pid_t>(pid));
  return out;
}

Outcome clone3_check() {
  // struct clone_args, version 0 (64 bytes): flags, pidfd, child_tid,
  // parent_tid, exit_signal, stack, stack_size, tls.
  std::uint64_t args[8] = {};
  args[4] = SIGCHLD;
  const long pid = ::syscall(SYS_clone3, args, sizeof args);
  if (pid == 0) ::_exit(0);
  Outcome out = from_rc(pid, "clone3 without flags");
  if (pid > 0) wait_status(static_cast<pid_t>(pid));
  return out;
}

// --- terminal ------------------------------------------------------------

// A new pty whose slave is this process's controlling terminal (TIOCSTI
// needs that, or CAP_SYS_ADMIN). Returns the slave fd or -1.
int controlling_pty(std::string& detail) {
  if (::setsid() < 0) {
    detail = "setsid failed";
    return -1;
  }
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) {
    detail = "posix_openpt failed";
    return -1;
  }
  const char* name = ::ptsname(master);
  const int slave = name == nullptr ? -1 : ::open(name, O_RDWR);  // no O_NOCTTY: becomes ctty
  if (slave < 0) detail = "cannot open the pty slave";
  return slave;  // the master stays open until the child exits
}

Outcome tty_ioctl(unsigned long request, void* arg, std::string detail) {
  std::string why;
  const int slave = controlling_pty(why);
  if (slave < 0) return from_rc(-1, detail + ": " + why);
  return from_rc(::syscall(SYS_ioctl, slave, request, arg), std::move(detail));
}

// --- foreign ABIs --------------------------------------------------------

Outcome x32_syscall() {
#if defined(__x86_64__)
  constexpr long x32_bit = 0x40000000L;
  return from_rc(::syscall(x32_bit | SYS_getpid), "getpid through the x32 ABI");
#else
  return {false, ENOSYS, "x32 exists only on x86_64", "", false};
#endif
}

Outcome i386_int80() {
#if defined(__x86_64__)
  long ret = 20;  // i386 getpid
  asm volatile("int $0x80" : "+a"(ret) : : "memory", "r8", "r9", "r10", "r11");
  if (ret < 0 && ret > -4096) {
    errno = static_cast<int>(-ret);
    return from_rc(-1, "getpid through int 0x80 (i386 ABI)");
  }
  return from_rc(ret, "getpid through int 0x80 (i386 ABI)");
#else
  return {false, ENOSYS, "int 0x80 exists only on x86", "", false};
#endif
}

// --- files, environment, state -------------------------------------------

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

Outcome with_value(std::string detail, std::string value) {
  return {true, 0, std::move(detail), std::move(value), true};
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

// --- the table -------------------------------------------------------------

using CheckFn = std::function<Outcome(const std::string& arg)>;

const std::map<std::string, CheckFn>& checks() {
  static const std::map<std::string, CheckFn> table = {
      {"socket-inet",
       [](auto&) { return socket_check(AF_INET, SOCK_STREAM, 0, "socket(AF_INET, SOCK_STREAM)"); }},
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
       [](auto&) { return socket_check(AF_UNIX, SOCK_STREAM, 0, "socket(AF_UNIX, SOCK_STREAM)"); }},
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
      {"unshare-user",
       [](auto&) { return from_rc(::unshare(CLONE_NEWUSER), "unshare(CLONE_NEWUSER)"); }},
      {"unshare-net",
       [](auto&) { return from_rc(::unshare(CLONE_NEWNET), "unshare(CLONE_NEWNET)"); }},
      {"setns",
       [](auto&) { return from_rc(::setns(-1, 0), "setns(-1, 0): EBADF from the kernel"); }},
      {"clone-newns", [](auto&) { return clone_check(CLONE_NEWNS, "clone(CLONE_NEWNS)"); }},
      {"clone-newuser", [](auto&) { return clone_check(CLONE_NEWUSER, "clone(CLONE_NEWUSER)"); }},
      {"clone-newnet", [](auto&) { return clone_check(CLONE_NEWNET, "clone(CLONE_NEWNET)"); }},
      {"clone3", [](auto&) { return clone3_check(); }},
      {"mount",
       [](auto&) {
         return from_rc(
             ::syscall(SYS_mount, "none", "/nonexistent/holdfast-probe", "tmpfs", 0, nullptr),
             "mount tmpfs on a missing target");
       }},
      {"umount",
       [](auto&) {
         return from_rc(::syscall(SYS_umount2, "/nonexistent/holdfast-probe", 0),
                        "umount2 of a missing path");
       }},
      {"pivot-root",
       [](auto&) {
         return from_rc(
             ::syscall(SYS_pivot_root, "/nonexistent/holdfast-a", "/nonexistent/holdfast-b"),
             "pivot_root of missing paths");
       }},
      {"fsopen",
       [](auto&) {
         const long fd = ::syscall(SYS_fsopen, "tmpfs", 0);
         Outcome o = from_rc(fd, "fsopen(\"tmpfs\")");
         if (fd >= 0) ::close(static_cast<int>(fd));
         return o;
       }},
      {"fsconfig",
       [](auto&) {
         return from_rc(
             ::syscall(SYS_fsconfig, -1, 6 /* FSCONFIG_CMD_CREATE */, nullptr, nullptr, 0),
             "fsconfig(-1, FSCONFIG_CMD_CREATE)");
       }},
      {"fsmount", [](auto&) { return from_rc(::syscall(SYS_fsmount, -1, 0, 0), "fsmount(-1)"); }},
      {"fspick",
       [](auto&) {
         return from_rc(::syscall(SYS_fspick, AT_FDCWD, "/nonexistent/holdfast-probe", 0),
                        "fspick of a missing path");
       }},
      {"move-mount",
       [](auto&) {
         return from_rc(::syscall(SYS_move_mount, -1, "", -1, "", 0), "move_mount(-1, -1)");
       }},
      {"open-tree",
       [](auto&) {
         const long fd = ::syscall(SYS_open_tree, AT_FDCWD, "/", 0);
         Outcome o = from_rc(fd, "open_tree(\"/\") without OPEN_TREE_CLONE");
         if (fd >= 0) ::close(static_cast<int>(fd));
         return o;
       }},
      {"mount-setattr",
       [](auto&) {
         return from_rc(::syscall(SYS_mount_setattr, -1, "", 0, nullptr, 0), "mount_setattr(-1)");
       }},
      {"io-uring",
       [](auto&) {
         io_uring_params params{};
         const long fd = ::syscall(SYS_io_uring_setup, 1, &params);
         Outcome o = from_rc(fd, "io_uring_setup(1)");
         if (fd >= 0) ::close(static_cast<int>(fd));
         return o;
       }},
      {"io-uring-enter",
       [](auto&) {
         return from_rc(::syscall(SYS_io_uring_enter, -1, 0, 0, 0, nullptr, 0),
                        "io_uring_enter(-1)");
       }},
      {"io-uring-register",
       [](auto&) {
         return from_rc(::syscall(SYS_io_uring_register, -1, 0, nullptr, 0),
                        "io_uring_register(-1)");
       }},
      {"bpf",
       [](auto&) {
         union bpf_attr_stub {
           std::uint32_t fd;
           char bytes[128];
         } attr{};
         attr.fd = static_cast<std::uint32_t>(-1);
         return from_rc(::syscall(SYS_bpf, 15 /* BPF_OBJ_GET_INFO_BY_FD */, &attr, 16),
                        "bpf(BPF_OBJ_GET_INFO_BY_FD, fd -1)");
       }},
      {"perf-event",
       [](auto&) {
         perf_event_attr attr{};
         attr.size = sizeof attr;
         attr.type = PERF_TYPE_SOFTWARE;
         attr.config = PERF_COUNT_SW_TASK_CLOCK;
         attr.exclude_kernel = 1;
         attr.exclude_hv = 1;
         const long fd = ::syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
         Outcome o = from_rc(fd, "perf_event_open(own task clock, user only)");
         if (fd >= 0) ::close(static_cast<int>(fd));
         return o;
       }},
      {"keyctl",
       [](auto&) {
         return from_rc(::syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, 1),
                        "keyctl(KEYCTL_GET_KEYRING_ID, process keyring, create)");
       }},
      {"add-key",
       [](auto&) {
         return from_rc(
             ::syscall(SYS_add_key, "user", "holdfast-probe", "x", 1, KEY_SPEC_PROCESS_KEYRING),
             "add_key(user key, process keyring)");
       }},
      {"request-key",
       [](auto&) {
         return from_rc(::syscall(SYS_request_key, "user", "holdfast-probe-missing", nullptr, 0),
                        "request_key of a missing key");
       }},
      {"userfaultfd",
       [](auto&) {
         const long fd = ::syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
         Outcome o = from_rc(fd, "userfaultfd(UFFD_USER_MODE_ONLY)");
         if (fd >= 0) ::close(static_cast<int>(fd));
         return o;
       }},
      {"kexec-load",
       [](auto&) {
         return from_rc(::syscall(SYS_kexec_load, 0, 0, nullptr, 0xfff0UL),
                        "kexec_load with invalid flags");
       }},
      {"kexec-file-load",
       [](auto&) {
         return from_rc(::syscall(SYS_kexec_file_load, -1, -1, 0, nullptr, 0xfff0UL),
                        "kexec_file_load with invalid flags");
       }},
      {"init-module",
       [](auto&) {
         return from_rc(::syscall(SYS_init_module, nullptr, 0, ""),
                        "init_module of an empty image");
       }},
      {"finit-module",
       [](auto&) { return from_rc(::syscall(SYS_finit_module, -1, "", 0), "finit_module(-1)"); }},
      {"delete-module",
       [](auto&) {
         return from_rc(::syscall(SYS_delete_module, "holdfast_probe_missing", O_NONBLOCK),
                        "delete_module of a missing module");
       }},
      {"personality",
       [](auto&) {
         return from_rc(::syscall(SYS_personality, static_cast<unsigned long>(ADDR_NO_RANDOMIZE)),
                        "personality(ADDR_NO_RANDOMIZE)");
       }},
      {"personality-linux",
       [](auto&) {
         return from_rc(::syscall(SYS_personality, PER_LINUX), "personality(PER_LINUX)");
       }},
      {"personality-query",
       [](auto&) {
         return from_rc(::syscall(SYS_personality, 0xffffffffUL), "personality(0xffffffff)");
       }},
      {"tiocsti",
       [](auto&) {
         static char c = ' ';
         return tty_ioctl(TIOCSTI, &c, "ioctl(TIOCSTI) on the controlling pty");
       }},
      {"tiocsti-highbits",
       [](auto&) {
         static char c = ' ';
         return tty_ioctl((1UL << 32) | TIOCSTI, &c,
                          "ioctl(TIOCSTI | 1<<32) on the controlling pty");
       }},
      {"tioclinux",
       [](auto&) {
         static char sub = 6; /* TIOCL_GETSHIFTSTATE */
         return tty_ioctl(
             TIOCLINUX, &sub,
             "ioctl(TIOCLINUX) on a pty (not a console: ENOTTY/EINVAL from the kernel)");
       }},
      {"tcgets",
       [](auto&) {
         static termios t;
         return tty_ioctl(TCGETS, &t, "ioctl(TCGETS) on a pty");
       }},
      {"x32-syscall", [](auto&) { return x32_syscall(); }},
      {"i386-int80", [](auto&) { return i386_int80(); }},
      {"write", write_check},
      {"read", read_check},
      {"env", env_check},
      {"id",
       [](auto&) {
         return with_value("real uid and gid", "uid=" + std::to_string(::getuid()) +
                                                   " gid=" + std::to_string(::getgid()));
       }},
      {"seccomp-status", [](auto&) { return seccomp_status(); }},
  };
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

int main(int argc, char** argv) {
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
