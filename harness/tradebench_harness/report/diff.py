"""./tradebench diff RUN_A RUN_B: per (case, variant) both medians, their ratio
(B ÷ A) with its 95 % interval, and the verdict (analysis/verdict.py): a
difference detected when the interval lies on one side of 1, none detected
when it holds 1. The ceiling fractions are compared the same way: on two
machines they are the figures that should agree."""
from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from ..analysis import stats, verdict
from . import tables


def key(row: dict[str, Any]) -> tuple[Any, ...]:
    return (row["case"], row["variant"], row.get("rate"), row["engines"])


def compare(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    rows_b = {key(r): r for r in b["summary"]}
    out = []
    for ra in a["summary"]:
        rb = rows_b.get(key(ra))
        if not rb:
            continue
        entry = {"case": ra["case"], "variant": ra["variant"], "rate": ra.get("rate"), "engines": ra["engines"]}
        wa = stats.windows_of(a, ra["case"], ra["variant"], ra.get("rate"), ra["engines"])
        wb = stats.windows_of(b, rb["case"], rb["variant"], rb.get("rate"), rb["engines"])
        for fig in ("salesPerMinute", "ordersPerSecond", "httpCeilingFraction", "insertCeilingFraction", "p99Ms",
                    "cpuUsPerOrderVariant"):
            sa, sb = ra.get(fig), rb.get(fig)
            ma, mb = (sa or {}).get("median"), (sb or {}).get("median")
            r = stats.ratio_of(wb, wa, fig, ra["variant"]) if sa and sb else None
            entry[fig] = {"a": sa, "b": sb, "ratio": round(mb / ma, 4) if ma and mb is not None else None,
                          "interval": r, "verdict": r["verdict"] if r else None}
        out.append(entry)
    return out


def render(a: dict[str, Any], b: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    lines = [f"A = {a['runId']} ({a['environment'].get('cpuModel')}, {a['environment'].get('cores')} cores, git "
             f"{(a['environment'].get('gitCommit') or '')[:10]})",
             f"B = {b['runId']} ({b['environment'].get('cpuModel')}, {b['environment'].get('cores')} cores, git "
             f"{(b['environment'].get('gitCommit') or '')[:10]})", "",
             "| case | variant | sales/min A | sales/min B | B ÷ A [95 %] | verdict | HTTP fraction A → B | insert fraction A → B "
             "| variant CPU µs/order A → B |",
             "| --- | --- | ---: | ---: | ---: | --- | --- | --- | --- |"]
    for r in rows:
        s = r["salesPerMinute"]
        hf, inf = r["httpCeilingFraction"], r["insertCeilingFraction"]

        def frac(f: dict[str, Any]) -> str:
            if not f["a"] or not f["b"]:
                return "–"
            return (f"{f['a']['median'] * 100:.1f} % → {f['b']['median'] * 100:.1f} %"
                    f" ({verdict.short(f['interval'])})")
        us = r.get("cpuUsPerOrderVariant") or {}
        cost = (f"{us['a']['median']:.1f} → {us['b']['median']:.1f} ({verdict.short(us['interval'])})"
                if us.get("a") and us.get("b") else "–")     # runs before the harness computed it: –
        lines.append(f"| {r['case'] or '–'} | {r['variant']} | {tables.cell(s['a'])} | {tables.cell(s['b'])} | "
                     f"{verdict.short(s['interval'])} | {s['verdict'] or '–'} | {frac(hf)} | {frac(inf)} | {cost} |")
    only_a = {key(r) for r in a["summary"]} - {key(r) for r in b["summary"]}
    only_b = {key(r) for r in b["summary"]} - {key(r) for r in a["summary"]}
    if only_a or only_b:
        lines += ["", f"only in A: {sorted(k[1] for k in only_a) or '–'}; only in B: {sorted(k[1] for k in only_b) or '–'}"]
    return "\n".join(lines)


def show(a: dict[str, Any], b: dict[str, Any]) -> str:
    rows = compare(a, b)
    text = render(a, b, rows)
    console = Console()
    t = Table(title=f"{a['runId']} (A) vs {b['runId']} (B)")
    for c in ("case", "variant", "sales/min A", "sales/min B", "B ÷ A [95 %]", "verdict"):
        t.add_column(c, justify="right" if "sales" in c or "÷" in c else "left")
    for r in rows:
        s = r["salesPerMinute"]
        t.add_row(r["case"] or "–", r["variant"], tables.cell(s["a"]), tables.cell(s["b"]),
                  verdict.short(s["interval"]), s["verdict"] or "–")
    console.print(t)
    return text
