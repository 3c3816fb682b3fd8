"""Sweeps on a Ray cluster: each (point, seed) is one Ray task.

A task computes its part (:func:`skyhop.sweep.store.compute_part`: the rows, their
checksum and, with traces, the Parquet bytes) on whichever machine Ray puts
it and returns it; the driver writes it into the sweep's part store the
moment it arrives, exactly as a local worker would have. The store does not
care who computed a part, so a sweep started on a cluster can be
interrupted and resumed locally, or the other way round.

- A worker process that dies mid-task (killed, out of memory, its node
  lost) has its task rerun by Ray (``max_retries``); only when the retries
  are spent does the sweep stop, its finished parts saved.
- A run that fails for a scenario or simulation error is not retried: it is
  reported once, with its point and seed, and the sweep goes on; at the end
  the sweep fails with a count (exit status 2), every other run saved.
- An unreachable address fails within seconds, before any run, with one
  line naming it.

Ray is an optional dependency (``pip install 'skyhop[ray]'``); this module
imports it only when a sweep asks for it.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import ScenarioError, SimulationError, SkyhopError, SweepError
from .backend import Batch, Pieces

__all__ = ["MAX_RETRIES", "RayBackend", "probe_address", "ray_session"]

#: reruns of a task whose worker process died (Ray's ``max_retries``)
MAX_RETRIES = 3

#: seconds to wait for a TCP connection to the cluster before giving up
CONNECT_TIMEOUT_S = 5.0


def _import_ray():
    try:
        import ray
    except ImportError:
        raise SweepError(
            "the ray backend needs Ray: pip install 'skyhop[ray]' (or pip install ray)"
        ) from None
    return ray


def probe_address(address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Fail fast (SweepError) when nothing listens at a ``HOST:PORT`` or
    ``ray://HOST:PORT`` address; ``auto`` and other forms are left to Ray."""
    text = address.strip()
    if text.startswith("ray://"):
        text = text[len("ray://") :]
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        if text == "auto":
            return
        raise ScenarioError(
            "<options>",
            "--address",
            f"expected HOST:PORT, ray://HOST:PORT or auto, got {address!r}",
        )
    host = host.strip("[]") or "127.0.0.1"
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as e:
        reason = e.strerror or type(e).__name__
        raise SweepError(
            f"cannot reach the Ray cluster at {address} ({reason}); is it running "
            "('ray start --head' on the head node)? No run was started; finished runs "
            "stay saved"
        ) from None


def _connect(ray: Any, address: str | None, jobs: int | None) -> bool:
    """Connect to (or start) Ray; True if this call started it (and so ends it)."""
    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {
        "logging_level": "ERROR",
        "log_to_driver": False,
        "configure_logging": True,
    }
    if address is not None:
        probe_address(address)
        kwargs["address"] = address
    elif not os.environ.get("RAY_ADDRESS"):
        # a new local instance: no dashboard, as many CPUs as asked for
        kwargs["include_dashboard"] = False
        if jobs is not None:
            kwargs["num_cpus"] = jobs
    try:
        ray.init(**kwargs)
    except Exception as e:  # Ray raises ConnectionError, RuntimeError, ValueError...
        where = address or os.environ.get("RAY_ADDRESS") or "a local Ray instance"
        raise SweepError(
            f"cannot start or join the Ray cluster at {where}: {type(e).__name__}: "
            f"{' '.join(str(e).split())[:300]}"
        ) from None
    return True


@contextlib.contextmanager
def ray_session(address: str | None = None, jobs: int | None = None) -> Iterator[None]:
    """Connect to (or start) Ray once for several sweeps (an experiment's
    sub-sweeps); a Ray instance started here is shut down at the end."""
    ray = _import_ray()
    started = _connect(ray, address, jobs)
    try:
        yield
    finally:
        if started:
            ray.shutdown()


def skyhop_run(compute: Callable, point: Any, seed: int, run_index: int, trace: bool) -> tuple:
    """The body of one Ray task: ``("ok", doc, traces)`` or ``("error", kind, message)``.

    ``compute`` is :func:`skyhop.sweep.store.compute_part` (passed in, by
    reference, so that this module does not import the sweep library that
    imports it).
    Errors of the run itself travel back as values, so that Ray neither
    retries them nor wraps them in its own exception types.
    """
    try:
        doc, traces = compute(point, seed, run_index, trace)
    except ScenarioError as e:
        return ("error", "scenario", e.file, e.key, e.message)
    except SimulationError as e:
        return ("error", "simulation", e.message, e.kind)
    except SkyhopError as e:
        return ("error", "other", str(e))
    return ("ok", doc, traces)


def _error_of(value: tuple) -> SkyhopError:
    if value[1] == "scenario":
        return ScenarioError(value[2], value[3], value[4])
    if value[1] == "simulation":
        return SimulationError(value[2], value[3])
    return SkyhopError(value[2])


class RayBackend:
    """The :class:`~skyhop.sweep.base.Backend` of Ray tasks on the cluster at
    ``address`` (default: the one this process is connected to,
    ``RAY_ADDRESS`` or a new local instance), ``jobs`` runs in flight
    (default twice the cluster's CPUs)."""

    def __init__(self, address: str | None = None, jobs: int | None = None) -> None:
        self.address, self.jobs = address, jobs

    def execute(self, batch: Batch, pieces: Pieces) -> None:
        """Run ``batch.todo`` as Ray tasks, storing each part as it arrives."""
        _execute(batch, pieces, self.address, self.jobs)

    def session(self) -> contextlib.AbstractContextManager[None]:
        return ray_session(self.address, self.jobs)


def _execute(batch: Batch, pieces: Pieces, address: str | None, jobs: int | None) -> None:
    """Run ``batch.todo`` [(Point, seed)] as Ray tasks: ``pieces.compute``
    makes a part on a worker, the driver stores it with ``pieces.store``
    the moment it arrives; a failed run is named with ``pieces.at_point``
    and reported, ``pieces.terminated`` is raised on SIGTERM.
    """
    import signal
    import threading

    ray = _import_ray()
    started = _connect(ray, address, jobs)
    old_term = None
    if threading.current_thread() is threading.main_thread():

        def on_term(signum, frame):
            raise pieces.terminated()

        old_term = signal.signal(signal.SIGTERM, on_term)
    try:
        remote = ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False, num_cpus=1)(skyhop_run)
        if jobs is not None:
            in_flight = jobs
        else:
            cpus = int(ray.cluster_resources().get("CPU", 1))
            in_flight = max(2, 2 * cpus)
        todo, parts, total = batch.todo, batch.parts, batch.total
        queue = iter(todo)
        pending: dict[Any, tuple[Any, int]] = {}
        failures: list[SkyhopError] = []

        def refill() -> None:
            while len(pending) < in_flight:
                nxt = next(queue, None)
                if nxt is None:
                    return
                point, seed = nxt
                run_index = seed - batch.first_seed
                ref = remote.remote(pieces.compute, point, seed, run_index, batch.trace)
                pending[ref] = nxt

        try:
            refill()
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
                for ref in ready:
                    point, seed = pending.pop(ref)
                    try:
                        value = ray.get(ref)
                    except Exception as e:  # retries spent: the worker keeps dying
                        raise SweepError(
                            f"a Ray worker died {MAX_RETRIES + 1} times running point "
                            f"{point.index}, seed {seed} ({type(e).__name__}); "
                            f"{batch.done} of {total} runs are saved in {parts.parent}; "
                            "continue with --resume",
                            str(parts.parent),
                        ) from None
                    if value[0] == "ok":
                        pieces.store(parts, point.index, seed, value[1], value[2])
                        batch.finished()
                    else:
                        err = pieces.at_point(_error_of(value), point, seed)
                        failures.append(err)
                        batch.on_warning(f"run failed: {err}")
                refill()
        except BaseException:
            for ref in pending:
                try:
                    ray.cancel(ref, force=True)
                except Exception:
                    pass
            raise
        if failures:
            raise SweepError(
                f"{len(failures)} of {total} runs failed (first: {failures[0]}); "
                f"the other {batch.done} are saved in {parts.parent}",
                str(parts.parent),
            )
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
        if started:
            ray.shutdown()
