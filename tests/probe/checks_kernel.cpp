// Probe checks: namespaces, mounts, kernel interfaces, personality,
// terminal, foreign ABIs. Calls that could change the host use arguments the
// kernel rejects harmlessly (missing paths, fd -1, bad flags).
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/kcmp.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <linux/userfaultfd.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <functional>

#include "checks.hpp"

namespace holdfast::probe {
namespace {

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

// --- other processes -----------------------------------------------------

// A child that waits (for its parent to go) and a pidfd of it; `call` gets
// the pidfd. The child is killed and reaped afterwards.
Outcome with_child_pidfd(const std::function<Outcome(int pidfd)>& call) {
  const pid_t child = ::fork();
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  if (child < 0) return from_rc(-1, "fork");
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, child, 0));
  Outcome out = pidfd < 0 ? from_rc(-1, "pidfd_open of a child") : call(pidfd);
  ::kill(child, SIGKILL);
  wait_status(child);
  if (pidfd >= 0) ::close(pidfd);
  return out;
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

}  // namespace

void add_kernel_checks(CheckTable& table) {
  table.insert(
      {{"unshare-user",
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
        [](auto&) { return fd_outcome(::syscall(SYS_fsopen, "tmpfs", 0), "fsopen(\"tmpfs\")"); }},
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
          return fd_outcome(::syscall(SYS_open_tree, AT_FDCWD, "/", 0),
                            "open_tree(\"/\") without OPEN_TREE_CLONE");
        }},
       {"mount-setattr",
        [](auto&) {
          return from_rc(::syscall(SYS_mount_setattr, -1, "", 0, nullptr, 0), "mount_setattr(-1)");
        }},
       {"io-uring",
        [](auto&) {
          io_uring_params params{};
          return fd_outcome(::syscall(SYS_io_uring_setup, 1, &params), "io_uring_setup(1)");
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
          return fd_outcome(::syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0),
                            "perf_event_open(own task clock, user only)");
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
          return fd_outcome(::syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY),
                            "userfaultfd(UFFD_USER_MODE_ONLY)");
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
       {"tiocsetd",
        [](auto&) {
          static int discipline = 0;  // N_TTY, the one it has: a change to nothing
          return tty_ioctl(TIOCSETD, &discipline, "ioctl(TIOCSETD, N_TTY) on the controlling pty");
        }},
       {"pidfd-open",
        [](auto&) {
          return fd_outcome(::syscall(SYS_pidfd_open, ::getpid(), 0), "pidfd_open(own pid)");
        }},
       {"pidfd-getfd",
        [](auto&) {
          return with_child_pidfd([](int pidfd) {
            return fd_outcome(::syscall(SYS_pidfd_getfd, pidfd, 0, 0),
                              "pidfd_getfd of a child's descriptor 0");
          });
        }},
       {"pidfd-send-signal",
        [](auto&) {
          return with_child_pidfd([](int pidfd) {
            return from_rc(::syscall(SYS_pidfd_send_signal, pidfd, 0, nullptr, 0),
                           "pidfd_send_signal(child, signal 0)");
          });
        }},
       {"kcmp",
        [](auto&) {
          return from_rc(::syscall(SYS_kcmp, ::getpid(), ::getpid(), KCMP_FILE, 0, 0),
                         "kcmp(own pid twice, KCMP_FILE, fd 0, fd 0)");
        }},
       {"memfd-secret",
        [](auto&) { return fd_outcome(::syscall(SYS_memfd_secret, 0), "memfd_secret(0)"); }},
       {"x32-syscall", [](auto&) { return x32_syscall(); }},
       {"i386-int80", [](auto&) { return i386_int80(); }}});
}

}  // namespace holdfast::probe
