"""Resumable parameter sweeps: a grid of scenario variants x seeds, on local
processes or a Ray cluster.

Layout of a sweep's output directory (``docs/sweeps.md`` has the details)::

    DIR/sweep.json          what was swept (scenario, overrides, grid, runs, seeds);
                            checked by --resume so that a sweep is never mixed
    DIR/parts/pPPPPP-sSEED.json
                            one file per finished (point, seed): its identity
                            (point, seed, SHA-256 of the point's resolved
                            scenario), its result rows and tables with their
                            SHA-256, written the moment that run ends
                            (atomically: temp file + rename)
    DIR/results.parquet     one row per (point, seed, flow), sorted
    DIR/summary.parquet     one row per (point, flow, metric): mean, ci95, n
    DIR/summary.json        the same, per point: {"point", "set", "summary"}
    DIR/<table>.parquet     one per result table (legs, links, proxies, and
                            what applications report: objects, pages, ...)

The package's modules:

- :mod:`skyhop.sweep.base`: what the package itself holds (the backends' names,
  :class:`SweepInterrupted`);
- :mod:`skyhop.sweep.backend`: how runs are executed (:class:`SweepOptions`
  chooses a backend; the :class:`Backend` protocol runs a batch of runs
  with the library's pieces);
- :mod:`skyhop.sweep.grid`: the grid (values, their typed columns, points);
- :mod:`skyhop.sweep.store`: the part store (parts, their checks, the
  manifest, the assembly of the tables);
- :mod:`skyhop.sweep.local`: the local process pool;
- :mod:`skyhop.sweep.ray_backend`: the Ray glue;
- :mod:`skyhop.sweep.core`: :func:`run_sweep` and :func:`sweep`, which tie
  them together.

Importing this package loads none of them (so that ``skyhop run`` does not
pay for sweeps); each loads when first used. The package is a library: it
parses no command line and prints nothing; progress and warnings go to the
callbacks its caller passes.
"""

from __future__ import annotations

from .base import BACKENDS, SweepInterrupted, check_backend

TYPE_CHECKING = False  # `typing` for type checkers only (not imported by `skyhop run`)
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    import pandas as pd

__all__ = [
    "BACKENDS",
    "Backend",
    "SweepInterrupted",
    "SweepOptions",
    "check_backend",
    "compute_part",
    "parse_cases",
    "parse_grid",
    "run_sweep",
    "store_part",
    "sweep",
]


def sweep(
    scenario: Any,
    grid: Any,
    *,
    runs: int | None = None,
    seed: int | None = None,
    set: Any = None,
    out: Any = None,
    resume: bool = False,
    jobs: int | None = None,
    trace: bool = False,
    backend: str = "local",
    address: str | None = None,
    cases: Any = None,
) -> pd.DataFrame:
    """Run a scenario over a grid of parameter values and seeds.

    Parameters
    ----------
    scenario : str, path-like or dict
        The base scenario (TOML file or dict).
    grid : dict or sequence of str
        Swept dotted paths and their values, e.g.
        ``{"links.wu.per": [0.001, 0.005, 0.01], "flows.ftp.tcp": ["newreno", "westwood"]}``
        or ``["links.wu.per=0.001,0.005,0.01"]``; every combination
        (cartesian product) is one point. Each swept column of the tables
        has the type of the scenario key it sets (boolean, integer, number,
        string; an array or table value as its TOML text), the same from a
        dict and from ``PATH=V1,V2`` strings.
    runs : int, optional
        Seeds per point (default ``run.runs``); run i uses seed S + i.
    seed : int, optional
        Base seed S (default ``run.seed``).
    set : list of str or dict, optional
        Overrides applied to every point (before the grid's).
    out : str or path-like, optional
        Directory for the parts and tables (see the package doc); default: a
        temporary directory, removed afterwards.
    resume : bool, default False
        Continue the sweep already in ``out``, skipping finished (point, seed).
    jobs : int, optional
        Worker processes (default: all CPUs); on Ray, runs in flight at once
        (default: twice the cluster's CPUs).
    trace : bool, default False
        Record time series and write ``out/traces.parquet``: one row per
        sample, ``point``, one column per swept path, ``run, seed, flow,
        leg, series, t_s, value`` (needs ``out``). Its path is in
        ``df.attrs["traces"]``.
    backend : {"local", "ray"}, default "local"
        Where the runs go: worker processes of this machine, or tasks on a
        Ray cluster (``pip install 'skyhop[ray]'``). The parts and tables
        are the same either way, so a sweep may be resumed on the other.
    address : str, optional
        The Ray cluster (``HOST:PORT``, ``ray://HOST:PORT`` or ``auto``);
        default: the cluster this process is connected to, ``RAY_ADDRESS``,
        or a new local Ray instance.
    cases : dict, optional
        Named sets of settings that go together, ``{"split": {"flows.f.proxies":
        ["P"], "flows.f.legs": ["cubic", "bbr"]}, "end to end": {...}}``:
        one more swept column, ``case``, crossed with the grid (which may
        then be empty). Every point is validated with everything applied
        (``set``, its case, its grid values), so a ``set`` value whose
        required partner is swept is accepted.

    Returns
    -------
    pandas.DataFrame
        One row per (point, seed, flow): ``point``, one column per swept path,
        ``seed``, ``flow`` and every scalar FlowResult field. With ``out``,
        ``df.attrs["tables"]`` maps each result table found (``legs``,
        ``links``, ``proxies``, ``objects``, ...) to its ``<name>.parquet``.

    Raises
    ------
    ScenarioError
        A bad scenario, grid value or argument (``key`` names it).
    SimulationError
        A run could not complete.
    SweepError
        A worker process was killed from outside, or ``out`` holds a sweep
        that cannot be resumed; finished runs stay in ``out``.
    SweepInterrupted
        (a ``KeyboardInterrupt``) on Ctrl-C; finished runs stay in ``out``.

    Damaged parts found by ``resume`` are redone, each with a
    ``RuntimeWarning`` naming the file.

    Examples
    --------
    >>> df = skyhop.sweep("scenarios/e1_haps.toml",  # doctest: +SKIP
    ...                   {"links.wu.per": [0.001, 0.01]}, runs=5)
    >>> df.groupby("links.wu.per")["completion_time_s"].mean()  # doctest: +SKIP
    """
    from .backend import SweepOptions
    from .core import sweep_frame

    return sweep_frame(
        scenario,
        grid,
        runs=runs,
        seed=seed,
        set=set,
        out=out,
        resume=resume,
        options=SweepOptions(backend, address, jobs),  # checked here, once
        trace=trace,
        cases=cases,
    )


def run_sweep(scenario: Any, grid: Any, **kwargs: Any) -> dict[str, Any]:
    """Run a sweep into ``out`` (:func:`skyhop.sweep.core.run_sweep`)."""
    from .core import run_sweep as _run_sweep

    return _run_sweep(scenario, grid, **kwargs)


_LAZY = {
    "Backend": "backend",
    "SweepOptions": "backend",
    "parse_cases": "grid",
    "parse_grid": "grid",
    "compute_part": "store",
    "store_part": "store",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
