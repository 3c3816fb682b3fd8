"""The claim checks test what the studies' sentences say: each check is
fed made-up results on both sides of its threshold (no simulation)."""

from __future__ import annotations

from pathlib import Path

from skyhop.experiments import e1, e4, e6
from skyhop.experiments.base import Context
from skyhop.experiments.common import targets


def _s(x: float) -> dict:
    return {"mean": x, "ci95": 0.0, "n": 20}


def _ctx() -> Context:
    return Context(out=Path("."), runs=20)


# ---------------------------------------------------------------------------
# E1: "about 91 % of the 1 Mb/s capacity" is the 5 MB transfer's share


def _e1(ts_newreno_s: float):
    times = {"newreno": {"none": 169.4, "T": 62.7, "TS": ts_newreno_s}}
    times["westwood"] = {"none": 68.2, "T": 45.5, "TS": ts_newreno_s}
    time_t, tput_t, cache_t = {}, {}, {}
    for d in e1.DIRECTIONS:
        time_t[d] = {
            (p, tcp, pl): _s(times[tcp][pl] * (1 + 0.5 * i if pl == "none" else 1))
            for i, p in enumerate(e1.PERS)
            for tcp in e1.TCPS
            for pl in ("none", "T", "TS")
        }
        tput_t[d] = {
            (p, tcp, pl): _s(9.1e5) for p in e1.PERS for tcp in e1.TCPS for pl in times[tcp]
        }
        cache_t[d] = {(c, tcp): _s(1e5 if c < 60 else 6e5) for c in e1.CACHES for tcp in e1.TCPS}
    fig9 = {
        tcp: {pl: time_t["W->G"][(0.01, tcp, pl)] for pl in ("none", "T", "TS")} for tcp in e1.TCPS
    }
    ctx = _ctx()
    e1._claims(ctx, {"fig9": fig9}, time_t, tput_t, cache_t)
    return ctx.claims[0]


def test_e1_about_91_percent_tests_the_5_mb_transfer():
    held = _e1(43.7)  # the study's 91.5 %
    assert held["holds"], held
    assert "91.5%" in held["ours"]
    failed = _e1(47.8)  # 84 %: the 230 s throughput does not rescue it
    assert not failed["holds"] and "83.7%" in failed["ours"], failed


# ---------------------------------------------------------------------------
# E4: resilience is the share kept; "about 3x / 2x" bands do not overlap


def _e4(kept_ww: float, kept_nr: float, gain_ww: float, gain_nr: float):
    from skyhop.experiments.geo_split import BERS, RATES_MBPS, TCPS

    ref = {
        (r, b): {("westwood",): _s(800e3), ("newreno",): _s(400e3)}
        for r in RATES_MBPS
        for b in BERS
    }
    e2e = {
        (r, b): {("westwood",): _s(800e3 * kept_ww), ("newreno",): _s(400e3 * kept_nr)}
        for r in RATES_MBPS
        for b in BERS
    }
    gains = {"westwood": gain_ww, "newreno": gain_nr}
    summary = {
        "summary": {
            f"{r}Mbps": {f"{b:g}": {t: {"gain": gains[t]} for t in TCPS} for b in BERS}
            for r in RATES_MBPS
        }
    }
    ctx = _ctx()
    e4._claims(ctx, summary, e2e, ref)
    return ctx.claims


def test_e4_resilience_is_relative_not_absolute():
    # Westwood far ahead in absolute terms but keeping a smaller share: not resilient
    shadow, _ = _e4(kept_ww=0.45, kept_nr=0.5, gain_ww=3.0, gain_nr=2.0)
    assert not shadow["holds"], shadow
    shadow, _ = _e4(kept_ww=0.6, kept_nr=0.5, gain_ww=3.0, gain_nr=2.0)
    assert shadow["holds"], shadow


def test_e4_about_three_and_about_two_do_not_overlap():
    assert _e4(0.6, 0.5, gain_ww=3.0, gain_nr=2.0)[1]["holds"]
    # 2.0 is not "about three", 2.6 is not "about two"
    assert not _e4(0.6, 0.5, gain_ww=2.0, gain_nr=1.5)[1]["holds"]
    assert not _e4(0.6, 0.5, gain_ww=3.0, gain_nr=2.6)[1]["holds"]


# ---------------------------------------------------------------------------
# E6: "with ARQ, ACM about the same as fixed HBW" under the study's condition


TABLE2 = {
    "rct": {"sack": 126.3, "newreno_imp": 115.4},
    "rcs": {"sack": 101.55, "newreno_imp": 81.21},
}


def _e6(
    no_asto_hbw: float,
    cqe_no_asto: list[float],
    asto_hbw: float = 125.0,
    table2: dict[str, dict[str, float]] = TABLE2,
):
    """The E6 claims on made-up results: with ARQ + ASTO, ACM at 130 kB/s
    and fixed HBW at `asto_hbw` (SACK 5 kB/s more on both); the Table II
    cells `table2`."""
    modes = {"acm": 130.0, "fixed-hbw": asto_hbw, "fixed-lbw": 56.0}
    mx = {
        "arq_asto": {
            m: {t: _s(v + (5 if t == "sack" else 0)) for t in e6.TCPS} for m, v in modes.items()
        },
        "arq_no_asto": {
            "acm": {t: _s(95.0) for t in e6.TCPS},
            "fixed-hbw": {t: _s(no_asto_hbw) for t in e6.TCPS},
            "fixed-lbw": {t: _s(56.0) for t in e6.TCPS},
        },
        "no_arq": {
            m: {t: _s(v * 0.7 + (3 if t == "westwood" else 0)) for t in e6.TCPS}
            for m, v in modes.items()
        },
    }
    s = {
        "matrix": mx,
        "cqe_sweep": {
            "cqe_ms": e6.CQES_MS,
            "asto": [_s(105.0)] * len(e6.CQES_MS),
            "no_asto": [_s(x) for x in cqe_no_asto],
        },
        "alr_sweep": {"alr": e6.ALRS, "goodput": [_s(106.0)] * len(e6.ALRS)},
        "table2": {
            p: {k: {**_s(v), "published": v, "ratio": 1.0} for k, v in cells.items()}
            for p, cells in table2.items()
        },
    }
    ctx = _ctx()
    e6._claims(ctx, s, targets()["E6"])
    return {c["claim"]: c for c in ctx.claims}


def test_e6_acm_about_fixed_hbw_is_tested_with_asto_only():
    claim = targets()["E6"]["claims"][1]
    cqe = [97, 95, 95, 90, 45]
    # the no-ASTO row far apart does not fail the claim (outside its condition)
    c = _e6(no_asto_hbw=30.0, cqe_no_asto=cqe)[claim]
    assert c["holds"] and "without ASTO" in c["evidence"], c
    # "about the same" is within 10 % of the larger, on both sides, with ASTO:
    # NewReno 130 vs 118 is -9.2 %, vs 116 -10.8 %; 143 is +9.1 %, 145 +10.3 %
    for hbw, holds in [(118.0, True), (116.0, False), (143.0, True), (145.0, False)]:
        c = _e6(no_asto_hbw=30.0, cqe_no_asto=cqe, asto_hbw=hbw)[claim]
        assert c["holds"] is holds, (hbw, c)
    # and the no-ASTO row within 10 % does not rescue an ASTO row outside it
    c = _e6(no_asto_hbw=95.0, cqe_no_asto=cqe, asto_hbw=100.0)[claim]
    assert not c["holds"], c


def test_e6_asto_especially_for_long_cqe():
    claim = targets()["E6"]["claims"][2]
    # gains 8, 10, 10, 15, 60: long CQEs gain more than short ones
    assert _e6(30.0, [97, 95, 95, 90, 45])[claim]["holds"]
    # a gain only at 400 ms, the 200 ms gain no larger than the short ones': not "especially"
    c = _e6(30.0, [90, 90, 90, 95, 45])[claim]
    assert not c["holds"], c


def test_e6_table2_claim_reads_either_path_but_needs_a_clear_lead():
    claim = targets()["E6"]["table2"]["claims"][0]

    def holds(rct: tuple[float, float], rcs: tuple[float, float]) -> bool:
        paths = {"rct": rct, "rcs": rcs}
        cells = {p: {"sack": s, "newreno_imp": nr} for p, (s, nr) in paths.items()}
        return _e6(30.0, [97, 95, 95, 90, 45], table2=cells)[claim]["holds"]

    # RCT ahead for both variants (the published cells), or RCS ahead: either reads
    assert holds((126.3, 115.4), (101.55, 81.21))
    assert holds((101.55, 81.21), (126.3, 115.4))
    # a lead of at least 10 % for both: 11 % holds, 9 % does not (SACK's lead here)
    assert holds((112.7, 100.0), (101.5, 81.2))
    assert not holds((110.6, 100.0), (101.5, 81.2))
    # the paths ahead for different variants: no path is better for both
    assert not holds((126.3, 81.21), (101.55, 95.0))
    # SACK must beat NewReno-Impatient on both paths
    assert not holds((126.3, 130.0), (101.55, 81.21))
