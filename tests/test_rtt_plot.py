"""`skyhop plot RUN.json --rtt FLOW`: a flow's RTT over time with the
access network's epoch boundaries, from a run document (hand-made here:
the series and boundaries are read from it exactly)."""

from __future__ import annotations

import json

import pytest

from conftest import assert_one_line_error
from skyhop.errors import ScenarioError
from skyhop.rtt_plot import epoch_boundaries, plot_rtt, rtt_series


def _run() -> dict:
    return {
        "seed": 3,
        "flows": {"up": {}, "down": {}, "dl": {}},
        "traces": {
            # probes: sent every 10 ms (up) and every 2 ms (down)
            "up.delay": {"t_s": [0.0, 0.01, 0.02], "value_s": None, "value": [0.02, 0.03, 0.025]},
            "down.delay": {
                "t_s": [0.0, 0.018, 0.02, 0.04, 0.046],
                "value": [0.005, 0.006, 0.007, 0.008, 0.009],
            },
            "dl.0.srtt": {"t_s": [0.0, 0.5, 1.0], "value": [None, 0.04, 0.05]},
        },
        "network_events": [
            {"t_s": 0.0, "kind": "epoch", "node": "Rome", "route": "", "old": "", "new": "a"},
            {"t_s": 12.0, "kind": "epoch", "node": "Rome", "route": "", "old": "a", "new": "b"},
            {"t_s": 12.0, "kind": "epoch", "node": "Oulu", "route": "", "old": "c", "new": "d"},
            {"t_s": 5.0, "kind": "route", "node": "x", "route": "x>y", "old": "", "new": ""},
            {"t_s": 27.0, "kind": "epoch", "node": "Rome", "route": "", "old": "b", "new": "a"},
        ],
    }


def test_boundaries_are_the_epoch_events_after_t0_once_each():
    assert epoch_boundaries(_run()) == [12.0, 27.0]
    assert epoch_boundaries({"network_events": []}) == []


def test_a_tcp_flow_is_its_srtt_and_a_probe_its_delay_or_composed_round_trip():
    r = _run()
    s = rtt_series(r, "dl")
    assert (s["t_s"], s["value_s"]) == ([0.5, 1.0], [0.04, 0.05])
    assert "smoothed RTT" in s["what"]
    s = rtt_series(r, "up")
    assert s["value_s"] == [0.02, 0.03, 0.025]
    # Round trip: each up datagram plus the first down datagram sent at or
    # after its arrival: 0.02 -> down at 0.02 (7 ms); 0.01 + 0.03 = 0.04 ->
    # down at 0.04 (8 ms); 0.02 + 0.025 = 0.045 -> 0.046 (9 ms).
    s = rtt_series(r, "up", back="down")
    assert s["t_s"] == [0.0, 0.01, 0.02]
    assert s["value_s"] == pytest.approx([0.027, 0.038, 0.034])


def test_wrong_flows_are_one_line_errors():
    r = _run()
    with pytest.raises(ScenarioError, match="no flow 'nope'"):
        rtt_series(r, "nope")
    with pytest.raises(ScenarioError, match="--back is for probes"):
        rtt_series(r, "dl", back="down")
    r["flows"]["quiet"] = {}
    with pytest.raises(ScenarioError, match="run it with --trace"):
        rtt_series(r, "quiet")


def test_the_figure_is_written(tmp_path):
    doc = {"scenario": {}, "runs": [_run()]}
    files = plot_rtt(doc, "up", tmp_path / "rtt.png", back="down")
    assert [f.name for f in files] == ["rtt.png"]
    assert files[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_cli_draws_a_run_document_and_refuses_what_does_not_fit(tmp_path, cli):
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"scenario": {}, "runs": [_run()]}))
    out = tmp_path / "fig.svg"
    res = cli("plot", str(path), "--rtt", "dl", "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert out.read_text().lstrip().startswith("<?xml")
    res = cli("plot", str(path), "--rtt", "up", "--x", "k", "--out", str(out))
    assert_one_line_error(res, "--x does not go with --rtt")
    res = cli("plot", str(path), "--metric", "goodput_bps", "--back", "down", "--out", "x")
    assert_one_line_error(res, "--back goes with --rtt")
