#!/usr/bin/python3
"""What a network allow-list costs (bench/network-cost.sh runs this as root).

  start     the extra start cost of `holdfast run -- /bin/true` with an
            allow-list over the same launch with the network closed (paired,
            alternating runs; medians and the median of the differences)
  ttfb      time to first byte: connect, ask, first byte back; through the
            launch's proxy from inside a sandbox (CONNECT, then an SSH
            identification line, which the proxy lets through) against the
            same client connecting directly from outside
  download  throughput of one large transfer, proxied against direct, and
            through a control: the least any relay can do, a bare splice
            loop outside any sandbox (no parsing, no checks, no event
            loop); on a small machine a third process on the data path
            costs throughput by itself, and the control measures that floor

The server runs in a network namespace of its own behind a veth pair
(10.214.0.2, a private address that is not the host's), so the proxy's
address checks pass it only through the explicit entry ip:10.214.0.2:2222;
everything runs inside `unshare --net --mount`, so the host's network is
not touched.
"""

import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

SERVER = "10.214.0.2"
PORT = 2222
CHUNK = 4 << 20


def serve():
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((SERVER, PORT))
    listener.listen(64)
    print("ready", flush=True)
    payload = memoryview(b"x" * CHUNK)
    while True:
        conn, _ = listener.accept()
        line = b""
        while not line.endswith(b"\r\n") and len(line) < 1024:
            got = conn.recv(1)
            if not got:
                break
            line += got
        words = dict(w.split("=", 1) for w in line.decode().split() if "=" in w)
        left = int(words.get("size", "1"))
        while left > 0:
            sent = conn.send(payload[: min(left, CHUNK)])
            left -= sent
        conn.close()


RELAY_PORT = 2223


def relay_control():
    """A bare splice relay from 10.214.0.1:2223 to the server (the control)."""
    import fcntl
    import threading
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("10.214.0.1", RELAY_PORT))
    listener.listen(8)
    print("ready", flush=True)

    def pump(src, dst):
        r, w = os.pipe()
        fcntl.fcntl(w, 1031, 1 << 20)  # F_SETPIPE_SZ, as the proxy's relay
        while True:
            n = os.splice(src.fileno(), w, 1 << 20)
            if n == 0:
                break
            while n > 0:
                n -= os.splice(r, dst.fileno(), n)
        dst.shutdown(socket.SHUT_WR)

    while True:
        conn, _ = listener.accept()
        upstream = socket.create_connection((SERVER, PORT))
        threading.Thread(target=pump, args=(conn, upstream), daemon=True).start()
        threading.Thread(target=pump, args=(upstream, conn), daemon=True).start()


def open_stream(proxied):
    s = socket.socket()
    if proxied == "control":
        s.connect(("10.214.0.1", RELAY_PORT))
    elif proxied:
        s.connect(("127.0.0.1", 3128))
        target = f"{SERVER}:{PORT}"
        s.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            got = s.recv(1)
            if not got:
                raise SystemExit("proxy closed: " + head.decode(errors="replace"))
            head += got
        if not head.startswith(b"HTTP/1.1 200"):
            raise SystemExit("proxy refused: " + head.decode(errors="replace"))
    else:
        s.connect((SERVER, PORT))
    return s


def client(proxied, mode, count):
    proxied = {"proxied": True, "direct": False, "control": "control"}[proxied]
    if mode == "ttfb":
        times = []
        for _ in range(count):
            start = time.perf_counter()
            s = open_stream(proxied)
            s.sendall(b"SSH-2.0-bench size=1\r\n")
            s.recv(1)
            times.append(time.perf_counter() - start)
            s.close()
        print(json.dumps({"median_ms": statistics.median(times) * 1e3}))
        return
    size = count << 20
    buffer = bytearray(CHUNK)
    view = memoryview(buffer)
    start = time.perf_counter()
    s = open_stream(proxied)
    s.sendall(f"SSH-2.0-bench size={size}\r\n".encode())
    got = 0
    while got < size:
        n = s.recv_into(view)
        if n == 0:
            break
        got += n
    elapsed = time.perf_counter() - start
    print(json.dumps({"bytes": got, "seconds": elapsed, "mib_per_s": got / elapsed / (1 << 20)}))


def sh(*args, **kw):
    return subprocess.run(args, check=True, **kw)


def world(holdfast, rounds, download_mib):
    sh("mount", "--make-rprivate", "/")
    sh("ip", "link", "set", "lo", "up")
    peer = subprocess.Popen(["unshare", "--net", "sleep", "infinity"])
    netns = f"/proc/{peer.pid}/ns/net"
    while os.readlink(netns) == os.readlink("/proc/self/ns/net"):
        pass  # until unshare has made the namespace
    sh("ip", "link", "add", "hfb0", "type", "veth", "peer", "name", "hfb1", "netns", str(peer.pid))
    sh("ip", "addr", "add", "10.214.0.1/24", "dev", "hfb0")
    sh("ip", "link", "set", "hfb0", "up")
    inside = ["nsenter", f"--net={netns}"]
    sh(*inside, "ip", "link", "set", "lo", "up")
    sh(*inside, "ip", "addr", "add", f"{SERVER}/24", "dev", "hfb1")
    sh(*inside, "ip", "link", "set", "hfb1", "up")
    server = subprocess.Popen(inside + [sys.executable, __file__, "serve"], stdout=subprocess.PIPE, text=True)
    assert server.stdout.readline().strip() == "ready"

    work = tempfile.mkdtemp(prefix="hf-netbench-", dir="/var/tmp")
    os.chmod(work, 0o700)
    dirs = {}
    for name, network in (("closed", "closed"), ("allow", {"allow": [f"ip:{SERVER}:{PORT}"]})):
        d = os.path.join(work, name)
        os.makedirs(d)
        with open(os.path.join(d, "settings.json"), "w") as f:
            # As bench/launch-setup.sh: a read-only workspace, so that no
            # launch leaves a mount point behind that makes the next one's
            # snapshot wait for the workspace to settle.
            json.dump({"tools": {"executionSandbox": {"filesystem": "read-only",
                                                       "network": network}}}, f)
        dirs[name] = d
    state = os.path.join(work, "state")
    os.makedirs(state, mode=0o700)
    ws = os.path.join(work, "ws")
    os.makedirs(ws)
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("HOLDFAST_", "XDG_"))}
    base_env["XDG_STATE_HOME"] = state
    base_env["HOLDFAST_SYSTEM_DIR"] = os.path.join(work, "etc")
    os.makedirs(base_env["HOLDFAST_SYSTEM_DIR"])
    time.sleep(6)  # as bench/launch-setup.sh: the new directories are old enough to be believed

    def run(name, command, capture=False):
        env = dict(base_env, HOLDFAST_CONFIG_DIR=dirs[name])
        return subprocess.run([holdfast, "run", "--"] + command, cwd=ws, env=env, check=True,
                              stdout=subprocess.PIPE if capture else subprocess.DEVNULL)

    results = {}
    # Start cost: paired and alternating, so drift hits both alike.
    for _ in range(5):
        run("closed", ["/bin/true"])
        run("allow", ["/bin/true"])
    closed, allow, diff = [], [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        run("closed", ["/bin/true"])
        t1 = time.perf_counter()
        run("allow", ["/bin/true"])
        t2 = time.perf_counter()
        closed.append((t1 - t0) * 1e3)
        allow.append((t2 - t1) * 1e3)
        diff.append((t2 - t1 - (t1 - t0)) * 1e3)
    results["start_ms"] = {"closed": statistics.median(closed), "allow_list": statistics.median(allow),
                           "extra_median_of_pairs": statistics.median(diff)}

    me = [sys.executable, os.path.abspath(__file__)]
    direct = json.loads(subprocess.run(me + ["client", "direct", "ttfb", "200"], check=True,
                                       stdout=subprocess.PIPE).stdout)
    proxied = json.loads(run("allow", me + ["client", "proxied", "ttfb", "200"], capture=True).stdout)
    results["ttfb_ms"] = {"direct": direct["median_ms"], "proxied": proxied["median_ms"]}

    control = subprocess.Popen(me + ["relay"], stdout=subprocess.PIPE, text=True)
    assert control.stdout.readline().strip() == "ready"
    best = {"direct": 0.0, "proxied": 0.0, "control_relay": 0.0}
    for _ in range(3):  # the best of three of each, alternating
        d = json.loads(subprocess.run(me + ["client", "direct", "download", str(download_mib)],
                                      check=True, stdout=subprocess.PIPE).stdout)
        p = json.loads(run("allow", me + ["client", "proxied", "download", str(download_mib)],
                           capture=True).stdout)
        c = json.loads(subprocess.run(me + ["client", "control", "download", str(download_mib)],
                                      check=True, stdout=subprocess.PIPE).stdout)
        best["direct"] = max(best["direct"], d["mib_per_s"])
        best["proxied"] = max(best["proxied"], p["mib_per_s"])
        best["control_relay"] = max(best["control_relay"], c["mib_per_s"])
    control.kill()
    results["download_mib_per_s"] = dict(best, proxied_ratio=best["proxied"] / best["direct"],
                                         control_ratio=best["control_relay"] / best["direct"],
                                         proxied_to_control=best["proxied"] / best["control_relay"])

    server.kill()
    peer.kill()
    shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "serve":
        serve()
    elif what == "client":
        client(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif what == "relay":
        relay_control()
    else:
        world(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
