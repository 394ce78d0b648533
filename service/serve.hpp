// `holdfast serve`: the settings service, from options to a running server.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>

namespace holdfast::service {

struct ServeOptions {
  std::optional<std::filesystem::path> socket;  // default: default_socket_path()
  std::optional<std::string> listen;            // "127.0.0.1:PORT": TCP instead of the socket
  bool allow_non_loopback = false;
};

// Listens, prints one line saying where on `out` (with the token URL over
// TCP), and serves until SIGTERM, SIGINT or SIGHUP. Returns the exit code;
// errors go to `err`.
int serve(const ServeOptions& options, std::ostream& out, std::ostream& err);

}  // namespace holdfast::service
