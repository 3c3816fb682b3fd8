"""Means and 95 % confidence intervals over independent runs."""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["ci95", "flow_metrics", "summarize", "summarize_values", "t975"]

#: FlowResult fields that are not per-run scalars (skipped in tables and summaries).
_NON_SCALAR = frozenset({"legs"})


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
    mean = math.fsum(values) / n
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return t975(n - 1) * math.sqrt(var) / math.sqrt(n)


@functools.cache
def t975(dof: int) -> float:
    """The 0.975 quantile of Student's t distribution with ``dof`` degrees of freedom.

    >>> round(t975(19), 6)
    2.093024
    """
    # scipy.special, imported lazily, loads in a fraction of scipy.stats' time.
    from scipy.special import stdtrit

    return float(stdtrit(dof, 0.975))


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
    """The scalar fields of one FlowResult dict (numbers, booleans, null)."""
    return {
        k: v
        for k, v in flow.items()
        if k not in _NON_SCALAR and (v is None or isinstance(v, (int, float)))
    }


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
