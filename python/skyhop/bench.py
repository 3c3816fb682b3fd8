"""``skyhop bench``: how fast the engine simulates.

Runs each benchmark scenario for a number of seeds, one after the other
(a moving world's next route trees are built ahead on a second thread
where the machine has one), and reports wall time, events per second, packet-hops per second
(one packet crossing one link direction) and simulated seconds per wall
second, from the engine counters of each RunResult; for a scenario with QUIC
flows also the QUIC datagrams (both ends of every connection) per second of
the process's processor time. Wall and processor time are measured here and
only reported, never asserted.

With several rounds the whole list runs again in each, so that every case
is timed beside the others under the same load: a case reports its fastest
round (the least disturbed), and a case timed against another (a variant
against its NewReno case) reports its events/s relative to that case's in
each round, under the same load, and the median of those ratios.
"""

from __future__ import annotations

import json
import platform
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import _core
from .api import check_int, load_scenario
from .errors import ScenarioError

__all__ = [
    "DEFAULT_BENCHES",
    "LEO_BENCHES",
    "QUIC_BENCHES",
    "VARIANT_BASELINES",
    "VARIANT_BENCHES",
    "bench",
]

#: Benchmark scenarios, relative to the repository root: the E1 chain, the
#: 1 Gb/s dumbbell, and B2 of docs/leo.md (Kuiper-630, 100 flows between
#: the 100 cities at 1 Gb/s: hundreds of thousands of packets in flight on
#: a moving network).
DEFAULT_BENCHES = (
    "benches/e1_chain.toml",
    "benches/dumbbell_1g.toml",
    "benches/leo_b2_kuiper_1g.toml",
)

#: The LEO benchmarks of docs/leo.md (``skyhop bench --leo``): B1, one flow
#: over Kuiper-630 at 10 Mb/s for 200 s (two city pairs), and B2.
LEO_BENCHES = (
    "benches/leo_b1_rio_stpetersburg.toml",
    "benches/leo_b1_manila_dalian.toml",
    "benches/leo_b2_kuiper_1g.toml",
)

#: QUIC flows (``skyhop bench --quic``): quinn-proto over a 100 Mb/s GEO
#: hop (60 s of bulk) and at 1 Gb/s on a 2 ms round trip (5 s).
QUIC_BENCHES = (
    "benches/quic_geo_100.toml",
    "benches/quic_lan_1g.toml",
)

#: The variants users pick, each after the NewReno case it compares with
#: (``skyhop bench --variants``): SACK, linux-profile CUBIC (SACK + PRR +
#: RACK-TLP) and BBR with RACK on the 1 Gb/s dumbbell, and the holes case
#: with SACK. Each should run at no less than half NewReno's events/s.
VARIANT_BENCHES = (
    "benches/dumbbell_1g.toml",
    "benches/dumbbell_1g_sack.toml",
    "benches/dumbbell_1g_linux.toml",
    "benches/dumbbell_1g_bbr_rack.toml",
    "benches/holes.toml",
    "benches/holes_sack.toml",
)

#: The case each variant is compared with (its events/s relative to that
#: case's, round by round).
VARIANT_BASELINES = {
    "benches/dumbbell_1g_sack.toml": "benches/dumbbell_1g.toml",
    "benches/dumbbell_1g_linux.toml": "benches/dumbbell_1g.toml",
    "benches/dumbbell_1g_bbr_rack.toml": "benches/dumbbell_1g.toml",
    "benches/holes_sack.toml": "benches/holes.toml",
}


def bench_one(path: str, repeat: int | None = None) -> dict[str, Any]:
    """Time one scenario over ``repeat`` seeds (default: its ``run.runs``)."""
    scn = load_scenario(path)
    n = repeat or scn.default_runs
    seeds = range(scn.default_seed, scn.default_seed + n)
    wall = events = hops = cpu = 0.0
    sim = 0.0
    datagrams = 0
    for seed in seeds:
        t0, c0 = time.perf_counter(), time.process_time()
        text = _core.run(scn.loaded, seed, False)
        wall += time.perf_counter() - t0
        cpu += time.process_time() - c0
        result = json.loads(text)
        engine = result["engine"]
        events += engine["events"]
        hops += engine["packet_hops"]
        sim += engine["sim_time_s"]
        datagrams += sum(q["datagrams_sent"] for q in result.get("quic", []))
    quic = {}
    if datagrams:
        quic = {
            "quic_datagrams": datagrams,
            "quic_datagrams_per_cpu_s": datagrams / cpu if cpu > 0 else None,
            "cpu_us_per_quic_datagram": cpu / datagrams * 1e6,
        }
    return {
        "scenario": path,
        "runs": n,
        "wall_s": wall,
        "events": int(events),
        "packet_hops": int(hops),
        "sim_time_s": sim,
        "events_per_s": events / wall if wall > 0 else None,
        "packet_hops_per_s": hops / wall if wall > 0 else None,
        "sim_s_per_wall_s": sim / wall if wall > 0 else None,
        "cpu_s": cpu,
        **quic,
    }


def bench(
    paths: Sequence[str] = DEFAULT_BENCHES,
    repeat: int | None = None,
    rounds: int = 1,
    baselines: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Run the benchmarks.

    Parameters
    ----------
    paths : sequence of str
        Benchmark scenario files.
    repeat : int, optional
        Runs per scenario (default: each scenario's ``run.runs``).
    rounds : int
        Times the whole list is run, one round after the other (default 1).
        Each scenario reports its fastest round.
    baselines : dict, optional
        For a scenario of ``paths``, another of ``paths`` it is compared with:
        its events/s relative to that one's in each round (``vs_baseline``)
        and their median (``vs_baseline_median``).

    Returns
    -------
    dict
        ``{"machine": {...}, "rounds": n, "results": [{"scenario", "runs",
        "wall_s", "events", "packet_hops", "sim_time_s", "events_per_s",
        "packet_hops_per_s", "sim_s_per_wall_s", "cpu_s", "rounds_events_per_s"},
        ...]}`` (with QUIC flows also "quic_datagrams",
        "quic_datagrams_per_cpu_s", "cpu_us_per_quic_datagram": every
        connection end's datagrams over the process's processor time); the
        figures are the fastest round's, ``rounds_events_per_s``
        every round's; a compared scenario adds ``baseline``, ``vs_baseline``
        and ``vs_baseline_median``.
    """
    if isinstance(paths, (str, bytes)) or not isinstance(paths, Sequence):
        raise ScenarioError("<options>", "paths", f"must be a list of files, got {paths!r}")
    if repeat is not None:
        repeat = check_int("repeat", repeat, minimum=1)
    rounds = check_int("rounds", rounds, minimum=1)
    baselines = dict(baselines or {})
    for p, b in baselines.items():
        if p not in paths or b not in paths:
            raise ScenarioError(
                "<options>", "baselines", f"{p!r} and its baseline {b!r} must both be benchmarked"
            )
    for p in paths:
        if not Path(p).is_file():
            shipped = (*DEFAULT_BENCHES, *VARIANT_BENCHES, *LEO_BENCHES, *QUIC_BENCHES)
            hint = " (run from the repository root)" if p in shipped else ""
            raise ScenarioError(p, "", f"no such benchmark scenario{hint}")
    timed = [[bench_one(p, repeat) for p in paths] for _ in range(rounds)]
    results = []
    for i, p in enumerate(paths):
        mine = [t[i] for t in timed]
        best = dict(max(mine, key=lambda r: r["events_per_s"] or 0.0))
        best["rounds_events_per_s"] = [r["events_per_s"] for r in mine]
        if p in baselines:
            j = list(paths).index(baselines[p])
            ratios = [
                t[i]["events_per_s"] / t[j]["events_per_s"]
                for t in timed
                if t[i]["events_per_s"] and t[j]["events_per_s"]
            ]
            best["baseline"] = baselines[p]
            best["vs_baseline"] = ratios
            best["vs_baseline_median"] = statistics.median(ratios) if ratios else None
        results.append(best)
    return {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "processor": platform.machine(),
            "skyhop": _core.version(),
            "threads": 1,
        },
        "rounds": rounds,
        "results": results,
    }
