// Who may use the service over TCP: the pure rules, data in, verdict out.
//
// A browser on the same machine can be made to send requests to a loopback
// port by any web page it visits. So over TCP every request must carry the
// token printed at start-up (a header, or the cookie that visiting the
// printed URL sets), must name our own address as Host (a page that rebinds
// its own host name to 127.0.0.1 still sends its name: DNS rebinding), and
// a write must come with an Origin that is our own (the token cookie is
// SameSite=Strict, the Origin check holds even where a browser leaks it).
// No CORS headers are ever sent, so no other origin can read an answer.
//
// Over the Unix socket none of this applies: the kernel names the peer
// (SO_PEERCRED), and only its own user and root are served.
#pragma once

#include <optional>
#include <string>

namespace holdfast::service {

inline constexpr const char* kTokenCookie = "holdfast_token";

struct TcpAccess {
  std::string token;      // the secret printed at start-up
  std::string authority;  // "127.0.0.1:8731": the only Host accepted
};

// The parts of a request the rules look at.
struct RequestFacts {
  std::string method;
  std::string path;
  std::optional<std::string> host;
  std::optional<std::string> origin;
  std::optional<std::string> authorization;  // the Authorization header
  std::optional<std::string> cookie;         // the Cookie header
  std::optional<std::string> query_token;    // ?token= (only on GET /)
};

struct AccessVerdict {
  int status = 0;  // 0: go on; else answer with this status
  std::string error;
  std::string message;
  // A valid ?token= on GET /: set this cookie and send the browser to /
  // (so the token leaves the address bar and the history).
  std::optional<std::string> set_cookie;
};

AccessVerdict check_tcp_access(const TcpAccess& access, const RequestFacts& request);

// Compares in time that does not depend on where the strings differ.
bool same_secret(const std::string& a, const std::string& b);

// A fresh token: 32 bytes from getrandom(), as hex. Throws SystemError.
std::string new_token();

}  // namespace holdfast::service
