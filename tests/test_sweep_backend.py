"""How a sweep's runs are executed: one :class:`SweepOptions` value, checked
when it is built, and the :class:`Backend` protocol, which is all a backend
needs: a backend written here (every run in this process, one after the
other) stores the same parts as the local pool, and an interruption keeps
what it finished (about 4 s on the shared two-core machine)."""

from __future__ import annotations

import contextlib

import pandas as pd
import pytest

import skyhop
from conftest import TINY
from skyhop.errors import ScenarioError
from skyhop.sweep import SweepInterrupted, SweepOptions, run_sweep
from skyhop.sweep import core as sweep_core
from skyhop.sweep.local import LocalBackend

GRID = {"links.ar.per": [0, 0.05]}


@pytest.mark.parametrize(
    ("args", "key", "words"),
    [
        (("cloud", None, None), "backend", "expected one of local, ray, got 'cloud'"),
        (("local", "head:6379", None), "address", "a cluster address needs backend 'ray'"),
        (("ray", "  ", None), "address", "expected HOST:PORT"),
        (("local", None, 0), "jobs", "must be at least 1, got 0"),
    ],
)
def test_options_are_checked_when_built_and_name_the_argument(args, key, words):
    with pytest.raises(ScenarioError) as e:
        SweepOptions(*args)
    assert (e.value.file, e.value.key) == ("<options>", key)
    assert words in e.value.message
    # skyhop.sweep builds them from its keywords, with the same errors
    with pytest.raises(ScenarioError) as e:
        skyhop.sweep(TINY, GRID, runs=1, backend=args[0], address=args[1], jobs=args[2])
    assert e.value.key == key


def test_the_options_name_their_backend():
    local = sweep_core.backend_of(SweepOptions(jobs=3))
    assert isinstance(local, LocalBackend) and local.jobs == 3
    ray = sweep_core.backend_of(SweepOptions("ray", "head:6379", 8))
    assert type(ray).__name__ == "RayBackend"
    assert (ray.address, ray.jobs) == ("head:6379", 8)


class InProcess:
    """A backend of the protocol: each run computed and stored here, in order;
    after ``stop_after`` runs, Ctrl-C."""

    def __init__(self, stop_after: int | None = None) -> None:
        self.stop_after = stop_after
        self.batches: list = []

    def execute(self, batch, pieces) -> None:
        self.batches.append(batch)
        for point, seed in batch.todo:
            if self.stop_after is not None and batch.done >= self.stop_after:
                raise KeyboardInterrupt
            doc, traces = pieces.compute(point, seed, seed - batch.first_seed, batch.trace)
            pieces.store(batch.parts, point.index, seed, doc, traces)
            batch.finished()

    def session(self):
        return contextlib.nullcontext()


def test_a_backend_of_the_protocol_stores_the_local_pools_parts(tmp_path, monkeypatch):
    local = tmp_path / "local"
    run_sweep(TINY, GRID, out=local, runs=2, seed=3, options=SweepOptions(jobs=1))
    mine = InProcess()
    monkeypatch.setattr(sweep_core, "backend_of", lambda options: mine)
    progress: list[tuple[int, int]] = []
    info = run_sweep(
        TINY,
        GRID,
        out=tmp_path / "mine",
        runs=2,
        seed=3,
        on_progress=lambda d, t: progress.append((d, t)),
    )
    (batch,) = mine.batches
    assert [(p.index, s) for p, s in batch.todo] == [(0, 3), (0, 4), (1, 3), (1, 4)]
    assert (batch.first_seed, batch.total, batch.done) == (3, 4, 4)
    assert progress == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]
    assert info["done"] == 4
    for part in sorted((local / "parts").iterdir()):
        assert (tmp_path / "mine" / "parts" / part.name).read_bytes() == part.read_bytes()
    for name in ("sweep.json", "summary.json"):
        assert (tmp_path / "mine" / name).read_bytes() == (local / name).read_bytes()
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "mine" / "results.parquet"),
        pd.read_parquet(local / "results.parquet"),
    )


def test_an_interrupted_backend_keeps_what_it_finished_and_a_resume_runs_the_rest(
    tmp_path, monkeypatch
):
    out = tmp_path / "sw"
    first = InProcess(stop_after=3)
    monkeypatch.setattr(sweep_core, "backend_of", lambda options: first)
    with pytest.raises(SweepInterrupted) as e:
        run_sweep(TINY, GRID, out=out, runs=2)
    assert (e.value.done, e.value.total) == (3, 4)
    rest = InProcess()
    monkeypatch.setattr(sweep_core, "backend_of", lambda options: rest)
    info = run_sweep(TINY, GRID, out=out, runs=2, resume=True)
    (batch,) = rest.batches
    assert [(p.index, s) for p, s in batch.todo] == [(1, 2)]
    assert (info["skipped"], info["done"]) == (3, 1)
