#!/usr/bin/env python3
"""Result rows, tables and charts of ./tradebench bench and compare.

  report.py row META.json LOAD.json SAMPLES.jsonl OUT.json   one result row (JSON), printed as a line
  report.py table OUT.md OUT.svg ROW.json...                 a Markdown table and an SVG chart
  report.py experiment OUT.md ROW.json...                     our figures beside the 2014 article's

Only the standard library: the launcher runs it with the machine's python3.
"""
import json, os, sys

CLK_TCK = os.sysconf("SC_CLK_TCK")


def load_samples(path, start_ms, end_ms):
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    pass
    inside = [r for r in rows if start_ms - 1500 <= r["t"] <= end_ms + 1500] or rows
    cpu = 0.0
    if len(inside) >= 2:
        a, b = inside[0], inside[-1]
        secs = (b["t"] - a["t"]) / 1000.0
        if secs > 0:
            cpu = (b["cpuTicks"] - a["cpuTicks"]) / CLK_TCK / secs * 100.0
    return {
        "cpuPercent": round(cpu, 1),  # 100 = one core busy
        "threadsMax": max((r["threads"] for r in inside), default=0),
        "rssMaxMb": round(max((r["rssKb"] for r in inside), default=0) / 1024.0, 1),
        "processes": max((r["procs"] for r in inside), default=0),
        "samples": len(inside),
    }


def row(meta_path, load_path, samples_path, out_path):
    meta = json.load(open(meta_path))
    load = json.load(open(load_path))
    proc = load_samples(samples_path, load.get("windowStartMs", 0), load.get("windowEndMs", 1 << 62))
    db = load.get("db") or {}
    ans = load.get("answers", {})
    lat = load.get("latencyMs", {})
    result = dict(meta)
    result.update({
        "salesPerMinute": db.get("salesPerMinute"),
        "salesInWindow": db.get("sales"),
        "ordersPerSecond": load.get("requestsPerSecond"),
        "acceptedPerSecond": load.get("acceptedPerSecond"),
        "p50Ms": lat.get("p50"),
        "p99Ms": lat.get("p99"),
        "answers503": ans.get("overloaded503", 0),
        "errors": sum(ans.get(k, 0) for k in ("other4xx", "other5xx", "otherStatus", "ioErrors")),
        "process": proc,
        "load": load,
    })
    with open(out_path, "w") as f:
        json.dump(result, f, indent=2)
    print(line(result))


def fmt(v, spec=",.0f"):
    return "-" if v is None else format(v, spec)


def line(r):
    p = r["process"]
    return (f"{r['variant']:<18} engines={r['engines']} persist={r['persist']} wait={r['waitMs']} "
            f"conc={r['concurrency']} db-latency={r['dbLatencyMs']} | sales/min {fmt(r['salesPerMinute'])} | "
            f"orders/s {fmt(r['ordersPerSecond'])} | p50 {fmt(r['p50Ms'], '.2f')} ms p99 {fmt(r['p99Ms'], '.2f')} ms | "
            f"CPU {fmt(p['cpuPercent'], '.0f')}% threads {p['threadsMax']} RSS {fmt(p['rssMaxMb'], '.0f')} MB | "
            f"503 {r['answers503']} errors {r['errors']}")


HEADER = ("| variant | settings | sales/min | orders/s | p50 ms | p99 ms | CPU % | threads | RSS MB | 503s | errors |\n"
          "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")


def settings(r):
    s = f"{r['engines']} engines, {r['persist']}, "
    s += f"rate {r['rate']}/s" if r.get("rate") else f"wait {r['waitMs']} ms"
    s += f", {r['concurrency']} clients"
    if r.get("dbLatencyMs"):
        s += f", DB +{r['dbLatencyMs']} ms"
    if r.get("extraEnv"):
        s += f", {r['extraEnv']}"
    return s


def md_row(r):
    p = r["process"]
    return (f"| {r['variant']} | {settings(r)} | {fmt(r['salesPerMinute'])} | {fmt(r['ordersPerSecond'])} | "
            f"{fmt(r['p50Ms'], '.2f')} | {fmt(r['p99Ms'], '.2f')} | {fmt(p['cpuPercent'], '.0f')} | {p['threadsMax']} | "
            f"{fmt(p['rssMaxMb'], '.0f')} | {r['answers503']} | {r['errors']} |\n")


def svg(rows, path):
    """Two bars per variant: sales/min (left axis) and CPU % (right axis)."""
    w, h, left, bottom, top = 760, 360, 70, 60, 40
    n = max(len(rows), 1)
    slot = (w - left - 70) / n
    max_sales = max([r["salesPerMinute"] or 0 for r in rows] + [1])
    max_cpu = max([r["process"]["cpuPercent"] or 0 for r in rows] + [200])
    plot_h = h - top - bottom
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{w/2}" y="22" text-anchor="middle" font-size="15">sales stored per minute (blue) and CPU % (orange) per variant</text>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{h-bottom}" stroke="#444"/>',
           f'<line x1="{left}" y1="{h-bottom}" x2="{w-70}" y2="{h-bottom}" stroke="#444"/>',
           f'<line x1="{w-70}" y1="{top}" x2="{w-70}" y2="{h-bottom}" stroke="#444"/>']
    for i in range(5):
        y = h - bottom - plot_h * i / 4
        out.append(f'<text x="{left-6}" y="{y+4}" text-anchor="end" fill="#1f5fa8">{max_sales*i/4:,.0f}</text>')
        out.append(f'<text x="{w-64}" y="{y+4}" fill="#d9822b">{max_cpu*i/4:.0f}%</text>')
    for i, r in enumerate(rows):
        x = left + slot * i + slot * 0.15
        bw = slot * 0.32
        s = r["salesPerMinute"] or 0
        c = r["process"]["cpuPercent"] or 0
        sh = plot_h * s / max_sales
        ch = plot_h * c / max_cpu
        out.append(f'<rect x="{x:.1f}" y="{h-bottom-sh:.1f}" width="{bw:.1f}" height="{sh:.1f}" fill="#1f5fa8"/>')
        out.append(f'<rect x="{x+bw+2:.1f}" y="{h-bottom-ch:.1f}" width="{bw:.1f}" height="{ch:.1f}" fill="#d9822b"/>')
        out.append(f'<text x="{x+bw:.1f}" y="{h-bottom+16}" text-anchor="middle">{r["variant"]}</text>')
        label = r.get("label") or ""
        if label:
            out.append(f'<text x="{x+bw:.1f}" y="{h-bottom+30}" text-anchor="middle" font-size="10">{label}</text>')
        out.append(f'<text x="{x+bw/2:.1f}" y="{h-bottom-sh-4:.1f}" text-anchor="middle" font-size="10">{s:,.0f}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def table(md_path, svg_path, paths):
    rows = [json.load(open(p)) for p in paths]
    md = HEADER + "".join(md_row(r) for r in rows)
    with open(md_path, "w") as f:
        f.write(md)
    svg(rows, svg_path)
    print(md, end="")


# The 2014 article's figures (sales per minute), by case.
ARTICLE = {
    "case1-slow-db": {"java-threads": 5100, "java-akka": 5000, "node-engine": 6400},
    "case2-fast-db": {"java-threads": 32800, "java-akka": 30100, "node-engine": 15000},
    "followup-spray": {"java-spray-async": 79536},
    "followup-node": {"node-engine": 51234},
    "followup-tomcat": {"java-threads": 10221},
}


def experiment(md_path, paths):
    rows = [json.load(open(p)) for p in paths]
    md = ("| case | variant | settings | article sales/min | ours sales/min | ours orders/s | CPU % | p99 ms |\n"
          "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
    for r in rows:
        case = r.get("label", "")
        art = ARTICLE.get(case, {}).get(r["variant"])
        md += (f"| {case} | {r['variant']} | {settings(r)} | {fmt(art)} | {fmt(r['salesPerMinute'])} | "
               f"{fmt(r['ordersPerSecond'])} | {fmt(r['process']['cpuPercent'], '.0f')} | {fmt(r['p99Ms'], '.2f')} |\n")
    with open(md_path, "w") as f:
        f.write(md)
    print(md, end="")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "row":
        row(*sys.argv[2:6])
    elif cmd == "table":
        table(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif cmd == "experiment":
        experiment(sys.argv[2], sys.argv[3:])
    else:
        sys.exit("usage: report.py row|table|experiment ...")
