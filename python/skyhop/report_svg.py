"""The inline SVG figures of ``skyhop report`` (and the number formats its
tables and figures share): each plotted point carries its values in an SVG
``<title>`` and ``data-*`` attributes."""

from __future__ import annotations

import html
import json
import math
from typing import Any

from .figures import PALETTE, ci_title


def num(x: Any) -> str:
    """A number as shown in the page: four significant digits."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def mean_ci(mean: Any, ci: Any, n: Any = None, scale: float = 1.0) -> str:
    """``mean ± ci`` as shown in the page: the CI to the decimals the mean
    shows at four significant digits (never ``± 4.472e-16``); ``(identical)``
    where every run gave the same value."""
    if mean is None:
        return "—"
    m = mean / scale
    if ci is not None and ci == 0 and isinstance(n, int) and n > 1:
        return f"{num(m)} (identical)"
    if isinstance(m, float) and m != 0 and 1e-3 <= abs(m) < 1e5:
        d = max(0, 3 - math.floor(math.log10(abs(m))))
        text = f"{m:.{d}f}"
        return text if ci is None else f"{text} ± {ci / scale:.{d}f}"
    return num(m) + ("" if ci is None else f" ± {ci / scale:.2g}")


# ---------------------------------------------------------------------------
# a sweep folder


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _value_attr(x: Any) -> str:
    return _e(json.dumps(x))


# ---------------------------------------------------------------------------
# SVG figures


MARKER_SHAPES = ["circle", "square", "triangle", "diamond", "down", "cross"]
DASHES = ["", "6 3", "2 3", "8 3 2 3", "4 2", "1 2"]


def _marker(shape: str, x: float, y: float, color: str, r: float = 4.0) -> str:
    if shape == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{color}"/>'
    if shape == "square":
        return f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r}" height="{2 * r}" fill="{color}"/>'
    if shape == "triangle":
        pts = f"{x:.1f},{y - r - 1:.1f} {x - r - 1:.1f},{y + r:.1f} {x + r + 1:.1f},{y + r:.1f}"
        return f'<polygon points="{pts}" fill="{color}"/>'
    if shape == "down":
        pts = f"{x:.1f},{y + r + 1:.1f} {x - r - 1:.1f},{y - r:.1f} {x + r + 1:.1f},{y - r:.1f}"
        return f'<polygon points="{pts}" fill="{color}"/>'
    if shape == "diamond":
        pts = f"{x:.1f},{y - r - 1:.1f} {x + r + 1:.1f},{y:.1f} {x:.1f},{y + r + 1:.1f} {x - r - 1:.1f},{y:.1f}"
        return f'<polygon points="{pts}" fill="{color}"/>'
    return (
        f'<path d="M{x - r:.1f},{y - r:.1f}L{x + r:.1f},{y + r:.1f}M{x - r:.1f},{y + r:.1f}'
        f'L{x + r:.1f},{y - r:.1f}" stroke="{color}" stroke-width="2"/>'
    )


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    if hi <= lo:
        hi = lo + 1.0
    span = hi - lo
    step = 10 ** math.floor(math.log10(span / n))
    for m in (1, 2, 2.5, 5, 10):
        if span / (step * m) <= n:
            step *= m
            break
    start = math.ceil(lo / step) * step
    out, v = [], start
    while v <= hi + step * 1e-9:
        out.append(round(v, 12))
        v += step
    return out


def svg_plot(
    title: str,
    xlabel: str,
    ylabel: str,
    series: list[tuple[str, list[dict[str, Any]]]],
    *,
    categories: list[str] | None = None,
    n_note: str = "",
    runs: int = 0,
) -> str:
    """An SVG line plot: ``series`` = [(label, [{"x", "mean", "ci95", "n"}, ...])].

    With ``categories``, x values are indices into it (a categorical axis).
    The legend is drawn to the right of the axes (it hides no point).
    """
    W, H, L, R, T, B = 860, 380, 70, 300, 34, 56
    pw, ph = W - L - R, H - T - B
    xs = [p["x"] for _, pts in series for p in pts]
    ys = [
        v
        for _, pts in series
        for p in pts
        if p.get("mean") is not None
        for v in (p["mean"] - (p.get("ci95") or 0), p["mean"] + (p.get("ci95") or 0))
    ]
    if not xs or not ys:
        return f'<p class="empty">{_e(title)}: no values to plot.</p>'
    x0, x1 = (min(xs), max(xs)) if xs else (0, 1)
    if categories is not None:
        x0, x1 = -0.5, len(categories) - 0.5
    elif x0 == x1:
        x0, x1 = x0 - 1, x1 + 1
    else:
        pad = (x1 - x0) * 0.04
        x0, x1 = x0 - pad, x1 + pad
    y0, y1 = min(0.0, min(ys)), max(ys)
    if y1 <= y0:
        y1 = y0 + 1
    y1 += (y1 - y0) * 0.05

    def sx(x: float) -> float:
        return L + (x - x0) / (x1 - x0) * pw

    def sy(y: float) -> float:
        return T + ph - (y - y0) / (y1 - y0) * ph

    out = [
        f'<svg class="plot" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" '
        f'width="{W}" height="{H}" role="img" aria-label="{_e(title)}">',
        f'<text x="{L}" y="20" class="ptitle">{_e(title)}</text>',
        f'<rect x="{L}" y="{T}" width="{pw}" height="{ph}" class="frame"/>',
    ]
    for t in _ticks(y0, y1):
        y = sy(t)
        out.append(f'<line x1="{L}" x2="{L + pw}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        out.append(
            f'<text x="{L - 6}" y="{y + 4:.1f}" class="tick" text-anchor="end">{num(t)}</text>'
        )
    if categories is not None:
        for i, c in enumerate(categories):
            out.append(
                f'<text x="{sx(i):.1f}" y="{T + ph + 16}" class="tick" text-anchor="middle">{_e(c)}</text>'
            )
    else:
        for t in _ticks(min(xs), max(xs)) if min(xs) != max(xs) else [xs[0]]:
            x = sx(t)
            out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{T}" y2="{T + ph}" class="grid"/>')
            out.append(
                f'<text x="{x:.1f}" y="{T + ph + 16}" class="tick" text-anchor="middle">{num(t)}</text>'
            )
    out.append(
        f'<text x="{L + pw / 2:.1f}" y="{H - 12}" class="axis" text-anchor="middle">{_e(xlabel)}</text>'
    )
    out.append(
        f'<text transform="translate(16,{T + ph / 2:.1f}) rotate(-90)" class="axis" '
        f'text-anchor="middle">{_e(ylabel)}</text>'
    )
    for i, (label, pts) in enumerate(series):
        color = PALETTE[i % len(PALETTE)]
        shape = MARKER_SHAPES[i % len(MARKER_SHAPES)]
        dash = DASHES[i % len(DASHES)]
        good = [p for p in pts if p.get("mean") is not None]
        line = " ".join(f"{sx(p['x']):.1f},{sy(p['mean']):.1f}" for p in good)
        out.append(f'<g class="series" data-series="{_e(label)}">')
        if len(good) > 1:
            out.append(
                f'<polyline points="{line}" fill="none" stroke="{color}" stroke-width="1.6"'
                + (f' stroke-dasharray="{dash}"' if dash else "")
                + "/>"
            )
        for p in good:
            x, y, ci = sx(p["x"]), sy(p["mean"]), p.get("ci95")
            xv = categories[p["x"]] if categories is not None else num(p["x"])
            k = p.get("unfinished") or 0
            if k:
                value = f"≥ {num(p['mean'])} ({k} of {(p.get('n') or 0) + k} unfinished)"
            else:
                value = mean_ci(p["mean"], ci, p.get("n")) + f" (n = {p.get('n')})"
            tip = f"{label}: {xlabel} {xv} → {value}"
            out.append(
                f'<g class="pt" data-x="{_value_attr(p["x"])}" data-mean="{_value_attr(p["mean"])}" '
                f'data-ci95="{_value_attr(ci)}" data-n="{_value_attr(p.get("n"))}" '
                f'data-tip="{_e(tip)}"><title>{_e(tip)}</title>'
            )
            if ci:
                ya, yb = sy(p["mean"] - ci), sy(p["mean"] + ci)
                out.append(
                    f'<path d="M{x:.1f},{ya:.1f}V{yb:.1f}M{x - 4:.1f},{ya:.1f}H{x + 4:.1f}'
                    f'M{x - 4:.1f},{yb:.1f}H{x + 4:.1f}" stroke="{color}" stroke-width="1.2"/>'
                )
            out.append(_marker(shape, x, y, color))
            if k or (runs and (p.get("n") or 0) < runs):
                # a lower bound, or over fewer runs: hollow, with its mark
                out.append(_marker(shape, x, y, "white", r=2.2))
                mark = "≥" if k else f"n={p.get('n')}"
                out.append(
                    f'<text x="{x + 6:.1f}" y="{y - 6:.1f}" class="tick" fill="{color}">'
                    f"{_e(mark)}</text>"
                )
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="9" class="hit"/></g>')
        out.append("</g>")
        # legend entry
        ly = T + 18 + i * 20
        lx = L + pw + 16
        out.append(
            f'<line x1="{lx}" x2="{lx + 30}" y1="{ly}" y2="{ly}" stroke="{color}" stroke-width="1.6"'
            + (f' stroke-dasharray="{dash}"' if dash else "")
            + "/>"
        )
        out.append(_marker(shape, lx + 15, ly, color))
        out.append(f'<text x="{lx + 38}" y="{ly + 4}" class="legend">{_e(label)}</text>')
    note_y = T + 18 + len(series) * 20 + 8
    out.append(
        f'<text x="{L + pw + 16}" y="{note_y}" class="note">{_e(ci_title(None))}{_e(n_note)}</text>'
    )
    out.append("</svg>")
    return "\n".join(out)
