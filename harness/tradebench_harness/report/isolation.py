"""The isolation experiment's figures, bounds, tables and charts (docs/isolation.md), from its document
(record: `isolation.json.gz`): the arithmetic first (each phase's figures with their intervals, each row's bound,
the verdicts), then what draws them (summary.md, the charts).

A phase's figures are the load client's, from the requests whose due or send time fell in it: requests/s,
p50 / p90 / p99 / p99.9 from the phase's merged histogram (HdrHistogram; orders corrected for coordinated
omission), and the answers by kind. Their 95 % intervals are over the phase's seconds: the mean second's
requests and the median second's p99, each by a bootstrap of the seconds (analysis/intervals.py's resampling).
Seconds next to each other are not independent (a queue carries over), so the intervals are a floor on the
uncertainty, said so beside them.
"""
from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..analysis.intervals import CONFIDENCE, RESAMPLES, SEED, bounds_of  # noqa: E402
from ..run import layout  # noqa: E402
from .page import palette_png  # noqa: E402

TYPES = ("order", "view")
#: an order's p99 in a slow phase within this factor of the healthy phase's (and this many ms over it, for a
#: healthy p99 of a millisecond): the orders kept flowing; beyond both, they queued behind the views
KEPT_FACTOR = 3.0
KEPT_MARGIN_MS = 50.0
#: Tomcat's request threads (engine-servlet TomcatServer: 200, the 2012 configuration; HTTP_THREADS)
TOMCAT_THREADS = 200
#: the designs whose views, in VIEWS=blocking, wait on a platform request thread that orders need too
SERVLET_PLATFORM = ("java-threads", "java-akka")
DEFAULT_VIEW_LIMIT, DEFAULT_READ_TIMEOUT_MS, DEFAULT_READ_POOL = 64, 2000, 16
#: what the down path holds a read for before its connection is closed (run/toxiproxy.py Paths)
DOWN_MS = 30_000


# --- the arithmetic -------------------------------------------------------------------------------------------

def _boot(values: list[float], stat: Any, tag: str) -> tuple[float, float] | None:
    if len(values) < 3:
        return None
    rng = random.Random(f"{SEED}-{tag}")
    draws = [stat([values[rng.randrange(len(values))] for _ in values]) for _ in range(RESAMPLES // 4)]
    return bounds_of(draws)


def _median(xs: list[float]) -> float:
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def seconds_of(load: dict[str, Any], kind: str, phase: dict[str, Any]) -> list[dict[str, Any]]:
    """The per-second entries of request type KIND that lie in PHASE (by their start)."""
    per = ((load.get("types") or {}).get(kind) or {}).get("perSecond") or []
    return [s for s in per if phase["startMs"] <= s["startMs"] < phase["endMs"]]


def phase_figures(load: dict[str, Any] | None, kind: str) -> list[dict[str, Any]]:
    """Each phase of request type KIND: the load client's figures, with the intervals over its seconds."""
    if not load:
        return []
    t = (load.get("types") or {}).get(kind) or {}
    out = []
    for ph in t.get("phases") or []:
        secs = seconds_of(load, kind, ph)
        rates = [float(s["requests"]) for s in secs]
        p99s = [float(s["p99"]) for s in secs if s.get("p99") is not None and s.get("requests")]
        lat = ph.get("latencyMs") or {}
        answers = ph.get("answers") or {}
        out.append({"phase": ph["name"], "requestsPerSecond": ph.get("requestsPerSecond"),
                    "rateCi": _boot(rates, _mean, f"{kind}-{ph['name']}-rate"),
                    "p50": lat.get("p50"), "p90": lat.get("p90"), "p99": lat.get("p99"), "p999": lat.get("p999"),
                    "max": lat.get("max"), "medianSecondP99": _median(p99s) if p99s else None,
                    "p99Ci": _boot(p99s, _median, f"{kind}-{ph['name']}-p99"),
                    "answers": answers, "byStatus": ph.get("byStatus") or {}, "requests": ph.get("requests")})
    return out


def _setting(row: dict[str, Any], name: str, default: int) -> int:
    v = (row.get("settings") or {}).get(name)
    return int(v) if v not in (None, "") else default


def read_delay_s(phase: dict[str, Any], healthy_rtt_ms: float = 0.2) -> float:
    """What the read path adds to one read in PHASE, s (down: the 30 s before its connection is closed)."""
    reads = phase.get("reads")
    return (DOWN_MS if reads == "down" else float(reads or 0) + healthy_rtt_ms) / 1000


def view_hold_s(phase: dict[str, Any], row: dict[str, Any], clients: int, mean_pause_s: float) -> float:
    """How long a view holds what it waits on in PHASE. Its read's delay d, at most the row's time-out, while the
    read pool carries what the clients offer (clients ÷ (d + pause) views/s, READ_POOL ÷ d at most); beyond that
    the views queue for a connection, and a queued view waits up to its time-out."""
    timeout = _setting(row, "READ_TIMEOUT_MS", DEFAULT_READ_TIMEOUT_MS) / 1000
    d = min(read_delay_s(phase), timeout)
    pool = _setting(row, "READ_POOL", DEFAULT_READ_POOL)
    carried = clients / (d + mean_pause_s) * d <= pool
    return d if carried else timeout


def bound(row: dict[str, Any], phase: dict[str, Any], clients: int, mean_pause_s: float) -> dict[str, Any]:
    """Little's law for the views of ROW in PHASE: the views CLIENTS closed-loop clients offer while each view
    holds its slot T s (clients ÷ (T + pause)), how many are held at once (that × T), what holds them, and
    whether the orders must queue behind them: only where a view holds a platform request thread that orders
    share, with no limit below the thread count, and the views held reach it (a pool of N threads blocked T s
    a view carries at most N ÷ T views/s). T is the read's delay while the read pool carries the views, and the
    time-out once they queue for its connections (view_hold_s)."""
    t = view_hold_s(phase, row, clients, mean_pause_s)
    offered = clients / (t + mean_pause_s)
    held = offered * t
    views = (row.get("settings") or {}).get("VIEWS", "blocking")
    limit = _setting(row, "VIEW_LIMIT", DEFAULT_VIEW_LIMIT)
    pool = _setting(row, "READ_POOL", DEFAULT_READ_POOL)
    d = read_delay_s(phase)
    out: dict[str, Any] = {"phase": phase["name"], "holdS": round(t, 3), "offeredViewsPerS": round(offered, 1),
                           "viewsHeld": round(held, 1), "readPoolViewsPerS": round(pool / d, 1) if d else None}
    if row["variant"] in SERVLET_PLATFORM and views == "blocking":
        threads = _setting(row, "HTTP_THREADS", TOMCAT_THREADS)
        slots = min(limit, threads) if limit else threads
        out.update(holder=f"{threads} request threads", threadsForViews=slots,
                   threadsViewsPerS=round(threads / t, 1) if t else None,
                   ordersQueue=bool(held >= threads and slots >= threads))
    else:
        holder = {"async": "a bulkhead's threads", "resilience4j": "a bulkhead's threads"}.get(views)
        if holder is None:
            holder = "virtual threads" if row["variant"] == "java-virtual" else "callbacks (no thread)"
        out.update(holder=holder, threadsForViews=None, threadsViewsPerS=None, ordersQueue=False)
    return out


def verdict(orders: list[dict[str, Any]], phase: str) -> str | None:
    """`kept` when the orders' p99 in PHASE stayed within KEPT_FACTOR × (and KEPT_MARGIN_MS over) the healthy
    phase's, `queued` when it did not; None without both."""
    by = {f["phase"]: f for f in orders}
    healthy, slow = by.get("healthy"), by.get(phase)
    if not healthy or not slow or healthy.get("p99") is None or slow.get("p99") is None:
        return None
    limit = max(KEPT_FACTOR * healthy["p99"], healthy["p99"] + KEPT_MARGIN_MS)
    return "kept" if slow["p99"] <= limit else "queued"


def figures(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Every row's figures: per type and phase, the bounds, the verdicts."""
    exp = doc["experiment"]
    clients = int(exp["load"]["viewClients"])
    pause = sum(exp["load"]["viewPauseMs"]) / 2000
    out = []
    for row in doc["rows"]:
        types = {k: phase_figures(row.get("load"), k) for k in TYPES}
        bounds = [bound(row, p, clients, pause) for p in exp["phases"]]
        verdicts = {p["name"]: verdict(types["order"], p["name"]) for p in exp["phases"] if p["name"] != "healthy"}
        out.append({"label": row["label"], "variant": row["variant"], "why": row.get("why", ""), "types": types,
                    "bounds": bounds, "verdicts": verdicts, "audit": row.get("audit") or {}, "error": row.get("error"),
                    "costs": row.get("costs") or {}, "dbConnections": row.get("dbConnections")})
    return out


# --- tables ---------------------------------------------------------------------------------------------------

def _ms(x: Any) -> str:
    if x is None:
        return "–"
    x = float(x)
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def _ci(ci: Any, fmt: Any = _ms) -> str:
    return f" [{fmt(ci[0])}–{fmt(ci[1])}]" if ci else ""


def _rate(x: Any) -> str:
    return "–" if x is None else f"{float(x):,.0f}"


def _views(f: dict[str, Any]) -> str:
    a = f.get("answers") or {}
    parts = [f"{a.get(k) or 0:,} {name}" for k, name in (("ok", "ok"), ("refused503", "503"),
                                                           ("timedOut504", "504"), ("clientTimeouts", "hung"))
             if a.get(k)]
    return ", ".join(parts) or "none"


SLOW = ("view-slow", "db-slow", "view-down")


def answer_table(rows: list[dict[str, Any]]) -> list[str]:
    """One line per design: its orders' p99 healthy and in each slow phase, and whether they kept flowing."""
    lines = ["| design | orders p99 healthy | views slow (+1 s) | database slow (+5 s) | views down (30 s, then an error) "
             "| last 10 s | audit |", "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in rows:
        by = {f["phase"]: f for f in r["types"]["order"]}
        cells = []
        for ph in ("healthy", *SLOW, "recover-3"):
            f = by.get(ph)
            v = r["verdicts"].get(ph)
            mark = " **queued**" if v == "queued" else ""
            cells.append(f"{_ms(f['p99'])} ms{mark}" if f else "–")
        audit = "passed" if r["audit"].get("ok") else ("**failed**" if r["audit"] else "–")
        lines.append(f"| {r['label']} | " + " | ".join(cells) + f" | {audit} |")
    return lines


def phase_table(r: dict[str, Any]) -> list[str]:
    lines = ["| phase | orders/s | orders p50 | p90 | p99 [median second's] | p99.9 | orders not 202 | views/s | "
             "view p50 | view p99 | views answered | bound: views held (holder) |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    views = {f["phase"]: f for f in r["types"]["view"]}
    bounds = {b["phase"]: b for b in r["bounds"]}
    for o in r["types"]["order"]:
        v = views.get(o["phase"], {})
        b = bounds.get(o["phase"], {})
        # every answer but a 202, and the requests that got none (the load client's ioErrors, 0 when it has none)
        io_errors = (o.get("answers") or {}).get("ioErrors", 0)
        not202 = sum(n for s, n in (o.get("byStatus") or {}).items() if s != "202") + int(io_errors)
        held = f"{b.get('viewsHeld', '–')} ({b.get('holder', '–')})"
        if b.get("ordersQueue"):
            held += ": **≥ the threads**"
        lines.append(f"| {o['phase']} | {_rate(o['requestsPerSecond'])}{_ci(o['rateCi'], _rate)} | {_ms(o['p50'])} | "
                     f"{_ms(o['p90'])} | {_ms(o['p99'])} [{_ms(o['medianSecondP99'])}{_ci(o['p99Ci'])[1:] if o['p99Ci'] else ''}] | "
                     f"{_ms(o['p999'])} | {not202:,} | {_rate(v.get('requestsPerSecond'))} | {_ms(v.get('p50'))} | "
                     f"{_ms(v.get('p99'))} | {_views(v) if v else '–'} | {held} |")
    return lines


def cpu_us_per_request(r: dict[str, Any], phase: str = "healthy") -> float | None:
    """The variant's CPU per request of either type in PHASE, µs: its mean CPU (100 = a core) over the
    requests per second of both types."""
    c = (r["costs"].get(phase) or {}).get("cpuPercent")
    rates = [next((f["requestsPerSecond"] for f in r["types"][k] if f["phase"] == phase), None) for k in TYPES]
    total = sum(x for x in rates if x)
    return round(c * 10_000 / total, 1) if c is not None and total else None


def cost_line(r: dict[str, Any]) -> str:
    c = r["costs"].get("healthy") or {}
    if not c:
        return ""
    return (f"Cost, healthy phase: {c.get('cpuPercent')} % of a core ({cpu_us_per_request(r)} µs a request of "
            f"either type, at a light load where the process's own cycles and timers weigh most), {c.get('rssMaxMb')} MB RSS, {c.get('threadsMax')} threads, {r.get('dbConnections')} "
            "database connections (writers' and readers').")


def summary(doc: dict[str, Any]) -> str:
    rows = figures(doc)
    env = doc.get("environment") or {}
    exp = doc["experiment"]
    ld = exp["load"]
    out = [f"# Isolation: {exp['description']}", "",
           *answer_table(rows), "",
           f"Orders at {ld['orderRate']:g}/s (fixed rate, latency from each order's due time) beside {ld['viewClients']} "
           f"view clients pausing {ld['viewPauseMs'][0]}–{ld['viewPauseMs'][1]} ms; **queued**: the orders' p99 more "
           f"than {KEPT_FACTOR:g}× (and {KEPT_MARGIN_MS:g} ms over) the healthy phase's. "
           f"Machine: {env.get('cpuModel', '?')}, {env.get('cores', '?')} CPUs; layout: {layout.describe(env.get('layout'))}; "
           f"commit {env.get('gitCommit', '?')}{' (dirty)' if env.get('gitDirty') else ''}; {doc.get('startedAt')}. "
           "Definitions: docs/isolation.md.", "",
           "## The 2012 experiment beside it", "", *article_lines(exp.get("article") or {}), ""]
    for r in rows:
        out += [f"## {r['label']}", "", r["why"], ""]
        if r["error"]:
            out += [f"**Not measured**: {r['error']}", ""]
            continue
        out += phase_table(r) + [""]
        line = cost_line(r)
        if line:
            out += [line, ""]
        if r["audit"] and not r["audit"].get("ok"):
            out += ["Audit failures: " + "; ".join(r["audit"].get("failures") or ["(see audit.log)"]), ""]
    out += ["Intervals: 95 %, a bootstrap over the phase's seconds (the mean second's rate, the median second's "
            "p99); seconds next to each other are not independent, so they are a floor on the uncertainty. "
            "Bound: Little's law, views held = views/s × the time each holds its slot (the read's delay, at most "
            "its time-out); a design whose views hold platform request threads with no limit queues its orders "
            "once that reaches the thread count."]
    return "\n".join(out) + "\n"


def article_lines(a: dict[str, Any]) -> list[str]:
    if not a:
        return []
    h, f = a.get("healthy") or {}, a.get("failure") or {}
    s = f.get("servlets") or {}
    return [f"{a.get('source', '')}. Healthy: the dependent types' median {h.get('dependentP50Ms')} ms, 90 % line "
            f"{h.get('dependentP90Ms')} ms, {h.get('requestsPerSecondPerType')} requests/s per type. The search "
            f"service taking 30 s then failing: the servlets' other types averaged {_ms(s.get('otherTypesMeanMs'))} ms "
            f"with a 90 % line of {_ms(s.get('otherTypesP90Ms'))} ms, every type down to about "
            f"{s.get('requestsPerSecondPerType')} requests/s; Play: {f.get('play', '')}."]


# --- charts ---------------------------------------------------------------------------------------------------

PHASE_COLOURS = {"view-slow": "#fde0c5", "db-slow": "#e0d4f5", "view-down": "#f8c6c6"}


def _shade(ax: Any, exp: dict[str, Any]) -> None:
    t = 0.0
    for p in exp["phases"]:
        if p["name"] in PHASE_COLOURS:
            ax.axvspan(t, t + p["seconds"], color=PHASE_COLOURS[p["name"]], lw=0)
        t += p["seconds"]


def timeline(doc: dict[str, Any], path: Path) -> None:
    """A panel per row: each second's p99 of orders and of views (log scale), the slow phases shaded."""
    rows = [r for r in doc["rows"] if r.get("load")]
    if not rows:
        return
    n = len(rows)
    cols = 3 if n > 4 else n
    nrows = (n + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 2.6 * nrows), sharex=True, sharey=True, squeeze=False)
    for ax, r in zip(axes.flat, rows):
        load = r["load"]
        start = load.get("windowStartMs", 0)
        _shade(ax, doc["experiment"])
        for kind, style in (("order", "-"), ("view", ":")):
            per = ((load.get("types") or {}).get(kind) or {}).get("perSecond") or []
            xs = [(s["startMs"] - start) / 1000 for s in per if s.get("p99") is not None and s.get("requests")]
            ys = [max(0.1, float(s["p99"])) for s in per if s.get("p99") is not None and s.get("requests")]
            ax.plot(xs, ys, style, lw=1.4, color="#1f4e79" if kind == "order" else "#b34700",
                    label=f"{kind}s' p99")
        ax.set_yscale("log")
        ax.set_title(r["label"], fontsize=9)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7, loc="upper left")
    for ax in axes[-1]:
        ax.set_xlabel("s into the window")
    for ax in axes[:, 0]:
        ax.set_ylabel("p99 of the second, ms")
    fig.suptitle("Each second's p99: orders (solid) and views (dotted); shaded: views slow (+1 s), database slow "
                 "(+5 s), views down (30 s, then an error)", fontsize=9)
    fig.tight_layout()
    _save(fig, path, dpi=64)


def _save(fig: Any, path: Path, dpi: int = 80) -> None:
    """The figure as a 256-colour PNG (report/page.py): the charts are committed with the results."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    plt.close(fig)
    path.write_bytes(palette_png(buf.getvalue()))


def orders_chart(doc: dict[str, Any], path: Path) -> None:
    """The answer's chart: each design's orders' p99 in each phase (log scale), the median second's 95 % interval
    as a black tick, and where Little's law says the orders must queue behind the views."""
    rows = [r for r in figures(doc) if not r["error"]]
    if not rows:
        return
    phases = ("healthy", *SLOW)
    colours = {"healthy": "#4c9a2a", "view-slow": "#e08a2e", "db-slow": "#7b5ea7", "view-down": "#c0392b"}
    fig, ax = plt.subplots(figsize=(10, 4.2))
    width = 0.2
    for j, ph in enumerate(phases):
        xs, ys, lo, hi, mids = [], [], [], [], []
        for i, r in enumerate(rows):
            f = next((x for x in r["types"]["order"] if x["phase"] == ph), None)
            if not f or f.get("p99") is None:
                continue
            xs.append(i + (j - 1.5) * width)
            ys.append(max(0.1, float(f["p99"])))
            ci = f.get("p99Ci")
            med = f.get("medianSecondP99") or f["p99"]
            mids.append(med)
            lo.append(max(0.0, med - ci[0]) if ci else 0)
            hi.append(max(0.0, ci[1] - med) if ci else 0)
        ax.bar(xs, ys, width, color=colours[ph], label=ph)
        meds = [max(0.1, float(m)) for m in mids]
        ax.errorbar(xs, meds, yerr=[lo, hi], fmt="_", color="black", lw=0.8, capsize=2,
                    label="median second's p99, 95 %" if j == 0 else None)
    for i, r in enumerate(rows):
        must = [b["phase"] for b in r["bounds"] if b.get("ordersQueue") and b["phase"] in SLOW]
        if must:
            ax.annotate("Little's law: must queue", (i, 1.0), xycoords=("data", "axes fraction"), ha="center",
                        va="bottom", fontsize=7, color="#c0392b")
    ax.set_yscale("log")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([r["label"] for r in rows], rotation=25, ha="right", fontsize=8)
    ax.set_ylabel("orders' p99, ms (log)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, ncol=5, loc="upper right")
    ax.set_title("Orders never touch the database; do they wait for the views that do?", fontsize=10, pad=16)
    fig.tight_layout()
    _save(fig, path)


def write(folder: Path, doc: dict[str, Any]) -> None:
    """summary.md and the two charts, from the document."""
    (folder / "summary.md").write_text(summary(doc))
    timeline(doc, folder / "timeline.png")
    orders_chart(doc, folder / "orders-p99.png")


__all__ = ["CONFIDENCE", "figures", "summary", "write"]
