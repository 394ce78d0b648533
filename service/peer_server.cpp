#include "service/peer_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace holdfast::service {

namespace {

thread_local std::optional<Peer> t_peer;
thread_local bool t_allowed = false;

std::optional<Peer> peer_of(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
      address.ss_family != AF_UNIX) {
    return std::nullopt;
  }
  ucred credentials{};
  socklen_t size = sizeof credentials;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) {
    // A Unix connection whose peer cannot be named is treated as a stranger.
    return Peer{0, static_cast<uid_t>(-1), static_cast<gid_t>(-1)};
  }
  return Peer{credentials.pid, credentials.uid, credentials.gid};
}

// Waits until `fd` is ready for `events`, at most `timeout_ms`.
bool wait_for(int fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  for (;;) {
    const int ready = poll(&p, 1, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    return ready > 0 && (p.revents & (events | POLLHUP)) != 0;
  }
}

int milliseconds(time_t sec, time_t usec) { return static_cast<int>(sec * 1000 + usec / 1000); }

// A connection as httplib's request processing reads and writes it. Reads
// are buffered: httplib reads the request line and headers a byte at a time.
class SocketStream final : public httplib::Stream {
 public:
  SocketStream(int fd, int read_timeout_ms, int write_timeout_ms)
      : fd_(fd), read_timeout_ms_(read_timeout_ms), write_timeout_ms_(write_timeout_ms) {}

  bool is_readable() const override {
    return begin_ < end_ || wait_for(fd_, POLLIN, read_timeout_ms_);
  }
  // A peer that has gone away polls as writable (POLLHUP), and the write
  // then fails: that is how an event stream notices a client that left.
  bool is_writable() const override { return wait_for(fd_, POLLOUT, write_timeout_ms_); }
  ssize_t read(char* ptr, size_t size) override {
    if (begin_ == end_) {
      if (!wait_for(fd_, POLLIN, read_timeout_ms_)) return -1;
      ssize_t n;
      do n = recv(fd_, buffer_, sizeof buffer_, 0);
      while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      begin_ = 0;
      end_ = static_cast<size_t>(n);
    }
    const size_t count = std::min(size, end_ - begin_);
    std::memcpy(ptr, buffer_ + begin_, count);
    begin_ += count;
    return static_cast<ssize_t>(count);
  }
  ssize_t write(const char* ptr, size_t size) override {
    size_t written = 0;
    while (written < size) {
      if (!wait_for(fd_, POLLOUT, write_timeout_ms_)) return -1;
      const ssize_t n = send(fd_, ptr + written, size - written, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return -1;
      written += static_cast<size_t>(n);
    }
    return static_cast<ssize_t>(written);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    address_of(getpeername, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    address_of(getsockname, ip, port);
  }
  socket_t socket() const override { return fd_; }

  bool has_buffered() const { return begin_ < end_; }

 private:
  void address_of(int (*name)(int, sockaddr*, socklen_t*), std::string& ip, int& port) const {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    ip.clear();
    port = -1;
    if (name(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) return;
    char text[INET6_ADDRSTRLEN] = {};
    if (address.ss_family == AF_INET) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(&address);
      inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
      port = ntohs(in->sin_port);
    } else if (address.ss_family == AF_INET6) {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&address);
      inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
      port = ntohs(in6->sin6_port);
    }
    ip = text;
  }

  int fd_;
  int read_timeout_ms_;
  int write_timeout_ms_;
  char buffer_[4096];
  size_t begin_ = 0;
  size_t end_ = 0;
};

}  // namespace

std::optional<Peer> current_peer() { return t_peer; }
bool current_peer_allowed() { return t_allowed; }

PeerServer::PeerServer(PeerFilter filter) : filter_(std::move(filter)) {}

bool PeerServer::listen_on(int listening_fd) {
  // Published before halted_ is read, as halt() sets halted_ before taking
  // the socket: whichever runs second sees the other's write.
  svr_sock_ = listening_fd;
  if (halted_) {
    const int fd = svr_sock_.exchange(INVALID_SOCKET);
    if (fd != INVALID_SOCKET) close(fd);
    return true;
  }
  return listen_after_bind();
}

void PeerServer::halt() {
  halted_ = true;
  const int fd = svr_sock_.exchange(INVALID_SOCKET);
  if (fd != INVALID_SOCKET) {
    // Wakes the accept loop; it then finds no socket and ends.
    shutdown(fd, SHUT_RDWR);
    close(fd);
  }
}

bool PeerServer::process_and_close_socket(socket_t sock) {
  t_peer = peer_of(sock);
  const bool allowed = filter_(t_peer);
  t_allowed = allowed;
  SocketStream stream(sock, milliseconds(read_timeout_sec_, read_timeout_usec_),
                      milliseconds(write_timeout_sec_, write_timeout_usec_));
  bool ok = true;
  const int keep_alive_ms = static_cast<int>(keep_alive_timeout_sec_ * 1000);
  for (size_t left = allowed ? keep_alive_max_count_ : 1; left > 0; --left) {
    if (svr_sock_ == INVALID_SOCKET) break;  // stopping
    if (!stream.has_buffered() && !wait_for(sock, POLLIN, keep_alive_ms)) break;
    bool closed = false;
    ok = process_request(stream, left == 1, closed, [&](httplib::Request& request) {
      if (!allowed) request.method = "REFUSED";
    });
    if (!ok || closed) break;
  }
  t_peer.reset();
  t_allowed = false;
  shutdown(sock, SHUT_RDWR);
  close(sock);
  return ok;
}

}  // namespace holdfast::service
