"""The local backend of sweeps: a pool of worker processes on this machine.

Each worker runs one (point, seed) at a time and writes its part itself
(:func:`skyhop.sweep.store.compute_part` then :func:`~skyhop.sweep.store.store_part`),
so writing is as parallel as running and the parent only counts. Workers are
spawned (never forked), ignore Ctrl-C (the parent decides), and exit at once
when they notice their parent has died.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

from ..api import default_jobs
from ..errors import ScenarioError, SimulationError, SkyhopError
from .backend import Batch, Pieces
from .grid import Point
from .store import compute_part, store_part

__all__ = ["LocalBackend", "Terminated", "WorkerLost", "at_point"]


class Terminated(Exception):
    """SIGTERM received (handled like Ctrl-C)."""


class WorkerLost(Exception):
    """A worker process of the pool died (BrokenProcessPool)."""


def _worker_init(parent_pid: int) -> None:
    # Ctrl-C reaches the whole process group: let the parent decide.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A parent killed outright (SIGKILL, the OOM killer) cannot stop its
    # workers: each watches for being orphaned and then exits at once. (A
    # poll rather than Linux's PR_SET_PDEATHSIG, which fires when the parent
    # *thread* that started the worker ends, and a sweep may be started from
    # any thread.)
    threading.Thread(
        target=_watch_parent, args=(parent_pid,), name="skyhop-parent-watch", daemon=True
    ).start()


def _watch_parent(parent_pid: int, interval: float = 0.2) -> None:
    import time

    while True:
        if os.getppid() != parent_pid:
            os._exit(1)
        time.sleep(interval)


def _run_task(point: Point, seed: int, parts: str, run_index: int = 0, trace: bool = False) -> int:
    """Run one (point, seed) in a worker and persist its part at once."""
    doc, traces = compute_part(point, seed, run_index, trace)
    store_part(parts, point.index, seed, doc, traces)
    return 1


class LocalBackend:
    """The :class:`~skyhop.sweep.base.Backend` of worker processes on this
    machine (``jobs`` of them, default all CPUs)."""

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = jobs

    def execute(self, batch: Batch, pieces: Pieces) -> None:
        """Each worker makes and stores its parts itself (with the store's
        own functions, importable by a spawned process)."""
        _execute(batch, self.jobs)

    @contextlib.contextmanager
    def session(self) -> Iterator[None]:
        """Nothing to hold: a pool lives for one batch."""
        yield


def _execute(batch: Batch, jobs: int | None) -> None:
    """Run ``batch.todo`` [(Point, seed)] in worker processes, counting finished
    runs with ``batch.finished()``. Raises the run's SkyhopError (with its point
    named), WorkerLost when a worker dies from outside, Terminated on SIGTERM."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    todo, parts = batch.todo, batch.parts
    workers = max(1, min(len(todo), jobs or default_jobs()))
    ctx = multiprocessing.get_context("spawn")
    old_term = None
    if threading.current_thread() is threading.main_thread():

        def on_term(signum, frame):
            raise Terminated()

        old_term = signal.signal(signal.SIGTERM, on_term)
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=ctx,
        initializer=_worker_init,
        initargs=(os.getpid(),),
    )
    hidden = _hide_main()
    try:
        pending: dict[Future, tuple[Point, int]] = {}
        queue = iter(todo)
        seen: set[Any] = set()

        # Keep a bounded number of tasks in flight so that an interruption
        # loses little and memory stays small for huge grids.
        def refill() -> None:
            while len(pending) < 4 * workers:
                nxt = next(queue, None)
                if nxt is None:
                    return
                point, seed = nxt
                pending[
                    pool.submit(
                        _run_task, point, seed, str(parts), seed - batch.first_seed, batch.trace
                    )
                ] = nxt
            # remember the worker processes: if one dies, its exit status tells how
            seen.update((getattr(pool, "_processes", None) or {}).values())

        refill()
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in sorted(finished, key=lambda f: pending[f][0].index):
                point, seed = pending.pop(fut)
                try:
                    fut.result()
                except SkyhopError as e:
                    raise at_point(e, point, seed) from None
                except BrokenProcessPool:
                    raise WorkerLost(_lost_detail(seen)) from None
                batch.finished()
            refill()
    except BaseException:
        _terminate(pool)
        # A worker stopped mid-write leaves only a temp file: not a part.
        for stale in parts.glob("*.tmp"):
            stale.unlink(missing_ok=True)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        _restore_main(hidden)
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)


def _lost_detail(processes: set[Any]) -> str:
    codes = []
    for p in processes:
        p.join(timeout=1)
        if p.exitcode is not None and p.exitcode != 0:
            codes.append(p.exitcode)
    # the pool itself ends the surviving workers with SIGTERM: name the other cause
    codes.sort(key=lambda c: c == -signal.SIGTERM)
    for code in codes:
        if code < 0:
            try:
                return f"signal {signal.Signals(-code).name}"
            except ValueError:
                return f"signal {-code}"
    return f"exit status {codes[0]}" if codes else "terminated abruptly"


def _hide_main() -> dict[str, Any]:
    """Keep spawned workers from re-running the caller's main script.

    A spawned worker normally re-imports the parent's ``__main__`` (by module
    name or file path) before running a task. The workers need nothing from
    it (the task function lives in this module), and re-running it breaks
    plain scripts without an ``if __name__ == "__main__"`` guard, code piped
    on stdin and the like. So while the pool lives, ``__main__`` shows no
    ``__spec__`` and no ``__file__``, which makes multiprocessing leave it out.
    """
    main = sys.modules.get("__main__")
    saved: dict[str, Any] = {}
    if main is None:
        return saved
    for attr in ("__spec__", "__file__"):
        if attr in vars(main):
            saved[attr] = vars(main)[attr]
    if "__spec__" in saved:
        main.__spec__ = None
    if "__file__" in saved:
        del main.__file__
    return saved


def _restore_main(saved: dict[str, Any]) -> None:
    main = sys.modules.get("__main__")
    if main is not None:
        for attr, value in saved.items():
            setattr(main, attr, value)


def at_point(e: SkyhopError, point: Point, seed: int) -> SkyhopError:
    where = f"point {point.index} ({', '.join(point.sets) or 'base scenario'}), seed {seed}"
    if isinstance(e, ScenarioError):
        return ScenarioError(e.file, e.key, f"{e.message} [{where}]")
    if isinstance(e, SimulationError):
        return SimulationError(f"{where}: {e.message}", e.kind)
    return SkyhopError(f"{where}: {e}")


def _terminate(pool: Any) -> None:
    """Stop the workers now (their unfinished runs are simply not persisted)."""
    procs = getattr(pool, "_processes", None) or {}
    for proc in list(procs.values()):
        if proc.is_alive():
            proc.terminate()
    for proc in list(procs.values()):
        proc.join(timeout=5)
