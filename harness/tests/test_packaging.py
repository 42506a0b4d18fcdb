"""The harness installed as a package, not from the tree: every data file the model reads at run time (each
calibrated-*.json set, parameters.json, holdout.json) is in the wheel, and each set loads from the installed
copy. An install that is not editable must not silently lose a set."""
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

HARNESS = Path(__file__).resolve().parents[1]
MODEL = HARNESS / "tradebench_harness" / "model"


def test_the_wheel_carries_every_file_of_the_models_data_and_each_set_loads_from_it(tmp_path):
    # built from a copy: a build in the tree leaves build/ and an egg-info behind
    src = tmp_path / "src"
    shutil.copytree(HARNESS / "tradebench_harness", src / "tradebench_harness",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for f in ("pyproject.toml", "requirements.txt"):
        shutil.copy(HARNESS / f, src / f)
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                        str(tmp_path), str(src)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    data = sorted(p.name for p in MODEL.glob("*.json"))
    assert any(n.startswith("calibrated-") for n in data)
    missing = [n for n in data if f"tradebench_harness/model/{n}" not in names]
    assert not missing, f"not in the wheel: {missing}"
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from tradebench_harness.model import params; "
            "import tradebench_harness.model as m; assert m.__file__.startswith(sys.argv[1]), m.__file__; "
            "print(len(params.shipped_calibrations()))")
    out = subprocess.run([sys.executable, "-c", code, str(site)], capture_output=True, text=True, timeout=60,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert int(out.stdout.strip()) >= len([n for n in data if n.startswith("calibrated-")])
