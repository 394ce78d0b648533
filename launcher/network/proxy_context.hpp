// What the proxy's connections share during one serve_proxy run, and the
// small pieces of I/O every protocol handler needs: the audit entry that
// writes itself when an attempt ends, a deadline on a socket, one name
// resolution, the route to a destination (lists, resolution, address
// checks) and a connect under its deadline. Internal to launcher/network:
// the public interface is proxy_server.hpp.
//
// Everything here runs on the one thread of serve_proxy's event loop (the
// resolver's helper thread only runs getaddrinfo), so nothing is locked.
#pragma once

// clang-format off
// First: Boost 1.74's asio/awaitable.hpp uses std::exchange without
// including <utility>.
#include <utility>
// clang-format on

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "launcher/network/connection_decision.hpp"
#include "launcher/network/proxy_server.hpp"

namespace holdfast::network::proxy_detail {

namespace asio = boost::asio;
using Tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using boost::system::error_code;

// How many addresses the DNS stub's answers are remembered for (see
// ProxyContext::remember_answer); the oldest are forgotten first.
inline constexpr std::size_t kRememberedAddresses = 4096;

class ProxyContext {
 public:
  explicit ProxyContext(const ProxyConfig& config) : config(config) {}
  ProxyContext(const ProxyContext&) = delete;
  ProxyContext& operator=(const ProxyContext&) = delete;

  const ProxyConfig& config;
  // Proxy and DNS-over-TCP connections open now (CountedConnection).
  std::size_t active_connections = 0;
  // DNS questions over UDP being resolved now.
  std::size_t dns_in_flight = 0;

  // The stub answered NAME with ADDRESSES. A client that resolves through
  // the stub and then asks the proxy for an address (socks5:// rather than
  // socks5h://, or any program that connects by address) reaches that
  // address as the name it asked for: judged as the name, its TLS held to
  // the name.
  void remember_answer(const std::string& name, std::span<const Address> addresses);
  const std::string* name_answered_for(const Address& address) const;

  // One line, one write(2): the descriptor is O_APPEND, so lines of
  // concurrent writers never interleave. Errors are ignored: the audit
  // cannot stop a connection that already ended.
  void write_audit(const AuditRecord& record) const;

 private:
  std::unordered_map<std::string, std::string> names_by_address_;
  std::deque<std::string> remembered_order_;
};

// Now, UTC, RFC 3339 with milliseconds: "2026-12-02T16:48:28.123Z".
std::string audit_time_now();

// A connection attempt's audit line, written when the attempt ends: by
// finish(), or by the destructor (a handler that threw, or serve_proxy
// stopping with the connection open), so every attempt gets its line with
// its final bytes and duration.
class AuditEntry {
 public:
  AuditEntry(const ProxyContext& context, std::string protocol);
  AuditEntry(const AuditEntry&) = delete;
  AuditEntry& operator=(const AuditEntry&) = delete;
  ~AuditEntry() { finish(); }

  // Fills host, port and, for the record, what decided.
  void set_destination(const Destination& destination);
  void set_rule(const HostRule* rule);
  void refuse(std::string reason);
  void finish();

  AuditRecord record;

 private:
  const ProxyContext& context_;
  Clock::time_point start_;
  bool written_ = false;
};

// Gives back, when the connection ends, the place the accept loop counted
// for it (counted there, before the connection's coroutine starts, so a
// burst of accepts cannot pass the limit).
class CountedConnection {
 public:
  explicit CountedConnection(ProxyContext& context) : context_(context) {}
  CountedConnection(const CountedConnection&) = delete;
  CountedConnection& operator=(const CountedConnection&) = delete;
  ~CountedConnection() { --context_.active_connections; }

 private:
  ProxyContext& context_;
};

// Cancels a socket's pending operations when a point in time passes. The
// timer's handler may already be queued when the deadline is moved or
// this object dies, so it checks a generation number and a liveness flag
// that it shares, never the object itself.
class SocketDeadline {
 public:
  explicit SocketDeadline(Tcp::socket& socket);
  SocketDeadline(const SocketDeadline&) = delete;
  SocketDeadline& operator=(const SocketDeadline&) = delete;
  ~SocketDeadline();

  void arm(Clock::duration after);
  void disarm();
  // The deadline passed (until arm or disarm is called again).
  [[nodiscard]] bool expired() const { return state_->expired; }

 private:
  struct State {
    bool alive = true;
    bool expired = false;
    std::uint64_t generation = 0;
  };
  Tcp::socket& socket_;
  asio::steady_timer timer_;
  std::shared_ptr<State> state_;
};

// Appends what SOCKET has (at most up to LIMIT bytes in BUFFER). Errors:
// eof, timed_out (the DEADLINE passed), no_buffer_space (LIMIT reached),
// or the socket's error.
asio::awaitable<error_code> read_more(Tcp::socket& socket, std::string& buffer, std::size_t limit,
                                      const SocketDeadline& deadline);

// A one-shot signal one coroutine waits for and another sets.
class Event {
 public:
  explicit Event(const asio::any_io_executor& executor);
  void set();
  [[nodiscard]] bool is_set() const { return set_; }
  asio::awaitable<void> wait();

 private:
  asio::steady_timer timer_;
  bool set_ = false;
};

// Runs FIRST and SECOND concurrently on the calling coroutine's executor
// and returns when both have ended (exceptions are swallowed: each side
// reports through what it shares with the caller).
asio::awaitable<void> run_both(asio::awaitable<void> first, asio::awaitable<void> second);

Tcp::endpoint endpoint_of(const Address& address, std::uint16_t port);
Address address_of(const asio::ip::address& address);

// NAME resolved once, outside the sandbox, both families, each address
// once. not_found: the name has no address (NXDOMAIN or no data).
struct Resolution {
  std::vector<Address> addresses;
  bool not_found = false;
  std::string error;  // set when there are no addresses
};
asio::awaitable<Resolution> resolve_once(const std::string& name);

// Where one connection attempt may go: the destination as judged (an
// address the stub answered for a name is judged as that name), and the
// one address to connect to.
struct Route {
  enum class Outcome : std::uint8_t { allowed, refused, unresolved };
  Outcome outcome = Outcome::refused;
  std::string reason;
  const HostRule* rule = nullptr;
  Destination judged;
  std::optional<Address> address;
};
asio::awaitable<Route> find_route(ProxyContext& context, const Destination& asked);

// Connects SOCKET to ADDRESS:PORT within the connect deadline. timed_out
// when it passed.
asio::awaitable<error_code> connect_within(Tcp::socket& socket, const Address& address,
                                           std::uint16_t port, Clock::duration deadline);

// A refusal to an HTTP client: STATUS with "holdfast: REASON" as a short
// text body, and the connection closed.
std::string http_refusal(int status, std::string_view reason);

}  // namespace holdfast::network::proxy_detail
