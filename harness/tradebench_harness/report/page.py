"""report.html: one self-contained page (tables, and the charts as embedded
PNG drawn with matplotlib): sales/min with its 95 % interval as error bars, the ceiling
fractions, CPU per process group, the latency distributions of every variant
on one log-scale percentile chart, the sweep curves, the calibration and the
environment."""
from __future__ import annotations

import base64
import html as h
import io
import math

import matplotlib

matplotlib.use("Agg")
from typing import Any

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator  # noqa: E402
from PIL import Image  # noqa: E402

from ..analysis import profile_rules, stats  # noqa: E402
from ..analysis.stacks import UNCLAIMED  # noqa: E402
from ..record import Run, Spread  # noqa: E402
from . import breakdown, tables  # noqa: E402

#: pyplot, with the Agg backend chosen above (answer.py draws with it too)
pyplot = plt
COLORS = ["#1f5fa8", "#d9822b", "#2a9d4b", "#b23a48", "#7b4ea3", "#5f6b6d", "#c9a227", "#1b998b"]


def label(row: dict[str, Any]) -> str:
    base = row["variant"] if not row.get("case") else f"{row['case']}\n{row['variant']}"
    if row.get("rate"):
        base += f"\n{row['rate']}/s"
    return base


def png(fig: Figure) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(palette_png(buf.getvalue())).decode()


def palette_png(data: bytes) -> bytes:
    """A PNG in 256 colours: a chart's few colours and their anti-aliased edges fit, and the file is a third of
    matplotlib's true-colour one (the charts are committed with the results)."""
    out = io.BytesIO()
    Image.open(io.BytesIO(data)).convert("RGB").quantize(256).save(out, format="PNG", optimize=True)
    return out.getvalue()


def img(name: str, title: str, data: str) -> str:
    return (f'<figure class="chart" id="chart-{name}"><img alt="{h.escape(title)}" '
            f'src="data:image/png;base64,{data}"><figcaption>{h.escape(title)}</figcaption></figure>')


def error_bars(rows: list[dict[str, Any]], key: str, scale: float = 1.0) -> tuple[list[float], list[float], list[float]]:
    """Medians and the (non-negative) distances to each row's KEY's 95 % interval (bar())."""
    bars = [bar(r.get(key), scale) for r in rows]
    return [b[0] for b in bars], [b[1] for b in bars], [b[2] for b in bars]


def bar(s: Spread | None, scale: float = 1.0) -> tuple[float, float, float]:
    """(median, distance down, distance up) of the figure S: to its 95 % interval's ends (none drawn where the
    interval is unavailable: one process), or to its min and max where no interval was computed; no figure (no
    run of the row had it): no bar."""
    if not s or s.get("median") is None:
        return 0.0, 0.0, 0.0
    m = s["median"] * scale
    if "low" in s:
        if s["low"] is None or s["high"] is None:
            return m, 0.0, 0.0
        return m, max(0.0, m - s["low"] * scale), max(0.0, s["high"] * scale - m)
    return m, max(0.0, m - s["min"] * scale), max(0.0, s["max"] * scale - m)


def finish_bars(fig: Figure, ax: Axes, rows: list[dict[str, Any]], ylabel: str, title: str, legend: bool) -> str:
    """The axes every per-variant bar chart shares: a tick per row, labels, grid; the PNG."""
    ax.set_xticks(list(range(len(rows))), [label(r) for r in rows], fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if legend:
        ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return png(fig)


def bar_chart(rows: list[dict[str, Any]], key: str, title: str, ylabel: str, scale: float = 1.0) -> str:
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(rows) + 2), 4))
    xs = range(len(rows))
    med, lo, hi = error_bars(rows, key, scale)
    ax.bar(xs, med, color=[COLORS[i % len(COLORS)] for i in xs], yerr=[lo, hi], capsize=6)
    for x, m in zip(xs, med):
        ax.annotate(f"{m:,.0f}" if m >= 100 else f"{m:.1f}", (x, m), ha="center", va="bottom", fontsize=8,
                    xytext=(8, 2), textcoords="offset points")
    return finish_bars(fig, ax, rows, ylabel, title, legend=False)


def fractions_chart(rows: list[dict[str, Any]]) -> str:
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(rows) + 2), 4))
    w = 0.38
    for j, (key, name) in enumerate((("httpCeilingFraction", "orders/s ÷ HTTP ceiling of its runtime"),
                                     ("insertCeilingFraction", "sales/s ÷ insert ceiling of its persist mode"))):
        med, lo, hi = error_bars(rows, key, 100)
        ax.bar([x + (j - 0.5) * w for x in range(len(rows))], med, w, yerr=[lo, hi], capsize=4, label=name,
               color=COLORS[j])
    return finish_bars(fig, ax, rows, "% of this machine's ceiling", "Ceiling fractions (comparable across machines)",
                       legend=True)


def cpu_chart(rows: list[dict[str, Any]]) -> str:
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(rows) + 2), 4))
    groups = ("variant", "loadclient", "database")
    w = 0.27
    for j, g in enumerate(groups):
        med = [bar(r["cpuPercent"].get(g))[0] for r in rows]
        ax.bar([x + (j - 1) * w for x in range(len(rows))], med, w, label=g, color=COLORS[j])
    return finish_bars(fig, ax, rows, "CPU % (100 = one core), mean over the window",
                       "Who used the cores: the variant's process tree, the load client, the database", legend=True)


def breakdown_chart(rows: list[dict[str, Any]]) -> str:
    """Each profiled row's CPU µs per order as a stacked bar, one segment per part, the unclaimed share on top
    in grey."""
    fig, ax = plt.subplots(figsize=(max(6, 1.5 * len(rows) + 4), 4.5))
    xs = list(range(len(rows)))
    bottom = [0.0] * len(rows)
    names = [*profile_rules.PARTS, UNCLAIMED]
    for j, p in enumerate(names):
        vals = [r["usPerOrder"].get(p, 0.0) for r in rows]
        color = "#bbbbbb" if p == UNCLAIMED else (COLORS + ["#8c564b", "#e377c2"])[j % (len(COLORS) + 2)]
        ax.bar(xs, vals, 0.6, bottom=bottom, label=p, color=color, edgecolor="white", linewidth=0.5)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xticks(xs, [r["series"].replace(" ", "\n", 1) for r in rows], fontsize=8)
    ax.set_ylabel("CPU µs per order")
    ax.set_title("Where an order's CPU goes, by part (from the profile)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(axis="y", alpha=0.3)
    return png(fig)


def cpu_timeline_chart(doc: dict[str, Any]) -> str | None:
    """CPU % per second of the three process groups, for the median repeat of each row."""
    picked = [(row, representative(doc["runs"], row, need_latency=False)) for row in doc["summary"]]
    rows = [(row, r) for row, r in picked if r and r.get("samples")][:8]
    if not rows:
        return None
    fig, axes = plt.subplots(len(rows), 1, figsize=(8, 1.9 * len(rows)), sharex=False, squeeze=False)
    for ax, (row, r) in zip(axes[:, 0], rows):
        t0 = r.get("windowStartMs") or min(s["t"] for g in r["samples"].values() for s in g) if r["samples"] else 0
        for j, g in enumerate(("variant", "loadclient", "database")):
            ss = r["samples"].get(g) or []
            ax.plot([(s["t"] - t0) / 1000 for s in ss], [s["cpuPercent"] for s in ss], label=g, color=COLORS[j])
        if r.get("windowStartMs") and r.get("windowEndMs"):
            ax.axvspan(0, (r["windowEndMs"] - r["windowStartMs"]) / 1000, color="#eee", zorder=0)
        ax.set_title(label(row).replace("\n", " "), fontsize=9)
        ax.set_ylabel("CPU %", fontsize=8)
        ax.grid(alpha=0.3)
    axes[0, 0].legend(fontsize=7, ncol=3)
    axes[-1, 0].set_xlabel("seconds from the start of the measured window (shaded); before it: the warm-up")
    fig.tight_layout()
    return png(fig)


def representative(runs: list[Run], row: dict[str, Any], need_latency: bool = True) -> Run | None:
    """The repeat whose sales/min is the median one of its row."""
    rs = [r for r in runs if not r.get("error") and stats.shown(r) == row["variant"] and r["case"] == row["case"]
          and r.get("rate") == row.get("rate") and r["engines"] == row["engines"]
          and (r.get("latencyPercentiles") or not need_latency)]
    if not rs:
        return None
    rs.sort(key=lambda r: r["salesPerMinute"])
    return rs[len(rs) // 2]


def latency_chart(doc: dict[str, Any]) -> tuple[str, int]:
    fig, ax = plt.subplots(figsize=(8, 4.5))
    drawn = 0
    for i, row in enumerate(doc["summary"]):
        r = representative(doc["runs"], row)
        if not r:
            continue
        pts = [p for p in r.get("latencyPercentiles") or [] if 50 <= p[0] < 100]
        if not pts:
            continue
        xs = [1 / (1 - p[0] / 100) for p in pts]
        ys = [max(p[1], 0.001) for p in pts]
        ax.plot(xs, ys, label=label(row).replace("\n", " "), color=COLORS[i % len(COLORS)])
        drawn += 1
    ax.set_xscale("log")
    ax.set_yscale("log")
    ticks = [2, 10, 100, 1000, 10000]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{100 - 100 / x:g}%"))
    ax.set_xlim(2, 10000)
    ax.set_xlabel("percentile")
    ax.set_ylabel("latency ms (log)")
    ax.set_title("Latency distribution of the measured window (the median repeat of each row)")
    ax.grid(which="both", alpha=0.3)
    if drawn:
        ax.legend(fontsize=8)
    return png(fig), drawn


def sweep_rate_chart(doc: dict[str, Any]) -> str | None:
    rows = [r for r in doc["summary"] if r.get("rate")]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(8, 4.5))
    several = len({r["engines"] for r in rows}) > 1
    for i, (v, e) in enumerate(sorted({(r["variant"], r["engines"]) for r in rows})):
        vr = sorted((r for r in rows if r["variant"] == v and r["engines"] == e), key=lambda r: r["rate"])
        x = [r["ordersPerSecond"]["median"] for r in vr]
        name = f"{v}, {e} engines" if several else v
        for key, style in (("p50Ms", ":"), ("p99Ms", "-"), ("p999Ms", "--")):
            ys = [(r[key] or {}).get("median") for r in vr]
            if any(y is not None for y in ys):
                ax.plot(x, [y or math.nan for y in ys], style, marker="o", color=COLORS[i % len(COLORS)],
                        label=f"{name} {key[:-2]}")
    ax.set_yscale("log")
    ax.set_xlabel("achieved orders/s (offered: the sweep's rates)")
    ax.set_ylabel("latency ms from the intended send time (log)")
    ax.set_title("Latency versus load (open loop)")
    ax.grid(which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    return png(fig)


def sweep_engines_chart(doc: dict[str, Any]) -> str | None:
    """sales/min against ENGINES: one line per variant (and offered rate, in an open-loop sweep)."""
    rows = doc["summary"]
    engines = sorted({r["engines"] for r in rows})
    if len(engines) < 2:
        return None
    fig, ax = plt.subplots(figsize=(8, 4.5))
    # a closed loop (rate null) first, then the open loop's rates
    lines = sorted({(r["variant"], r["rate"]) for r in rows}, key=lambda vr: (vr[0], vr[1] is not None, vr[1]))
    for i, (v, rate) in enumerate(lines):
        vr = sorted((r for r in rows if r["variant"] == v and r["rate"] == rate), key=lambda r: r["engines"])
        med, lo, hi = error_bars(vr, "salesPerMinute")
        ax.errorbar([r["engines"] for r in vr], med, yerr=[lo, hi], marker="o", capsize=4,
                    label=v + (f" at {rate}/s" if rate else ""), color=COLORS[i % len(COLORS)])
    ax.set_xscale("log", base=2)
    ax.set_xticks(engines, [str(e) for e in engines])
    ax.set_xlabel("ENGINES")
    ax.set_ylabel("sales/min")
    ax.set_title("Sales per minute by engine count")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return png(fig)


def in_flight_chart(doc: dict[str, Any]) -> str | None:
    """The price of capacity: each design's memory, threads and processes, CPU per order and sales/min against
    the inserts it keeps in flight (a sweep --in-flight)."""
    rows = [r for r in doc["summary"] if r.get("inFlight")]
    flights = sorted({r["inFlight"] for r in rows})
    if len(flights) < 2:
        return None
    fig, axes = plt.subplots(1, 4, figsize=(16, 4.2))
    names = sorted({r["variant"] for r in rows})
    panels = (("rssMb", "RSS, MB"), ("threads", "threads (processes: dashed)"), ("cpuUsPerOrderVariant", "CPU µs per order"),
              ("salesPerMinute", "sales/min"))
    for i, v in enumerate(names):
        vr = sorted((r for r in rows if r["variant"] == v), key=lambda r: r["inFlight"])
        x = [r["inFlight"] for r in vr]
        for ax, (key, _) in zip(axes, panels):
            ax.plot(x, [(r.get(key) or {}).get("median") for r in vr], marker="o", color=COLORS[i % len(COLORS)], label=v)
        axes[1].plot(x, [(r.get("processes") or {}).get("median") for r in vr], "--", color=COLORS[i % len(COLORS)])
    for ax, (_, label) in zip(axes, panels):
        ax.set_xscale("log", base=2)
        ax.set_xticks(flights, [str(f) for f in flights])
        ax.set_xlabel("inserts in flight")
        ax.set_title(label, fontsize=10)
        ax.grid(alpha=0.3)
    axes[1].set_yscale("log")
    axes[0].legend(fontsize=7)
    fig.suptitle("What keeping inserts in flight costs each design", fontsize=11)
    fig.tight_layout()
    return png(fig)


class Raw(str):
    """A table cell that is HTML already (a link), written as it is."""


def table(head: list[str], rows: list[list[str]], cls: str = "", row_attrs: list[str] | None = None) -> str:
    out = [f'<table class="{cls}"><thead><tr>' + "".join(f"<th>{h.escape(c)}</th>" for c in head) + "</tr></thead><tbody>"]
    for i, r in enumerate(rows):
        attrs = row_attrs[i] if row_attrs else ""
        out.append(f"<tr {attrs}>" + "".join(f"<td>{c if isinstance(c, Raw) else h.escape(str(c))}</td>" for c in r) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


CSS = """
body{font-family:sans-serif;margin:2em;color:#222;max-width:1200px}
table{border-collapse:collapse;margin:1em 0;font-size:13px}
td,th{border:1px solid #bbb;padding:4px 8px;text-align:right}
td:first-child,td:nth-child(2),td:nth-child(3),th{text-align:left}
th{background:#eef}
tr.noise td{background:#fff8e0}
figure{display:inline-block;margin:1em 1em 1em 0}
figcaption{font-size:12px;color:#555}
code{background:#f4f4f4;padding:1px 3px}
"""


def html(doc: dict[str, Any]) -> str:
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>tradebench {h.escape(doc['runId'])}</title>"
             f"<style>{CSS}</style></head><body>",
             f"<h1>tradebench {h.escape(doc['command'])} <code>{h.escape(doc['runId'])}</code></h1>",
             f"<p>{h.escape(tables.INTERVAL_TEXT)} Rows marked ≈: no difference in sales/min was detected with "
             "that row (the 95 % interval of their ratio holds 1). ⚠ drift: the two halves of a measured "
             "window differ by more than 10 %. The ceiling fractions divide by this machine's calibration (below): "
             "they are what two machines can compare.</p>",
             summary_section(doc["summary"], doc), *analysis_sections(doc), *chart_sections(doc),
             calibration_section(doc.get("calibration")), runs_section(doc["runs"])]
    env = doc.get("environment") or {}
    parts.append("<h2>Environment</h2>" + table(["item", "value"], [[k, v] for k, v in env.items()], "environment"))
    parts.append("<h2>Harness options</h2>" + table(["option", "value"], [[k, v] for k, v in (doc.get("options") or {}).items()], "options"))
    settings_rows = [[r["variant"], r["case"] or "–", " ".join(f"{k}={v}" for k, v in r["settings"].items())]
                     for r in doc["summary"]]
    parts.append("<h2>Variant settings</h2>" + table(["variant", "case", "settings"], settings_rows, "settings"))
    parts.append("</body></html>")
    return "\n".join(p for p in parts if p)


SUMMARY_HEAD = ["case", "variant", "settings", "sales/min", "orders/s", "orders/s ÷ HTTP ceiling", "sales/s ÷ insert ceiling",
                "p50 ms", "p99 ms", "CPU % variant / load client / db",
                "variant CPU µs/order (× trivial server's; × its framework floor's)",
                "db CPU µs/sale (at the insert ceiling)", "steady", "notes"]


def summary_section(rows: list[dict[str, Any]], doc: dict[str, Any]) -> str:
    body, attrs = [], []
    for r in rows:
        cpu = " / ".join(tables.fmt((r["cpuPercent"].get(g) or {}).get("median"), ".0f")
                         for g in ("variant", "loadclient", "database"))
        body.append([r["case"] or "–", r["variant"], tables.setting_text(r), tables.cell(r["salesPerMinute"]),
                     tables.cell(r["ordersPerSecond"]), tables.cell(r["httpCeilingFraction"], ".1f", True),
                     tables.cell(r["insertCeilingFraction"], ".1f", True), tables.cell(r["p50Ms"], ".2f"),
                     tables.cell(r["p99Ms"], ".2f"), cpu, tables.cost_cell(r), tables.db_cost_cell(r),
                     {True: "yes", False: "no", None: "–"}[r["steady"]],
                     "; ".join(tables.row_notes(r, doc))])
        attrs.append(f'class="variant-row{" noise" if r["withinNoiseOf"] else ""}" data-variant="{h.escape(r["variant"])}"')
    return "<h2>Summary</h2>" + table(SUMMARY_HEAD, body, "summary", attrs)


def analysis_sections(doc: dict[str, Any]) -> list[str]:
    """The article's ratios, where an order's CPU goes, and the profile's breakdown: those the run has."""
    parts = []
    ratios = stats.ratio_rows(doc)
    if ratios:
        parts.append("<h2>The article's ratios beside ours</h2>" + table(
            ["ratio", "ours (min–max)", "article", "what it comes from"], [tables.ratio_cells(r) for r in ratios], "ratios"))
    budget = stats.budget_rows(doc)
    if budget:
        parts.append("<h2>Where an order's CPU goes</h2><p>" + h.escape(tables.BUDGET_TEXT) + "</p>"
                     + table(tables.BUDGET_HEAD, [tables.budget_cells(b) for b in budget], "budget"))
    profiled = breakdown.rows(doc)
    if profiled:
        parts.append("<h2>Where the CPU goes: the profile</h2><p>" + h.escape(breakdown.TEXT) + "</p>"
                     + table(breakdown.head(), [breakdown.cells(r, lambda href: Raw(f'<a href="{h.escape(href)}">flame graph</a>'))
                                                for r in profiled], "breakdown")
                     + img("breakdown", "CPU µs per order by part", breakdown_chart(profiled))
                     + "<ul class='legend'>" + "".join(f"<li><b>{h.escape(p)}</b>: {h.escape(profile_rules.MEANING[p])}</li>"
                                                       for p in profile_rules.PARTS) + "</ul>")
    return parts


def chart_sections(doc: dict[str, Any]) -> list[str]:
    """The charts: those every run has, then those its kind of run draws."""
    rows = doc["summary"]
    if not rows:
        return []
    parts = ["<h2>Charts</h2>",
             img("sales", "sales/min, median with its 95 % interval (none drawn: one process)", bar_chart(rows, "salesPerMinute", "Sales stored per minute", "sales/min")),
             img("fractions", "ceiling fractions", fractions_chart(rows)),
             img("cpu", "CPU per process group", cpu_chart(rows))]
    lat, drawn = latency_chart(doc)
    optional = [("cpu-timeline", "CPU per second, per process group (the median repeat of each row)", cpu_timeline_chart(doc)),
                ("latency", "latency distributions (percentile, log scale)", lat if drawn else None),
                ("sweep-rate", "latency versus offered load", sweep_rate_chart(doc)),
                ("sweep-engines", "sales/min by engine count",
                 sweep_engines_chart(doc) if doc.get("command") != "sweep-in-flight" else None),
                ("in-flight", "what keeping inserts in flight costs each design", in_flight_chart(doc))]
    return parts + [img(name, title, data) for name, title, data in optional if data]


def calibration_section(cal: dict[str, Any] | None) -> str:
    if not cal:
        return ""
    lines = [l.strip("|").split("|") for l in tables.calibration_md(cal).splitlines()[2:]]
    return ("<h2>This machine's ceilings (calibration)</h2>" +
            table(["ceiling", "figure", "warm-up", "CPU µs per request (row): server or database / load client"],
                  [[c.strip() for c in l] for l in lines], "calibration"))


def runs_section(runs: list[dict[str, Any]]) -> str:
    head = ["case", "variant", "repeat", "sales/min", "orders/s", "p99 ms", "warm-up s", "steady", "drift",
            "CPU variant", "CPU load client", "CPU db", "RSS MB", "threads", "error"]
    rows = []
    for r in runs:
        cpu = r.get("cpu") or {}
        rows.append([r["case"] or "–", r["variant"], r["repeat"], tables.fmt(r.get("salesPerMinute")),
                     tables.fmt(r.get("ordersPerSecond")), tables.fmt(r.get("p99Ms"), ".2f"),
                     tables.fmt(r.get("warmupS"), ".0f"), r.get("steady"),
                     tables.fmt(r.get("drift"), "+.1%") if r.get("drift") is not None else "–",
                     tables.fmt((cpu.get("variant") or {}).get("cpuPercent"), ".0f"),
                     tables.fmt((cpu.get("loadclient") or {}).get("cpuPercent"), ".0f"),
                     tables.fmt((cpu.get("database") or {}).get("cpuPercent"), ".0f"),
                     tables.fmt((cpu.get("variant") or {}).get("rssMaxMb"), ".0f"),
                     (cpu.get("variant") or {}).get("threadsMax"), r.get("error") or ""])
    return "<h2>Every run (in the order they ran)</h2>" + table(head, rows, "runs")
