// Who may use the service over TCP: the pure rules, data in, verdict out.
//
// A browser on the same machine can be made to send requests to a loopback
// port by any web page it visits, and it attaches cookies for 127.0.0.1 to
// every port of that address (a cookie's scope has no port; SameSite does
// not separate ports). Another local user's server on another port would
// receive such a cookie, and could set its own to shadow ours. So nothing
// the browser attaches by itself is a credential here:
//
// - holdfast serve prints http://127.0.0.1:PORT/#token=LINK. LINK is in the
//   fragment, which a browser never sends anywhere; the page reads it,
//   removes it from the address bar at once, and exchanges it
//   (POST /api/v1/session, "Authorization: Bearer LINK") for a session
//   secret. LINK works once: a copy left in the history is worth nothing.
// - The page keeps the session secret in sessionStorage (this origin, this
//   tab; other tabs of the page get it from an open one over a
//   BroadcastChannel, which only this origin can join) and sends it as
//   "Authorization: Bearer SESSION" on every call. Cookies are ignored.
// - Every request must name our own address as Host (a page that rebinds
//   its own host name to 127.0.0.1 still sends its name: DNS rebinding),
//   and a change must come with our own Origin.
// - The page's own files (/, /page/NAME) hold no secret and are served to
//   anyone who names our Host; everything under /api/v1 needs the session.
// No CORS headers are ever sent, so no other origin can read an answer.
//
// Over the Unix socket none of this applies: the kernel names the peer
// (SO_PEERCRED), and only its own user and root are served.
#pragma once

#include <optional>
#include <string>

namespace holdfast::service {

// What the service holds for TCP access; changed only through apply().
struct TcpAccess {
  std::string authority;   // "127.0.0.1:8731": the only Host accepted
  std::string link_token;  // printed at start-up, exchanged once
  bool link_used = false;
  std::optional<std::string> session;  // the secret the link was exchanged for
};

// The parts of a request the rules look at.
struct RequestFacts {
  std::string method;
  std::string path;
  std::optional<std::string> host;
  std::optional<std::string> origin;
  std::optional<std::string> authorization;  // the Authorization header
};

struct AccessVerdict {
  int status = 0;  // 0: go on; else answer with this status and close
  std::string error;
  std::string message;
  // A page file, served without a credential (it holds none).
  bool public_file = false;
  // A valid link on POST /api/v1/session: apply() makes the session and
  // the answer carries it.
  bool exchange_link = false;
};

inline constexpr const char* kSessionPath = "/api/v1/session";

AccessVerdict check_tcp_access(const TcpAccess& access, const RequestFacts& request);

// Carries out an exchange the verdict asked for: marks the link used and
// returns the new session secret (from new_token()).
std::string exchange_link(TcpAccess& access);

// The credential of an "Authorization: Bearer X" header; the scheme is
// matched without regard to case (RFC 9110), nullopt for another scheme.
std::optional<std::string> bearer_token(const std::string& authorization);

// Compares in time that does not depend on where the strings differ.
bool same_secret(const std::string& a, const std::string& b);

// A fresh token: 32 bytes from getrandom(), as hex. Throws SystemError.
std::string new_token();

}  // namespace holdfast::service
