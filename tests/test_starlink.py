"""The `starlink` access preset through the command line: describe shows
each terminal's path to its PoP and its delay components, a run carries
the epochs as network events, `skyhop plot --rtt` draws them, and bad
input is one line naming its key (docs/leo.md, "Starlink as deployed")."""

from __future__ import annotations

import json

import pytest

from conftest import REPO, assert_one_line_error
from skyhop.rtt_plot import epoch_boundaries, rtt_series

ROME = REPO / "scenarios" / "starlink_rome.toml"
SHORT = ["--set", 'run.duration="20 s"']


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    from conftest import skyhop_cli

    # Past the first boundary (12 s), the srtt alone, thinned to 5 ms: a
    # second of simulation and a small document.
    args = ["--set", 'run.duration="13 s"', "--trace-every", "5ms", "--trace-series", "srtt"]
    proc = skyhop_cli("run", ROME, *args, "--json")
    assert proc.returncode == 0, proc.stderr
    path = tmp_path_factory.mktemp("starlink") / "run.json"
    path.write_text(proc.stdout)
    return path


def test_describe_shows_the_path_to_the_pop_and_its_parts(cli):
    proc = cli("describe", ROME)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "starlink access: terminal Rome, PoP pop-FRA, epochs of 15 s from 12 s" in out
    assert "routes: the access scheduler's paths for its terminals, shortest delay" in out
    line = next(ln for ln in out.splitlines() if "path at the start:" in ln)
    assert line.strip().startswith("path at the start: Rome-dish - starlink-550-"), line
    assert " - pop-FRA (0 ISL hops)" in line and "idle RTT to the PoP about" in line
    d = json.loads(cli("describe", ROME, "--json").stdout)
    (a,) = d["access"]
    parts = a["up_s"] + a["isl_s"] + a["feeder_s"] + a["fibre_s"]
    assert a["one_way_s"] == pytest.approx(parts)
    assert a["idle_rtt_s"] == pytest.approx(2 * parts + a["grant_s"] + 3 * a["frame_s"])
    assert (a["grant_s"], a["pause_s"], a["frame_s"]) == pytest.approx((0.017, 0.14, 1 / 750))
    assert (a["uplink_bps"], a["downlink_bps"]) == (20_000_000, 200_000_000)
    # The geometric copy of the scenario has no access block.
    geometric = REPO / "scenarios" / "leo_rome_geometric.toml"
    geo = json.loads(cli("describe", geometric, "--json").stdout)
    assert "access" not in geo


def test_a_run_carries_one_epoch_event_per_boundary_and_the_plot_marks_them(traced, cli, tmp_path):
    run = json.loads(traced.read_text())["runs"][0]
    epochs = [e for e in run["network_events"] if e["kind"] == "epoch"]
    assert [e["t_s"] for e in epochs] == [0.0, 12.0]
    assert all(e["node"] == "Rome" and e["new"].startswith("Rome-dish,") for e in epochs)
    assert all(e["new"].endswith(",pop-FRA") and e["delay_s"] > 0 for e in epochs)
    assert epoch_boundaries(run) == [12.0]
    s = rtt_series(run, "download")
    assert len(s["t_s"]) > 1000 and min(s["value_s"]) > 0.025
    out = tmp_path / "rtt.png"
    proc = cli("plot", traced, "--rtt", "download", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("sets", "key"),
    [
        (['access.pop="XYZ"'], "access.pop"),
        (['access.link.grant="soon"'], "access.link.grant"),
        (['access.terminals=["server"]'], "access.terminals[0]"),
        (['access.preset="fast"'], "access.preset"),
        (["access.isl_hops=-1"], "access.isl_hops"),
        (["access.feeder.shift=2"], "access.feeder.shift"),
        (['routing.update="100 ms"'], "routing.update"),
        (['routing.policy="shortest-delay"'], "routing.policy"),
    ],
)
def test_bad_access_input_is_one_line_naming_the_key(cli, sets, key):
    args = [x for s in sets for x in ("--set", s)]
    assert_one_line_error(cli("run", ROME, *SHORT, *args), str(ROME), key)


def test_plot_trace_marks_the_epoch_boundaries(traced, cli, tmp_path, monkeypatch):
    import skyhop.rtt_plot as rp
    from skyhop.plot import trace_figure

    # A run document: its epoch events (12 s); a grid given instead.
    assert rp.trace_epochs(traced, None, None, 13.0) == [12.0]
    assert rp.trace_epochs(traced, 999, None, 13.0) == []
    assert rp.epoch_grid("15 s@12 s", 60.0) == [12.0, 27.0, 42.0, 57.0]
    assert rp.epoch_grid("10 s", 35.0) == [10.0, 20.0, 30.0]
    assert rp.trace_epochs(tmp_path / "t.parquet", None, "5 s@1 s", 12.0) == [1.0, 6.0, 11.0]
    # Each panel gets them.
    drawn = []
    real = rp.mark_epochs
    monkeypatch.setattr(rp, "mark_epochs", lambda ax, m, **k: (drawn.append(m), real(ax, m, **k)))
    trace_figure(traced, ["srtt"], tmp_path / "t.png")
    assert drawn == [[12.0]]
    drawn.clear()
    trace_figure(traced, ["srtt"], tmp_path / "t.png", epochs="5 s")
    assert drawn == [[5.0, 10.0]]
    # From the command line, and bad values are one line.
    out = tmp_path / "cli.png"
    proc = cli("plot", traced, "--trace", "srtt", "--epochs", "15 s@12 s", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert_one_line_error(
        cli("plot", traced, "--trace", "srtt", "--epochs", "soon", "--out", out), "--epochs"
    )
    proc = cli("plot", traced, "--rtt", "download", "--epochs", "15 s", "--out", out)
    assert proc.returncode == 2 and "--epochs goes with --trace" in proc.stderr
