"""Another local user's web server, for the browser tests (holdfast_page.py
starts it as uid 65534 and hands this source over with -c).

    python3 other_user_server.py SERVICE_PORT

Listens on 127.0.0.1 (a port the kernel picks; prints "listening PORT"),
answers / with a page that plants cookies named like those a settings page
might use, with paths longer than /, and loads an image from this server
(/collect: whatever the browser attaches for 127.0.0.1 arrives with it)
and one from the operator's service. Every request is logged on stdout as
one JSON line: {"path", "headers"}.
"""

import http.server
import json
import sys

SERVICE_PORT = int(sys.argv[1])
PLANTED = ["holdfast_token=planted; Path=/api", "holdfast_token=planted; Path=/api/v1/settings",
           "holdfast_session=planted; Path=/api", "session=planted; Path=/",
           "holdfast_token=planted-root; Path=/"]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (the name http.server calls)
        print(json.dumps({"path": self.path, "headers": dict(self.headers.items())}), flush=True)
        if self.path == "/":
            body = (f'<!doctype html><title>elsewhere</title><p>another port</p>'
                    f'<img src="/collect" alt="">'
                    f'<img src="http://127.0.0.1:{SERVICE_PORT}/api/v1/settings" alt="">'
                    ).encode()
            self.send_response(200)
            for cookie in PLANTED:
                self.send_header("Set-Cookie", cookie)
            self.send_header("Content-Type", "text/html")
        else:
            body = b""
            self.send_response(204)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


# Threads: a connection the browser opens ahead and leaves idle must not
# hold up the next request.
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"listening {server.server_address[1]}", flush=True)
server.serve_forever()
