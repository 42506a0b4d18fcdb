"""PASS/FAIL/SKIP steps of the test commands: each is said on stderr ("tradebench: PASS ...") and
counted; `./tradebench test` (testrun.py) passes one Steps through all of its parts."""
from __future__ import annotations

import sys


class Steps:
    def __init__(self) -> None:
        self.passed = 0
        self.skipped = 0
        self.failed: list[str] = []

    def _say(self, word: str, name: str) -> None:
        print(f"tradebench: {word} {name.replace(chr(10), ' ')}", file=sys.stderr, flush=True)

    def ok(self, name: str) -> None:
        self.passed += 1
        self._say("PASS", name)

    def fail(self, name: str) -> None:
        self.failed.append(name.replace("\n", " "))
        self._say("FAIL", name)

    def skip(self, name: str) -> None:
        self.skipped += 1
        self._say("SKIP", name)

    def close(self, title: str) -> int:
        """Prints the failures and the count (TITLE: N passed, N failed, N skipped); 1 when a step failed."""
        print()
        for f in self.failed:
            print(f"failed: {f}")
        print(f"{title}: {self.passed} passed, {len(self.failed)} failed, {self.skipped} skipped", flush=True)
        return 1 if self.failed else 0
