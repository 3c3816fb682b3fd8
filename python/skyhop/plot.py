"""``skyhop plot``: a sweep's metric against its swept keys, the CDF of a
column of the result tables, and traced time series, drawn with
:mod:`skyhop.figures` (its conventions) and labelled with
:mod:`skyhop.quantities` (the report's labels and units).

Only the standard library is imported here; matplotlib and pandas are
imported by the functions that draw or read tables.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .documents import read_results_bytes as _read_bytes
from .documents import read_results_json as _read_json
from .documents import read_results_table
from .errors import ScenarioError
from .figures import (
    ci_legend,
    errorbar_series,
    figure,
    output_stem,
    placement_label,
    save_figure,
    series_style,
    subplots,
)

__all__ = [
    "cdf_figure",
    "cdf_series",
    "sweep_figure",
    "sweep_series",
    "trace_figure",
    "trace_series",
]


# ---------------------------------------------------------------------------
# a sweep's metric against its swept keys


def _sweep_folder(folder: str | Path) -> tuple[Path, dict[str, Any], list[dict[str, Any]]]:
    d = Path(folder)
    if d.is_file():
        raise ScenarioError(
            str(d),
            "plot",
            "--metric draws a sweep folder's metric against its swept paths; a file (a run "
            "document) has no grid: use --cdf COLUMN for its result tables",
        )
    if not d.is_dir():
        raise ScenarioError(str(d), "plot", "no such folder")
    if not (d / "sweep.json").exists():
        if (d / "sweeps").is_dir():
            subs = sorted(p.name for p in (d / "sweeps").iterdir() if (p / "sweep.json").exists())
            hint = f", e.g. {d / 'sweeps' / subs[0]}" if subs else ""
            raise ScenarioError(
                str(d),
                "plot",
                f"an experiment folder: plot one of its sub-sweeps (DIR/sweeps/NAME){hint}",
            )
        raise ScenarioError(
            str(d), "plot", "not a sweep folder (no sweep.json): run 'skyhop sweep' into it first"
        )
    if not (d / "summary.json").exists():
        raise ScenarioError(
            str(d),
            "plot",
            "the sweep has no results yet (no summary.json): finish it with "
            "'skyhop sweep ... --resume' first",
        )
    manifest = check_manifest(d / "sweep.json", _read_json(d / "sweep.json", "plot"))
    summary = check_summary(d / "summary.json", _read_json(d / "summary.json", "plot"))
    return d, manifest, summary


def check_manifest(path: Path, doc: Any, key: str = "plot") -> dict[str, Any]:
    """``doc`` if it is a sweep's manifest (``grid``: ``[[path, [values]], ...]``,
    ``runs``), else a ScenarioError naming the file and what is wrong."""
    grid = doc.get("grid", []) if isinstance(doc, dict) else None
    ok = isinstance(grid, list) and all(
        isinstance(g, list) and len(g) == 2 and isinstance(g[0], str) and isinstance(g[1], list)
        for g in grid
    )
    runs = doc.get("runs", 0) if isinstance(doc, dict) else None
    if not ok or not isinstance(runs, int) or isinstance(runs, bool) or runs < 0:
        raise ScenarioError(
            str(path), key, "not a skyhop sweep manifest (grid and runs not as skyhop writes them)"
        )
    return doc


def check_summary(path: Path, doc: Any, key: str = "plot") -> list[dict[str, Any]]:
    """``doc`` if it is a sweep's summary.json (per point: ``point``, ``set``,
    ``summary`` of ``{flow: {metric: {mean, ci95, n}}}``), else a
    ScenarioError naming the file and what is wrong."""

    def number(v: Any) -> bool:
        return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))

    def stats(st: Any) -> bool:
        return isinstance(st, dict) and all(
            number(st.get(k)) for k in ("mean", "ci95", "n", "unfinished")
        )

    ok = isinstance(doc, list) and all(
        isinstance(e, dict)
        and isinstance(e.get("point"), int)
        and isinstance(e.get("set"), dict)
        and isinstance(e.get("summary"), dict)
        and all(
            isinstance(per, dict) and all(stats(st) for st in per.values())
            for per in e["summary"].values()
        )
        for e in doc
    )
    if not ok:
        raise ScenarioError(
            str(path),
            key,
            "not a skyhop sweep summary (a list of points with set and summary, "
            "as 'skyhop sweep' writes it)",
        )
    return doc


def _label(path: str, value: Any) -> str:
    if path.endswith(".proxies"):
        return placement_label(value)
    return f"{path.rsplit('.', 1)[-1]} = {value}"


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def sweep_series(
    folder: str | Path, metric: str, *, x: str | None = None, flow: str | None = None
) -> dict[str, Any]:
    """What :func:`sweep_figure` draws: ``{"x": path or None, "categories":
    [labels] or None, "series": {label: [(x, {"mean", "ci95", "n"}), ...]},
    "runs": runs per point, "scenario": file name}``. The x path defaults
    to the first numeric swept path with more than one value, else the
    first swept path; one series per combination of the other swept paths
    (and per flow, unless ``flow`` picks one). Unknown metric, path or flow:
    ScenarioError naming it and what there is."""
    d, manifest, summary = _sweep_folder(folder)
    paths = [p for p, _ in manifest.get("grid", [])]
    flows = sorted({f for e in summary for f in e["summary"]})
    metrics = sorted({m for e in summary for per in e["summary"].values() for m in per})
    if metric not in metrics:
        raise ScenarioError(
            str(d / "summary.json"),
            "--metric",
            f"unknown metric {metric!r} (metrics: {', '.join(metrics) or 'none'})",
        )
    if flow is not None and flow not in flows:
        raise ScenarioError(
            str(d / "summary.json"), "--flow", f"unknown flow {flow!r} (flows: {', '.join(flows)})"
        )
    from .quantities import quantity_axis

    def numbers(p: str) -> dict[Any, float] | None:
        """The swept values of ``p`` as numbers: numbers, or quantities
        with units (``"5 MB"``) in one unit."""
        values = list(dict.fromkeys(_hashable(e["set"].get(p)) for e in summary))
        if all(_is_number(v) for v in values):
            return {v: float(v) for v in values}
        axis = quantity_axis(values)
        return None if axis is None else dict(zip(values, axis.values, strict=True))

    def several(p: str) -> bool:
        return len({_hashable(e["set"].get(p)) for e in summary}) > 1

    if x is None:
        # the first swept path with several values, numbers first
        varied = [p for p in paths if several(p)]
        numeric = [p for p in varied if numbers(p) is not None]
        x = (numeric or varied or paths or [None])[0]
    elif x not in paths:
        raise ScenarioError(
            str(d / "sweep.json"),
            "--x",
            f"{x!r} is not a swept path (swept: {', '.join(paths) or 'none'})",
        )
    as_numbers = numbers(x) if x is not None else None
    x_unit = None
    if as_numbers is not None and not all(_is_number(e["set"].get(x)) for e in summary):
        x_unit = quantity_axis(list(as_numbers)).unit  # type: ignore[union-attr]
    categorical = as_numbers is None
    categories: list[str] = []
    if categorical:
        for e in summary:
            c = _label(x, e["set"].get(x)) if x else ""
            if c not in categories:
                categories.append(c)
    others = [p for p in paths if p != x]
    shown = [flow] if flow is not None else flows
    groups: dict[str, list[tuple[Any, dict[str, Any]]]] = {}
    for e in summary:
        for f in shown:
            per = e["summary"].get(f, {})
            st = per.get(metric)
            if st is None:
                continue
            if st.get("unfinished"):
                # a lower bound: each unfinished run counted up to its end
                st = {**st, "at_least": (per.get("active_time_s") or {}).get("mean")}
            parts = [_label(p, e["set"].get(p)) for p in others]
            if len(shown) > 1:
                parts.append(f"flow {f}")
            key = ", ".join(parts) or (f"flow {f}" if f else metric)
            if categorical:
                xv = categories.index(_label(x, e["set"].get(x)) if x else "")
            else:
                xv = as_numbers[_hashable(e["set"].get(x))]  # type: ignore[index]
            groups.setdefault(key, []).append((xv, st))
    if not any(
        st.get("mean") is not None or st.get("at_least") is not None
        for pts in groups.values()
        for _, st in pts
    ):
        raise ScenarioError(
            str(d / "summary.json"),
            "--metric",
            f"{metric!r} has no value in this sweep"
            + (f" for flow {flow!r}" if flow is not None else ""),
        )
    return {
        "x": x,
        "categories": categories if categorical else None,
        "x_unit": x_unit,
        "series": {k: sorted(v, key=lambda t: t[0]) for k, v in groups.items()},
        "runs": int(manifest.get("runs", 0)) or None,
        "scenario": Path(str(manifest.get("scenario", ""))).name,
    }


def _hashable(v: Any) -> Any:
    return json.dumps(v, sort_keys=True) if isinstance(v, (list, dict)) else v


def sweep_figure(
    folder: str | Path,
    metric: str,
    out: str | Path,
    *,
    x: str | None = None,
    flow: str | None = None,
    scale: float = 1.0,
) -> list[Path]:
    """Draw a sweep's ``metric`` (mean with its 95 % CI) against one swept
    path (:func:`sweep_series`); returns the files written (FILE.png, .pdf
    or .svg as named; all three beside any other name)."""
    from .quantities import metric_label, path_label

    data = sweep_series(folder, metric, x=x, flow=flow)
    x, categories, groups = data["x"], data["categories"], data["series"]
    categorical = categories is not None
    label, unit_scale = metric_label(metric)
    scale = scale if scale != 1.0 else unit_scale
    fig, ax = figure(8.5, 4.6)
    k = len(groups)
    for i, (name, pts) in enumerate(groups.items()):
        # categories: the series side by side around each category, not on top
        dodge = (i - (k - 1) / 2) * min(0.08, 0.6 / k) if categorical else 0.0
        errorbar_series(
            ax, [p + dodge for p, _ in pts], {name: [st for _, st in pts]}, start=i, scale=scale
        )
    if categorical:
        long = sum(len(c) for c in categories) > 60
        ax.set_xticks(
            range(len(categories)),
            categories,
            fontsize=8,
            rotation=25 if long else 0,
            ha="right" if long else "center",
        )
    else:
        xs = [p for pts in groups.values() for p, _ in pts]
        if min(xs) > 0 and max(xs) / min(xs) > 50:
            ax.set_xscale("log")
        else:
            ax.ticklabel_format(axis="x", style="plain", useOffset=False)
    ax.ticklabel_format(axis="y", style="plain", useOffset=False)
    ax.set_xlabel(path_label(x, data["x_unit"]) if x else "")
    ax.set_ylabel(label if scale == unit_scale else f"{label} / {scale:g}")
    ax.set_title(f"{data['scenario']}: {label}", fontsize=10)
    ci_legend(ax, data["runs"])
    stem, formats = output_stem(out)
    return save_figure(fig, stem, formats)


# ---------------------------------------------------------------------------
# distributions: the CDF of a column of result tables


def _tables_of_source(source: str | Path, names: Sequence[str] | None):
    """``(what, {table: DataFrame}, group columns)`` of a sweep folder (its
    ``<table>.parquet``, grouped by the swept paths) or of the JSON document
    of ``skyhop run --json`` saved to a file (grouped by flow)."""

    src = Path(source)
    if src.is_dir():
        d, manifest, _ = _sweep_folder(src)
        paths = [p for p, _ in manifest.get("grid", [])]
        found = {p.stem: p for p in sorted(d.glob("*.parquet"))}
        for reserved in ("results", "summary", "traces"):
            found.pop(reserved, None)
        tables = {
            name: read_results_table(path)
            for name, path in found.items()
            if names is None or name in names
        }
        scn = Path(str(manifest.get("scenario", ""))).name
        title = f"{scn}: sweep {d.name}, {manifest.get('runs')} runs per point"
        return title, tables, paths, list(found)
    if not src.exists():
        raise ScenarioError(str(src), "plot", "no such file or folder")
    doc = _read_json(src, "plot")  # refuses what is not a regular file
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
        raise ScenarioError(
            str(src),
            "plot",
            "not a sweep folder nor the JSON document of 'skyhop run --json' (no runs)",
        )
    from .api import Results

    if not all(isinstance(r, dict) and isinstance(r.get("flows", {}), dict) for r in doc["runs"]):
        raise ScenarioError(
            str(src), "plot", "not the JSON document of 'skyhop run --json' (runs not as written)"
        )
    try:
        frames = Results(doc.get("scenario", {}), doc["runs"]).tables()
    except (TypeError, ValueError, KeyError, AttributeError) as e:
        raise ScenarioError(
            str(src), "plot", f"not the JSON document of 'skyhop run --json' ({e})"
        ) from None
    tables = {k: v for k, v in frames.items() if names is None or k in names}
    seeds = [r.get("seed") for r in doc["runs"]]
    title = f"{src.name}: {len(seeds)} run{'s' if len(seeds) != 1 else ''}"
    if seeds:
        title += f" (seeds {min(seeds)}..{max(seeds)})" if len(seeds) > 1 else f" (seed {seeds[0]})"
    return title, tables, [], list(frames)


def cdf_series(
    source: str | Path,
    column: str,
    *,
    tables: Sequence[str] | None = None,
    flow: str | None = None,
) -> tuple[str, dict[str, dict[str, tuple[Any, int]]]]:
    """What :func:`cdf_figure` draws: ``(title, {table: {label: (sorted
    values, rows without a value)}})`` for every result table of ``source``
    with ``column``, one label per sweep point (its swept values) or, for a
    run document, per flow. Unknown table, column or flow: ScenarioError
    naming it and what there is."""
    import numpy as np

    what, frames, paths, known = _tables_of_source(source, tables)
    if tables is not None:
        missing = [t for t in tables if t not in known]
        if missing:
            raise ScenarioError(
                str(source),
                "--table",
                f"no table {missing[0]!r} (tables: {', '.join(sorted(known)) or 'none'})",
            )
    with_col = {name: df for name, df in frames.items() if column in df.columns}
    if not with_col:
        cols = sorted({c for df in frames.values() for c in df.columns})
        raise ScenarioError(
            str(source),
            "--cdf",
            f"no table has a column {column!r} (tables: {', '.join(sorted(frames)) or 'none'}; "
            f"columns: {', '.join(cols) or 'none'})",
        )
    if flow is not None:
        flows = sorted({f for df in with_col.values() if "flow" in df for f in df["flow"]})
        if flow not in flows:
            raise ScenarioError(
                str(source), "--flow", f"unknown flow {flow!r} (flows: {', '.join(flows)})"
            )
    out: dict[str, dict[str, tuple[Any, int]]] = {}
    for name, df in with_col.items():
        if flow is not None and "flow" in df:
            df = df[df["flow"] == flow]
        keys = [p for p in paths if p in df.columns] or (["flow"] if "flow" in df else [])
        groups = df.groupby(keys, sort=True, dropna=False) if keys else [((), df)]
        out[name] = {}
        for key, g in groups:
            key = key if isinstance(key, tuple) else (key,)
            values = np.sort(g[column].dropna().to_numpy(dtype=float))
            label = (
                ", ".join(
                    _label(k, v) if k != "flow" else f"flow {v}"
                    for k, v in zip(keys, key, strict=True)
                )
                or name
            )
            out[name][label] = (values, len(g) - len(values))
    return what, out


def cdf_figure(
    source: str | Path,
    column: str,
    out: str | Path,
    *,
    tables: Sequence[str] | None = None,
    flow: str | None = None,
) -> list[Path]:
    """The empirical CDF of ``column`` in every result table that has it
    (e.g. ``response_time_s`` of a web session's ``objects`` and ``pages``):
    one panel per table, one line per sweep point (or per flow of a run
    document; :func:`cdf_series`). Rows without a value (an object that
    never completed) are left out and counted in the legend. ``source`` is
    a sweep folder or a file holding the ``skyhop run --json`` document."""
    import numpy as np

    what, data = cdf_series(source, column, tables=tables, flow=flow)
    fig, axes = subplots(1, len(data), width=5.2 * len(data) + 2.2, height=4.2)
    for ax, (name, lines) in zip(axes[0], data.items(), strict=True):
        for i, (label, (values, missing)) in enumerate(lines.items()):
            text = f"{label} (n = {len(values)}" + (
                f", {missing} without a value)" if missing else ")"
            )
            if len(values):
                style = series_style(i)
                ax.step(
                    values,
                    np.arange(1, len(values) + 1) / len(values),
                    where="post",
                    color=style["color"],
                    linestyle=style["linestyle"],
                    linewidth=1.4,
                    label=text,
                )
        ax.set_xlabel(f"{column} ({name})")
        ax.set_ylabel("fraction of rows ≤ x")
        ax.set_ylim(0, 1.02)
        ax.set_title(f"{name}: empirical CDF", fontsize=10)
        every = np.concatenate([v for v, _ in lines.values()]) if lines else np.array([])
        if len(every) and every.min() > 0 and every.max() / every.min() > 50:
            ax.set_xscale("log")
        handles = ax.get_legend_handles_labels()
        ax.legend(
            *handles,
            loc="upper left",
            bbox_to_anchor=(0.0, -0.16),
            fontsize=7,
            title="rows with a value (n)",
            title_fontsize=7,
            frameon=False,
        )
    fig.suptitle(what, fontsize=10)
    fig.tight_layout()
    stem, formats = output_stem(out)
    return save_figure(fig, stem, formats)


# ---------------------------------------------------------------------------
# traced time series: RTT, windows, queues, delays over time


def _trace_table(source: str | Path):
    """The long trace table of ``source``: a file written by ``skyhop run
    --trace-out`` (.parquet or .csv), a run document (``skyhop run --trace
    --json`` saved to a .json file) or a sweep folder run with ``--trace``
    (its ``traces.parquet``); the swept paths of a sweep, else []."""
    import pandas as pd

    src = Path(source)
    paths: list[str] = []
    if src.is_dir():
        d, manifest, _ = _sweep_folder(src)
        paths = [p for p, _ in manifest.get("grid", [])]
        src = d / "traces.parquet"
        if not src.is_file():
            raise ScenarioError(
                str(d), "--trace", "the sweep has no traces: run it with 'skyhop sweep ... --trace'"
            )
    if not src.is_file():
        what = "not a regular file" if src.exists() else "no such file or folder"
        raise ScenarioError(str(src), "plot", what)
    suffix = src.suffix.lower()
    try:
        if suffix == ".parquet":
            df = read_results_table(src)
        elif suffix == ".csv":
            import io

            df = pd.read_csv(io.BytesIO(_read_bytes(src, "plot")))
        elif suffix == ".json":
            from .traces import trace_columns, trace_frame

            doc = _read_json(src, "plot")
            if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
                raise ScenarioError(
                    str(src), "plot", "not the JSON document of 'skyhop run --json' (no runs)"
                )
            df = trace_frame(trace_columns(r for r in doc["runs"] if isinstance(r, dict)))
        else:
            raise ScenarioError(
                str(src),
                "plot",
                "--trace reads a trace table (.parquet or .csv of --trace-out), a run "
                "document (.json) or a sweep folder",
            )
    except ScenarioError:
        raise
    except Exception as e:  # a damaged or foreign file: named, in one line
        raise ScenarioError(str(src), "plot", f"cannot read it ({type(e).__name__}: {e})") from None
    need = {"seed", "flow", "leg", "series", "t_s", "value"}
    if not need <= set(df.columns):
        raise ScenarioError(
            str(src),
            "plot",
            f"not a trace table (columns {', '.join(sorted(need - set(df.columns)))} missing)",
        )
    return src, df, [p for p in paths if p in df.columns]


def pd_na() -> Any:
    """pandas' missing value (a missing flow or leg of a trace table)."""
    import pandas as pd

    return pd.NA


def _trace_owner(flow: Any, leg: Any, series: str) -> str:
    """What a series belongs to, in words: ``flow ftp, leg 0``, ``link
    ab forward``, ``flow ftp, proxy at T``, ``route A>B``."""

    def known(v: Any) -> bool:
        return v is not None and v is not pd_na() and not (isinstance(v, float) and math.isnan(v))

    if series.startswith("link.") and series.endswith(".queue"):
        return "link " + series[len("link.") : -len(".queue")].replace(".", " ")
    if series.startswith("route.") and series.endswith(".delay"):
        return "route " + series[len("route.") : -len(".delay")]
    if series.startswith("proxy.") and known(flow):
        return f"flow {flow}, proxy at {series[len('proxy.') :].rsplit('.', 1)[0]}"
    if known(flow):
        return f"flow {flow}" + (f", leg {int(leg)}" if known(leg) else "")
    return series.rsplit(".", 1)[0]


def trace_series(
    source: str | Path,
    quantities: Sequence[str],
    *,
    flow: str | None = None,
    seed: int | None = None,
) -> tuple[str, dict[str, dict[str, tuple[Any, Any]]]]:
    """What :func:`trace_figure` draws: ``(title, {quantity: {line label:
    (t_s, value)}})``, one line per series of each quantity (per owner, and
    per seed and sweep point when there are several), values in the unit
    of :func:`skyhop.quantities.trace_label`. Unknown quantity, flow or
    seed: ScenarioError naming it and what there is."""
    from .quantities import trace_label

    src, df, paths = _trace_table(source)
    df = df.copy()
    df["quantity"] = df["series"].astype(str).str.rsplit(".", n=1).str[-1]
    have = sorted(df["quantity"].unique())
    for q in quantities:
        if q not in have:
            raise ScenarioError(
                str(src), "--trace", f"no traced {q!r} here (traced: {', '.join(have) or 'none'})"
            )
    if flow is not None:
        flows = sorted({str(f) for f in df["flow"].dropna().unique()})
        if flow not in flows:
            raise ScenarioError(
                str(src), "--flow", f"unknown flow {flow!r} (flows: {', '.join(flows) or 'none'})"
            )
        df = df[df["flow"] == flow]
    seeds = sorted(int(s) for s in df["seed"].unique())
    if seed is not None:
        if seed not in seeds:
            raise ScenarioError(
                str(src), "--seed", f"no run with seed {seed} (seeds: {', '.join(map(str, seeds))})"
            )
        df = df[df["seed"] == seed]
        seeds = [seed]
    keys = [*paths, "seed"] if len(seeds) > 1 or paths else []
    out: dict[str, dict[str, tuple[Any, Any]]] = {}
    for q in quantities:
        scale = trace_label(q)[1]
        sub = df[df["quantity"] == q]
        lines: dict[str, tuple[Any, Any]] = {}
        for (fl, leg, series, *rest), g in sub.groupby(
            ["flow", "leg", "series", *keys], sort=True, dropna=False
        ):
            g = g.sort_values("t_s", kind="stable")
            label = ", ".join(
                [_trace_owner(fl, leg, str(series))]
                + [
                    _label(k, v) if k != "seed" else f"seed {v}"
                    for k, v in zip(keys, rest, strict=True)
                ]
            )
            lines[label] = (g["t_s"].to_numpy(), g["value"].to_numpy(dtype=float) / scale)
        out[q] = lines
    runs = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {seeds[0]}..{seeds[-1]}"
    return f"{src.name}: traces over time ({runs})", out


def trace_figure(
    source: str | Path,
    quantities: Sequence[str],
    out: str | Path,
    *,
    flow: str | None = None,
    seed: int | None = None,
    epochs: str | None = None,
) -> list[Path]:
    """Traced quantities over time (:func:`trace_series`): one panel per
    quantity (a shared time axis), one step line per series, the epoch
    boundaries dashed (:func:`skyhop.rtt_plot.trace_epochs`); returns the
    files written."""
    from .quantities import trace_label
    from .rtt_plot import mark_epochs, trace_epochs

    title, data = trace_series(source, quantities, flow=flow, seed=seed)
    end = max((float(t[-1]) for ls in data.values() for t, _ in ls.values() if len(t)), default=0)
    marks = trace_epochs(source, seed, epochs, end)
    fig, axes = subplots(len(data), 1, width=10, height=2.6 * len(data) + 0.8, sharex=True)
    for ax, (q, lines) in zip(axes[:, 0], data.items(), strict=True):
        for i, (label, (t, v)) in enumerate(lines.items()):
            style = series_style(i)
            ax.step(
                t,
                v,
                where="post",
                color=style["color"],
                linestyle=style["linestyle"],
                linewidth=1.1,
                label=label,
            )
        mark_epochs(ax, marks)
        ax.set_ylabel(trace_label(q)[0])
        ax.ticklabel_format(axis="y", style="plain", useOffset=False)
        ax.legend(
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            fontsize=7,
            frameon=False,
            title=f"{q} ({len(lines)} series)",
            title_fontsize=7,
        )
    axes[-1][0].set_xlabel("time (s)")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    stem, formats = output_stem(out)
    return save_figure(fig, stem, formats)
