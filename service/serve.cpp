#include "service/serve.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <iostream>
#include <thread>

#include "base/fd.hpp"
#include "service/access.hpp"
#include "service/answers.hpp"
#include "service/events.hpp"
#include "service/launch_routes.hpp"
#include "service/listen_socket.hpp"
#include "service/page_routes.hpp"
#include "service/peer_server.hpp"
#include "service/settings_routes.hpp"

namespace holdfast::service {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Event streams hold a thread each for as long as they are open.
constexpr std::size_t kThreads = 32;
// Larger than any settings file holdfast accepts.
constexpr std::size_t kMaxBody = 4 << 20;

// Where the service listens and how callers are judged there.
struct Endpoint {
  base::UniqueFd fd;
  std::optional<fs::path> socket_path;  // ours to remove at the end
  std::optional<TcpAccess> tcp;         // over TCP: the token and the one Host
  std::string where;                    // for the "listening" line
};

Endpoint open_endpoint(const ServeOptions& options, std::ostream& err) {
  Endpoint endpoint;
  if (auto passed = socket_from_systemd()) {
    endpoint.fd = std::move(*passed);
    if (socket_family(endpoint.fd.get()) != AF_UNIX) {
      throw settings::UsageError(
          "systemd passed a socket that is not a Unix socket; holdfast.socket must use "
          "ListenStream=%t/holdfast/holdfast.sock (for TCP, run holdfast serve --listen)");
    }
    endpoint.where = "unix socket from systemd";
    return endpoint;
  }
  if (options.listen) {
    TcpAddress address = parse_tcp_address(*options.listen);
    if (!is_loopback(address.host)) {
      if (!options.allow_non_loopback) {
        throw settings::UsageError(
            "--listen " + *options.listen +
            " is not a loopback address: other machines could reach the service, and HTTP is "
            "not encrypted. Use 127.0.0.1, or pass --allow-non-loopback if you mean it");
      }
      err << "holdfast serve: warning: listening on " << address.host
          << ", which other machines can reach; the token is all that protects the settings, "
             "and it travels unencrypted\n";
    }
    endpoint.fd = listen_tcp(address);
    endpoint.tcp = TcpAccess{new_token(), address.authority()};
    endpoint.where = "http://" + address.authority() + "/?token=" + endpoint.tcp->token;
    return endpoint;
  }
  const fs::path path = options.socket ? *options.socket : default_socket_path();
  endpoint.fd = listen_unix(path);
  endpoint.socket_path = path;
  endpoint.where = "unix:" + path.string();
  return endpoint;
}

RequestFacts facts_of(const httplib::Request& request) {
  const auto header = [&](const char* name) -> std::optional<std::string> {
    if (!request.has_header(name)) return std::nullopt;
    return request.get_header_value(name);
  };
  RequestFacts facts{request.method,          request.path,     header("Host"), header("Origin"),
                     header("Authorization"), header("Cookie"), std::nullopt};
  if (request.has_param("token")) facts.query_token = request.get_param_value("token");
  return facts;
}

// Runs in the pre-routing handler: the peer check's answer, then (TCP) the
// token, Host and Origin rules. Handled means refused (or redirected).
httplib::Server::HandlerResponse admit(const std::optional<TcpAccess>& tcp,
                                       const httplib::Request& request,
                                       httplib::Response& response) {
  if (!current_peer_allowed()) {
    answer_error(response, 403, "peer_refused",
                 "this service serves only its own user and root; run your own holdfast serve");
    response.set_header("Connection", "close");
    return httplib::Server::HandlerResponse::Handled;
  }
  if (!tcp) return httplib::Server::HandlerResponse::Unhandled;
  const AccessVerdict verdict = check_tcp_access(*tcp, facts_of(request));
  if (verdict.status != 0) {
    answer_error(response, verdict.status, verdict.error, verdict.message);
    return httplib::Server::HandlerResponse::Handled;
  }
  if (verdict.set_cookie) {
    response.set_header("Set-Cookie", *verdict.set_cookie);
    response.set_redirect("/", 303);
    return httplib::Server::HandlerResponse::Handled;
  }
  return httplib::Server::HandlerResponse::Unhandled;
}

// Blocks the signals that stop the service in every thread; one thread
// waits for them and stops the server.
sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGUSR1);  // our own wake-up when the server ends by itself
  return set;
}

}  // namespace

int serve(const ServeOptions& options, std::ostream& out, std::ostream& err) {
  const sigset_t signals = stop_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before any thread exists: all inherit it

  Endpoint endpoint;
  try {
    endpoint = open_endpoint(options, err);
  } catch (const std::exception& e) {
    err << "holdfast serve: " << e.what() << "\n";
    return 1;
  }

  const uid_t self = geteuid();
  PeerServer server([self](const std::optional<Peer>& peer) {
    return !peer || peer->uid == self || peer->uid == 0;
  });
  server.new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
  server.set_payload_max_length(kMaxBody);
  server.set_keep_alive_max_count(1000);
  server.set_pre_routing_handler([tcp = endpoint.tcp](const auto& request, auto& response) {
    return admit(tcp, request, response);
  });
  server.set_exception_handler([](const auto&, auto& response, std::exception_ptr error) {
    answer_exception(response, error);
  });
  server.set_error_handler([](const auto& request, auto& response) {
    if (!response.body.empty()) return;
    if (response.status == 404) {
      answer_error(response, 404, "not_found",
                   "no such resource: " + request.path + " (the API is under /api/v1)");
    } else if (response.status == 413) {
      answer_error(response, 413, "too_large", "the request body is larger than any settings file");
    } else {
      answer_error(response, response.status, "bad_request", "the request could not be read");
    }
  });
  server.Get("/api/v1", [](const auto&, auto& response) {
    answer(response, 200,
           {{"service", "holdfast"},
            {"api", "/api/v1"},
            {"resources",
             {"/api/v1/schema", "/api/v1/settings", "/api/v1/scopes/{scope}", "/api/v1/events",
              "/api/v1/launches", "/api/v1/check", "/api/v1/explain"}}});
  });
  add_page_routes(server);
  add_settings_routes(server);
  add_event_routes(server);
  add_launch_routes(server);

  std::thread stopper([&server, signals] {
    int signal = 0;
    sigwait(&signals, &signal);
    close_event_streams();
    server.halt();
  });

  out << "holdfast serve: listening on " << endpoint.where << std::endl;
  const bool served = server.listen_on(endpoint.fd.release());
  pthread_kill(stopper.native_handle(), SIGUSR1);  // if the server ended without a signal
  stopper.join();
  if (endpoint.socket_path) unlink(endpoint.socket_path->c_str());
  if (!served) {
    err << "holdfast serve: the server stopped with an error\n";
    return 1;
  }
  return 0;
}

}  // namespace holdfast::service
