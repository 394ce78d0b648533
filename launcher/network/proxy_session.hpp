// One client connection to the proxy port: told apart by its first byte
// (0x05: SOCKS5; anything else: an HTTP request head), then a tunnel
// (CONNECT, SOCKS5 CONNECT) served here, or plain-HTTP forwarding
// (http_forwarding.hpp).
#pragma once

#include "launcher/network/proxy_context.hpp"

namespace holdfast::network::proxy_detail {

// Serves CLIENT to its end; writes the attempt's audit line(s). Never
// throws for anything the client or a server does.
asio::awaitable<void> serve_client(ProxyContext& context, Tcp::socket client);

}  // namespace holdfast::network::proxy_detail
