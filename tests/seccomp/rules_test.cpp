// The rule table is data; these tests read it as data. What the kernel does
// with the compiled filter is tested in sandbox_test.cpp.
#include "launcher/seccomp/rules.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

namespace holdfast::seccomp {
namespace {

// Evaluates a rule's conditions on argument values the way the kernel-side
// BPF does (whole 64-bit registers; masked tests on arg & mask).
bool refuses(const Rule& rule, const std::uint64_t (&args)[6]) {
  if (rule.when_any.empty()) return true;
  return std::any_of(rule.when_any.begin(), rule.when_any.end(), [&](const auto& all_of) {
    return std::all_of(all_of.begin(), all_of.end(), [&](const ArgTest& t) {
      const std::uint64_t a = args[t.index];
      switch (t.op) {
        case ArgOp::equal:
          return a == t.value;
        case ArgOp::not_equal:
          return a != t.value;
        case ArgOp::masked_equal:
          return (a & t.mask) == t.value;
      }
      return false;
    });
  });
}

std::vector<Rule> rules_for(const FilterOptions& options, const std::string& syscall) {
  std::vector<Rule> found;
  for (const Rule& rule : filter_rules(options)) {
    if (rule.syscall == syscall) found.push_back(rule);
  }
  return found;
}

bool refused(const FilterOptions& options, const std::string& syscall, std::uint64_t arg0,
             std::uint64_t arg1 = 0, std::uint64_t arg2 = 0, std::uint64_t arg3 = 0) {
  const std::uint64_t args[6] = {arg0, arg1, arg2, arg3, 0, 0};
  for (const Rule& rule : rules_for(options, syscall)) {
    if (refuses(rule, args)) return true;
  }
  return false;
}

TEST(SeccompRules, AlwaysRefusedCallsAreUnconditionalWithTheirErrno) {
  const std::vector<std::string> eperm = {"ptrace",
                                          "process_vm_readv",
                                          "process_vm_writev",
                                          "io_uring_setup",
                                          "io_uring_enter",
                                          "io_uring_register",
                                          "bpf",
                                          "perf_event_open",
                                          "keyctl",
                                          "add_key",
                                          "request_key",
                                          "userfaultfd",
                                          "kexec_load",
                                          "kexec_file_load",
                                          "init_module",
                                          "finit_module",
                                          "delete_module",
                                          "mount",
                                          "umount2",
                                          "pivot_root",
                                          "fsopen",
                                          "fsconfig",
                                          "fsmount",
                                          "fspick",
                                          "move_mount",
                                          "open_tree",
                                          "mount_setattr",
                                          "unshare",
                                          "setns",
                                          "pidfd_getfd",
                                          "kcmp"};
  for (const FilterOptions& options : every_filter_options()) {
    for (const std::string& name : eperm) {
      const auto rules = rules_for(options, name);
      ASSERT_EQ(rules.size(), 1u) << name;
      EXPECT_TRUE(rules[0].when_any.empty()) << name;
      EXPECT_EQ(rules[0].error, EPERM) << name;
    }
    for (const char* name : {"clone3", "openat2", "memfd_secret"}) {
      const auto rules = rules_for(options, name);
      ASSERT_EQ(rules.size(), 1u) << name;
      EXPECT_TRUE(rules[0].when_any.empty()) << name;
      EXPECT_EQ(rules[0].error, ENOSYS) << name << ": callers fall back only on ENOSYS";
    }
  }
}

TEST(SeccompRules, SocketFamiliesFollowTheOptions) {
  using U = UnixSockets;
  const FilterOptions open_allow{false, U::allow}, open_pairs{false, U::pairs},
      open_deny{false, U::deny}, closed_allow{true, U::allow}, closed_pairs{true, U::pairs},
      closed_deny{true, U::deny};
  const std::uint64_t stream = SOCK_STREAM;
  for (const char* call : {"socket", "socketpair"}) {
    EXPECT_FALSE(refused(open_allow, call, AF_INET, stream));
    EXPECT_FALSE(refused(open_allow, call, AF_UNIX, stream));

    EXPECT_FALSE(refused(open_deny, call, AF_INET, stream));
    EXPECT_TRUE(refused(open_deny, call, AF_UNIX, stream));
    // The kernel truncates the domain to int: high bits must not hide AF_UNIX.
    EXPECT_TRUE(refused(open_deny, call, (1ULL << 32) | AF_UNIX, stream));

    EXPECT_TRUE(refused(closed_allow, call, AF_INET, stream));
    EXPECT_TRUE(refused(closed_allow, call, AF_INET6, stream));
    EXPECT_TRUE(refused(closed_allow, call, AF_NETLINK, stream));
    EXPECT_TRUE(refused(closed_allow, call, AF_PACKET, stream));
    EXPECT_FALSE(refused(closed_allow, call, AF_UNIX, stream));

    EXPECT_TRUE(refused(closed_deny, call, AF_INET, stream));
    EXPECT_TRUE(refused(closed_deny, call, AF_UNIX, stream));

    EXPECT_TRUE(refused(closed_pairs, call, AF_INET, stream));
    EXPECT_FALSE(refused(open_pairs, call, AF_INET, stream));
  }
  // pairs: no socket(AF_UNIX) at all, so nothing can connect to a host socket.
  EXPECT_TRUE(refused(open_pairs, "socket", AF_UNIX, stream));
  EXPECT_TRUE(refused(open_pairs, "socket", (1ULL << 32) | AF_UNIX, stream));
  EXPECT_TRUE(refused(closed_pairs, "socket", AF_UNIX, stream));
}

TEST(SeccompRules, PairsAllowOnlyConnectedSocketpairTypes) {
  using U = UnixSockets;
  for (const FilterOptions options :
       {FilterOptions{false, U::pairs}, FilterOptions{true, U::pairs}}) {
    SCOPED_TRACE(to_string(options));
    for (const std::uint64_t flags :
         {std::uint64_t{0}, std::uint64_t{SOCK_CLOEXEC | SOCK_NONBLOCK}}) {
      EXPECT_FALSE(refused(options, "socketpair", AF_UNIX, SOCK_STREAM | flags));
      EXPECT_FALSE(refused(options, "socketpair", AF_UNIX, SOCK_SEQPACKET | flags));
      // A datagram socket can be pointed at any address (connect, sendto);
      // AF_UNIX makes SOCK_RAW a datagram socket.
      EXPECT_TRUE(refused(options, "socketpair", AF_UNIX, SOCK_DGRAM | flags));
      EXPECT_TRUE(refused(options, "socketpair", AF_UNIX, SOCK_RAW | flags));
      EXPECT_TRUE(refused(options, "socketpair", AF_UNIX, SOCK_RDM | flags));
      EXPECT_TRUE(refused(options, "socketpair", AF_UNIX, 0 | flags));
    }
  }
  // allow keeps datagram pairs.
  EXPECT_FALSE(refused(FilterOptions{true, U::allow}, "socketpair", AF_UNIX, SOCK_DGRAM));
}

TEST(SeccompRules, SetIdModeBitsAreRefusedWhereverAModeIsPassed) {
  const FilterOptions options;
  for (const std::uint64_t bit : {std::uint64_t{S_ISUID}, std::uint64_t{S_ISGID}}) {
    EXPECT_TRUE(refused(options, "chmod", 0, bit | 0755));
    EXPECT_TRUE(refused(options, "fchmod", 3, bit | 0755));
    EXPECT_TRUE(refused(options, "fchmodat", AT_FDCWD, 0, bit | 0755));
    EXPECT_TRUE(refused(options, "fchmodat2", AT_FDCWD, 0, bit | 0755, 0));
    EXPECT_TRUE(refused(options, "creat", 0, bit | 0755));
    EXPECT_TRUE(refused(options, "mknod", 0, S_IFREG | bit | 0755));
    EXPECT_TRUE(refused(options, "mknodat", AT_FDCWD, 0, S_IFREG | bit | 0755));
    EXPECT_TRUE(refused(options, "open", 0, O_WRONLY | O_CREAT, bit | 0755));
    EXPECT_TRUE(refused(options, "open", 0, O_WRONLY | O_TMPFILE, bit | 0755));
    EXPECT_TRUE(refused(options, "openat", AT_FDCWD, 0, O_WRONLY | O_CREAT, bit | 0755));
    EXPECT_TRUE(refused(options, "openat", AT_FDCWD, 0, O_WRONLY | O_TMPFILE, bit | 0755));
  }
  // Plain modes, sticky directories and opens that create nothing pass.
  EXPECT_FALSE(refused(options, "chmod", 0, 0755));
  EXPECT_FALSE(refused(options, "chmod", 0, 01777));
  EXPECT_FALSE(refused(options, "fchmodat", AT_FDCWD, 0, 0644));
  EXPECT_FALSE(refused(options, "open", 0, O_WRONLY | O_CREAT, 0644));
  EXPECT_FALSE(refused(options, "openat", AT_FDCWD, 0, O_RDONLY, S_ISUID | 0755));
  EXPECT_FALSE(refused(options, "mknodat", AT_FDCWD, 0, S_IFIFO | 0600));
}

TEST(SeccompRules, CloneIsRefusedOnlyWithNamespaceFlags) {
  const FilterOptions options;
  const std::uint64_t thread_flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
                                     CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS |
                                     CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
  EXPECT_FALSE(refused(options, "clone", thread_flags));
  EXPECT_FALSE(refused(options, "clone", SIGCHLD | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID));
  for (std::uint64_t ns : {CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER,
                           CLONE_NEWPID, CLONE_NEWNET}) {
    EXPECT_TRUE(refused(options, "clone", ns | SIGCHLD)) << std::hex << ns;
    EXPECT_TRUE(refused(options, "clone", ns | thread_flags)) << std::hex << ns;
  }
}

TEST(SeccompRules, PersonalityAllowsOnlyLinuxAndQuery) {
  const FilterOptions options;
  EXPECT_FALSE(refused(options, "personality", 0));
  EXPECT_FALSE(refused(options, "personality", 0xffffffffULL));
  // The kernel reads 32 bits: 1<<32 is personality(0) to it.
  EXPECT_FALSE(refused(options, "personality", 1ULL << 32));
  for (std::uint64_t bad :
       {0x0040000ULL /* ADDR_NO_RANDOMIZE */, 0x0400000ULL /* READ_IMPLIES_EXEC */,
        0x0008ULL /* PER_LINUX32 */, 0x0200000ULL /* ADDR_COMPAT_LAYOUT */, 1ULL, 0x80000000ULL,
        0xfffffffeULL, 0x7fffffffULL, 0xffff0000ULL, (1ULL << 32) | 0x0040000ULL}) {
    EXPECT_TRUE(refused(options, "personality", bad)) << std::hex << bad;
  }
  // Every single-bit and every all-but-one-bit value.
  for (unsigned bit = 0; bit < 32; ++bit) {
    EXPECT_TRUE(refused(options, "personality", 1ULL << bit)) << bit;
    EXPECT_TRUE(refused(options, "personality", 0xffffffffULL & ~(1ULL << bit))) << bit;
  }
}

TEST(SeccompRules, TerminalInjectionIoctlsAreRefusedOnTheLow32Bits) {
  const FilterOptions options;
  EXPECT_TRUE(refused(options, "ioctl", 0, TIOCSTI));
  EXPECT_TRUE(refused(options, "ioctl", 0, TIOCLINUX));
  EXPECT_TRUE(refused(options, "ioctl", 0, (1ULL << 32) | TIOCSTI));
  EXPECT_TRUE(refused(options, "ioctl", 0, (0xdeadULL << 32) | TIOCLINUX));
  EXPECT_TRUE(refused(options, "ioctl", 0, TIOCSETD));
  EXPECT_TRUE(refused(options, "ioctl", 0, (1ULL << 40) | TIOCSETD));
  EXPECT_FALSE(refused(options, "ioctl", 0, TIOCGETD));
  EXPECT_FALSE(refused(options, "ioctl", 0, TCGETS));
  EXPECT_FALSE(refused(options, "ioctl", 0, FIONREAD));
}

TEST(SeccompRules, DescriptionNamesEveryRuleWithItsErrno) {
  const FilterOptions options{true, UnixSockets::allow};
  const std::vector<std::string> lines = describe_rules(options);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_NE(lines.front().find("native ABI only"), std::string::npos);
  EXPECT_EQ(lines.back(), "allow everything else");
  std::string all;
  for (const auto& line : lines) all += line + "\n";
  for (const Rule& rule : filter_rules(options)) {
    EXPECT_NE(all.find("refuse " + rule.syscall), std::string::npos) << rule.syscall;
  }
  EXPECT_NE(all.find("refuse clone3 -> ENOSYS"), std::string::npos);
  EXPECT_NE(all.find("refuse ptrace -> EPERM"), std::string::npos);
  EXPECT_NE(all.find("refuse socket when domain is not AF_UNIX -> EPERM"), std::string::npos);
  EXPECT_NE(all.find("TIOCSTI"), std::string::npos);

  const std::vector<std::string> open = describe_rules(FilterOptions{false, UnixSockets::allow});
  std::string open_all;
  for (const auto& line : open) open_all += line + "\n";
  EXPECT_EQ(open_all.find("refuse socket"), std::string::npos)
      << "an open network with AF_UNIX allowed has no socket rule";
}

}  // namespace
}  // namespace holdfast::seccomp
