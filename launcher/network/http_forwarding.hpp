// Plain-HTTP forwarding: absolute-form requests ("GET http://host/path
// HTTP/1.1") sent on to the host they name in origin-form, the responses
// relayed back as they come. A kept-alive connection is pinned to the
// first request's host and port: every later request head is parsed and
// checked again, and one naming anything else is refused (403) and ends
// the connection.
//
// Request bodies are framed by Content-Length only. A chunked request body
// is refused with 411 Length Required (RFC 9112 lets a server do so), so
// the proxy never has to find the end of chunks a hostile client may
// frame two ways; request bodies from command-line tools carry a length.
#pragma once

#include <string>

#include "launcher/network/proxy_context.hpp"
#include "launcher/network/proxy_request.hpp"

namespace holdfast::network::proxy_detail {

// RECEIVED holds the first request's head (HEAD, parsed) and whatever
// followed it. One audit line per request.
asio::awaitable<void> serve_http_forwarding(ProxyContext& context, Tcp::socket& client,
                                            SocketDeadline& deadline, std::string received,
                                            const RequestHead& head);

// The head as it is sent on: the request line in origin-form, the headers
// as received.
std::string origin_form_head(const ProxyRequest& request, std::string_view head);

}  // namespace holdfast::network::proxy_detail
