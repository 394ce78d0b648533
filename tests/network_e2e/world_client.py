#!/usr/bin/python3
"""The clients the network end-to-end tests run inside the sandbox.

Each subcommand prints one JSON object on stdout and exits 0 when it could
say what happened (the test judges the answer), 2 on a usage error.

  urllib URL CAFILE            GET through the environment's proxy
  getaddrinfo NAME PORT        the system resolver's answer
  dns NAME [SERVER]            a raw UDP DNS query for A (default 127.0.0.1)
  direct HOST PORT             TCP connect() past the proxy
  udp HOST PORT                UDP sendto() past the proxy
  connect PROXY TARGET         a raw HTTP CONNECT TARGET: the status line
  get PROXY URL HOST           a raw absolute-form GET: the status line
  keepalive PROXY URL1 HOST1 URL2 HOST2
                               two GETs on one kept-alive connection
  sni PROXY TARGET NAME CAFILE CONNECT TARGET, then TLS naming NAME
  socks5 PROXY NAME PORT       a raw SOCKS5 CONNECT to a name: the reply code
  tunnel PROXY TARGET HOST     CONNECT TARGET, then plain HTTP through it
"""

import errno
import json
import os
import socket
import ssl
import struct
import sys
import urllib.request


def say(**fields):
    sys.stdout.write(json.dumps(fields) + "\n")


def error_name(e):
    if isinstance(e, OSError) and e.errno is not None:
        return errno.errorcode.get(e.errno, str(e.errno))
    return type(e).__name__ + ": " + str(e)


def proxy_socket(proxy):
    host, port = proxy.rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=30)


def read_head(sock):
    """Reads one HTTP response head; returns (status line, headers, rest)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            return (data.decode("latin-1").split("\r\n")[0], {}, b"")
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return lines[0], headers, rest


def read_response(sock):
    status, headers, body = read_head(sock)
    length = int(headers.get("content-length", "0") or 0)
    while len(body) < length:
        chunk = sock.recv(4096)
        if not chunk:
            break
        body += chunk
    return status, body.decode("latin-1")


def cmd_urllib(url, cafile):
    context = ssl.create_default_context(cafile=cafile)
    try:
        with urllib.request.urlopen(url, context=context, timeout=30) as response:
            say(ok=True, status=response.status, body=response.read().decode())
    except Exception as e:  # noqa: BLE001 - the test reads what failed
        say(ok=False, error=error_name(e))


def cmd_getaddrinfo(name, port):
    try:
        infos = socket.getaddrinfo(name, int(port), socket.AF_INET, socket.SOCK_STREAM)
        say(ok=True, addresses=sorted({info[4][0] for info in infos}))
    except socket.gaierror as e:
        say(ok=False, error=str(e), code=e.errno)


def cmd_dns(name, server="127.0.0.1"):
    query = struct.pack(">HHHHHH", 0x4864, 0x0100, 1, 0, 0, 0)
    for label in name.split("."):
        query += bytes([len(label)]) + label.encode()
    query += b"\x00" + struct.pack(">HH", 1, 1)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.settimeout(30)
    try:
        # Connected: an unreachable port is an error now, not a timeout.
        sock.connect((server, 53))
        sock.send(query)
        answer = sock.recv(4096)
    except OSError as e:
        say(ok=False, error=error_name(e))
        return
    ident, flags, _, ancount, _, _ = struct.unpack(">HHHHHH", answer[:12])
    # Skip the question, then read the answers' A records.
    offset = 12
    while answer[offset] != 0:
        offset += 1 + answer[offset]
    offset += 5
    addresses = []
    for _ in range(ancount):
        if answer[offset] & 0xC0 == 0xC0:
            offset += 2
        else:
            while answer[offset] != 0:
                offset += 1 + answer[offset]
            offset += 1
        rtype, _, _, length = struct.unpack(">HHIH", answer[offset:offset + 10])
        offset += 10
        if rtype == 1 and length == 4:
            addresses.append(socket.inet_ntoa(answer[offset:offset + 4]))
        offset += length
    say(ok=True, id_matches=ident == 0x4864, rcode=flags & 0xF, addresses=addresses)


def cmd_direct(host, port):
    try:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.settimeout(30)
        sock.connect((host, int(port)))
        say(ok=True)
    except OSError as e:
        say(ok=False, error=error_name(e))


def cmd_udp(host, port):
    try:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.sendto(b"x", (host, int(port)))
        say(ok=True)
    except OSError as e:
        say(ok=False, error=error_name(e))


def cmd_connect(proxy, target):
    sock = proxy_socket(proxy)
    sock.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target, target)).encode())
    status, _, _ = read_head(sock)
    say(status=status)


def cmd_get(proxy, url, host):
    sock = proxy_socket(proxy)
    sock.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (url, host)).encode())
    status, body = read_response(sock)
    say(status=status, body=body)


def cmd_keepalive(proxy, url1, host1, url2, host2):
    sock = proxy_socket(proxy)
    sock.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (url1, host1)).encode())
    first_status, first_body = read_response(sock)
    try:
        sock.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (url2, host2)).encode())
        second_status, second_body = read_response(sock)
    except OSError as e:
        second_status, second_body = "", error_name(e)
    say(first_status=first_status, first_body=first_body, second_status=second_status,
        second_body=second_body)


def cmd_sni(proxy, target, name, cafile):
    sock = proxy_socket(proxy)
    sock.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target, target)).encode())
    status, _, _ = read_head(sock)
    context = ssl.create_default_context(cafile=cafile)
    try:
        tls = context.wrap_socket(sock, server_hostname=name)
        tls.sendall(("GET / HTTP/1.1\r\nHost: %s\r\n\r\n" % name).encode())
        _, body = read_response(tls)
        say(connect_status=status, tls=True, body=body)
    except Exception as e:  # noqa: BLE001 - the test reads what failed
        say(connect_status=status, tls=False, error=error_name(e))


def cmd_tunnel(proxy, target, host):
    sock = proxy_socket(proxy)
    sock.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target, target)).encode())
    status, _, _ = read_head(sock)
    try:
        sock.sendall(("GET /tunnelled HTTP/1.1\r\nHost: %s\r\n\r\n" % host).encode())
        second_status, body = read_response(sock)
    except OSError as e:
        second_status, body = "", error_name(e)
    say(connect_status=status, status=second_status, body=body)


def cmd_socks5(proxy, name, port):
    sock = proxy_socket(proxy)
    sock.sendall(b"\x05\x01\x00")
    method = sock.recv(2)
    request = b"\x05\x01\x00\x03" + bytes([len(name)]) + name.encode() + struct.pack(">H", int(port))
    sock.sendall(request)
    reply = sock.recv(4096)
    say(method=method.hex(), reply=reply[1] if len(reply) > 1 else -1)


COMMANDS = {
    "urllib": cmd_urllib,
    "getaddrinfo": cmd_getaddrinfo,
    "dns": cmd_dns,
    "direct": cmd_direct,
    "udp": cmd_udp,
    "connect": cmd_connect,
    "get": cmd_get,
    "keepalive": cmd_keepalive,
    "sni": cmd_sni,
    "socks5": cmd_socks5,
    "tunnel": cmd_tunnel,
}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.stderr.write(__doc__)
        sys.exit(2)
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    COMMANDS[sys.argv[1]](*sys.argv[2:])
