"""E5 (aeronautical GEO network, Shang 2007) at reduced size, the gateway
buffer helper, the split-path maximum, and bad AeroTCP inputs through the CLI."""

from __future__ import annotations

import math

import pytest

from conftest import assert_one_line_error
from skyhop.experiments import e5, run_experiment
from skyhop.experiments.common import scenario_path

E5 = scenario_path("e5_aero.toml")


def test_gateway_buffers_follow_the_allocation_table():
    # Many connections, lossy link, PR = 1 Mb/s, 3 x PRDP on the satellite side.
    b = e5.gateway_buffers(1e6, 0.48, 0.14, 0.001, factor=3)
    assert b == {
        "aircraft_send": 125,  # PR * AirRTT
        "aircraft_receive": 180_000,  # 3 PR SatRTT
        "ground_send": 180_000,
        "ground_receive": 35_000,  # 2 PR GndRTT
    }
    clean = e5.gateway_buffers(5e6, 0.48, 0.1, 0.001, errors=False)
    assert clean["aircraft_receive"] == clean["ground_send"] == 300_000
    assert clean["ground_receive"] == 62_500
    assert e5.gateway_buffers(1e6, 0.48, 0.14, 0.0, min_bytes=2920)["aircraft_send"] == 2920
    with pytest.raises(ValueError):
        e5.gateway_buffers(0, 0.48, 0.14, 0.0)
    with pytest.raises(ValueError):
        e5.gateway_buffers(1e6, 0.48, 0.14, 0.0, factor=5)


def test_split_path_maximum_is_the_smallest_limit():
    assert e5.split_path_max_bps(5e6, 30_000, 1e9, 0.48, 0.1) == pytest.approx(500_000)
    assert e5.split_path_max_bps(5e6, 1e9, 30_000, 0.48, 0.1) == pytest.approx(2.4e6)
    assert e5.split_path_max_bps(5e6, 1e9, 1e9, 0.48, 0.1) == 5e6


@pytest.mark.parametrize(
    ("setting", "key"),
    [
        ('tcp.aero_allocation.sat_bw="0 Mbps"', "tcp.aero_allocation.sat_bw"),
        ("tcp.aero_allocation.n=0", "tcp.aero_allocation.n"),
        ("templates.conn.count=-1", "templates.conn.count"),
        ('nodes.GGW.proxy.recv_buffer="500 B"', "nodes.GGW.proxy.recv_buffer"),
        ('nodes.AGW.proxy.send_buffer="100 B"', "nodes.AGW.proxy.send_buffer"),
    ],
)
def test_bad_aero_inputs_are_one_line_errors_exit_2(cli, setting, key):
    proc = cli("run", E5, "--set", setting)
    assert_one_line_error(proc, "e5_aero.toml", key)


WEB = ["--set", "flows.f0.size=unlimited", "--set", "flows.f0.app=web"]


@pytest.mark.parametrize(
    ("setting", "key"),
    [
        ("flows.f0.web.reply_alpha=0", "flows.f0.web.reply_alpha"),
        ("flows.f0.web.think_alpha=-1.5", "flows.f0.web.think_alpha"),
        ("flows.f0.web.pages=0", "flows.f0.web.pages"),
        ('flows.f0.web.http="2"', "flows.f0.web.http"),
        ("flows.f0.web.inline_mean=-1", "flows.f0.web.inline_mean"),
    ],
)
def test_bad_web_inputs_are_one_line_errors_exit_2(cli, setting, key):
    proc = cli("run", E5, *WEB, "--set", setting)
    assert_one_line_error(proc, "e5_aero.toml", key)


def test_web_sessions_report_object_and_page_times(cli):
    import json

    proc = cli(
        "run", E5, *WEB, "--set", "flows.f0.web.pages=3", "--set", "links.sat.ber=1e-7", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    f0 = doc["runs"][0]["flows"]["f0"]
    assert f0["pages_completed"] == 3
    assert len(f0["pages"]) == 3
    assert all(o["response_time_s"] > 0.5 for o in f0["objects"])  # a GEO round trip at least
    assert f0["bytes_delivered"] == sum(o["reply_bytes"] for o in f0["objects"])
    assert (
        doc["summary"]["f0"]["page_response_p95_s"]["mean"]
        >= (doc["summary"]["f0"]["page_response_p50_s"]["mean"])
    )
    # Flows without the web application carry none of its keys.
    assert "objects" not in doc["runs"][0]["flows"]["f1"]
    table = cli("run", E5, *WEB, "--set", "flows.f0.web.pages=2")
    assert table.returncode == 0, table.stderr
    assert "object response (s)" in table.stdout
    assert "Jain's fairness index" in table.stdout


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    out = tmp_path_factory.mktemp("e5")
    ctx_runs = 2
    return run_experiment("E5", out, runs=ctx_runs, seed=1), out


def test_e5_reduced_writes_summary_claims_and_figures(small):
    doc, out = small
    assert set(doc["E5"]) >= {"a_end_to_end", "b_ten_clients", "c_web_objects", "buffers"}
    assert len(doc["claims"]) == 4
    assert all(c["experiment"] == "E5" for c in doc["claims"])
    for f in (
        "e5a_10MB",
        "e5a_1_6MB",
        "e5a_cwnd",
        "e5b_aggregate",
        "e5b_per_connection",
        "e5c_objects",
    ):
        for suffix in (".png", ".pdf", ".svg"):
            assert (out / f"{f}{suffix}").stat().st_size > 1000, (f, suffix)


def test_e5_aerotcp_beats_split_sack_under_errors_and_is_fair(small):
    doc, _ = small
    b = doc["E5"]["b_ten_clients"]
    for ber in ("1e-06", "1e-05"):
        aero = b["aerotcp"][ber]["aggregate_throughput_bps"]["mean"]
        split = b["split-sack"][ber]["aggregate_throughput_bps"]["mean"]
        assert aero > 1.5 * split, (ber, aero, split)
    assert b["aerotcp"]["1e-09"]["jain_fairness"]["mean"] > 0.99
    c = doc["E5"]["c_web_objects"]
    assert c["aerotcp"]["32 KB"]["mean"] < c["split-sack"]["32 KB"]["mean"]
    # end to end: every transfer at the lowest BER finished, none at 1e-4 for 10 MB
    a = doc["E5"]["a_end_to_end"]["10 MB"]
    assert all(a[t]["1e-09"]["finished"] == a[t]["1e-09"]["runs"] for t in a)
    assert all(
        a[t]["0.0001"]["response_time_s"]["mean"] is None
        or math.isnan(a[t]["0.0001"]["response_time_s"]["mean"])
        for t in a
    )
