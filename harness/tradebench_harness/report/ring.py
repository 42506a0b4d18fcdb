"""The thread ring's report (docs/ring.md): rows from round records, the table, the chart, the results folder.

A row is one ring on one CPU layout at one pool size. Its figures are medians over its measured rounds with a 95 %
interval drawn over its forks (analysis/intervals.py: fewer than two forks, no interval); ns and CPU per hand-over
are a round's wall and process CPU time divided by its hand-overs (members x messages, checked by the ring).
"""
from __future__ import annotations

import io
import json
from collections import defaultdict
from pathlib import Path
from typing import Any, NamedTuple

from ..analysis import intervals
from .page import palette_png

#: the 2010 article's rounds (10,000 members x 500 messages on one thread per CPU), in ms
THEN_MS = {"Jetlang": 2155.0, "Groovy++": 1682.0, "Scala actors": 47911.0}
THEN_HANDOVERS = 10_000 * 500
#: which of our rows stands beside which 2010 figure
THEN_BESIDE = {"jetlang": "Jetlang", "akka-fj": "Scala actors"}
MODELS = {"akka-fj": "Akka actors, fork-join-executor", "akka-tp": "Akka actors, thread-pool-executor",
          "akka-affinity": "Akka actors, affinity-pool-executor", "pekko-fj": "Pekko actors, fork-join-executor",
          "pekko-tp": "Pekko actors, thread-pool-executor", "jetlang": "Jetlang fibers on a fixed pool",
          "threads": "platform thread per member, LinkedBlockingQueue", "virtual": "virtual thread per member, LinkedBlockingQueue",
          "future": "CompletableFuture.runAsync on a fixed pool", "node-loop-immediate": "Node, one event loop, setImmediate",
          "node-loop-microtask": "Node, one event loop, queueMicrotask", "node-workers": "Node worker_threads, MessagePort",
          "node-children": "Node child processes, IPC via the parent"}
CHART = "ring.png"


class Design(NamedTuple):
    """A design's hand-overs per order (docs/ring.md, "Hand-overs per order, per design": read from its code) and
    the ring row of the model they go through."""
    name: str
    per_sale: float
    batch: float
    ring: str


DESIGNS = (Design("java-threads", 0, 0, "threads"), Design("java-virtual", 1.5, 1, "virtual"),
           Design("java-akka", 1, 1, "akka-fj"), Design("java-spray-async", 5, 4, "akka-tp"),
           Design("node-engine", 0.5, 0.5, "node-children"), Design("node-engine WORKERS=threads", 0, 0, "node-workers"))


def key_of(r: dict[str, Any]) -> tuple[str, str, int, int]:
    return (r.get("part", "rows"), r["ring"], len(r["layout"]), int(r["threads"]))


def rows_of(rounds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (part, ring, CPUs, threads), in the order first measured."""
    groups: dict[tuple[str, str, int, int], list[dict[str, Any]]] = defaultdict(list)
    for r in rounds:
        if int(r["handovers"]) != int(r["members"]) * int(r["messages"]):
            raise ValueError(f"{r['ring']}: {r['handovers']} hand-overs, not members x messages")
        groups[key_of(r)].append(r)
    return [row_of(k, rs) for k, rs in groups.items()]


def by_fork(rs: list[dict[str, Any]], figure: str) -> list[list[float]]:
    forks: dict[int, list[float]] = defaultdict(list)
    for r in rs:
        forks[int(r["pid"])].append(float(r[figure]) / (1e6 if figure == "wallMs" else 1.0))
    return list(forks.values())


def row_of(key: tuple[str, str, int, int], rs: list[dict[str, Any]]) -> dict[str, Any]:
    part, ring, cpus, threads = key
    per = [{**r, "nsPerHandover": r["wallNs"] / r["handovers"], "cpuNsPerHandover": r["cpuNs"] / r["handovers"],
            "wallMs": r["wallNs"]} for r in rs]
    tag = f"{part}/{ring}/{cpus}/{threads}"
    return {"part": part, "ring": ring, "model": MODELS.get(ring, ring), "cpus": cpus, "threads": threads,
            "members": rs[0]["members"], "messages": rs[0]["messages"], "handovers": rs[0]["handovers"],
            "forks": len({r["pid"] for r in rs}), "rounds": len(rs),
            "totalMs": intervals.interval(by_fork(per, "wallMs"), tag + "/ms"),
            "nsPerHandover": intervals.interval(by_fork(per, "nsPerHandover"), tag + "/ns"),
            "cpuNsPerHandover": intervals.interval(by_fork(per, "cpuNsPerHandover"), tag + "/cpu")}


def figure(ci: dict[str, Any] | None, digits: int = 0) -> str:
    """median [low–high]; the interval missing with one fork."""
    if not ci:
        return "–"
    f = f"{{:,.{digits}f}}"
    if intervals.available(ci):
        return f"{f.format(ci['median'])} [{f.format(ci['low'])}–{f.format(ci['high'])}]"
    return f.format(ci["median"]) + " (one fork)"


def then_of(ring: str, cpus: int) -> str:
    name = THEN_BESIDE.get(ring)
    if not name or cpus != 2:
        return ""
    ms = THEN_MS[name]
    return f"{name} {ms:,.0f} ms ({ms * 1e6 / THEN_HANDOVERS:,.0f} ns)"


def table(rows: list[dict[str, Any]], part: str = "rows") -> list[str]:
    out = ["| row | model | CPUs | threads | members × messages | total ms | ns per hand-over [95 %] | "
           "CPU ns per hand-over | 2010 |", "|---|---|---|---|---|---|---|---|---|"]
    for r in (r for r in rows if r["part"] == part):
        out.append(f"| {r['ring']} | {r['model']} | {r['cpus']} | {r['threads']} | {r['members']:,} × {r['messages']:,} "
                   f"| {figure(r['totalMs'])} | {figure(r['nsPerHandover'])} | {figure(r['cpuNsPerHandover'])} "
                   f"| {then_of(r['ring'], r['cpus']) if part == 'rows' else ''} |")
    return out


def then_table() -> list[str]:
    out = ["| 2010 (10,000 × 500, one thread per CPU) | ms | ns per hand-over |", "|---|---|---|"]
    out += [f"| {k} | {v:,.0f} | {v * 1e6 / THEN_HANDOVERS:,.0f} |" for k, v in THEN_MS.items()]
    return out


def summary(doc: dict[str, Any]) -> str:
    rows = doc["rows"]
    plan = doc["plan"]
    lines = [f"# Thread ring: {plan['members']:,} members × {plan['messages']:,} messages", "",
             *table(rows), ""]
    if any(r["part"] == "sweep" for r in rows):
        lines += ["## The dispatcher sweep (pool sizes on this machine's CPUs)", "", *table(rows, "sweep"), ""]
    lines += ["## Hand-overs per order, per design", "", *designs_table(rows), "",
              "Count: docs/ring.md (read from each design's code). Cost: the row's CPU ns per hand-over on this run's "
              "largest layout. docs/ring.md sets the product beside each design's profile.", ""]
    lines += ["## 2010", "", *then_table(), "",
              f"Command: `{doc['commandLine']}`; commit {doc.get('commit', '?')}; {doc.get('machine', {}).get('cpuModel', '?')}, "
              f"{doc.get('machine', {}).get('cpus', '?')} CPUs; {doc['startedAt']} – {doc['finishedAt']}.", "",
              "Each figure: the median of the measured rounds, [the 95 % interval over forks]. CPU: the process's "
              "(every thread, the Node workers and children too) over the round, ÷ hand-overs. The rows at other "
              "sizes than the plan's (threads, node-workers, node-children) say so in members × messages.", ""]
    return "\n".join(lines)


def designs_table(rows: list[dict[str, Any]]) -> list[str]:
    """Each design's hand-overs per order times its model's ring cost (CPU per hand-over, largest layout measured)."""
    main = [r for r in rows if r["part"] == "rows" and r["cpuNsPerHandover"]]
    widest = max((r["cpus"] for r in main), default=0)
    out = ["| design | hand-overs per order: per-sale / batch | its ring row | CPU ns per hand-over | "
           "count × cost, µs per order: per-sale / batch |", "|---|---|---|---|---|"]
    for d in DESIGNS:
        r = next((r for r in main if r["ring"] == d.ring and r["cpus"] == widest), None)
        if r is None:
            continue
        ns = r["cpuNsPerHandover"]["median"]
        out.append(f"| {d.name} | {d.per_sale:g} / {d.batch:g} | `{d.ring}` ({widest} CPUs) | {ns:,.0f} | "
                   f"{d.per_sale * ns / 1000:.1f} / {d.batch * ns / 1000:.1f} |")
    return out


def chart(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    main = [r for r in rows if r["part"] == "rows" and r["nsPerHandover"]]
    rings = list(dict.fromkeys(r["ring"] for r in main))
    layouts = sorted({r["cpus"] for r in main})
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(rings) + 1.8))
    height = 0.8 / max(1, len(layouts))
    for k, cpus in enumerate(layouts):
        ys, xs, lo, hi = [], [], [], []
        for i, ring in enumerate(rings):
            r = next((r for r in main if r["ring"] == ring and r["cpus"] == cpus), None)
            if r is None:
                continue
            ci = r["nsPerHandover"]
            ys.append(i + k * height)
            xs.append(ci["median"])
            lo.append(ci["median"] - (ci["low"] if ci["low"] is not None else ci["median"]))
            hi.append((ci["high"] if ci["high"] is not None else ci["median"]) - ci["median"])
        ax.barh(ys, xs, height=height, xerr=[lo, hi], label=f"{cpus} CPU{'s' if cpus > 1 else ''}", capsize=2)
    for name, ms in THEN_MS.items():
        ax.axvline(ms * 1e6 / THEN_HANDOVERS, linestyle="--", linewidth=0.8, color="grey")
        ax.text(ms * 1e6 / THEN_HANDOVERS, -0.9, f"2010 {name}", fontsize=7, rotation=90, va="bottom", color="grey")
    ax.set_yticks([i + height * (len(layouts) - 1) / 2 for i in range(len(rings))], rings)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("ns per hand-over (log scale; 95 % interval over forks)")
    ax.set_title("Thread ring: what one hand-over costs, per model")
    ax.legend(loc="lower right")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    plt.close(fig)
    path.write_bytes(palette_png(buf.getvalue()))


def write(folder: Path, doc: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps(doc, indent=1) + "\n")
    (folder / "summary.md").write_text(summary(doc))
    if doc["rows"]:
        chart(doc["rows"], folder / CHART)
