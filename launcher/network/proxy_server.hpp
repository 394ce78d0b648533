// The launch's proxy and DNS stub: the imperative shell around the pure
// checks of this directory. It serves listening sockets that were made
// inside the sandbox's network namespace (launcher/run/network_proxy.hpp
// makes them before the command starts), and opens its own outgoing
// connections in the namespace it runs in (the host's).
//
// One port speaks three protocols, told apart by the first byte: HTTP
// CONNECT, plain-HTTP forwarding (absolute-form requests, every request of
// a kept-alive connection judged again), and SOCKS5 with names. Every
// connection attempt: the destination against the lists, one resolution
// outside, one address that passed the address checks (connected to, never
// resolved again), and for a tunnel the first bytes (a TLS ClientHello
// whose server name is the host asked for, or SSH). The DNS stub answers A
// and AAAA for allowed names with the addresses that pass the same checks,
// REFUSED for the rest.
//
// Every attempt, allowed or refused, is one JSON line on the audit
// descriptor (audit_line below).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/fd.hpp"
#include "launcher/network/address_check.hpp"
#include "launcher/network/network_rules.hpp"

namespace holdfast::network {

// Where the sandbox finds the proxy and the DNS stub (its own loopback).
inline constexpr std::uint16_t kProxyPort = 3128;
inline constexpr std::uint16_t kDnsPort = 53;
inline constexpr const char* kSandboxLoopback = "127.0.0.1";

// Made inside the sandbox's network namespace, bound to 127.0.0.1.
struct ProxySockets {
  base::UniqueFd proxy;    // TCP, listening on kProxyPort
  base::UniqueFd dns_udp;  // UDP, bound to kDnsPort
  base::UniqueFd dns_tcp;  // TCP, listening on kDnsPort
};

struct ProxyConfig {
  NetworkRules rules;
  // The host's own addresses (every interface's, loopback included): never
  // connected to, whatever a name resolves to.
  std::vector<Address> host_addresses;
  // The client's request head, SOCKS5 request or first tunnel bytes must
  // arrive within this; a connection that does not is closed and logged.
  std::chrono::milliseconds first_bytes_deadline{10000};
  std::chrono::milliseconds connect_deadline{15000};
  // Appended to, one line per connection attempt and per DNS question.
  int audit_fd = -1;
  // Proxy and DNS-over-TCP connections open at once; one over the limit
  // is closed at once (and logged).
  std::size_t max_connections = 256;
};

// One audit line's fields. "protocol": "connect" (HTTP CONNECT), "http"
// (plain-HTTP forwarding, one line per request), "socks5", "dns", or
// "unknown" (a client that sent nothing in time, or one over the
// connection limit: refused before its protocol was known).
struct AuditRecord {
  std::string time;  // UTC, RFC 3339 with milliseconds
  std::string protocol;
  // As the client named it (normalized), or the literal; an address the
  // DNS stub handed out for a name: that name (it was judged as the name).
  std::string host;
  std::uint16_t port = 0;
  std::optional<std::string> server_name;  // TLS: the ClientHello's name
  // The address connected to; "dns": the addresses answered, joined by ",".
  std::optional<std::string> address;
  bool allowed = false;
  std::string reason;  // refused: why
  std::string rule;    // the entry that decided, as written ("" when none)
  std::string rule_origin;
  std::uint64_t bytes_out = 0;  // client → server
  std::uint64_t bytes_in = 0;   // server → client
  std::uint64_t duration_ms = 0;
};
// The record as one line of compact JSON, with its newline.
std::string audit_line(const AuditRecord& record);

// The host's own addresses now (getifaddrs). Throws base::SystemError.
std::vector<Address> host_addresses();

// Serves SOCKETS until STOP_FD becomes readable or hangs up, then closes
// every connection and returns. Single event loop (Boost.Asio); name
// resolution may use helper threads. Throws base::SystemError when the loop
// cannot start at all.
void serve_proxy(ProxySockets sockets, const ProxyConfig& config, int stop_fd);

}  // namespace holdfast::network
