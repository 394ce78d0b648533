#include "launcher/seccomp/rules.hpp"

#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

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

void add_socket_rules(std::vector<Rule>& rules, const FilterOptions& options) {
  for (const char* call : {"socket", "socketpair"}) {
    if (options.network_closed && options.deny_unix_sockets) {
      rules.push_back(always(call, EPERM, "network closed and unixSockets: deny"));
    } else if (options.network_closed) {
      // A whole-register comparison: a domain with high bits set is refused
      // too, which only errs on the closed side.
      rules.push_back(Rule{call,
                           EPERM,
                           {{ArgTest{0, ArgOp::not_equal, AF_UNIX, 0}}},
                           "domain is not AF_UNIX",
                           "network closed: only local (AF_UNIX) sockets"});
    } else if (options.deny_unix_sockets) {
      rules.push_back(Rule{call,
                           EPERM,
                           {{ArgTest{0, ArgOp::masked_equal, AF_UNIX, low32}}},
                           "domain is AF_UNIX",
                           "unixSockets: deny"});
    }
  }
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
    for (const bool deny_unix_sockets : {false, true}) {
      all.push_back(FilterOptions{network_closed, deny_unix_sockets});
    }
  }
  return all;
}

std::string to_string(const FilterOptions& options) {
  return std::string("network_closed=") + (options.network_closed ? "true" : "false") +
         " deny_unix_sockets=" + (options.deny_unix_sockets ? "true" : "false");
}

}  // namespace holdfast::seccomp
