"""Figures ready to publish, shared by every experiment (and by the HTML report).

Conventions (one place, so every figure follows them):

- each figure is written as PNG (for a quick look), PDF and SVG (for papers);
- error bars are 95 % Student-t confidence intervals, and say so in the
  legend's title together with the number of runs per point (n);
- axes carry their quantity and unit;
- series differ by marker *and* line style, never by colour alone (the
  colours are a colour-blind-safe palette on top);
- the legend sits outside the axes, so it hides no point;
- a reference line is drawn only with a label saying what it is;
- proxy placements are named in words ("no proxy", "proxy at T",
  "proxies at T and S"), not as lists.

Usage in an experiment module::

    from .plotting import figure, series_style, save_figure, errorbar_series, ci_legend

    fig, ax = figure()
    errorbar_series(ax, xs, {"NewReno, no proxy": pts, ...})
    ax.set_xlabel("packet error rate on W–U (fraction)")
    ax.set_ylabel("transfer time (s)")
    ci_legend(ax, n=20)
    save_figure(fig, out / "e1_transfer_time_vs_per")   # .png, .pdf, .svg
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "FORMATS",
    "MARKERS",
    "PALETTE",
    "ci_legend",
    "errorbar_series",
    "figure",
    "placement_label",
    "reference_line",
    "save_figure",
    "series_style",
]

#: the files written for every figure
FORMATS = ("png", "pdf", "svg")
#: Okabe–Ito colour-blind-safe palette
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LINESTYLES = ["-", "--", ":", "-.", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1))]


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
    """matplotlib.pyplot with a headless backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    return pyplot


def figure(width: float = 7.5, height: float = 4.2):
    """A figure with room on the right for the legend."""
    fig, ax = plt().subplots(figsize=(width, height))
    ax.grid(True, alpha=0.3)
    return fig, ax


def errorbar_series(
    ax,
    xs: Sequence[Any],
    series: dict[str, list[dict[str, Any]]],
    *,
    scale: float = 1.0,
    start: int = 0,
) -> None:
    """One line per label: means with 95 % CI error bars (``{"mean", "ci95", "n"}`` points)."""
    for i, (label, pts) in enumerate(series.items()):
        ys = [p["mean"] / scale if p.get("mean") is not None else math.nan for p in pts]
        es = [(p.get("ci95") or 0.0) / scale for p in pts]
        style = series_style(start + i)
        ax.errorbar(
            xs,
            ys,
            yerr=es,
            capsize=3,
            markersize=5,
            linewidth=1.4,
            label=label,
            **style,
        )


def reference_line(ax, y: float, label: str, *, vertical: bool = False) -> None:
    """A horizontal (or vertical) reference line that says in the legend what it is."""
    if vertical:
        ax.axvline(y, color="0.4", linestyle=(0, (1, 2)), linewidth=1.0, label=label)
    else:
        ax.axhline(y, color="0.4", linestyle=(0, (1, 2)), linewidth=1.0, label=label)


def ci_legend(ax, n: int | None = None, **kwargs: Any) -> None:
    """The legend, outside the axes on the right, titled with what the error bars are."""
    title = "error bars: 95 % CI" + (f", n = {n} runs per point" if n else "")
    ax.legend(
        title=title,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
        fontsize="small",
        title_fontsize="small",
        **kwargs,
    )


def figure_legend_right(fig, ax, title: str = "means over the runs") -> None:
    """One legend for the whole figure, to the right of the axes (so it hides
    no bar), with the handles of ``ax``."""
    handles, labels = ax.get_legend_handles_labels()
    fig.tight_layout(rect=(0, 0, 0.8, 1))
    fig.legend(
        handles,
        labels,
        loc="upper left",
        bbox_to_anchor=(0.81, 0.95),
        fontsize=8,
        title=title,
        title_fontsize=8,
    )


def save_figure(fig, stem: str | Path, formats: Sequence[str] = FORMATS) -> list[Path]:
    """Write ``stem.png``, ``stem.pdf`` and ``stem.svg`` (legend included) and close the figure."""
    stem = Path(stem)
    if stem.suffix.lower() in {".png", ".pdf", ".svg"}:
        stem = stem.with_suffix("")
    paths = []
    for fmt in formats:
        path = stem.with_suffix(f".{fmt}")
        fig.savefig(path, dpi=150 if fmt == "png" else None, bbox_inches="tight")
        paths.append(path)
    plt().close(fig)
    return paths
