"""Traces and packet logs as long-format tables.

A run's ``traces`` map keys to series (``t_s``, ``value``); as a table, one
row per point: ``run`` (0-based index of the run), ``seed``, ``flow``,
``leg``, ``series``, ``t_s`` (seconds), ``value``. Key forms and units:

- ``<flow>.<leg>.<quantity>``: flow, leg index, series = quantity:
  ``cwnd``, ``ssthresh``, ``flight``, ``rwnd`` (bytes), ``srtt`` (seconds),
  ``rate_estimate`` (bit/s; NaN for controllers without one);
- ``<flow>.delay`` (a probe flow, ``app = "cbr"``): flow, no leg, series
  ``delay``: each received datagram's one-way delay (seconds) at its send
  instant;
- ``<flow>.proxy.<node>.occupancy``: flow, no leg, series
  ``proxy.<node>.occupancy`` (bytes held in the proxy's cache);
- ``link.<link>.<forward|reverse>.queue``: no flow, no leg, series as the
  key (packets waiting or in service; a step function: each point is the
  value from its time on).

Only the standard library is imported here; pandas only by the functions
that build DataFrames.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["TRACE_COLUMNS", "split_trace_key", "trace_columns"]

TRACE_COLUMNS = ["run", "seed", "flow", "leg", "series", "t_s", "value"]


def split_trace_key(key: str, flows: Iterable[str]) -> tuple[str | None, int | None, str]:
    """``(flow, leg, series)`` of a trace key, given the run's flow names."""
    if key.startswith("link.") and key.endswith(".queue"):
        return None, None, key
    best = max((f for f in flows if key.startswith(f + ".")), key=len, default=None)
    if best is None:
        return None, None, key
    rest = key[len(best) + 1 :]
    if rest.startswith("proxy."):
        return best, None, rest
    leg, _, quantity = rest.partition(".")
    if leg.isdigit() and quantity:
        return best, int(leg), quantity
    return best, None, rest


def trace_columns(runs: Iterable[Mapping[str, Any]], first_run: int = 0) -> dict[str, list]:
    """Every trace of ``runs`` (RunResult dicts) as columns (:data:`TRACE_COLUMNS`)."""
    cols: dict[str, list] = {c: [] for c in TRACE_COLUMNS}
    for i, r in enumerate(runs):
        flows = list(r.get("flows", {}))
        for key, series in r.get("traces", {}).items():
            flow, leg, name = split_trace_key(key, flows)
            n = len(series["t_s"])
            cols["run"].extend([first_run + i] * n)
            cols["seed"].extend([r["seed"]] * n)
            cols["flow"].extend([flow] * n)
            cols["leg"].extend([leg] * n)
            cols["series"].extend([name] * n)
            cols["t_s"].extend(series["t_s"])
            cols["value"].extend(float("nan") if v is None else v for v in series["value"])
    return cols


def trace_frame(cols: Mapping[str, list]) -> Any:
    """Columns from :func:`trace_columns` as a DataFrame with proper dtypes."""
    import pandas as pd

    df = pd.DataFrame({c: cols[c] for c in cols})
    if "leg" in df:
        df["leg"] = df["leg"].astype("Int64")
    for c in ("flow", "series"):
        if c in df:
            df[c] = df[c].astype("string")
    for c in ("t_s", "value"):
        if c in df:
            df[c] = df[c].astype("float64")
    return df
