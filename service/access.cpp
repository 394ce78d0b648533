#include "service/access.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstdint>

#include "base/system_error.hpp"

namespace holdfast::service {

namespace {

// The value of cookie `name` in a Cookie header ("a=1; b=2").
std::optional<std::string> cookie_value(const std::string& header, const std::string& name) {
  std::size_t at = 0;
  while (at < header.size()) {
    while (at < header.size() && (header[at] == ' ' || header[at] == ';')) ++at;
    const std::size_t end = std::min(header.find(';', at), header.size());
    const std::string pair = header.substr(at, end - at);
    const std::size_t equals = pair.find('=');
    if (equals != std::string::npos && pair.substr(0, equals) == name) {
      return pair.substr(equals + 1);
    }
    at = end;
  }
  return std::nullopt;
}

bool is_write(const std::string& method) { return method != "GET" && method != "HEAD"; }

AccessVerdict refuse(int status, std::string error, std::string message) {
  return AccessVerdict{status, std::move(error), std::move(message), std::nullopt};
}

}  // namespace

bool same_secret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    difference |= static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return difference == 0;
}

std::string new_token() {
  std::uint8_t bytes[32];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) base::throw_errno("getrandom for the access token", "");
    got += static_cast<std::size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (const std::uint8_t byte : bytes) {
    token += kHex[byte >> 4];
    token += kHex[byte & 0xf];
  }
  return token;
}

AccessVerdict check_tcp_access(const TcpAccess& access, const RequestFacts& request) {
  // Host first: an answer of any other kind would tell a rebinding page
  // something.
  if (!request.host || *request.host != access.authority) {
    return refuse(421, "wrong_host",
                  "this service answers only requests addressed to " + access.authority +
                      " (the Host header was \"" + request.host.value_or("") +
                      "\"); open the URL holdfast serve printed");
  }
  if (request.method == "GET" && request.path == "/" && request.query_token) {
    if (!same_secret(*request.query_token, access.token)) {
      return refuse(401, "bad_token",
                    "the token in the address is not this service's; open the URL holdfast "
                    "serve printed at its last start");
    }
    AccessVerdict verdict;
    verdict.set_cookie =
        std::string(kTokenCookie) + "=" + access.token + "; Path=/; HttpOnly; SameSite=Strict";
    return verdict;
  }
  std::optional<std::string> presented;
  if (request.authorization && request.authorization->starts_with("Bearer ")) {
    presented = request.authorization->substr(7);
  } else if (request.cookie) {
    presented = cookie_value(*request.cookie, kTokenCookie);
  }
  if (!presented || !same_secret(*presented, access.token)) {
    return refuse(401, "token_required",
                  "send the token holdfast serve printed at start-up: \"Authorization: Bearer "
                  "TOKEN\", or open the printed URL once in the browser");
  }
  if (is_write(request.method) &&
      (!request.origin || *request.origin != "http://" + access.authority)) {
    return refuse(403, "wrong_origin",
                  "a change must come from this service's own page: the Origin header must be "
                  "http://" +
                      access.authority + " (it was \"" + request.origin.value_or("") + "\")");
  }
  return AccessVerdict{};
}

}  // namespace holdfast::service
