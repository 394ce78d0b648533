#!/usr/bin/python3
"""The servers of the network end-to-end tests' server world.

Started by tests/network_e2e/world.cpp inside the server world's network
namespace. Each mode binds its listening socket, then writes "ready" on
stdout (the test's readiness event) and logs to stderr only.

  http  --port P              plain HTTP: answers "host=HOST path=PATH"
  https --port P --cert C --key K --root DIR
                              HTTPS: the same answer, and under /git/ the
                              files of DIR (a bare repository prepared with
                              git update-server-info: git's dumb HTTP)
  inetd --port P -- CMD...    for each connection, CMD with the connection
                              as its stdin and stdout (sshd -i)
"""

import argparse
import http.server
import os
import socket
import socketserver
import ssl
import subprocess
import sys
import threading
import urllib.parse


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: one connection, many requests
    root = None

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        sys.stderr.write("%s %s\n" % (self.address_string(), format % args))

    def reply(self, status, body, content_type="text/plain"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self):  # noqa: N802 - the base class's name
        path = urllib.parse.urlsplit(self.path).path
        if self.root is not None and path.startswith("/git/"):
            relative = os.path.normpath(urllib.parse.unquote(path[len("/git/"):]))
            if relative.startswith(".."):
                self.reply(403, b"no\n")
                return
            full = os.path.join(self.root, relative)
            if not os.path.isfile(full):
                self.reply(404, b"not found\n")
                return
            with open(full, "rb") as f:
                self.reply(200, f.read(), "application/octet-stream")
            return
        host = self.headers.get("Host", "")
        self.reply(200, ("host=%s path=%s\n" % (host, self.path)).encode())

    do_HEAD = do_GET


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class TlsServer(Server):
    context = None

    def get_request(self):
        sock, address = super().get_request()
        # The handshake in the request's thread, not in the accept loop.
        return self.context.wrap_socket(sock, server_side=True,
                                        do_handshake_on_connect=False), address

    def handle_error(self, request, client_address):
        sys.stderr.write("error from %s: %s\n" % (client_address, sys.exc_info()[1]))


def ready():
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    # Nothing else goes to the readiness pipe (the test closes it).
    os.dup2(2, 1)


def serve_http(args, tls):
    Handler.root = args.root
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        TlsServer.context = context
        server = TlsServer((args.bind, args.port), Handler)
    else:
        server = Server((args.bind, args.port), Handler)
    ready()
    server.serve_forever()


def serve_inetd(args):
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((args.bind, args.port))
    listener.listen(16)
    ready()

    def run(conn):
        with conn:
            process = subprocess.Popen(args.command, stdin=conn.fileno(), stdout=conn.fileno())
        process.wait()

    while True:
        conn, _ = listener.accept()
        threading.Thread(target=run, args=(conn,), daemon=True).start()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["http", "https", "inetd"])
    parser.add_argument("--bind", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--root")
    argv = sys.argv[1:]
    command = []
    if "--" in argv:
        command = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    args = parser.parse_args(argv)
    args.command = command
    if args.mode == "inetd":
        serve_inetd(args)
    else:
        serve_http(args, args.mode == "https")


if __name__ == "__main__":
    main()
