"""How a sweep's runs are executed: :class:`SweepOptions` (backend, cluster
address, jobs), built once by the command line or the Python API and
passed down as one value (sweep, experiment, context); the
:class:`Backend` protocol its backends implement
(:class:`~skyhop.sweep.local.LocalBackend`,
:class:`~skyhop.sweep.ray_backend.RayBackend`); what a backend is given:
the runs (:class:`Batch`) and the sweep library's pieces (:class:`Pieces`).
:func:`skyhop.sweep.core.backend_of` gives the backend a
:class:`SweepOptions` names."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .base import check_backend

__all__ = ["Backend", "Batch", "Pieces", "SweepOptions"]


@dataclass(frozen=True)
class SweepOptions:
    """Where a sweep's runs go and how many at once, built once (by the
    command line, :func:`skyhop.sweep`, or a caller of
    :func:`~skyhop.sweep.core.run_sweep` or
    :func:`~skyhop.experiments.run_experiment`) and passed down as one value:
    ``backend`` ("local": worker processes of this machine; "ray": tasks on
    the Ray cluster at ``address``), ``jobs`` (worker processes, default all
    CPUs; on Ray, runs in flight, default twice the cluster's CPUs). Each
    value is checked when it is built (a ``ScenarioError`` naming the
    argument)."""

    backend: str = "local"
    address: str | None = None
    jobs: int | None = None

    def __post_init__(self) -> None:
        from ..api import check_jobs

        check_backend(self.backend, self.address)
        check_jobs(self.jobs)


@dataclass(frozen=True)
class Pieces:
    """The sweep library's pieces a backend uses, passed as one value (so
    that a backend module need not import the library that imports it):
    ``compute(point, seed, run_index, trace) -> (doc, traces)`` makes a
    part, ``store(parts, point_index, seed, doc, traces)`` persists it,
    ``at_point(error, point, seed)`` names the run in an error,
    ``terminated`` is raised on SIGTERM."""

    compute: Callable
    store: Callable
    at_point: Callable
    terminated: type[BaseException]


@dataclass
class Batch:
    """The runs a backend is asked for: ``todo`` [(Point, seed)], their parts'
    directory, the sweep's first seed (run index = seed - first_seed), its
    traces (False, True or the thinning options), ``total`` runs of the
    sweep and ``done`` so far (counted up by :meth:`finished`), and where
    progress and warnings go."""

    todo: list
    parts: Path
    first_seed: int
    trace: Any
    total: int
    done: int
    on_progress: Callable[[int, int], None] | None
    on_warning: Callable[[str], None]

    def finished(self) -> None:
        """One more run's part is stored."""
        self.done += 1
        if self.on_progress:
            self.on_progress(self.done, self.total)


class Backend(Protocol):
    """Where the runs of a sweep go (:class:`~skyhop.sweep.local.LocalBackend`,
    :class:`~skyhop.sweep.ray_backend.RayBackend`)."""

    def execute(self, batch: Batch, pieces: Pieces) -> None:
        """Run every (point, seed) of ``batch``, storing each part as it
        finishes and calling ``batch.finished()``. Raises the sweep's
        errors: a run's SkyhopError (named by ``pieces.at_point``), a lost
        worker, ``pieces.terminated`` on SIGTERM, KeyboardInterrupt."""
        ...

    def session(self) -> AbstractContextManager[None]:
        """Held around several sweeps (an experiment's sub-sweeps): on Ray,
        one connection to the cluster for all of them."""
        ...
