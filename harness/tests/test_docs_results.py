"""docs/results keeps to its written rule (docs/results/README.md, "What a dated folder keeps"): at most 3.5 MiB
by apparent size, as `du -s --apparent-size` counts it, and none of what a run makes again."""
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"
MOST_BYTES = int(3.5 * 1024 * 1024)
#: what `report` draws again, and the runs' logs
NOT_KEPT = re.compile(r"(^|/)(report\.html|runs\.csv|runs/|calibration/)|\.(log|hgrm)$|profile/[^/]*\.html$")


def apparent_size(folder: Path) -> int:
    """The bytes `du -s --apparent-size --block-size=1 FOLDER` counts: every file's and folder's own size."""
    total = folder.lstat().st_size
    for parent, dirs, files in os.walk(folder):
        total += sum((Path(parent) / n).lstat().st_size for n in dirs + files)
    return total


def test_docs_results_is_at_most_3_mib_by_apparent_size():
    size = apparent_size(RESULTS)
    assert size <= MOST_BYTES, (f"docs/results is {size / 2 ** 20:.2f} MiB, more than 3.5 MiB: remove what a new "
                                "measurement supersedes (docs/results/README.md, \"What a dated folder keeps\")")


def test_the_size_is_dus(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f").write_bytes(b"x" * 1000)
    (tmp_path / "g").write_bytes(b"y" * 24)
    assert apparent_size(tmp_path) == 1024 + tmp_path.lstat().st_size + (tmp_path / "a").lstat().st_size


def test_no_dated_folder_keeps_what_a_run_makes_again():
    kept = [str(p.relative_to(RESULTS)) + ("/" if p.is_dir() else "") for p in RESULTS.rglob("*")]
    assert not [k for k in kept if NOT_KEPT.search(k)]
