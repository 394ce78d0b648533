// The launch's DNS stub: answers the sandbox's questions from the
// allow-list, never forwarding them. A name the lists allow (on any port)
// is resolved once outside and answered with the addresses that pass the
// address checks (remembered, so a later connection to one of them is
// judged as the name); every other name is REFUSED, and a question that
// names no hostname is NXDOMAIN. Over UDP and TCP.
#pragma once

#include <boost/asio/ip/udp.hpp>
#include <string>
#include <string_view>

#include "launcher/network/dns_message.hpp"
#include "launcher/network/proxy_context.hpp"

namespace holdfast::network::proxy_detail {

// The TTL of every answer: short, so a client asks again (and the stub
// checks again) rather than caching an address for long.
inline constexpr std::uint32_t kDnsAnswerTtl = 30;
// UDP questions resolved at once; more are answered SERVFAIL at once.
inline constexpr std::size_t kMaxDnsInFlight = 64;

// The answer to one message (empty: none may be sent), and its audit line.
asio::awaitable<std::string> answer_dns_message(ProxyContext& context, std::string message,
                                                DnsTransport transport);

// Serves SOCKET's datagrams until it is closed.
asio::awaitable<void> serve_dns_udp(ProxyContext& context, asio::ip::udp::socket& socket);

// Serves one TCP connection's messages (pipelined ones in order).
asio::awaitable<void> serve_dns_tcp_client(ProxyContext& context, Tcp::socket client);

}  // namespace holdfast::network::proxy_detail
