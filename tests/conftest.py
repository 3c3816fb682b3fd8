"""Shared helpers: run the real `skyhop` command line in a subprocess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

# A test run started in the background of a non-interactive shell inherits
# SIGINT ignored, and so would every skyhop process the tests start (Python
# keeps an inherited SIG_IGN): the Ctrl-C tests would then test nothing.
# A handled signal is reset to its default in a child at exec.
signal.signal(signal.SIGINT, signal.default_int_handler)

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
TINY = DATA / "tiny.toml"


def skyhop_cli(
    *args: str, timeout: float = 300, env: dict | None = None, **kwargs
) -> subprocess.CompletedProcess:
    """Run `python -m skyhop ARGS...` and capture its output (text)."""
    env = dict(os.environ if env is None else env)
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


def without_progress(stderr: str) -> list[str]:
    """The lines of stderr other than the `skyhop: progress:` lines a sweep
    or an experiment prints while it runs (stderr not being a terminal)."""
    return [line for line in stderr.splitlines() if not line.startswith("skyhop: progress: ")]


def assert_one_line_error(proc, *must_contain: str) -> str:
    """A bad input: exit 2, nothing on stdout, one `skyhop: error:` line on
    stderr containing every text given (after the progress lines of a sweep
    that had started), and no traceback or panic."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = without_progress(proc.stderr)
    assert len(lines) == 1, proc.stderr
    line = lines[0]
    assert line.startswith("skyhop: error: "), line
    for text in must_contain:
        assert text in line, (text, line)
    for bad in ("Traceback", "panicked", "RUST_BACKTRACE"):
        assert bad not in proc.stderr
    return line
