"""The axis a map's rows run along: the kind of slow database its cells vary (harness/README.md, "Three kinds
of slow database").

  far      the latency added to every round trip (Toxiproxy): the map's --latencies, a sweep's --db-latency
  busy     the cores the database's server is held to (a cgroup CPU quota), every cell at +0 ms
  durable  commits not synced or every commit synced, every cell at +0 ms

A results document names it in `cells.axis` (absent: far, as in every folder made before the other two). Each
run carries its database: `dbLatencyMs`, and `dbCpuCores`, `dbDurable` (absent in older folders: the whole
run's, the environment's `databaseCpuCores` and `databaseDurable`)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..record import Run

#: a place on an axis: the added latency (ms), the database's cores (None: not held), or whether commits are synced
Place = float | bool | None

KINDS = ("far", "busy", "durable")


def cores_of(run: Run, env: dict[str, Any] | None = None) -> float | None:
    """The cores RUN's database was held to (None: not held)."""
    v = run["dbCpuCores"] if "dbCpuCores" in run else (env or {}).get("databaseCpuCores")
    return float(v) if v else None


def durable_of(run: Run, env: dict[str, Any] | None = None) -> bool:
    """Whether RUN's database synced every commit."""
    return bool(run["dbDurable"] if "dbDurable" in run else (env or {}).get("databaseDurable"))


@dataclass(frozen=True)
class Axis:
    kind: str = "far"

    @property
    def far(self) -> bool:
        return self.kind == "far"

    def of(self, run: Run, env: dict[str, Any] | None = None) -> Place:
        """RUN's place on the axis: its added latency (ms), its database's cores (None: not held) or whether
        every commit was synced."""
        if self.kind == "busy":
            return cores_of(run, env)
        if self.kind == "durable":
            return durable_of(run, env)
        latency: Place = run["dbLatencyMs"]
        return latency

    def rank(self, v: Place) -> tuple[Any, ...]:
        """Sorts the axis's places from the least slow database to the slowest: latency up, cores down (not held
        first), not synced before synced."""
        if self.kind == "busy":
            return (0, 0.0) if v is None else (1, -float(v))
        return (0, v)

    def ordered(self, values: Iterable[Place]) -> list[Place]:
        return sorted(set(values), key=self.rank)

    def name(self, v: Place) -> str:
        """A place as a table's cell: 10 (ms added), 0.25 (cores), synced."""
        if self.kind == "busy":
            return "not held" if v is None else f"{v:g}"
        if self.kind == "durable":
            return "synced" if v else "not synced"
        return str(v)

    def text(self, v: Place) -> str:
        """A place in words, for a chart: +10 ms, 0.25 cores, commits synced."""
        if self.kind == "busy":
            return "not held" if v is None else f"{v:g} core" + ("" if v == 1 else "s")
        if self.kind == "durable":
            return "commits synced" if v else "commits not synced"
        return f"+{v} ms"

    @property
    def head(self) -> str:
        """The column of a table the axis is in."""
        return {"busy": "database cores", "durable": "commits"}.get(self.kind, "+ms")

    @property
    def title(self) -> str:
        """The axis of a chart (a cell's round trip beside it)."""
        return {"busy": "the database's cores (round trip)", "durable": "the database's commits (round trip)"}.get(
            self.kind, "added latency (round trip)")

    @property
    def explain(self) -> str:
        """What a table's axis column means."""
        if self.kind == "busy":
            return ("database cores: the database's server held to that many cores in the cell's window alone (a "
                    "cgroup CPU quota), no latency added; Toxiproxy is in the path at every cell")
        if self.kind == "durable":
            return ("commits: not synced (innodb_flush_log_at_trx_commit=2) or every commit synced to disk (1) in the "
                    "cell's window alone, no latency added; Toxiproxy is in the path at every cell")
        return "+ms: latency added to every database round trip (Toxiproxy, in the path at every latency)"

    @property
    def chart(self) -> str:
        """The name of a chart of sales/min along the axis, one per load (latency-sweep.png, ...)."""
        return {"busy": "db-cpu-sweep", "durable": "db-durable-sweep"}.get(self.kind, "latency-sweep")


def of_doc(doc: dict[str, Any]) -> Axis:
    kind = (doc.get("cells") or {}).get("axis") or "far"
    return Axis(kind if kind in KINDS else "far")
