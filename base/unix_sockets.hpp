// Which AF_UNIX sockets a confined command may make: a setting of the
// policy (launcher/sandbox/policy.hpp, "unixSockets") that the seccomp
// filter enforces (launcher/seccomp/rules.hpp). One type for both, so no
// conversion can drift.
//   allow: any (a host socket the filesystem shows is one connect() away);
//   pairs: only connected stream or seqpacket pairs (socketpair), so that
//          local IPC works but no socket can be pointed at a host one:
//          socket(AF_UNIX) is refused, and so are datagram pairs, because
//          a datagram socket may send to any address;
//   deny:  none.
#pragma once

#include <string_view>

#include "base/name_table.hpp"

namespace holdfast {

enum class UnixSockets { allow, pairs, deny };

inline constexpr NameRow<UnixSockets> kUnixSocketsNames[] = {
    {UnixSockets::allow, "allow"}, {UnixSockets::pairs, "pairs"}, {UnixSockets::deny, "deny"}};

// "allow", "pairs", "deny".
constexpr std::string_view unix_sockets_name(UnixSockets sockets) {
  return name_in(kUnixSocketsNames, sockets);
}

}  // namespace holdfast
