"""The live view's HTTP server: `/` (the page) and `/status.json`, on a daemon thread, loopback unless told.

Each request gets its own daemon thread with a socket timeout, answers from the status the updater made
last (no computation on a request), and closes its connection: a slow, stalled or vanished client costs one
thread for at most CLIENT_TIMEOUT_S and never reaches the runner.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from littlegrid.usererror import UserError

DEFAULT_HOST = "127.0.0.1"
CLIENT_TIMEOUT_S = 5.0
LIVE_SCRIPTS = ("uPlot.iife.min.js", "live.js")


def parse_address(value: str, bind_any: bool = False) -> tuple[str, int]:
    """`--live [HOST:]PORT` -> (host, port); refuses in one line a bad port, an unknown host and, unless
    bind_any, any address that is not loopback (the page shows the run to whoever reaches it)."""
    text = value.strip()
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = DEFAULT_HOST, text
    host = host.strip("[]") or DEFAULT_HOST
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise UserError(f"--live {value}: the port must be a number from 0 to 65535 (0: any free port)")
    port = int(port_text)
    addresses = _addresses(host, value)
    if not bind_any and not all(a.is_loopback for a in addresses):
        raise UserError(f"--live {value}: {host} is not a loopback address, so anyone who can reach this host "
                        "could watch the run; add --live-bind-any to serve it beyond this machine")
    return host, port


def _addresses(host: str, value: str) -> list:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except socket.gaierror as e:
        raise UserError(f"--live {value}: cannot resolve {host} ({e.strerror})") from None
    return [ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos]


class LiveServer:
    """Binds at construction (a busy port is refused before anything runs); start() serves on a daemon thread."""

    def __init__(self, view, host: str, port: int, page: bytes, csp: str, bind_any: bool = False):
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        server_class = type("LiveHTTPServer", (ThreadingHTTPServer,),
                            {"address_family": family, "daemon_threads": True, "allow_reuse_address": True})
        handler = type("LiveHandler", (_Handler,), {"view": view, "page": page, "csp": csp})
        try:
            self.httpd = server_class((host, port), handler)
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                raise UserError(f"--live {host}:{port}: the port is already in use; choose another "
                                "(or 0 for any free port)") from None
            raise UserError(f"--live {host}:{port}: cannot listen there ({e.strerror or e})") from None
        self.host, self.port = host, self.httpd.server_address[1]
        handler.allowed_hosts = None if bind_any else _loopback_names(self.port)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def start(self) -> "LiveServer":
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.25},
                                        name="littlegrid-live-http", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join(timeout=5)
        self.httpd.server_close()


def _loopback_names(port: int) -> frozenset:
    """Host headers a loopback-bound page answers: a page elsewhere that rebinds its own name to 127.0.0.1
    (DNS rebinding) sends its name, and is refused."""
    return frozenset(f"{h}:{port}" for h in ("127.0.0.1", "localhost", "[::1]")) | {"127.0.0.1", "localhost"}


class _Handler(BaseHTTPRequestHandler):
    view = None
    page = b""
    csp = ""
    allowed_hosts: frozenset | None = None
    timeout = CLIENT_TIMEOUT_S  # StreamRequestHandler sets it on the socket: reads and writes both
    protocol_version = "HTTP/1.0"  # one request per connection: no idle keep-alive holding a thread
    server_version = "littlegrid-live"
    sys_version = ""

    def do_GET(self):
        self._answer(send_body=True)

    def do_HEAD(self):
        self._answer(send_body=False)

    def _answer(self, send_body: bool) -> None:
        if self.allowed_hosts is not None and (self.headers.get("Host") or "").lower() not in self.allowed_hosts:
            return self._send(403, b"forbidden: unexpected Host header\n", "text/plain; charset=utf-8", send_body)
        path = self.path.split("?", 1)[0]
        if path == "/":
            return self._send(200, self.page, "text/html; charset=utf-8", send_body)
        if path == "/status.json":
            return self._send(200, self.view.status_json(), "application/json", send_body)
        return self._send(404, b"not found\n", "text/plain; charset=utf-8", send_body)

    def _send(self, code: int, body: bytes, content_type: str, send_body: bool) -> None:
        try:
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("Content-Security-Policy", self.csp)
            self.end_headers()
            if send_body:
                self.wfile.write(body)
        except OSError:  # the client left or stalled past the timeout: nothing to tell anyone
            self.close_connection = True

    def log_message(self, format, *args):  # the run's console is for the run
        pass
