"""E7's beam scenarios and the beam's channel plot, cheaply: the generated
scenarios load in every capacity mode, a short run keeps each terminal
within its CRA, and ``channel plot`` of a terminal under rain samples its
Es/N0 and the MODCOD its ACM picks (the full experiment is
``skyhop experiment E7``; docs/VALIDATION.md)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from skyhop.api import load_scenario, run
from skyhop.experiments import e7

SHIPPED = Path(__file__).resolve().parents[1] / "scenarios" / "geo_broadband.toml"


@pytest.mark.parametrize("mode", e7.MODES)
def test_every_mode_loads_for_one_to_eight_terminals(mode):
    for n in e7.TERMINALS:
        scn = load_scenario(tomllib.loads(e7.scenario_text(n, "cubic", mode, ["t", "gw"])))
        beam = scn.resolved["beams"]["beam"]
        assert beam["links"] == [f"t{k}" for k in range(1, n + 1)]


def test_under_cra_each_terminal_stays_within_its_rate():
    doc = tomllib.loads(e7.scenario_text(2, "newreno", "cra"))
    doc["run"]["duration"] = "5 s"
    r = run(doc, seed=1).runs[0]
    cra = 0.9 * e7.CAPACITY_BPS / 2
    for f in ("up1", "up2"):
        got = r["flows"][f]["bytes_delivered"] * 8 / 5.0
        assert 0 < got <= cra, (f, got, cra)
    b = r["media"]["beam"]
    assert b["return_slots_granted"] <= b["return_slots_offered"]


def test_jain_index():
    assert e7.jain([1.0, 1.0, 1.0]) == pytest.approx(1.0)
    assert e7.jain([1.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)


def test_channel_plot_of_a_beam_terminal_shows_es_n0_and_the_modcod(cli, tmp_path):
    from skyhop.channel_plot import sample_channel

    s = sample_channel(str(SHIPPED), "t1", duration_s=300.0, step_s=1.0)
    assert s["medium"] == "beam1"
    assert len(s["modcod"]) == len(s["esn0_db"]) == len(s["t_s"])
    for e, th, lost in zip(s["esn0_db"], s["modcod_threshold_db"], s["frame_lost"], strict=True):
        assert (e < th) == bool(lost)
    out = tmp_path / "acm.png"
    proc = cli("channel", "plot", SHIPPED, "--link", "t1", "--duration", "300 s", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_shipped_fade_traces_are_the_experiments():
    for case, path in e7.RAIN_TRACES.items():
        assert path.read_text() == e7.fade_csv(case == "fade"), path
    rows = dict(e7.fade_rows(True))
    # 0 dB to 40 s, up 1/3 dB/s to 20 dB at 100 s, held to 120 s, down to 0 at 180 s.
    assert (rows[40.0], rows[70.0], rows[100.0], rows[119.0], rows[150.0], rows[180.0]) == (
        0.0,
        10.0,
        20.0,
        20.0,
        10.0,
        0.0,
    )


def test_the_allowed_rate_holds_each_modcod_from_its_switch():
    # QPSK 1/4 (0.490 bit/symbol) for 1 s, then 4 bit/symbol to 10 s, 2 to the end
    # (20 s), at 2 Mbaud: (0.49 x 1 + 4 x 9 + 2 x 10) x 2e6 / 20.
    rows = [
        {"member": "t1", "t_s": 0.0, "efficiency": 0.49},
        {"member": "t2", "t_s": 0.5, "efficiency": 9.0},
        {"member": "t1", "t_s": 10.0, "efficiency": 2.0},
        {"member": "t1", "t_s": 1.0, "efficiency": 4.0},
    ]
    assert e7.allowed_bps(rows, "t1", 20.0) == pytest.approx((0.49 + 36 + 20) * 2e6 / 20)


def test_under_the_fade_goodput_follows_the_modcods_rate():
    # The experiment's rain case (200 s simulated, well under a second).
    out = {}
    for case, path in e7.RAIN_TRACES.items():
        r = run(tomllib.loads(e7.rain_scenario_text(str(path))), seed=1).runs[0]
        out[case] = e7.rain_summary(r)
    clear, fade = out["clear"], out["fade"]
    # Clear sky: one switch, from the most robust MODCOD to the clear-sky one.
    assert clear["modcod_switches"] == 1
    # The fade walks the ladder down and back, with no frame lost (1 dB margin).
    effs = [m["efficiency"] for m in fade["modcods"]]
    assert fade["modcod_switches"] > 10 and min(effs[1:]) < 2.0 < 4.0 < effs[-1]
    assert fade["frames_lost"] == 0
    # TCP's goodput is at most the data-field rate x TCP payload per GSE byte,
    # and more than 90 % of that ceiling.
    for s in (clear, fade):
        assert 0.9 * e7.GSE_CEILING < s["goodput_bps"] / s["allowed_bps"] <= e7.GSE_CEILING, s
    assert fade["allowed_bps"] < 0.85 * clear["allowed_bps"]
    assert fade["goodput_bps"] < 0.85 * clear["goodput_bps"]


def test_the_figures_are_drawn(tmp_path, monkeypatch):
    import skyhop.figures as figs
    from skyhop.experiments.base import Analysis, Context

    # PNG only (the PDF and SVG writers are the figures module's own, tested there).
    save = figs.save_figure
    monkeypatch.setattr(figs, "save_figure", lambda fig, stem: save(fig, stem, ("png",)))

    pt = {"mean": 0.8, "ci95": None, "n": 1}
    points = {}
    for name, args in e7.E7().points():
        n = args["n"]
        points[name] = {
            "utilisation": pt,
            "per_terminal_kbps": [{"mean": 400.0, "ci95": None, "n": 1}] * n,
        }
        if args.get("short"):
            points[name]["short_completion_s"] = {"mean": 3.0, "ci95": None, "n": 1}
    mods = [{"t_s": 0.0, "efficiency": 0.49}, {"t_s": 0.25, "efficiency": 4.1}]
    rain = {c: {"goodput_bps": 7e6, "allowed_bps": 8e6, "modcods": mods} for c in ("clear", "fade")}
    written = e7.E7().figures(
        Context(out=tmp_path, runs=1), Analysis({"points": points, "rain": rain})
    )
    stems = {p.stem for p in written}
    assert stems == {"e7_categories", "e7_terminals", "e7_short", "e7_proxies", "e7_rain"}
    assert all(p.stat().st_size > 0 for p in written)
