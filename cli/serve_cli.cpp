#include "cli/serve_cli.hpp"

#include <iostream>

#include "service/serve.hpp"

namespace holdfast::service {

namespace {

constexpr const char* kFooter = R"(Where it listens:
  By default on the Unix socket $XDG_RUNTIME_DIR/holdfast/holdfast.sock
  (directory 0700, made by holdfast; socket 0600). Only callers running as the
  same user, or root, are served (the kernel names each caller: SO_PEERCRED);
  others get 403 at once and the connection is closed.
    curl --unix-socket "$XDG_RUNTIME_DIR/holdfast/holdfast.sock" \
         http://localhost/api/v1/settings
  XDG_RUNTIME_DIR must be yours and writable only by you. With --socket PATH,
  the directory PATH is in, and every one above it, must be writable by no one
  but you and root (a sticky directory such as /tmp is accepted): holdfast
  refuses any other, and never changes a directory it did not create.

  With --listen 127.0.0.1:PORT it serves a browser on this machine instead. It
  prints a link, http://127.0.0.1:PORT/#token=LINK: the token is in the part
  of the address a browser never sends, and it works once. Opening it shows
  the settings page, which exchanges it for a session secret that it keeps in
  the tab and sends as "Authorization: Bearer SESSION"; other tabs of the page
  get the session from an open one. Nothing the browser attaches by itself
  (cookies) counts, so a server on another port gets no credential and cannot
  lock the page out. A program may exchange the link itself:
    curl -X POST -H "Origin: http://127.0.0.1:PORT" \
         -H "Authorization: Bearer LINK" http://127.0.0.1:PORT/api/v1/session
  (then the page cannot: a link makes one session). Every request must name
  127.0.0.1:PORT as Host (421 otherwise: DNS rebinding); PUT, PATCH and POST
  need "Origin: http://127.0.0.1:PORT" (403 otherwise). No CORS headers are
  sent. A non-loopback address is refused unless --allow-non-loopback.

  Callers who are not known yet have 10 seconds to send each request's head,
  a refused one is closed at once, and connections that send nothing are the
  first to go when many are open: others misbehaving does not stop the owner
  being served. Event streams cost no thread; at most 64 are open.

The settings page:
  Opening the printed link shows the operator's settings page, served from the
  program itself (nothing is fetched from elsewhere): the effective settings
  and the scope each value came from, the effective sandbox (what a command
  may read, write and reach, defaults included), each scope file's revision
  and diagnostics, a form for the sandbox policy, the permission rules and the
  rest of a scope as JSON (saved with If-Match: a save made elsewhere in
  between shows base, theirs and yours per key, and yours can be applied on
  top of theirs), the last saves of a scope and a way back to one, saves made
  with the CLI as they happen, the launch records, and an explanation of a
  launch.
    holdfast serve --listen 127.0.0.1:8731    # then open the printed link

API (JSON; errors are {error, message, diagnostics?}):
  GET   /api/v1                              the list of resources
  GET   /api/v1/schema                       the JSON Schema
  GET   /api/v1/settings?workspace=DIR       effective settings, origins, scopes,
                                             revisions, diagnostics, digest
  GET   /api/v1/sandbox?workspace=DIR        the effective sandbox policy, each
                                             part with its origin
  GET   /api/v1/scopes/SCOPE?workspace=DIR   one scope's document; ETag = revision
  PUT   /api/v1/scopes/SCOPE                 replace it (If-Match: REVISION)
  PATCH /api/v1/scopes/SCOPE                 {"set": {KEY: VALUE}, "unset": [KEY]}
                                             (If-Match: REVISION)
  GET   /api/v1/scopes/SCOPE/history[/ID]    the saves of it the service has seen
  GET   /api/v1/events?workspace=DIR         server-sent events, one per change
  GET   /api/v1/launches?limit=N             recent launch records
  POST  /api/v1/check                        {tool, argument, mode, workspace}
  GET   /api/v1/explain?workspace=DIR        what a launch there may do
  Bodies are JSON sent as application/json (415 otherwise), read like a
  settings file (a key twice, a number out of range: 400 with line and
  column). A save answers 200 with the new revision, 412 with the current
  document when someone saved in between, 422 with diagnostics when the
  result would be invalid, 428 without If-Match.

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

CLI::App* add_serve_cli(CLI::App& app, int& exit_code) {
  auto* serve = app.add_subcommand(
      "serve",
      "Serve the settings to GUIs and scripts over a local HTTP/1.1 + JSON API (Unix socket, "
      "or 127.0.0.1 for the settings page)");
  auto options = std::make_shared<ServeOptions>();
  auto socket = std::make_shared<std::string>();
  auto listen = std::make_shared<std::string>();
  serve->add_option("--socket", *socket,
                    "Unix socket to listen on (default: "
                    "$XDG_RUNTIME_DIR/holdfast/holdfast.sock)");
  serve->add_option("--listen", *listen,
                    "Listen on TCP ADDRESS:PORT instead (127.0.0.1:PORT; port 0 picks one), and "
                    "print the page's one-time link");
  serve->add_flag("--allow-non-loopback", options->allow_non_loopback,
                  "Allow --listen on an address other machines can reach (warns)");
  serve->footer(kFooter);
  serve->callback([options, socket, listen, &exit_code] {
    if (!socket->empty()) options->socket = *socket;
    if (!listen->empty()) options->listen = *listen;
    if (options->socket && options->listen) {
      std::cerr << "holdfast serve: give --socket or --listen, not both\n";
      exit_code = 2;
      return;
    }
    exit_code = service::serve(*options, std::cout, std::cerr);
  });
  return serve;
}

}  // namespace holdfast::service
