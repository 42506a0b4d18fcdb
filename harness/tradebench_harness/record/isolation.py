"""The isolation experiment's results document, `isolation.json.gz` (docs/results-format.md, "isolation"): the
experiment as it ran (load, phases, rows), the environment, and each row's record (measure/isolation.py
`RowResult.record`). Written once, when every row is measured; read back by `./tradebench report FOLDER`."""

import gzip
import json
from pathlib import Path
from typing import Any

#: gzip'd: a row keeps the load client's per-second figures of both request types (the time-series chart's)
FILE = "isolation.json.gz"
SCHEMA_VERSION = 1


def write(folder: Path, doc: dict[str, Any]) -> Path:
    path = folder / FILE
    path.write_bytes(gzip.compress(json.dumps({"schemaVersion": SCHEMA_VERSION, **doc}, separators=(",", ":")).encode(),
                                   mtime=0))
    return path


def read(folder: Path) -> dict[str, Any]:
    path = folder / FILE
    doc: dict[str, Any] = json.loads(gzip.decompress(path.read_bytes()))
    missing = [k for k in ("experiment", "rows", "environment") if k not in doc]
    if missing:
        raise ValueError(f"{path}: no {', '.join(missing)}")
    return doc
