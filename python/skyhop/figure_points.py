"""What a figure says about each of its points: how many runs a mean is
over, and which points are lower bounds.

A mean of a metric is over the runs that have a value of it; a transfer
that had not finished when its run ended has no completion time. So a
point of a figure is not always over the runs per point the legend states.
:func:`skyhop.figures.errorbar_series` and :func:`~skyhop.figures.bar_groups`
note each point they draw (:func:`note`); the legend (``ci_legend``,
``figure_legend``) then marks, against the runs per point (:func:`mark`):

- a point with unfinished runs (a sweep summary's ``unfinished``, with
  ``at_least``: the mean with each unfinished run counted up to its run's
  end): drawn at that lower bound, hollow, without an error bar, labelled
  "≥ (k/n unfinished)";
- a point over fewer runs than the others (runs without a value left out):
  hollow, labelled "n = 13";

and the legend's title says what the marks mean.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = ["FEWER_NOTE", "UNFINISHED_NOTE", "mark", "note", "point_y"]

UNFINISHED_NOTE = "hollow ≥: transfers unfinished at the run's end, counted to it (a lower bound)"
FEWER_NOTE = "hollow, n shown: runs without a value left out"


def point_y(p: dict[str, Any] | None, scale: float) -> tuple[float, float | None]:
    """``(y, half-width or None)`` of a point: its mean with its CI, or
    for a point with unfinished runs its lower bound and no interval."""
    if p and p.get("unfinished") and p.get("at_least") is not None:
        return p["at_least"] / scale, None
    if not p or p.get("mean") is None:
        return math.nan, None
    ci = p.get("ci95")
    return p["mean"] / scale, None if ci is None else ci / scale


def note(
    ax: Any, xs: Sequence[float], ys: Sequence[float], pts: Sequence[Any], style: dict[str, Any]
) -> None:
    """Remember the points drawn on ``ax`` (with their statistics)."""
    noted = ax.__dict__.setdefault("_skyhop_points", [])
    for x, y, p in zip(xs, ys, pts, strict=True):
        noted.append((x, y, p, style.get("color", "black"), style.get("marker", "o")))


def mark(ax: Any, runs: int | None) -> list[str]:
    """Mark the noted points of ``ax`` that are lower bounds or over fewer
    than ``runs`` runs (once per axes); the legend notes they need."""
    notes: list[str] = []
    points = ax.__dict__.pop("_skyhop_points", [])
    for x, y, p, color, marker in points:
        if not isinstance(p, dict) or y is None or math.isnan(y):
            continue
        k = p.get("unfinished") or 0
        n = p.get("n")
        if k:
            text = f"≥ ({k}/{(n or 0) + k} unfinished)"
            if UNFINISHED_NOTE not in notes:
                notes.append(UNFINISHED_NOTE)
        elif runs and n is not None and n < runs:
            text = f"n = {n}"
            if FEWER_NOTE not in notes:
                notes.append(FEWER_NOTE)
        else:
            continue
        ax.plot(
            [x],
            [y],
            marker=marker,
            markersize=8,
            markerfacecolor="white",
            markeredgecolor=color,
            markeredgewidth=1.4,
            linestyle="none",
            zorder=4,
        )
        lo, hi = ax.get_xlim()
        right = (x - lo) > 0.6 * (hi - lo) if hi > lo else False
        ax.annotate(
            text,
            (x, y),
            textcoords="offset points",
            xytext=(-6, 6) if right else (6, 6),
            ha="right" if right else "left",
            fontsize=6.5,
            color=color,
        )
    return notes
