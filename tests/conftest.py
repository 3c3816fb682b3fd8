"""Shared helpers: run the real `skyhop` command line in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
TINY = DATA / "tiny.toml"


def skyhop_cli(*args: str, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    """Run `python -m skyhop ARGS...` and capture its output (text)."""
    env = dict(os.environ)
    env.pop("SKYHOP_DEBUG", None)
    env.pop("SKYHOP_PANIC_REPORT", None)
    return subprocess.run(
        [sys.executable, "-m", "skyhop", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        **kwargs,
    )


@pytest.fixture
def cli():
    return skyhop_cli


@pytest.fixture
def tiny() -> Path:
    return TINY
