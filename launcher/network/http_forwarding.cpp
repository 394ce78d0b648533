#include "launcher/network/http_forwarding.hpp"

#include <sys/socket.h>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <optional>
#include <vector>

namespace holdfast::network::proxy_detail {
namespace http_forwarding_parts {

constexpr std::size_t kCopyBytes = 64 * 1024;

// What the two directions of one forwarding connection share.
struct Forwarding {
  std::uint64_t bytes_in = 0;  // server → client, the whole connection
  // Set by the request side before it shuts the server down: the response
  // side then leaves the client open for the refusal.
  std::string refusal;
  // The current request's line; its bytes_in is what the server sent while
  // it was the latest request (responses are relayed raw, not parsed, so
  // that is as close as the proxy knows).
  std::optional<AuditEntry> audit;
  std::uint64_t audit_in_start = 0;
  // What the first request was judged with; later ones go to the same place.
  std::string judged_host;
  const HostRule* rule = nullptr;
  std::string address;

  // The last entry ends with the connection: when it finishes, and also
  // when the proxy's stop cuts it off (the command ended before the
  // server's or the client's end reached the proxy), so that it still
  // reports the bytes it carried.
  Forwarding() = default;
  Forwarding(const Forwarding&) = delete;
  Forwarding& operator=(const Forwarding&) = delete;
  ~Forwarding() { end_entry(); }

  void end_entry() {
    if (!audit) return;
    audit->record.bytes_in = bytes_in - audit_in_start;
    audit->finish();
    audit.reset();
  }
};

asio::awaitable<error_code> send(Tcp::socket& socket, std::string_view bytes) {
  error_code error;
  co_await asio::async_write(socket, asio::buffer(bytes.data(), bytes.size()),
                             asio::redirect_error(asio::use_awaitable, error));
  co_return error;
}

// The server's bytes to the client as they come, until the server ends.
asio::awaitable<void> copy_responses(Tcp::socket& server, Tcp::socket& client,
                                     Forwarding& forwarding) {
  std::vector<char> buffer(kCopyBytes);
  for (;;) {
    error_code error;
    const std::size_t got = co_await server.async_read_some(
        asio::buffer(buffer), asio::redirect_error(asio::use_awaitable, error));
    if (error) break;
    if (co_await send(client, std::string_view(buffer.data(), got))) break;
    forwarding.bytes_in += got;
  }
  if (forwarding.refusal.empty()) {
    // No more responses can come: the client's later requests would have
    // nowhere to go. Shutting its reading down ends the request side too.
    ::shutdown(client.native_handle(), SHUT_RDWR);
  }
}

// LENGTH body bytes: first those already in RECEIVED (which keeps what
// follows them), then the client's.
asio::awaitable<error_code> forward_body(Tcp::socket& client, Tcp::socket& server,
                                         std::string& received, std::uint64_t length,
                                         std::uint64_t& bytes_out) {
  const auto buffered = static_cast<std::size_t>(std::min<std::uint64_t>(length, received.size()));
  if (buffered > 0) {
    if (const error_code error =
            co_await send(server, std::string_view(received).substr(0, buffered)))
      co_return error;
    received.erase(0, buffered);
    length -= buffered;
    bytes_out += buffered;
  }
  std::vector<char> buffer(kCopyBytes);
  while (length > 0) {
    error_code error;
    const std::size_t got = co_await client.async_read_some(
        asio::buffer(buffer.data(),
                     static_cast<std::size_t>(std::min<std::uint64_t>(length, buffer.size()))),
        asio::redirect_error(asio::use_awaitable, error));
    if (error) co_return error;
    if (const error_code sent = co_await send(server, std::string_view(buffer.data(), got)))
      co_return sent;
    length -= got;
    bytes_out += got;
  }
  co_return error_code{};
}

// Why REQUEST cannot be forwarded as it is, with its status.
std::optional<std::pair<int, std::string>> request_refusal(const ProxyRequest& request) {
  if (request.host_header_check == HostHeader::different) {
    return std::pair{403, "the Host header (" + request.host_header + ") names another host than " +
                              request.host + ":" + std::to_string(request.port)};
  }
  if (request.chunked) {
    return std::pair{411, std::string("a chunked request body is not forwarded: send a "
                                      "Content-Length")};
  }
  return std::nullopt;
}

// Cuts the server off at once and leaves the refusal for the client, sent
// once the response side has stopped. A response still on its way for an
// earlier, pipelined request is cut short by it: waiting for the server to
// finish would let a hostile client hold the connection with requests the
// proxy already refused.
void refuse_now(Tcp::socket& server, Forwarding& forwarding, int status,
                const std::string& reason) {
  forwarding.audit->refuse(reason);
  forwarding.refusal = http_refusal(status, reason);
  ::shutdown(server.native_handle(), SHUT_RDWR);
}

// The client's requests, one by one, to the server (pinned to FIRST's
// host and port), until the client ends or a request is refused.
asio::awaitable<void> forward_requests(ProxyContext& context, Tcp::socket& client,
                                       Tcp::socket& server, SocketDeadline& deadline,
                                       std::string& received, const RequestHead& first,
                                       Forwarding& forwarding) {
  RequestHead head = first;
  for (;;) {
    const ProxyRequest& request = head.request;
    const std::string sent_head = origin_form_head(request, received.substr(0, head.consumed));
    received.erase(0, head.consumed);
    if (co_await send(server, sent_head)) break;
    forwarding.audit->record.bytes_out += sent_head.size();
    if (co_await forward_body(client, server, received, request.content_length.value_or(0),
                              forwarding.audit->record.bytes_out)) {
      break;
    }

    // The next head: no deadline while the connection is idle, the first
    // bytes deadline once a head has begun.
    head = parse_later_request_head(received);
    bool armed = false;
    while (head.status == HeadStatus::need_more) {
      if (!received.empty() && !armed) {
        deadline.arm(context.config.first_bytes_deadline);
        armed = true;
      }
      if (co_await read_more(client, received, kMaxRequestHeadBytes, deadline)) {
        deadline.disarm();
        ::shutdown(server.native_handle(), SHUT_WR);  // the server finishes, then closes
        co_return;
      }
      head = parse_later_request_head(received);
    }
    deadline.disarm();
    forwarding.end_entry();
    forwarding.audit.emplace(context, "http");
    forwarding.audit_in_start = forwarding.bytes_in;
    AuditEntry& audit = *forwarding.audit;
    if (head.status == HeadStatus::refused) {
      refuse_now(server, forwarding, 400, "malformed request: " + head.reason);
      co_return;
    }
    audit.set_destination({head.request.host, head.request.address, head.request.port});
    audit.set_rule(forwarding.rule);
    if (head.request.host != first.request.host || head.request.port != first.request.port) {
      refuse_now(server, forwarding, 403,
                 "a kept-alive connection to " + first.request.host + ":" +
                     std::to_string(first.request.port) + " cannot carry a request for " +
                     head.request.host + ":" + std::to_string(head.request.port));
      co_return;
    }
    if (const auto refusal = request_refusal(head.request)) {
      refuse_now(server, forwarding, refusal->first, refusal->second);
      co_return;
    }
    // The same destination as the first request, judged then.
    audit.record.host = forwarding.judged_host;
    audit.record.address = forwarding.address;
    audit.record.allowed = true;
  }
  ::shutdown(server.native_handle(), SHUT_RDWR);
}

}  // namespace http_forwarding_parts

std::string origin_form_head(const ProxyRequest& request, std::string_view head) {
  return request.method + " " + request.path + " HTTP/1." + std::to_string(request.minor_version) +
         "\r\n" + std::string(head.substr(std::min(request.request_line_bytes, head.size())));
}

asio::awaitable<void> serve_http_forwarding(ProxyContext& context, Tcp::socket& client,
                                            SocketDeadline& deadline, std::string received,
                                            const RequestHead& head) {
  using http_forwarding_parts::send;
  http_forwarding_parts::Forwarding forwarding;
  forwarding.audit.emplace(context, "http");
  AuditEntry& audit = *forwarding.audit;
  const ProxyRequest& request = head.request;
  const Destination destination{request.host, request.address, request.port};
  audit.set_destination(destination);
  if (const auto refusal = http_forwarding_parts::request_refusal(request)) {
    audit.refuse(refusal->second);
    co_await send(client, http_refusal(refusal->first, refusal->second));
    co_return;
  }
  const Route route = co_await find_route(context, destination);
  audit.record.host = route.judged.host;
  audit.set_rule(route.rule);
  if (route.outcome != Route::Outcome::allowed) {
    audit.refuse(route.reason);
    co_await send(client, http_refusal(route.outcome == Route::Outcome::unresolved ? 502 : 403,
                                       route.reason));
    co_return;
  }
  audit.record.address = to_string(*route.address);
  Tcp::socket server(client.get_executor());
  const error_code connected = co_await connect_within(server, *route.address, request.port,
                                                       context.config.connect_deadline);
  if (connected) {
    const bool timed_out = connected == asio::error::timed_out;
    const std::string reason = "cannot connect to " + to_string(*route.address) + " port " +
                               std::to_string(request.port) + ": " +
                               (timed_out ? std::string("timed out") : connected.message());
    audit.refuse(reason);
    co_await send(client, http_refusal(timed_out ? 504 : 502, reason));
    co_return;
  }
  audit.record.allowed = true;
  forwarding.judged_host = route.judged.host;
  forwarding.rule = route.rule;
  forwarding.address = *audit.record.address;
  co_await run_both(http_forwarding_parts::copy_responses(server, client, forwarding),
                    http_forwarding_parts::forward_requests(context, client, server, deadline,
                                                            received, head, forwarding));
  if (!forwarding.refusal.empty()) co_await send(client, forwarding.refusal);
}

}  // namespace holdfast::network::proxy_detail
