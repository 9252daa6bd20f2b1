"""Whose figures each [observe] source gives in one cell, decided in this one place for every stage that picks "the"
source (the pool under test, the server's requests, the server's CPU, the live page): per cell, not per run, since a
grid may move its target from cell to cell (a port or a host axis: two deployments compared by their address).

A source serves a target when it is that target's process: its URL is the target's host and port, or it reports
a Tomcat connector on the target's port from the target's host (a Spring Boot actuator on a management port of its
own still names the application's connector, http-nio-<port>). Then, per cell:

1. a source that serves the cell's target is the cell's (its figures are the target's, process and host);
2. a source that serves another cell's target is not the cell's: its figures describe that other deployment, and
   the cell does not read them (the source stays listed among the cell's, with the target it serves);
3. any other source (a host's node_exporter, a process whose port nothing tells) is the target's when it ran on
   the target's host: the same host name, an address in common, or both this host; elsewhere, it is a figure of
   another host, kept but never the target's.

Hosts are compared from the records the runner made before any load (run/placement.py): host, the addresses it
resolved to, this_host | elsewhere | unknown."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from littlegrid.analysis.observed import mapping
from littlegrid.analysis.observed.mapping import Observed

TOMCAT = mapping.THREAD_POOLS[0].kind


@dataclass(frozen=True)
class Places:
    """What the choice needs from the manifests: the cell's target, every cell's target, each source's record
    ({host, port, addresses, placement}), and for sources without a record (an older folder's server-metrics.csv)
    whether they are the target's."""

    target: dict | None = None
    targets: tuple = ()
    sources: dict = field(default_factory=dict)
    assumed: dict = field(default_factory=dict)


@dataclass(frozen=True)
class CellSources:
    """A cell's own figures (Observed without those of sources serving another cell's target), and per source
    whether its figures are the target's (`target_host`) and which of the run's targets it serves ("host:port")."""

    found: Observed
    target_host: dict
    serves: dict


def same_host(source: dict | None, target: dict | None) -> bool:
    """Whether two records are one host: both on this host, an address in common, or the same name."""
    if not source or not target:
        return False
    if source.get("placement") == target.get("placement") == "this_host":
        return True
    if set(source.get("addresses") or ()) & set(target.get("addresses") or ()):
        return True
    return bool(source.get("host")) and str(source.get("host")).lower() == str(target.get("host") or "").lower()


def connector_ports(found: Observed, url: str) -> set[int]:
    """The ports of the Tomcat connectors `url` reports: the ports its process listens on for HTTP."""
    return {port for p in found.thread_pools if p.source == url and p.kind == TOMCAT
            and (port := mapping.connector_port(p.name)) is not None}


def serves(url: str, record: dict | None, found: Observed, target: dict | None) -> bool:
    """Whether the source at `url` is the process of `target`: on its host, at its port or with a connector on it."""
    port = (target or {}).get("port")
    if port is None or not same_host(record, target):
        return False
    return record.get("port") == port or port in connector_ports(found, url)


def _address(target: dict) -> str:
    return f"{target.get('host')}:{target.get('port')}"


def of_cell(found: Observed, places: Places) -> CellSources:
    """The cell's sources by the rules above."""
    urls = list(dict.fromkeys([*places.sources, *found.scrapes, *found.failed]))
    others = [t for t in places.targets if _address(t) != _address(places.target or {})]
    serving, elsewhere = {}, set()
    for url in urls:
        record = places.sources.get(url)
        if serves(url, record, found, places.target):
            serving[url] = _address(places.target)
        elif other := next((t for t in others if serves(url, record, found, t)), None):
            serving[url] = _address(other)
            elsewhere.add(url)
    target_host = {url: url not in elsewhere and (
        url in serving or (same_host(places.sources[url], places.target) if url in places.sources
                           else bool(places.assumed.get(url)))) for url in urls}
    return CellSources(found=_without(found, elsewhere), target_host=target_host, serves=serving)


def _without(found: Observed, urls: set) -> Observed:
    """The figures of every source but `urls` (their scrapes and failures kept: they were made in this cell)."""
    if not urls:
        return found
    keep = lambda figures: tuple(f for f in figures if f.source not in urls)  # noqa: E731
    return replace(found, thread_pools=keep(found.thread_pools), connection_pools=keep(found.connection_pools),
                   process_cpu=keep(found.process_cpu), hosts=keep(found.hosts), gc=keep(found.gc),
                   requests=keep(found.requests))
