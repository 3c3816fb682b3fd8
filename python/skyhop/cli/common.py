"""What the command's modules share: exit statuses, the parser class and
the argument types."""

from __future__ import annotations

import argparse

from ..errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import NoReturn

EXIT_OK = 0
EXIT_ERROR = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _run_count(text: str) -> int:
    """``--runs``: a whole number from 1 to the cap of ``run.runs``."""
    from .._core import MAX_RUNS

    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_RUNS:
        raise argparse.ArgumentTypeError(
            f"expected a whole number from 1 to {MAX_RUNS}, got {text!r}"
        )
    return value


def _seed(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an integer in 0..2^64-1, got {text!r}"
        ) from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"expected an integer in 0..2^64-1, got {text!r}")
    return value
