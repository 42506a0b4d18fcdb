"""The README's answer cannot drift from its evidence: every figure its first screen states is computed here from
the committed run it links to (that run's results.json, or the isolation record), with the harness's own
reading of it, and must appear as written (rounded as the sentence rounds it) in the same bullet as the link.
A figure that a new run changes, or a link that moves to another run, fails here until the sentence says what
the run measured."""
import gzip
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tradebench_harness.analysis import stats
from tradebench_harness.report import isolation

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"
SLOW_PHASES = ("view-slow", "db-slow", "view-down")
#: the isolation rows the first bullet does not speak of: the 2012 store it contrasts, and Resilience4j's row
NOT_KEPT_UNDER = {"java-threads-2012", "java-threads-resilience4j"}


def the_answer() -> list[str]:
    """The bullets of README's "## The answer", each joined into one line."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## The answer", 1)[1].split("\n## ", 1)[0]
    return [" ".join(b.split()) for b in re.split(r"\n- ", "\n" + section.split("\n\n![", 1)[0].strip()) if b.strip()]


def isolation_orders(folder: str) -> dict[str, dict[str, float]]:
    doc = json.loads(gzip.open(RESULTS / folder / "isolation.json.gz").read())
    return {r["label"]: {p["phase"]: p["p99"] for p in r["types"]["order"]} for r in isolation.figures(doc)}


def cell(folder: str, variant: str, latency_ms: float) -> dict[str, Any]:
    doc = json.loads((RESULTS / folder / "results.json").read_text())
    (run,) = [r for r in doc["runs"] if r["series"] == variant and r["dbLatencyMs"] == latency_ms]
    return run


def sales_median(folder: str, row_label: str) -> float:
    """The median sales/min of the row the summary labels ROW_LABEL (a variant, or a variant and its row)."""
    doc = json.loads((RESULTS / folder / "results.json").read_text())
    (row,) = [r for r in stats.summarize(doc["runs"]) if r["variant"] == row_label]
    return float(row["salesPerMinute"]["median"])


def _isolation_2012() -> list[str]:
    p99 = isolation_orders("2026-12-01-isolation")["java-threads-2012"]
    return [f"a p99 of {p99['healthy']:.1f} ms to {p99['view-slow'] / 1000:.1f} s"]


def _isolation_kept() -> list[str]:
    rows = isolation_orders("2026-12-01-isolation")
    worst = max(p[ph] for label, p in rows.items() if label not in NOT_KEPT_UNDER for ph in SLOW_PHASES)
    bound = int(worst) + 1
    return [f"kept them under {bound} ms"]


def _little() -> list[str]:
    virtual, threads = (cell("2026-11-24-latency-sweep", v, 20) for v in ("java-virtual", "java-threads"))
    assert round(virtual["rttMs"]) == 21
    return [f"at a {round(virtual['rttMs'])} ms round trip java-virtual stores {virtual['salesPerMinute']:,.0f} "
            f"sales/min, java-threads' 4 engines {threads['salesPerMinute']:,.0f}"]


def _blocking() -> list[str]:
    virtual, spray = (cell("2026-11-24-latency-sweep", v, 20) for v in ("java-virtual", "java-spray-async"))
    return [f"stores {virtual['salesPerMinute'] / spray['salesPerMinute']:.2f} of the asynchronous java-spray-async at 20 ms"]


def _tie() -> list[str]:
    f = "2026-11-27-compare-isolated"
    v, a, t = (sales_median(f, x) / 1e6 for x in ("java-virtual", "java-akka", "java-threads"))
    return [f"java-virtual {v:.2f} million sales/min, java-akka {a:.2f} and java-threads {t:.2f}"]


def _node() -> list[str]:
    f = "2026-11-25-compare-batch"
    ratio = sales_median(f, "node-engine WORKERS=threads") / sales_median(f, "node-engine")
    return [f"{ratio:.2f} times the sales of child processes"]


#: each bullet's run (the folder its link names) and the figures computed from it
CLAIMS: list[tuple[str, str, Callable[[], list[str]]]] = [
    ("A slow dependency stalls", "2026-12-01-isolation", lambda: _isolation_2012() + _isolation_kept()),
    ("Behind a slower database", "2026-11-24-latency-sweep", _little),
    ("Blocking code is not the problem", "2026-11-24-latency-sweep", _blocking),
    ("Next door, the JVM designs tie", "2026-11-27-compare-isolated", _tie),
    ("For Node.js, worker threads beat", "2026-11-25-compare-batch", _node),
]


@pytest.mark.parametrize("opening, folder, figures", CLAIMS, ids=[c[0] for c in CLAIMS])
def test_each_figure_of_the_answer_is_what_its_linked_run_measured(opening, folder, figures):
    (bullet,) = [b for b in the_answer() if opening in b]
    assert f"(docs/results/{folder}/README.md)" in bullet, f"the bullet links another run: {bullet}"
    for stated in figures():
        assert stated in bullet, f"the run says {stated!r}; the README says: {bullet}"


def test_every_bullet_of_the_answer_is_checked_and_every_linked_run_exists():
    bullets = the_answer()
    assert len(bullets) <= 5, "the answer is at most five sentences"
    assert all(any(c[0] in b for c in CLAIMS) for b in bullets), "a bullet of the answer no claim here checks"
    for _, folder, _ in CLAIMS:
        assert (RESULTS / folder / "README.md").is_file(), folder


def test_a_changed_figure_fails_the_check(monkeypatch):
    """The check can fail: the README with one figure changed is refused."""
    text = (ROOT / "README.md").read_text()
    stated = _little()[0]
    assert stated in " ".join(text.split())
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: text.replace("171,988", "171,989")
                        if self.name == "README.md" else Path.open(self).read())
    (bullet,) = [b for b in the_answer() if "Behind a slower database" in b]
    assert stated not in bullet


# --- the rest of the README: the chart's caption is the run's settings, and no other section states a measurement

def _caption() -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split("## The answer", 1)[1].split("\n## ", 1)[0]
    return " ".join(section.split("\n\n![", 1)[1].split("\n\n", 1)[1].split())


def test_the_charts_caption_states_the_runs_phases():
    doc = json.loads(gzip.open(RESULTS / "2026-12-01-isolation" / "isolation.json.gz").read())
    reads = {p["name"]: p["reads"] for p in doc["experiment"]["phases"]}
    caption = _caption()
    assert "(docs/results/2026-12-01-isolation/README.md)" in caption
    assert f"healthy (+{reads['healthy']} ms)" in caption
    assert f"slow (+{reads['view-slow'] // 1000} s)" in caption
    assert f"the whole database slow (+{reads['db-slow'] // 1000} s)" in caption
    assert reads["view-down"] == "down"
    assert f"down ({doc['experiment']['load']['viewTimeoutMs'] // 1000} s, then an error)" in caption


#: a figure of a measured quantity: a number and its unit
MEASURED = re.compile(r"(?<![\w.])[0-9][0-9,]*(?:\.[0-9]+)?(?:–[0-9][0-9,.]*)?\s?"
                      r"(?:sales/min|sales/s|orders/s|rows/s|ms\b|µs|ns\b|GB|MB|%|times\b|million|cores\b)")
#: the figures outside the answer that are settings, not measurements: each with why it may stand there
SETTINGS = {
    "95 %": "the level of every interval",
    "±5 %": "the compare's stop rule: fresh processes until each figure is within it",
}


def figures_outside_the_answer(text: str) -> list[str]:
    """Every figure of a measured quantity README.md states outside "## The answer": code blocks, inline code and
    link targets removed first (commands and paths are not statements)."""
    rest = text.split("## The answer", 1)[0] + "\n## " + text.split("## The answer", 1)[1].split("\n## ", 1)[1]
    rest = re.sub(r"```.*?```", "", rest, flags=re.S)
    rest = re.sub(r"`[^`]*`", "", rest)
    rest = re.sub(r"\]\([^)]*\)", "]", rest)
    return [m.group(0) for m in MEASURED.finditer(rest) if m.group(0) not in SETTINGS]


def test_no_figure_is_stated_outside_the_answer():
    """The answer's figures are checked above; the rest of the README states none (they live in docs/answer.md,
    beside their runs), so none can drift unchecked."""
    assert figures_outside_the_answer((ROOT / "README.md").read_text()) == []


def test_a_measured_figure_further_down_is_found():
    text = (ROOT / "README.md").read_text().replace("## The variants\n", "## The variants\n\nIt stores 1.2 million sales/min.\n")
    assert figures_outside_the_answer(text) == ["1.2 million"]
