"""The tables a reader sees: each figure as text ("median (min–max)"), summary.md of a run, and the rows
report.html shares with it (the article's ratios, the CPU budget, the calibration)."""
from __future__ import annotations

from typing import Any

from ..analysis import crowded, stats, verdict
from ..run import layout
from . import breakdown


def fmt(v: object, spec: str = ",.0f") -> str:
    return "–" if v is None else format(v, spec)


def cell(s: dict[str, Any] | None, spec: str = ",.0f", pct: bool = False) -> str:
    """median [low–high], the 95 % interval across processes (analysis/intervals.py), or "median [no interval: 1
    process]"; a figure without an interval computed (a map's cell, an older folder): median (min–max)."""
    if not s:
        return "–"
    k = 100 if pct else 1
    suffix = " %" if pct else ""
    if "low" in s:
        if s["low"] is None:
            return f"{fmt(s['median'] * k, spec)} [no interval: {s.get('processes', 1)} process]{suffix}"
        return f"{fmt(s['median'] * k, spec)} [{fmt(s['low'] * k, spec)}–{fmt(s['high'] * k, spec)}]{suffix}"
    if s["n"] == 1:
        return f"{fmt(s['median'] * k, spec)}{suffix}"
    return f"{fmt(s['median'] * k, spec)} ({fmt(s['min'] * k, spec)}–{fmt(s['max'] * k, spec)}){suffix}"


def jit_note(row: dict[str, Any]) -> list[str]:
    """'⚠ JIT n %' when the variant's JIT compiler threads used more than JIT_FLAG % of a core in the window
    (median of the repeats): part of its CPU per order is the JVM still compiling, not its steady cost."""
    j = row.get("jitCpuPercent")
    notes = [f"⚠ JIT {j['median']:.0f} %"] if j and j["median"] > stats.JIT_FLAG else []
    w = row.get("jitWarmupSeconds")
    if w:
        notes.append(f"JIT warm-up {w['median']:.0f} s" + (" (bound reached: not quiet)" if row.get("jitWarmupBounded") else ""))
    return notes


def setting_text(row: dict[str, Any]) -> str:
    s = row["settings"]
    t = f"{row['engines']} engines, {row['persist']}"
    extra = {k: v for k, v in s.items() if k in ("THREADS", "DISPATCHER") }
    t += "".join(f", {k}={v}" for k, v in extra.items())
    if row.get("rate"):
        t += f", rate {row['rate']}/s"
    return t


SUMMARY_HEAD = ("| case | variant | settings | sales/min | orders/s | orders/s ÷ HTTP ceiling | sales/s ÷ insert ceiling "
                "| p99 ms | CPU % variant / load client / db | variant CPU µs/order (× trivial server's; × its framework floor's) "
                "| db CPU µs/sale (at the insert ceiling) | steady | notes |\n"
                "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- | --- |\n")


def db_cost_cell(row: dict[str, Any]) -> str:
    """The database's CPU µs per sale stored (median), and per row at the matching insert ceiling."""
    us, ceil = row.get("dbCpuUsPerSale"), row.get("insertCeilingDbCpuUsPerRow")
    if not us:
        return "–"
    return f"{us['median']:.1f}" + (f" ({ceil['median']:.1f})" if ceil else "")


def cost_cell(row: dict[str, Any]) -> str:
    """The variant's CPU µs per order, median (min–max), then its median × the trivial server's µs per request
    and × its floor's (its own framework answering 202), when the calibration has them."""
    us, ratio, vs_floor = row.get("cpuUsPerOrderVariant"), row.get("cpuPerOrderVsTrivial"), row.get("cpuPerOrderVsFloor")
    times = []
    if ratio:
        times.append(f"×{ratio['median']:.1f}")
    if vs_floor and row.get("floor"):
        times.append(f"×{vs_floor['median']:.1f} {row['floor']}")
    return cell(us, ".1f") + (f" ({'; '.join(times)})" if times else "")


COST_TEXT = ("What carrying the row's load took, medians over its repeats: the variant's process group's cores "
             "(100 % of one core = 1.00) and CPU µs per order, its peak RSS (every JVM under one heap policy: the "
             "environment's heapPolicy) and its live heap after a collection (JVM: after jcmd GC.run; Node: after V8's "
             "latest full collection of each isolate), each with its 95 % interval, threads and processes, the database "
             "connections it kept open (counted from the kernel after the window; configured in brackets), the "
             "inserts it keeps in flight (its manifest's inFlight), and the latency its clients saw.")
COST_HEAD = ["case", "variant", "cores", "CPU µs/order", "RSS MB", "live heap MB (after a collection)", "threads",
             "processes",
             "database connections open (configured)", "inserts in flight", "p50 / p99 / p99.9 ms"]


def med(s: dict[str, Any] | None) -> float | None:
    return (s or {}).get("median")


def cost_row(r: dict[str, Any]) -> list[str]:
    cores = med(r["cpuPercent"].get("variant"))
    return [r["case"] or "–", r["variant"], fmt(cores / 100 if cores is not None else None, ".2f"),
            cell((r.get("cpuUsPerOrderVariant") or (r.get("cpuUsPerOrder") or {}).get("variant")), ".1f"),
            cell(r.get("rssMb"), ",.0f"), cell(r.get("liveHeapMb"), ",.0f"),
            fmt(med(r.get("threads")), ".0f"), fmt(med(r.get("processes")), ".0f"),
            f"{fmt(med(r.get('dbConnectionsOpen')), '.0f')} ({fmt(r.get('dbConnections'), '.0f')})",
            fmt(r.get("inFlight"), ".0f"),
            " / ".join(fmt(med(r.get(k)), ".1f") for k in ("p50Ms", "p99Ms", "p999Ms"))]


INTERVAL_TEXT = ("Each figure: median [95 % interval] over the row's windows, measured in at least two fresh processes of "
                 "the row; the interval is a bootstrap over windows nested in processes (processes drawn with "
                 "replacement, then windows within each, 2,000 draws, a fixed seed), so the spread between processes is "
                 "inside it; \"no interval\": the row was measured in one process.")


def busy_note(others: dict[str, Any] | None, stolen: dict[str, Any] | None = None) -> list[str]:
    """The notes of a row or cell whose windows others crowded (OTHERS: the spread of other processes' % of a core;
    STOLEN: of what the hypervisor gave to other guests)."""
    notes = []
    if others and others["max"] > crowded.CROWDED_PERCENT:
        notes.append(f"⚠ busy machine: other processes took up to {others['max']:.0f} % of a core")
    if stolen and stolen["max"] > crowded.STOLEN_PERCENT:
        notes.append(f"⚠ busy host: the hypervisor gave other guests up to {stolen['max']:.0f} % of a core")
    return notes


def row_notes(r: dict[str, Any], doc: dict[str, Any] | None = None) -> list[str]:
    """A row's notes: the rows it is not told apart from, its drifting windows, its fall, its JIT, whether its
    interval reached the compare's target."""
    notes = []
    if r.get("withinNoiseOf"):
        notes.append("≈ " + ", ".join(r["withinNoiseOf"]))
    if r.get("windowsSetAside"):
        notes.append(f"⚠ drift: {r['windowsSetAside']} window(s) set aside")
    if r.get("driftCounted"):
        notes.append(f"⚠ drift in {r['driftCounted']} of {r['repeats']} window(s), counted (a process had no steady "
                     "one)")
    elif r.get("driftFlagged") and "windowsSetAside" not in r:
        notes.append("⚠ drift")
    if r.get("unstable"):
        notes.append("⚠ unstable: its windows fall")
    notes += busy_note(r.get("othersCpuPercent"), r.get("stolenCpuPercent"))
    notes += jit_note(r)
    short = ((doc or {}).get("adaptive") or {}).get("rows", {}).get(f"{r['case']}|{r['variant']}")
    if short and not short.get("withinTarget"):
        hw = short.get("halfWidth")
        notes.append("stopped short of the target: " + (f"±{hw * 100:.1f} %" if hw is not None else "no interval")
                     + f" (target ±{((doc or {}).get('adaptive') or {})['target'] * 100:g} %)")
    if r.get("articleSalesPerMinute"):
        notes.append(f"article: {r['articleSalesPerMinute']:,} sales/min")
    return notes


def verdicts_md(doc: dict[str, Any]) -> list[str]:
    """Every pair of rows of a case, the one with the more sales first: the verdict of their sales/min ratio."""
    rows = doc["summary"]
    out = []
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            if (a["case"], a["rate"], a["engines"]) != (b["case"], b["rate"], b["engines"]):
                continue
            hi, lo = (a, b) if (med(a["salesPerMinute"]) or 0) >= (med(b["salesPerMinute"]) or 0) else (b, a)
            r = (hi.get("against") or {}).get(lo["variant"])
            if r:
                out.append(f"- {(hi['case'] + ': ') if hi['case'] else ''}{verdict.text(hi['variant'], lo['variant'], r)}")
    if not out:
        return []
    return ["", "## Which row stores more: verdicts", "",
            "The ratio of two rows' sales/min (median ÷ median) with its 95 % interval (each row's windows drawn as "
            "above, the quotient of the draws): a lead when the interval lies above 1, no difference detected when it "
            "holds 1.", ""] + out


def unstable_md(doc: dict[str, Any]) -> list[str]:
    rows = [r for r in doc["summary"] if r.get("unstable")]
    if not rows:
        return []
    out = ["", "## Unstable rows", "",
           f"Rows whose windows fall steadily within a process (each below the one before, the last over "
           f"{stats.UNSTABLE_DROP:.0%} below the first, in most of its processes): their median is not a rate they "
           "hold. Sales/min of each window, per process in the order measured:", ""]
    for r in rows:
        procs = "; ".join(" → ".join(fmt(v) for v in g) for g in r.get("windowsByProcess") or [])
        out.append(f"- {r['variant']}{(' (' + r['case'] + ')') if r['case'] else ''}: {procs}")
    return out


#: a note's short code in the table (docs/reading-a-run.md, "The notes of a row"), by how the note begins
NOTE_CODES = (("⚠ drift", "⚠ drift"), ("⚠ unstable", "⚠ unstable"), ("⚠ busy machine", "⚠ busy"),
              ("⚠ busy host", "⚠ steal"), ("⚠ JIT", "⚠ JIT"), ("JIT warm-up", "warm-up"), ("stopped short", "short"))
LEGEND = ("Each figure: the median [its 95 % interval] over the row's windows in fresh processes; ≈ X: no "
          "difference detected in sales/min with row X; the notes' codes are each row's notes in short, in full "
          "below. What every column means and how it is measured: docs/reading-a-run.md in the repository.")


def note_code(note: str) -> str:
    """NOTE as the table shows it: its code, or the note itself when it is short already (≈, an article figure)."""
    return next((code for start, code in NOTE_CODES if note.startswith(start)), note)


def summary_md(doc: dict[str, Any]) -> str:
    """The compare's summary: its table first, a short legend, each row's notes in full, then the rest."""
    lines = [f"# tradebench {doc['command']} {doc['runId']}\n", SUMMARY_HEAD.rstrip("\n")]
    in_full = []
    for r in doc["summary"]:
        cpu = " / ".join(fmt((r["cpuPercent"].get(g) or {}).get("median"), ".0f") for g in ("variant", "loadclient", "database"))
        notes = row_notes(r, doc)
        codes = list(dict.fromkeys(note_code(n) for n in notes))
        if any(note_code(n) != n for n in notes):
            in_full.append(f"- {(r['case'] + ' ') if r['case'] else ''}{r['variant']}: {'; '.join(notes)}")
        steady = {True: "yes", False: "no", None: "–"}[r["steady"]]
        lines.append(f"| {r['case'] or '–'} | {r['variant']} | {setting_text(r)} | {cell(r['salesPerMinute'])} "
                     f"| {cell(r['ordersPerSecond'])} | {cell(r['httpCeilingFraction'], '.1f', True)} "
                     f"| {cell(r['insertCeilingFraction'], '.1f', True)} | {cell(r['p99Ms'], '.2f')} | {cpu} | {cost_cell(r)} | {db_cost_cell(r)} | {steady} "
                     f"| {'; '.join(codes)} |")
    lines += ["", LEGEND, ""]
    if in_full:
        lines += ["**Notes in full**:", "", *in_full, ""]
    lines += layout_lines(doc)
    lines += verdicts_md(doc)
    lines += unstable_md(doc)
    lines += ["", "## What each row costs", "", COST_TEXT, "", "| " + " | ".join(COST_HEAD) + " |",
              "| " + " | ".join(["---"] * 2 + ["---:"] * 9) + " |"]
    lines += ["| " + " | ".join(cost_row(r)) + " |" for r in doc["summary"]]
    ratios = stats.ratio_rows(doc)
    if ratios:
        lines += ["", "## The article's ratios beside ours", "", "| ratio | ours (min–max) | article | what it comes from |",
                  "| --- | ---: | ---: | --- |"]
        lines += ["| " + " | ".join(ratio_cells(r)) + " |" for r in ratios]
    budget = stats.budget_rows(doc)
    if budget:
        lines += ["", "## Where an order's CPU goes", "", BUDGET_TEXT, "",
                  "| " + " | ".join(BUDGET_HEAD) + " |", "| " + " | ".join(["---"] * 2 + ["---:"] * 9) + " |"]
        lines += ["| " + " | ".join(budget_cells(b)) + " |" for b in budget]
    lines += baseline_md(doc)
    lines += cores_md(doc)
    lines += breakdown.md(doc)
    cal = doc.get("calibration") or {}
    if cal:
        lines += ["", "## This machine's ceilings", "", calibration_md(cal)]
    failed = [r for r in doc["runs"] if r.get("error")]
    if failed:
        lines += ["", "## Failed runs", ""] + [f"- {r['variant']} {r['case']} repeat {r['repeat']}: {r['error']}" for r in failed]
    e = doc["environment"]
    lines += ["", "## Environment", "",
              f"git {e.get('gitCommit')} (dirty: {e.get('gitDirty')}), {e.get('cpuModel')}, {e.get('cores')} cores, "
              f"{e.get('memoryGb')} GB, kernel {e.get('kernel')}, load before {e.get('loadAverageBefore')}, "
              f"{e.get('jdk')}, node {e.get('node')}, database {e.get('database')}"]
    return "\n".join(lines) + "\n"


def cores_md(doc: dict[str, Any]) -> list[str]:
    """sweep --cores: each row's sales/min at each of the variant's CPU counts, per CPU, and against its least count
    (1.00 per CPU added: it scales with its CPUs); a count that left the database and the load client no CPU of
    their own is marked."""
    if doc.get("command") != "sweep-cores":
        return []
    runs = [r for r in doc["runs"] if not r.get("error") and r.get("variantCpus") and r.get("salesPerMinute")]
    by: dict[str, dict[int, list[Any]]] = {}
    for r in runs:
        by.setdefault(r["variant"], {}).setdefault(r["variantCpus"], []).append(r)
    counts = sorted({n for rows in by.values() for n in rows})
    shared = {r["variantCpus"] for r in runs if not (r.get("layout") or {}).get("isolated")}
    lines = ["", "## Sales against the variant's CPUs", "",
             "Each design at saturation on that many CPUs of its own (the median of its windows); per CPU; and its "
             "sales ÷ its least count's × that count ÷ this one (1.00: every CPU added stores as much as the first)."
             + (f" ◐ {', '.join(map(str, sorted(shared)))} CPUs: the database and the load client shared a CPU with "
                "the variant (none was left for them)." if shared else ""), "",
             "| variant | " + " | ".join(f"{n} CPU{'s' if n > 1 else ''}{' ◐' if n in shared else ''}" for n in counts)
             + " | per CPU | scaling |", "| --- | " + " | ".join("---:" for _ in counts) + " | --- | --- |"]
    for variant, rows in by.items():
        med = {n: sorted(r["salesPerMinute"] for r in rs)[len(rs) // 2] for n, rs in rows.items()}
        least = min(med)
        per = ", ".join(f"{fmt(med[n] / n)}" for n in sorted(med))
        scaling = ", ".join(f"{med[n] / med[least] * least / n:.2f}" for n in sorted(med) if n != least) or "–"
        lines.append(f"| {variant} | " + " | ".join(fmt(med.get(n)) for n in counts) + f" | {per} | {scaling} |")
    return lines


def layout_lines(doc: dict[str, Any]) -> list[str]:
    """Where the processes ran (run/layout.py), and whether every window's read-back from /proc agreed."""
    rec = (doc.get("environment") or {}).get("layout")
    lines = [f"**CPU layout**: {layout.describe(rec)}."]
    runs = [r for r in doc.get("runs") or [] if r.get("cpusAllowed")]
    if rec and runs:
        off = [r for r in runs if not layout.read_back_matches(r.get("layout") or rec, r["cpusAllowed"])]
        counts = sorted({r.get("variantCpus") for r in runs if r.get("variantCpus")})
        per = f" (the variant on {', '.join(map(str, counts))} CPUs by row)" if len(counts) > 1 else ""
        lines.append(f"Read back from /proc (`Cpus_allowed_list` of every thread) in each window{per}: "
                     + ("as laid out in every one." if not off else
                        f"⚠ not as laid out in {len(off)} of {len(runs)} windows."))
    return lines


def baseline_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """compare baseline REF: per row, this tree ÷ the baseline of sales/min and of the variant's CPU µs per
    order, each with its 95 % interval and verdict (analysis/verdict.py)."""
    cases = (doc.get("options") or {}).get("baseline_cases")
    if not cases:
        return []
    a, b = cases
    out = []
    rows = {(r["case"], r["variant"]): r for r in doc["summary"]}
    seen = list(dict.fromkeys(r["variant"] for r in doc["summary"]))
    for variant in seen:
        ra, rb = rows.get((a, variant)), rows.get((b, variant))
        if not ra or not rb:
            continue          # measured on one side only: no pair
        wa, wb = stats.windows_of(doc, a, variant), stats.windows_of(doc, b, variant)
        out.append({"variant": variant, "a": ra, "b": rb,
                    "sales": stats.ratio_of(wb, wa, "salesPerMinute", variant) if wa and wb else None,
                    "cpu": stats.ratio_of(wb, wa, "cpuUsPerOrderVariant", variant) if wa and wb else None})
    return out


def baseline_verdict(x: dict[str, Any]) -> str:
    """This tree against the baseline in words: a regression, an improvement, no difference, or unchecked."""
    r = x["sales"]
    v = (r or {}).get("verdict")
    if v == verdict.BEHIND:
        return f"regression: {r['ratio']:.2f}× the baseline's sales/min [{verdict.bracket(r)}]"
    if v == verdict.AHEAD:
        return f"improvement: {r['ratio']:.2f}× the baseline's sales/min [{verdict.bracket(r)}]"
    if v == verdict.SAME:
        return f"no difference detected ({verdict.bracket(r)})"
    return verdict.short(r) if r else "not measured in both"


def baseline_md(doc: dict[str, Any]) -> list[str]:
    """compare baseline REF: each row at REF (A) and at this tree (B), measured in turn in this run."""
    cases = (doc.get("options") or {}).get("baseline_cases")
    if not cases:
        return []
    a, b = cases
    own = {(x["case"], x["variant"]): x.get("ownUs") for x in stats.budget_rows(doc)}
    lines = ["", "## This tree against the baseline", "",
             f"Each row built from {a} (A, the baseline) and from {b} (B), their processes measured in turn in this "
             "run. B ÷ A of the medians with the 95 % interval of the ratio: a regression when the interval lies "
             "entirely below 1 (sales/min) or above 1 (CPU per order), no difference detected when it holds 1. Own "
             "work: CPU µs per order beyond the row's HTTP framework floor (the section below).", "",
             "| variant | sales/min A | sales/min B | B ÷ A [95 %] | verdict | CPU µs/order B ÷ A [95 %] | own work "
             "µs/order A → B |", "| --- | ---: | ---: | ---: | --- | ---: | --- |"]
    for x in baseline_rows(doc):
        ra, rb = x["a"], x["b"]
        oa, ob = own.get((a, x["variant"])), own.get((b, x["variant"]))
        lines.append(f"| {x['variant']} | {cell((ra or {}).get('salesPerMinute'))} | "
                     f"{cell((rb or {}).get('salesPerMinute'))} | {verdict.short(x['sales'])} | {baseline_verdict(x)} | "
                     f"{verdict.short(x['cpu'])} | {fmt(oa, '.1f')} → {fmt(ob, '.1f')} |")
    return lines


def ratio_cells(r: dict[str, Any]) -> list[str]:
    ours = "–" if r["ours"] is None else f"{r['ours']:.2f}" + (
        f" ({r['oursMin']:.2f}–{r['oursMax']:.2f})" if r["oursMin"] is not None and r["oursMin"] != r["oursMax"] else "")
    return [r["name"], ours, fmt(r.get("article"), ".2f"), r.get("why") or ""]


BUDGET_HEAD = ["case", "variant", "variant µs/order", "of which its floor's", "its own work", "load client µs/order",
               "database µs/order", "all µs/order", "the cores used", "orders/s if its own work were free",
               "÷ HTTP ceiling"]


def budget_cells(b: dict[str, Any]) -> list[str]:
    floor = f"{fmt(b['floorUs'], '.1f')} ({b['floor'] or 'trivial server'})" if b["floorUs"] is not None else "–"
    variant = fmt(b["variantUs"], ".1f") + (f" (main process {b['rootUs']:.1f})" if b.get("rootUs") is not None else "")
    return [b["case"] or "–", b["variant"], variant, floor, fmt(b["ownUs"], ".1f"),
            fmt(b["loadclientUs"], ".1f"), fmt(b["databaseUs"], ".1f"), fmt(b["totalUs"], ".1f"),
            fmt(b["machinePercent"], ".0f") + (" %" if b["machinePercent"] is not None else ""),
            fmt(b["boundIfOwnWorkFree"]), fmt(b["boundFraction"] * 100 if b["boundFraction"] else None, ".0f")
            + (" %" if b["boundFraction"] else "")]


BUDGET_TEXT = ("Medians of CPU µs per order answered (a process group's CPU over the window ÷ orders/s); a variant of "
               "several processes also shows its main one's share (node-engine's HTTP parent). The floor is the "
               "variant's own HTTP framework answering 202 with nothing behind it, measured in the calibration "
               "(node-engine's: the trivial node:http server); its own work is the rest: validation, engine, "
               "storage. The cores used: all three groups together, of every core. Orders/s if its own work were "
               "free: the cores ÷ (floor + load client + database), at this run's per-order costs of those three — "
               "a bound for anything that keeps the framework, the load client and the database.")


def warmup_text(v: dict[str, Any]) -> str:
    """How a ceiling's warm-up ended: "steady after 15 s", "not steady (45 s)", "fixed 5 s" (older runs: –)."""
    w = v.get("warmup") or {}
    if w.get("mode") == "auto":
        return f"steady after {fmt(w.get('seconds'), '.0f')} s" if w.get("steady") else f"not steady ({fmt(w.get('seconds'), '.0f')} s)"
    return f"fixed {fmt(w.get('seconds'), '.0f')} s" if w.get("mode") == "fixed" else "–"


def calibration_md(cal: dict[str, Any]) -> str:
    out = ["| ceiling | figure | warm-up | CPU µs per request (row): server or database / load client |",
           "| --- | ---: | --- | --- |"]
    servers = [(f"HTTP, {rt} trivial server", f"HTTP, {rt}", v) for rt, v in (cal.get("http") or {}).items()]
    servers += [(f"floor: {name} answering 202", f"floor: {name}", v) for name, v in (cal.get("floors") or {}).items()]
    for label, short, v in servers:
        us = v.get("cpuUsPerRequest") or {}
        cost = f"{fmt(us.get('server'), '.1f')} / {fmt(us.get('loadclient'), '.1f')}"
        out.append(f"| {label} ({cal.get('concurrency')} connections) | "
                   f"{fmt(v.get('ordersPerSecond'))} orders/s | {warmup_text(v)} | {cost} |" if "error" not in v
                   else f"| {short} | {v['error']} | | |")
    ins = cal.get("insert") or {}
    if "error" in ins:
        out.append(f"| database inserts | {ins['error']} | |")
    else:
        for n, e in ins.items():
            for key, name in (("singleRow", "single-row autocommit"), ("multiRow", f"{cal.get('multiRowBatch')}-row statements")):
                if key not in e:
                    continue        # not measured: no run of this persist mode is held against it
                v = e.get(key) or {}
                us = v.get("cpuUsPerRow") or {}
                cost = f"{fmt(us.get('database'), '.1f')} / {fmt(us.get('loadclient'), '.1f')}" if us else ""
                out.append(f"| inserts, {name}, {n} connections | "
                           + (f"{fmt(v.get('rowsPerSecond'))} rows/s | {warmup_text(v)} | {cost} |" if "error" not in v
                              else f"{v['error']} | | |"))
    return "\n".join(out)
