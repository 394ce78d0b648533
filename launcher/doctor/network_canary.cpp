#include "launcher/doctor/network_canary.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "base/fd.hpp"
#include "launcher/network/network_rules.hpp"
#include "launcher/network/proxy_server.hpp"

namespace holdfast::doctor {

namespace network_canary_detail {

constexpr const char* kServerAddress = "10.213.255.1";
constexpr std::uint16_t kServerPort = 2222;
// How long the canary waits for any one step: a bound on a proxy that went
// wrong, so that the doctor always finishes.
constexpr int kStepMs = 5000;

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

void write_file(const char* path, const std::string& text) {
  const base::UniqueFd fd(::open(path, O_WRONLY | O_CLOEXEC));
  if (!fd.valid() || ::write(fd.get(), text.data(), text.size()) < 0) {
    fail(std::string("cannot write ") + path);
  }
}

// A network namespace of the canary's own; as another user than root, in
// a user namespace of its own that maps that user to root (what creating
// an interface address needs).
void enter_namespaces() {
  if (::geteuid() == 0) {
    if (::unshare(CLONE_NEWNET) != 0) fail("cannot make a network namespace");
    return;
  }
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  if (::unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
    fail("cannot make a user and network namespace");
  }
  write_file("/proc/self/setgroups", "deny");
  write_file("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1");
  write_file("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1");
}

void set_up(int sock, const char* name) {
  ifreq request{};
  std::strncpy(request.ifr_name, name, IFNAMSIZ - 1);
  if (::ioctl(sock, SIOCGIFFLAGS, &request) != 0) fail(std::string("cannot read ") + name);
  request.ifr_flags |= IFF_UP;
  if (::ioctl(sock, SIOCSIFFLAGS, &request) != 0) fail(std::string("cannot bring up ") + name);
}

// Loopback up, and the stand-in server's address on it (an alias: no
// interface to create).
void configure_interfaces() {
  const base::UniqueFd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!sock.valid()) fail("cannot make a socket");
  set_up(sock.get(), "lo");
  ifreq request{};
  std::strncpy(request.ifr_name, "lo:1", IFNAMSIZ - 1);
  auto* address = reinterpret_cast<sockaddr_in*>(&request.ifr_addr);
  address->sin_family = AF_INET;
  ::inet_pton(AF_INET, kServerAddress, &address->sin_addr);
  if (::ioctl(sock.get(), SIOCSIFADDR, &request) != 0) fail("cannot add the canary's address");
  set_up(sock.get(), "lo:1");
}

base::UniqueFd bound(int type, const char* host, std::uint16_t port) {
  base::UniqueFd fd(::socket(AF_INET, type | SOCK_CLOEXEC, 0));
  if (!fd.valid()) fail("cannot make a socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  ::inet_pton(AF_INET, host, &address.sin_addr);
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    fail(std::string("cannot bind ") + host);
  }
  if (type == SOCK_STREAM && ::listen(fd.get(), 8) != 0) fail("cannot listen");
  return fd;
}

std::uint16_t port_of(int fd) {
  sockaddr_in address{};
  socklen_t size = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  return ntohs(address.sin_port);
}

bool wait_for(int fd, short events) {
  pollfd p{fd, events, 0};
  return ::poll(&p, 1, kStepMs) == 1;
}

// Reads until TERMINATOR has arrived or the peer closed; bounded.
std::string read_until(int fd, std::string_view terminator) {
  std::string got;
  std::array<char, 512> buffer{};
  while (got.find(terminator) == std::string::npos && got.size() < 8192 && wait_for(fd, POLLIN)) {
    const ssize_t n = ::recv(fd, buffer.data(), buffer.size(), 0);
    if (n <= 0) break;
    got.append(buffer.data(), static_cast<std::size_t>(n));
  }
  return got;
}

base::UniqueFd connect_to(std::uint16_t port) {
  base::UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  ::inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  if (!fd.valid() ||
      ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    fail("cannot connect to the canary's proxy");
  }
  return fd;
}

void send_text(int fd, std::string_view text) {
  if (::send(fd, text.data(), text.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(text.size())) {
    fail("cannot send to the canary's proxy");
  }
}

nlohmann::json canary_in_child() {
  enter_namespaces();
  configure_interfaces();
  const base::UniqueFd server = bound(SOCK_STREAM, kServerAddress, kServerPort);
  network::ProxySockets sockets{bound(SOCK_STREAM, "127.0.0.1", 0),
                                bound(SOCK_DGRAM, "127.0.0.1", 0),
                                bound(SOCK_STREAM, "127.0.0.1", 0)};
  const std::uint16_t proxy_port = port_of(sockets.proxy.get());
  const base::UniqueFd audit(::memfd_create("holdfast-canary-audit", MFD_CLOEXEC));
  base::Pipe stop = base::make_pipe("the canary's proxy");
  if (!audit.valid()) fail("cannot make the canary's audit log");

  network::ProxyConfig config;
  const std::string entry = std::string("ip:") + kServerAddress + ":" + std::to_string(kServerPort);
  config.rules = network::parse_network_rules({{"allow", {entry}}}, "doctor");
  config.audit_fd = audit.get();  // the stand-in server's address is not the host's here
  std::thread proxy([&] {
    try {
      network::serve_proxy(std::move(sockets), config, stop.read_end.get());
    } catch (...) {
      // Seen by the client steps as a proxy that does not answer.
    }
  });

  nlohmann::json result = {{"allowed", false}, {"refused", false}};
  try {
    // Allowed: a tunnel to the listed address, SSH through it.
    const base::UniqueFd tunnel = connect_to(proxy_port);
    send_text(tunnel.get(),
              "CONNECT " + entry.substr(3) + " HTTP/1.1\r\nHost: " + entry.substr(3) + "\r\n\r\n");
    const std::string head = read_until(tunnel.get(), "\r\n\r\n");
    if (head.starts_with("HTTP/1.1 200")) {
      send_text(tunnel.get(), "SSH-2.0-holdfast-canary\r\n");
      if (wait_for(server.get(), POLLIN)) {
        const base::UniqueFd upstream(::accept4(server.get(), nullptr, nullptr, SOCK_CLOEXEC));
        if (upstream.valid() &&
            read_until(upstream.get(), "\r\n").starts_with("SSH-2.0-holdfast-canary")) {
          send_text(upstream.get(), "SSH-2.0-canary-server\r\n");
          result["allowed"] = read_until(tunnel.get(), "\r\n").starts_with("SSH-2.0-canary-server");
        }
      }
    } else {
      result["allowedAnswer"] = head.substr(0, head.find("\r\n"));
    }
    // Refused: a name no entry lists.
    const base::UniqueFd refused = connect_to(proxy_port);
    send_text(refused.get(),
              "CONNECT refused.invalid:443 HTTP/1.1\r\nHost: refused.invalid:443\r\n\r\n");
    const std::string answer = read_until(refused.get(), "\r\n\r\n");
    result["refused"] = answer.starts_with("HTTP/1.1 403");
    result["refusedAnswer"] = answer.substr(0, answer.find("\r\n"));
  } catch (const std::exception& e) {
    result["why"] = e.what();
  }
  // The tunnels are closed (their descriptors went out of scope); stop
  // the proxy, which writes their last audit lines.
  ::close(stop.write_end.release());
  proxy.join();
  ::lseek(audit.get(), 0, SEEK_SET);
  const std::string lines = base::read_all(audit.get(), "the canary's audit log", 1 << 20);
  result["auditLines"] = std::count(lines.begin(), lines.end(), '\n');
  return result;
}

}  // namespace network_canary_detail

CanaryResult run_network_canary() {
  using namespace network_canary_detail;
  CanaryResult out;
  base::Pipe report = base::make_pipe("the network canary");
  const pid_t child = ::fork();
  if (child < 0) {
    out.why = std::string("cannot fork: ") + std::strerror(errno);
    return out;
  }
  if (child == 0) {
    report.read_end.reset();
    std::string text;
    try {
      text = canary_in_child().dump();
    } catch (const std::exception& e) {
      text = nlohmann::json{{"setup", e.what()}}.dump();
    }
    (void)::write(report.write_end.get(), text.data(), text.size());
    ::_exit(0);
  }
  report.write_end.reset();
  std::string text;
  try {
    text = base::read_all(report.read_end.get(), "the network canary", 1 << 20);
  } catch (const std::exception& e) {
    out.why = e.what();
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const auto parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) {
    if (out.why.empty()) out.why = "the canary ended without a report";
    return out;
  }
  if (parsed.contains("setup")) {
    out.why = parsed["setup"].get<std::string>();
    return out;
  }
  out.ran = true;
  out.allowed_passed = parsed.value("allowed", false);
  out.refused_refused = parsed.value("refused", false);
  out.audit_lines = parsed.value("auditLines", 0);
  if (parsed.contains("why")) out.why = parsed["why"].get<std::string>();
  if (!out.allowed_passed && parsed.contains("allowedAnswer")) {
    out.why += (out.why.empty() ? "" : "; ") + std::string("the allowed CONNECT got \"") +
               parsed["allowedAnswer"].get<std::string>() + "\"";
  }
  if (!out.refused_refused && parsed.contains("refusedAnswer")) {
    out.why += (out.why.empty() ? "" : "; ") + std::string("the refused CONNECT got \"") +
               parsed["refusedAnswer"].get<std::string>() + "\"";
  }
  return out;
}

}  // namespace holdfast::doctor
