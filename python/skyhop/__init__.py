"""skyhop — a fast, exact packet-level simulator of TCP over hybrid satellite networks.

Describe a network in a TOML file (or a dict), run it over independent seeds,
get transfer times and goodput with 95 % confidence intervals.

Examples
--------
>>> import skyhop
>>> res = skyhop.run("scenarios/e1_haps.toml", runs=5)  # doctest: +SKIP
>>> res.summary()["ftp"]["completion_time_s"]  # doctest: +SKIP
{'mean': ..., 'ci95': ..., 'n': 5}
>>> df = res.to_pandas()  # doctest: +SKIP
"""

from __future__ import annotations

# First, before the engine and the rest load: importing it holds the
# `skyhop` command's Ctrl-C and SIGTERM while it starts (nothing elsewhere).
from . import _startup  # noqa: F401  (isort: keep it first)
from ._core import version as _engine_version
from .api import Results, Scenario, describe, load_scenario, run
from .errors import ScenarioError, SimulationError, SkyhopError, SweepError, TableError
from .sweep import (
    SweepInterrupted,
    sweep,  # the function; the module stays importable as skyhop.sweep
)

__version__: str = _engine_version()

__all__ = [
    "Results",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "SkyhopError",
    "SweepError",
    "SweepInterrupted",
    "TableError",
    "__version__",
    "describe",
    "load_scenario",
    "run",
    "sweep",
]
