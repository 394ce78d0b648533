#include "launcher/network/proxy_session.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "launcher/network/client_hello.hpp"
#include "launcher/network/http_forwarding.hpp"
#include "launcher/network/proxy_request.hpp"
#include "launcher/network/relay.hpp"
#include "launcher/network/socks5.hpp"

namespace holdfast::network::proxy_detail {
namespace proxy_session_parts {

// The first tunnel bytes are judged once a TLS ClientHello (at most
// kMaxClientHelloBytes in at most kMaxClientHelloRecords records) or an
// SSH identification prefix is in; the parsers decide well before this.
constexpr std::size_t kMaxFirstTunnelBytes =
    kMaxClientHelloBytes + kMaxClientHelloRecords * 5 + kMaxTlsRecordBytes;
// A SOCKS5 greeting and request are a few hundred bytes.
constexpr std::size_t kMaxSocksBytes = 1024;

enum class TunnelKind : std::uint8_t { http_connect, socks5 };

// What the client is told when the tunnel cannot be opened, or that it is.
// A SOCKS5 success names 0.0.0.0:0 as the bound address: the proxy's own
// outgoing address is the host's, which the sandbox has no use for and
// should not learn.
std::string tunnel_reply(TunnelKind kind, Socks5Reply code, int http_status,
                         std::string_view reason) {
  if (kind == TunnelKind::http_connect) {
    if (code == Socks5Reply::succeeded) return "HTTP/1.1 200 Connection established\r\n\r\n";
    return http_refusal(http_status, reason);
  }
  return socks5_request_reply(code);
}

asio::awaitable<void> send(Tcp::socket& socket, std::string_view bytes) {
  error_code ignored;
  co_await asio::async_write(socket, asio::buffer(bytes.data(), bytes.size()),
                             asio::redirect_error(asio::use_awaitable, ignored));
}

// Opens the tunnel to DESTINATION and serves it. EARLY: bytes the client
// sent after its request, before any reply (first tunnel bytes too).
//
// The proxy connects before it reads the first tunnel bytes, not after:
// the client sends its ClientHello only once it is told the tunnel is up,
// and telling it so before knowing is a lie when the server then cannot
// be reached (a 200 followed by a silent close, where a 502 or SOCKS5's
// "connection refused" would say what happened). The server sees a
// connection to an address that passed every check so far; a tunnel
// whose first bytes are then refused sends it nothing.
asio::awaitable<void> serve_tunnel(ProxyContext& context, Tcp::socket& client,
                                   SocketDeadline& deadline, AuditEntry& audit, TunnelKind kind,
                                   const Destination& destination, std::string early) {
  audit.set_destination(destination);
  const Route route = co_await find_route(context, destination);
  audit.record.host = route.judged.host;
  audit.set_rule(route.rule);
  if (route.outcome != Route::Outcome::allowed) {
    audit.refuse(route.reason);
    const bool unresolved = route.outcome == Route::Outcome::unresolved;
    co_await send(
        client,
        tunnel_reply(kind, unresolved ? Socks5Reply::host_unreachable : Socks5Reply::not_allowed,
                     unresolved ? 502 : 403, route.reason));
    co_return;
  }
  audit.record.address = to_string(*route.address);

  Tcp::socket server(client.get_executor());
  const error_code connected = co_await connect_within(server, *route.address, destination.port,
                                                       context.config.connect_deadline);
  if (connected) {
    const bool timed_out = connected == asio::error::timed_out;
    const std::string reason = "cannot connect to " + to_string(*route.address) + " port " +
                               std::to_string(destination.port) + ": " +
                               (timed_out ? std::string("timed out") : connected.message());
    audit.refuse(reason);
    const Socks5Reply code =
        timed_out                                       ? Socks5Reply::ttl_expired
        : connected == asio::error::connection_refused  ? Socks5Reply::connection_refused
        : connected == asio::error::network_unreachable ? Socks5Reply::network_unreachable
                                                        : Socks5Reply::host_unreachable;
    co_await send(client, tunnel_reply(kind, code, timed_out ? 504 : 502, reason));
    co_return;
  }
  co_await send(client, tunnel_reply(kind, Socks5Reply::succeeded, 200, ""));

  // The first tunnel bytes, under a deadline of their own.
  deadline.arm(context.config.first_bytes_deadline);
  std::string first = std::move(early);
  TunnelVerdict verdict = judge_tunnel_start(route.judged, first);
  while (verdict.status == TunnelStatus::need_more) {
    const error_code error = co_await read_more(client, first, kMaxFirstTunnelBytes, deadline);
    if (error) {
      audit.refuse(
          error == asio::error::timed_out ? "the client sent no complete first tunnel bytes in time"
          : error == asio::error::no_buffer_space
              ? "the first tunnel bytes are longer than any ClientHello"
              : "the client closed before its first tunnel bytes (" + error.message() + ")");
      co_return;
    }
    verdict = judge_tunnel_start(route.judged, first);
  }
  deadline.disarm();
  audit.record.server_name = verdict.server_name;
  if (verdict.status == TunnelStatus::refused) {
    if (!audit.record.server_name && verdict.kind == "tls") {
      // The verdict names no server on a refusal; the audit line should.
      audit.record.server_name = parse_client_hello(first).server_name;
    }
    audit.refuse(verdict.reason);
    co_return;
  }
  audit.record.allowed = true;
  error_code written;
  co_await asio::async_write(server, asio::buffer(first),
                             asio::redirect_error(asio::use_awaitable, written));
  if (written) {
    audit.record.reason = "the server closed: " + written.message();
    co_return;
  }
  audit.record.bytes_out = first.size();
  co_await relay(client, server, audit.record.bytes_out, audit.record.bytes_in);
}

asio::awaitable<void> serve_socks5(ProxyContext& context, Tcp::socket& client,
                                   SocketDeadline& deadline, std::string received) {
  AuditEntry audit(context, "socks5");
  Socks5Greeting greeting = parse_socks5_greeting(received);
  while (greeting.status == Socks5Status::need_more) {
    if (co_await read_more(client, received, kMaxSocksBytes, deadline)) {
      audit.refuse("the client sent no complete SOCKS5 greeting");
      co_return;
    }
    greeting = parse_socks5_greeting(received);
  }
  if (greeting.status == Socks5Status::refused) {
    audit.refuse("SOCKS5 greeting refused: " + greeting.reason);
    co_return;
  }
  co_await send(client, socks5_method_reply(greeting.no_auth_offered));
  if (!greeting.no_auth_offered) {
    audit.refuse("the SOCKS5 client offered no method without authentication");
    co_return;
  }
  received.erase(0, greeting.consumed);
  Socks5Request request = parse_socks5_request(received);
  while (request.status == Socks5Status::need_more) {
    if (co_await read_more(client, received, kMaxSocksBytes, deadline)) {
      audit.refuse("the client sent no complete SOCKS5 request");
      co_return;
    }
    request = parse_socks5_request(received);
  }
  if (request.status == Socks5Status::refused) {
    audit.refuse("SOCKS5 request refused: " + request.reason);
    co_await send(client, socks5_request_reply(request.reply));
    co_return;
  }
  deadline.disarm();
  const Destination destination{request.destination.host, request.destination.address,
                                request.destination.port};
  co_await serve_tunnel(context, client, deadline, audit, TunnelKind::socks5, destination,
                        received.substr(request.consumed));
}

asio::awaitable<void> serve_http(ProxyContext& context, Tcp::socket& client,
                                 SocketDeadline& deadline, std::string received) {
  RequestHead head = parse_request_head(received);
  while (head.status == HeadStatus::need_more) {
    const error_code error = co_await read_more(client, received, kMaxRequestHeadBytes, deadline);
    if (error) {
      AuditEntry audit(context, "http");
      audit.refuse(error == asio::error::timed_out
                       ? "the client sent no complete request head in time"
                       : "the client closed before its request head was complete");
      co_return;
    }
    head = parse_request_head(received);
  }
  deadline.disarm();
  if (head.status == HeadStatus::refused) {
    AuditEntry audit(context, "http");
    audit.refuse("malformed request: " + head.reason);
    co_await send(client, http_refusal(400, head.reason));
    co_return;
  }
  if (head.request.form == RequestForm::absolute) {
    co_await serve_http_forwarding(context, client, deadline, std::move(received), head);
    co_return;
  }
  AuditEntry audit(context, "connect");
  const Destination destination{head.request.host, head.request.address, head.request.port};
  if (head.request.host_header_check == HostHeader::different) {
    audit.set_destination(destination);
    audit.refuse("the Host header names another host than the CONNECT target");
    co_await send(client, http_refusal(403, audit.record.reason));
    co_return;
  }
  co_await serve_tunnel(context, client, deadline, audit, TunnelKind::http_connect, destination,
                        received.substr(head.consumed));
}

}  // namespace proxy_session_parts

asio::awaitable<void> serve_client(ProxyContext& context, Tcp::socket client) {
  try {
    SocketDeadline deadline(client);
    deadline.arm(context.config.first_bytes_deadline);
    std::string received;
    const error_code error = co_await read_more(client, received, 1, deadline);
    if (error) {
      AuditEntry audit(context, "unknown");
      audit.refuse(error == asio::error::timed_out ? "the client sent nothing in time"
                                                   : "the client closed without sending anything");
      co_return;
    }
    if (received.front() == 0x05) {
      co_await proxy_session_parts::serve_socks5(context, client, deadline, std::move(received));
    } else {
      co_await proxy_session_parts::serve_http(context, client, deadline, std::move(received));
    }
  } catch (const std::exception&) {
    // Out of memory, say. The attempt's audit entry, unwound on the way
    // here, wrote its line; the connection closes with this frame.
  }
}

}  // namespace holdfast::network::proxy_detail
