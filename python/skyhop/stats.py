"""Means and 95 % confidence intervals over independent runs."""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence

TYPE_CHECKING = False  # `typing` for type checkers only (not imported by `skyhop run`)
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = [
    "ci95",
    "flow_metrics",
    "summarize",
    "summarize_values",
    "t975",
    "t_quantile",
]


def ci95(values: Sequence[float]) -> float | None:
    """Half-width of the two-sided 95 % Student-t confidence interval of the mean.

    Parameters
    ----------
    values : sequence of float
        Independent samples (one per run).

    Returns
    -------
    float or None
        ``t(0.975, n-1) * s / sqrt(n)`` with ``s`` the sample standard
        deviation; ``None`` when ``n < 2`` (the interval is undefined with a
        single run).

    Examples
    --------
    >>> round(ci95([1.0, 2.0, 3.0]), 4)
    2.4841
    >>> ci95([5.0]) is None
    True
    """
    n = len(values)
    if n < 2:
        return None
    if min(values) == max(values):
        return 0.0  # identical runs: exactly, not the rounding of the sum
    mean = math.fsum(values) / n
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return t975(n - 1) * math.sqrt(var) / math.sqrt(n)


@functools.cache
def t975(dof: int) -> float:
    """The 0.975 quantile of Student's t distribution with ``dof`` degrees of freedom.

    >>> round(t975(19), 6)
    2.093024
    """
    return t_quantile(0.975, dof)


#: Above this many degrees of freedom the quantile comes from the Cornish-Fisher
#: expansion (its first neglected term is below 1e-13 there); below, from the
#: exact finite series of the distribution function.
_EXPANSION_DOF = 300


def t_quantile(p: float, dof: int) -> float:
    """The ``p`` quantile of Student's t distribution with ``dof`` (a positive
    integer) degrees of freedom, to about 1e-13 relative.

    Stdlib only (importing SciPy for this would cost most of a short job's
    wall time). For ``dof <= 300`` the exact finite series of the t
    distribution function for integer degrees of freedom (Abramowitz &
    Stegun 26.7.3-4) is inverted by bisection on the angle
    ``theta = atan(t / sqrt(dof))``; above, the Cornish-Fisher expansion
    around the normal quantile (A&S 26.7.5, four terms) is used.

    >>> round(t_quantile(0.975, 1), 9)
    12.706204736
    >>> t_quantile(0.5, 7)
    0.0
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must lie in (0, 1), got {p!r}")
    if isinstance(dof, bool) or not isinstance(dof, int) or dof < 1:
        raise ValueError(f"dof must be a positive integer, got {dof!r}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, dof)
    if dof > _EXPANSION_DOF:
        return _cornish_fisher(p, dof)
    target = 2.0 * p - 1.0  # P(|T| < t)
    lo, hi = 0.0, math.pi / 2
    while True:
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if _abs_t_cdf(mid, dof) < target:
            lo = mid
        else:
            hi = mid
    return math.sqrt(dof) * math.tan(0.5 * (lo + hi))


def _abs_t_cdf(theta: float, dof: int) -> float:
    """P(|T| < sqrt(dof)·tan(theta)) for integer ``dof`` (A&S 26.7.3-4)."""
    s, c = math.sin(theta), math.cos(theta)
    c2 = c * c
    if dof % 2 == 1:
        if dof == 1:
            return theta * (2.0 / math.pi)
        term = total = c
        for k in range(3, dof - 1, 2):
            term *= (k - 1) / k * c2
            total += term
        return (theta + s * total) * (2.0 / math.pi)
    term = total = 1.0
    for k in range(2, dof - 1, 2):
        term *= (k - 1) / k * c2
        total += term
    return s * total


def _cornish_fisher(p: float, dof: int) -> float:
    from statistics import NormalDist

    z = NormalDist().inv_cdf(p)
    z2 = z * z
    g1 = z * (z2 + 1) / 4
    g2 = z * ((5 * z2 + 16) * z2 + 3) / 96
    g3 = z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / 384
    g4 = z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / 92160
    v = float(dof)
    return z + (g1 + (g2 + (g3 + g4 / v) / v) / v) / v


def summarize_values(values: Iterable[float | None]) -> dict[str, Any]:
    """Mean, ci95 and n of the non-null values.

    ``None`` values (e.g. the completion time of a transfer that did not
    finish) are left out and not counted in ``n``; with no values left, the
    mean is ``None`` too.
    """
    xs = [float(v) for v in values if v is not None and not _is_nan(v)]
    n = len(xs)
    mean = math.fsum(xs) / n if n else None
    return {"mean": mean, "ci95": ci95(xs), "n": n}


def _is_nan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def flow_metrics(flow: Mapping[str, Any]) -> dict[str, Any]:
    """The scalar fields of one FlowResult dict (numbers, booleans, null):
    its metrics. Its lists of records are tables (:mod:`skyhop.tables`)."""
    return {k: v for k, v in flow.items() if v is None or isinstance(v, (int, float))}


def summarize(runs: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Summary over runs: ``{flow: {metric: {"mean", "ci95", "n"}}}``.

    Parameters
    ----------
    runs : sequence of dict
        RunResult dicts (each with a ``flows`` mapping), in seed order.
    """
    flows: dict[str, dict[str, list[Any]]] = {}
    for run in runs:
        for name, flow in run["flows"].items():
            per_metric = flows.setdefault(name, {})
            for metric, value in flow_metrics(flow).items():
                per_metric.setdefault(metric, []).append(value)
    return {
        name: {metric: summarize_values(vals) for metric, vals in metrics.items()}
        for name, metrics in flows.items()
    }


#: a split proxy's occupancy metrics, as a flow's summary names them
PROXY_METRICS = ("max_occupancy_bytes", "mean_occupancy_bytes")


def proxy_metric(node: str, field: str) -> str:
    """The summary metric of proxy ``node``'s ``field``: ``proxy.GGW.max_occupancy_bytes``."""
    return f"proxy.{node}.{field}"


def parse_proxy_metric(metric: str) -> tuple[str, str] | None:
    """``(node, field)`` of a :func:`proxy_metric` name, else None."""
    for field in PROXY_METRICS:
        suffix = "." + field
        if metric.startswith("proxy.") and metric.endswith(suffix):
            node = metric[len("proxy.") : -len(suffix)]
            if node:
                return node, field
    return None


def summarize_proxies(
    runs: Iterable[Iterable[Mapping[str, Any]]],
) -> dict[str, dict[str, dict[str, Any]]]:
    """The proxies' occupancy over runs, per flow and proxy node:
    ``{flow: {proxy_metric(node, field): {"mean", "ci95", "n"}}}`` for the
    fields of :data:`PROXY_METRICS` (a run contributes each of its ``proxies``
    records, one per flow and proxy)."""
    values: dict[str, dict[str, list[Any]]] = {}
    for records in runs:
        for rec in records:
            flow, node = rec.get("flow"), rec.get("node")
            if not isinstance(flow, str) or not isinstance(node, str):
                continue
            per = values.setdefault(flow, {})
            for field in PROXY_METRICS:
                per.setdefault(proxy_metric(node, field), []).append(rec.get(field))
    return {
        flow: {m: summarize_values(vs) for m, vs in per.items()} for flow, per in values.items()
    }
