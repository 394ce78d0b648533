// Where a connection may go once a name has passed the allow-list: the
// address it resolved to (outside the sandbox, once) is checked here before
// the proxy connects to it, and the proxy connects only to that address.
// The checks close what a name alone cannot: DNS rebinding (an allowed name
// that answers 127.0.0.1 or a cloud's metadata address), IPv4 smuggled
// inside IPv6 forms, and numeric host spellings that resolvers quietly turn
// into addresses.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace holdfast::network {

enum class Family : std::uint8_t { ipv4, ipv6 };

// An IP address as its bytes: IPv4 in the first 4 bytes.
struct Address {
  Family family = Family::ipv4;
  std::array<std::uint8_t, 16> bytes{};

  bool operator==(const Address&) const = default;
};

// A strict IP literal: dotted-quad IPv4 with four decimal parts and no
// leading zeros, or IPv6 (no zone, no brackets). Nothing else: "127.1",
// "0x7f000001" and "2130706433" are not literals here (see
// numeric_host_form).
std::optional<Address> parse_ip_literal(std::string_view text);

// "203.0.113.7", "2001:db8::1".
std::string to_string(const Address& address);

// True when a resolver or URL parser would read HOST as an IPv4 address in
// one of the legacy inet_aton spellings or as a literal at all: its last
// label (one trailing dot dropped) is a decimal, octal or hexadecimal
// number: "2130706433", "0x7f000001", "127.1", "0177.0.0.1", "1.2.3.4".
// The WHATWG URL standard treats such a host as an IPv4 address, and so
// does getaddrinfo; the proxy asks names, never numbers, through this door.
bool numeric_host_form(std::string_view host);

// What an address is, by the ranges that decide whether a confined command
// may reach it. An IPv6 address that carries an IPv4 address (v4-mapped
// ::ffff:0:0/96, v4-compatible ::/96, NAT64 64:ff9b::/96, 6to4 2002::/16)
// is the kind of the IPv4 address inside it.
enum class AddressKind : std::uint8_t {
  global,       // the public internet
  private_use,  // RFC 1918, CGNAT 100.64/10, ULA fc00::/7, site-local, local NAT64
  loopback,     // 127/8, ::1
  link_local,   // 169.254/16, fe80::/10
  metadata,     // cloud instance-metadata and platform endpoints
  multicast,    // 224/4, ff00::/8
  unspecified,  // 0/8, ::
  reserved,     // 240/4 and broadcast, documentation ranges, Teredo, 192.0.0/24
};

AddressKind classify(const Address& address);

// The IPv4 address an IPv6 form carries (see classify), if any.
std::optional<Address> embedded_ipv4(const Address& address);

// Whether A and B are the same host, also when one of them is spelled as
// an IPv6 form that carries the other (::ffff:203.0.113.7 is 203.0.113.7):
// a check against an address must not be passed by another spelling.
bool same_host_address(const Address& a, const Address& b);

struct AddressPolicy {
  // An allow-list entry that says so lets its names reach private ranges.
  bool private_allowed = false;
  // The host's own addresses (every interface's): never reachable, since
  // a service bound to them is a service of the host.
  std::span<const Address> host_addresses;
};

// Why ADDRESS must not be connected to, or nothing when it may be.
std::optional<std::string> refuse_address(const Address& address, const AddressPolicy& policy);

}  // namespace holdfast::network
