// The listening sockets `holdfast serve` accepts on: its own Unix socket, a
// loopback TCP port, or a socket systemd passed in (socket activation).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "base/fd.hpp"
#include "service/socket_directory.hpp"

namespace holdfast::service {

// $XDG_RUNTIME_DIR/holdfast/holdfast.sock; throws UsageError without
// XDG_RUNTIME_DIR (then --socket PATH says where).
std::filesystem::path default_socket_path();

// A listening Unix socket and the place it was bound in.
struct UnixListener {
  base::UniqueFd fd;
  SocketPlace place;
  dev_t device = 0;  // of the socket file, to remove it only while it is ours
  ino_t inode = 0;
};

// Binds and listens on a Unix socket at `path`, in a place
// prepare_socket_place() accepted (`ours`: holdfast's own directory under
// $XDG_RUNTIME_DIR). The socket is mode 0600 from the start (bound under
// umask 0177). A socket file left behind by a service that is gone is
// replaced; one that still answers is refused (another `holdfast serve`
// runs there); anything else there is refused. Throws SystemError /
// UsageError saying what to do.
UnixListener listen_unix(const std::filesystem::path& path, bool ours);

// Removes the socket file if it is still the one `listener` bound.
void remove_socket(const UnixListener& listener);

struct TcpAddress {
  std::string host;  // numeric: "127.0.0.1" or "::1" (without brackets)
  std::uint16_t port = 0;
  // "127.0.0.1:8080", "[::1]:8080" — what a browser sends as Host.
  std::string authority() const;
};

// Parses "HOST:PORT" ("[V6]:PORT"); the host must be a numeric address.
// Throws UsageError.
TcpAddress parse_tcp_address(const std::string& text);

// 127.0.0.0/8 and ::1.
bool is_loopback(const std::string& numeric_host);

// Binds and listens; port 0 picks a free port, written back into `address`.
base::UniqueFd listen_tcp(TcpAddress& address);

// The socket systemd passed (LISTEN_PID is us, LISTEN_FDS >= 1: fd 3), if
// any; the variables are then unset so children do not see them.
std::optional<base::UniqueFd> socket_from_systemd();

// The address family of a bound socket (AF_UNIX, AF_INET, AF_INET6).
int socket_family(int fd);

}  // namespace holdfast::service
