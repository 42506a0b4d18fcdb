"""The one place for Toxiproxy: a proxy in front of the database that adds a
fixed latency to every round trip (the 2014 article's slow database; the
reliability suite's small, known capacity).

The server is Shopify's toxiproxy-server: on PATH, or in tools/, built there
with `go install` when missing (tools.py).
"""
from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

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


class SlowLink:
    """toxiproxy-server with one proxy 127.0.0.1:listen -> upstream, +latency ms on what comes back."""

    def __init__(self, ctx: Context, upstream_host: str, upstream_port: int, latency_ms: int, log: Path):
        self.ctx, self.upstream = ctx, (upstream_host, upstream_port)
        self.latency_ms, self.log = latency_ms, log
        self.server: process.Running | None = None
        self.port: int | None = None
        self.api: str | None = None

    def start(self) -> SlowLink:
        api = process.free_port()
        # the database's side of the wire: on its CPUs (run/layout.py)
        self.server = process.start("toxiproxy", self.ctx.placed("database", [binary(self.ctx), "-host", "127.0.0.1",
                                                                               "-port", str(api)]), self.log)
        if not process.wait_http(f"http://127.0.0.1:{api}/version", 20, self.server.popen):
            self.stop()
            raise ToxiproxyError(f"toxiproxy did not start (log: {self.log})")
        self.port = process.free_port()
        base = self.api = f"http://127.0.0.1:{api}"
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

    @property
    def pid(self) -> int | None:
        return self.server.pid if self.server else None

    def stop(self) -> None:
        if self.server:
            self.server.stop(5)
            self.server = None

    def __enter__(self) -> SlowLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
