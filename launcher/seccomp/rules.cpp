#include "launcher/seccomp/rules.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <cerrno>
#include <initializer_list>

// The rules assume clone's flags in argument 0 and sockets created through
// socket()/socketpair() (no socketcall multiplexer): true on x86_64 and
// aarch64. Elsewhere the filter would be weaker than it says, so refuse to build.
#if !defined(__x86_64__) && !defined(__aarch64__)
#error "holdfast's seccomp rules are written for x86_64 and aarch64"
#endif

namespace holdfast::seccomp {
namespace {

// The kernel reads ioctl's request and personality's argument as 32-bit
// values, so only the low 32 bits may be compared: a caller could otherwise
// set high bits to slip past an equality test while the kernel ignores them.
constexpr std::uint64_t low32 = 0xffffffffULL;

Rule always(std::string syscall, int error, std::string reason) {
  return Rule{std::move(syscall), error, {}, "", std::move(reason)};
}

void add_always(std::vector<Rule>& rules, std::initializer_list<const char*> syscalls, int error,
                const std::string& reason) {
  for (const char* name : syscalls) rules.push_back(always(name, error, reason));
}

Rule always_refuse_socket(const char* call, const std::string& reason) {
  return always(call, EPERM, reason);
}

// The domain, as the kernel reads it (an int: the low 32 bits), is AF_UNIX.
ArgTest domain_is_unix() { return ArgTest{0, ArgOp::masked_equal, AF_UNIX, low32}; }

// socketpair's type (argument 1) names a datagram-like socket: anything but
// SOCK_STREAM and SOCK_SEQPACKET in the type bits (the kernel masks the
// type with 0xf after checking the flag bits; AF_UNIX turns SOCK_RAW into a
// datagram socket). A datagram socket can be pointed at any address with
// connect() or sendto(), so a datagram pair would reach host sockets too.
std::vector<std::vector<ArgTest>> unconnectable_types(const std::vector<ArgTest>& with) {
  std::vector<std::vector<ArgTest>> any;
  for (std::uint64_t type = 0; type <= 0xf; ++type) {
    if (type == SOCK_STREAM || type == SOCK_SEQPACKET) continue;
    std::vector<ArgTest> all_of = with;
    all_of.push_back(ArgTest{1, ArgOp::masked_equal, type, 0xf});
    any.push_back(std::move(all_of));
  }
  return any;
}

void add_socket_rules(std::vector<Rule>& rules, const FilterOptions& options) {
  const bool closed = options.network_closed;
  const UnixSockets unix_sockets = options.unix_sockets;
  // A whole-register comparison for "not AF_UNIX": a domain with high bits
  // set is refused too, which only errs on the closed side.
  const ArgTest not_unix{0, ArgOp::not_equal, AF_UNIX, 0};

  if (closed && unix_sockets != UnixSockets::allow) {
    rules.push_back(always_refuse_socket(
        "socket", unix_sockets == UnixSockets::deny
                      ? "network closed and unixSockets: deny"
                      : "network closed; AF_UNIX only as connected pairs (socketpair), so no "
                        "host Unix socket can be reached"));
  } else if (closed) {
    rules.push_back(Rule{"socket",
                         EPERM,
                         {{not_unix}},
                         "domain is not AF_UNIX",
                         "network closed: only local (AF_UNIX) sockets"});
  } else if (unix_sockets != UnixSockets::allow) {
    rules.push_back(Rule{"socket",
                         EPERM,
                         {{domain_is_unix()}},
                         "domain is AF_UNIX",
                         unix_sockets == UnixSockets::deny
                             ? "unixSockets: deny"
                             : "unixSockets: pairs; AF_UNIX only as connected pairs "
                               "(socketpair), so no host Unix socket can be reached"});
  }

  switch (unix_sockets) {
    case UnixSockets::deny:
      if (closed) {
        rules.push_back(always_refuse_socket("socketpair", "network closed and unixSockets: deny"));
      } else {
        rules.push_back(Rule{
            "socketpair", EPERM, {{domain_is_unix()}}, "domain is AF_UNIX", "unixSockets: deny"});
      }
      break;
    case UnixSockets::pairs: {
      Rule rule{"socketpair", EPERM, {}, "", ""};
      if (closed) {
        rule.when_any = unconnectable_types({});
        rule.when_any.insert(rule.when_any.begin(), {not_unix});
        rule.condition =
            "domain is not AF_UNIX, or type is not SOCK_STREAM or SOCK_SEQPACKET (type & 0xf)";
        rule.reason = "network closed; a datagram pair could be pointed at a host Unix socket";
      } else {
        rule.when_any = unconnectable_types({domain_is_unix()});
        rule.condition =
            "domain is AF_UNIX and type is not SOCK_STREAM or SOCK_SEQPACKET (type & 0xf)";
        rule.reason = "unixSockets: pairs; a datagram pair could be pointed at a host Unix socket";
      }
      rules.push_back(std::move(rule));
      break;
    }
    case UnixSockets::allow:
      if (closed) {
        rules.push_back(Rule{"socketpair",
                             EPERM,
                             {{not_unix}},
                             "domain is not AF_UNIX",
                             "network closed: only local (AF_UNIX) sockets"});
      }
      break;
  }
}

// The set-user-ID and set-group-ID bits in a mode argument. A file that
// carries them runs as its owner (or group) for whoever starts it, on the
// host, after the sandbox is gone: root inside could leave a root shell in
// the workspace, and a user's file lends that user's identity to others.
constexpr std::uint64_t kSetIdBits[] = {S_ISUID, S_ISGID};

const char* const kSetIdReason =
    "a set-user-ID or set-group-ID file would run as its owner for whoever starts it on the host";

// The mode in argument `mode_arg` carries a set-id bit.
Rule mode_rule(const char* syscall, unsigned mode_arg) {
  Rule rule{syscall, EPERM, {}, "mode has S_ISUID or S_ISGID", kSetIdReason};
  for (const std::uint64_t bit : kSetIdBits) {
    rule.when_any.push_back({ArgTest{mode_arg, ArgOp::masked_equal, bit, bit}});
  }
  return rule;
}

// open-like calls use the mode only when creating (O_CREAT or O_TMPFILE);
// without those flags it is ignored, and libc passes 0 anyway.
Rule create_rule(const char* syscall, unsigned flags_arg, unsigned mode_arg) {
  Rule rule{syscall,
            EPERM,
            {},
            "flags have O_CREAT or O_TMPFILE and mode has S_ISUID or S_ISGID",
            kSetIdReason};
  for (const std::uint64_t flag : {std::uint64_t{O_CREAT}, std::uint64_t{__O_TMPFILE}}) {
    for (const std::uint64_t bit : kSetIdBits) {
      rule.when_any.push_back({ArgTest{flags_arg, ArgOp::masked_equal, flag, flag},
                               ArgTest{mode_arg, ArgOp::masked_equal, bit, bit}});
    }
  }
  return rule;
}

void add_set_id_rules(std::vector<Rule>& rules) {
  // The calls without a directory descriptor exist on x86_64 only (aarch64
  // has just the *at forms).
#ifdef __NR_chmod
  rules.push_back(mode_rule("chmod", 1));
  rules.push_back(mode_rule("creat", 1));
  rules.push_back(mode_rule("mknod", 1));
  rules.push_back(create_rule("open", 1, 2));
#endif
  rules.push_back(mode_rule("fchmod", 1));
  rules.push_back(mode_rule("fchmodat", 2));
  rules.push_back(mode_rule("fchmodat2", 2));
  rules.push_back(mode_rule("mknodat", 2));
  rules.push_back(create_rule("openat", 2, 3));
  // openat2 passes flags and mode in memory, out of seccomp's reach. ENOSYS
  // reads as "this kernel has no openat2", and callers fall back to openat.
  rules.push_back(always("openat2", ENOSYS,
                         "flags and mode are in memory seccomp cannot read; ENOSYS makes callers "
                         "use openat"));
}

// clone(2) creating any new namespace. Thread and process creation (no
// CLONE_NEW* bit) stays allowed. CLONE_NEWTIME is left out on purpose: in
// clone(2) its bit is part of the exit-signal byte, and the kernel only
// honours it through clone3 and unshare, which are refused outright.
Rule clone_namespace_rule() {
  Rule rule{"clone",
            EPERM,
            {},
            "flags include a CLONE_NEW* namespace flag",
            "nested namespaces could undo the sandbox's own"};
  for (std::uint64_t flag : {CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
                             CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET}) {
    rule.when_any.push_back({ArgTest{0, ArgOp::masked_equal, flag, flag}});
  }
  return rule;
}

// personality(2) is allowed only as personality(PER_LINUX) (0) and the
// query form personality(0xffffffff); anything else (ADDR_NO_RANDOMIZE,
// READ_IMPLIES_EXEC, PER_LINUX32, ...) is refused.
//
// libseccomp cannot say "low 32 bits not in {0, 0xffffffff}" directly (no
// masked not-equal, one test per argument per rule), so it is expressed as a
// union: a 32-bit word is neither all zeros nor all ones exactly when some
// bit i (1..31) differs from bit 0. For each i, two masked tests on bits
// {0, i}: "bit 0 set, bit i clear" and "bit 0 clear, bit i set".
Rule personality_rule() {
  Rule rule{"personality",
            EPERM,
            {},
            "argument is not 0 (PER_LINUX) or 0xffffffff (query)",
            "disabling ASLR or making data executable weakens the sandboxed process"};
  for (unsigned bit = 1; bit < 32; ++bit) {
    const std::uint64_t mask = 1ULL | (1ULL << bit);
    rule.when_any.push_back({ArgTest{0, ArgOp::masked_equal, 1ULL, mask}});
    rule.when_any.push_back({ArgTest{0, ArgOp::masked_equal, 1ULL << bit, mask}});
  }
  return rule;
}

Rule ioctl_rule(std::uint64_t request, const char* name, const char* reason) {
  return Rule{"ioctl",
              EPERM,
              {{ArgTest{1, ArgOp::masked_equal, request, low32}}},
              std::string("request is ") + name + " (low 32 bits compared)",
              reason};
}

}  // namespace

std::vector<Rule> filter_rules(const FilterOptions& options) {
  std::vector<Rule> rules;
  add_socket_rules(rules, options);

  add_always(rules, {"ptrace", "process_vm_readv", "process_vm_writev"}, EPERM,
             "reads and changes other processes' memory");
  // The rest of ptrace's class: a process's descriptors (pidfd_getfd took
  // one of bubblewrap's init inside), and the kernel's own pointers
  // compared across processes (kcmp orders them: a KASLR hint).
  add_always(rules, {"pidfd_getfd"}, EPERM, "copies another process's descriptor (ptrace's class)");
  add_always(rules, {"kcmp"}, EPERM,
             "compares kernel objects of two processes (ptrace's class; their order leaks "
             "kernel addresses)");
  // Secret memory is unmapped from the kernel, counted apart from the
  // memory limits, and blocks the host's hibernation while it exists.
  // ENOSYS reads as "this kernel has none", which its users expect.
  rules.push_back(always("memfd_secret", ENOSYS,
                         "pins memory the kernel cannot see and blocks the host's hibernation"));
  add_always(rules, {"io_uring_setup", "io_uring_enter", "io_uring_register"}, EPERM,
             "io_uring performs operations (sockets included) that seccomp cannot see");
  add_always(rules, {"bpf", "perf_event_open", "userfaultfd"}, EPERM,
             "large kernel attack surface, not needed by commands");
  add_always(rules, {"keyctl", "add_key", "request_key"}, EPERM,
             "kernel keyrings are not namespaced and can hold the operator's secrets");
  add_always(rules,
             {"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module"},
             EPERM, "loads a new kernel, or loads or unloads kernel modules");
  add_always(rules,
             {"mount", "umount2", "pivot_root", "fsopen", "fsconfig", "fsmount", "fspick",
              "move_mount", "open_tree", "mount_setattr"},
             EPERM, "changing mounts could uncover what the sandbox hides or make it writable");
  add_always(rules, {"unshare", "setns"}, EPERM,
             "nested or foreign namespaces could undo the sandbox's own");
  rules.push_back(clone_namespace_rule());
  // clone3 passes its flags in memory, out of seccomp's reach. ENOSYS makes
  // libc (glibc 2.34+) fall back to clone(2), whose flags are checked above.
  rules.push_back(always("clone3", ENOSYS,
                         "flags are in memory seccomp cannot read; ENOSYS makes libc use clone"));
  rules.push_back(personality_rule());
  rules.push_back(ioctl_rule(TIOCSTI, "TIOCSTI", "pushes keystrokes into the terminal's input"));
  rules.push_back(
      ioctl_rule(TIOCLINUX, "TIOCLINUX", "reads and pastes the Linux console's contents"));
  rules.push_back(ioctl_rule(TIOCSETD, "TIOCSETD",
                             "changes the line discipline of the operator's terminal (a kernel "
                             "attack surface of its own)"));
  add_set_id_rules(rules);
  return rules;
}

std::string errno_name(int error) {
  switch (error) {
    case EPERM:
      return "EPERM";
    case ENOSYS:
      return "ENOSYS";
    case EAFNOSUPPORT:
      return "EAFNOSUPPORT";
    case EACCES:
      return "EACCES";
    default:
      return std::to_string(error);
  }
}

std::vector<std::string> describe_rules(const FilterOptions& options) {
  std::vector<std::string> lines;
  lines.push_back(
      "architecture: native ABI only; a system call through another ABI (i386 int 0x80, x32) "
      "kills the process (SIGSYS)");
  for (const Rule& rule : filter_rules(options)) {
    std::string line = "refuse " + rule.syscall;
    if (!rule.condition.empty()) line += " when " + rule.condition;
    line += " -> " + errno_name(rule.error) + ": " + rule.reason;
    lines.push_back(std::move(line));
  }
  lines.push_back("allow everything else");
  return lines;
}

std::vector<FilterOptions> every_filter_options() {
  std::vector<FilterOptions> all;
  for (const bool network_closed : {false, true}) {
    for (const UnixSockets unix_sockets :
         {UnixSockets::allow, UnixSockets::pairs, UnixSockets::deny}) {
      all.push_back(FilterOptions{network_closed, unix_sockets});
    }
  }
  return all;
}

std::string to_string(const FilterOptions& options) {
  return std::string("network_closed=") + (options.network_closed ? "true" : "false") +
         " unix_sockets=" + std::string(unix_sockets_name(options.unix_sockets));
}

}  // namespace holdfast::seccomp
