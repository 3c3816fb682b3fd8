"""The engine builds a scenario's plan once per process: loading builds it,
and the runs, the description, the memory check and the observed runs of
that scenario use it (``skyhop._core.plan_builds`` counts the builds)."""

from __future__ import annotations

import contextlib
import io
import json

import skyhop
from conftest import TINY
from skyhop import _core
from skyhop.cli import main
from skyhop.sweep import store


def builds_during(f) -> int:
    before = _core.plan_builds()
    f()
    return _core.plan_builds() - before


def test_a_run_of_three_seeds_builds_the_plan_once():
    assert builds_during(lambda: skyhop.run(TINY, runs=3, jobs=2)) == 1


def test_the_run_command_builds_the_plan_once(tmp_path):
    """`skyhop run SCENARIO --runs 3` (its runs, memory check and the
    description it prints) builds one plan."""
    out = io.StringIO()

    def run() -> None:
        with contextlib.redirect_stdout(out):
            assert main(["run", str(TINY), "--runs", "3", "--json"]) == 0

    assert builds_during(run) == 1
    doc = json.loads(out.getvalue())
    assert len(doc["runs"]) == 3 and doc["network"]["flows"]


def test_observed_runs_and_describe_build_no_more(tmp_path):
    scn = skyhop.load_scenario(TINY)
    observe = {"log": True, "pcap_dir": str(tmp_path), "pcap_per_seed": True}
    n = builds_during(
        lambda: (
            skyhop.api.check_memory(scn, 2, observe=observe),
            skyhop.api.run_seeds(scn, [1, 2], observe=observe),
            _core.describe(scn.loaded),
        )
    )
    assert n == 0
    assert sorted(p.name for p in tmp_path.iterdir())[0].endswith(".seed1.pcap")
    assert builds_during(lambda: skyhop.describe(TINY)) == 1


def test_a_sweep_worker_builds_each_scenario_once():
    """A worker process meets a point's scenario as resolved JSON: it builds
    its plan on the first run and reuses it for the other seeds."""
    a = skyhop.load_scenario(TINY).json
    b = skyhop.load_scenario(TINY, set=["links.ar.per=0.01"]).json
    store._PLANS.clear()
    results = []

    def runs() -> None:
        for j in (a, a, b, a):
            results.extend(store.run_one(j, seed, False) for seed in (1, 2))

    n = builds_during(runs)
    assert n == 2
    assert results[0] == results[2]  # the same (scenario, seed): the same run
    assert results[0]["flows"] != results[4]["flows"]
