"""The live HTTP server: --live values refused in one line, a busy port refused before any load, and a slow,
stalled or vanished client never holds up another client or the status updates."""

import socket
import urllib.error
import urllib.request

import pytest

from littlegrid import cli
from littlegrid.run.live.server import CLIENT_TIMEOUT_S, LiveServer, parse_address
from littlegrid.usererror import UserError


class FixedView:
    def __init__(self, body: bytes):
        self.body = body

    def status_json(self) -> bytes:
        return self.body


@pytest.fixture
def server():
    s = LiveServer(FixedView(b'{"ok":true}'), "127.0.0.1", 0, b"<!DOCTYPE html><p>page</p>", "default-src 'none'").start()
    yield s
    s.close()


@pytest.mark.parametrize("value, expected", [
    ("8080", ("127.0.0.1", 8080)), ("0", ("127.0.0.1", 0)), ("127.0.0.1:8080", ("127.0.0.1", 8080)),
    ("localhost:9000", ("localhost", 9000)), ("[::1]:8080", ("::1", 8080)), ("127.1.2.3:80", ("127.1.2.3", 80))])
def test_loopback_addresses_and_bare_ports_are_accepted(value, expected):
    assert parse_address(value) == expected


@pytest.mark.parametrize("value, words", [
    ("0.0.0.0:8080", "0.0.0.0 is not a loopback address"), ("[::]:8080", ":: is not a loopback address"),
    ("192.0.2.1:8080", "not a loopback address"), ("8.8.8.8:80", "not a loopback address"),
    ("http", "the port must be a number"), ("65536", "the port must be a number"), ("-1", "the port must be"),
    ("127.0.0.1:", "the port must be a number"), ("no-such-host.invalid:8080", "cannot resolve")])
def test_bad_live_values_are_refused_in_one_line(value, words):
    with pytest.raises(UserError) as e:
        parse_address(value)
    assert words in str(e.value) and "\n" not in str(e.value) and str(e.value).startswith(f"--live {value}:")


def test_any_address_is_accepted_with_bind_any():
    assert parse_address("0.0.0.0:8080", bind_any=True) == ("0.0.0.0", 8080)


def test_the_command_refuses_a_non_loopback_address_before_reading_the_grid(tmp_path, capsys):
    assert cli.main(["run", str(tmp_path / "absent.toml"), "--live", "0.0.0.0:8123"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--live 0.0.0.0:8123: 0.0.0.0 is not a loopback address" in err
    assert not (tmp_path / "reports").exists()


def test_a_busy_port_is_refused_in_one_line():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(UserError, match=f"^--live 127.0.0.1:{port}: the port is already in use"):
            LiveServer(FixedView(b"{}"), "127.0.0.1", port, b"", "")


def test_the_command_refuses_a_busy_port_before_any_load_and_leaves_no_run_folder(tmp_path, capsys):
    from littlegrid.run.jmeter import find_jmeter
    from needs import missing

    try:
        find_jmeter()
    except UserError as e:
        missing("JMeter", str(e))
    with socket.socket() as taken:  # the busy port is also the grid's target, so the target check passes
        taken.bind(("127.0.0.1", 0))
        taken.listen(16)
        port = taken.getsockname()[1]
        grid = tmp_path / "g.toml"
        plan = __import__("pathlib").Path(__file__).parents[1] / "run" / "fixtures" / "tiny.jmx"
        grid.write_text(f'name = "g"\nplan = "{plan}"\n[target]\nhost = "127.0.0.1"\nport = {port}\n'
                        '[cell]\nduration_s = 5\nwarmup_s = 1\ncooldown_s = 1\n[axes]\nusers = [1]\n')
        code = cli.main(["run", str(grid), "--out", str(tmp_path / "reports"), "--live", str(port)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err == f"littlegrid run: --live 127.0.0.1:{port}: the port is already in use; " \
                                "choose another (or 0 for any free port)"
    assert not (tmp_path / "reports").exists()


def get(url: str, path: str, host: str | None = None) -> tuple[int, bytes, dict]:
    request = urllib.request.Request(url + path.lstrip("/"), headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=CLIENT_TIMEOUT_S - 1) as r:
            return r.status, r.read(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read(), dict(e.headers)


def test_page_and_status_are_served_with_the_csp_and_nothing_else(server):
    code, body, headers = get(server.url, "/")
    assert code == 200 and body.startswith(b"<!DOCTYPE html>") and headers["Content-Security-Policy"] == "default-src 'none'"
    assert get(server.url, "/status.json")[:2] == (200, b'{"ok":true}')
    assert get(server.url, "/status.json?t=1")[0] == 200
    assert get(server.url, "/../etc/passwd")[0] == 404 and get(server.url, "/index.html")[0] == 404


def test_a_page_under_another_name_is_refused(server):
    # DNS rebinding: a page at evil.example whose name now points at 127.0.0.1 sends its own Host
    assert get(server.url, "/status.json", host=f"evil.example:{server.port}")[0] == 403
    assert get(server.url, "/status.json", host=f"localhost:{server.port}")[0] == 200


def test_a_stalled_client_does_not_hold_up_another(server):
    stalled = socket.create_connection(("127.0.0.1", server.port))
    stalled.sendall(b"GET /status.json HTTP/1.0\r\n")  # and nothing more for now
    assert get(server.url, "/status.json")[0] == 200
    # the stalled request was still pending while the other was answered: it still gets its own answer
    stalled.sendall(f"Host: 127.0.0.1:{server.port}\r\n\r\n".encode())
    stalled.settimeout(CLIENT_TIMEOUT_S)
    assert stalled.recv(100).startswith(b"HTTP/1.0 200")
    stalled.close()


def test_a_client_that_never_reads_or_vanishes_does_not_hold_up_another():
    big = LiveServer(FixedView(b"x" * (64 << 20)), "127.0.0.1", 0, b"page", "").start()
    try:
        idle = socket.create_connection(("127.0.0.1", big.port))
        idle.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        idle.sendall(b"GET /status.json HTTP/1.0\r\n\r\n")  # 64 MiB it will never read: the server's write blocks
        gone = socket.create_connection(("127.0.0.1", big.port))
        gone.sendall(b"GET /status.json HTTP/1.0\r\n\r\n")
        gone.close()  # left mid-answer
        code, body, _ = get(big.url, "/")
        assert (code, body) == (200, b"page")
        idle.close()
    finally:
        big.close()
