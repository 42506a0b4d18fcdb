"""The docs stay reference, within their sizes: every docs/*.md and every module's README (a first-level folder's
README.md, harness/README.md among them) at most REFERENCE_LINES lines, and every dated results folder's README.md
(docs/results/*/README.md: the question, the command, the machine and layout, the figures, what they show) at most
RESULTS_README_LINES; a folder's dated notebook goes out of the tree, named by the commit that holds it. The root
README.md is not counted here: its first screen is held by test_readme_figures.py. Each check names every file over
its limit, and the last test shows that the check refuses a long file."""
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: a reference page or a module's README: what a reader looks one thing up in
REFERENCE_LINES = 250
#: a results folder's README has one shape of five parts in "about 80 lines"; every one keeps to 80, so 80 it is
RESULTS_README_LINES = 80


def tracked(pattern: str, root: Path = ROOT) -> list[Path]:
    """The tracked files PATTERN names, `*` within one folder (git's glob magic: `docs/*.md` is not docs/results')."""
    out = subprocess.run(["git", "ls-files", "-z", "--", f":(glob){pattern}"], cwd=root, capture_output=True,
                         check=True)
    return [root / p for p in out.stdout.decode().split("\0") if p]


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def too_long(files: list[Path], limit: int, root: Path = ROOT) -> list[str]:
    """'file: N lines' for every one of FILES longer than LIMIT lines."""
    return [f"{f.relative_to(root)}: {n} lines" for f in files if (n := lines(f)) > limit]


def test_every_docs_page_is_at_most_250_lines():
    pages = tracked("docs/*.md")
    assert len(pages) > 10, "git ls-files found hardly any docs/*.md: not a checkout?"
    over = too_long(pages, REFERENCE_LINES)
    assert not over, (f"docs pages over {REFERENCE_LINES} lines (split one by topic, or tighten what repeats "
                      "itself):\n" + "\n".join(over))


def test_every_module_readme_is_at_most_250_lines():
    readmes = tracked("*/README.md")
    assert ROOT / "harness" / "README.md" in readmes and len(readmes) > 5, readmes
    over = too_long(readmes, REFERENCE_LINES)
    assert not over, f"module READMEs over {REFERENCE_LINES} lines:\n" + "\n".join(over)


def test_every_results_readme_is_at_most_80_lines():
    readmes = tracked("docs/results/*/README.md")
    assert len(readmes) > 10, readmes
    over = too_long(readmes, RESULTS_README_LINES)
    assert not over, (f"results READMEs over {RESULTS_README_LINES} lines (the question, the command, the machine "
                      "and layout, the figures, what they show; the notebook out of the tree, named by its commit):\n"
                      + "\n".join(over))


def test_the_check_refuses_a_long_file(tmp_path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "docs" / "results" / "2026-01-01-run").mkdir(parents=True)
    files = {"docs/long.md": REFERENCE_LINES + 1, "docs/fits.md": REFERENCE_LINES,
             "docs/results/2026-01-01-run/README.md": RESULTS_README_LINES + 1}
    for name, n in files.items():
        (tmp_path / name).write_text("".join(f"line {k}\n" for k in range(n)), encoding="utf-8")
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True)
    pages = tracked("docs/*.md", tmp_path)
    assert sorted(p.name for p in pages) == ["fits.md", "long.md"], "docs/*.md reaches into docs/results"
    assert too_long(pages, REFERENCE_LINES, tmp_path) == [f"docs/long.md: {REFERENCE_LINES + 1} lines"]
    readme = tracked("docs/results/*/README.md", tmp_path)
    assert too_long(readme, RESULTS_README_LINES, tmp_path) == [
        f"docs/results/2026-01-01-run/README.md: {RESULTS_README_LINES + 1} lines"]
