#include "service/http_server.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>

#include <boost/asio/basic_socket_acceptor.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>

namespace holdfast::service {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Protocol = asio::generic::stream_protocol;
using Socket = Protocol::socket;
using boost::system::error_code;

Response plain_error(int status, const std::string& error, const std::string& message) {
  Response response;
  response.status = status;
  response.body = nlohmann::json{{"error", error}, {"message", message}}.dump();
  response.close = true;
  return response;
}

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

}  // namespace

class Session;

class HttpServer::Impl {
 public:
  Impl(int listening_fd, ServerHooks hooks, ServerLimits limits);

  void run();
  void stop();
  void accept_next();
  void on_accept(error_code error, Socket socket);
  // Makes room for one more connection by closing the oldest caller not
  // yet known; false when every connection is a known one.
  bool push_out_one_unknown();

  void forget(std::uint64_t id) { sessions_.erase(id); }

  ServerHooks hooks;
  ServerLimits limits;
  std::size_t streams = 0;
  std::map<std::uint64_t, std::weak_ptr<Session>> sessions_;  // in the order accepted
  asio::io_context io;
  asio::thread_pool workers;

 private:
  asio::basic_socket_acceptor<Protocol> acceptor_;
  asio::signal_set signals_;
  asio::steady_timer retry_;
  std::uint64_t next_id_ = 1;
  bool stopping_ = false;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(HttpServer::Impl& server, Socket socket, std::uint64_t id)
      : server_(server),
        socket_(std::move(socket)),
        deadline_(server.io),
        keep_alive_(server.io),
        id_(id) {}

  ~Session() {
    if (streaming_) --server_.streams;
    server_.forget(id_);
  }

  bool known() const { return known_; }

  void start() {
    const int fd = socket_.native_handle();
    peer_ = peer_of(fd);
    if (!peer_) {
      const int on = 1;  // answers go out at once, not after the next ACK
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    }
    if (auto refusal = server_.hooks.refuse_peer(peer_)) {
      // Nothing is read from a refused peer: it gets its answer and the
      // connection ends.
      refusal->close = true;
      write(std::move(*refusal), server_.limits.refused_deadline);
      return;
    }
    known_ = peer_.has_value();  // an admitted Unix peer is known by the kernel
    read_head();
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    deadline_.cancel();
    keep_alive_.cancel();
    error_code ignored;
    socket_.shutdown(Socket::shutdown_both, ignored);
    socket_.close(ignored);
    subscription_.reset();
  }

 private:
  // Closes the connection when `after` has passed (or the next arm()).
  void arm(std::chrono::milliseconds after) {
    deadline_.expires_after(after);
    deadline_.async_wait([weak = weak_from_this()](error_code error) {
      if (error) return;  // re-armed or cancelled
      if (auto self = weak.lock()) self->close();
    });
  }
  void disarm() { deadline_.cancel(); }

  void read_head() {
    if (closed_) return;
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(server_.limits.header_limit));
    parser_->body_limit(server_.limits.body_limit);
    arm(known_ ? server_.limits.idle_deadline : server_.limits.header_deadline);
    http::async_read_header(
        socket_, buffer_, *parser_,
        [self = shared_from_this()](error_code error, std::size_t) { self->on_head(error); });
  }

  void on_head(error_code error) {
    if (closed_) return;
    if (error) {
      if (error == http::error::header_limit) {
        return write(plain_error(431, "header_too_large",
                                 "the request head is larger than " +
                                     std::to_string(server_.limits.header_limit) + " bytes"),
                     server_.limits.write_deadline);
      }
      if (error == http::error::end_of_stream || error == asio::error::eof ||
          error == asio::error::operation_aborted || error == asio::error::connection_reset ||
          error == http::error::partial_message) {
        return close();
      }
      return write(plain_error(400, "bad_request",
                               "the request could not be read as HTTP/1.1: " + error.message()),
                   server_.limits.write_deadline);
    }
    const auto& head = parser_->get();
    request_ = Request{};
    request_.method = std::string(head.method_string());
    const std::string_view target(head.target().data(), head.target().size());
    const std::size_t question = target.find('?');
    request_.path = std::string(target.substr(0, question));
    if (question != std::string_view::npos) {
      auto query = parse_query(target.substr(question + 1));
      if (!query) {
        return write(plain_error(400, "bad_request",
                                 "the query string has a malformed %-escape: " +
                                     std::string(target.substr(question + 1))),
                     server_.limits.write_deadline);
      }
      request_.query = std::move(*query);
    }
    for (const auto& field : head) {
      request_.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    request_.peer = peer_;
    head_only_ = request_.method == "HEAD";
    version_ = head.version();
    keep_alive_requested_ = head.keep_alive();

    Admission admission = server_.hooks.admit(request_);
    if (admission.known) known_ = true;
    if (admission.answer) {
      // A body left unread would be taken for the next request.
      if (!parser_->is_done()) admission.answer->close = true;
      return write(std::move(*admission.answer), server_.limits.write_deadline);
    }
    if (parser_->is_done()) return dispatch();
    const auto expect = head.find(http::field::expect);
    if (expect != head.end() && beast::iequals(expect->value(), "100-continue")) {
      static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      arm(server_.limits.write_deadline);
      asio::async_write(socket_, asio::buffer(kContinue),
                        [self = shared_from_this()](error_code error, std::size_t) {
                          if (error) return self->close();
                          self->read_body();
                        });
      return;
    }
    read_body();
  }

  void read_body() {
    if (closed_) return;
    arm(server_.limits.body_deadline);
    http::async_read(
        socket_, buffer_, *parser_, [self = shared_from_this()](error_code error, std::size_t) {
          if (self->closed_) return;
          if (error == http::error::body_limit) {
            return self->write(
                plain_error(413, "too_large",
                            "the request body is larger than any settings file (" +
                                std::to_string(self->server_.limits.body_limit) + " bytes)"),
                self->server_.limits.write_deadline);
          }
          if (error) return self->close();
          self->request_.body = std::move(self->parser_->get().body());
          self->dispatch();
        });
  }

  void dispatch() {
    disarm();  // the route's time is the service's, not the caller's
    asio::post(server_.workers,
               [self = shared_from_this(), request = std::move(request_)]() mutable {
                 Response response;
                 try {
                   response = self->server_.hooks.answer(request);
                 } catch (...) {
                   response = plain_error(500, "internal", "the service failed to answer");
                 }
                 asio::post(self->server_.io, [self, response = std::move(response)]() mutable {
                   self->respond(std::move(response));
                 });
               });
  }

  void respond(Response response) {
    if (closed_) return;
    if (response.stream) {
      if (server_.streams >= server_.limits.max_streams) {
        return write(
            plain_error(503, "too_many_streams",
                        "this service already sends " + std::to_string(server_.limits.max_streams) +
                            " event streams; close one (a page follows one per "
                            "browser) and try again"),
            server_.limits.write_deadline);
      }
      return start_stream(std::move(*response.stream));
    }
    write(std::move(response), server_.limits.write_deadline);
  }

  void write(Response response, std::chrono::milliseconds deadline) {
    if (closed_) return;
    const bool close_after = response.close || !keep_alive_requested_;
    auto message = std::make_shared<http::response<http::string_body>>();
    message->version(version_ == 10 ? 10 : 11);
    message->result(static_cast<unsigned>(response.status));
    message->set(http::field::content_type, response.content_type);
    message->set(http::field::cache_control, "no-store");
    message->set("X-Content-Type-Options", "nosniff");
    for (auto& [name, value] : response.headers) message->insert(name, value);
    message->keep_alive(!close_after);
    if (head_only_) {
      message->content_length(response.body.size());
    } else {
      message->body() = std::move(response.body);
      message->prepare_payload();
    }
    head_only_ = false;
    arm(deadline);
    http::async_write(
        socket_, *message,
        [self = shared_from_this(), message, close_after](error_code error, std::size_t) {
          if (error) return self->close();
          if (close_after) return self->linger_then_close();
          self->read_head();
        });
  }

  // Ends the connection after an answer without losing the answer: closing
  // a TCP socket with unread bytes (a body we did not read) resets it, and
  // a reset can overtake the answer at the client. So: no more from us,
  // then what the client still sends is read and dropped until it closes,
  // or for `refused_deadline` at most.
  void linger_then_close() {
    if (closed_) return;
    error_code ignored;
    socket_.shutdown(Socket::shutdown_send, ignored);
    arm(server_.limits.refused_deadline);
    drain();
  }

  void drain() {
    socket_.async_read_some(asio::buffer(hang_up_probe_),
                            [self = shared_from_this()](error_code error, std::size_t) {
                              if (error || self->closed_) return self->close();
                              self->drain();
                            });
  }

  // ---- event streams -------------------------------------------------------

  void start_stream(EventStream stream) {
    ++server_.streams;
    streaming_ = true;
    disarm();
    auto head = std::make_shared<http::response<http::empty_body>>();
    head->version(11);
    head->result(http::status::ok);
    head->set(http::field::content_type, "text/event-stream");
    head->set(http::field::cache_control, "no-store");
    head->set("X-Content-Type-Options", "nosniff");
    head->keep_alive(false);  // the stream ends with the connection
    auto serializer = std::make_shared<http::response_serializer<http::empty_body>>(*head);
    arm(server_.limits.write_deadline);
    http::async_write_header(socket_, *serializer,
                             [self = shared_from_this(), head, serializer,
                              stream = std::move(stream)](error_code error, std::size_t) mutable {
                               if (error || self->closed_) return self->close();
                               self->disarm();
                               asio::io_context& io = self->server_.io;
                               self->subscription_ = stream.subscribe(
                                   [weak = self->weak_from_this(), &io](std::string text) {
                                     asio::post(io, [weak, text = std::move(text)]() mutable {
                                       if (auto session = weak.lock())
                                         session->queue_event(std::move(text));
                                     });
                                   });
                               if (!self->subscription_) return self->close();
                               self->watch_for_hang_up();
                               self->schedule_keep_alive();
                             });
  }

  // A stream's client sends nothing; when it hangs up, the read ends.
  void watch_for_hang_up() {
    socket_.async_read_some(
        asio::buffer(hang_up_probe_),
        [self = shared_from_this()](error_code, std::size_t) { self->close(); });
  }

  // A quiet stream sends a comment now and then, so that a client that
  // went away without a word is noticed when the write fails.
  void schedule_keep_alive() {
    keep_alive_.expires_after(server_.limits.keep_alive_comment);
    keep_alive_.async_wait([weak = weak_from_this()](error_code error) {
      if (error) return;
      if (auto self = weak.lock()) {
        if (self->events_.empty()) self->queue_event(": keep-alive\n\n");
        self->schedule_keep_alive();
      }
    });
  }

  void queue_event(std::string text) {
    if (closed_) return;
    if (queued_bytes_ + text.size() > server_.limits.stream_backlog) return close();
    queued_bytes_ += text.size();
    events_.push_back(std::move(text));
    if (!writing_) write_next_event();
  }

  void write_next_event() {
    writing_ = true;
    arm(server_.limits.write_deadline);
    asio::async_write(socket_, asio::buffer(events_.front()),
                      [self = shared_from_this()](error_code error, std::size_t) {
                        if (error || self->closed_) return self->close();
                        self->queued_bytes_ -= self->events_.front().size();
                        self->events_.pop_front();
                        self->writing_ = false;
                        self->disarm();
                        if (!self->events_.empty()) self->write_next_event();
                      });
  }

  HttpServer::Impl& server_;
  Socket socket_;
  asio::steady_timer deadline_;
  asio::steady_timer keep_alive_;
  std::uint64_t id_;
  std::optional<Peer> peer_;
  bool known_ = false;
  bool closed_ = false;
  bool streaming_ = false;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  Request request_;
  unsigned version_ = 11;
  bool keep_alive_requested_ = true;
  bool head_only_ = false;
  std::shared_ptr<void> subscription_;
  std::deque<std::string> events_;
  std::size_t queued_bytes_ = 0;
  bool writing_ = false;
  char hang_up_probe_[64];
};

HttpServer::Impl::Impl(int listening_fd, ServerHooks hooks_in, ServerLimits limits_in)
    : hooks(std::move(hooks_in)),
      limits(limits_in),
      workers(limits_in.workers),
      acceptor_(io),
      signals_(io, SIGTERM, SIGINT, SIGHUP),
      retry_(io) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  getsockname(listening_fd, reinterpret_cast<sockaddr*>(&address), &length);
  acceptor_.assign(Protocol(address.ss_family, 0), listening_fd);
  signals_.async_wait([this](error_code error, int) {
    if (!error) stop();
  });
}

void HttpServer::Impl::run() {
  accept_next();
  io.run();
  workers.join();  // a save in progress finishes
}

void HttpServer::Impl::stop() {
  stopping_ = true;
  error_code ignored;
  acceptor_.close(ignored);
  retry_.cancel();
  for (auto& [id, weak] : std::map(sessions_)) {
    if (auto session = weak.lock()) session->close();
  }
  io.stop();
}

void HttpServer::Impl::accept_next() {
  if (stopping_) return;
  acceptor_.async_accept(
      [this](error_code error, Socket socket) { on_accept(error, std::move(socket)); });
}

bool HttpServer::Impl::push_out_one_unknown() {
  for (auto& [id, weak] : sessions_) {
    auto session = weak.lock();
    if (session && !session->known()) {
      session->close();
      return true;
    }
  }
  return false;
}

void HttpServer::Impl::on_accept(error_code error, Socket socket) {
  if (stopping_ || error == asio::error::operation_aborted) return;
  if (error) {
    // Out of descriptors (or another passing failure): make room, and try
    // again shortly rather than spinning.
    push_out_one_unknown();
    retry_.expires_after(std::chrono::milliseconds(50));
    retry_.async_wait([this](error_code waited) {
      if (!waited) accept_next();
    });
    return;
  }
  if (sessions_.size() >= limits.max_connections && !push_out_one_unknown()) {
    error_code ignored;
    socket.close(ignored);
    return accept_next();
  }
  const std::uint64_t id = next_id_++;
  auto session = std::make_shared<Session>(*this, std::move(socket), id);
  sessions_.emplace(id, session);
  session->start();
  accept_next();
}

HttpServer::HttpServer(int listening_fd, ServerHooks hooks, ServerLimits limits)
    : impl_(std::make_unique<Impl>(listening_fd, std::move(hooks), limits)) {}

HttpServer::~HttpServer() = default;

void HttpServer::run() { impl_->run(); }

}  // namespace holdfast::service
