// The HTTP/1.1 server behind `holdfast serve`: Boost.Beast on Boost.Asio,
// event-driven. One I/O thread holds every connection (a connection costs a
// socket and a small buffer, not a thread); the routes run on a few worker
// threads, and only for requests that were admitted.
//
// What a connection may hold, and for how long (ServerLimits):
// - A caller the service does not know yet (TCP, before a request carried
//   the session) has `header_deadline` to deliver each request's head,
//   from the moment the connection (or its previous answer) was ready;
//   trickling bytes does not extend it. A refused request is answered and
//   the connection closed, without reading its body.
// - A refused Unix-socket peer (SO_PEERCRED) gets its 403 without anything
//   being read, and `refused_deadline` to take it.
// - A known caller's idle connection lasts `idle_deadline`; a body must
//   arrive within `body_deadline`, an answer be taken within
//   `write_deadline`.
// - At `max_connections`, a new connection pushes out the oldest one not
//   yet known: the owner, whose requests are known at once, is not crowded
//   out by callers that send nothing.
// - An event stream is a subscription on the I/O thread, not a thread; at
//   most `max_streams` are open (more get 503), and a stream whose reader
//   falls `stream_backlog` bytes behind is closed.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

#include "service/http_message.hpp"

namespace holdfast::service {

struct ServerLimits {
  std::chrono::milliseconds header_deadline{std::chrono::seconds(10)};
  std::chrono::milliseconds idle_deadline{std::chrono::seconds(120)};
  std::chrono::milliseconds body_deadline{std::chrono::seconds(30)};
  std::chrono::milliseconds write_deadline{std::chrono::seconds(30)};
  std::chrono::milliseconds refused_deadline{std::chrono::seconds(2)};
  std::chrono::milliseconds keep_alive_comment{std::chrono::seconds(15)};
  std::size_t max_connections = 1024;
  std::size_t max_streams = 64;
  std::size_t header_limit = 16 * 1024;
  std::size_t body_limit = std::size_t{1} << 20;
  std::size_t stream_backlog = std::size_t{1} << 20;
  std::size_t workers = 4;
};

// What the server asks of the service about a request whose head has been
// read (on the I/O thread: these must not block).
struct Admission {
  // Answer at once, without reading a body or using a worker (a refusal,
  // a page file, a session exchange).
  std::optional<Response> answer;
  // The caller proved who it is: its connection may idle `idle_deadline`.
  bool known = false;
};

struct ServerHooks {
  // On accept, from the kernel's account of a Unix peer (nullopt on TCP):
  // the answer for a peer that is refused, nullopt to serve it.
  std::function<std::optional<Response>(const std::optional<Peer>&)> refuse_peer;
  // From the head alone (the body is not read yet).
  std::function<Admission(const Request&)> admit;
  // On a worker thread, with the body; must not throw.
  std::function<Response(Request&)> answer;
};

class HttpServer {
 public:
  // Serves on `listening_fd` (bound and listening; taken over). Stops on
  // SIGTERM, SIGINT or SIGHUP, which it catches from construction on.
  HttpServer(int listening_fd, ServerHooks hooks, ServerLimits limits = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Serves until a stop signal; returns once every worker has finished.
  void run();

  class Impl;  // http_server.cpp

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace holdfast::service
