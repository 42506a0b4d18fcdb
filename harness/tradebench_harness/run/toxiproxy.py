"""The one place for Toxiproxy: a proxy in front of the database that adds a
fixed latency to every round trip (the 2014 article's slow database; the
reliability suite's small, known capacity), and `Paths`: several named paths to
one server, each slowed or cut on its own (the isolation experiment's writers'
path and the order view's read path).

The server is Shopify's toxiproxy-server: on PATH, or in tools/, built there
with `go install` when missing (tools.py).
"""
from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from typing_extensions import Self

from . import process, tools
from .context import Context


class ToxiproxyError(Exception):
    pass


def binary(ctx: Context) -> str:
    try:
        return tools.toxiproxy(ctx)
    except tools.ToolError as e:
        raise ToxiproxyError(f"a slow database needs toxiproxy-server: {e} (or put toxiproxy-server on PATH)") from e


def _post(url: str, doc: dict[str, Any]) -> None:
    req = urllib.request.Request(url, data=json.dumps(doc).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        r.read()


def _delete(url: str) -> None:
    with urllib.request.urlopen(urllib.request.Request(url, method="DELETE"), timeout=10) as r:
        r.read()


def _serve(ctx: Context, log: Path) -> tuple[process.Running, str]:
    """toxiproxy-server on the database's CPUs (run/layout.py: the database's side of the wire); its API's URL."""
    api = process.free_port()
    server = process.start("toxiproxy", ctx.placed("database", [binary(ctx), "-host", "127.0.0.1", "-port", str(api)]),
                           log)
    if not process.wait_http(f"http://127.0.0.1:{api}/version", 20, server.popen):
        server.stop(5)
        raise ToxiproxyError(f"toxiproxy did not start (log: {log})")
    return server, f"http://127.0.0.1:{api}"


#: what a path can be made to do: nothing added, a latency added to every answer (ms), or "down": every answer
#: held back and the connection closed after `DOWN_AFTER_MS` (a dependency that takes 30 s, then fails)
Toxic = int | str | None
DOWN = "down"


class _Server:
    """A toxiproxy-server this module started: its pid, its stop, and `with` (start, then stop)."""
    server: process.Running | None = None

    def start(self) -> Self:
        raise NotImplementedError

    @property
    def pid(self) -> int | None:
        return self.server.pid if self.server else None

    def stop(self) -> None:
        if self.server:
            self.server.stop(5)
            self.server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Paths(_Server):
    """toxiproxy-server with one proxy per named path, 127.0.0.1:<its port> -> the same upstream server; each
    path's toxic is set on its own (`set`), while the paths carry traffic."""

    def __init__(self, ctx: Context, upstream_host: str, upstream_port: int, names: tuple[str, ...], log: Path,
                 down_after_ms: int = 30_000):
        self.ctx, self.upstream, self.names, self.log = ctx, (upstream_host, upstream_port), names, log
        self.down_after_ms = down_after_ms
        self.server: process.Running | None = None
        self.api = ""
        self.ports: dict[str, int] = {}
        self.toxics: dict[str, Toxic] = {n: None for n in names}

    def start(self) -> Self:
        self.server, self.api = _serve(self.ctx, self.log)
        try:
            for name in self.names:
                self.ports[name] = process.free_port()
                _post(f"{self.api}/proxies", {"name": name, "listen": f"127.0.0.1:{self.ports[name]}",
                                              "upstream": f"{self.upstream[0]}:{self.upstream[1]}", "enabled": True})
        except OSError as e:
            self.stop()
            raise ToxiproxyError(f"could not set up the proxies: {e}") from e
        return self

    def set(self, name: str, toxic: Toxic) -> None:
        """Path NAME from now on: as it is (None), +TOXIC ms on every answer, or DOWN."""
        if toxic == self.toxics[name]:
            return
        base = f"{self.api}/proxies/{name}/toxics"
        try:
            if self.toxics[name] is not None:
                _delete(f"{base}/path")
            if toxic == DOWN:
                _post(base, {"name": "path", "type": "timeout", "stream": "downstream",
                             "attributes": {"timeout": self.down_after_ms}})
            elif toxic is not None:
                _post(base, {"name": "path", "type": "latency", "stream": "downstream",
                             "attributes": {"latency": int(toxic), "jitter": 0}})
        except OSError as e:
            raise ToxiproxyError(f"could not set path {name} to {toxic}: {e}") from e
        self.toxics[name] = toxic



class SlowLink(_Server):
    """toxiproxy-server with one proxy 127.0.0.1:listen -> upstream, +latency ms on what comes back."""

    def __init__(self, ctx: Context, upstream_host: str, upstream_port: int, latency_ms: int, log: Path):
        self.ctx, self.upstream = ctx, (upstream_host, upstream_port)
        self.latency_ms, self.log = latency_ms, log
        self.server: process.Running | None = None
        self.port: int | None = None
        self.api: str | None = None

    def start(self) -> Self:
        self.server, base = _serve(self.ctx, self.log)
        self.api = base
        self.port = process.free_port()
        try:
            _post(f"{base}/proxies", {"name": "mysql", "listen": f"127.0.0.1:{self.port}",
                                      "upstream": f"{self.upstream[0]}:{self.upstream[1]}", "enabled": True})
            _post(f"{base}/proxies/mysql/toxics", {"name": "slow-db", "type": "latency", "stream": "downstream",
                                                   "attributes": {"latency": self.latency_ms, "jitter": 0}})
        except OSError as e:
            self.stop()
            raise ToxiproxyError(f"could not set up the proxy: {e}") from e
        return self

    def set_latency(self, latency_ms: int) -> None:
        """Changes the added latency while the link carries traffic (the sweep's variant keeps its connections)."""
        try:
            _post(f"{self.api}/proxies/mysql/toxics/slow-db", {"attributes": {"latency": latency_ms, "jitter": 0}})
        except OSError as e:
            raise ToxiproxyError(f"could not change the latency to {latency_ms} ms: {e}") from e
        self.latency_ms = latency_ms

