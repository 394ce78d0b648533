#include "launcher/run/net_connect.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <iostream>

#include "base/fd.hpp"
#include "launcher/network/proxy_server.hpp"

namespace holdfast::launcher {

namespace net_connect_detail {

// The proxy's answer head is short; anything longer is not our proxy.
constexpr std::size_t kMaxAnswerHead = 16 * 1024;

int fail(const std::string& why) {
  std::cerr << "holdfast net-connect: " << why << "\n";
  return 1;
}

bool send_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t sent = ::send(fd, data, size, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    data += sent;
    size -= static_cast<std::size_t>(sent);
  }
  return true;
}

bool write_all_fd(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    data += written;
    size -= static_cast<std::size_t>(written);
  }
  return true;
}

// Copies both ways until both directions have ended: standard input to the
// tunnel (then half-closes it), the tunnel to standard output.
int relay(int tunnel) {
  std::array<char, 64 * 1024> buffer{};
  bool input_open = true;
  bool tunnel_open = true;
  while (tunnel_open) {
    pollfd fds[2] = {{tunnel, POLLIN, 0}, {input_open ? 0 : -1, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return fail(std::string("poll: ") + std::strerror(errno));
    }
    if (fds[0].revents != 0) {
      const ssize_t got = ::recv(tunnel, buffer.data(), buffer.size(), 0);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        tunnel_open = false;
      } else if (!write_all_fd(1, buffer.data(), static_cast<std::size_t>(got))) {
        return 1;
      }
    }
    if (input_open && fds[1].revents != 0) {
      const ssize_t got = ::read(0, buffer.data(), buffer.size());
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        input_open = false;
        ::shutdown(tunnel, SHUT_WR);
      } else if (!send_all(tunnel, buffer.data(), static_cast<std::size_t>(got))) {
        return 1;
      }
    }
  }
  return 0;
}

}  // namespace net_connect_detail

int run_connector(const std::string& host, const std::string& port) {
  using namespace net_connect_detail;
  const base::UniqueFd tunnel(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!tunnel.valid()) return fail(std::string("socket: ") + std::strerror(errno));
  sockaddr_in proxy{};
  proxy.sin_family = AF_INET;
  proxy.sin_port = htons(network::kProxyPort);
  ::inet_pton(AF_INET, network::kSandboxLoopback, &proxy.sin_addr);
  if (::connect(tunnel.get(), reinterpret_cast<const sockaddr*>(&proxy), sizeof proxy) != 0) {
    return fail(std::string("cannot reach the launch's proxy at ") + network::kSandboxLoopback +
                ":" + std::to_string(network::kProxyPort) + " (" + std::strerror(errno) +
                "); net-connect works only inside `holdfast run` with a network allow-list");
  }
  const std::string authority =
      (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + port;
  const std::string request =
      "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n";
  if (!send_all(tunnel.get(), request.data(), request.size())) {
    return fail("the proxy closed the connection");
  }
  // Read the answer head byte by byte: whatever follows it is the
  // server's, and must go to standard output untouched.
  std::string head;
  while (!head.ends_with("\r\n\r\n")) {
    char c;
    const ssize_t got = ::recv(tunnel.get(), &c, 1, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0 || head.size() >= kMaxAnswerHead) {
      return fail("the proxy ended the connection before answering CONNECT " + authority);
    }
    head += c;
  }
  if (!head.starts_with("HTTP/1.1 200") && !head.starts_with("HTTP/1.0 200")) {
    std::string body;
    std::array<char, 4096> buffer{};
    ssize_t got;
    while ((got = ::recv(tunnel.get(), buffer.data(), buffer.size(), 0)) > 0 &&
           body.size() < 4096) {
      body.append(buffer.data(), static_cast<std::size_t>(got));
    }
    return fail("the proxy refused " + authority + ": " + head.substr(0, head.find("\r\n")) +
                (body.empty() ? "" : " — " + body.substr(0, body.find_last_not_of("\r\n") + 1)));
  }
  return relay(tunnel.get());
}

}  // namespace holdfast::launcher
