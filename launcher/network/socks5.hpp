// SOCKS5 (RFC 1928) as a confined command speaks it to the launch's proxy:
// a greeting that offers authentication methods, the proxy's choice, then
// a request that names where to connect, and the proxy's reply. Only
// CONNECT without authentication is served: the sandbox is the only
// client, and BIND or UDP ASSOCIATE would open ways in or around the
// allow-list.
//
// Incremental like the other parsers here: call with every byte received
// so far (a string_view of bytes); a verdict given on a prefix (done or
// refused) is the verdict on anything that extends it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "launcher/network/address_check.hpp"

namespace holdfast::network {

enum class Socks5Status : std::uint8_t { need_more, done, refused };

// The REP field of a reply (RFC 1928, section 6).
enum class Socks5Reply : std::uint8_t {
  succeeded = 0x00,
  general_failure = 0x01,
  not_allowed = 0x02,  // "connection not allowed by ruleset": the allow-list said no
  network_unreachable = 0x03,
  host_unreachable = 0x04,
  connection_refused = 0x05,
  ttl_expired = 0x06,
  command_not_supported = 0x07,
  address_type_not_supported = 0x08,
};

struct Socks5Greeting {
  Socks5Status status = Socks5Status::need_more;
  std::size_t consumed = 0;      // done: 2 + NMETHODS; the request may follow at once
  std::string reason;            // refused: why (fixed text, never the client's bytes)
  bool no_auth_offered = false;  // done: method 0x00 is in the list
};

// VER = 5, NMETHODS = 1..255, the methods.
Socks5Greeting parse_socks5_greeting(std::string_view received);

// The proxy's choice of method: 05 00 when "no authentication" was
// offered, otherwise 05 FF ("no acceptable methods"), after which the
// client closes and so does the proxy.
std::string socks5_method_reply(bool no_auth_offered);

// Where the client asks to go.
struct Socks5Destination {
  // A name lower-cased with one trailing dot dropped (the allow-list's
  // form, normalize_host_name), or the canonical text of ADDRESS.
  std::string host;
  // ATYP 1 (IPv4) or 4 (IPv6); also a domain name (ATYP 3) that is an IP
  // literal ("127.0.0.1", "::1"), which the proxy must judge as an address.
  std::optional<Address> address;
  std::uint16_t port = 0;  // never 0
};

struct Socks5Request {
  Socks5Status status = Socks5Status::need_more;
  // done: the request's length. Bytes after it are the client's first
  // bytes for the destination, sent before the reply (allowed, if unusual).
  std::size_t consumed = 0;
  std::string reason;  // refused: why (fixed text)
  // refused: the reply to send before closing (socks5_request_reply):
  // command_not_supported for BIND and UDP ASSOCIATE,
  // address_type_not_supported for an unknown ATYP, general_failure else.
  Socks5Reply reply = Socks5Reply::general_failure;
  Socks5Destination destination;  // done
};

// VER = 5, CMD = CONNECT, RSV = 0, ATYP and DST.ADDR (IPv4, a domain name
// of 1..255 bytes that is a hostname or an IP literal, IPv6), DST.PORT in
// network byte order.
Socks5Request parse_socks5_request(std::string_view received);

// A reply to a request: VER, REP, RSV, then BND.ADDR and BND.PORT. On
// success the address is the proxy's own end of the outgoing connection;
// clients ignore it in practice, and a failure reply leaves it 0.0.0.0:0.
std::string socks5_request_reply(Socks5Reply reply, const Address& bound = {},
                                 std::uint16_t bound_port = 0);

}  // namespace holdfast::network
