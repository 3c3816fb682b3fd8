"""Shared machinery of the named reproductions: sub-sweeps, summaries,
published targets, claim checks and figures.

Every experiment is a set of *sub-sweeps*, each a cartesian grid over one
base scenario, run with :func:`skyhop.sweep` into its own directory under
the experiment's output directory, so an interrupted experiment resumes
where it stopped (finished (point, seed) runs are kept).
"""

from __future__ import annotations

import json
import math
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
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


@dataclass
class Context:
    """Where and how an experiment runs."""

    out: Path
    runs: int
    seed: int = 1
    jobs: int | None = None
    resume: bool = True
    progress: Callable[[str], None] | None = None
    backend: str = "local"
    address: str | None = None
    claims: list[dict[str, Any]] = field(default_factory=list)

    def sweep(
        self,
        name: str,
        scenario: str,
        grid: dict[str, list[Any]],
        sets: dict[str, Any] | None = None,
        runs: int | None = None,
    ):
        """Run (or resume) one sub-sweep into ``out/name``; returns its results DataFrame."""
        from ..sweep import sweep

        d = self.out / "sweeps" / name
        resume = self.resume and (d / "sweep.json").exists()
        if self.progress:
            self.progress(name)
        df = sweep(
            scenario,
            grid,
            runs=runs or self.runs,
            seed=self.seed,
            set=sets,
            out=d,
            resume=resume,
            jobs=self.jobs,
            backend=self.backend,
            address=self.address,
        )
        return df

    def claim(self, experiment: str, text: str, holds: bool, evidence: str) -> None:
        """Record a published claim and whether our results uphold it."""
        self.claims.append(
            {"experiment": experiment, "claim": text, "holds": bool(holds), "evidence": evidence}
        )


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

    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(clean(doc), indent=2, sort_keys=False) + "\n")
    os.replace(tmp, path)


def plt():
    """matplotlib.pyplot with a headless backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    return pyplot


def errorbar_lines(
    ax, xs, series: dict[str, list[dict[str, Any]]], *, scale: float = 1.0, marker: str = "o"
) -> None:
    """One line per label with 95 % CI error bars."""
    for label, pts in series.items():
        ys = [p["mean"] / scale if p["mean"] is not None else math.nan for p in pts]
        es = [(p["ci95"] or 0.0) / scale for p in pts]
        ax.errorbar(xs, ys, yerr=es, marker=marker, capsize=3, label=label)


def proxies_literal(nodes: list[str]) -> str:
    return "[" + ",".join(f'"{n}"' for n in nodes) + "]"


def claims_markdown(claims: list[dict[str, Any]]) -> str:
    lines = ["| claim | holds | evidence |", "|---|---|---|"]
    for c in claims:
        lines.append(f"| {c['claim']} | {'yes' if c['holds'] else '**no**'} | {c['evidence']} |")
    return "\n".join(lines)
