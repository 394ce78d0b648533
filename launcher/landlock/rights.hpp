// Landlock's access rights and ABI versions, as the kernel defines them
// (include/uapi/linux/landlock.h). Debian 12's headers stop at ABI 2, so
// every constant a launch uses is written here, with the ABI that added it;
// the values are the kernel's stable ABI. Used by the pure planner
// (landlock_plan.hpp) and by the helper that applies the rules inside the
// sandbox (helper/landlock_exec.cpp), so this header includes nothing but
// <cstdint>.
#pragma once

#include <cstdint>

namespace holdfast::landlock {

using Rights = std::uint64_t;

// Filesystem rights (LANDLOCK_ACCESS_FS_*).
inline constexpr Rights kExecute = 1ULL << 0;
inline constexpr Rights kWriteFile = 1ULL << 1;
inline constexpr Rights kReadFile = 1ULL << 2;
inline constexpr Rights kReadDir = 1ULL << 3;
inline constexpr Rights kRemoveDir = 1ULL << 4;
inline constexpr Rights kRemoveFile = 1ULL << 5;
inline constexpr Rights kMakeChar = 1ULL << 6;
inline constexpr Rights kMakeDir = 1ULL << 7;
inline constexpr Rights kMakeReg = 1ULL << 8;
inline constexpr Rights kMakeSock = 1ULL << 9;
inline constexpr Rights kMakeFifo = 1ULL << 10;
inline constexpr Rights kMakeBlock = 1ULL << 11;
inline constexpr Rights kMakeSym = 1ULL << 12;
inline constexpr Rights kRefer = 1ULL << 13;     // ABI 2
inline constexpr Rights kTruncate = 1ULL << 14;  // ABI 3
inline constexpr Rights kIoctlDev = 1ULL << 15;  // ABI 5

// Network rights (LANDLOCK_ACCESS_NET_*, ABI 4).
inline constexpr Rights kBindTcp = 1ULL << 0;
inline constexpr Rights kConnectTcp = 1ULL << 1;

// Scopes (LANDLOCK_SCOPE_*, ABI 6).
inline constexpr Rights kScopeAbstractUnixSocket = 1ULL << 0;
inline constexpr Rights kScopeSignal = 1ULL << 1;

// One letter per filesystem right, bit 0 first: the helper's arguments.
inline constexpr char kRightLetters[] = "xwrleuCDRSFBYfti";

// The rights that apply to a file that is not a directory.
inline constexpr Rights kFileRights = kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;

// Every filesystem right the kernel of `abi` knows (and so handles).
constexpr Rights filesystem_rights(int abi) {
  if (abi < 1) return 0;
  Rights rights = (1ULL << 13) - 1;  // ABI 1: execute .. make_sym
  if (abi >= 2) rights |= kRefer;
  if (abi >= 3) rights |= kTruncate;
  if (abi >= 5) rights |= kIoctlDev;
  return rights;
}

// The ruleset attribute of each ABI: handled_access_fs (ABI 1),
// handled_access_net (ABI 4), scoped (ABI 6); the kernel takes its size.
struct RulesetAttr {
  std::uint64_t handled_access_fs = 0;
  std::uint64_t handled_access_net = 0;
  std::uint64_t scoped = 0;
};
constexpr unsigned long ruleset_attr_size(int abi) { return abi >= 6 ? 24 : abi >= 4 ? 16 : 8; }

// The ruleset of a launch under `abi`: every filesystem right the kernel
// knows is handled (so denied unless a rule grants it); TCP bind and
// connect when the network is closed (ABI 4); `scopes` (ABI 6). holdfast
// creates it on the host and the helper completes it inside, so both read
// the ABI's rights from here.
constexpr RulesetAttr ruleset_attr(int abi, bool tcp_closed, Rights scopes) {
  RulesetAttr attr;
  attr.handled_access_fs = filesystem_rights(abi);
  if (abi >= 4 && tcp_closed) attr.handled_access_net = kBindTcp | kConnectTcp;
  if (abi >= 6) attr.scoped = scopes;
  return attr;
}

// What a rule granting `wanted` may carry under `abi`: only rights the
// ruleset handles (the kernel refuses others), and on a file that is not a
// directory only file rights (the kernel refuses directory rights there).
constexpr Rights rule_rights(Rights wanted, int abi, bool directory) {
  Rights rights = wanted & filesystem_rights(abi);
  if (!directory) rights &= kFileRights;
  return rights;
}

// landlock_add_rule's rule types and their attributes (packed, as the
// kernel declares them).
inline constexpr int kRulePathBeneath = 1;
inline constexpr int kRuleNetPort = 2;  // ABI 4
struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

inline constexpr unsigned kCreateRulesetVersion = 1U << 0;

// The newest ABI this holdfast knows what to do with.
inline constexpr int kNewestAbi = 7;

}  // namespace holdfast::landlock
