"""Helpers the named reproductions share: statistics of result columns,
the published targets, the scenarios shipped with skyhop, the summary files.
(The jobs, the context and the runner are :mod:`.base`; figures are
:mod:`skyhop.figures`.)
"""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Any

from ..stats import summarize_values

PACKAGE = Path(__file__).resolve().parent.parent
SCENARIOS = PACKAGE / "scenarios"
TARGETS_FILE = Path(__file__).resolve().parent / "targets.toml"


def scenario_path(name: str) -> str:
    """Path of a scenario shipped with skyhop (``scenarios/NAME``)."""
    return str(SCENARIOS / name)


def targets() -> dict[str, Any]:
    """The published results (a copy of the project's reference targets)."""
    with open(TARGETS_FILE, "rb") as f:
        return tomllib.load(f)


def stats(values) -> dict[str, Any]:
    """mean, ci95 (Student t half-width), n of a column (NaN/None dropped)."""
    return summarize_values(
        [
            None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)
            for v in values
        ]
    )


def grouped(df, by: list[str], metric: str) -> dict[tuple, dict[str, Any]]:
    """Summary statistics of ``metric`` for every combination of ``by``."""
    out = {}
    for key, g in df.groupby(by, sort=True, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        out[key] = stats(g[metric].tolist())
    return out


def rel_dev(ours: float | None, published: float) -> float | None:
    if ours is None or published == 0:
        return None
    return (ours - published) / published


def write_json(path: Path, doc: Any) -> None:
    def clean(o):
        if isinstance(o, float) and not math.isfinite(o):
            return None
        if isinstance(o, dict):
            return {str(k): clean(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [clean(v) for v in o]
        return o

    from .._output import write_text_atomic

    write_text_atomic(path, json.dumps(clean(doc), indent=2, sort_keys=False) + "\n")


def proxies_literal(nodes: list[str]) -> str:
    return "[" + ",".join(f'"{n}"' for n in nodes) + "]"


def _cell(text: Any) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def claims_markdown(claims: list[dict[str, Any]]) -> str:
    """The claims as a Markdown table: the study's words, the quantity
    tested, the threshold, ours, whether it holds, and the evidence beside."""
    lines = [
        "| claim (the study's words) | quantity tested | threshold | ours | holds | evidence |",
        "|---|---|---|---|---|---|",
    ]
    for c in claims:
        lines.append(
            "| "
            + " | ".join(
                [
                    _cell(c["claim"]),
                    _cell(c.get("quantity")),
                    _cell(c.get("threshold")),
                    _cell(c.get("ours")),
                    "yes" if c["holds"] else "**no**",
                    _cell(c.get("evidence")),
                ]
            )
            + " |"
        )
    return "\n".join(lines)
