"""PASS/FAIL steps of the test commands, as ./tradebench test counts them.

Each step is said on stderr ("tradebench: PASS ...") and, with --steps-file,
appended to that file as one line "PASS name" or "FAIL name": the launcher
adds them to its own count.
"""
from __future__ import annotations

import sys
from pathlib import Path


class Steps:
    def __init__(self, file: str | None = None):
        self.file = Path(file) if file else None
        self.passed = 0
        self.failed: list[str] = []

    def _write(self, word: str, name: str) -> None:
        line = name.replace("\n", " ")
        print(f"tradebench: {word} {line}", file=sys.stderr, flush=True)
        if self.file:
            with open(self.file, "a") as f:
                f.write(f"{word} {line}\n")

    def ok(self, name: str) -> None:
        self.passed += 1
        self._write("PASS", name)

    def fail(self, name: str) -> None:
        self.failed.append(name)
        self._write("FAIL", name)

    def close(self, title: str) -> int:
        if not self.file:
            print()
            for f in self.failed:
                print(f"failed: {f}")
            print(f"{title}: {self.passed} passed, {len(self.failed)} failed")
        return 1 if self.failed else 0
