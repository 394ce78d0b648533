// The network allow-list's entries: which hosts and ports a confined
// command may reach through the launch's proxy. An entry is one string:
//
//   example.com             the name itself, port 443
//   *.example.com           strict subdomains (a.example.com, a.b.example.com;
//                           not example.com)
//   **.example.com          the name and its subdomains
//   example.com:8443        another port; ":80" is how plain HTTP is allowed
//                           (a deny entry without a port denies every port)
//   private:git.corp.example  the name may resolve to private ranges
//                           (RFC 1918, CGNAT, IPv6 ULA), refused otherwise
//   ip:203.0.113.7:443      an IP address, only in this explicit form
//   ip:[2001:db8::7]:443    (IPv6 in brackets when a port follows)
//
// Names are compared lower-case in their ASCII (punycode, "xn--") form,
// one trailing dot dropped. Refused with the reason: "*" alone, a wildcard
// over a single label ("*.com", "**.org"), a wildcard anywhere but the
// whole first label, an IP address or numeric form written as a name, and
// anything a hostname cannot be.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "launcher/network/address_check.hpp"

namespace holdfast::network {

enum class HostMatch : std::uint8_t {
  exact,                // example.com
  subdomains,           // *.example.com
  name_and_subdomains,  // **.example.com
  address,              // ip:203.0.113.7
};

struct HostRule {
  std::string text;    // as written, for --explain and the audit log
  std::string origin;  // the scope that wrote it (parse_network_rules), if known
  HostMatch match = HostMatch::exact;
  std::string name;                // lower-case ASCII, no trailing dot (empty for address)
  std::optional<Address> address;  // for HostMatch::address
  // Nothing: every port (a deny entry written without one). An allow entry
  // written without a port allows 443.
  std::optional<std::uint16_t> port = 443;
  bool private_allowed = false;
};

// What is wrong with an entry; the policy reader adds where it was.
class InvalidHostRule : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class RuleList : std::uint8_t { allow, deny };

HostRule parse_host_rule(std::string_view entry, RuleList list);

// HOST as an allow-list compares it: lower-case ASCII, internationalised
// labels in their punycode form, one trailing dot dropped. Nothing when it
// is not a hostname (a numeric form, an empty label, a byte no hostname
// has): such a host matches no entry.
std::optional<std::string> normalize_host_name(std::string_view host);

// A name as a client sends it on the wire (CONNECT, SOCKS5, SNI, DNS):
// already in its ASCII form, so a byte outside ASCII makes it no name
// rather than one IDNA would map (the server must read the very name the
// allow-list judged). Otherwise as normalize_host_name.
std::optional<std::string> normalize_wire_host_name(std::string_view host);
bool is_ascii(std::string_view text);

// Whether RULE covers a connection to the normalized name HOST on PORT.
bool rule_matches_name(const HostRule& rule, std::string_view host, std::uint16_t port);
// Whether RULE covers a connection to ADDRESS (an ip: entry) on PORT.
bool rule_matches_address(const HostRule& rule, const Address& address, std::uint16_t port);

enum class HostVerdict : std::uint8_t { allowed, denied, not_listed };

struct HostDecision {
  HostVerdict verdict = HostVerdict::not_listed;
  const HostRule* rule = nullptr;  // the entry that decided (null when not listed)
};

// Deny beats allow; a name no entry covers is not listed (refused too).
HostDecision decide_name(std::span<const HostRule> allow, std::span<const HostRule> deny,
                         std::string_view host, std::uint16_t port);
HostDecision decide_address(std::span<const HostRule> allow, std::span<const HostRule> deny,
                            const Address& address, std::uint16_t port);

// For the DNS stub, which learns a name but no port: allowed when an allow
// entry covers HOST on its own port (any port), denied when a deny entry
// written without a port covers it (one with a port denies only that port,
// and the name may still be reached on others). Deny beats allow.
HostDecision decide_name_any_port(std::span<const HostRule> allow, std::span<const HostRule> deny,
                                  std::string_view host);

}  // namespace holdfast::network
