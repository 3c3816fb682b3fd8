"""Resumable parameter sweeps: a grid of scenario variants x seeds, on local processes.

Layout of a sweep's output directory (``docs/sweeps.md`` has the details)::

    DIR/sweep.json          what was swept (scenario, overrides, grid, runs, seeds);
                            checked by --resume so that a sweep is never mixed
    DIR/parts/pPPPPP-sSEED.json
                            one file per finished (point, seed): its identity
                            (point, seed, SHA-256 of the point's resolved
                            scenario), its result rows and their SHA-256,
                            written by the worker the moment that run ends
                            (atomically: temp file + rename)
    DIR/results.parquet     one row per (point, seed, flow), sorted
    DIR/summary.parquet     one row per (point, flow, metric): mean, ci95, n
    DIR/summary.json        the same, per point: {"point", "set", "summary"}

Run i (0-based) of every point uses seed S + i, so points are compared on
common random numbers. An interrupted sweep (Ctrl-C, SIGTERM, a crash, a
killed worker) continues with ``--resume``: every part is checked against its
identity and checksum, good parts are kept and skipped, damaged, empty or
misplaced ones are redone (with a warning), nothing is run twice and no row is
lost or duplicated. The tables are replaced only by a complete assembly.

This module is a library: it parses no command line and prints nothing;
progress and warnings go to the callbacks its caller passes.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._output import check_writable_dir, dump_json, write_table, write_text_atomic
from .api import (
    ScenarioSource,
    SetOverrides,
    _set_strings,
    _toml_literal,
    check_bool,
    check_int,
    check_jobs,
    check_seeds,
    default_jobs,
    load_scenario,
)
from .errors import ScenarioError, SimulationError, SkyhopError, SweepError
from .stats import WEB_TABLES, flow_metrics, summarize_values, web_rows

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["SweepInterrupted", "parse_grid", "run_sweep", "sweep"]

MANIFEST = "sweep.json"
PARTS = "parts"
TRACES = "traces.parquet"

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
    if isinstance(grid, str):
        grid = [grid]
    if not isinstance(grid, (Mapping, Sequence)):
        raise ScenarioError(
            "<options>",
            "grid",
            f"expected a dict {{path: [values]}} or a list of 'PATH=V1,V2,...', got {grid!r}",
        )
    if isinstance(grid, Mapping):
        for path, values in grid.items():
            if not isinstance(path, str):
                raise ScenarioError("<options>", "grid", f"paths must be str, got {path!r}")
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
            if not isinstance(item, str):
                raise ScenarioError("<options>", "grid", f"expected 'PATH=V1,V2,...', got {item!r}")
            path, sep, rest = item.partition("=")
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

    @property
    def sha256(self) -> str:
        """Identity of the point's resolved scenario (carried by each of its parts)."""
        return hashlib.sha256(self.resolved_json.encode()).hexdigest()

    @property
    def flows(self) -> list[str]:
        return sorted(json.loads(self.resolved_json).get("flows", {}))


class SweepInterrupted(KeyboardInterrupt):
    """A sweep stopped by Ctrl-C or SIGTERM; every finished (point, seed) is saved.

    Attributes ``done`` and ``total`` count runs (finished and in all);
    ``out`` is the sweep's directory. ``resume=True`` (``--resume``) continues.
    """

    def __init__(self, done: int, total: int, out: str) -> None:
        super().__init__(f"{done} of {total} runs saved in {out}")
        self.done, self.total, self.out = done, total, out


class _Terminated(Exception):
    """SIGTERM received (handled like Ctrl-C)."""


# ---------------------------------------------------------------------------
# parts: one file per finished (point, seed), checked before it is trusted

PART_FORMAT = "skyhop-sweep-part/1"


def _part_name(point: int, seed: int) -> str:
    return f"p{point:05d}-s{seed:020d}.json"


def _traces_name(point: int, seed: int) -> str:
    return f"p{point:05d}-s{seed:020d}.traces.parquet"


def _rows_sha256(rows: list[dict[str, Any]]) -> str:
    text = json.dumps(rows, sort_keys=True, allow_nan=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _part_document(
    point: Point,
    seed: int,
    rows: list[dict[str, Any]],
    traces: bytes | None = None,
    web: dict[str, list[dict[str, Any]]] | None = None,
) -> str:
    doc = {
        "format": PART_FORMAT,
        "point": point.index,
        "seed": seed,
        "scenario_sha256": point.sha256,
        "rows": rows,
        "rows_sha256": _rows_sha256(rows),
    }
    if traces is not None:
        doc["traces_sha256"] = hashlib.sha256(traces).hexdigest()
    if web:
        # only for web sessions, so that other sweeps' parts stay as they were
        doc["web"] = web
        doc["web_sha256"] = _rows_sha256([web])
    return json.dumps(doc, allow_nan=True)


def _web_of(point: Point, seed: int, result: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The web sessions' objects and pages of one run, as table rows."""
    head = {"point": point.index, **point.columns, "seed": seed}
    tables = {key: web_rows(result, key, head) for key in WEB_TABLES}
    return {key: rows for key, rows in tables.items() if rows}


def _read_web(path: Path) -> dict[str, list[dict[str, Any]]]:
    """The web tables of a part already checked by :func:`_read_part`."""
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError) as e:
        raise _BadPart(f"unreadable ({type(e).__name__}: {e})") from None
    web = doc.get("web") or {}
    if web and doc.get("web_sha256") != _rows_sha256([web]):
        raise _BadPart("its web tables do not match their checksum")
    return web


class _BadPart(Exception):
    """A part that cannot be trusted (the message says why)."""


class _LegacyPart(_BadPart):
    """A part written by an older skyhop (no identity, no checksum)."""


def _read_part(
    path: Path, point: Point, seed: int, flows: list[str], trace: bool = False
) -> list[dict[str, Any]]:
    """The rows of the part of (point, seed), or _BadPart if it is not exactly that
    (with ``trace``: also when its traces file is missing or altered)."""
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError) as e:
        raise _BadPart(f"unreadable ({type(e).__name__}: {e})") from None
    if isinstance(doc, list) and doc:
        raise _LegacyPart("written by an older skyhop, without identity or checksum")
    if not isinstance(doc, dict) or doc.get("format") != PART_FORMAT:
        raise _BadPart("not a sweep part (empty, or another format)")
    if doc.get("point") != point.index or doc.get("seed") != seed:
        raise _BadPart(
            f"holds point {doc.get('point')!r}, seed {doc.get('seed')!r} "
            f"instead of point {point.index}, seed {seed}"
        )
    if doc.get("scenario_sha256") != point.sha256:
        raise _BadPart("belongs to another scenario (its scenario checksum differs)")
    rows = doc.get("rows")
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise _BadPart("has no result rows")
    if doc.get("rows_sha256") != _rows_sha256(rows):
        raise _BadPart("its content does not match its checksum")
    if "web" in doc and doc.get("web_sha256") != _rows_sha256([doc["web"]]):
        raise _BadPart("its web tables do not match their checksum")
    if sorted(r.get("flow") for r in rows) != flows or any(
        r.get("point") != point.index or r.get("seed") != seed for r in rows
    ):
        raise _BadPart("its rows are not one per flow of this point and seed")
    if trace:
        tpath = path.with_name(_traces_name(point.index, seed))
        want = doc.get("traces_sha256")
        if not isinstance(want, str):
            raise _BadPart("has no traces (written by a sweep without --trace)")
        try:
            got = hashlib.sha256(tpath.read_bytes()).hexdigest()
        except OSError as e:
            raise _BadPart(
                f"its traces file {tpath.name} is unreadable ({e.strerror or e})"
            ) from None
        if got != want:
            raise _BadPart(f"its traces file {tpath.name} does not match its checksum")
    return rows


def _rows_of(point: Point, seed: int, result: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"point": point.index, **point.columns, "seed": seed, "flow": name, **flow_metrics(flow)}
        for name, flow in result["flows"].items()
    ]


# ---------------------------------------------------------------------------
# workers


def _worker_init(parent_pid: int) -> None:
    # Ctrl-C reaches the whole process group: let the parent decide.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A parent killed outright (SIGKILL, the OOM killer) cannot stop its
    # workers: each watches for being orphaned and then exits at once. (A
    # poll rather than Linux's PR_SET_PDEATHSIG, which fires when the parent
    # *thread* that started the worker ends, and a sweep may be started from
    # any thread.)
    threading.Thread(
        target=_watch_parent, args=(parent_pid,), name="skyhop-parent-watch", daemon=True
    ).start()


def _watch_parent(parent_pid: int, interval: float = 0.2) -> None:
    import time

    while True:
        if os.getppid() != parent_pid:
            os._exit(1)
        time.sleep(interval)


def compute_part(
    point: Point, seed: int, run_index: int, trace: bool = False
) -> tuple[str, bytes | None]:
    """Run one (point, seed): its part document (JSON text) and, with
    ``trace``, its traces as Parquet bytes (the long table of
    :mod:`skyhop.traces` plus one column per swept path).

    Pure: writes nothing, so any backend (a local worker process, a Ray
    task on another machine) can call it and hand the result to
    :func:`store_part` wherever the store is.
    """
    from . import _core

    result = json.loads(_core.run(point.resolved_json, seed, trace))
    rows = _rows_of(point, seed, result)
    traces = _trace_parquet(point, [result], run_index) if trace else None
    return _part_document(point, seed, rows, traces, _web_of(point, seed, result)), traces


def store_part(parts: str | Path, point: int, seed: int, doc: str, traces: bytes | None) -> None:
    """Persist one part atomically: the traces file first, then the JSON
    part (temp file + rename), whose presence means both are whole."""
    path = Path(parts) / _part_name(point, seed)
    tag = f"{os.getpid()}-{threading.get_ident()}"
    if traces is not None:
        tpath = Path(parts) / _traces_name(point, seed)
        ttmp = tpath.with_name(f"{tpath.name}.{tag}.tmp")
        ttmp.write_bytes(traces)
        os.replace(ttmp, tpath)
    tmp = path.with_name(f"{path.name}.{tag}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(doc)
    os.replace(tmp, path)


def _run_task(point: Point, seed: int, parts: str, run_index: int = 0, trace: bool = False) -> int:
    """Run one (point, seed) in a worker and persist its part at once.

    The worker writes the part itself, so writing is as parallel as running
    and the parent only counts; a part is JSON (its identity, rows of
    scalars and their checksum), cheap to write and to check, and it appears
    atomically (temp file + rename).
    """
    doc, traces = compute_part(point, seed, run_index, trace)
    store_part(parts, point.index, seed, doc, traces)
    return 1


def _trace_parquet(point: Point, results: list[dict[str, Any]], run_index: int) -> bytes:
    """The traces of one (point, seed) as Parquet bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .traces import trace_columns

    cols = trace_columns(results, first_run=run_index)
    n = len(cols["run"])
    table = pa.table(
        {
            "point": pa.array([point.index] * n, pa.int64()),
            **{path: _swept_column(value, n) for path, value in point.columns.items()},
            "run": pa.array(cols["run"], pa.int64()),
            "seed": pa.array(cols["seed"], pa.uint64()),
            "flow": pa.array(cols["flow"], pa.string()),
            "leg": pa.array(cols["leg"], pa.int64()),
            "series": pa.array(cols["series"], pa.string()),
            "t_s": pa.array(cols["t_s"], pa.float64()),
            "value": pa.array(cols["value"], pa.float64()),
        }
    )
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


def _swept_column(value: Any, n: int):
    import pyarrow as pa

    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return pa.array([str(value)] * n, pa.string())
    return pa.array([value] * n, pa.int64() if isinstance(value, int) else pa.float64())


# ---------------------------------------------------------------------------
# the sweep


def _manifest(
    scn_file: str, sets: list[str], grid, runs: int, seed: int, points, trace: bool = False
) -> dict:
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
        # only when on, so that manifests of sweeps without traces stay as they were
        **({"trace": True} if trace else {}),
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
        old = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(old, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as e:
        raise SweepError(
            f"{path}: cannot read the sweep manifest ({e}); the sweep cannot be resumed "
            "(remove the directory, or choose another, to start afresh)",
            str(out),
        ) from None
    for key in ("grid", "runs", "seed", "set", "points", "resolved_sha256", "trace"):
        if old.get(key, False if key == "trace" else None) != manifest.get(
            key, False if key == "trace" else None
        ):
            what = {"resolved_sha256": "the scenario", "trace": "--trace"}.get(key, key)
            raise ScenarioError(
                str(out),
                "--resume",
                f"{what} differs from the sweep in this directory; cannot resume it",
            )


Reporter = Callable[[str], None]


def _scan_parts(
    parts: Path, points: list[Point], seeds: list[int], on_warning: Reporter, trace: bool = False
) -> dict[tuple[int, int], list[dict[str, Any]]]:
    """Check every part already in ``parts``; return the rows of the good ones.

    A damaged, empty or misplaced part is removed (its run is redone) with a
    warning naming it; files that belong to no (point, seed) are left alone
    with a warning. Temporary files of interrupted writes are removed.
    """
    for stale in parts.glob("*.tmp"):
        stale.unlink(missing_ok=True)
    good: dict[tuple[int, int], list[dict[str, Any]]] = {}
    expected: set[str] = set()
    legacy: list[Path] = []
    for p in points:
        flows = p.flows
        for s in seeds:
            name = _part_name(p.index, s)
            expected.add(name)
            if trace:
                expected.add(_traces_name(p.index, s))
            path = parts / name
            if not os.path.lexists(path):
                continue
            try:
                good[(p.index, s)] = _read_part(path, p, s, flows, trace)
            except _LegacyPart:
                _discard(path)
                legacy.append(path)
            except _BadPart as e:
                _discard(path)
                on_warning(f"{path}: {e}; its run is redone")
    if legacy:
        on_warning(
            f"{parts}: {len(legacy)} part(s) written by an older skyhop carry no identity "
            f"or checksum (e.g. {legacy[0].name}); their runs are redone"
        )
    for path in sorted(parts.iterdir()):
        if path.name not in expected:
            on_warning(f"{path}: not a part of this sweep; ignored")
    return good


def _discard(path: Path) -> None:
    try:
        path.unlink()
    except OSError as e:
        raise SweepError(
            f"{path}: damaged sweep part cannot be removed ({e.strerror or e}); "
            "remove it by hand and resume",
            str(path.parent.parent),
        ) from None


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
    on_warning: Reporter | None = None,
    trace: bool = False,
    backend: str = "local",
    address: str | None = None,
) -> dict[str, Any]:
    """Run a sweep into ``out``; return ``{"done", "skipped", "total", "out"}``
    (and ``"traces"``, the path of ``traces.parquet``, with ``trace``).

    ``on_progress(done, total)`` is called after every finished (point, seed),
    counting those skipped by ``resume``; ``on_warning(message)`` receives
    each warning (a redone or ignored part; on Ray, a run that failed).
    ``backend`` is ``"local"`` (worker processes of this machine) or
    ``"ray"`` (tasks on a Ray cluster at ``address``; :mod:`skyhop.ray_backend`).
    Raises SweepInterrupted (a KeyboardInterrupt) on Ctrl-C or SIGTERM,
    SweepError when a worker dies from outside, the cluster cannot be
    reached or (on Ray) some runs failed; finished parts are kept in every case.
    """
    resume = check_bool("resume", resume)
    trace = check_bool("trace", trace)
    jobs = check_jobs(jobs)
    backend = check_backend(backend, address)
    if runs is not None:
        check_int("runs", runs, minimum=1)
    if seed is not None:
        check_int("seed", seed, minimum=0)
    if not isinstance(out, (str, os.PathLike)):
        raise ScenarioError("<options>", "out", f"must be a directory path, got {out!r}")
    warn = on_warning or (lambda _m: None)

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
    manifest = _manifest(base.file, base_sets, parsed, n, first_seed, points, trace)
    _check_resume(out, manifest, resume)
    parts = out / PARTS
    if parts.exists() and not parts.is_dir():
        raise SweepError(f"{parts}: exists and is not a directory; cannot store parts", str(out))
    check_writable_dir(parts)  # before any run: an unwritable --out fails now
    for stale in out.glob(".*.tmp"):
        stale.unlink(missing_ok=True)
    write_text_atomic(out / MANIFEST, json.dumps(manifest, indent=2) + "\n")

    good = _scan_parts(parts, points, seeds, warn, trace)
    tasks = [(p, s) for p in points for s in seeds]
    todo = [(p, s) for p, s in tasks if (p.index, s) not in good]
    total, skipped = len(tasks), len(tasks) - len(todo)
    state = {"done": skipped}
    if on_progress:
        on_progress(skipped, total)

    if todo:
        try:
            if backend == "ray":
                from .ray_backend import execute_on_ray

                execute_on_ray(
                    todo,
                    parts,
                    first_seed,
                    trace,
                    jobs,
                    address,
                    state,
                    total,
                    on_progress,
                    warn,
                    compute=compute_part,
                    store=store_part,
                    at_point=_at_point,
                    terminated=_Terminated,
                )
            else:
                _execute(todo, parts, jobs, state, total, on_progress, first_seed, trace)
        except (KeyboardInterrupt, _Terminated):
            raise SweepInterrupted(state["done"], total, str(out)) from None
        except _WorkerLost as e:
            raise SweepError(
                f"a sweep worker process died ({e}; killed from outside, e.g. by the "
                f"out-of-memory killer?); {state['done']} of {total} runs are saved in "
                f"{out}; continue with --resume (resume=True in Python)",
                str(out),
            ) from None
    _assemble(out, points, seeds, paths, good, trace)
    info = {"done": state["done"] - skipped, "skipped": skipped, "total": total, "out": str(out)}
    if trace:
        info["traces"] = str(out / TRACES)
    return info


BACKENDS = ("local", "ray")


def check_backend(backend: Any, address: Any) -> str:
    """``backend``: "local" or "ray"; ``address`` only with "ray"."""
    if backend not in BACKENDS:
        raise ScenarioError(
            "<options>", "backend", f"expected one of {', '.join(BACKENDS)}, got {backend!r}"
        )
    if address is not None:
        if backend != "ray":
            raise ScenarioError("<options>", "address", "a cluster address needs backend 'ray'")
        if not isinstance(address, str) or not address.strip():
            raise ScenarioError(
                "<options>",
                "address",
                f"expected HOST:PORT, ray://HOST:PORT or auto, got {address!r}",
            )
    return backend


class _WorkerLost(Exception):
    """A worker process of the pool died (BrokenProcessPool)."""


def _execute(
    todo,
    parts: Path,
    jobs,
    state: dict,
    total: int,
    on_progress,
    first_seed: int = 0,
    trace: bool = False,
) -> None:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    workers = max(1, min(len(todo), jobs or default_jobs()))
    ctx = multiprocessing.get_context("spawn")
    old_term = None
    if threading.current_thread() is threading.main_thread():

        def on_term(signum, frame):
            raise _Terminated()

        old_term = signal.signal(signal.SIGTERM, on_term)
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=ctx,
        initializer=_worker_init,
        initargs=(os.getpid(),),
    )
    hidden = _hide_main()
    try:
        pending: dict[Future, tuple[Point, int]] = {}
        queue = iter(todo)
        seen: set[Any] = set()

        # Keep a bounded number of tasks in flight so that an interruption
        # loses little and memory stays small for huge grids.
        def refill() -> None:
            while len(pending) < 4 * workers:
                nxt = next(queue, None)
                if nxt is None:
                    return
                point, seed = nxt
                pending[
                    pool.submit(_run_task, point, seed, str(parts), seed - first_seed, trace)
                ] = nxt
            # remember the worker processes: if one dies, its exit status tells how
            seen.update((getattr(pool, "_processes", None) or {}).values())

        refill()
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in sorted(finished, key=lambda f: pending[f][0].index):
                point, seed = pending.pop(fut)
                try:
                    fut.result()
                except SkyhopError as e:
                    raise _at_point(e, point, seed) from None
                except BrokenProcessPool:
                    raise _WorkerLost(_lost_detail(seen)) from None
                state["done"] += 1
                if on_progress:
                    on_progress(state["done"], total)
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


def _lost_detail(processes: set[Any]) -> str:
    codes = []
    for p in processes:
        p.join(timeout=1)
        if p.exitcode is not None and p.exitcode != 0:
            codes.append(p.exitcode)
    # the pool itself ends the surviving workers with SIGTERM: name the other cause
    codes.sort(key=lambda c: c == -signal.SIGTERM)
    for code in codes:
        if code < 0:
            try:
                return f"signal {signal.Signals(-code).name}"
            except ValueError:
                return f"signal {-code}"
    return f"exit status {codes[0]}" if codes else "terminated abruptly"


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
    if isinstance(e, ScenarioError):
        return ScenarioError(e.file, e.key, f"{e.message} [{where}]")
    if isinstance(e, SimulationError):
        return SimulationError(f"{where}: {e.message}", e.kind)
    return SkyhopError(f"{where}: {e}")


def _terminate(pool: Any) -> None:
    """Stop the workers now (their unfinished runs are simply not persisted)."""
    procs = getattr(pool, "_processes", None) or {}
    for proc in list(procs.values()):
        if proc.is_alive():
            proc.terminate()
    for proc in list(procs.values()):
        proc.join(timeout=5)


def _assemble(
    out: Path,
    points: list[Point],
    seeds: list[int],
    paths: list[str],
    good: dict[tuple[int, int], list[dict[str, Any]]],
    trace: bool = False,
) -> None:
    """Gather the parts into results.parquet, summary.parquet and summary.json.

    Parts written in this session are checked like the others; each table
    is written to a temporary file and renamed, so earlier tables are only
    ever replaced by complete new ones.
    """
    import pandas as pd

    parts = out / PARTS
    rows: list[dict[str, Any]] = []
    for p in points:
        flows = p.flows
        for s in seeds:
            if (p.index, s) in good:
                rows.extend(good[(p.index, s)])
                continue
            path = parts / _part_name(p.index, s)
            try:
                rows.extend(_read_part(path, p, s, flows, trace))
            except _BadPart as e:
                raise _changed(path, e, out) from None
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
    write_table(results, out / "results.parquet")
    write_table(summary, out / "summary.parquet")
    write_text_atomic(out / "summary.json", dump_json(summary_doc) + "\n")
    if trace:
        _assemble_traces(out, points, seeds)
    if "objects_completed" in results.columns:
        _assemble_web(out, points, seeds)


def _changed(path: Path, e: _BadPart, out: Path) -> SweepError:
    """A part that was good when the sweep checked it and is not any more."""
    return SweepError(
        f"{path}: {e} (changed while the sweep ran?); run again with --resume to redo it",
        str(out),
    )


def _assemble_web(out: Path, points: list[Point], seeds: list[int]) -> None:
    """objects.parquet and pages.parquet: every object and page of the web
    sessions, one row each, with the point's swept columns."""
    import pandas as pd

    tables: dict[str, list[dict[str, Any]]] = {k: [] for k in WEB_TABLES}
    for p in points:
        for s in seeds:
            path = out / PARTS / _part_name(p.index, s)
            try:
                web = _read_web(path)
            except _BadPart as e:
                raise _changed(path, e, out) from None
            for k in WEB_TABLES:
                tables[k].extend(web.get(k, []))
    for k, rows in tables.items():
        df = pd.DataFrame.from_records(rows)
        if "response_time_s" in df:
            df["response_time_s"] = df["response_time_s"].astype("float64")
        write_table(df, out / f"{k}.parquet")


def _assemble_traces(out: Path, points: list[Point], seeds: list[int]) -> None:
    """Concatenate the checked per-(point, seed) trace files into traces.parquet."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = [pq.read_table(out / PARTS / _traces_name(p.index, s)) for p in points for s in seeds]
    table = pa.concat_tables(tables, promote_options="default") if tables else pa.table({})
    tmp = out / f".{TRACES}.{os.getpid()}.tmp"
    pq.write_table(table, tmp)
    os.replace(tmp, out / TRACES)


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
    trace: bool = False,
    backend: str = "local",
    address: str | None = None,
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

    Returns
    -------
    pandas.DataFrame
        One row per (point, seed, flow): ``point``, one column per swept path,
        ``seed``, ``flow`` and every scalar FlowResult field.

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
    import warnings

    import pandas as pd

    def on_warning(message: str) -> None:
        warnings.warn(message, RuntimeWarning, stacklevel=3)

    kwargs = {
        "runs": runs,
        "seed": seed,
        "set": set,
        "jobs": jobs,
        "on_warning": on_warning,
        "trace": trace,
        "backend": backend,
        "address": address,
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
            return pd.read_parquet(Path(tmp) / "results.parquet")
    info = run_sweep(scenario, grid, out=out, resume=resume, **kwargs)
    df = pd.read_parquet(Path(out) / "results.parquet")
    if "traces" in info:
        df.attrs["traces"] = info["traces"]
    return df
