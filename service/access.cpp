#include "service/access.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstdint>

#include "base/system_error.hpp"
#include "service/http_message.hpp"

namespace holdfast::service {

namespace {

bool is_write(const std::string& method) { return method != "GET" && method != "HEAD"; }

bool is_page_file(const RequestFacts& request) {
  return (request.method == "GET" || request.method == "HEAD") &&
         (request.path == "/" || request.path.starts_with("/page/"));
}

AccessVerdict refuse(int status, std::string error, std::string message) {
  AccessVerdict verdict;
  verdict.status = status;
  verdict.error = std::move(error);
  verdict.message = std::move(message);
  return verdict;
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

std::optional<std::string> bearer_token(const std::string& authorization) {
  constexpr std::string_view scheme = "bearer";
  if (authorization.size() <= scheme.size() ||
      !iequals(std::string_view(authorization).substr(0, scheme.size()), scheme) ||
      authorization[scheme.size()] != ' ') {
    return std::nullopt;
  }
  const std::size_t start = authorization.find_first_not_of(' ', scheme.size());
  if (start == std::string::npos) return std::nullopt;
  const std::size_t end = authorization.find_last_not_of(' ');
  return authorization.substr(start, end - start + 1);
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
  if (is_page_file(request)) {
    AccessVerdict verdict;
    verdict.public_file = true;
    return verdict;
  }
  const std::optional<std::string> presented =
      request.authorization ? bearer_token(*request.authorization) : std::nullopt;
  if (is_write(request.method) &&
      (!request.origin || *request.origin != "http://" + access.authority)) {
    // Checked before the credential is, so that a page elsewhere learns
    // nothing about it from the answer.
    return refuse(403, "wrong_origin",
                  "a change must come from this service's own page: the Origin header must be "
                  "http://" +
                      access.authority + " (it was \"" + request.origin.value_or("") + "\")");
  }
  if (request.method == "POST" && request.path == kSessionPath) {
    if (!presented || !same_secret(*presented, access.link_token)) {
      return refuse(401, "bad_link",
                    "this is not the link holdfast serve printed at its last start; open that "
                    "link (http://" +
                        access.authority + "/#token=...)");
    }
    if (access.link_used) {
      return refuse(401, "link_used",
                    "the link holdfast serve printed works once, and it was used already. Use a "
                    "tab of the page that is open (new tabs of the page get their session from "
                    "it), or restart holdfast serve for a new link");
    }
    AccessVerdict verdict;
    verdict.exchange_link = true;
    return verdict;
  }
  if (!presented || !access.session || !same_secret(*presented, *access.session)) {
    return refuse(401, "session_required",
                  "send the session secret: \"Authorization: Bearer SESSION\", where SESSION is "
                  "what POST " +
                      std::string(kSessionPath) +
                      " answered for the link holdfast serve printed (the settings page does "
                      "this when you open the link)");
  }
  return AccessVerdict{};
}

std::string exchange_link(TcpAccess& access) {
  access.link_used = true;
  access.session = new_token();
  return *access.session;
}

}  // namespace holdfast::service
