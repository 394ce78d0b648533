// The HTTP server: cpp-httplib's request parsing and routing, with our own
// per-connection loop so that each connection can be judged by who is on
// the other end before any byte of it is read.
//
// cpp-httplib 0.11 gives a handler no way to reach the connection's socket,
// so SO_PEERCRED cannot be asked from a handler. Its per-connection entry
// point is a (private) virtual, which a subclass may override; the override
// asks the kernel for the peer's credentials, then hands the connection to
// httplib's request processing (process_request, protected) through a
// small socket stream of ours.
#pragma once

#include <httplib.h>
#include <sys/types.h>

#include <atomic>
#include <functional>
#include <optional>

namespace holdfast::service {

// Who is connected, as the kernel says (SO_PEERCRED); nullopt for a
// connection that has no such credentials (TCP).
struct Peer {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

// The peer of the connection the calling thread is serving (each
// connection is served on one thread from start to end); nullopt on TCP.
std::optional<Peer> current_peer();
// Whether the server's peer filter admitted that connection. A refused
// connection's one request reaches the pre-routing handler, which must
// answer it (403); its method is replaced so that no route can match it
// even if that handler forgets.
bool current_peer_allowed();

class PeerServer : public httplib::Server {
 public:
  // Decides, before anything is read, whether a peer may be served; a
  // refused connection is answered once and closed.
  using PeerFilter = std::function<bool(const std::optional<Peer>&)>;

  explicit PeerServer(PeerFilter filter);

  // Serves on a socket that is already bound and listening (our own Unix
  // socket, or one systemd passed in). Blocks until stop().
  bool listen_on(int listening_fd);

  // Stops serving, from any thread, at any time: unlike stop(), also when
  // the accept loop has not started yet (a SIGTERM right after start-up),
  // in which case listen_on() returns at once.
  void halt();

 private:
  bool process_and_close_socket(socket_t sock) override;

  PeerFilter filter_;
  std::atomic<bool> halted_{false};
};

}  // namespace holdfast::service
