#include "launcher/network/relay.hpp"

#include <fcntl.h>
#include <sys/socket.h>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>

#include "base/fd.hpp"
#include "launcher/network/proxy_context.hpp"

namespace holdfast::network::proxy_detail {
namespace relay_parts {

// As much as one splice call moves. The pipe is enlarged to this when the
// system allows (pipe-max-size is 1 MiB by default), otherwise it keeps
// 64 KiB and splice moves less per call.
constexpr std::size_t kSpliceBytes = std::size_t{1024} * 1024;

// Moves FROM's bytes to TO until FROM's end of file (then shuts TO's
// writing down) or an error (then shuts both down).
void shut_both(Tcp::socket& from, Tcp::socket& to) {
  ::shutdown(from.native_handle(), SHUT_RDWR);
  ::shutdown(to.native_handle(), SHUT_RDWR);
}

asio::awaitable<void> pump(Tcp::socket& from, Tcp::socket& to, std::uint64_t& count) {
  base::Pipe pipe;
  try {
    pipe = base::make_pipe("a proxy relay", O_NONBLOCK);
  } catch (const std::exception&) {
    shut_both(from, to);
    co_return;
  }
  ::fcntl(pipe.write_end.get(), F_SETPIPE_SZ, static_cast<int>(kSpliceBytes));
  error_code error;
  for (;;) {
    const ssize_t in = ::splice(from.native_handle(), nullptr, pipe.write_end.get(), nullptr,
                                kSpliceBytes, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (in < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN) break;
      co_await from.async_wait(Tcp::socket::wait_read,
                               asio::redirect_error(asio::use_awaitable, error));
      if (error) break;
      continue;
    }
    if (in == 0) {
      ::shutdown(to.native_handle(), SHUT_WR);
      co_return;
    }
    auto pending = static_cast<std::size_t>(in);
    while (pending > 0) {
      const ssize_t out = ::splice(pipe.read_end.get(), nullptr, to.native_handle(), nullptr,
                                   pending, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
      if (out < 0) {
        if (errno == EINTR) continue;
        if (errno != EAGAIN) {
          shut_both(from, to);
          co_return;
        }
        co_await to.async_wait(Tcp::socket::wait_write,
                               asio::redirect_error(asio::use_awaitable, error));
        if (error) {
          shut_both(from, to);
          co_return;
        }
        continue;
      }
      pending -= static_cast<std::size_t>(out);
      count += static_cast<std::uint64_t>(out);
    }
  }
  shut_both(from, to);
}

}  // namespace relay_parts

asio::awaitable<void> relay(Tcp::socket& client, Tcp::socket& server,
                            std::uint64_t& client_to_server, std::uint64_t& server_to_client) {
  // splice needs both sockets non-blocking: a socket without O_NONBLOCK
  // would block the whole event loop in the kernel.
  error_code ignored;
  client.native_non_blocking(true, ignored);
  server.native_non_blocking(true, ignored);
  co_await run_both(relay_parts::pump(client, server, client_to_server),
                    relay_parts::pump(server, client, server_to_client));
}

}  // namespace holdfast::network::proxy_detail
