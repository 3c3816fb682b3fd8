"""Channel models, the cbr probe, `skyhop channel plot` and E4 (reduced),
through the real command line and API.

Bad channel input must give exit status 2 and one line naming the file and
the key (and, for a CSV, the CSV file and its line).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import assert_one_line_error

PROBE = """
[run]
duration = "{duration}"
[nodes.A]
{a_pos}
[nodes.B]
{b_pos}
[links.ab]
between = ["A", "B"]
rate = "2 Mbps"
{delay}
channel = {channel}
[flows.p]
from = "A"
to = "B"
app = "cbr"
cbr = {{ rate = "1 Mbps" }}
"""


def scenario(
    tmp_path: Path,
    channel: str,
    *,
    duration: str = "20 s",
    a_pos: str = "",
    b_pos: str = "",
    name: str = "s.toml",
) -> Path:
    delay = "" if a_pos else 'delay = "10 ms"'
    p = tmp_path / name
    p.write_text(
        PROBE.format(duration=duration, a_pos=a_pos, b_pos=b_pos, delay=delay, channel=channel)
    )
    return p


GE = '{ model = "gilbert-elliott", t_good = "6 s", t_bad = "2 s", per_good = 0, per_bad = 1 }'


def trace(file: str) -> str:
    return f'{{ model = "trace", file = "{file}" }}'


BAD_CHANNELS = [
    # (id, channel table, CSV text or None, key, extra texts the line must contain)
    (
        "ge-zero-sojourn",
        '{ model = "gilbert-elliott", t_good = "0 s", t_bad = "2 s" }',
        None,
        "links.ab.channel.t_good",
        ["positive"],
    ),
    (
        "ge-negative-sojourn",
        '{ model = "gilbert-elliott", t_good = "6 s", t_bad = "-2 s" }',
        None,
        "links.ab.channel",
        ["negative"],
    ),
    (
        "ge-probability-above-one",
        '{ model = "gilbert-elliott", t_good = "6 s", t_bad = "2 s", per_bad = 1.5 }',
        None,
        "links.ab.channel.per_bad",
        ["[0, 1]"],
    ),
    (
        "ge-probability-negative",
        '{ model = "gilbert-elliott", t_good = "6 s", t_bad = "2 s", ber_good = -1e-6 }',
        None,
        "links.ab.channel.ber_good",
        ["[0, 1]"],
    ),
    ("trace-missing-file", trace("nowhere.csv"), None, "links.ab.channel.file", ["nowhere.csv"]),
    ("trace-empty", trace("f.csv"), "", "links.ab.channel.file", ["f.csv", "empty"]),
    (
        "trace-malformed",
        trace("f.csv"),
        "t_s,per\n0,0\n1,lots\n",
        "links.ab.channel.file",
        ["f.csv line 3", "not a number"],
    ),
    (
        "trace-bad-header",
        trace("f.csv"),
        "time,loss\n0,0\n",
        "links.ab.channel.file",
        ["f.csv line 1", "header"],
    ),
    (
        "trace-non-monotonic",
        trace("f.csv"),
        "t_s,per\n0,0\n5,1\n3,0\n",
        "links.ab.channel.file",
        ["f.csv line 4", "does not increase"],
    ),
    (
        "trace-probability-outside",
        trace("f.csv"),
        "t_s,per\n0,0\n1,2\n",
        "links.ab.channel.file",
        ["f.csv line 3", "[0, 1]"],
    ),
    (
        "mask-non-monotonic",
        '{ model = "lms-urban", elevation_deg = 30.0, azimuth_deg = 180.0, '
        'masking_file = "m.csv" }',
        "distance_m,azimuth_deg,masking_deg\n0,0,10\n5,0,20\n2,0,30\n",
        "links.ab.channel.masking_file",
        ["m.csv line 4", "decreases"],
    ),
    (
        "lms-without-geometry",
        '{ model = "lms-urban" }',
        None,
        "links.ab.channel.elevation_deg",
        ["elevation"],
    ),
]


@pytest.mark.parametrize(
    ("channel", "csv", "key", "texts"),
    [pytest.param(c, t, k, x, id=i) for i, c, t, k, x in BAD_CHANNELS],
)
def test_bad_channel_input_is_one_line_naming_file_and_key(cli, tmp_path, channel, csv, key, texts):
    if csv is not None:
        name = "m.csv" if "masking_file" in channel else "f.csv"
        (tmp_path / name).write_text(csv)
    scn = scenario(tmp_path, channel)
    line = assert_one_line_error(cli("run", scn), str(scn), key, *texts)
    assert f"{key}:" in line or f"{key}." in line, line


def test_a_satellite_below_the_horizon_is_named_at_the_nodes_key(cli, tmp_path):
    # Sydney cannot see a GEO over the Americas.
    p = tmp_path / "h.toml"
    p.write_text(
        PROBE.format(
            duration="5 s",
            a_pos="lat = -33.9\nlon = 151.2",
            b_pos="geo_longitude = -96.0",
            delay="",
            channel='{ model = "lms-urban" }',
        )
    )
    assert_one_line_error(cli("run", p), str(p), "nodes.A:", "horizon")


def test_a_relative_trace_resolves_against_the_scenario_file(cli, tmp_path):
    d = tmp_path / "scn"
    d.mkdir()
    (d / "fade.csv").write_text("t_s,per\n0,0\n10,1\n")
    scn = scenario(d, trace("fade.csv"))
    proc = cli("run", scn, "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    f = doc["runs"][0]["flows"]["p"]
    # Lossless for 10 s, everything lost after: 834 of 1667 datagrams lost.
    assert f["packets_sent"] == 1667
    assert f["packets_lost"] == 1667 - 834
    # The resolved scenario carries the absolute path.
    assert doc["scenario"]["links"]["ab"]["channel"]["file"] == str(d / "fade.csv")


def test_probe_results_appear_only_for_the_probe(cli, tmp_path):
    scn = scenario(tmp_path, GE, duration="60 s")
    doc = json.loads(cli("run", scn, "--json", "--runs", "2").stdout)
    for r in doc["runs"]:
        f = r["flows"]["p"]
        # One every 12 ms from 0 s to 60 s inclusive; those sent in the last
        # 16 ms (the one-way delay) are still in flight at the end unless the
        # channel already lost them.
        assert f["packets_sent"] == 5001
        judged = f["packets_received"] + f["packets_lost"]
        assert 4999 <= judged <= 5001
        assert f["loss_rate"] == pytest.approx(f["packets_lost"] / judged)
        assert f["delay_mean_s"] == pytest.approx(0.016)
    tcp = json.loads(cli("run", Path(__file__).parent / "data" / "tiny.toml", "--json").stdout)
    for f in tcp["runs"][0]["flows"].values():
        assert "packets_sent" not in f and "loss_rate" not in f


@pytest.mark.parametrize("model", ["ge", "lms"])
def test_channel_plot_draws_a_png(cli, tmp_path, model):
    if model == "ge":
        scn = scenario(tmp_path, GE)
    else:
        scn = scenario(
            tmp_path,
            '{ model = "lms-urban" }',
            a_pos="lat = 40.71\nlon = -74.01",
            b_pos="geo_longitude = -96.0",
        )
    out = tmp_path / "plot.png"
    proc = cli("channel", "plot", scn, "--link", "ab", "--duration", "60 s", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_channel_plot_of_an_unknown_link_is_one_line(cli, tmp_path):
    scn = scenario(tmp_path, GE)
    proc = cli("channel", "plot", scn, "--link", "zz", "--out", tmp_path / "p.png")
    assert_one_line_error(proc, "links.zz", "no such link")


def test_sampled_channel_matches_the_gilbert_elliott_parameters(tmp_path):
    from skyhop.channel_plot import sample_channel

    scn = scenario(tmp_path, GE, duration="4000 s")
    bad = []
    for seed in (1, 2, 3):
        s = sample_channel(str(scn), "ab", seed=seed, step_s=0.1)
        assert s["model"] == "gilbert-elliott"
        bad.append(sum(s["state"]) / len(s["state"]))
        assert set(s["loss_probability"]) <= {0.0, 1.0}
    assert sum(bad) / 3 == pytest.approx(0.25, rel=0.1)


def test_e4_at_reduced_size_writes_its_summary_claims_and_figures(tmp_path):
    from skyhop.experiments import run_experiment

    out = tmp_path / "E4"
    # under ns2 alone: the studies profile runs the same grid into OUT/studies
    doc = run_experiment("E4", out, runs=2, seed=1, profile="ns2")
    body = doc["E4"]
    for rate in ("1Mbps", "20Mbps"):
        for ber in ("1e-06", "1e-07", "1e-08"):
            for tcp in ("newreno", "westwood"):
                s = body["summary"][rate][ber][tcp]
                assert s["end_to_end_bps"] > 0 and s["split_best_bps"] > 0
                ref = body["reference_e2"][rate][ber][tcp]
                assert ref["end_to_end_bps"]["n"] == 2
    assert [c["experiment"] for c in doc["claims"]] == ["E4", "E4"]
    saved = json.loads((out / "summary.json").read_text())
    assert saved["claims"] == doc["claims"]
    for fig in ("e4_cache_sweep.png", "e4_summary.png"):
        assert (out / fig).stat().st_size > 0
