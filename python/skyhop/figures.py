"""Figures: one place for every figure skyhop draws (the experiments, the
report's palette, ``skyhop plot``, whose figures :mod:`skyhop.plot` draws
with these).

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

__all__ = [
    "FORMATS",
    "HATCHES",
    "LINESTYLES",
    "MARKERS",
    "PALETTE",
    "bar_groups",
    "ci_legend",
    "ci_title",
    "errorbar_series",
    "figure",
    "figure_legend",
    "output_stem",
    "placement_label",
    "plt",
    "published_points",
    "reference_line",
    "save_figure",
    "series_style",
    "subplots",
]

#: the files written for every figure
FORMATS = ("png", "pdf", "svg")


def output_stem(out: str | Path) -> tuple[Path, tuple[str, ...]]:
    """Where ``skyhop plot --out`` writes: FILE.png / .pdf / .svg as named, or
    all three beside a name without one of these suffixes."""
    path = Path(out)
    suffix = path.suffix.lower().lstrip(".")
    if suffix in FORMATS:
        return path.with_suffix(""), (suffix,)
    return path, FORMATS


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
    from .figure_points import note, point_y

    for i, (label, pts) in enumerate(series.items()):
        # a point with unfinished runs at its lower bound, without a CI
        ys = [point_y(p, scale)[0] for p in pts]
        es = [point_y(p, scale)[1] or 0.0 for p in pts]
        style = series_style(start + i)
        note(ax, list(xs), ys, pts, style)
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
    from .figure_points import note, point_y

    for j, (label, pts) in enumerate(series.items()):
        xs = [g + (j - (k - 1) / 2) * width for g in range(len(groups))]
        ys = [point_y(p, scale)[0] for p in pts]
        note(ax, xs, ys, pts, {"color": "black", "marker": "_"})
        ax.bar(
            xs,
            ys,
            width,
            yerr=[point_y(p, scale)[1] or 0.0 for p in pts],
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
    """The legend, outside the axes on the right, titled with :func:`ci_title`
    and what the marks of points over fewer runs, or with unfinished ones,
    mean (:mod:`skyhop.figure_points`; the figure's other axes marked too)."""
    from .figure_points import mark

    notes: list[str] = []
    for other in ax.figure.axes:
        notes += [t for t in mark(other, n) if t not in notes]
    ax.legend(
        title="\n".join([kwargs.pop("title", ci_title(n, what=what)), *notes]),
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
    from .figure_points import mark

    notes: list[str] = []
    for other in fig.axes:
        notes += [t for t in mark(other, n) if t not in notes]
    handles, labels = ax.get_legend_handles_labels()
    fig.tight_layout(rect=(0, 0, right, 1))
    fig.legend(
        handles,
        labels,
        loc="upper left",
        bbox_to_anchor=(right + 0.01, 0.95),
        fontsize=8,
        title="\n".join(
            [title if title is not None else ci_title(n).replace(", n", ",\nn"), *notes]
        ),
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
