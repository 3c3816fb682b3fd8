"""The part store of a sweep: one checked file per finished (point, seed),
the manifest, and the assembly of the tables.

A part (``DIR/parts/pPPPPP-sSEED.json``) is one JSON object::

    {"format": "skyhop-sweep-part/1", "point": P, "seed": S,
     "scenario_sha256": "...", "rows": [...], "rows_sha256": "...",
     "tables": [{"table": NAME, "flow": FLOW or null, "records": [...]}, ...],
     "tables_sha256": "...", "traces_sha256": "..." (with --trace)}

``rows`` are the run's per-flow metrics (one row per flow); ``tables`` every
list of records of the run result (:mod:`skyhop.tables`), as the run
reported them. Parts written before result tables were kept whole carry no
``tables`` and may carry ``web`` / ``web_sha256`` (the objects and pages of
web sessions, as rows): they are still read, their web tables included.

Only parts that pass every check are trusted: see :func:`read_part`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._output import dump_json, write_bytes_atomic, write_table, write_text_atomic
from ..errors import ScenarioError, SweepError
from ..files import FileRefused, read_bounded
from ..stats import flow_metrics, summarize_proxies, summarize_values
from ..tables import assemble as assemble_tables
from ..tables import blocks_of, frame, index_column, is_table
from .grid import Point

__all__ = [
    "MANIFEST",
    "PARTS",
    "PART_FORMAT",
    "TRACES",
    "assemble",
    "check_resume",
    "compute_part",
    "manifest_of",
    "read_part",
    "run_one",
    "scan_parts",
    "store_part",
]

MANIFEST = "sweep.json"
PARTS = "parts"
TRACES = "traces.parquet"
PART_FORMAT = "skyhop-sweep-part/1"

Reporter = Callable[[str], None]


def part_name(point: int, seed: int) -> str:
    return f"p{point:05d}-s{seed:020d}.json"


def traces_name(point: int, seed: int) -> str:
    return f"p{point:05d}-s{seed:020d}.traces.parquet"


def _sha256(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, allow_nan=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


# ---------------------------------------------------------------------------
# making a part


#: The engine's plans of the resolved scenarios this process has run, the
#: most recent last: each is built once per process (a worker runs a
#: point's seeds one after the other, so a few are enough).
_PLANS: dict[str, Any] = {}
_PLANS_KEPT = 8


def plan_of(resolved_json: str) -> Any:
    """The engine's loaded scenario (``skyhop._core.Loaded``) of a resolved
    scenario, built once per process."""
    from .. import _core

    loaded = _PLANS.pop(resolved_json, None)
    if loaded is None:
        loaded = _core.load_scenario(resolved_json, "<resolved>", [], "json")
        while len(_PLANS) >= _PLANS_KEPT:
            del _PLANS[next(iter(_PLANS))]
    _PLANS[resolved_json] = loaded
    return loaded


def run_one(resolved_json: str, seed: int, trace: bool | dict[str, Any]) -> dict[str, Any]:
    """One simulation: the engine's RunResult as a dict (the one call of the
    engine a sweep makes, wherever the part is computed). ``trace``: True,
    or the traces' thinning (``trace_every_s``, ``trace_series``)."""
    from .. import _core

    if isinstance(trace, dict):
        return json.loads(_core.run_observed(plan_of(resolved_json), seed, True, json.dumps(trace)))
    return json.loads(_core.run(plan_of(resolved_json), seed, trace))


def rows_of(point: Point, seed: int, result: dict[str, Any]) -> list[dict[str, Any]]:
    """The result rows of one run: one per flow, its metrics after the point's columns."""
    return [
        {"point": point.index, **point.columns, "seed": seed, "flow": name, **flow_metrics(flow)}
        for name, flow in result["flows"].items()
    ]


def part_document(
    point: Point,
    seed: int,
    rows: list[dict[str, Any]],
    traces: bytes | None = None,
    blocks: list[dict[str, Any]] | None = None,
) -> str:
    """The JSON text of a part (see the module doc)."""
    doc: dict[str, Any] = {
        "format": PART_FORMAT,
        "point": point.index,
        "seed": seed,
        "scenario_sha256": point.sha256,
        "rows": rows,
        "rows_sha256": _sha256(rows),
    }
    if traces is not None:
        doc["traces_sha256"] = hashlib.sha256(traces).hexdigest()
    if blocks:
        doc["tables"] = blocks
        doc["tables_sha256"] = _sha256(blocks)
    return json.dumps(doc, allow_nan=True)


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
    result = run_one(point.resolved_json, seed, trace)
    rows = rows_of(point, seed, result)
    traces = trace_parquet(point, [result], run_index) if trace else None
    return part_document(point, seed, rows, traces, blocks_of(result)), traces


def store_part(parts: str | Path, point: int, seed: int, doc: str, traces: bytes | None) -> None:
    """Persist one part atomically: the traces file first, then the JSON
    part (temp file + rename), whose presence means both are whole."""
    if traces is not None:
        write_bytes_atomic(Path(parts) / traces_name(point, seed), traces)
    write_text_atomic(Path(parts) / part_name(point, seed), doc)


def trace_parquet(point: Point, results: list[dict[str, Any]], run_index: int) -> bytes:
    """The traces of one (point, seed) as Parquet bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..traces import trace_columns

    cols = trace_columns(results, first_run=run_index)
    n = len(cols["run"])
    table = pa.table(
        {
            "point": pa.array([point.index] * n, pa.int64()),
            **{path: swept_array(value, n) for path, value in point.columns.items()},
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


def swept_array(value: Any, n: int):
    """A swept column's value repeated ``n`` times, with its type."""
    import pyarrow as pa

    if isinstance(value, bool):
        return pa.array([value] * n, pa.bool_())
    if isinstance(value, int):
        return pa.array([value] * n, pa.int64())
    if isinstance(value, float):
        return pa.array([value] * n, pa.float64())
    return pa.array([str(value)] * n, pa.string())


# ---------------------------------------------------------------------------
# reading a part


class BadPart(Exception):
    """A part that cannot be trusted (the message says why)."""


class LegacyPart(BadPart):
    """A part written by an older skyhop (no identity, no checksum)."""


#: the largest part and traces file read back
MAX_PART_BYTES = 256 << 20
MAX_TRACES_BYTES = 1 << 30


def _load(path: Path) -> Any:
    try:
        return json.loads(read_bounded(path, MAX_PART_BYTES))
    except FileRefused as e:
        raise BadPart(e.strerror) from None
    except (OSError, ValueError) as e:
        raise BadPart(f"unreadable ({type(e).__name__}: {e})") from None


def read_part(
    path: Path, point: Point, seed: int, flows: list[str], trace: bool = False
) -> dict[str, Any]:
    """The document of the part of (point, seed), or BadPart if it is not
    exactly that: the format, the (point, seed) its name says, the point's
    scenario checksum, one row per flow of that point and seed, rows and
    tables matching their checksums (with ``trace``: a traces file there and
    matching its checksum)."""
    doc = _load(path)
    if isinstance(doc, list) and doc:
        raise LegacyPart("written by an older skyhop, without identity or checksum")
    if not isinstance(doc, dict) or doc.get("format") != PART_FORMAT:
        raise BadPart("not a sweep part (empty, or another format)")
    if doc.get("point") != point.index or doc.get("seed") != seed:
        raise BadPart(
            f"holds point {doc.get('point')!r}, seed {doc.get('seed')!r} "
            f"instead of point {point.index}, seed {seed}"
        )
    if doc.get("scenario_sha256") != point.sha256:
        raise BadPart("belongs to another scenario (its scenario checksum differs)")
    rows = doc.get("rows")
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise BadPart("has no result rows")
    if doc.get("rows_sha256") != _sha256(rows):
        raise BadPart("its content does not match its checksum")
    if "tables" in doc and (
        doc.get("tables_sha256") != _sha256(doc["tables"]) or not _blocks_ok(doc["tables"])
    ):
        raise BadPart("its result tables do not match their checksum")
    if "web" in doc and doc.get("web_sha256") != _sha256([doc["web"]]):
        raise BadPart("its web tables do not match their checksum")
    if sorted(r.get("flow") for r in rows) != flows or any(
        r.get("point") != point.index or r.get("seed") != seed for r in rows
    ):
        raise BadPart("its rows are not one per flow of this point and seed")
    if trace:
        tpath = path.with_name(traces_name(point.index, seed))
        want = doc.get("traces_sha256")
        if not isinstance(want, str):
            raise BadPart("has no traces (written by a sweep without --trace)")
        try:
            got = hashlib.sha256(read_bounded(tpath, MAX_TRACES_BYTES)).hexdigest()
        except OSError as e:
            raise BadPart(
                f"its traces file {tpath.name} is unreadable ({e.strerror or e})"
            ) from None
        if got != want:
            raise BadPart(f"its traces file {tpath.name} does not match its checksum")
    return doc


def _blocks_ok(blocks: Any) -> bool:
    return isinstance(blocks, list) and all(
        isinstance(b, dict)
        and isinstance(b.get("table"), str)
        and (b.get("flow") is None or isinstance(b.get("flow"), str))
        and is_table(b.get("records"))
        for b in blocks
    )


def blocks_of_part(doc: dict[str, Any], point: Point) -> tuple[list[dict[str, Any]], bool]:
    """The table blocks of a checked part, and whether it carries all of
    them (False for a part written before result tables were kept whole,
    which has at most the web tables, as rows)."""
    if "tables" in doc:
        return doc["tables"], True
    return _legacy_blocks(doc.get("web") or {}, point), False


def _legacy_blocks(web: dict[str, Any], point: Point) -> list[dict[str, Any]]:
    """Table blocks from the ``web`` rows of an earlier part: each row is its
    head (point, swept columns, seed), ``flow``, for some tables the record's
    index (named as :func:`skyhop.tables.index_column` names it, and equal to
    its position), and the record."""
    head = {"point", "seed", "flow", *point.columns}
    blocks: list[dict[str, Any]] = []
    for table, rows in web.items():
        if not is_table(rows) or not rows:
            continue
        by_flow: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            by_flow.setdefault(row.get("flow"), []).append(row)
        index = index_column(table)
        for flow, flow_rows in by_flow.items():
            positional = all(r.get(index) == i for i, r in enumerate(flow_rows))
            drop = head | ({index} if positional else set())
            records = [{k: v for k, v in r.items() if k not in drop} for r in flow_rows]
            blocks.append({"table": table, "flow": flow, "records": records})
    return blocks


# ---------------------------------------------------------------------------
# the manifest


def manifest_of(
    scn_file: str,
    sets: list[str],
    grid,
    runs: int,
    seed: int,
    points,
    trace: Any = False,
    cases: list[tuple[str, list[str]]] | None = None,
) -> dict:
    digest = hashlib.sha256()
    for p in points:
        digest.update(p.resolved_json.encode())
        digest.update(b"\0")
    # the cases are one more swept column, "case", before the grid's
    swept = [["case", [name for name, _ in cases]]] if cases else []
    return {
        "scenario": scn_file,
        "set": sets,
        "grid": swept + [[path, [v.text for v in values]] for path, values in grid],
        # only with cases, so that manifests without them stay as they were
        **({"cases": [[name, list(c)] for name, c in cases]} if cases else {}),
        "runs": runs,
        "seed": seed,
        "points": len(points),
        "resolved_sha256": digest.hexdigest(),
        # only when on, so that manifests of sweeps without traces stay as they
        # were; thinned traces record how (a resume must thin them alike)
        **({"trace": trace if isinstance(trace, dict) else True} if trace else {}),
    }


def check_resume(out: Path, manifest: dict, resume: bool) -> None:
    """Refuse a sweep that would mix with another already in ``out``."""
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
        old = json.loads(read_bounded(path, MAX_PART_BYTES).decode("utf-8"))
        if not isinstance(old, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as e:
        raise SweepError(
            f"{path}: cannot read the sweep manifest ({e}); the sweep cannot be resumed "
            "(remove the directory, or choose another, to start afresh)",
            str(out),
        ) from None
    for key in ("grid", "cases", "runs", "seed", "set", "points", "resolved_sha256", "trace"):
        if old.get(key, False if key == "trace" else None) != manifest.get(
            key, False if key == "trace" else None
        ):
            what = {"resolved_sha256": "the scenario", "trace": "--trace"}.get(key, key)
            raise ScenarioError(
                str(out),
                "--resume",
                f"{what} differs from the sweep in this directory; cannot resume it",
            )


# ---------------------------------------------------------------------------
# checking the store


def scan_parts(
    parts: Path, points: list[Point], seeds: list[int], on_warning: Reporter, trace: bool = False
) -> set[tuple[int, int]]:
    """Check every part already in ``parts``; return the (point, seed) of the good ones.

    A damaged, empty or misplaced part is removed (its run is redone) with a
    warning naming it; files that belong to no (point, seed) are left alone
    with a warning. Temporary files of interrupted writes are removed.
    """
    for stale in parts.glob("*.tmp"):
        stale.unlink(missing_ok=True)
    good: set[tuple[int, int]] = set()
    expected: set[str] = set()
    legacy: list[Path] = []
    for p in points:
        flows = p.flows
        for s in seeds:
            name = part_name(p.index, s)
            expected.add(name)
            if trace:
                expected.add(traces_name(p.index, s))
            path = parts / name
            if not os.path.lexists(path):
                continue
            try:
                read_part(path, p, s, flows, trace)
                good.add((p.index, s))
            except LegacyPart:
                _discard(path)
                legacy.append(path)
            except BadPart as e:
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


def _changed(path: Path, e: BadPart, out: Path) -> SweepError:
    """A part that was good when the sweep checked it and is not any more."""
    return SweepError(
        f"{path}: {e} (changed while the sweep ran?); run again with --resume to redo it",
        str(out),
    )


# ---------------------------------------------------------------------------
# the tables


def assemble(
    out: Path,
    points: list[Point],
    seeds: list[int],
    paths: list[str],
    trace: bool = False,
    on_warning: Reporter | None = None,
) -> dict[str, str]:
    """Gather the parts into results.parquet, summary.parquet, summary.json,
    one ``<table>.parquet`` per result table and (with ``trace``)
    traces.parquet; return ``{table: path}`` of the result tables written.

    Every part is read again and checked like at the start (a part changed
    meanwhile stops the assembly with a SweepError); each table is written
    to a temporary file and renamed, so earlier tables are only ever
    replaced by complete new ones. The swept columns are those of the grid
    (typed), whatever an earlier skyhop wrote into its parts.
    """
    import pandas as pd

    parts = out / PARTS
    rows: list[dict[str, Any]] = []
    blocks: list[tuple[dict[str, Any], dict[str, Any]]] = []
    partial_runs = 0  # runs stored by an earlier skyhop without all their tables
    full_tables: set[str] = set()
    partial_tables: set[str] = set()
    proxy_runs: dict[int, list[list[dict[str, Any]]]] = {}  # point -> per run: its proxies
    for p in points:
        flows = p.flows
        for s in seeds:
            path = parts / part_name(p.index, s)
            try:
                doc = read_part(path, p, s, flows, trace)
            except BadPart as e:
                raise _changed(path, e, out) from None
            for row in doc["rows"]:
                row.update(p.columns)  # keeps the column order, types them
                rows.append(row)
            head = {"point": p.index, **p.columns, "seed": s}
            found, whole = blocks_of_part(doc, p)
            names = {b["table"] for b in found}
            if whole:
                full_tables |= names
            else:
                partial_runs += 1
                partial_tables |= names
            blocks.extend((head, b) for b in found)
            proxy_runs.setdefault(p.index, []).append(
                [r for b in found if b["table"] == "proxies" for r in b["records"]]
            )
    results = frame(rows)
    results = results.sort_values(["point", "seed", "flow"], kind="stable").reset_index(drop=True)

    metric_cols = [c for c in results.columns if c not in {"point", "seed", "flow", *paths}]
    summary_rows, summary_doc = [], []
    for p in points:
        sub = results[results["point"] == p.index]
        per_flow: dict[str, Any] = {}
        finite = finite_flows(p.resolved_json)
        for flow, g in sub.groupby("flow", sort=True):
            per_flow[flow] = {}
            for m in metric_cols:
                vals = [None if pd.isna(v) else float(v) for v in g[m].tolist()]
                stats = summarize_values(vals)
                if m == COMPLETION and flow in finite:
                    # runs whose transfer had not finished when the run ended
                    stats["unfinished"] = len(vals) - stats["n"]
                per_flow[flow][m] = stats
                summary_rows.append(
                    {"point": p.index, **p.columns, "flow": flow, "metric": m, **stats}
                )
        # each split proxy's occupancy, per flow and proxy node, over the runs
        for flow, per in summarize_proxies(proxy_runs.get(p.index, [])).items():
            for m, stats in per.items():
                per_flow.setdefault(flow, {})[m] = stats
                summary_rows.append(
                    {"point": p.index, **p.columns, "flow": flow, "metric": m, **stats}
                )
        summary_doc.append({"point": p.index, "set": p.columns, "summary": per_flow})
    summary = pd.DataFrame(summary_rows)
    write_table(results, out / "results.parquet")
    write_table(summary, out / "summary.parquet")
    write_text_atomic(out / "summary.json", dump_json(summary_doc) + "\n")
    written: dict[str, str] = {}
    for name, table_rows in assemble_tables(blocks).items():
        path = out / f"{name}.parquet"
        write_table(frame(table_rows), path)
        written[name] = str(path)
    missing = sorted(full_tables - partial_tables) if partial_runs else []
    if missing and on_warning:
        on_warning(
            f"{out}: {partial_runs} run(s) were stored by an earlier skyhop that kept only "
            f"some result tables; {', '.join(f'{m}.parquet' for m in missing)} hold the "
            "other runs only (run those points again in a new sweep to complete them)"
        )
    if trace:
        assemble_traces(out, points, seeds)
    return written


#: the metric a transfer that did not finish has no value of
COMPLETION = "completion_time_s"


def finite_flows(resolved_json: str) -> set[str]:
    """The flows of a resolved scenario whose application ends by itself (a
    file, a number of pages): one without a completion time did not finish
    (a bulk flow's or a probe's never has one)."""
    from .. import _core

    doc = json.loads(_core.describe(plan_of(resolved_json)))
    return {f["flow"] for f in doc.get("flows", []) if f.get("finite")}


def assemble_traces(out: Path, points: list[Point], seeds: list[int]) -> None:
    """Concatenate the checked per-(point, seed) trace files into traces.parquet
    (the swept columns typed as the grid's, whatever a part's file holds)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = []
    for p in points:
        for s in seeds:
            t = pq.read_table(out / PARTS / traces_name(p.index, s))
            for path, value in p.columns.items():
                if path in t.column_names:
                    i = t.column_names.index(path)
                    t = t.set_column(i, path, swept_array(value, t.num_rows))
            tables.append(t)
    table = pa.concat_tables(tables, promote_options="default") if tables else pa.table({})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    write_bytes_atomic(out / TRACES, sink.getvalue().to_pybytes())
