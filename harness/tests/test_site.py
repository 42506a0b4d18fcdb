"""./tradebench site: the site of the committed runs and a run of the user's, opened in headless Chromium.

Every page opens without a console error or an uncaught exception, and every href and src of every page points
at a file of the site or is a web link; screenshots of the answer's page and of a run's page are kept for a
reader. The browser is Debian's chromium (installed through run/tools.py when missing: a machine that cannot
install it fails this test), driven over the DevTools protocol by a small script for Node.js 24 (its global
WebSocket): Runtime.consoleAPICalled (error), Runtime.exceptionThrown and Log.entryAdded (error: a resource
that did not load) are what the detector refuses, and a page made to fail shows that it does.

The reports of the committed folders are drawn once and kept in .tradebench/site-cache: a first run draws
them all (a minute or two of matplotlib on 2 cores), the next take them from there."""
from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tradebench_harness.cli import main
from tradebench_harness.record import plain
from tradebench_harness.report import results
from tradebench_harness.run import context, tools
from tradebench_harness.site import catalog, grouping, links, questions
from tradebench_harness.site.catalog import Entry, Machine

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / ".tradebench" / "test-artifacts" / "site"
#: the committed run the user's fabricated one repeats (the same question, the same machine)
REPEATED = "2026-11-27-compare-isolated"
YOURS = "20261203-101500-compare"

#: the DevTools client: argv chromium, profile folder, pages (JSON: [{url, shot?}]); prints [{url, errors, links}]
CDP = r"""
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [chromium, profile, list] = process.argv.slice(2);
const TABS = 3;                       // pages loading at once: the machine's cores kept busy
const pages = JSON.parse(readFileSync(list, "utf8"));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const portFile = join(profile, "DevToolsActivePort");
rmSync(portFile, { force: true });   // a browser of an earlier run would be spoken to instead
const browser = spawn(chromium, ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
  "--no-first-run", "--no-default-browser-check", "--remote-debugging-port=0", `--user-data-dir=${profile}`,
  "about:blank"], { stdio: ["ignore", "ignore", "ignore"] });
process.on("uncaughtException", (e) => { browser.kill("SIGKILL"); console.error(e); process.exit(1); });
try {
  const started = Date.now();
  while (!existsSync(portFile) || readFileSync(portFile, "utf8").trim().split("\n").length < 2) {
    if (Date.now() - started > 60000) throw new Error("chromium: no DevTools port in 60 s");
    await sleep(50);
  }
  const [port, path] = readFileSync(portFile, "utf8").trim().split("\n");
  const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`);
  await new Promise((res, rej) => { ws.onopen = res; ws.onerror = rej; });
  let next = 0;
  const waiting = new Map();
  const tabs = new Map();            // a tab's attachment -> the page it is on: its errors, links, load
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.id && waiting.has(msg.id)) {
      const { res, rej } = waiting.get(msg.id);
      waiting.delete(msg.id);
      if (msg.error) rej(new Error(JSON.stringify(msg.error))); else res(msg.result);
      return;
    }
    const current = tabs.get(msg.sessionId);
    if (!current) return;
    const p = msg.params || {};
    if (msg.method === "Runtime.consoleAPICalled" && (p.type === "error" || p.type === "assert")) {
      current.errors.push(`console.${p.type}: ` + p.args.map((a) => a.value ?? a.description ?? "").join(" "));
    } else if (msg.method === "Runtime.exceptionThrown") {
      const d = p.exceptionDetails;
      current.errors.push("uncaught: " + ((d.exception && d.exception.description) || d.text));
    } else if (msg.method === "Log.entryAdded" && p.entry.level === "error") {
      current.errors.push(`log (${p.entry.source}): ${p.entry.text} ${p.entry.url || ""}`.trim());
    } else if (msg.method === "Page.loadEventFired" && current.loaded) {
      current.loaded();
    }
  };
  const send = (method, params = {}, to = undefined) => new Promise((res, rej) => {
    const id = ++next;
    waiting.set(id, { res, rej });
    ws.send(JSON.stringify({ id, method, params, sessionId: to }));
  });
  const WIDTH = 1280;
  const LINKS = `JSON.stringify([...document.querySelectorAll("[href],[src]")].flatMap((e) =>
    ["href", "src"].filter((a) => e.hasAttribute(a)).map((a) => new URL(e.getAttribute(a), document.baseURI).href)))`;
  const out = new Array(pages.length);
  let taken = 0;
  const tab = async () => {          // one tab takes the next page until none is left
    const { targetId } = await send("Target.createTarget", { url: "about:blank" });
    const attached = (await send("Target.attachToTarget", { targetId, flatten: true })).sessionId;
    const page = (method, params) => send(method, params, attached);
    for (const domain of ["Page", "Runtime", "Log"]) await page(`${domain}.enable`);
    const size = (height) => page("Emulation.setDeviceMetricsOverride", { width: WIDTH, height, deviceScaleFactor: 1, mobile: false });
    await size(900);
    while (taken < pages.length) {
      const i = taken++;
      const p = pages[i];
      const current = { url: p.url, errors: [], links: [], ms: Date.now() };
      const loaded = new Promise((r) => { current.loaded = r; });
      tabs.set(attached, current);
      const nav = await page("Page.navigate", { url: p.url });
      if (nav.errorText) current.errors.push("navigation: " + nav.errorText);
      else if (await Promise.race([loaded.then(() => true), sleep(20000).then(() => false)]) === false) {
        current.errors.push("no load event in 20 s");
      }
      await sleep(30);   // what a page logs right after its load event
      const found = await page("Runtime.evaluate", { expression: LINKS, returnByValue: true });
      current.links = JSON.parse(found.result.value);
      if (p.shot) {
        const { cssContentSize } = await page("Page.getLayoutMetrics");
        await size(Math.min(Math.ceil(cssContentSize.height), 12000));
        await sleep(400);   // the frames drawn again at the new size
        const shot = await page("Page.captureScreenshot", { format: "png" });
        writeFileSync(p.shot, Buffer.from(shot.data, "base64"));
        await size(900);
      }
      tabs.delete(attached);
      delete current.loaded;
      current.ms = Date.now() - current.ms;
      out[i] = current;
    }
  };
  await Promise.all(Array.from({ length: TABS }, tab));
  const exited = new Promise((r) => browser.once("exit", () => r(true)));
  await send("Browser.close").catch(() => {});
  if (!(await Promise.race([exited, sleep(3000).then(() => false)]))) browser.kill("SIGKILL");
  ws.close();
  process.stdout.write(JSON.stringify(out), () => process.exit(0));   // an open socket or timer would keep it up
} catch (e) {
  browser.kill("SIGKILL");   // whatever failed, no browser is left behind
  console.error(e);
  process.exit(1);
}
"""


def chromium() -> str:
    """Debian's chromium, installed when missing; a machine that cannot install it fails the test."""
    try:
        return tools.chromium()
    except tools.ToolError as e:
        pytest.fail(f"headless Chromium is needed and could not be installed: {e}")


def node() -> str:
    """Node.js 24 (TB_NODE, as the launcher sets it): its global WebSocket speaks to Chromium."""
    path = os.environ.get("TB_NODE") or shutil.which("node")
    if not path:
        pytest.fail("no Node.js: run through ./tradebench or set TB_NODE to Node.js 22 or newer")
    version = subprocess.run([path, "--version"], capture_output=True, text=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0] or 0) < 22:
        pytest.fail(f"{path} is Node.js {version}: the DevTools client needs a global WebSocket (Node.js 22+; TB_NODE)")
    return path


def visit(pages: list[dict], tmp: Path) -> list[dict]:
    """PAGES opened in one headless Chromium, a few tabs at once: each page's errors and resolved links."""
    tmp.mkdir(parents=True, exist_ok=True)
    script, listed = tmp / "cdp.mjs", tmp / "pages.json"
    script.write_text(CDP)
    listed.write_text(json.dumps(pages))
    r = subprocess.run([node(), str(script), chromium(), str(tmp / "profile"), str(listed)], capture_output=True,
                       text=True, timeout=240)
    assert r.returncode == 0, f"the DevTools client failed: {r.stderr[-3000:]}"
    return json.loads(r.stdout)


def refused(visited: list[dict], site: Path) -> list[str]:
    """What the detector refuses: each page's console errors and uncaught exceptions, and each link that is
    neither a web link, the page's own data: image, nor a file inside SITE."""
    out: list[str] = []
    top = site.resolve()
    for v in visited:
        out += [f"{v['url']}: {e}" for e in v["errors"]]
        for url in v["links"]:
            parts = urlsplit(url)
            if parts.scheme in ("http", "https") or url.startswith("data:image/"):
                continue
            target = Path(unquote(parts.path)).resolve() if parts.scheme == "file" else None
            if target is None or not target.is_file() or not target.is_relative_to(top):
                out.append(f"{v['url']}: dead link {url}")
    return out


# --- the site of the committed runs and one of the user's ---------------------------------------------------------

def your_run(folder: Path) -> Path:
    """A run of the user's shaped like results/<run-id>/: the committed compare's windows of two designs, a week
    later, java-virtual's sales 30 % up, written by the report's own writer (report.html included)."""
    doc = plain(results.load(str(ROOT / "docs" / "results" / REPEATED), ROOT / "results"))
    doc = copy.deepcopy(doc)
    doc["runs"] = [r for r in doc["runs"] if r["variant"] in ("java-threads", "java-virtual")]
    for r in doc["runs"]:
        if r["variant"] == "java-virtual" and r.get("salesPerMinute"):
            r["salesPerMinute"] *= 1.3
    doc.pop("summary", None)
    doc.update(runId=YOURS, startedAt="2026-12-03T10:15:00+0000")
    run = folder / YOURS
    run.mkdir(parents=True)
    doc = results.write_all(run, doc)
    return run


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("site")
    your_run(tmp / "results")
    out = tmp / "site"
    # the committed runs' report.html is drawn in the test of its own below (drawing all of them, a minute or two
    # on 2 cores, is what `./tradebench report` of each folder does, tested with the commands that write them)
    command = main.parse(["site", "--out", str(out), "--results", str(tmp / "results"), "--reports", "yours",
                          "--pair", "2026-11-24-compare", YOURS])
    assert command.func(context.from_env(), command.options) == 0
    return out


def test_every_page_opens_without_a_console_error_or_a_dead_link(built, tmp_path, capsys):
    manifest = json.loads((built / "site.json").read_text())
    pages = sorted(manifest["pages"])
    assert {"index.html", "runs.html", f"runs/yours/{YOURS}/index.html", f"runs/yours/{YOURS}/report.html"} <= set(pages)
    on_disk = sorted(p.relative_to(built).as_posix() for p in built.rglob("*.html"))
    assert on_disk == pages, "a page the site wrote is not in site.json, or the other way round"
    static = {p: links.dead(built / p, built) for p in pages}
    assert not {p: d for p, d in static.items() if d}, "dead links in the pages' HTML"
    shots = {"index.html": "answer.png", "runs/2026-11-24-latency-sweep/index.html": "run.png",
             f"pairs/{REPEATED}--yours_{YOURS}.html": "pair.png", "runs.html": "runs.png"}
    listed = [{"url": (built / p).as_uri(), **({"shot": str(tmp_path / shots[p])} if p in shots else {})}
              for p in pages]
    visited = visit(listed, tmp_path / "browser")
    assert len(visited) == len(pages)
    problems = refused(visited, built)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name in shots.values():
        shutil.copyfile(tmp_path / name, ARTIFACTS / name)
    with capsys.disabled():            # said whatever pytest captures: a reader looks at them
        print(f"\nthe site: {built}\nscreenshots: {ARTIFACTS} (and {tmp_path}): {', '.join(shots.values())}")
    assert not problems, "\n".join(problems[:40])
    assert all(len(v["links"]) > 3 for v in visited if v["url"].endswith("index.html")), "a page without links"


def test_the_detector_refuses_a_console_error_an_exception_and_a_dead_link(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "here.png").write_bytes((ROOT / "docs/results/2026-12-01-isolation/orders-p99.png").read_bytes())
    (site / "bad.html").write_text('<!DOCTYPE html><html><body><a href="missing.html">gone</a><img src="here.png">'
                                   '<script>console.error("deliberate")</script></body></html>')
    (site / "throws.html").write_text('<!DOCTYPE html><html><body><a href="bad.html">there</a><img src="lost.png">'
                                      '<script>throw new Error("on purpose")</script></body></html>')
    (site / "good.html").write_text('<!DOCTYPE html><html><body><a href="bad.html">ok</a><img src="here.png">'
                                    '<a href="https://example.org/">web</a></body></html>')
    visited = visit([{"url": (site / p).as_uri()} for p in ("bad.html", "throws.html", "good.html")], tmp_path / "b")
    got = refused(visited, site)
    bad, throws, good = ((site / p).as_uri() for p in ("bad.html", "throws.html", "good.html"))
    assert any(g.startswith(bad) and "console.error: deliberate" in g for g in got), got
    assert any(g.startswith(bad) and g.endswith("missing.html") and "dead link" in g for g in got), got
    assert any(g.startswith(throws) and "uncaught" in g and "on purpose" in g for g in got), got
    assert any(g.startswith(throws) and "lost.png" in g for g in got), got
    assert not [g for g in got if g.startswith(good + ":")], got
    assert links.dead(site / "bad.html", site) == ["missing.html"]


def test_the_answer_page_says_the_readmes_answer_and_shows_its_charts_each_linked_to_its_run(built):
    html = (built / "index.html").read_text()
    readme = (ROOT / "README.md").read_text()
    assert "A slow dependency stalls only a design" in readme
    assert "A slow dependency stalls only a design" in html
    assert 'href="runs/2026-12-01-isolation/index.html"' in html
    assert "docs/results/" not in html.replace("from docs/results", "")
    assert '<a href="runs/2026-12-01-isolation/index.html"><img src="runs/2026-12-01-isolation/orders-p99.png"' in html
    assert '<h2 class="claim">A slow dependency stalls only a design' in html   # each chart under the claim it shows
    assert "<script" not in html


def test_your_run_is_marked_and_set_beside_the_previous_committed_one_with_diffs_verdicts(built):
    runs = (built / "runs.html").read_text()
    assert f'runs/yours/{YOURS}/index.html">{YOURS}</a> <span class="mark yours">your run</span>' in runs
    pair = built / "pairs" / f"{REPEATED}--yours_{YOURS}.html"
    text = pair.read_text()
    assert "the previous run of the same question on the same machine" in text.lower()
    assert '<td class="verdict ahead">B ahead</td>' in text           # java-virtual's sales 30 % up
    assert "java-threads" in text and "no difference detected" in text
    named = (built / "pairs" / f"2026-11-24-compare--yours_{YOURS}.html").read_text()
    assert "Named with --pair" in named


# --- the index and the pairing, on runs made up here ------------------------------------------------------------------

XEON, EPYC = Machine("Intel Xeon Processor", 2), Machine("AMD EPYC", 2)


def entry(slug: str, question: str, machine: Machine | None, started: str, kind: str = catalog.RESULTS,
          yours: bool = False) -> Entry:
    return Entry(slug=slug, source=Path("/nowhere") / slug, kind=kind, title=slug, question=question, machine=machine,
                 started=started, yours=yours)


RUNS = [entry("a", "saturation", XEON, "2026-11-24T20:40:44"), entry("b", "saturation", XEON, "2026-11-27T18:49:15"),
        entry("c", "saturation", EPYC, "2026-11-26T00:49:56"), entry("d", "round trip", XEON, "2026-11-25T00:55:40"),
        entry("n", "saturation", None, "2026-11-23", kind=catalog.NOTES),
        entry("y", "saturation", XEON, "2026-12-03T10:15:00", yours=True),
        entry("e", "saturation", EPYC, "2026-11-26T01:04:20")]


def test_the_index_groups_runs_by_question_machine_and_date_newest_first():
    qs = grouping.by_question(RUNS, ["round trip", "saturation"])
    assert [(g.title, [e.slug for e in g.entries]) for g in qs] == [
        ("round trip", ["d"]), ("saturation", ["y", "b", "e", "c", "a", "n"])]
    ms = grouping.by_machine(RUNS)
    assert [(g.title, [e.slug for e in g.entries]) for g in ms] == [
        ("AMD EPYC, 2 cores", ["e", "c"]), ("Intel Xeon Processor, 2 cores", ["y", "b", "d", "a"]),
        (grouping.UNRECORDED, ["n"])]
    ds = grouping.by_date(RUNS)
    assert [g.title for g in ds] == ["2026-12-03", "2026-11-27", "2026-11-26", "2026-11-25", "2026-11-24", "2026-11-23"]
    assert [e.slug for e in ds[2].entries] == ["e", "c"]
    # a question no order names comes after those it does
    assert [g.title for g in grouping.by_question(RUNS, ["saturation"])] == ["saturation", "round trip"]


def test_each_run_is_set_beside_the_previous_run_of_its_question_on_its_machine():
    pairs = {(p.a.slug, p.b.slug) for p in grouping.previous_pairs(RUNS)}
    # a then b then your y on the Xeon; c then e on the EPYC; d alone in its question; the note has no record
    assert pairs == {("a", "b"), ("b", "y"), ("c", "e")}
    named = grouping.pairs(RUNS, [("d", "y"), ("a", "b")])
    assert [(p.a.slug, p.b.slug, p.why) for p in named][:2] == [("d", "y", grouping.NAMED), ("a", "b", grouping.NAMED)]
    assert len(named) == 4                   # (a, b) named once, not again as a previous run
    with pytest.raises(grouping.SiteError, match="no run of the site"):
        grouping.pairs(RUNS, [("a", "nothing")])


def test_a_run_of_yours_takes_the_question_its_command_is_listed_under_most_often():
    qs = [questions.Question("first", ()), questions.Question("second", ())]
    mine = [entry("m1", "second", XEON, "1"), entry("m2", "second", XEON, "2"), entry("m3", "first", XEON, "3"),
            entry("s1", "first", XEON, "4"), entry("s2", "second", XEON, "5")]
    commands = {"m1": "map", "m2": "map", "m3": "map", "s1": "sweep-latency", "s2": "sweep-latency"}
    mine = [Entry(**{**e.__dict__, "command": commands[e.slug]}) for e in mine]
    assert catalog.usual_questions(mine, qs) == {"map": "second", "sweep-latency": "first"}   # a tie: the earlier


def test_the_questions_are_read_from_the_tables_of_docs_results_readme():
    text = """## The runs

### Which design wins where

| date | run | what it answers |
| --- | --- | --- |
| 2026-11-26 | [the map of every row](2026-11-26-map/README.md) **(current)** | which row `a \\| b` stores the most |
| 2026-11-23 | [java-akka's notes](2026-11-23-java-akka-notes.md) | its notes |

### Superseded, out of the tree

| date | run | what it answered |
| --- | --- | --- |
| 2026-11-24 | the batch sweep (removed: `git show 3973722:docs/results/x/README.md`) | gone |
"""
    (q,) = questions.parse(text)
    assert q.title == "Which design wins where"
    assert [(l.target, l.title, l.current) for l in q.listed] == [
        ("2026-11-26-map", "the map of every row", True), ("2026-11-23-java-akka-notes.md", "java-akka's notes", False)]
    assert q.listed[0].answers == "which row `a | b` stores the most"     # the table's escape read
    committed = questions.read(ROOT / "docs" / "results" / "README.md")
    assert any(l.target == "2026-12-01-isolation" for q in committed for l in q.listed)


def test_the_command_takes_its_options_as_one_frozen_object():
    o = main.parse(["site", "--results", "a", "b", "--pair", "x", "y", "--pair", "z", "w"]).options
    assert o == main.Site(out=None, results=("a", "b"), pair=(("x", "y"), ("z", "w")))
    assert main.parse(["site"]).options == main.Site(out=None, results=(), pair=(), reports="all")
    assert main.parse(["site", "--reports", "yours"]).options.reports == "yours"


def test_a_committed_runs_report_is_drawn_as_report_draws_it_and_kept_for_the_next_build(tmp_path):
    from tradebench_harness.site.drawing import Drawer
    folder = ROOT / "docs" / "results" / REPEATED
    drawer = Drawer(ROOT, tmp_path / "cache", 1)
    (html,) = drawer.reports({folder: (set(), False)}).values()
    for v in ("java-threads", "java-virtual", "java-akka"):
        assert f'data-variant="{v}"' in html, v
    assert len(list((tmp_path / "cache").iterdir())) >= 1
    again = Drawer(ROOT, tmp_path / "cache", 1, say=lambda m: pytest.fail(f"drawn again: {m}"))
    assert again.reports({folder: (set(), False)}) == {folder: html}
