// Relays an established tunnel's bytes both ways until both directions
// ended, counting them. splice(2) moves them socket → pipe → socket in the
// kernel, one pipe per direction, driven by the event loop's readiness
// waits: no copy through user space, which is what keeps a large download
// through the proxy near a direct connection's speed.
#pragma once

#include <cstdint>

#include "launcher/network/proxy_context.hpp"

namespace holdfast::network::proxy_detail {

// Half-closes like TCP: one side's end of file becomes shutdown(SHUT_WR)
// on the other, and the other direction goes on until its own end. An
// error on either side (a reset) shuts both sockets down, which ends the
// other direction too. Never throws for I/O errors.
//
// The counts grow as bytes are delivered (client → server into
// CLIENT_TO_SERVER), so a relay cut short (serve_proxy stopping) leaves
// them right for the audit line written as it unwinds.
asio::awaitable<void> relay(Tcp::socket& client, Tcp::socket& server,
                            std::uint64_t& client_to_server, std::uint64_t& server_to_client);

}  // namespace holdfast::network::proxy_detail
