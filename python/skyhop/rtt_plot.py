"""A flow's round-trip time over a run, with the access network's epoch
boundaries marked (``skyhop plot RUN.json --rtt FLOW``).

What is drawn depends on the flow, from a traced run (``--trace``):

- a TCP flow: its first leg's smoothed RTT (trace ``<flow>.0.srtt``);
- a probe flow (``app = "cbr"``): each datagram's one-way delay at its send
  instant (trace ``<flow>.delay``); with ``back`` (a probe flow the other
  way), the round trip each datagram would have had if answered at once:
  its one-way delay plus that of the first datagram of ``back`` sent at or
  after its arrival.

Epoch boundaries are the instants of the run's ``epoch`` network events
after t = 0 (the ``starlink`` access preset, docs/leo.md); route changes of
the geometric model are not marked.

``skyhop plot ... --trace`` marks the same boundaries (:func:`trace_epochs`):
a run document's ``epoch`` events, or a grid given with ``--epochs PERIOD``
or ``--epochs PERIOD@OFFSET`` (``routing.epoch`` and
``routing.epoch_offset``: ``"15 s@12 s"`` for the preset) for a trace table,
which carries no events.
"""

from __future__ import annotations

import bisect
import math
from pathlib import Path
from typing import Any

from .errors import ScenarioError

__all__ = [
    "epoch_boundaries",
    "epoch_grid",
    "mark_epochs",
    "plot_rtt",
    "rtt_series",
    "trace_epochs",
]


def epoch_boundaries(run: dict[str, Any]) -> list[float]:
    """The reconfiguration instants of a run (seconds), in order."""
    ts = {
        float(e["t_s"])
        for e in run.get("network_events", []) or []
        if e.get("kind") == "epoch" and float(e["t_s"]) > 0
    }
    return sorted(ts)


def epoch_grid(spec: str, end_s: float) -> list[float]:
    """The boundaries ``offset + n * period`` in (0, ``end_s``] of a
    ``--epochs`` value ``"PERIOD"`` or ``"PERIOD@OFFSET"`` (offset 0: the
    first boundary at one period, as ``routing.epoch_offset`` counts)."""
    from .units import duration_s

    period_text, _, offset_text = spec.partition("@")
    period = duration_s(period_text.strip(), "--epochs")
    offset = duration_s(offset_text.strip(), "--epochs") if offset_text else 0.0
    if period <= 0:
        raise ScenarioError("<options>", "--epochs", f"{spec!r}: the period must be positive")
    if (end_s - offset) / period > 10_000:
        raise ScenarioError(
            "<options>", "--epochs", f"{spec!r} marks more than 10000 boundaries over the run"
        )
    first = offset if offset > 0 else period
    out = []
    n = 0
    while first + n * period <= end_s:
        out.append(first + n * period)
        n += 1
    return out


def trace_epochs(
    source: str | Path, seed: int | None, epochs: str | None, end_s: float
) -> list[float]:
    """The boundaries ``skyhop plot --trace`` marks: the ``--epochs`` grid
    up to ``end_s`` if given, else a run document's ``epoch`` events (of
    the run with ``seed``, or of every run), else none."""
    if epochs is not None:
        return epoch_grid(epochs, end_s)
    src = Path(source)
    if src.suffix.lower() != ".json" or not src.is_file():
        return []
    from .documents import read_results_json

    doc = read_results_json(src, "plot")
    runs = doc.get("runs") if isinstance(doc, dict) else None
    marks: set[float] = set()
    for r in runs if isinstance(runs, list) else []:
        if isinstance(r, dict) and (seed is None or r.get("seed") == seed):
            marks.update(epoch_boundaries(r))
    return sorted(marks)


def mark_epochs(ax: Any, marks: list[float], legend: bool = True) -> None:
    """Dashed vertical lines at ``marks``, labelled once."""
    for i, b in enumerate(marks):
        ax.axvline(
            b,
            color="0.35",
            linestyle="--",
            linewidth=0.8,
            label="epoch boundary" if i == 0 and legend else None,
        )


def _trace(run: dict[str, Any], key: str) -> tuple[list[float], list[float]] | None:
    s = (run.get("traces") or {}).get(key)
    if s is None:
        return None
    return list(s["t_s"]), [float("nan") if v is None else float(v) for v in s["value"]]


def rtt_series(run: dict[str, Any], flow: str, back: str | None = None) -> dict[str, Any]:
    """``{"t_s", "value_s", "what"}`` for :func:`plot_rtt` (module doc)."""
    flows = run.get("flows") or {}
    if flow not in flows:
        known = ", ".join(sorted(flows)) or "none"
        raise ScenarioError("<run>", "--rtt", f"no flow {flow!r} in the run (flows: {known})")
    tcp = _trace(run, f"{flow}.0.srtt")
    if tcp is not None:
        if back is not None:
            raise ScenarioError("<run>", "--back", f"{flow!r} is a TCP flow: --back is for probes")
        # Before its first sample a connection has no estimate (NaN): left out.
        pts = [(t, v) for t, v in zip(*tcp, strict=True) if not math.isnan(v)]
        return {
            "t_s": [t for t, _ in pts],
            "value_s": [v for _, v in pts],
            "what": f"{flow}: smoothed RTT (TCP)",
        }
    up = _trace(run, f"{flow}.delay")
    if up is None:
        raise ScenarioError(
            "<run>",
            "--rtt",
            f"the run has no trace of {flow!r}: run it with --trace "
            "(a TCP flow's srtt, or a cbr probe's delay)",
        )
    if back is None:
        return {"t_s": up[0], "value_s": up[1], "what": f"{flow}: one-way delay"}
    down = _trace(run, f"{back}.delay")
    if down is None:
        raise ScenarioError("<run>", "--back", f"the run has no delay trace of probe {back!r}")
    t_out, rtt = [], []
    for t, d in zip(*up, strict=True):
        j = bisect.bisect_left(down[0], t + d)
        if j < len(down[0]):
            t_out.append(t)
            rtt.append(d + down[1][j])
    return {"t_s": t_out, "value_s": rtt, "what": f"{flow} out, {back} back: round trip"}


def plot_rtt(
    source: str | Path | dict[str, Any],
    flow: str,
    out: str | Path,
    *,
    back: str | None = None,
    run: int = 0,
    window: tuple[float, float] | None = None,
) -> list[Path]:
    """Draw :func:`rtt_series` of run ``run`` of ``source`` (a ``skyhop run
    --json`` document, as a file or a dict), in milliseconds, with the
    epoch boundaries as dashed lines; ``window`` limits the time axis."""
    from .documents import read_results_json
    from .figures import figure, output_stem, save_figure, series_style

    doc = read_results_json(Path(source), "plot") if not isinstance(source, dict) else source
    runs = doc.get("runs") if isinstance(doc, dict) else None
    if not isinstance(runs, list) or not runs:
        raise ScenarioError(str(source), "plot", "not the JSON document of 'skyhop run --json'")
    if not 0 <= run < len(runs):
        raise ScenarioError(str(source), "--run", f"{run} is not a run of the document")
    r = runs[run]
    s = rtt_series(r, flow, back)
    lo, hi = window if window is not None else (float("-inf"), float("inf"))
    pts = [(t, v) for t, v in zip(s["t_s"], s["value_s"], strict=True) if lo <= t <= hi]
    fig, ax = figure(width=9.0, height=3.6)
    style = series_style(0)
    ax.plot(
        [t for t, _ in pts],
        [v * 1e3 for _, v in pts],
        ".",
        markersize=2.0,
        color=style["color"],
        label=s["what"],
    )
    mark_epochs(ax, [b for b in epoch_boundaries(r) if lo <= b <= hi])
    ax.set_xlabel("time (s)")
    ax.set_ylabel("ms")
    ax.set_title(f"{s['what']} (seed {r.get('seed')})", fontsize=10)
    ax.legend(loc="upper right", fontsize=8, frameon=False)
    fig.tight_layout()
    stem, formats = output_stem(out)
    return save_figure(fig, stem, formats)
