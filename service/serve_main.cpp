// holdfast-serve: the program behind `holdfast serve` (the holdfast
// executable is linked statically for launch speed; cpp-httplib is a
// shared library in Debian, so the service is a program of its own that
// `holdfast serve` executes).
#include <CLI/CLI.hpp>
#include <iostream>

#include "service/serve.hpp"

namespace {

constexpr const char* kFooter = R"(Where it listens:
  By default on the Unix socket $XDG_RUNTIME_DIR/holdfast/holdfast.sock
  (directory 0700, socket 0600). Only callers running as the same user, or
  root, are served (the kernel names each caller: SO_PEERCRED); others get
  403 and the connection is closed.
    curl --unix-socket "$XDG_RUNTIME_DIR/holdfast/holdfast.sock" \
         http://localhost/api/v1/settings

  With --listen 127.0.0.1:PORT it serves a browser on this machine instead. A
  new random token is made at each start and printed as a URL,
  http://127.0.0.1:PORT/?token=TOKEN. Requests must carry it (header
  "Authorization: Bearer TOKEN", or the cookie that opening the URL sets):
  401 without it. A Host header other than 127.0.0.1:PORT gets 421 (DNS
  rebinding). PUT, PATCH and POST also need "Origin: http://127.0.0.1:PORT"
  (403 otherwise). No CORS headers are sent. A non-loopback address is refused
  unless --allow-non-loopback is given.

The settings page:
  Opening the printed URL in a browser shows the operator's settings page,
  served from the program itself (nothing is fetched from elsewhere): the
  effective settings and the scope each value came from, each scope file's
  revision and diagnostics, a form for the sandbox policy, the permission
  rules and the rest of a scope as JSON (saved with If-Match: a save made
  elsewhere in between is shown, to reload or overwrite), saves made with the
  CLI as they happen, the launch records, and an explanation of a launch.
    holdfast serve --listen 127.0.0.1:8731    # then open the printed URL

API (JSON; errors are {error, message, diagnostics?}):
  GET   /api/v1                              the list of resources
  GET   /api/v1/schema                       the JSON Schema
  GET   /api/v1/settings?workspace=DIR       effective settings, origins, scopes,
                                             revisions, diagnostics, digest
  GET   /api/v1/scopes/SCOPE?workspace=DIR   one scope's document; ETag = revision
  PUT   /api/v1/scopes/SCOPE                 replace it (If-Match: REVISION)
  PATCH /api/v1/scopes/SCOPE                 {"set": {KEY: VALUE}, "unset": [KEY]}
                                             (If-Match: REVISION)
  GET   /api/v1/events?workspace=DIR         server-sent events, one per change
  GET   /api/v1/launches?limit=N             recent launch records
  POST  /api/v1/check                        {tool, argument, mode, workspace}
  GET   /api/v1/explain?workspace=DIR        what a launch there may do
  A save answers 200 with the new revision, 412 with the current document when
  someone saved in between, 422 with diagnostics when the result would be
  invalid, 428 without If-Match.

As a systemd user service (packaging/systemd/, installed under
/usr/lib/systemd/user):
  systemctl --user enable --now holdfast.socket   # started on first use
  systemctl --user enable --now holdfast.service  # or: always running
  journalctl --user -u holdfast.service           # its messages
With holdfast.socket, systemd owns the socket at
$XDG_RUNTIME_DIR/holdfast/holdfast.sock (mode 0600) and passes it in
(LISTEN_FDS); the service then ignores --socket.

Stops on SIGTERM, SIGINT or SIGHUP, removing the socket it created.)";

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Serve the settings to GUIs and scripts: a local HTTP/1.1 + JSON service on a Unix "
      "socket (or on 127.0.0.1 for a browser)",
      "holdfast serve"};
  holdfast::service::ServeOptions options;
  std::string socket;
  std::string listen;
  app.add_option("--socket", socket,
                 "Unix socket to listen on (default: $XDG_RUNTIME_DIR/holdfast/holdfast.sock)");
  app.add_option("--listen", listen,
                 "Listen on TCP ADDRESS:PORT instead (127.0.0.1:PORT; port 0 picks one), with a "
                 "token printed at start");
  app.add_flag("--allow-non-loopback", options.allow_non_loopback,
               "Allow --listen on an address other machines can reach (warns)");
  app.footer(kFooter);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!socket.empty()) options.socket = socket;
  if (!listen.empty()) options.listen = listen;
  if (options.socket && options.listen) {
    std::cerr << "holdfast serve: give --socket or --listen, not both\n";
    return 2;
  }
  return holdfast::service::serve(options, std::cout, std::cerr);
}
