"""The real `holdfast serve` and a real headless Chromium, for the browser
tests and the screenshot script.

The service runs with its settings, state and runtime directories in a temp
directory (as tests/service/service_process.cpp does), on 127.0.0.1 with a
port the kernel picks; readiness and the URL with its token come from the
"listening on" line it prints. Chromium is Debian's, driven by its
chromedriver through python3-selenium.
"""

import json
import os
import select
import shutil
import subprocess
import tempfile
import time
import urllib.request

SETUP_HINT = ("install them with scripts/setup.sh (Debian packages chromium, "
              "chromium-driver and python3-selenium)")


class MissingBrowser(Exception):
    pass


def require_browser():
    """Chromium, chromedriver and selenium, or MissingBrowser saying what to
    install. The browser tests fail (never skip) without them."""
    missing = [name for name in ("chromium", "chromedriver") if shutil.which(name) is None]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("python3-selenium (for " + os.path.realpath("/proc/self/exe") + ")")
    if missing:
        raise MissingBrowser("the browser tests need " + ", ".join(missing) + ": " + SETUP_HINT)


class Service:
    """`holdfast serve --listen 127.0.0.1:0` in a temp directory."""

    def __init__(self, holdfast, workspace=False):
        self.holdfast_binary = holdfast
        self.dir = tempfile.mkdtemp(prefix="holdfast-page-")
        for sub in ("config", "system", "state", "home", "run"):
            os.makedirs(os.path.join(self.dir, sub))
        self.env = {
            "HOLDFAST_CONFIG_DIR": os.path.join(self.dir, "config"),
            "HOLDFAST_SYSTEM_DIR": os.path.join(self.dir, "system"),
            "HOLDFAST_STATE_DIR": os.path.join(self.dir, "state"),
            "HOME": os.path.join(self.dir, "home"),
            "XDG_RUNTIME_DIR": os.path.join(self.dir, "run"),
            "PATH": "/usr/bin:/bin",
        }
        self.process = subprocess.Popen(
            [holdfast, "serve", "--listen", "127.0.0.1:0"], env=self.env,
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline().strip()
        prefix = "holdfast serve: listening on "
        if not line.startswith(prefix):
            self.stop()
            raise RuntimeError("holdfast serve did not start: " + repr(line))
        self.url = line[len(prefix):]  # http://127.0.0.1:PORT/#token=LINK
        self.origin = self.url.split("/#")[0]
        self.port = int(self.origin.rsplit(":", 1)[1])
        self.link = self.url.split("#token=")[1]

    @property
    def user_file(self):
        return os.path.join(self.dir, "config", "settings.json")

    def read_user_file(self):
        """The user scope's file as it is on disk (comments are not used
        here, so it is plain JSON)."""
        with open(self.user_file, encoding="utf-8") as f:
            return json.load(f)

    def cli(self, *args, cwd=None):
        """`holdfast ARGS` with the service's environment; raises on failure."""
        result = subprocess.run([self.holdfast_binary, *args], env=self.env, cwd=cwd,
                                capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"holdfast {' '.join(args)} exited {result.returncode}: "
                               f"{result.stderr}")
        return result.stdout

    def get(self, path):
        """GET without a credential (the page's files need none); (status,
        headers, body bytes)."""
        request = urllib.request.Request(self.origin + path)
        try:
            with urllib.request.urlopen(request) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read()

    def terminate(self):
        """SIGTERM without waiting: the service ends once the browser's
        kept-alive connections close (when the browser quits), so waiting
        here would wait for their idle timeout."""
        if self.process.poll() is None:
            self.process.terminate()

    def stop(self):
        """SIGTERM, the exit awaited (it must be 0), the temp dir removed."""
        self.terminate()
        code = self.process.wait(timeout=60)
        self.process.stdout.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        if code != 0:
            raise RuntimeError(f"holdfast serve exited {code} on SIGTERM")


def start_chromium(width=1280, height=900):
    """Headless Chromium (as root it needs --no-sandbox: its own sandbox
    cannot start without a user namespace of its own for root)."""
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service as DriverService

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-extensions", "--no-first-run", "--disable-background-networking",
                f"--window-size={width},{height}", "--lang=en-US"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=DriverService(executable_path=shutil.which("chromedriver")),
                            options=options)


class OtherUserServer:
    """Another local user's web server on another loopback port: runs as
    uid/gid 65534 when the test runs as root (else as the test's own user),
    serves a page that sets cookies named like any the settings page could
    use (with longer paths, which a browser sends first) and loads images
    from its own port and from the operator's service, and logs every
    request it receives, headers included, one JSON line each."""

    SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "other_user_server.py")

    def __init__(self, service_port):
        with open(self.SCRIPT, encoding="utf-8") as f:
            source = f.read()  # handed over whole: uid 65534 may not read our tree

        def become_nobody():
            if os.getuid() == 0:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)

        self.process = subprocess.Popen(
            ["/usr/bin/python3", "-c", source, str(service_port)], stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL, cwd="/", preexec_fn=become_nobody,
            # Unbuffered: wait_for selects on the pipe, and a line already
            # pulled into a reader's buffer would never make it readable.
            bufsize=0)
        line = self.process.stdout.readline().decode()
        if not line.startswith("listening "):
            self.stop()
            raise RuntimeError("the other user's server did not start: " + repr(line))
        self.port = int(line.split()[1])
        self.url = f"http://127.0.0.1:{self.port}/"
        self.requests = []

    def wait_for(self, path, bound=30):
        """Reads the log until a request for `path` arrives (the bound only
        ends a failing test); returns every request logged so far."""
        end = time.monotonic() + bound
        while not any(r["path"] == path for r in self.requests):
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.process.stdout], [], [], left)[0]:
                raise AssertionError(f"the other server got no request for {path}: {self.requests}")
            line = self.process.stdout.readline()
            if not line:
                raise AssertionError("the other user's server ended")
            self.requests.append(json.loads(line))
        return self.requests

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.process.stdout.close()
