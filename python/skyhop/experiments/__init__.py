"""The named reproductions of published studies: ``skyhop experiment E1|E2|E3|E4|E5|E6``.

Each experiment runs its grid (resumable sub-sweeps under ``OUT/sweeps``),
then writes into ``OUT``: ``results.parquet`` (every run of every sub-sweep),
``summary.json`` (mirroring the key structure of the published targets, with
our mean, 95 % CI and n beside each published number, and every published
claim marked holds / does not hold with its evidence), ``claims.md`` and one
PNG per published figure.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import e1, e4, e5, e6, geo_split
from .common import Context, claims_markdown, write_json

__all__ = ["DEFAULT_RUNS", "EXPERIMENTS", "run_experiment"]

#: the published run counts (20 runs; 100 sessions for E2/E3; 1000 for E4; 20 for E5 and E6)
DEFAULT_RUNS = {"E1": 20, "E2": 100, "E3": 100, "E4": 1000, "E5": 20, "E6": 20}

EXPERIMENTS: dict[str, Callable[[Context], dict[str, Any]]] = {
    "E1": e1.run,
    "E2": lambda ctx: geo_split.run(geo_split.E2, ctx),
    "E3": lambda ctx: geo_split.run(geo_split.E3, ctx),
    "E4": e4.run,
    "E5": e5.run,
    "E6": e6.run,
}


def run_experiment(
    name: str,
    out: str | Path,
    *,
    runs: int | None = None,
    seed: int = 1,
    jobs: int | None = None,
    resume: bool = True,
    progress: Callable[[str], None] | None = None,
    backend: str = "local",
    address: str | None = None,
) -> dict[str, Any]:
    """Run experiment ``name`` into directory ``out``; returns its summary document.

    ``backend="ray"`` (with an optional cluster ``address``) sends the runs of
    every sub-sweep to a Ray cluster; the folder is the same either way.
    """
    import pandas as pd

    key = name.upper()
    if key not in EXPERIMENTS:
        from ..errors import ScenarioError

        raise ScenarioError(
            "<experiment>", "name", f"unknown experiment {name!r} (known: {', '.join(EXPERIMENTS)})"
        )
    from ..sweep import check_backend

    check_backend(backend, address)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ctx = Context(
        out=out,
        runs=runs or DEFAULT_RUNS[key],
        seed=seed,
        jobs=jobs,
        resume=resume,
        progress=progress,
        backend=backend,
        address=address,
    )
    t0 = time.perf_counter()
    if backend == "ray":
        from ..sweep.ray_backend import ray_session

        with ray_session(address, jobs):
            body = EXPERIMENTS[key](ctx)
    else:
        body = EXPERIMENTS[key](ctx)
    wall = time.perf_counter() - t0
    doc = {key: body, "claims": ctx.claims, "runs_per_point": ctx.runs, "wall_time_s": wall}
    write_json(out / "summary.json", doc)
    (out / "claims.md").write_text(claims_markdown(ctx.claims) + "\n")
    frames = []
    for d in sorted((out / "sweeps").iterdir()):
        f = d / "results.parquet"
        if f.exists():
            df = pd.read_parquet(f)
            df.insert(0, "sweep", d.name)
            frames.append(df)
    if frames:
        pd.concat(frames, ignore_index=True).to_parquet(out / "results.parquet")
    return doc
