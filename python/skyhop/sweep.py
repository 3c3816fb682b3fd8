"""Resumable parameter sweeps: a grid of scenario variants x seeds, on local processes.

Layout of a sweep's output directory::

    DIR/sweep.json          what was swept (scenario, overrides, grid, runs, seeds);
                            checked by --resume so that a sweep is never mixed
    DIR/parts/pPPPPP-sSEED.json
                            one file per finished (point, seed): its result rows,
                            written by the worker the moment that run ends
                            (atomically: temp file + rename)
    DIR/results.parquet     one row per (point, seed, flow), sorted
    DIR/summary.parquet     one row per (point, flow, metric): mean, ci95, n
    DIR/summary.json        the same, per point: {"point", "set", "summary"}

Run i (0-based) of every point uses seed S + i, so points are compared on
common random numbers. An interrupted sweep (Ctrl-C, SIGTERM, a crash)
continues with ``--resume``: finished parts are kept and skipped, nothing is
run twice and no row is lost or duplicated.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import signal
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .api import (
    ScenarioSource,
    SetOverrides,
    _set_strings,
    _toml_literal,
    check_seeds,
    default_jobs,
    load_scenario,
)
from .errors import ScenarioError, SkyhopError
from .stats import flow_metrics, summarize_values

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["parse_grid", "sweep"]

MANIFEST = "sweep.json"
PARTS = "parts"

GridSpec = Mapping[str, Sequence[Any]] | Sequence[str]


# ---------------------------------------------------------------------------
# grid


@dataclass(frozen=True)
class GridValue:
    """One value of a swept path: the TOML text given to the engine and the
    value shown in the tables' column for that path."""

    text: str
    column: Any


def split_values(text: str) -> list[str]:
    """Split ``V1,V2,...`` on the commas outside brackets, braces and quotes.

    >>> split_values('1,2.5, "a,b" ,[1,2]')
    ['1', '2.5', '"a,b"', '[1,2]']
    """
    values, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            values.append(text[start:i].strip())
            start = i + 1
    values.append(text[start:].strip())
    return values


def _column_of_text(text: str) -> Any:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def parse_grid(grid: GridSpec) -> list[tuple[str, list[GridValue]]]:
    """Normalise a grid to ``[(path, [GridValue, ...]), ...]`` in the given order.

    Parameters
    ----------
    grid : dict or sequence of str
        ``{"links.wu.per": [0.001, 0.01], "flows.ftp.tcp": ["newreno", "sack"]}``
        or command-line style ``["links.wu.per=0.001,0.01", "flows.ftp.tcp=newreno,sack"]``.
    """
    out: list[tuple[str, list[GridValue]]] = []
    if isinstance(grid, Mapping):
        for path, values in grid.items():
            if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
                values = [values]
            gv = [
                GridValue(
                    _toml_literal(v), v if isinstance(v, (int, float, str)) else _toml_literal(v)
                )
                for v in values
            ]
            out.append((str(path), gv))
    else:
        for item in grid:
            path, sep, rest = str(item).partition("=")
            path = path.strip()
            if not sep or not path or not rest.strip():
                raise ScenarioError("--grid", str(item), "expected PATH=V1,V2,...")
            vals = split_values(rest)
            if any(v == "" for v in vals):
                raise ScenarioError("--grid", path, f"empty value in {rest!r}")
            out.append((path, [GridValue(v, _column_of_text(v)) for v in vals]))
    seen = set()
    for path, values in out:
        if path in seen:
            raise ScenarioError("--grid", path, "swept twice")
        seen.add(path)
        if not values:
            raise ScenarioError("--grid", path, "no values")
    return out


def _column_values(values: list[GridValue]) -> list[Any]:
    """Column values of one path with one type: int, float, or str."""
    cols = [v.column for v in values]
    if all(isinstance(c, int) and not isinstance(c, bool) for c in cols):
        return cols
    if all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in cols):
        return [float(c) for c in cols]
    return [c if isinstance(c, str) else v.text for c, v in zip(cols, values, strict=False)]


@dataclass
class Point:
    index: int
    sets: list[str]  # the grid's PATH=VALUE overrides for this point
    columns: dict[str, Any]  # path -> column value
    resolved_json: str


# ---------------------------------------------------------------------------
# workers


def _worker_init() -> None:
    # Ctrl-C reaches the whole process group: let the parent decide.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_task(point: Point, seed: int, parts: str) -> int:
    """Run one (point, seed) in a worker and persist its rows at once.

    The worker writes the part itself, so writing is as parallel as running
    and the parent only counts; a part is JSON (rows of scalars), cheap to
    write and to gather, and it appears atomically (temp file + rename).
    """
    from . import _core

    result = json.loads(_core.run(point.resolved_json, seed, False))
    rows = _rows_of(point, seed, result)
    path = Path(parts) / _part_name(point.index, seed)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(rows, allow_nan=True))
    os.replace(tmp, path)
    return len(rows)


def _part_name(point: int, seed: int) -> str:
    return f"p{point:05d}-s{seed:020d}.json"


class _Terminated(Exception):
    """SIGTERM received (handled like Ctrl-C)."""


# ---------------------------------------------------------------------------
# the sweep


def _manifest(scn_file: str, sets: list[str], grid, runs: int, seed: int, points) -> dict:
    digest = hashlib.sha256()
    for p in points:
        digest.update(p.resolved_json.encode())
        digest.update(b"\0")
    return {
        "scenario": scn_file,
        "set": sets,
        "grid": [[path, [v.text for v in values]] for path, values in grid],
        "runs": runs,
        "seed": seed,
        "points": len(points),
        "resolved_sha256": digest.hexdigest(),
    }


def _check_resume(out: Path, manifest: dict, resume: bool) -> None:
    path = out / MANIFEST
    if not path.exists():
        return
    if not resume:
        raise ScenarioError(
            str(out),
            "--out",
            "already holds a sweep (add --resume to continue it, or choose another directory)",
        )
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise ScenarioError(str(path), "", f"cannot read the sweep manifest: {e}") from None
    for key in ("grid", "runs", "seed", "set", "points", "resolved_sha256"):
        if old.get(key) != manifest.get(key):
            what = "the scenario" if key == "resolved_sha256" else key
            raise ScenarioError(
                str(out),
                "--resume",
                f"{what} differs from the sweep in this directory; cannot resume it",
            )


def _rows_of(point: Point, seed: int, result: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"point": point.index, **point.columns, "seed": seed, "flow": name, **flow_metrics(flow)}
        for name, flow in result["flows"].items()
    ]


def run_sweep(
    scenario: ScenarioSource,
    grid: GridSpec,
    *,
    out: str | os.PathLike[str],
    runs: int | None = None,
    seed: int | None = None,
    set: SetOverrides = None,
    resume: bool = False,
    jobs: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Run a sweep into ``out``; return ``{"done", "skipped", "total", "out"}``.

    ``on_progress(done, total)`` is called after every finished (point, seed),
    counting those skipped by ``resume``.
    """
    base_sets = _set_strings(set)
    parsed = parse_grid(grid)
    base = load_scenario(scenario, set=base_sets)
    first_seed, n = check_seeds(
        base.default_seed if seed is None else seed, base.default_runs if runs is None else runs
    )
    seeds = list(range(first_seed, first_seed + n))

    # Validate every point up front: a bad grid path fails before any run.
    paths = [p for p, _ in parsed]
    col_values = [_column_values(values) for _, values in parsed]
    points: list[Point] = []
    combos = itertools.product(*[range(len(values)) for _, values in parsed])
    for index, choice in enumerate(combos):
        sets = [f"{paths[k]}={parsed[k][1][i].text}" for k, i in enumerate(choice)]
        columns = {paths[k]: col_values[k][i] for k, i in enumerate(choice)}
        scn = load_scenario(scenario, set=base_sets + sets)
        points.append(Point(index, sets, columns, scn.json))

    out = Path(out)
    manifest = _manifest(base.file, base_sets, parsed, n, first_seed, points)
    _check_resume(out, manifest, resume)
    parts = out / PARTS
    parts.mkdir(parents=True, exist_ok=True)
    for stale in parts.glob("*.tmp"):
        stale.unlink()
    for final in (out / "results.parquet", out / "summary.parquet", out / "summary.json"):
        final.unlink(missing_ok=True)
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")

    tasks = [(p, s) for p in points for s in seeds]
    todo = [(p, s) for p, s in tasks if not (parts / _part_name(p.index, s)).exists()]
    total, skipped = len(tasks), len(tasks) - len(todo)
    done = skipped
    if on_progress:
        on_progress(done, total)

    if todo:
        done = _execute(todo, parts, jobs, done, total, on_progress)
    _assemble(out, points, seeds, paths)
    return {"done": done - skipped, "skipped": skipped, "total": total, "out": str(out)}


def _execute(todo, parts: Path, jobs, done: int, total: int, on_progress) -> int:
    import multiprocessing

    workers = max(1, min(len(todo), jobs or default_jobs()))
    ctx = multiprocessing.get_context("spawn")
    old_term = None
    if _in_main_thread():

        def on_term(signum, frame):
            raise _Terminated()

        old_term = signal.signal(signal.SIGTERM, on_term)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init)
    hidden = _hide_main()
    try:
        pending: dict[Future, tuple[Point, int]] = {}
        queue = iter(todo)

        # Keep a bounded number of tasks in flight so that an interruption
        # loses little and memory stays small for huge grids.
        def refill() -> None:
            while len(pending) < 4 * workers:
                nxt = next(queue, None)
                if nxt is None:
                    return
                point, seed = nxt
                pending[pool.submit(_run_task, point, seed, str(parts))] = nxt

        refill()
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in sorted(finished, key=lambda f: pending[f][0].index):
                point, seed = pending.pop(fut)
                try:
                    fut.result()
                except SkyhopError as e:
                    raise _at_point(e, point, seed) from None
                done += 1
                if on_progress:
                    on_progress(done, total)
            refill()
    except BaseException:
        _terminate(pool)
        # A worker stopped mid-write leaves only a temp file: not a part.
        for stale in parts.glob("*.tmp"):
            stale.unlink(missing_ok=True)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        _restore_main(hidden)
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
    return done


def _hide_main() -> dict[str, Any]:
    """Keep spawned workers from re-running the caller's main script.

    A spawned worker normally re-imports the parent's ``__main__`` (by module
    name or file path) before running a task. The workers need nothing from
    it (the task function lives in this module), and re-running it breaks
    plain scripts without an ``if __name__ == "__main__"`` guard, code piped
    on stdin and the like. So while the pool lives, ``__main__`` shows no
    ``__spec__`` and no ``__file__``, which makes multiprocessing leave it out.
    """
    main = sys.modules.get("__main__")
    saved: dict[str, Any] = {}
    if main is None:
        return saved
    for attr in ("__spec__", "__file__"):
        if attr in vars(main):
            saved[attr] = vars(main)[attr]
    if "__spec__" in saved:
        main.__spec__ = None
    if "__file__" in saved:
        del main.__file__
    return saved


def _restore_main(saved: dict[str, Any]) -> None:
    main = sys.modules.get("__main__")
    if main is not None:
        for attr, value in saved.items():
            setattr(main, attr, value)


def _at_point(e: SkyhopError, point: Point, seed: int) -> SkyhopError:
    where = f"point {point.index} ({', '.join(point.sets) or 'base scenario'}), seed {seed}"
    from .errors import SimulationError

    if isinstance(e, ScenarioError):
        return ScenarioError(e.file, e.key, f"{e.message} [{where}]")
    if isinstance(e, SimulationError):
        return SimulationError(f"{where}: {e.message}", e.kind)
    return SkyhopError(f"{where}: {e}")


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop the workers now (their unfinished runs are simply not persisted)."""
    procs = getattr(pool, "_processes", None) or {}
    for proc in list(procs.values()):
        if proc.is_alive():
            proc.terminate()
    for proc in list(procs.values()):
        proc.join(timeout=5)


def _assemble(out: Path, points: list[Point], seeds: list[int], paths: list[str]) -> None:
    """Gather the parts into results.parquet, summary.parquet and summary.json."""
    import pandas as pd

    parts = out / PARTS
    rows = [
        row
        for p in points
        for s in seeds
        for row in json.loads((parts / _part_name(p.index, s)).read_text())
    ]
    results = pd.DataFrame.from_records(rows)
    # Metrics that are null in every row (the completion time of bulk flows)
    # are float columns that happen to be empty.
    for col in results.columns:
        if results[col].dtype == object and all(
            v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
            for v in results[col]
        ):
            results[col] = results[col].astype("float64")
    results = results.sort_values(["point", "seed", "flow"], kind="stable").reset_index(drop=True)
    _atomic_parquet(results, out / "results.parquet")

    metric_cols = [c for c in results.columns if c not in {"point", "seed", "flow", *paths}]
    summary_rows, summary_doc = [], []
    for p in points:
        sub = results[results["point"] == p.index]
        per_flow: dict[str, Any] = {}
        for flow, g in sub.groupby("flow", sort=True):
            per_flow[flow] = {}
            for m in metric_cols:
                vals = [None if pd.isna(v) else float(v) for v in g[m].tolist()]
                stats = summarize_values(vals)
                per_flow[flow][m] = stats
                summary_rows.append(
                    {"point": p.index, **p.columns, "flow": flow, "metric": m, **stats}
                )
        summary_doc.append({"point": p.index, "set": p.columns, "summary": per_flow})
    summary = pd.DataFrame(summary_rows)
    _atomic_parquet(summary, out / "summary.parquet")
    tmp = out / "summary.json.tmp"
    from .cli import dump_json

    tmp.write_text(dump_json(summary_doc) + "\n")
    os.replace(tmp, out / "summary.json")


def _atomic_parquet(df: pd.DataFrame, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    df.to_parquet(tmp, index=False)
    os.replace(tmp, path)


def sweep(
    scenario: ScenarioSource,
    grid: GridSpec,
    *,
    runs: int | None = None,
    seed: int | None = None,
    set: SetOverrides = None,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    jobs: int | None = None,
) -> pd.DataFrame:
    """Run a scenario over a grid of parameter values and seeds.

    Parameters
    ----------
    scenario : str, path-like or dict
        The base scenario (TOML file or dict).
    grid : dict or sequence of str
        Swept dotted paths and their values, e.g.
        ``{"links.wu.per": [0.001, 0.005, 0.01], "flows.ftp.tcp": ["newreno", "westwood"]}``;
        every combination (cartesian product) is one point.
    runs : int, optional
        Seeds per point (default ``run.runs``); run i uses seed S + i.
    seed : int, optional
        Base seed S (default ``run.seed``).
    set : list of str or dict, optional
        Overrides applied to every point (before the grid's).
    out : str or path-like, optional
        Directory for the parts and tables (see the module doc); default: a
        temporary directory, removed afterwards.
    resume : bool, default False
        Continue the sweep already in ``out``, skipping finished (point, seed).
    jobs : int, optional
        Worker processes (default: all CPUs).

    Returns
    -------
    pandas.DataFrame
        One row per (point, seed, flow): ``point``, one column per swept path,
        ``seed``, ``flow`` and every scalar FlowResult field.

    Examples
    --------
    >>> df = skyhop.sweep("scenarios/e1_haps.toml",  # doctest: +SKIP
    ...                   {"links.wu.per": [0.001, 0.01]}, runs=5)
    >>> df.groupby("links.wu.per")["completion_time_s"].mean()  # doctest: +SKIP
    """
    import pandas as pd

    if out is None:
        with tempfile.TemporaryDirectory(prefix="skyhop-sweep-") as tmp:
            run_sweep(scenario, grid, out=tmp, runs=runs, seed=seed, set=set, jobs=jobs)
            return pd.read_parquet(Path(tmp) / "results.parquet")
    run_sweep(scenario, grid, out=out, runs=runs, seed=seed, set=set, resume=resume, jobs=jobs)
    return pd.read_parquet(Path(out) / "results.parquet")


def run_sweep_cli(args: argparse.Namespace) -> int:
    """``skyhop sweep`` (see :mod:`skyhop.cli`)."""
    from .cli import progress_bar

    if not args.grid:
        raise ScenarioError(args.scenario, "--grid", "give at least one --grid PATH=V1,V2,...")
    bar = None
    state: dict[str, Any] = {}

    def on_progress(done: int, total: int) -> None:
        nonlocal bar
        state["done"], state["total"] = done, total
        if bar is None:
            bar = progress_bar(total) or False
            if bar:
                bar.start()
                state["task"] = bar.add_task("sweep", total=total, completed=done)
        elif bar:
            bar.update(state["task"], completed=done)

    try:
        info = run_sweep(
            args.scenario,
            args.grid,
            out=args.out,
            runs=args.runs,
            seed=args.seed,
            set=args.sets,
            resume=args.resume,
            jobs=args.jobs,
            on_progress=on_progress,
        )
    except (KeyboardInterrupt, _Terminated):
        if bar:
            bar.stop()
            bar = False
        if "total" in state:
            print(
                f"skyhop: interrupted: {state['done']} of {state['total']} runs saved in "
                f"{args.out}; continue with --resume",
                file=sys.stderr,
            )
            return 130
        raise KeyboardInterrupt from None
    finally:
        if bar:
            bar.stop()
    if args.json:
        sys.stdout.write((Path(args.out) / "summary.json").read_text())
    else:
        print(
            f"sweep: {info['total']} runs ({info['skipped']} already done, "
            f"{info['done']} run now); "
            f"results in {Path(args.out) / 'results.parquet'}, "
            f"summary in {Path(args.out) / 'summary.parquet'} and summary.json"
        )
    return 0
