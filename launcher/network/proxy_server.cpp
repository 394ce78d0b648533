#include "launcher/network/proxy_server.hpp"

#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <csignal>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/system_error.hpp"
#include "launcher/network/dns_stub.hpp"
#include "launcher/network/proxy_context.hpp"
#include "launcher/network/proxy_session.hpp"

namespace holdfast::network {
namespace proxy_server_parts {

using namespace proxy_detail;
using Udp = asio::ip::udp;

// An accepted connection's handler: serve_client or serve_dns_tcp_client.
using ConnectionHandler = asio::awaitable<void> (*)(ProxyContext&, Tcp::socket);

asio::awaitable<void> counted(ProxyContext& context, asio::awaitable<void> work) {
  const CountedConnection release(context);
  co_await std::move(work);
}

asio::awaitable<void> accept_loop(ProxyContext& context, Tcp::acceptor& acceptor,
                                  ConnectionHandler handler, const char* protocol) {
  const auto executor = co_await asio::this_coro::executor;
  asio::steady_timer pause(executor);
  for (;;) {
    error_code error;
    Tcp::socket socket =
        co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, error));
    if (error == asio::error::operation_aborted || !acceptor.is_open()) co_return;
    if (error) {
      // Out of descriptors or memory: the connection stays queued in the
      // kernel; try again in a moment rather than spin on the error.
      pause.expires_after(std::chrono::milliseconds(100));
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, error));
      continue;
    }
    if (context.active_connections >= context.config.max_connections) {
      AuditEntry audit(context, protocol);
      audit.refuse("too many connections at once (the limit is " +
                   std::to_string(context.config.max_connections) + ")");
      continue;  // SOCKET closes here
    }
    ++context.active_connections;
    asio::co_spawn(executor, counted(context, handler(context, std::move(socket))),
                   [](const std::exception_ptr&) {});
  }
}

template <typename Protocol>
Protocol protocol_of(int fd, const char* what) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    base::throw_errno("getsockname", what);
  }
  if (address.ss_family == AF_INET) return Protocol::v4();
  if (address.ss_family == AF_INET6) return Protocol::v6();
  throw base::SystemError("serve", what, "not an IPv4 or IPv6 socket");
}

template <typename Object>
void adopt(Object& object, base::UniqueFd& fd, const char* what) {
  const auto protocol = protocol_of<typename Object::protocol_type>(fd.get(), what);
  error_code error;
  object.assign(protocol, fd.get(), error);
  if (error) throw base::SystemError("serve", what, error.value());
  fd.release();
}

// SIGPIPE blocked on this thread while the loop runs: splice(2) to a
// socket whose peer is gone raises it (unlike send with MSG_NOSIGNAL),
// and its default action would kill the launcher. One raised meanwhile is
// taken off the pending set before the old mask comes back.
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;
  ~SigpipeBlocked() {
    if (sigismember(&old_, SIGPIPE) == 0) {
      const timespec now{};
      while (sigtimedwait(&pipe_, nullptr, &now) == SIGPIPE) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t pipe_{};
  sigset_t old_{};
};

}  // namespace proxy_server_parts

std::string audit_line(const AuditRecord& record) {
  nlohmann::ordered_json line;
  line["time"] = record.time;
  line["protocol"] = record.protocol;
  line["host"] = record.host;
  line["port"] = record.port;
  if (record.server_name) line["sni"] = *record.server_name;
  if (record.address) line["address"] = *record.address;
  line["allowed"] = record.allowed;
  line["reason"] = record.reason;
  line["rule"] = record.rule;
  line["origin"] = record.rule_origin;
  line["bytesOut"] = record.bytes_out;
  line["bytesIn"] = record.bytes_in;
  line["durationMs"] = record.duration_ms;
  // Replace, not throw: a reason may quote bytes that are no UTF-8.
  return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::vector<Address> host_addresses() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) base::throw_errno("getifaddrs", "the host's network interfaces");
  const std::unique_ptr<ifaddrs, decltype(&::freeifaddrs)> owned(list, &::freeifaddrs);
  std::vector<Address> addresses;
  for (const ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr) continue;
    Address address;
    if (entry->ifa_addr->sa_family == AF_INET) {
      const auto* v4 = reinterpret_cast<const sockaddr_in*>(entry->ifa_addr);
      std::memcpy(address.bytes.data(), &v4->sin_addr, 4);
    } else if (entry->ifa_addr->sa_family == AF_INET6) {
      const auto* v6 = reinterpret_cast<const sockaddr_in6*>(entry->ifa_addr);
      address.family = Family::ipv6;
      std::memcpy(address.bytes.data(), &v6->sin6_addr, 16);
    } else {
      continue;
    }
    if (std::find(addresses.begin(), addresses.end(), address) == addresses.end()) {
      addresses.push_back(address);
    }
  }
  return addresses;
}

// How many due handlers the proxy still runs once it is told to stop.
constexpr int kHandlersRunAfterStop = 4096;

void serve_proxy(ProxySockets sockets, const ProxyConfig& config, int stop_fd) {
  using namespace proxy_server_parts;
  // Declared first so it outlives the loop: handlers destroyed with the
  // io_context write their audit lines through it.
  ProxyContext context(config);
  asio::io_context io(1);
  Tcp::acceptor proxy(io);
  Tcp::acceptor dns_tcp(io);
  Udp::socket dns_udp(io);
  if (sockets.proxy.valid()) adopt(proxy, sockets.proxy, "the proxy's listening socket");
  if (sockets.dns_tcp.valid()) adopt(dns_tcp, sockets.dns_tcp, "the DNS stub's TCP socket");
  if (sockets.dns_udp.valid()) adopt(dns_udp, sockets.dns_udp, "the DNS stub's UDP socket");

  const int stop_copy = ::fcntl(stop_fd, F_DUPFD_CLOEXEC, 0);
  if (stop_copy < 0) base::throw_errno("dup", "the proxy's stop descriptor");
  asio::posix::stream_descriptor stop(io);
  error_code error;
  stop.assign(stop_copy, error);  // fails for a descriptor epoll cannot watch (a regular file)
  if (error) {
    ::close(stop_copy);
    throw base::SystemError("watch", "the proxy's stop descriptor", error.value());
  }
  // Readable or hung up: either ends the loop (epoll reports both).
  stop.async_wait(asio::posix::stream_descriptor::wait_read,
                  [&io](const error_code&) { io.stop(); });

  const auto ignore = [](const std::exception_ptr&) {};
  if (proxy.is_open()) {
    asio::co_spawn(io, accept_loop(context, proxy, &serve_client, "unknown"), ignore);
  }
  if (dns_tcp.is_open()) {
    asio::co_spawn(io, accept_loop(context, dns_tcp, &serve_dns_tcp_client, "dns"), ignore);
  }
  if (dns_udp.is_open()) asio::co_spawn(io, serve_dns_udp(context, dns_udp), ignore);

  const SigpipeBlocked sigpipe_blocked;
  io.run();
  // The stop can be seen in the same wake-up as a write the command has
  // already received: handlers that are due then (that write's count of
  // bytes, a connection's last reads) run before the connections end, or
  // their audit lines would miss bytes that did reach the command. New
  // connections are no longer taken. The command is gone, so what is due
  // ends without waiting for anyone; the bound stops a server that streams
  // to a client still open (a caller of this function that is not a launch)
  // from holding the stop.
  proxy.close(error);
  dns_tcp.close(error);
  dns_udp.close(error);
  io.restart();
  for (int ran = 0; ran < kHandlersRunAfterStop && io.poll_one() > 0; ++ran) {
  }
  // Leaving: the sockets close, then the io_context destroys every
  // connection's coroutine (their audit lines are written then).
}

}  // namespace holdfast::network
