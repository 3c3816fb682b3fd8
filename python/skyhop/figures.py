"""Figures: one place for every figure skyhop draws (the experiments, the
report's palette, ``skyhop plot``).

Conventions (one place, so every figure follows them):

- each figure is written as PNG (for a quick look), PDF and SVG (for papers);
- a mean is drawn with its 95 % Student-t confidence interval (error bars,
  or a band for dense curves), and the figure says so with the number of
  runs per point: "error bars: 95 % CI, n = 20 runs per point" (the
  legend's title);
- axes carry their quantity and unit;
- series differ by marker *and* line style (bars by hatching), never by
  colour alone; the colours are the Okabe–Ito colour-blind-safe palette;
- the legend sits outside the axes, so it hides no point;
- published values, where the studies give numbers, are drawn beside ours
  as hollow black markers (or hatched white bars) labelled with their source;
- a reference line is drawn only with a label saying what it is;
- several series that would overlap unreadably go to small multiples
  (one panel each, shared axes);
- proxy placements are named in words ("no proxy", "proxy at T",
  "proxies at T and S"), not as lists.

Only the standard library is imported here; matplotlib and pandas are
imported by the functions that draw or read tables.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._output import write_with
from .errors import ScenarioError

__all__ = [
    "FORMATS",
    "HATCHES",
    "LINESTYLES",
    "MARKERS",
    "PALETTE",
    "bar_groups",
    "cdf_figure",
    "cdf_series",
    "ci_legend",
    "ci_title",
    "errorbar_series",
    "figure",
    "figure_legend",
    "placement_label",
    "plt",
    "published_points",
    "reference_line",
    "save_figure",
    "series_style",
    "subplots",
    "sweep_figure",
    "sweep_series",
]

#: the files written for every figure
FORMATS = ("png", "pdf", "svg")
#: Okabe–Ito colour-blind-safe palette
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LINESTYLES = ["-", "--", ":", "-.", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1))]
#: bar fills told apart without colour
HATCHES = ["", "//", "..", "xx", "\\\\", "++", "--", "oo"]
#: how published values are drawn beside ours
PUBLISHED_STYLE = {
    "marker": "o",
    "markersize": 9,
    "markerfacecolor": "none",
    "markeredgecolor": "black",
    "markeredgewidth": 1.4,
    "linestyle": "none",
}


def series_style(i: int) -> dict[str, Any]:
    """Colour, marker and line style of the i-th series (marker and line
    style alone tell the series apart)."""
    return {
        "color": PALETTE[i % len(PALETTE)],
        "marker": MARKERS[i % len(MARKERS)],
        "linestyle": LINESTYLES[i % len(LINESTYLES)],
    }


def placement_label(proxies: Any) -> str:
    """Proxy placement in words: ``[]`` → "no proxy", ``["T"]`` → "proxy at T",
    ``["T", "S"]`` → "proxies at T and S" (also from the text ``'["T", "S"]'``)."""
    if isinstance(proxies, str):
        text = proxies.strip()
        if text in ("", "none", "[]"):
            return "no proxy"
        if text.startswith("["):
            try:
                proxies = json.loads(text)
            except ValueError:
                return text
        else:
            proxies = list(text) if text.isalpha() and text.isupper() else [text]
    nodes = [str(p) for p in proxies]
    if not nodes:
        return "no proxy"
    if len(nodes) == 1:
        return f"proxy at {nodes[0]}"
    return "proxies at " + ", ".join(nodes[:-1]) + " and " + nodes[-1]


def plt():
    """matplotlib.pyplot with a headless backend; SVG element ids from a fixed
    salt, so that the same figure is the same bytes every time."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "skyhop"
    import matplotlib.pyplot as pyplot

    return pyplot


def figure(width: float = 7.5, height: float = 4.2):
    """One axes with room on the right for the legend."""
    fig, ax = plt().subplots(figsize=(width, height))
    ax.grid(True, alpha=0.3)
    return fig, ax


def subplots(nrows: int, ncols: int, *, width: float, height: float, **kwargs: Any):
    """Small multiples: a grid of axes (``squeeze=False``: always 2-D), gridded."""
    fig, axes = plt().subplots(nrows, ncols, figsize=(width, height), squeeze=False, **kwargs)
    for ax in axes.flat:
        ax.grid(True, alpha=0.3)
    return fig, axes


def _mean(p: dict[str, Any] | None, scale: float = 1.0) -> float:
    if not p or p.get("mean") is None:
        return math.nan
    return p["mean"] / scale


def _ci(p: dict[str, Any] | None, scale: float = 1.0) -> float:
    """The half-width of the 95 % CI (0 where there is none: a single run)."""
    if not p or p.get("ci95") is None:
        return 0.0
    return p["ci95"] / scale


def errorbar_series(
    ax,
    xs: Sequence[Any],
    series: dict[str, list[dict[str, Any]]],
    *,
    scale: float = 1.0,
    start: int = 0,
    band: bool = False,
) -> None:
    """One line per label: means with their 95 % CI (``{"mean", "ci95", "n"}``
    points) as error bars, or with ``band`` as a shaded band."""
    for i, (label, pts) in enumerate(series.items()):
        ys = [_mean(p, scale) for p in pts]
        es = [_ci(p, scale) for p in pts]
        style = series_style(start + i)
        if band:
            ax.plot(xs, ys, markersize=4, linewidth=1.4, label=label, **style)
            ax.fill_between(
                xs,
                [y - e for y, e in zip(ys, es, strict=True)],
                [y + e for y, e in zip(ys, es, strict=True)],
                color=style["color"],
                alpha=0.18,
                linewidth=0,
            )
        else:
            ax.errorbar(
                xs, ys, yerr=es, capsize=3, markersize=5, linewidth=1.4, label=label, **style
            )


def bar_groups(
    ax,
    groups: Sequence[str],
    series: dict[str, list[dict[str, Any] | None]],
    *,
    scale: float = 1.0,
    start: int = 0,
    published: dict[str, list[float | None]] | None = None,
    fontsize: float = 8,
) -> None:
    """Grouped bars: one group per label of ``groups``, one bar per series
    (mean with its 95 % CI as an error bar), told apart by colour *and*
    hatching. ``published``: series of published values, drawn as white
    hatched bars without error bars beside ours."""
    published = published or {}
    k = len(series) + len(published)
    width = 0.8 / max(k, 1)
    for j, (label, pts) in enumerate(series.items()):
        xs = [g + (j - (k - 1) / 2) * width for g in range(len(groups))]
        ax.bar(
            xs,
            [_mean(p, scale) for p in pts],
            width,
            yerr=[_ci(p, scale) for p in pts],
            capsize=2,
            label=label,
            color=PALETTE[(start + j) % len(PALETTE)],
            edgecolor="black",
            linewidth=0.6,
            hatch=HATCHES[(start + j) % len(HATCHES)],
            error_kw={"elinewidth": 1.0, "ecolor": "black"},
        )
    for m, (label, values) in enumerate(published.items()):
        j = len(series) + m
        xs = [g + (j - (k - 1) / 2) * width for g in range(len(groups))]
        ax.bar(
            xs,
            [math.nan if v is None else v / scale for v in values],
            width,
            label=label,
            color="white",
            edgecolor="black",
            linewidth=0.6,
            hatch="//",
        )
    ax.set_xticks(range(len(groups)), list(groups), fontsize=fontsize)
    ax.grid(True, axis="y", alpha=0.3)
    ax.grid(False, axis="x")
    means = [_mean(p, scale) for pts in series.values() for p in pts]
    if all(m >= 0 for m in means if not math.isnan(m)):
        ax.set_ylim(bottom=0)  # a quantity that cannot be negative: the axis starts at 0


def published_points(
    ax,
    xs: Sequence[Any],
    values: Sequence[float | None],
    label: str,
    *,
    colors: Sequence[str] | None = None,
) -> None:
    """Published values beside ours: hollow circles, labelled once with
    their source; with ``colors``, each circle takes the colour of the
    series it belongs to (the legend shows a black one)."""
    ys = [math.nan if v is None else v for v in values]
    if colors is None:
        ax.plot(list(xs), ys, label=label, **PUBLISHED_STYLE)
        return
    for x, y, c in zip(xs, ys, colors, strict=True):
        ax.plot([x], [y], **{**PUBLISHED_STYLE, "markeredgecolor": c})
    ax.plot([], [], label=label, **PUBLISHED_STYLE)


def reference_line(
    ax,
    y: float,
    label: str,
    *,
    vertical: bool = False,
    color: str = "0.4",
    linestyle: Any = (0, (1, 2)),
) -> None:
    """A horizontal (or vertical) reference line that says in the legend what it is."""
    draw = ax.axvline if vertical else ax.axhline
    draw(y, color=color, linestyle=linestyle, linewidth=1.0, label=label)


def ci_title(n: int | None, *, what: str = "runs per point") -> str:
    """The note every figure of means carries (the report's figures too):
    "error bars: 95 % CI, n = 20 runs per point"."""
    if not n:
        return "error bars: 95 % CI"
    return f"error bars: 95 % CI, n = {n} {what}"


def ci_legend(ax, n: int | None = None, *, what: str = "runs per point", **kwargs: Any) -> None:
    """The legend, outside the axes on the right, titled with :func:`ci_title`."""
    ax.legend(
        title=kwargs.pop("title", ci_title(n, what=what)),
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
        fontsize="small",
        title_fontsize="small",
        **kwargs,
    )


def figure_legend(fig, ax, n: int | None = None, *, title: str | None = None, right=0.8) -> None:
    """One legend for a figure of several axes, to the right of them (so it
    hides no point), with the handles of ``ax``, titled with :func:`ci_title`."""
    handles, labels = ax.get_legend_handles_labels()
    fig.tight_layout(rect=(0, 0, right, 1))
    fig.legend(
        handles,
        labels,
        loc="upper left",
        bbox_to_anchor=(right + 0.01, 0.95),
        fontsize=8,
        title=title if title is not None else ci_title(n).replace(", n", ",\nn"),
        title_fontsize=8,
    )


def save_figure(fig, stem: str | Path, formats: Sequence[str] = FORMATS) -> list[Path]:
    """Write ``stem.png``, ``stem.pdf`` and ``stem.svg`` (legend included) and close the figure."""
    stem = Path(stem)
    if stem.suffix.lower() in {f".{f}" for f in FORMATS}:
        stem = stem.with_suffix("")
    paths = []
    for fmt in formats:
        path = stem.with_suffix(f".{fmt}")
        write_with(
            path,
            lambda tmp, fmt=fmt: fig.savefig(
                tmp,
                format=fmt,
                dpi=150 if fmt == "png" else None,
                bbox_inches="tight",
                metadata={"Date": None}
                if fmt == "svg"
                else {"CreationDate": None}
                if fmt == "pdf"
                else None,
            ),
        )
        paths.append(path)
    plt().close(fig)
    return paths


def _outputs(out: str | Path) -> tuple[Path, tuple[str, ...]]:
    """Where ``skyhop plot --out`` writes: FILE.png / .pdf / .svg as named, or
    all three beside a name without one of these suffixes."""
    path = Path(out)
    suffix = path.suffix.lower().lstrip(".")
    if suffix in FORMATS:
        return path.with_suffix(""), (suffix,)
    return path, FORMATS


# ---------------------------------------------------------------------------
# a sweep's metric against its swept keys


def _read_json(path: Path, key: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ScenarioError(str(path), key, f"cannot read it ({e})") from None


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
    return d, _read_json(d / "sweep.json", "plot"), _read_json(d / "summary.json", "plot")


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
    if x is None:
        numeric = [
            p
            for p in paths
            if all(_is_number(e["set"].get(p)) for e in summary)
            and len({e["set"].get(p) for e in summary}) > 1
        ]
        x = numeric[0] if numeric else (paths[0] if paths else None)
    elif x not in paths:
        raise ScenarioError(
            str(d / "sweep.json"),
            "--x",
            f"{x!r} is not a swept path (swept: {', '.join(paths) or 'none'})",
        )
    categorical = x is None or not all(_is_number(e["set"].get(x)) for e in summary)
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
            st = e["summary"].get(f, {}).get(metric)
            if st is None:
                continue
            parts = [_label(p, e["set"].get(p)) for p in others]
            if len(shown) > 1:
                parts.append(f"flow {f}")
            key = ", ".join(parts) or (f"flow {f}" if f else metric)
            if categorical:
                xv = categories.index(_label(x, e["set"].get(x)) if x else "")
            else:
                xv = e["set"].get(x)
            groups.setdefault(key, []).append((xv, st))
    if not any(st.get("mean") is not None for pts in groups.values() for _, st in pts):
        raise ScenarioError(
            str(d / "summary.json"),
            "--metric",
            f"{metric!r} has no value in this sweep"
            + (f" for flow {flow!r}" if flow is not None else ""),
        )
    return {
        "x": x,
        "categories": categories if categorical else None,
        "series": {k: sorted(v, key=lambda t: t[0]) for k, v in groups.items()},
        "runs": int(manifest.get("runs", 0)) or None,
        "scenario": Path(str(manifest.get("scenario", ""))).name,
    }


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
    data = sweep_series(folder, metric, x=x, flow=flow)
    x, categories, groups = data["x"], data["categories"], data["series"]
    categorical = categories is not None
    fig, ax = figure(8.5, 4.6)
    k = len(groups)
    for i, (label, pts) in enumerate(groups.items()):
        # categories: the series side by side around each category, not on top
        dodge = (i - (k - 1) / 2) * min(0.08, 0.6 / k) if categorical else 0.0
        errorbar_series(
            ax, [p + dodge for p, _ in pts], {label: [st for _, st in pts]}, start=i, scale=scale
        )
    if categorical:
        ax.set_xticks(range(len(categories)), categories, fontsize=8)
    xlabel = x or ""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(metric if scale == 1.0 else f"{metric} / {scale:g}")
    ax.set_title(f"{data['scenario']}: {metric}", fontsize=10)
    ci_legend(ax, data["runs"])
    stem, formats = _outputs(out)
    return save_figure(fig, stem, formats)


# ---------------------------------------------------------------------------
# distributions: the CDF of a column of result tables


def _tables_of_source(source: str | Path, names: Sequence[str] | None):
    """``(what, {table: DataFrame}, group columns)`` of a sweep folder (its
    ``<table>.parquet``, grouped by the swept paths) or of the JSON document
    of ``skyhop run --json`` saved to a file (grouped by flow)."""
    import pandas as pd

    src = Path(source)
    if src.is_dir():
        d, manifest, _ = _sweep_folder(src)
        paths = [p for p, _ in manifest.get("grid", [])]
        found = {p.stem: p for p in sorted(d.glob("*.parquet"))}
        for reserved in ("results", "summary", "traces"):
            found.pop(reserved, None)
        tables = {
            name: pd.read_parquet(path)
            for name, path in found.items()
            if names is None or name in names
        }
        scn = Path(str(manifest.get("scenario", ""))).name
        title = f"{scn}: sweep {d.name}, {manifest.get('runs')} runs per point"
        return title, tables, paths, list(found)
    if not src.is_file():
        raise ScenarioError(str(src), "plot", "no such file or folder")
    doc = _read_json(src, "plot")
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
        raise ScenarioError(
            str(src),
            "plot",
            "not a sweep folder nor the JSON document of 'skyhop run --json' (no runs)",
        )
    from .api import Results

    frames = Results(doc.get("scenario", {}), doc["runs"]).tables()
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
    stem, formats = _outputs(out)
    return save_figure(fig, stem, formats)
