#include "launcher/network/proxy_request.hpp"

#include <algorithm>

#include "launcher/network/host_rule.hpp"

namespace holdfast::network {
// A named namespace around the helpers: a unity build compiles this file in
// one unit with the rest of holdfast::network, whose helpers have the same
// short names.
namespace proxy_request_parse {
namespace {

// Refusal reasons are fixed text, never the client's bytes: they go into a
// 400 response and an audit line, where a hostile byte must not land.
constexpr std::string_view kNotHost = "the host is not a hostname or an IP address";

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_digit(c) || (lower(c) >= 'a' && lower(c) <= 'z'); }

bool fail(std::string& why, std::string_view reason) {
  why = reason;
  return false;
}

bool equals_ignoring_case(std::string_view text, std::string_view lower_word) {
  return text.size() == lower_word.size() &&
         std::equal(text.begin(), text.end(), lower_word.begin(),
                    [](char a, char b) { return lower(a) == b; });
}

// RFC 9110's token: what a method and a header name are made of.
bool is_token(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return is_alnum(c) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

bool parse_port(std::string_view text, std::uint16_t& port) {
  if (text.empty() || text.size() > 5 || !std::all_of(text.begin(), text.end(), is_digit)) {
    return false;
  }
  unsigned value = 0;
  for (const char c : text) value = value * 10 + static_cast<unsigned>(c - '0');
  if (value == 0 || value > 65535) return false;
  port = static_cast<std::uint16_t>(value);
  return true;
}

struct Authority {
  std::string host;
  std::optional<Address> address;
  std::optional<std::uint16_t> port;
};

// "host", "host:port", "[v6]", "[v6]:port": the host as the allow-list
// compares it. No user information, percent-encoding or numeric spelling
// a resolver would read as another address ("2130706433").
bool parse_authority(std::string_view text, Authority& out, std::string& why) {
  std::string_view host = text;
  std::optional<std::string_view> port;
  if (text.starts_with('[')) {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos) return fail(why, "'[' without ']' in the host");
    host = text.substr(1, close - 1);
    const std::string_view after = text.substr(close + 1);
    if (!after.empty() && after.front() != ':') {
      return fail(why, "something other than \":port\" after ']'");
    }
    if (!after.empty()) port = after.substr(1);
    out.address = parse_ip_literal(host);
    if (!out.address || out.address->family != Family::ipv6) {
      return fail(why, "not an IPv6 address between '[' and ']'");
    }
  } else {
    if (const std::size_t colon = text.find(':'); colon != std::string_view::npos) {
      host = text.substr(0, colon);
      port = text.substr(colon + 1);
    }
    out.address = parse_ip_literal(host);
    if (out.address && out.address->family != Family::ipv4) return fail(why, kNotHost);
  }
  if (out.address) {
    out.host = to_string(*out.address);
  } else {
    std::optional<std::string> name = normalize_wire_host_name(host);
    if (!name) return fail(why, kNotHost);
    out.host = std::move(*name);
  }
  if (port) {
    std::uint16_t value = 0;
    if (!parse_port(*port, value)) return fail(why, "the port is not a number from 1 to 65535");
    out.port = value;
  }
  return true;
}

// "http://host[:port][/path][?query]" into host, port and origin-form path.
bool parse_absolute_target(std::string_view target, ProxyRequest& out, std::string& why) {
  constexpr std::string_view kScheme = "http://";
  if (target.size() < kScheme.size() || !equals_ignoring_case(target.substr(0, 7), kScheme)) {
    if (target.starts_with('/')) return fail(why, "a path without a host: a proxy is sent URLs");
    if (target.size() >= 8 && equals_ignoring_case(target.substr(0, 8), "https://")) {
      return fail(why, "an https:// URL: HTTPS goes through CONNECT");
    }
    return fail(why, "the target is not an http:// URL");
  }
  const std::string_view rest = target.substr(kScheme.size());
  if (rest.find('#') != std::string_view::npos) return fail(why, "a fragment in the target");
  const std::size_t path_start = std::min(rest.find_first_of("/?"), rest.size());
  const std::string_view authority = rest.substr(0, path_start);
  // "http://allowed.example@evil.example/": which host is meant depends on
  // the reader; there is no reason to send credentials this way.
  if (authority.find('@') != std::string_view::npos) {
    return fail(why, "user information in the URL");
  }
  Authority parsed;
  if (!parse_authority(authority, parsed, why)) return false;
  out.form = RequestForm::absolute;
  out.host = std::move(parsed.host);
  out.address = parsed.address;
  out.port = parsed.port.value_or(80);
  const std::string_view path = rest.substr(path_start);
  out.path = path.starts_with('/') ? std::string(path) : "/" + std::string(path);
  return true;
}

bool parse_request_line(std::string_view line, bool later, ProxyRequest& out, std::string& why) {
  const std::size_t first = line.find(' ');
  const std::size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  if (second == std::string_view::npos || line.find(' ', second + 1) != std::string_view::npos) {
    return fail(why, "the request line is not METHOD TARGET VERSION");
  }
  const std::string_view method = line.substr(0, first);
  const std::string_view target = line.substr(first + 1, second - first - 1);
  const std::string_view version = line.substr(second + 1);
  if (!is_token(method)) return fail(why, "the method is not a token");
  if (version == "HTTP/1.1") {
    out.minor_version = 1;
  } else if (version == "HTTP/1.0") {
    out.minor_version = 0;
  } else {
    return fail(why, "the version is not HTTP/1.0 or HTTP/1.1");
  }
  if (target.empty() || std::any_of(target.begin(), target.end(), [](char c) {
        return static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f;
      })) {
    return fail(why, "a control, blank or non-ASCII byte in the target");
  }
  out.method = method;
  if (method != "CONNECT") return parse_absolute_target(target, out, why);
  if (later) return fail(why, "CONNECT after another request on the connection");
  Authority parsed;
  if (!parse_authority(target, parsed, why)) return false;
  if (!parsed.port) return fail(why, "CONNECT without a port");
  out.form = RequestForm::connect;
  out.host = std::move(parsed.host);
  out.address = parsed.address;
  out.port = *parsed.port;
  return true;
}

struct Headers {
  std::size_t count = 0;
  std::optional<std::string> host;
  std::optional<std::uint64_t> content_length;
  bool chunked = false;
};

bool parse_header_line(std::string_view line, Headers& headers, std::string& why) {
  // A line that continues the previous one (obs-fold) is read as one header
  // by some servers and as two by others.
  if (line.front() == ' ' || line.front() == '\t') {
    return fail(why, "a header line that starts with a blank (line folding)");
  }
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return fail(why, "a header line without ':'");
  const std::string_view name = line.substr(0, colon);
  if (!is_token(name)) return fail(why, "a header name that is not a token");
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  if (std::any_of(value.begin(), value.end(), [](char c) {
        return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f;
      })) {
    return fail(why, "a control character in a header value");
  }
  if (equals_ignoring_case(name, "host")) {
    if (headers.host) return fail(why, "more than one Host header");
    headers.host = std::string(value);
  } else if (equals_ignoring_case(name, "content-length")) {
    // Decimal digits only (no list, no sign): 18 of them cannot overflow.
    if (value.empty() || value.size() > 18 || !std::all_of(value.begin(), value.end(), is_digit)) {
      return fail(why, "a Content-Length that is not a decimal number");
    }
    std::uint64_t length = 0;
    for (const char c : value) length = length * 10 + static_cast<std::uint64_t>(c - '0');
    if (headers.content_length && *headers.content_length != length) {
      return fail(why, "two Content-Length headers that differ");
    }
    headers.content_length = length;
  } else if (equals_ignoring_case(name, "transfer-encoding")) {
    if (headers.chunked) return fail(why, "more than one Transfer-Encoding header");
    // Any other coding leaves the body's end to guesswork.
    if (!equals_ignoring_case(value, "chunked")) {
      return fail(why, "a Transfer-Encoding other than \"chunked\"");
    }
    headers.chunked = true;
  } else if (equals_ignoring_case(name, "content_length") ||
             equals_ignoring_case(name, "transfer_encoding")) {
    // CGI-style servers turn '-' into '_' in header names: the server would
    // read framing the proxy did not.
    return fail(why, "a framing header spelled with '_'");
  }
  return true;
}

// Checks that need every header, once the blank line is in.
bool finish(const Headers& headers, ProxyRequest& out, std::string& why) {
  // Which of the two wins differs between servers: the classic smuggling.
  if (headers.chunked && headers.content_length) {
    return fail(why, "both Transfer-Encoding and Content-Length");
  }
  if (headers.chunked && out.minor_version == 0) {
    return fail(why, "Transfer-Encoding in an HTTP/1.0 request");
  }
  // What follows a CONNECT head is the tunnel, never a body.
  if (out.form == RequestForm::connect && (headers.chunked || headers.content_length.value_or(0))) {
    return fail(why, "a CONNECT request with a body");
  }
  out.content_length = headers.content_length;
  out.chunked = headers.chunked;
  if (!headers.host) return true;
  out.host_header = *headers.host;
  Authority named;
  if (!parse_authority(out.host_header, named, why)) {
    return fail(why, "the Host header is not host[:port]");
  }
  // Names are never numeric and literals are in canonical text, so equal
  // text is the same host.
  const bool same_port =
      named.port ? *named.port == out.port : out.form == RequestForm::connect || out.port == 80;
  out.host_header_check =
      named.host == out.host && same_port ? HostHeader::same : HostHeader::different;
  return true;
}

RequestHead refused(std::string reason) {
  RequestHead head;
  head.status = HeadStatus::refused;
  head.reason = std::move(reason);
  return head;
}

// One pass, byte by byte: each limit is checked at the byte that breaks it
// and each line when its CRLF is in, so a verdict on a prefix is final.
RequestHead parse(std::string_view in, bool later) {
  RequestHead head;
  Headers headers;
  std::string why;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (i >= kMaxRequestHeadBytes) return refused("a request head longer than 16384 bytes");
    const char c = in[i];
    // A lone CR or LF ends a line for some parsers and not for others: the
    // proxy would judge one set of headers and the server act on another.
    if (c == '\r') {
      if (i + 1 < in.size() && in[i + 1] != '\n') return refused("a CR not followed by LF");
      continue;
    }
    if (c != '\n') {
      if (i - line_start >= kMaxRequestLineBytes) return refused("a line longer than 8192 bytes");
      continue;
    }
    if (i == line_start || in[i - 1] != '\r') return refused("a line that ends in LF without CR");
    const std::string_view line = in.substr(line_start, i - 1 - line_start);
    line_start = i + 1;
    if (head.request.request_line_bytes == 0) {
      if (line.empty()) return refused("an empty line before the request line");
      if (!parse_request_line(line, later, head.request, why)) return refused(why);
      head.request.request_line_bytes = i + 1;
    } else if (line.empty()) {
      if (!finish(headers, head.request, why)) return refused(why);
      head.status = HeadStatus::done;
      head.consumed = i + 1;
      return head;
    } else {
      if (++headers.count > kMaxRequestHeaderLines) return refused("more than 100 header lines");
      if (!parse_header_line(line, headers, why)) return refused(why);
    }
  }
  return head;
}

}  // namespace
}  // namespace proxy_request_parse

RequestHead parse_request_head(std::string_view received) {
  return proxy_request_parse::parse(received, false);
}

RequestHead parse_later_request_head(std::string_view received) {
  return proxy_request_parse::parse(received, true);
}

}  // namespace holdfast::network
