"""The ``skyhop`` command's signals from its first line of Python on.

A process started as the ``skyhop`` command (the console script, or
``python -m skyhop``) takes Ctrl-C and SIGTERM as "stop, keep what is
finished, exit 130" in every phase. The command's own handlers are set in
:func:`skyhop.cli.main`; before it runs, the package is still being
imported (tens of milliseconds on a busy machine), and a signal then would
kill the process with status 143 or print a traceback from the middle of an
import. So the package's first import, this module, calls
:func:`hold_signals`, which notes any SIGINT or SIGTERM that arrives while
the command starts, and ``main`` then exits 130 with its usual
``interrupted`` line. (A signal in the interpreter's own start-up, before
any of skyhop's code runs, still acts as the signal does.)

It does nothing in any other process (a library user's program, a sweep's
worker processes, Ray's workers): their signals are theirs. Only the
standard library is imported here.
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["command_handlers", "hold_signals", "is_command", "signals_at_startup"]

#: signals received while the command was starting
_RECEIVED: list[int] = []
_HELD = False


def is_command() -> bool:
    """Whether this process is the ``skyhop`` command (and not a program
    that imports skyhop, nor a worker process spawned by one)."""
    orig = list(getattr(sys, "orig_argv", []) or [])
    if "multiprocessing" in sys.modules:
        parent = getattr(sys.modules["multiprocessing"], "parent_process", None)
        if parent is not None and parent() is not None:
            return False  # a spawned worker, which has its parent's sys.argv
    if len(orig) > 1 and os.path.basename(orig[1]) in ("skyhop", "skyhop.exe"):
        return True  # the console script: python /path/bin/skyhop ...
    for i, arg in enumerate(orig[1:], start=1):
        if arg == "-mskyhop" or (arg == "-m" and orig[i + 1 : i + 2] == ["skyhop"]):
            return True
        if arg in ("-c", "-") or not arg.startswith("-"):
            break  # a program or a script comes first: not the command
    return False


def _note(signum: int, frame: object) -> None:
    _RECEIVED.append(signum)


def hold_signals() -> None:
    """In the ``skyhop`` command only, from now until :func:`command_handlers`:
    a SIGINT or SIGTERM is noted, not acted on (not even when the shell
    started the command with SIGINT ignored)."""
    global _HELD
    if _HELD or not is_command():
        return
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, _note)
    except ValueError:  # pragma: no cover - not the main thread
        return
    _HELD = True


def signals_at_startup() -> list[int]:
    """The signals noted while the command started (empty otherwise)."""
    return list(_RECEIVED)


def command_handlers(on_term: object) -> None:
    """The command's handlers: SIGINT raises KeyboardInterrupt (restored
    also where it was inherited ignored, as a shell does for a job started
    with ``&``), SIGTERM calls ``on_term``. Main thread only."""
    global _HELD
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, on_term)  # type: ignore[arg-type]
    _HELD = False


hold_signals()
