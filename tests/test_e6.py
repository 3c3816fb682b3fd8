"""E6 (satellite forward link, 3G return) at a reduced size: 2 runs per point
under both its profiles (ns2, then studies in OUT/studies; about 35 s each
on this shared two-core machine; the suite's test of an experiment run
across profiles: progress, resume, the claims per profile). Checks the
summary layout relied upon (kB/s goodputs under
``E6.return_path.<rct|rcs>.<variant>``, the measured mean layer-2 rate, one
entry per published claim), the figures, and the mechanisms the claims rest
on."""

from __future__ import annotations

import json

import pytest

from skyhop.experiments import run_experiment, total_runs

TCPS = ("newreno", "newreno-sbs", "sack", "westwood")
FIGURES = (
    "e6_return_path.png",
    "e6_table2.png",
    "e6_matrix.png",
    "e6_cqe.png",
    "e6_fer_bad.png",
    "e6_t_good.png",
    "e6_alr.png",
    "e6_layer2_rate.png",
)
CLAIMS = (
    "without ARQ, ACM is worse than staying in the robust low-rate mode all the time (Fig. 6)",
    "with ARQ, ACM and fixed high-rate mode perform about the same",
    "an ASTO sender timeout helps, especially for long CQE times",
    "SACK is best in the efficient configurations; Westwood is best under heavy loss",
    "moderate ACK loss (below about 1 %) barely changes goodput",
    "one return path is clearly better for both TCP versions; "
    "SACK beats NewReno-Impatient on both paths",
)


@pytest.fixture(scope="module")
def progress():
    return []


@pytest.fixture(scope="module")
def e6(tmp_path_factory, progress):
    out = tmp_path_factory.mktemp("exp") / "E6"
    doc = run_experiment("E6", out, runs=2, seed=1, on_progress=lambda *a: progress.append(a))
    return out, doc


def _m(s):
    assert s["mean"] is not None and s["n"] == 2, s
    return s["mean"]


def test_summary_layout_and_files(e6):
    out, doc = e6
    on_disk = json.loads((out / "summary.json").read_text())
    assert on_disk["E6"].keys() == doc["E6"].keys()
    s = doc["E6"]
    for rp in ("rct", "rcs"):
        for t in TCPS:
            g = s["return_path"][rp][t]
            assert set(g) == {"mean", "ci95", "n"}
            # kB/s: below the 1.416 Mb/s = 177 kB/s HBW information rate.
            assert 20 < _m(g) < 177, (rp, t, g)
    assert sum(len(m[t] and [1]) for a in s["matrix"].values() for m in a.values() for t in m) == 36
    assert [c["claim"] for c in doc["claims"]] == list(CLAIMS)
    assert [c["experiment"] for c in doc["claims"]] == ["E6"] * 5 + ["E6.table2"]
    for c in doc["claims"]:
        assert all(c[k] for k in ("figure", "quantity", "threshold", "reading", "ours")), c
        assert set(c["profiles"]) == {"ns2", "studies"}, c
    assert (out / "studies" / "summary.json").is_file()
    for f in FIGURES:
        for suffix in (".png", ".pdf", ".svg"):
            assert (out / f).with_suffix(suffix).stat().st_size > 1000, (f, suffix)
    assert (out / "results.parquet").exists() and (out / "claims.md").exists()


def test_mean_layer2_rate_is_measured_near_1_180(e6):
    r = e6[1]["E6"]["mean_layer2_rate_mbps"]
    assert r["published"] == 1.180
    # Two 3-minute runs of a 6 s / 2 s chain: within 10 % (the long-run
    # figure is checked to 2 % by the engine's tests).
    assert abs(r["mean"] - 1.180) < 0.118, r


def test_the_mechanisms_behind_the_claims(e6):
    s = e6[1]["E6"]
    mx = s["matrix"]
    for t in TCPS:
        # ARQ with ASTO recovers what the link loses: better than no ARQ.
        assert _m(mx["arq_asto"]["acm"][t]) > _m(mx["no_arq"]["acm"][t])
        # Fixed LBW never goes above its 0.472 Mb/s (59 kB/s).
        assert _m(mx["no_arq"]["fixed-lbw"][t]) < 59
    # RCS (ACKs and reports through the satellite) is slower than RCT.
    assert _m(s["return_path"]["rcs"]["sack"]) < _m(s["return_path"]["rct"]["sack"])
    # A higher BAD-state FER costs goodput; longer GOOD periods give more.
    fb = s["fer_bad_sweep"]["fixed-hbw"]
    assert _m(fb[-1]) < _m(fb[0])
    tg = s["t_good_sweep"]["arq_asto"]
    assert _m(tg[-1]) > _m(tg[0])


def test_progress_counts_every_run_against_a_total_known_from_the_start(e6, progress):
    total = total_runs("E6", 2)
    # 80 points of sub-sweeps, 24 of the RCS timer sensitivity, 16 of the
    # buffer sensitivity and the layer-2 probe, 2 runs each, under each of
    # the two profiles
    one = (4 + 4 + 10 + 3 * 12 + 10 + 10 + 6 + 24 + 16) * 2 + 2
    assert total == 2 * one
    assert total_runs("E6", 2, profile="ns2") == one
    assert {t for _, t, _, _ in progress} == {total}
    done = [d for d, _, _, _ in progress]
    assert done == sorted(done) and done[0] == 0 and done[-1] == total
    steps = [s for _, _, s, _ in progress]
    assert steps[0] == "ns2: return_rct" and "ns2: layer2_rate" in steps
    assert "studies: return_rct" in steps and steps[-1] == "studies: done"
    assert all(skipped == 0 for *_, skipped in progress)
    parts = list((e6[0] / "sweeps").glob("*/parts/*.json"))
    assert len(parts) == one - 2  # the probe's runs are not a sweep


def test_a_resumed_experiment_counts_what_it_found_done(e6, tmp_path):
    import shutil

    out = tmp_path / "E6"
    shutil.copytree(e6[0], out)
    seen = []
    again = run_experiment("E6", out, runs=2, seed=1, on_progress=lambda *a: seen.append(a))
    total = total_runs("E6", 2)
    assert seen[-1][0] == total
    assert seen[-1][3] == total - 4  # every part found; only the probes ran again
    assert again["E6"] == e6[1]["E6"] and again["claims"] == e6[1]["claims"]


def test_table2_beside_the_published_cells_with_ratios(e6):
    t2 = e6[1]["E6"]["table2"]
    # the reading taken: RCT the better path (the text's), each row its ASTO
    assert t2["rct"]["asto_s"] == 0.32 and t2["rcs"]["asto_s"] == 0.54
    published = {
        ("rct", "sack"): 126.3,
        ("rct", "newreno_imp"): 115.40,
        ("rcs", "sack"): 101.55,
        ("rcs", "newreno_imp"): 81.21,
    }
    for (path, tcp), value in published.items():
        cell = t2[path][tcp]
        assert cell["published"] == value
        assert cell["ratio"] == pytest.approx(_m(cell) / value)
    # Table II's cells are the SACK and NewReno cells of the return-path runs
    rp = e6[1]["E6"]["return_path"]
    assert t2["rct"]["sack"]["mean"] == rp["rct"]["sack"]["mean"]
    assert t2["rcs"]["newreno_imp"]["mean"] == rp["rcs"]["newreno"]["mean"]
    md = (e6[0] / "claims.md").read_text()
    assert "RCT/RCS" in md and "SACK/NewReno-Imp" in md


def test_the_sensitivities_cover_the_open_choices(e6):
    s = e6[1]["E6"]
    b = s["buffer_sensitivity"]
    assert {"128 kB", "4 MB"} <= set(b) and set(b["4 MB"]) == {"25", "50", "100", "200"}
    r = s["rcs_timer_sensitivity"]
    assert set(r) >= {"0.56 s", "0.6 s", "0.7 s", "0.82 s"}
    assert set(r["0.6 s"]) == {"1 s", "1.2 s", "1.45 s"}
