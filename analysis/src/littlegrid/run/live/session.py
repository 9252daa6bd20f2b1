"""Start and stop a live view: the status updater and its HTTP server, as one thing a command holds."""

from __future__ import annotations

from dataclasses import dataclass

from littlegrid.run.live import page
from littlegrid.run.live.server import LiveServer, parse_address
from littlegrid.run.live.view import LiveView


@dataclass
class LiveSession:
    view: LiveView
    server: LiveServer

    @property
    def url(self) -> str:
        return self.server.url

    def close(self) -> None:
        self.server.close()
        self.view.close()


def open_live(host: str, port: int, *, title: str, bind_any: bool = False, update_s: float | None = None) -> LiveSession:
    """Bind (a busy port raises UserError here, before anything runs), then serve and update on daemon threads."""
    view = LiveView(**({"update_s": update_s} if update_s else {}))
    try:
        server = LiveServer(view, host, port, page.render_page(title), page.assets().csp, bind_any=bind_any)
    except BaseException:
        view.close()
        raise
    view.start()
    server.start()
    return LiveSession(view, server)


__all__ = ["LiveSession", "open_live", "parse_address"]
