// The seccomp policy as data: which system calls a confined command may not
// make, under which argument conditions, and with which errno. This is the
// pure core; filter.hpp turns these rules into a libseccomp filter, and
// `--explain` prints them with describe_rules(). Keeping one table for both
// means the explanation can never drift from what is enforced.
//
// The filter allows by default and refuses a fixed list: it is a deny list
// aimed at the kernel interfaces a confined command has no business using
// (namespace and mount games, tracing other processes, kernel attack surface
// such as io_uring and bpf, terminal injection), set-user-ID and
// set-group-ID mode bits (a file left with them runs with its owner's
// identity for whoever starts it later, outside the sandbox), plus socket
// families when the network is closed and AF_UNIX sockets beyond
// connected pairs. Everything else is left to bubblewrap's namespaces.
//
// Architectures: the filter is built for the native ABI only. A system call
// made through another ABI (i386 via int 0x80, x32 via __X32_SYSCALL_BIT on
// x86_64) kills the process with SIGSYS: such calls would otherwise bypass
// every rule below, because their numbers mean different system calls.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/unix_sockets.hpp"

namespace holdfast::seccomp {

// Which AF_UNIX sockets the command may make (base/unix_sockets.hpp).
using holdfast::unix_sockets_name;
using holdfast::UnixSockets;

struct FilterOptions {
  // network: closed — socket()/socketpair() of any family but AF_UNIX fail.
  bool network_closed = true;
  UnixSockets unix_sockets = UnixSockets::pairs;

  bool operator==(const FilterOptions&) const = default;
};

// Every distinct FilterOptions, in a fixed order: the programs compiled at
// build time (program.hpp) are stored in this order. A field added above
// must be enumerated here too, or its launches lose the baked program (they
// stay correct: the filter is then built at run time).
std::vector<FilterOptions> every_filter_options();

// "network_closed=true unix_sockets=pairs": for messages and traces.
std::string to_string(const FilterOptions& options);

// One argument test, as libseccomp understands it. `masked_equal` compares
// (arg & mask) == value; the others compare the whole 64-bit register.
enum class ArgOp { equal, not_equal, masked_equal };

struct ArgTest {
  unsigned index = 0;  // 0-based system-call argument
  ArgOp op = ArgOp::equal;
  std::uint64_t value = 0;
  std::uint64_t mask = 0;  // masked_equal only
};

// A refused system call. It is refused when any of `when_any` holds (each an
// AND of argument tests); an empty `when_any` refuses every call.
struct Rule {
  std::string syscall;  // libseccomp name, e.g. "ptrace"
  int error = 0;        // errno returned to the caller, e.g. EPERM
  std::vector<std::vector<ArgTest>> when_any;
  std::string condition;  // human form of when_any, empty when unconditional
  std::string reason;     // why it is refused
};

// The rules for `options`, in the order they are explained.
std::vector<Rule> filter_rules(const FilterOptions& options);

// The policy in human form, one line per rule, for `holdfast run --explain`:
//   "refuse ptrace -> EPERM: reads and changes other processes' memory"
// The first line states the architecture rule.
std::vector<std::string> describe_rules(const FilterOptions& options);

// "EPERM", "ENOSYS", ... (the number as text for anything else).
std::string errno_name(int error);

}  // namespace holdfast::seccomp
