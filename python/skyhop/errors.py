"""The skyhop exception hierarchy (the one place that defines it).

The compiled core (``skyhop._core``) raises these classes directly, so every
error a user can cause surfaces as one of them, never as a Rust panic::

    SkyhopError(Exception)
    ├── ScenarioError(SkyhopError, ValueError)      bad scenario, file, --set, option,
    │                                               keyword argument of the Python API
    ├── SimulationError(SkyhopError, RuntimeError)  a run that could not complete
    ├── SweepError(SkyhopError, RuntimeError)       a sweep that cannot go on: a worker
    │                                               process killed from outside, a
    │                                               damaged store that cannot be redone
    ├── TableError(SkyhopError, LookupError)        a result table that no run has
    └── UsageError(SkyhopError)                     a command-line mistake (cli only)

The command line maps every one of them to one ``skyhop: error:`` line and
exit status 2; exit status 3 is reserved for bugs in skyhop itself.

Examples
--------
>>> import skyhop
>>> try:
...     skyhop.run({"nodes": {"A": {}, "B": {}},
...                 "links": {"ab": {"between": ["A", "B"], "rate": "1 Mbps", "delay": "5 ms"}},
...                 "flows": {"f": {"from": "A", "to": "Z"}}})
... except skyhop.ScenarioError as e:
...     print(e.key)
flows.f.to
"""

from __future__ import annotations

__all__ = [
    "ScenarioError",
    "SimulationError",
    "SkyhopError",
    "SweepError",
    "TableError",
    "UsageError",
]


class SkyhopError(Exception):
    """Base class of every error skyhop raises on purpose."""


class ScenarioError(SkyhopError, ValueError):
    """A scenario (file, dict, ``--set`` override or option) is invalid.

    Parameters
    ----------
    file : str
        The scenario file, or ``<dict>`` for a scenario given as a dict.
    key : str
        Dotted path of the offending key (e.g. ``links.wu.rate``); empty when
        the problem concerns the whole file (unreadable, malformed).
    message : str
        What is wrong, in words a user can act on.

    Notes
    -----
    ``str(error)`` is ``"FILE: KEY: MESSAGE"`` (``"FILE: MESSAGE"`` without a
    key): exactly what the command line prints after ``skyhop: error:``.
    """

    def __init__(self, file: str, key: str, message: str) -> None:
        self.file = file
        self.key = key
        self.message = message
        super().__init__(file, key, message)

    def __str__(self) -> str:
        parts = [p for p in (self.file, self.key, self.message) if p]
        return ": ".join(parts)

    def __reduce__(self):  # keep pickling (e.g. across processes) exact
        return (type(self), (self.file, self.key, self.message))


class SimulationError(SkyhopError, RuntimeError):
    """A run could not complete correctly.

    Parameters
    ----------
    message : str
        One-line description.
    kind : str
        ``"event_budget"`` (the run exceeded ``run.event_budget``),
        ``"byte_conservation"`` or ``"cache_overflow"`` (simulator invariants
        that failed: please report), ``"internal"`` (a caught panic: a bug),
        or ``"simulation"``.
    """

    def __init__(self, message: str, kind: str = "simulation") -> None:
        self.message = message
        self.kind = kind
        super().__init__(message, kind)

    def __str__(self) -> str:
        return self.message

    def __reduce__(self):
        return (type(self), (self.message, self.kind))


class SweepError(SkyhopError, RuntimeError):
    """A sweep could not go on, through no fault of its scenario.

    Raised when a worker process dies from outside (the out-of-memory
    killer, ``kill -9``), or when the sweep's directory holds something that
    cannot be repaired by redoing runs (an unreadable manifest, a damaged
    part that cannot be removed). Every finished (point, seed) stays saved:
    the message says whether ``--resume`` (``resume=True``) continues.

    Parameters
    ----------
    message : str
        One-line description.
    out : str
        The sweep's output directory.
    """

    def __init__(self, message: str, out: str = "") -> None:
        self.message = message
        self.out = out
        super().__init__(message, out)

    def __str__(self) -> str:
        return self.message

    def __reduce__(self):
        return (type(self), (self.message, self.out))


class TableError(SkyhopError, LookupError):
    """A result table asked for by name that no run of the results has
    (e.g. ``objects_frame()`` of runs without a web session). The message
    names the tables there are. Not a ``KeyError``: ``str(error)`` is the
    message as written."""


class UsageError(SkyhopError):
    """A command-line mistake (unknown option, bad option value, missing argument).

    Only the command line raises it; ``str(error)`` is the whole line printed
    after ``skyhop: error:``.
    """
