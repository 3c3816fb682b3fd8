"""A sweep from start to tables: validate the grid, check the store, run
what is missing on a backend, assemble (:func:`run_sweep`, :func:`sweep_frame`).

Run i (0-based) of every point uses seed S + i, so points are compared on
common random numbers. An interrupted sweep (Ctrl-C, SIGTERM, a crash, a
killed worker) continues with ``resume``: every part is checked against its
identity and checksum, good parts are kept and skipped, damaged, empty or
misplaced ones are redone (with a warning), nothing is run twice and no row is
lost or duplicated. The tables are replaced only by a complete assembly.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import _core
from .._output import check_writable_dir, write_text_atomic
from ..api import (
    Scenario,
    ScenarioSource,
    SetOverrides,
    _set_strings,
    check_bool,
    check_int,
    check_runs,
    check_seeds,
    default_jobs,
)
from ..errors import ScenarioError, SweepError
from .backend import Backend, Batch, Pieces, SweepOptions
from .base import SweepInterrupted
from .grid import CASE, GridSpec, build_points, parse_cases, parse_grid
from .local import LocalBackend, Terminated, WorkerLost, at_point
from .store import (
    MANIFEST,
    PARTS,
    TRACES,
    assemble,
    check_resume,
    compute_part,
    manifest_of,
    part_name,
    scan_parts,
    store_part,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["backend_of", "run_sweep", "sweep_frame"]

Reporter = Callable[[str], None]


def run_sweep(
    scenario: ScenarioSource,
    grid: GridSpec,
    *,
    out: str | os.PathLike[str],
    runs: int | None = None,
    seed: int | None = None,
    set: SetOverrides = None,
    resume: bool = False,
    options: SweepOptions | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    on_warning: Reporter | None = None,
    trace: bool = False,
    trace_options: dict[str, Any] | None = None,
    cases: Any = None,
) -> dict[str, Any]:
    """Run a sweep into ``out``; return ``{"done", "skipped", "total", "out",
    "tables"}`` (``tables``: ``{name: path}`` of the result tables written;
    with ``trace`` also ``"traces"``, the path of ``traces.parquet``).

    ``on_progress(done, total)`` is called once with the runs already done
    (skipped by ``resume``) and after every finished (point, seed);
    ``on_warning(message)`` receives each warning (a redone or ignored part;
    on Ray, a run that failed). ``options`` says where the runs go and how
    many at once (:class:`~skyhop.sweep.base.SweepOptions`; default: local
    worker processes, one per CPU). ``trace_options``: the traces
    thinned (``{"trace_every_s": seconds, "trace_series": [quantities]}``,
    as ``skyhop sweep --trace-every/--trace-series``; implies ``trace``).
    ``cases``: named sets of settings applied together
    (:func:`skyhop.sweep.grid.parse_cases`), one more swept column,
    ``case``, crossed with the grid.
    Raises SweepInterrupted (a
    KeyboardInterrupt) on Ctrl-C or SIGTERM, SweepError when a worker dies
    from outside, the cluster cannot be reached or (on Ray) some runs
    failed; finished parts are kept in every case.
    """
    resume = check_bool("resume", resume)
    trace = check_bool("trace", trace)
    if trace_options:
        # the engine's thinning, carried where a bare True goes otherwise
        trace = dict(trace_options)  # type: ignore[assignment]
    options = options or SweepOptions()
    if runs is not None:
        check_runs(runs)
    if seed is not None:
        check_int("seed", seed, minimum=0)
    if not isinstance(out, (str, os.PathLike)):
        raise ScenarioError("<options>", "out", f"must be a directory path, got {out!r}")
    warn = on_warning or (lambda _m: None)

    base_sets = _set_strings(set)
    case_list = parse_cases(cases)
    parsed = parse_grid(grid) if grid or not case_list else []
    # Validate every point up front, each with everything applied (a --set
    # whose partner the grid sweeps is checked with it): a bad grid path
    # fails before any run. The first point gives the run's defaults.
    loaded_of: dict[int, Scenario] = {}
    points = build_points(
        scenario,
        base_sets,
        parsed,
        case_list,
        check=lambda p, scn: loaded_of.__setitem__(p.index, scn),
    )
    base = Scenario(_source_name(scenario), loaded_of[points[0].index].loaded)
    first_seed, n = check_seeds(
        base.default_seed if seed is None else seed, base.default_runs if runs is None else runs
    )
    seeds = list(range(first_seed, first_seed + n))
    paths = ([CASE] if case_list else []) + [p for p, _ in parsed]
    # ... and a point whose runs would not fit in memory before any run
    # (each worker holds one run; its traces go to its part), on the plan
    # its loading built.
    at_once = min(len(points) * n, options.jobs or default_jobs())
    for p in points:
        try:
            _core.check_memory(
                loaded_of.pop(p.index).loaded,
                bool(trace),
                json.dumps(trace) if isinstance(trace, dict) else None,
                at_once,
                at_once,
            )
        except ScenarioError as e:
            where = f" (grid point {', '.join(p.sets)})" if p.sets else ""
            raise ScenarioError(e.file, e.key, e.message + where) from None

    out = Path(out)
    manifest = manifest_of(base.file, base_sets, parsed, n, first_seed, points, trace, case_list)
    check_resume(out, manifest, resume)
    parts = out / PARTS
    if parts.exists() and not parts.is_dir():
        raise SweepError(f"{parts}: exists and is not a directory; cannot store parts", str(out))
    check_writable_dir(parts)  # before any run: an unwritable --out fails now
    for stale in out.glob(".*.tmp"):
        stale.unlink(missing_ok=True)
    write_text_atomic(out / MANIFEST, json.dumps(manifest, indent=2) + "\n")

    good = scan_parts(parts, points, seeds, warn, trace)
    tasks = [(p, s) for p in points for s in seeds]
    todo = [(p, s) for p, s in tasks if (p.index, s) not in good]
    total, skipped = len(tasks), len(tasks) - len(todo)
    batch = Batch(todo, parts, first_seed, trace, total, skipped, on_progress, warn)
    if on_progress:
        on_progress(skipped, total)

    if todo:
        try:
            backend_of(options).execute(batch, PIECES)
        except (KeyboardInterrupt, Terminated):
            raise SweepInterrupted(_saved(parts, tasks), total, str(out)) from None
        except WorkerLost as e:
            raise SweepError(
                f"a sweep worker process died ({e}; killed from outside, e.g. by the "
                f"out-of-memory killer?); {_saved(parts, tasks)} of {total} runs are saved in "
                f"{out}; continue with --resume (resume=True in Python)",
                str(out),
            ) from None
    tables = assemble(out, points, seeds, paths, trace, warn)
    info: dict[str, Any] = {
        "done": batch.done - skipped,
        "skipped": skipped,
        "total": total,
        "out": str(out),
        "tables": tables,
    }
    if trace:
        info["traces"] = str(out / TRACES)
    return info


def backend_of(options: SweepOptions) -> Backend:
    """The backend that runs the batches ``options`` names (Ray's module
    loads only for ``"ray"``)."""
    if options.backend == "ray":
        from .ray_backend import RayBackend

        return RayBackend(options.address, options.jobs)
    return LocalBackend(options.jobs)


#: what a backend needs of the sweep library (:class:`~skyhop.sweep.base.Pieces`)
PIECES = Pieces(compute=compute_part, store=store_part, at_point=at_point, terminated=Terminated)


def _source_name(scenario: Any) -> str:
    """The name a scenario source goes by in errors and the manifest."""
    if isinstance(scenario, (str, os.PathLike)):
        return os.fspath(scenario)
    return "<dict>"


def _saved(parts: Path, tasks: list[tuple[Any, int]]) -> int:
    """Runs whose part is on disk (a part appears whole, by a rename): also
    those a worker finished after the interruption was seen."""
    return sum((parts / part_name(p.index, s)).exists() for p, s in tasks)


def sweep_frame(
    scenario: ScenarioSource,
    grid: GridSpec,
    *,
    runs: int | None = None,
    seed: int | None = None,
    set: SetOverrides = None,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    options: SweepOptions | None = None,
    trace: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
    on_warning: Reporter | None = None,
    cases: Any = None,
) -> pd.DataFrame:
    """:func:`skyhop.sweep` (documented there): the sweep's results.parquet as
    a DataFrame. Warnings become ``RuntimeWarning`` unless ``on_warning`` is given."""
    import warnings

    from ..tables import read_parquet

    def warn(message: str) -> None:
        warnings.warn(message, RuntimeWarning, stacklevel=6)

    kwargs: dict[str, Any] = {
        "cases": cases,
        "runs": runs,
        "seed": seed,
        "set": set,
        "options": options,
        "on_progress": on_progress,
        "on_warning": on_warning or warn,
        "trace": trace,
    }
    if out is None:
        import tempfile

        check_bool("resume", resume)
        if check_bool("trace", trace):
            raise ScenarioError(
                "<options>", "trace", "trace=True needs out=DIR (traces.parquet is written there)"
            )
        with tempfile.TemporaryDirectory(prefix="skyhop-sweep-") as tmp:
            run_sweep(scenario, grid, out=tmp, **kwargs)
            return read_parquet(Path(tmp) / "results.parquet")
    info = run_sweep(scenario, grid, out=out, resume=resume, **kwargs)
    df = read_parquet(Path(out) / "results.parquet")
    df.attrs["tables"] = info["tables"]
    if "traces" in info:
        df.attrs["traces"] = info["traces"]
    return df
