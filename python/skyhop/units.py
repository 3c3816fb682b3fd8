"""Quantities with units on the Python side: the engine's own parsers.

A duration given to a command-line option (``--duration 120s``,
``--packet-log-window 10s,20s``) or read back from a resolved scenario is
parsed by the engine (``skyhop._core.parse_duration``), so it accepts
exactly what a scenario file accepts (``"120 s"``, ``"120s"``, ``"500 ms"``,
``"2 min"``) and refuses the rest with the engine's words.

Only the standard library and the compiled core are imported here.
"""

from __future__ import annotations

from .errors import ScenarioError

__all__ = ["duration_s"]


def duration_s(text: object, key: str = "duration", file: str = "<options>") -> float:
    """Seconds of a duration with a unit, as the engine reads it.

    Raises ScenarioError(file, key, message) with the engine's message for
    anything the engine refuses (no unit, an unknown unit, a negative value).

    >>> duration_s("120s"), duration_s("120 s"), duration_s("2 min")
    (120.0, 120.0, 120.0)
    """
    from . import _core

    if not isinstance(text, str):
        raise ScenarioError(
            file, key, f'expected a duration with a unit, e.g. "120 s", got {text!r}'
        )
    return _core.parse_duration(text, key, file)
