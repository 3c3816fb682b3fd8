"""How quantities are named and scaled wherever skyhop shows them: a
metric's label with its unit ("goodput (Mb/s)", shown in Mb/s), a swept
path's ("packet error rate (fraction)"), a traced series' ("smoothed RTT
(ms)"), and the numbers behind quantities written with units ("5 MB",
"20 ms"), so that a figure spaces them as numbers on a labelled axis.

Only the standard library is imported here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = [
    "Axis",
    "metric_label",
    "path_label",
    "quantity_axis",
    "trace_label",
]

#: metrics of a flow: (label with its unit, the divisor that gives that unit)
METRICS: dict[str, tuple[str, float]] = {
    "completion_time_s": ("completion time (s)", 1.0),
    "goodput_bps": ("goodput (Mb/s)", 1e6),
    "throughput_bps": ("throughput (Mb/s)", 1e6),
    "retransmissions": ("retransmissions (segments)", 1.0),
    "timeouts": ("timeouts (count)", 1.0),
    "fast_recoveries": ("fast recoveries (count)", 1.0),
    "bytes_delivered": ("bytes delivered (MB)", 1e6),
    "bytes_sent": ("bytes sent (MB)", 1e6),
    "active_time_s": ("active time (s)", 1.0),
    "loss_rate": ("loss rate (fraction)", 1.0),
    "delay_mean_s": ("mean one-way delay (ms)", 1e-3),
    "delay_max_s": ("largest one-way delay (ms)", 1e-3),
    "max_occupancy_bytes": ("largest occupancy (kB)", 1e3),
    "mean_occupancy_bytes": ("mean occupancy (kB)", 1e3),
}

#: swept paths, by their last part: what the value is, with its unit
PATHS: dict[str, str] = {
    "per": "packet error rate (fraction)",
    "ber": "bit error rate (fraction)",
    "cache_packets": "proxy cache (packets)",
    "queue": "queue limit (packets)",
    "rate": "rate",
    "delay": "one-way delay",
    "size": "transfer size",
    "rcv_buffer": "receive buffer",
    "recv_buffer": "proxy receive buffer",
    "send_buffer": "proxy send buffer",
    "initial_window": "initial window (segments)",
    "mss": "segment size",
    "duration": "run length",
    "start": "start",
    "tcp": "TCP",
    "proxies": "proxies",
    "policy": "proxy window policy",
}

#: traced quantities: (label with its unit, divisor)
TRACES: dict[str, tuple[str, float]] = {
    "cwnd": ("congestion window (kB)", 1e3),
    "ssthresh": ("slow-start threshold (kB)", 1e3),
    "flight": ("bytes in flight (kB)", 1e3),
    "rwnd": ("receive window (kB)", 1e3),
    "srtt": ("smoothed RTT (ms)", 1e-3),
    "rate_estimate": ("rate estimate (Mb/s)", 1e6),
    "occupancy": ("proxy occupancy (kB)", 1e3),
    "queue": ("queue (packets)", 1.0),
    "delay": ("route propagation delay (ms)", 1e-3),
}


def metric_label(metric: str) -> tuple[str, float]:
    """``(label with unit, divisor)`` of a flow's metric: ``goodput_bps`` is
    ``("goodput (Mb/s)", 1e6)``; a split proxy's ``proxy.GGW.max_occupancy_bytes``
    is ``("proxy at GGW: largest occupancy (kB)", 1e3)``; others by their
    suffix (``_s`` seconds, ``_bps`` Mb/s, ``_bytes`` kB)."""
    if metric in METRICS:
        return METRICS[metric]
    if metric.startswith("proxy.") and metric.count(".") >= 2:
        node, field = metric[len("proxy.") :].rsplit(".", 1)
        label, scale = metric_label(field)
        return f"proxy at {node}: {label}", scale
    words = metric.replace("_", " ")
    for suffix, unit, scale in (("_s", "s", 1.0), ("_bps", "Mb/s", 1e6), ("_bytes", "kB", 1e3)):
        if metric.endswith(suffix):
            return f"{words[: -len(suffix)]} ({unit})", scale
    return words, 1.0


def trace_label(quantity: str) -> tuple[str, float]:
    """``(label with unit, divisor)`` of a traced quantity (``srtt``: ms)."""
    return TRACES.get(quantity, (quantity.replace("_", " "), 1.0))


def path_label(path: str, unit: str | None = None) -> str:
    """A swept path as an axis label: what it is, its unit, and the path
    itself: ``packet error rate (fraction): links.wu.per``."""
    what = PATHS.get(path.rsplit(".", 1)[-1])
    if what is None:
        return path + (f" ({unit})" if unit else "")
    return f"{what}{f' ({unit})' if unit else ''}: {path}"


# ---------------------------------------------------------------------------
# quantities written with units, as numbers

#: unit → (dimension, factor to the base unit); the engine's spellings
_UNITS: dict[str, tuple[str, float]] = {
    **{u: ("size", f) for u, f in (("B", 1), ("kB", 1e3), ("KB", 1e3), ("MB", 1e6))},
    **{u: ("size", f) for u, f in (("GB", 1e9), ("KiB", 1024), ("MiB", 2**20), ("GiB", 2**30))},
    **{
        u: ("rate", f)
        for u, f in (
            ("bps", 1),
            ("kbps", 1e3),
            ("Kbps", 1e3),
            ("Mbps", 1e6),
            ("Gbps", 1e9),
            ("mbps", 1e6),
            ("gbps", 1e9),
            ("bit/s", 1),
            ("kbit/s", 1e3),
            ("Kbit/s", 1e3),
            ("Mbit/s", 1e6),
            ("Gbit/s", 1e9),
            ("mbit/s", 1e6),
            ("gbit/s", 1e9),
            ("b/s", 1),
            ("kb/s", 1e3),
            ("Kb/s", 1e3),
            ("Mb/s", 1e6),
            ("Gb/s", 1e9),
            ("mb/s", 1e6),
            ("gb/s", 1e9),
        )
    },
    **{
        u: ("duration", f)
        for u, f in (
            ("ns", 1e-9),
            ("us", 1e-6),
            ("\u00b5s", 1e-6),
            ("\u03bcs", 1e-6),
            ("ms", 1e-3),
            ("s", 1.0),
            ("min", 60.0),
        )
    },
    **{u: ("length", f) for u, f in (("m", 1.0), ("km", 1e3), ("ft", 0.3048))},
}

#: per dimension, the units an axis may be shown in (largest first)
_SHOWN: dict[str, list[tuple[str, float]]] = {
    "size": [("GB", 1e9), ("MB", 1e6), ("kB", 1e3), ("B", 1.0)],
    "rate": [("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3), ("bit/s", 1.0)],
    "duration": [("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)],
    "length": [("km", 1e3), ("m", 1.0)],
}

_QUANTITY = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([^\d\s].*?)\s*$")


class Axis:
    """A swept quantity as numbers: ``values`` in ``unit`` (``"MB"``)."""

    def __init__(self, values: list[float], unit: str) -> None:
        self.values = values
        self.unit = unit


def quantity_axis(texts: Sequence[object]) -> Axis | None:
    """Values such as ``"500 kB"``, ``"5 MB"`` as numbers in one unit (the
    largest that shows the smallest nonzero value as at least 1), or None
    unless every value is a quantity of the same dimension."""
    parsed: list[tuple[str, float]] = []
    for t in texts:
        if not isinstance(t, str):
            return None
        m = _QUANTITY.match(t)
        if m is None or m.group(2) not in _UNITS:
            return None
        dim, factor = _UNITS[m.group(2)]
        parsed.append((dim, float(m.group(1)) * factor))
    dims = {d for d, _ in parsed}
    if len(dims) != 1 or not parsed:
        return None
    (dim,) = dims
    base = [v for _, v in parsed]
    nonzero = [abs(v) for v in base if v]
    smallest = min(nonzero) if nonzero else 1.0
    unit, factor = next(((u, f) for u, f in _SHOWN[dim] if smallest >= f), _SHOWN[dim][-1])
    return Axis([v / factor for v in base], unit)
