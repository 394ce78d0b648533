// The head of an HTTP/1.x request a confined command sends to the launch's
// proxy: "CONNECT host:port HTTP/1.1" (a tunnel) or "GET http://host/path
// HTTP/1.1" (plain HTTP forwarded). The sender is hostile and the proxy
// forwards what it accepted to a server that parses it again, so the
// grammar is the strict one: CRLF line endings only, no folded headers, one
// Host, framing headers that cannot be read two ways (request smuggling).
//
// Incremental: call with every byte received so far; the answer depends
// only on those bytes, and a verdict given on a prefix (done or refused) is
// the verdict on anything that extends it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "launcher/network/address_check.hpp"

namespace holdfast::network {

// Hard limits; a head over one is refused, never truncated.
inline constexpr std::size_t kMaxRequestHeadBytes = 16 * 1024;  // through the blank line
inline constexpr std::size_t kMaxRequestLineBytes = 8 * 1024;   // any one line, without CRLF
inline constexpr std::size_t kMaxRequestHeaderLines = 100;

enum class RequestForm : std::uint8_t {
  connect,   // CONNECT host:port (authority-form)
  absolute,  // any other method with http://host[:port]/path (absolute-form)
};

// What the Host header says against the request target.
enum class HostHeader : std::uint8_t {
  absent,
  same,       // the same host and port (for CONNECT, a Host without a port: the same host)
  different,  // the proxy refuses the request
};

struct ProxyRequest {
  RequestForm form = RequestForm::connect;
  std::string method;  // as sent ("CONNECT", "GET"): methods are case-sensitive
  // The host to connect to: a name lower-cased with one trailing dot
  // dropped (the allow-list's form, normalize_host_name), or an IP literal
  // in its canonical text ("2001:db8::1", without brackets).
  std::string host;
  std::optional<Address> address;  // set when the target names an IP literal
  std::uint16_t port = 0;          // absolute-form without a port: 80
  // Absolute-form: the target in origin-form ("/a/b?c=d", "/" at least),
  // for the request line the proxy sends on. Empty for CONNECT.
  std::string path;
  int minor_version = 1;    // HTTP/1.0 or HTTP/1.1
  std::string host_header;  // its value, surrounding blanks dropped; empty when absent
  HostHeader host_header_check = HostHeader::absent;
  // The body's framing, for a forwarding proxy that must find the next
  // request. Never both (refused); neither means no body.
  std::optional<std::uint64_t> content_length;
  bool chunked = false;  // Transfer-Encoding: chunked
  // Bytes of the request line with its CRLF: the headers start here, so a
  // proxy that rewrites the request line sends the rest of the head as is.
  std::size_t request_line_bytes = 0;
};

enum class HeadStatus : std::uint8_t { need_more, done, refused };

struct RequestHead {
  HeadStatus status = HeadStatus::need_more;
  // done: the head's length through its blank line. Bytes after it are not
  // the head's: the body, the next request, or (CONNECT) the first bytes of
  // the tunnel, which a client may send before the proxy answers.
  std::size_t consumed = 0;
  std::string reason;    // refused: why, for the client's 400 and the audit line
  ProxyRequest request;  // done
};

// The first request head on a connection to the proxy.
RequestHead parse_request_head(std::string_view received);

// A later request head on a kept-alive forwarding connection, which the
// proxy checks like the first (each names its own host). The same grammar,
// except that CONNECT is refused: a tunnel starts on a connection of its
// own, never midway through plain-HTTP forwarding.
RequestHead parse_later_request_head(std::string_view received);

}  // namespace holdfast::network
