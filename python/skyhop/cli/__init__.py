"""The ``skyhop`` command line.

Contract (relied upon by other tools; documented in README.md):

``skyhop run SCENARIO.toml [--runs N] [--seed S] [--set PATH=VALUE ...] [--json]
[--out FILE.parquet|FILE.csv] [--trace] [--jobs J]``

- ``--json`` prints exactly one JSON document on stdout:
  ``{"scenario": {...}, "runs": [{"seed": S, "flows": {NAME: {...}}, ...}],
  "summary": {NAME: {METRIC: {"mean": M, "ci95": H, "n": K}}}}``.
- Bad input prints one line ``skyhop: error: FILE: KEY: problem`` on stderr
  and exits with status 2; never a traceback.
- Exit status: 0 success, 2 bad input, failed run or a sweep worker killed
  from outside, 3 internal error (a bug), 130 interrupted.

This package owns all argument parsing (:mod:`skyhop.cli.parser`); the
commands (:mod:`skyhop.cli.commands`, :mod:`skyhop.cli.live`) call the
libraries (:mod:`skyhop.api`, :mod:`skyhop.sweep`, :mod:`skyhop.bench`,
:mod:`skyhop.experiments`, :mod:`skyhop.live`) and write through
:mod:`skyhop._output`.
"""

from __future__ import annotations

import os
import sys

from .. import _output as output
from .commands import run_document
from .common import EXIT_ERROR, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK
from .parser import build_parser

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = [
    "EXIT_ERROR",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "build_parser",
    "main",
    "run_document",
]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``skyhop`` command; returns the exit status."""
    if not _standard_streams():
        output.error_line(
            "standard output is closed (>&-): nowhere to write the results; "
            "redirect it to /dev/null to discard them"
        )
        return EXIT_ERROR
    output.robust_streams()
    if _terminate_like_ctrl_c():
        output.info_line("interrupted")
        return EXIT_INTERRUPTED
    _one_line_warnings_and_thread_errors()
    try:
        from ..errors import SkyhopError
    except ImportError as e:  # pragma: no cover - broken install
        output.error_line(f"cannot load the skyhop engine: {e}")
        return EXIT_INTERNAL
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except SkyhopError as e:  # bad input, failed run, lost worker, bad option
        output.error_line(str(e))
        return EXIT_ERROR
    except KeyboardInterrupt:
        output.info_line("interrupted")
        _exit_now_if_runs_in_flight(EXIT_INTERRUPTED)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # e.g. `skyhop run ... --json | head`: not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as e:
        name = f"{e.filename}: " if e.filename else ""
        output.error_line(f"{name}{e.strerror or e}")
        return EXIT_ERROR
    except MemoryError:
        output.error_line("out of memory (fewer --jobs or --runs at once may help)")
        return EXIT_ERROR
    except Exception as e:  # a bug in skyhop itself
        if os.environ.get("SKYHOP_DEBUG"):
            raise
        output.error_line_internal(e)
        return EXIT_INTERNAL


def _terminate_like_ctrl_c() -> bool:
    """SIGTERM stops a command as Ctrl-C does, in every phase: runs cancelled,
    what is finished kept, ``interrupted`` and exit status 130; Ctrl-C does
    so even where the command inherited SIGINT ignored (a shell's ``&`` job).
    True when either arrived while the command was starting
    (:mod:`skyhop._startup`)."""
    import threading

    from .._startup import command_handlers, signals_at_startup

    if threading.current_thread() is not threading.main_thread():
        return False

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    command_handlers(on_term)
    return bool(signals_at_startup())


def _one_line_warnings_and_thread_errors() -> None:
    """A Python warning is one ``skyhop: warning:`` line, not the two lines
    of :mod:`warnings`; an exception ending a background thread (a progress
    display, a pool's manager stopped by Ctrl-C) is not printed as a
    traceback: one internal-error line, or nothing when it is the
    interruption itself."""
    import threading
    import warnings

    def show(message: Any, category: Any, filename: str, lineno: int, *rest: Any) -> None:
        output.warning_line(str(message))

    def thread_error(hook: Any) -> None:
        if hook.exc_type is None or issubclass(
            hook.exc_type, (KeyboardInterrupt, SystemExit, BrokenPipeError)
        ):
            return
        if os.environ.get("SKYHOP_DEBUG"):
            threading.__excepthook__(hook)
            return
        name = getattr(hook.thread, "name", "a thread")
        output.error_line_internal(hook.exc_value or hook.exc_type(f"in {name}"))

    warnings.showwarning = show
    threading.excepthook = thread_error


def _standard_streams() -> bool:
    """Put /dev/null behind a closed standard descriptor (``2>&-``), so that
    no file skyhop opens later takes its number and receives its output;
    False when it was standard output."""
    closed = []
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            setattr(sys, name, open(fd, "w" if fd else "r", closefd=False))
            closed.append(fd)
    return 1 not in closed


def _exit_now_if_runs_in_flight(status: int) -> None:
    """After Ctrl-C, simulations still running in background threads (the
    engine cannot be stopped mid-run yet) must not delay or disturb the exit:
    leave at once, output flushed."""
    import threading

    if any(t.name == "skyhop-run" and t.is_alive() for t in threading.enumerate()):
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
