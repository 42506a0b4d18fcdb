"""The tables a reader sees: each figure as text ("median (min–max)"), summary.md of a run, and the rows
report.html shares with it (the article's ratios, the CPU budget, the calibration)."""
from __future__ import annotations

from ..run import layout
from . import breakdown, stats


def fmt(v, spec=",.0f") -> str:
    return "–" if v is None else format(v, spec)


def cell(s: dict | None, spec=",.0f", pct=False) -> str:
    """median (min–max)."""
    if not s:
        return "–"
    k = 100 if pct else 1
    suffix = " %" if pct else ""
    if s["n"] == 1:
        return f"{fmt(s['median'] * k, spec)}{suffix}"
    return f"{fmt(s['median'] * k, spec)} ({fmt(s['min'] * k, spec)}–{fmt(s['max'] * k, spec)}){suffix}"


def jit_note(row: dict) -> list[str]:
    """'⚠ JIT n %' when the variant's JIT compiler threads used more than JIT_FLAG % of a core in the window
    (median of the repeats): part of its CPU per order is the JVM still compiling, not its steady cost."""
    j = row.get("jitCpuPercent")
    notes = [f"⚠ JIT {j['median']:.0f} %"] if j and j["median"] > stats.JIT_FLAG else []
    w = row.get("jitWarmupSeconds")
    if w:
        notes.append(f"JIT warm-up {w['median']:.0f} s" + (" (bound reached: not quiet)" if row.get("jitWarmupBounded") else ""))
    return notes


def setting_text(row: dict) -> str:
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


def db_cost_cell(row: dict) -> str:
    """The database's CPU µs per sale stored (median), and per row at the matching insert ceiling."""
    us, ceil = row.get("dbCpuUsPerSale"), row.get("insertCeilingDbCpuUsPerRow")
    if not us:
        return "–"
    return f"{us['median']:.1f}" + (f" ({ceil['median']:.1f})" if ceil else "")


def cost_cell(row: dict) -> str:
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
             "(100 % of one core = 1.00) and CPU µs per order, its peak RSS, threads and processes, the database "
             "connections it kept open (counted from the kernel after the window; configured in brackets), the "
             "inserts it keeps in flight (its manifest's inFlight), and the latency its clients saw.")
COST_HEAD = ["case", "variant", "cores", "CPU µs/order", "RSS MB", "threads", "processes",
             "database connections open (configured)", "inserts in flight", "p50 / p99 / p99.9 ms"]


def med(s) -> float | None:
    return (s or {}).get("median")


def cost_row(r: dict) -> list[str]:
    cores = med(r["cpuPercent"].get("variant"))
    return [r["case"] or "–", r["variant"], fmt(cores / 100 if cores is not None else None, ".2f"),
            fmt(med((r.get("cpuUsPerOrder") or {}).get("variant")), ".1f"), fmt(med(r.get("rssMb")), ",.0f"),
            fmt(med(r.get("threads")), ".0f"), fmt(med(r.get("processes")), ".0f"),
            f"{fmt(med(r.get('dbConnectionsOpen')), '.0f')} ({fmt(r.get('dbConnections'), '.0f')})",
            fmt(r.get("inFlight"), ".0f"),
            " / ".join(fmt(med(r.get(k)), ".1f") for k in ("p50Ms", "p99Ms", "p999Ms"))]


def summary_md(doc: dict) -> str:
    lines = [f"# tradebench {doc['command']} {doc['runId']}\n",
             "Each cell: median (min–max) over the repeats. ≈ marks variants whose sales/min ranges overlap "
             "(the difference is within noise); ⚠ drift: the two halves of a measured window differ by over 10 %; ⚠ JIT: the JVM's JIT compiler "
             "threads used more than 5 % of a core in the window (the variant was still compiling); JIT warm-up: how long "
             "a JVM variant got the load before the measured one, until its JIT compiler used under 5 % of a core. "
             "CPU µs/order: the variant's CPU over the window per order answered; × trivial server's: divided by what "
             "its runtime's trivial server spent per request in the calibration, and by what its own HTTP framework "
             "(its floor: Tomcat, Akka HTTP) spent answering 202 with nothing behind it. db CPU µs/sale: the database's "
             "CPU per sale stored, and in brackets per row at the insert ceiling of the same kind (single-row or "
             "100-row statements, same connections) when the database had the cores nearly to itself.\n",
             *layout_lines(doc), "",
             SUMMARY_HEAD.rstrip("\n")]
    for r in doc["summary"]:
        cpu = " / ".join(fmt((r["cpuPercent"].get(g) or {}).get("median"), ".0f") for g in ("variant", "loadclient", "database"))
        notes = []
        if r["withinNoiseOf"]:
            notes.append("≈ " + ", ".join(r["withinNoiseOf"]))
        if r["driftFlagged"]:
            notes.append("⚠ drift")
        notes += jit_note(r)
        steady = {True: "yes", False: "no", None: "–"}[r["steady"]]
        if r.get("articleSalesPerMinute"):
            notes.append(f"article: {r['articleSalesPerMinute']:,} sales/min")
        lines.append(f"| {r['case'] or '–'} | {r['variant']} | {setting_text(r)} | {cell(r['salesPerMinute'])} "
                     f"| {cell(r['ordersPerSecond'])} | {cell(r['httpCeilingFraction'], '.1f', True)} "
                     f"| {cell(r['insertCeilingFraction'], '.1f', True)} | {cell(r['p99Ms'], '.2f')} | {cpu} | {cost_cell(r)} | {db_cost_cell(r)} | {steady} "
                     f"| {'; '.join(notes)} |")
    lines += ["", "## What each row costs", "", COST_TEXT, "", "| " + " | ".join(COST_HEAD) + " |",
              "| " + " | ".join(["---"] * 2 + ["---:"] * 8) + " |"]
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


def layout_lines(doc: dict) -> list[str]:
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


def baseline_md(doc: dict) -> list[str]:
    """compare --baseline REF: each row at REF (A) and at this tree (B), measured back to back in this run."""
    cases = (doc.get("options") or {}).get("baseline_cases")
    if not cases:
        return []
    a, b = cases
    own = {(x["case"], x["variant"]): x.get("ownUs") for x in stats.budget_rows(doc)}
    rows = {(r["case"], r["variant"]): r for r in doc["summary"]}
    lines = ["", "## This tree against the baseline", "",
             f"Each row built from {a} (A, the baseline) and from {b} (B), measured one after the other in this "
             "run. B ÷ A of the medians; the ranges overlap: the difference is within the noise of the repeats. "
             "Own work: CPU µs per order beyond the row's HTTP framework floor (the section below).", "",
             "| variant | sales/min A | sales/min B | B ÷ A | ranges overlap | CPU µs/order A → B | own work µs/order "
             "A → B | own work B ÷ A |", "| --- | ---: | ---: | ---: | --- | --- | --- | ---: |"]
    for (case, variant), ra in rows.items():
        rb = rows.get((b, variant))
        if case != a or not rb:
            continue
        sa, sb = ra["salesPerMinute"], rb["salesPerMinute"]
        ca, cb = med(ra.get("cpuUsPerOrderVariant")), med(rb.get("cpuUsPerOrderVariant"))
        oa, ob = own.get((a, variant)), own.get((b, variant))
        ratio = sb["median"] / sa["median"] if sa and sb and sa.get("median") else None
        lines.append(f"| {variant} | {cell(sa)} | {cell(sb)} | {fmt(ratio, '.2f')} | "
                     f"{('yes' if stats.overlaps(sa, sb) else 'no') if sa and sb else '–'} | "
                     f"{fmt(ca, '.1f')} → {fmt(cb, '.1f')} | {fmt(oa, '.1f')} → {fmt(ob, '.1f')} | "
                     f"{fmt(ob / oa if oa and ob is not None else None, '.2f')} |")
    return lines


def ratio_cells(r: dict) -> list[str]:
    ours = "–" if r["ours"] is None else f"{r['ours']:.2f}" + (
        f" ({r['oursMin']:.2f}–{r['oursMax']:.2f})" if r["oursMin"] is not None and r["oursMin"] != r["oursMax"] else "")
    return [r["name"], ours, fmt(r.get("article"), ".2f"), r.get("why") or ""]


BUDGET_HEAD = ["case", "variant", "variant µs/order", "of which its floor's", "its own work", "load client µs/order",
               "database µs/order", "all µs/order", "the cores used", "orders/s if its own work were free",
               "÷ HTTP ceiling"]


def budget_cells(b: dict) -> list[str]:
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


def warmup_text(v: dict) -> str:
    """How a ceiling's warm-up ended: "steady after 15 s", "not steady (45 s)", "fixed 5 s" (older runs: –)."""
    w = v.get("warmup") or {}
    if w.get("mode") == "auto":
        return f"steady after {fmt(w.get('seconds'), '.0f')} s" if w.get("steady") else f"not steady ({fmt(w.get('seconds'), '.0f')} s)"
    return f"fixed {fmt(w.get('seconds'), '.0f')} s" if w.get("mode") == "fixed" else "–"


def calibration_md(cal: dict) -> str:
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
