#include "service/serve.hpp"

#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <iostream>

#include "base/fd.hpp"
#include "service/access.hpp"
#include "service/answers.hpp"
#include "service/change_hub.hpp"
#include "service/http_server.hpp"
#include "service/launch_routes.hpp"
#include "service/listen_socket.hpp"
#include "service/page_routes.hpp"
#include "service/request_rules.hpp"
#include "service/settings_routes.hpp"

namespace holdfast::service {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Workspaces followed at once by event streams (one watcher thread each,
// beside the one for the user and system scopes).
constexpr std::size_t kMaxWatchers = 16;

// Where the service listens and how callers are judged there.
struct Endpoint {
  base::UniqueFd fd;
  std::optional<UnixListener> unix_listener;  // ours to remove at the end
  std::optional<TcpAccess> tcp;               // over TCP: the Host, the link, the session
  std::string where;                          // for the "listening" line
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
          << ", which other machines can reach; the link and the session are all that protect "
             "the settings, and they travel unencrypted\n";
    }
    endpoint.fd = listen_tcp(address);
    endpoint.tcp = TcpAccess{address.authority(), new_token(), false, std::nullopt};
    endpoint.where = "http://" + address.authority() + "/#token=" + endpoint.tcp->link_token;
    return endpoint;
  }
  const bool ours = !options.socket;
  const fs::path path = ours ? default_socket_path() : *options.socket;
  endpoint.unix_listener = listen_unix(path, ours);
  endpoint.fd = std::move(endpoint.unix_listener->fd);
  endpoint.where = "unix:" + path.string();
  return endpoint;
}

RequestFacts facts_of(const Request& request) {
  return RequestFacts{request.method, request.path, request.header("Host"),
                      request.header("Origin"), request.header("Authorization")};
}

// Who may send what, decided from the request's head on the I/O thread.
Admission admit(std::optional<TcpAccess>& tcp, const Request& request, std::size_t body_limit) {
  Admission admission;
  const auto refuse = [&](Response response) {
    response.close = true;
    admission.answer = std::move(response);
    return admission;
  };
  // Before anything else: which Host or credential counts must be clear.
  if (request.repeated_header()) return refuse(*head_refusal(request, body_limit));
  if (tcp) {
    const AccessVerdict verdict = check_tcp_access(*tcp, facts_of(request));
    if (verdict.status != 0) {
      return refuse(error_response(verdict.status, verdict.error, verdict.message));
    }
    if (verdict.exchange_link) {
      const std::string session = exchange_link(*tcp);
      admission.known = true;
      admission.answer = json_response(201, {{"session", session}});
      return admission;
    }
    admission.known = !verdict.public_file;
  } else {
    admission.known = true;  // the kernel named the peer, and it was admitted
  }
  if (is_page_path(request.path) && (request.method == "GET" || request.method == "HEAD")) {
    admission.answer = page_file_response(request.path);
    return admission;
  }
  if (auto refusal = head_refusal(request, body_limit)) return refuse(std::move(*refusal));
  return admission;
}

// More descriptors than the default 1024, for as many connections as the
// server admits (the hard limit is the administrator's).
void raise_descriptor_limit(std::size_t wanted) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t target = std::min<rlim_t>(limit.rlim_max, wanted);
  if (limit.rlim_cur < target) {
    limit.rlim_cur = target;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace

int serve(const ServeOptions& options, std::ostream& out, std::ostream& err) {
  signal(SIGPIPE, SIG_IGN);  // a client that hangs up is an error code, not a signal
  const ServerLimits limits;
  raise_descriptor_limit(limits.max_connections + 256);

  Endpoint endpoint;
  std::unique_ptr<ChangeHub> hub;
  try {
    endpoint = open_endpoint(options, err);
    hub = std::make_unique<ChangeHub>(kMaxWatchers);
    // The user and system scopes are watched from the start: their history
    // is kept from now on.
    hub->watch(settings::scope_paths_from_environment(std::nullopt));
  } catch (const std::exception& e) {
    err << "holdfast serve: " << e.what() << "\n";
    return 1;
  }

  Router router;
  router.add("GET", "/api/v1", [](Request&) {
    return json_response(200,
                         {{"service", "holdfast"},
                          {"api", "/api/v1"},
                          {"resources",
                           {"/api/v1/schema", "/api/v1/settings", "/api/v1/scopes/{scope}",
                            "/api/v1/scopes/{scope}/history", "/api/v1/events", "/api/v1/launches",
                            "/api/v1/check", "/api/v1/explain", "/api/v1/sandbox"}}});
  });
  add_settings_routes(router, *hub);
  add_launch_routes(router);

  const uid_t self = geteuid();
  ServerHooks hooks;
  hooks.refuse_peer = [self](const std::optional<Peer>& peer) -> std::optional<Response> {
    if (!peer || peer->uid == self || peer->uid == 0) return std::nullopt;
    return error_response(403, "peer_refused",
                          "this service serves only its own user and root; run your own "
                          "holdfast serve");
  };
  hooks.admit = [&endpoint, body_limit = limits.body_limit](const Request& request) {
    return admit(endpoint.tcp, request, body_limit);
  };
  hooks.answer = [&router](Request& request) {
    try {
      return router.dispatch(request);
    } catch (...) {
      return answer_exception(std::current_exception());
    }
  };

  {
    HttpServer server(endpoint.fd.release(), std::move(hooks), limits);
    out << "holdfast serve: listening on " << endpoint.where << std::endl;
    server.run();
  }
  hub->stop();
  if (endpoint.unix_listener) remove_socket(*endpoint.unix_listener);
  return 0;
}

}  // namespace holdfast::service
