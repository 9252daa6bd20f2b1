"""A WSGI service no one here wrote the server of: gunicorn serves it in the real-service acceptance tests
(tests/run/test_observe_services.py), each request holding a worker thread for a known time.

    /sleep?ms=25   holds the thread for 25 ms of wall time and no CPU: c threads serve at most c / 25 ms
    /burn?ms=10    holds the thread on the CPU for 10 ms of its own CPU time (time.thread_time), so a request costs
                   a known CPU time whatever else runs on the host: the cores cap it
Anything else answers 404, so a mistyped target path fails every request instead of measuring nothing.
"""

import time
from urllib.parse import parse_qs


def _ms(environ) -> float:
    values = parse_qs(environ.get("QUERY_STRING", "")).get("ms", ["0"])
    return float(values[0]) / 1000.0


def app(environ, start_response):
    path = environ["PATH_INFO"]
    if path == "/sleep":
        time.sleep(_ms(environ))
    elif path == "/burn":
        end = time.thread_time() + _ms(environ)
        while time.thread_time() < end:  # CPU time of this thread only: the GIL's waits are not counted
            pass
    else:
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not found\n"]
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "3")])
    return [b"ok\n"]
