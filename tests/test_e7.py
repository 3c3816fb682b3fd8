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
