"""What every named reproduction is made of, and the one runner of them all.

An experiment (:class:`Experiment`) is four steps, each a method:

1. ``grid(ctx)``: every run it needs, declared up front as jobs —
   :class:`SubSweep` (a cartesian grid over one scenario x the seeds, run as a
   resumable sweep under ``OUT/sweeps/NAME``) or :class:`Runs` (one scenario
   over the seeds, e.g. with traces);
2. ``run(ctx, data)``: from the finished jobs (``data[name]``: a sub-sweep's
   results as a DataFrame, a :class:`~skyhop.api.Results` for runs) to the
   experiment's part of ``summary.json`` and what its claims and figures
   need (:class:`Analysis`);
3. ``claims(ctx, analysis)``: every published claim of ``targets.toml``
   checked, each recorded with :meth:`Context.claim`: the study's words,
   the figure or table and the operating point they describe, the quantity
   tested, the threshold it must meet and why it is a fair reading of the
   words, ours, holds or not;
4. ``figures(ctx, analysis)``: its figures, drawn with :mod:`skyhop.figures`.

An experiment runs under one or more TCP profiles (``profiles``, the one
that reproduces the study first): ``ctx.profile`` says which, and the grid
sets the profile's scenario keys (:func:`skyhop.experiments.common.profile_sets`).

:func:`execute` runs the jobs of any experiment the same way, counting runs
against the total known from the grid (so progress has an ETA from the
start), on local processes or a Ray cluster.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..sweep.backend import SweepOptions

__all__ = [
    "Analysis",
    "Context",
    "Experiment",
    "Job",
    "Runs",
    "SubSweep",
    "execute",
    "jobs_size",
]

#: ``on_progress(done, total, step, skipped)``: runs done of the whole
#: experiment (``skipped``: those found finished by a resume, not run now)
Progress = Callable[[int, int, str, int], None]


@dataclass(frozen=True)
class SubSweep:
    """A cartesian grid over one scenario x the seeds: a resumable sweep into
    ``OUT/sweeps/NAME``."""

    name: str
    scenario: str
    grid: dict[str, list[Any]]
    sets: dict[str, Any] = field(default_factory=dict)
    runs: int | None = None  # runs per point; None: the experiment's

    def size(self, runs: int) -> int:
        return math.prod(len(v) for v in self.grid.values()) * (self.runs or runs)


@dataclass(frozen=True)
class Runs:
    """One scenario over the seeds, outside any sweep (not stored as parts:
    redone when the experiment is run again), e.g. to record traces."""

    name: str
    scenario: str
    sets: dict[str, Any] = field(default_factory=dict)
    runs: int | None = None  # None: the experiment's
    trace: bool = False

    def size(self, runs: int) -> int:
        return self.runs or runs


Job = SubSweep | Runs


@dataclass
class Analysis:
    """An experiment's results: ``summary`` (its part of ``summary.json``) and
    whatever else its claims and figures read (``tables``)."""

    summary: dict[str, Any]
    tables: dict[str, Any] = field(default_factory=dict)


@dataclass
class Context:
    """Where and how an experiment runs, and the claims it records."""

    out: Path
    runs: int
    seed: int = 1
    resume: bool = True
    #: where the runs go and how many at once (the same for every job)
    options: SweepOptions = field(default_factory=SweepOptions)
    on_progress: Progress | None = None
    on_warning: Callable[[str], None] | None = None
    #: the TCP profile this run of the experiment uses ("ns2": the studies'
    #: simulator; "studies": the era's TCP as RFCs describe it)
    profile: str = "studies"
    claims: list[dict[str, Any]] = field(default_factory=list)

    def claim(
        self,
        experiment: str,
        text: str,
        holds: bool,
        evidence: str = "",
        *,
        figure: str,
        quantity: str,
        threshold: str,
        reading: str,
        ours: str,
    ) -> None:
        """Record a published claim and whether our results uphold it.

        ``text`` is the study's words (from ``targets.toml``); ``figure``
        the figure or table and the operating point (rate, BER, cache, ...)
        the words describe; ``quantity`` names what is tested, in the
        study's terms; ``threshold`` the condition it must meet (the
        reading of the words, with its numbers) and ``reading`` why that is
        a fair reading; ``ours`` our value(s) of that same quantity, and
        ``evidence`` anything else worth reading beside it (the other half
        of a sentence, the mechanism). A claim holds only if ``ours`` meets
        ``threshold``.
        """
        self.claims.append(
            {
                "experiment": experiment,
                "claim": text,
                "figure": figure,
                "quantity": quantity,
                "threshold": threshold,
                "reading": reading,
                "ours": ours,
                "holds": bool(holds),
                "evidence": evidence,
                "profile": self.profile,
            }
        )


@runtime_checkable
class Experiment(Protocol):
    """A named reproduction of a published study (see the module doc)."""

    #: "E1" ... "E6"
    name: str
    #: the published number of runs per point
    runs: int
    #: the TCP profiles it runs under, the one that reproduces the study first
    profiles: tuple[str, ...]

    def grid(self, ctx: Context) -> list[Job]: ...

    def run(self, ctx: Context, data: dict[str, Any]) -> Analysis: ...

    def claims(self, ctx: Context, analysis: Analysis) -> None: ...

    def figures(self, ctx: Context, analysis: Analysis) -> list[Path]: ...


def jobs_size(jobs: list[Job], runs: int) -> int:
    """Runs in all the jobs."""
    return sum(j.size(runs) for j in jobs)


def execute(ctx: Context, jobs: list[Job]) -> dict[str, Any]:
    """Run every job in order; ``{name: results}`` (a DataFrame for a
    sub-sweep, :class:`~skyhop.api.Results` for runs). Progress goes to
    ``ctx.on_progress`` as runs of the whole experiment."""
    total = jobs_size(jobs, ctx.runs)
    state = {"done": 0, "skipped": 0}
    data: dict[str, Any] = {}

    def report(step: str) -> None:
        if ctx.on_progress:
            ctx.on_progress(state["done"], total, step, state["skipped"])

    for job in jobs:
        base = state["done"]
        if isinstance(job, SubSweep):
            first = True

            def on_progress(done: int, _total: int, base: int = base, job: SubSweep = job) -> None:
                nonlocal first
                if first:  # the runs a resume found finished
                    state["skipped"] += done
                    first = False
                state["done"] = base + done
                report(job.name)

            data[job.name] = _sweep(ctx, job, on_progress)
        else:
            report(job.name)

            def on_done(_seed: int, job: Runs = job) -> None:
                state["done"] += 1
                report(job.name)

            data[job.name] = _runs(ctx, job, on_done)
        state["done"] = base + job.size(ctx.runs)
    report("done")
    return data


def _sweep(ctx: Context, job: SubSweep, on_progress: Callable[[int, int], None]):
    from ..sweep.core import sweep_frame

    d = ctx.out / "sweeps" / job.name
    return sweep_frame(
        job.scenario,
        job.grid,
        runs=job.runs or ctx.runs,
        seed=ctx.seed,
        set=job.sets,
        out=d,
        resume=ctx.resume and (d / "sweep.json").exists(),
        options=ctx.options,
        on_progress=on_progress,
        on_warning=ctx.on_warning,
    )


def _runs(ctx: Context, job: Runs, on_done: Callable[[int], None]):
    from ..api import Results, check_seeds, load_scenario, run_seeds

    scn = load_scenario(job.scenario, set=job.sets)
    base, n = check_seeds(ctx.seed, job.runs or ctx.runs)
    runs = run_seeds(
        scn, range(base, base + n), trace=job.trace, jobs=ctx.options.jobs, on_done=on_done
    )
    return Results(scn.resolved, runs)
