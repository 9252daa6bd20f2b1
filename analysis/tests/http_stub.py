"""A loopback HTTP server for tests that need something to answer GET: a target, a Prometheus endpoint, an actuator."""

import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextmanager
def serving(body_for, content_type: str | None = None):
    """Serves HTTP/1.1 on 127.0.0.1 and a free port, on daemon threads, answering every GET with 200 and the bytes
    body_for(path) returns (with that Content-Type when given); yields the port and stops the server on leaving."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            body = body_for(self.path)
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            if content_type:
                self.send_header("Content-Type", content_type)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):  # a test's output is not the place for access logs
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    # shutdown() waits for serve_forever to notice, which it does once per poll interval (0.5 s by default): every
    # test leaving a stub waited that long for nothing the test asks about
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
