"""The named reproductions of published studies: ``skyhop experiment E1|E2|E3|E4|E5|E6|E7``.

Each experiment is one module implementing :class:`~.base.Experiment`: it
declares its grid (resumable sub-sweeps under ``OUT/sweeps`` and plain runs),
summarises the finished runs, checks the published claims of
``targets.toml`` and draws its figures with :mod:`skyhop.figures`.
:func:`run_experiment` runs any of them the same way and writes into ``OUT``:
``results.parquet`` (every run of every sub-sweep), ``summary.json``
(mirroring the key structure of the published targets, with our mean, 95 %
CI and n beside each published number, every published claim with the
quantity tested, the threshold, ours, holds / does not hold and its
evidence, the runs per point and the wall time),
``claims.md`` and each figure as PNG, PDF and SVG.

An experiment runs under each TCP profile it lists (``profiles``): first the
one that reproduces the study (``ns2``, the studies' own simulator, for
E1–E4 and E6), whose runs, summary and figures fill ``OUT``; then each
other one (``studies``, the era's TCP as the RFCs describe it: the runs of
earlier releases) in ``OUT/<profile>``. Every claim in ``summary.json`` and
``claims.md`` carries ours and holds / does not hold under each profile.
``profile=`` runs one of them alone.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..sweep.backend import SweepOptions
from .base import Context, Experiment, Progress, execute, jobs_size
from .common import claims_markdown, merge_claims, write_json
from .e1 import E1
from .e2 import E2
from .e3 import E3
from .e4 import E4
from .e5 import E5
from .e6 import E6
from .e7 import E7

__all__ = ["DEFAULT_RUNS", "EXPERIMENTS", "Experiment", "run_experiment", "total_runs"]

#: every experiment, by name
EXPERIMENTS: dict[str, Experiment] = {e.name: e for e in (E1(), E2(), E3(), E4(), E5(), E6(), E7())}

#: the published run counts (20 runs; 100 sessions for E2/E3; 1000 for E4; 20 for E5 and E6;
#: E7: 1, its runs draw nothing)
DEFAULT_RUNS = {name: e.runs for name, e in EXPERIMENTS.items()}


def _lookup(name: str) -> Experiment:
    key = name.upper() if isinstance(name, str) else name
    if key not in EXPERIMENTS:
        from ..errors import ScenarioError

        raise ScenarioError(
            "<experiment>", "name", f"unknown experiment {name!r} (known: {', '.join(EXPERIMENTS)})"
        )
    return EXPERIMENTS[key]


def _profiles(exp: Experiment, profile: str | None) -> tuple[str, ...]:
    if profile is None:
        return exp.profiles
    if profile not in exp.profiles:
        from ..errors import ScenarioError

        raise ScenarioError(
            "<experiment>",
            "profile",
            f"{exp.name} runs under {', '.join(map(repr, exp.profiles))}, not {profile!r}",
        )
    return (profile,)


def total_runs(name: str, runs: int | None = None, profile: str | None = None) -> int:
    """Simulation runs of experiment ``name`` with ``runs`` per point
    (default: the published count), every sub-sweep and plain run of every
    profile it runs under (or of ``profile`` alone) included."""
    exp = _lookup(name)
    n = runs or exp.runs
    return sum(
        jobs_size(exp.grid(Context(out=Path("."), runs=n, profile=p)), n)
        for p in _profiles(exp, profile)
    )


def run_experiment(
    name: str,
    out: str | Path,
    *,
    runs: int | None = None,
    seed: int = 1,
    resume: bool = True,
    on_progress: Progress | None = None,
    on_warning: Any = None,
    options: SweepOptions | None = None,
    profile: str | None = None,
) -> dict[str, Any]:
    """Run experiment ``name`` into directory ``out``; returns its summary document.

    ``on_progress(done, total, step, skipped)`` is called as runs finish
    (``total``: every run of the experiment; ``skipped``: runs a resume found
    finished; ``step``: the sub-sweep or runs under way); ``on_warning``
    receives warnings (e.g. a damaged part redone). ``options``
    (:class:`~skyhop.sweep.SweepOptions`: backend, cluster address, jobs;
    default local worker processes, one per CPU) says where the runs of
    every sub-sweep go; the folder is the same either way. ``profile`` runs the
    experiment under that TCP profile alone (default: every profile it
    lists, the study's first).
    """
    exp = _lookup(name)
    options = options or SweepOptions()
    profiles = _profiles(exp, profile)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    n = runs or exp.runs
    sizes = [jobs_size(exp.grid(Context(out=out, runs=n, profile=p)), n) for p in profiles]
    total = sum(sizes)
    t0 = time.perf_counter()
    docs: dict[str, dict[str, Any]] = {}
    # runs a resume found finished, in the profiles before the current one
    # and in it so far
    found = {"before": 0, "now": 0}
    for i, p in enumerate(profiles):
        base = sum(sizes[:i])
        found["before"] += found["now"]
        found["now"] = 0

        def progress(done: int, _total: int, step: str, skipped: int, base: int = base, p=p):
            found["now"] = skipped
            if on_progress:
                on_progress(base + done, total, f"{p}: {step}", found["before"] + skipped)

        ctx = Context(
            out=out if i == 0 else out / p,
            runs=n,
            seed=seed,
            resume=resume,
            options=options,
            on_progress=progress,
            on_warning=on_warning,
            profile=p,
        )
        docs[p] = _run_one(exp, ctx)
    primary = profiles[0]
    claims = merge_claims({p: d["claims"] for p, d in docs.items()}, profiles)
    doc = {exp.name: docs[primary][exp.name], "claims": claims, "runs_per_point": n}
    doc["wall_time_s"] = time.perf_counter() - t0
    _write_summary(out, doc)
    return doc


def _run_one(exp: Experiment, ctx: Context) -> dict[str, Any]:
    """The experiment under ``ctx.profile``, written into ``ctx.out``:
    results.parquet, summary.json, claims.md and the figures."""
    import pandas as pd

    from .._output import write_table
    from ..tables import read_parquet

    ctx.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    grid = exp.grid(ctx)
    from ..sweep.core import backend_of

    with backend_of(ctx.options).session():
        data = execute(ctx, grid)
    analysis = exp.run(ctx, data)
    analysis.summary["profile"] = ctx.profile
    exp.claims(ctx, analysis)
    exp.figures(ctx, analysis)
    doc = {exp.name: analysis.summary, "claims": ctx.claims, "runs_per_point": ctx.runs}
    doc["wall_time_s"] = time.perf_counter() - t0
    _write_summary(ctx.out, doc)
    frames = []
    for d in sorted((ctx.out / "sweeps").iterdir()):
        f = d / "results.parquet"
        if f.exists():
            df = read_parquet(f)
            df.insert(0, "sweep", d.name)
            frames.append(df)
    if frames:
        write_table(pd.concat(frames, ignore_index=True), ctx.out / "results.parquet")
    return doc


def _write_summary(out: Path, doc: dict[str, Any]) -> None:
    from .._output import write_text_atomic

    write_json(out / "summary.json", doc)
    write_text_atomic(out / "claims.md", claims_markdown(doc["claims"]) + "\n")
