// How the launch's proxy decides one connection, in the order it learns
// things: the destination the client names (before any DNS), the
// addresses that name resolved to (once, outside the sandbox), and the
// first bytes the client sends through the tunnel. Each step can refuse;
// each refusal says why and names the entry that decided when one did.
// Pure: the proxy does the I/O and asks here.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/network/address_check.hpp"
#include "launcher/network/host_rule.hpp"
#include "launcher/network/network_rules.hpp"

namespace holdfast::network {

// Where the client asked to go, as a parser returned it: a name
// (normalized) or an IP literal (address set; host its text).
struct Destination {
  std::string host;
  std::optional<Address> address;
  std::uint16_t port = 0;
};

struct Verdict {
  bool allowed = false;
  std::string reason;              // refused: why; allowed: empty
  const HostRule* rule = nullptr;  // the entry that decided, when one did
};

// Step 1, before resolving: the name or literal against the lists (deny
// beats allow). A name in a numeric spelling never gets here as a name:
// the parsers hand it over as no hostname, or as an address.
Verdict judge_destination(const NetworkRules& rules, const Destination& destination);

// Step 2, after resolving once: the first address the proxy may connect
// to, which is then the only one it connects to (a second lookup could
// answer differently). RULE is the entry step 1 allowed with: a private
// range only where it says "private:", or where it is an ip: entry for
// that very address.
struct AddressChoice {
  std::optional<Address> address;
  std::string reason;  // when no address may be used: why, one per address
};
AddressChoice choose_address(std::span<const Address> resolved, const HostRule& rule,
                             std::span<const Address> host_addresses);

// Step 3, the first bytes through a CONNECT or SOCKS5 tunnel. Only two
// kinds of traffic pass, because only they can be held to the name that
// was allowed: TLS whose ClientHello names exactly the destination's host
// (no Encrypted ClientHello, whose outer name is not the real one), and
// SSH (git over ssh; its identification string carries no name, and the
// address is already pinned). Plain HTTP goes to the proxy as forwarding
// requests, where every request's Host is checked.
enum class TunnelStatus : std::uint8_t { need_more, allowed, refused };
struct TunnelVerdict {
  TunnelStatus status = TunnelStatus::need_more;
  std::string reason;                      // refused: why
  std::optional<std::string> server_name;  // TLS: the name the ClientHello sent
  std::string kind;                        // "tls" or "ssh" once known
};
TunnelVerdict judge_tunnel_start(const Destination& destination, std::string_view first_bytes);

}  // namespace holdfast::network
