"""Shared fixtures: the harness's context as the launcher builds it."""
import os
from pathlib import Path

import pytest

from tradebench_harness.run import context  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def ctx():
    env = dict(os.environ)
    env.setdefault("TB_ROOT", str(ROOT))
    return context.from_env(env)
