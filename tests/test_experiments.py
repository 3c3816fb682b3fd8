"""The named reproductions (E1, E2) at reduced run counts: the published
orderings, numbers and shapes of reference/targets.toml, the output files,
resuming, and the ``skyhop experiment`` command line.

E1 runs once per session under both its TCP profiles (ns2, the studies'
simulator, in OUT; studies, the runs of earlier releases, in OUT/studies),
E2 under ns2 alone (its studies runs are the earlier releases' and run the
engine the golden runs pin); 4 runs per point, seed 1, about 80 s and 30 s
on this shared two-core machine. The command line runs E1 under ns2 alone at 2 runs. (Running
every profile of the two-profile orchestration -- progress, resume -- is
tested by E6, tests/test_e6.py.) The tests read the summary documents the
runs write.
Every check is written so that it fails if the published ordering or shape
breaks. Where a published threshold sits inside the 4-run noise of one cell,
the comment at the check says so and what the 40- or 100-run value is.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from skyhop.experiments import run_experiment

RUNS = 4
SEED = 1

# Published transfer times of fig. 9 (s; 5 MB W->G, 1 % PER on W-U) and their
# tolerance, typed in from reference/targets.toml so that an edit of the
# package's copy of the targets cannot move the goal posts.
FIG9 = {
    "newreno": {"none": 169.4, "T": 62.7, "TS": 43.7},
    "westwood": {"none": 68.2, "T": 45.5, "TS": 43.9},
}
TOLERANCE = 0.30
TCPS = ("newreno", "westwood")
DIRECTIONS = ("W->G", "G->W")
PERS = ("0.001", "0.005", "0.01")

E1_FIGURES = (
    "e1_transfer_time_vs_per.png",
    "e1_throughput_vs_per.png",
    "e1_fig9.png",
    "e1_cache_sweep.png",
    "e1_cwnd.png",
)
E2_FIGURES = ("e2_cache_sweep.png", "e2_summary.png")


@dataclass
class Experiment:
    name: str
    out: Path
    doc: dict[str, Any]
    wall_s: float

    def under(self, profile: str) -> dict[str, Any]:
        """The experiment's part of the summary under ``profile``."""
        if profile == self.doc[self.name]["profile"]:
            return self.doc[self.name]
        return json.loads((self.out / profile / "summary.json").read_text())[self.name]


#: the profiles each experiment runs under here (None: all it lists)
PROFILE = {"E1": None, "E2": "ns2"}


def _run(name: str, out: Path) -> Experiment:
    t0 = time.perf_counter()
    doc = run_experiment(name, out, runs=RUNS, seed=SEED, profile=PROFILE[name])
    return Experiment(name, out, doc, time.perf_counter() - t0)


@pytest.fixture(scope="session")
def e1(tmp_path_factory) -> Experiment:
    return _run("E1", tmp_path_factory.mktemp("exp") / "E1")


@pytest.fixture(scope="session")
def e2(tmp_path_factory) -> Experiment:
    return _run("E2", tmp_path_factory.mktemp("exp") / "E2")


def _mean(s: dict[str, Any]) -> float:
    assert s["mean"] is not None, s
    return s["mean"]


def _spread(values: list[float]) -> float:
    return max(values) / min(values)


# ---------------------------------------------------------------------------
# E1, fig. 9


@pytest.mark.parametrize("profile", ("ns2", "studies"))
@pytest.mark.parametrize("tcp", TCPS)
def test_e1_fig9_ordering_none_slower_than_t_slower_than_ts(e1, tcp, profile):
    cell = e1.under(profile)["fig9"][tcp]
    none, t, ts = (_mean(cell[p]) for p in ("none", "T", "TS"))
    assert none > t > ts, f"{tcp}: none {none:.1f} s, T {t:.1f} s, TS {ts:.1f} s"


def test_e1_runs_under_ns2_first_and_studies_beside():
    assert e1_profiles() == ("ns2", "studies")


def e1_profiles():
    from skyhop.experiments import EXPERIMENTS

    return EXPERIMENTS["E1"].profiles


#: Fig. 9's cells within the published tolerance, per profile. Under ns2 the
#: proxy-at-T cells are slower than published at the published run count
#: (NewReno +33 %, Westwood +48 % at 20 runs: the T->G leg's slow start
#: with an unlimited initial ssthresh, repaired by ns-2's Slow-but-Steady
#: NewReno one hole per round trip; docs/VALIDATION.md, E1): they are
#: checked to be slower, not within.
WITHIN = {
    "studies": [(t, p) for t in TCPS for p in ("none", "T", "TS")],
    "ns2": [(t, p) for t in TCPS for p in ("none", "TS")],
}


@pytest.mark.parametrize("profile", ("ns2", "studies"))
@pytest.mark.parametrize("tcp", TCPS)
@pytest.mark.parametrize("placement", ("none", "T", "TS"))
def test_e1_fig9_numbers_within_tolerance(e1, tcp, placement, profile):
    s = e1.under(profile)["fig9"][tcp][placement]
    published = FIG9[tcp][placement]
    if (tcp, placement) not in WITHIN[profile]:
        assert s["mean"] > published, (tcp, placement, s["mean"])
        return
    assert s["published"] == published
    assert s["n"] == RUNS  # every 5 MB transfer finished
    deviation = _mean(s) / published - 1
    assert abs(deviation) <= TOLERANCE, (
        f"{tcp}/{placement}: {s['mean']:.1f} ± {s['ci95']:.1f} s vs published {published} s "
        f"({deviation:+.0%})"
    )
    assert s["deviation"] == pytest.approx(deviation)
    assert s["within_tolerance"] is True


def test_e1_fig9_claims_recorded_as_holding(e1):
    claims = {c["claim"]: c for c in e1.doc["claims"] if c["experiment"] == "E1.fig9"}
    ordering = claims["for both variants: none > T > TS (transfer time)"]
    assert ordering["holds"], ordering["evidence"]


# ---------------------------------------------------------------------------
# E1, PER sweep: a proxy at T hides the wireless losses


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("tcp", TCPS)
def test_e1_proxy_at_t_is_flat_across_per_and_no_proxy_is_not(e1, direction, tcp):
    # Under studies (under ns2 the W->G proxy at T is not flat: the T->G
    # leg's start-up; docs/VALIDATION.md, E1).
    table = e1.under("studies")["per_sweep"][direction]["transfer_time_s"][tcp]
    with_t = _spread([_mean(table["T"][p]) for p in PERS])
    without = _spread([_mean(table["none"][p]) for p in PERS])
    msg = f"max/min over PER: proxy at T {with_t:.2f}, no proxy {without:.2f}"
    assert with_t <= 1.25, msg
    # The proxy must make a clear difference for both variants ...
    assert without >= with_t + 0.10, msg
    if tcp == "newreno":
        # ... and end-to-end NewReno is far from flat (about 2.1 at 40 runs).
        # End-to-end Westwood is itself fairly robust to random loss: its
        # spread is about 1.3 at 40 runs (W->G 1.32, G->W 1.30), so the 1.25
        # line lies inside its 4-run noise (blocks of 4 seeds give 1.19..1.47)
        # and is not asserted for it.
        assert without > 1.25, msg


# ---------------------------------------------------------------------------
# E1, cache sweep: the half-free knee near twice the 42-packet pipe


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("tcp", TCPS)
def test_e1_half_free_cache_knee_near_twice_the_pipe(e1, direction, tcp):
    # Under studies, as before the ns2 profile (its knees at 20 runs are in
    # docs/VALIDATION.md, E1).
    sweep = e1.under("studies")["cache_sweep"][direction][tcp]
    at = {c: _mean(s) for c, s in zip(sweep["cache_packets"], sweep["throughput_bps"], strict=True)}
    plateau_caches = [c for c in at if c >= 100]
    assert len(plateau_caches) >= 5
    plateau = sum(at[c] for c in plateau_caches) / len(plateau_caches)
    knee = min(c for c in sorted(at) if at[c] >= 0.9 * plateau)
    msg = (
        f"plateau {plateau / 1e3:.0f} kb/s, {at[10] / 1e3:.0f} kb/s at 10 packets, "
        f"90 % first reached at {knee} packets"
    )
    assert at[10] < 0.5 * plateau, msg
    assert 40 <= knee <= 100, msg
    # A small cache is worse than no proxy at all (targets.toml, E1.cache_sweep).
    assert at[10] < _mean(sweep["no_proxy_bps"]), msg


# ---------------------------------------------------------------------------
# E2, on-board cache sweep at 1 Mb/s, BER 1e-6


def _e2_curve(e2, tcp: str) -> dict[int, float]:
    sweep = e2.doc["E2"]["cache_sweep"]["1Mbps"]["1e-06"][tcp]
    return {
        c: _mean(s) for c, s in zip(sweep["cache_packets"], sweep["throughput_bps"], strict=True)
    }


@pytest.mark.parametrize("tcp", TCPS)
def test_e2_throughput_rises_with_the_cache(e2, tcp):
    at = _e2_curve(e2, tcp)
    caches = sorted(at)
    assert caches[0] <= 21 and caches[-1] >= 126
    small = [at[c] for c in caches if c <= 21]
    large = [at[c] for c in caches if c >= 63]
    assert max(small) < min(large), at
    assert max(at.values()) > 2 * at[caches[0]], at


def test_e2_saturation_near_three_times_the_hop_pipe(e2):
    # The published claim is checked on NewReno, as the experiment's own claim
    # check does. At 100 runs NewReno reaches 90 % of its largest value at 84
    # packets (87 % at 63); in 50 disjoint blocks of 4 seeds the knee was
    # always 63, 84 or 126. Westwood levels off later: at 100 runs its 90 %
    # point is 126 packets (679 vs 0.9 x 722 kb/s), and at 4 runs the noisy
    # maximum pushes it to 168 in about a fifth of seed blocks (seed 1
    # included), so its knee is not asserted here.
    at = _e2_curve(e2, "newreno")
    top = max(at.values())
    knee = min(c for c in sorted(at) if at[c] >= 0.9 * top)
    assert 42 <= knee <= 126, f"90 % of {top / 1e3:.0f} kb/s first reached at {knee} packets: {at}"


def test_e2_saturation_claim_recorded_as_holding(e2):
    (claim,) = [
        c
        for c in e2.doc["claims"]
        if c["experiment"] == "E2.cache_sweep" and c["claim"].startswith("throughput rises")
    ]
    assert claim["holds"], claim["evidence"]


# ---------------------------------------------------------------------------
# output files


def _assert_png(path: Path) -> None:
    from matplotlib import image

    for other in (".pdf", ".svg"):
        assert path.with_suffix(other).stat().st_size > 1000, path.with_suffix(other)
    assert path.is_file(), path
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    assert len(data) > 5000, (path, len(data))
    pixels = image.imread(path)
    assert pixels.shape[0] > 100 and pixels.shape[1] > 100, (path, pixels.shape)
    assert float(pixels.std()) > 0.01, f"{path} is blank"


def _expected_rows(out: Path) -> int:
    rows = 0
    for manifest in sorted((out / "sweeps").glob("*/sweep.json")):
        m = json.loads(manifest.read_text())
        rows += m["points"] * m["runs"]  # one flow per scenario
    return rows


@pytest.mark.parametrize(("exp", "figures"), [("e1", E1_FIGURES), ("e2", E2_FIGURES)])
def test_experiment_output_directory(request, exp, figures):
    e = request.getfixturevalue(exp)
    out = e.out
    for name in ("summary.json", "results.parquet", "claims.md"):
        assert (out / name).is_file(), name
    for name in figures:
        _assert_png(out / name)

    summary = json.loads((out / "summary.json").read_text())
    assert summary["runs_per_point"] == RUNS
    assert set(summary) >= {e.name, "claims", "runs_per_point", "wall_time_s"}
    assert summary["claims"] == e.doc["claims"]
    assert summary[e.name].keys() == e.doc[e.name].keys()

    df = pd.read_parquet(out / "results.parquet")
    assert len(df) == _expected_rows(out) > 0
    assert not df.duplicated(["sweep", "point", "seed", "flow"]).any()
    assert sorted(df["seed"].unique()) == list(range(SEED, SEED + RUNS))

    claims_md = (out / "claims.md").read_text()
    assert claims_md.count("\n|") >= len(e.doc["claims"])
    for c in e.doc["claims"]:
        assert c["claim"] in claims_md


def test_e1_fig9_in_summary_json_mirrors_targets(e1):
    summary = json.loads((e1.out / "summary.json").read_text())
    for tcp, cells in FIG9.items():
        for placement, published in cells.items():
            s = summary["E1"]["fig9"][tcp][placement]
            assert s["published"] == published
            assert s["mean"] == pytest.approx(e1.doc["E1"]["fig9"][tcp][placement]["mean"])
            assert {"mean", "ci95", "n", "deviation", "within_tolerance"} <= s.keys()


# ---------------------------------------------------------------------------
# resuming


def _parts(out: Path) -> dict[str, int]:
    return {
        str(p.relative_to(out)): p.stat().st_mtime_ns for p in (out / "sweeps").rglob("parts/*")
    }


def _without_wall_time(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "wall_time_s"}


def _same(a: Any, b: Any) -> bool:
    """Equal, with NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


# E2 alone: a second run of E1 would redo its summaries and figures under
# both profiles for no more coverage (a resume across profiles is tested by
# E6, tests/test_e6.py).
@pytest.mark.parametrize("exp", ["e2"])
def test_second_run_reuses_finished_sub_sweeps(request, tmp_path, exp):
    e = request.getfixturevalue(exp)
    out = tmp_path / e.name
    shutil.copytree(e.out, out)
    parts = _parts(out)
    assert len(parts) == _expected_rows(out)

    again = _run(e.name, out)

    assert _parts(out) == parts  # nothing re-run, nothing added
    assert _same(_without_wall_time(again.doc), _without_wall_time(e.doc))
    first = pd.read_parquet(e.out / "results.parquet")
    second = pd.read_parquet(out / "results.parquet")
    pd.testing.assert_frame_equal(first, second)
    # No wall-time assertion: the part files' modification times above
    # already show that nothing ran again.


# ---------------------------------------------------------------------------
# the command line


def test_cli_experiment_e1(cli, tmp_path):
    from skyhop.experiments import total_runs

    out = tmp_path / "e1"
    proc = cli("experiment", "E1", "--runs", "2", "--profile", "ns2", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    # stderr is not a terminal: progress lines with runs done, total and time
    lines = proc.stderr.splitlines()
    assert lines and all(line.startswith("skyhop: progress: E1: ") for line in lines), lines
    total = total_runs("E1", 2, profile="ns2")
    assert total_runs("E1", 2) == total + total_runs("E1", 2, profile="studies")
    assert f"0/{total} runs (0 %)" in lines[0]
    assert f"{total}/{total} runs (100 %)" in lines[-1]
    assert any(" left [" in line for line in lines)  # an estimate and the sub-sweep under way
    assert str(out) in proc.stdout
    # per claim its figure and threshold and the profile's verdict, then the count
    doc = json.loads((out / "summary.json").read_text())
    for c in doc["claims"]:
        assert c["claim"] in proc.stdout, c["claim"]
    assert proc.stdout.count("    figure: ") == len(doc["claims"])
    assert proc.stdout.count("    threshold: ") == len(doc["claims"])
    assert proc.stdout.count("    ns2: holds: ") + proc.stdout.count(
        "    ns2: does not hold: "
    ) == len(doc["claims"])
    assert f" of {len(doc['claims'])}" in proc.stdout.splitlines()[-1]
    assert doc["runs_per_point"] == 2
    for tcp in TCPS:
        for placement in ("none", "T", "TS"):
            assert doc["E1"]["fig9"][tcp][placement]["n"] == 2
    assert (out / "results.parquet").is_file()
    for name in E1_FIGURES:
        assert (out / name).stat().st_size > 0


def test_every_experiment_implements_the_protocol():
    from skyhop.experiments import DEFAULT_RUNS, EXPERIMENTS
    from skyhop.experiments.base import Context, Experiment, Runs, SubSweep

    assert list(EXPERIMENTS) == ["E1", "E2", "E3", "E4", "E5", "E6", "E7"]
    assert DEFAULT_RUNS == {
        "E1": 20,
        "E2": 100,
        "E3": 100,
        "E4": 1000,
        "E5": 20,
        "E6": 20,
        "E7": 1,
    }
    for name, exp in EXPERIMENTS.items():
        assert isinstance(exp, Experiment), name
        jobs = exp.grid(Context(out=Path("."), runs=2))
        assert jobs and all(isinstance(j, SubSweep | Runs) for j in jobs), name
        names = [j.name for j in jobs]
        assert len(names) == len(set(names)), name  # one folder per sub-sweep


def test_cli_unknown_experiment(cli, tmp_path):
    out = tmp_path / "e9"
    proc = cli("experiment", "E9", "--out", out)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("skyhop: error: "), lines[0]
    assert "E9" in lines[0]
    assert "E1" in lines[0]  # names the known experiments
    assert not out.exists()
