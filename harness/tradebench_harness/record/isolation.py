"""The isolation experiment's results document, `isolation.json` (docs/results-format.md, "isolation"): the
experiment as it ran (load, phases, rows), the environment, and each row's record (measure/isolation.py
`RowResult.record`). Written once, when every row is measured; read back by `./tradebench report FOLDER`."""

import json
from pathlib import Path
from typing import Any

FILE = "isolation.json"
SCHEMA_VERSION = 1


def write(folder: Path, doc: dict[str, Any]) -> Path:
    path = folder / FILE
    path.write_text(json.dumps({"schemaVersion": SCHEMA_VERSION, **doc}, separators=(",", ":")))
    return path


def read(folder: Path) -> dict[str, Any]:
    path = folder / FILE
    doc: dict[str, Any] = json.loads(path.read_text())
    missing = [k for k in ("experiment", "rows", "environment") if k not in doc]
    if missing:
        raise ValueError(f"{path}: no {', '.join(missing)}")
    return doc
