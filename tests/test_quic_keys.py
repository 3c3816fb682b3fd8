"""QUIC flows selected by scenario keys (`flows.<id>.transport = "quic"`,
the `quic` tables; docs/quic.md): the issue's acceptance on a two-node GEO
path (the handshake one round trip plus serialisation, goodput under the
flow-control bound, identical JSON and pcap bytes per seed), describe and
the table line, warnings, bad input, sweeps over the transport."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

import skyhop
from conftest import REPO, assert_one_line_error, skyhop_cli

# Two nodes, 250 ms each way, 10 Mb/s: one round trip is 0.5 s.
GEO = """
[run]
duration = "30 s"
[nodes.A]
[nodes.B]
[links.sat]
between = ["A", "B"]
rate = "10 Mbps"
delay = "250 ms"
queue = 500
[flows.f]
from = "A"
to = "B"
size = "2 MB"
transport = "quic"
"""


def _scn(tmp_path: Path, extra: str = "") -> Path:
    p = tmp_path / "geo.toml"
    p.write_text(GEO + extra)
    return p


def _run_json(scn: Path, *args: str) -> dict:
    proc = skyhop_cli("run", scn, "--json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_quic_flow_on_geo_meets_the_closed_forms_and_repeats_byte_for_byte(tmp_path):
    scn = _scn(tmp_path, '[flows.f.quic]\nstream_window = "200 kB"\n')
    a = _run_json(scn, "--pcap", str(tmp_path / "p1"))
    b = _run_json(scn, "--pcap", str(tmp_path / "p2"))
    f = a["runs"][0]["flows"]["f"]
    assert f["bytes_delivered"] == 2_000_000
    # One round trip (2 x 250 ms) plus the serialisation of two full
    # datagrams (at most 1500 B each at 10 Mb/s), within 2 %.
    assert 0.5 <= f["handshake_s"] <= 0.5 + 2 * 1500 * 8 / 10e6
    assert abs(f["handshake_s"] - 0.5) / 0.5 < 0.02
    # Flow control: at most the stream window per round trip.
    assert f["goodput_bps"] <= 200_000 * 8 / 0.5
    rows = a["runs"][0]["quic"]
    assert {r["end"] for r in rows} == {"client", "server"}
    assert {r["controller"] for r in rows} == {"cubic"}
    # Same seed: the same document, the same packets.
    a.pop("scenario"), b.pop("scenario")
    for d in (a, b):
        for r in d["runs"]:
            r.pop("engine")
            r.pop("pcap_files", None)
    assert a == b
    files = sorted(p.name for p in (tmp_path / "p1").iterdir())
    assert files
    for name in files:
        assert (tmp_path / "p1" / name).read_bytes() == (tmp_path / "p2" / name).read_bytes()


def test_describe_and_the_table_line_show_quinns_settings_and_the_window_warning(tmp_path):
    # quinn's default 1.25 MB stream window on a 100 Mb/s GEO path (BDP 6.25 MB).
    scn = _scn(tmp_path, '[flows.f.quic]\ncontroller = "newreno"\n')
    proc = skyhop_cli("run", scn, "--set", 'links.sat.rate="100 Mbps"')
    assert proc.returncode == 0, proc.stderr
    assert "f: QUIC (quinn-proto 0.11.19) newreno, stream window 1.25 MB" in proc.stdout
    assert (
        "flows.f: QUIC stream window 1250000 B is below the path's bandwidth-delay product"
        in proc.stderr
    )
    proc = skyhop_cli("describe", scn, "--json")
    assert proc.returncode == 0, proc.stderr
    q = json.loads(proc.stdout)["flows"][0]["quic"]
    assert q["controller"] == "newreno"
    assert q["stream_window_bytes"] == 1_250_000
    assert q["connection_window_bytes"] is None
    assert q["passed_through"] == []


@pytest.mark.parametrize(
    ("setting", "key", "value"),
    [
        ('flows.f.quic.stream_window="0 B"', "flows.f.quic.stream_window", "0 B"),
        ('quic.send_window="2 TB"', "quic.send_window", "2 TB"),
        ('flows.f.quic.controller="vegas"', "flows.f.quic.controller", "vegas"),
        ('flows.f.quic.max_udp_payload="1000 B"', "flows.f.quic.max_udp_payload", "1000 B"),
        ('flows.f.quic.ack_max_delay="20000 ms"', "flows.f.quic.ack_max_delay", "20000 ms"),
        ("quic.ack_eliciting_threshold=100001", "quic.ack_eliciting_threshold", "100001"),
        ('flows.f.transport="udp"', "flows.f.transport", "udp"),
        ('flows.f.tcp="bbr"', "flows.f.tcp", "bbr"),
        ('flows.f.options.mss="1000 B"', "flows.f.options.mss", "1000 B"),
    ],
)
def test_bad_quic_input_is_one_line_naming_key_value_and_file(tmp_path, setting, key, value):
    scn = _scn(tmp_path)
    line = assert_one_line_error(skyhop_cli("run", scn, "--set", setting), key, value)
    assert str(scn) in line or scn.name in line


def test_quic_keys_on_a_tcp_flow_are_refused(tmp_path):
    scn = _scn(tmp_path, '[flows.f.quic]\ncontroller = "bbr"\n')
    assert_one_line_error(
        skyhop_cli("run", scn, "--set", 'flows.f.transport="tcp"'), "flows.f.quic", "transport"
    )


def test_a_sweep_over_the_transport_runs_tcp_and_quic(tmp_path):
    scn = _scn(tmp_path)
    df = skyhop.sweep(scn, {"flows.f.transport": ["tcp", "quic"]}, runs=1, out=tmp_path / "sw")
    assert sorted(df["flows.f.transport"]) == ["quic", "tcp"]
    assert (df["bytes_delivered"] == 2_000_000).all()
    by = df.set_index("flows.f.transport")
    # QUIC's handshake: one round trip (TCP's is off under the default profile).
    assert by.loc["quic", "handshake_s"] == pytest.approx(0.5, rel=0.02)
    assert (tmp_path / "sw" / "quic.parquet").exists()
    q = pd.read_parquet(tmp_path / "sw" / "quic.parquet")
    assert set(q["flows.f.transport"]) == {"quic"}


# A - G - B: a 5 ms ground hop to the gateway G, then GEO; a QUIC flow
# terminated at G by a half-free 600 kB proxy.
GATEWAY = """
[run]
duration = "30 s"
[nodes.A]
[nodes.G]
[nodes.G.proxy]
policy = "half-free"
cache = "600 kB"
[nodes.B]
[links.ground]
between = ["A", "G"]
rate = "100 Mbps"
delay = "5 ms"
queue = 500
[links.sat]
between = ["G", "B"]
rate = "10 Mbps"
delay = "250 ms"
queue = 500
[flows.f]
from = "A"
to = "B"
size = "1 MB"
transport = "quic"
quic_proxies = ["G"]
"""


def test_a_quic_terminating_proxy_is_described_run_and_counted_in_the_memory_estimate(tmp_path):
    scn = tmp_path / "gw.toml"
    scn.write_text(GATEWAY)
    proc = skyhop_cli("describe", scn, "--json")
    assert proc.returncode == 0, proc.stderr
    q = json.loads(proc.stdout)["flows"][0]["quic"]
    # half-free C = 600 kB: receive C/2, hold and send C - C/2.
    assert q["terminated_at"] == [
        {
            "node": "G",
            "policy": "half-free",
            "cache_bytes": 600_000,
            "receive_window_bytes": 300_000,
            "hold_bytes": 300_000,
            "send_window_bytes": 300_000,
        }
    ]
    assert q["passed_through"] == []
    # The cap is the tightest connection's: the flow's 1.25 MB window over
    # the GEO stretch (above 18 Mb/s), not the proxy's 300 kB over 10 ms.
    geo = q["window_bound_bps"]
    assert 1_250_000 * 8 / 0.52 < geo < 1_250_000 * 8 / 0.5
    proc = skyhop_cli("run", scn)
    assert proc.returncode == 0, proc.stderr
    assert "terminated at G (half-free, 0.6 MB)" in proc.stdout
    r = _run_json(scn)["runs"][0]
    assert r["flows"]["f"]["bytes_delivered"] == 1_000_000
    (row,) = r["proxies"]
    assert (row["node"], row["quic"], row["cache_bytes"]) == ("G", True, 600_000)
    assert 0 < row["max_occupancy_bytes"] <= 600_000
    # The estimate charges the proxy's whole cache: with a 2 GB one it is
    # the largest part, named in the refusal.
    env = {**os.environ, "SKYHOP_MEMORY_LIMIT": "1 GB"}
    proc = skyhop_cli("run", scn, "--set", 'nodes.G.proxy.cache="2 GB"', env=env)
    assert_one_line_error(proc, "nodes.G.proxy", "the largest part, nodes.G.proxy, about 2")


def test_the_shipped_quic_scenarios_run():
    # Endres et al.'s sat path: quinn moves the 10 MiB file intact.
    # The paths of quic.md's comparison of QUIC and TCP, too.
    for name in (
        "quic_sat",
        "quic_sat_loss",
        "quic_geo_gateway",
        "quic_haps_geo",
        "quic_starlink_rome",
    ):
        proc = skyhop_cli("describe", REPO / "scenarios" / f"{name}.toml", "--json")
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["flows"][0]["quic"]["controller"] == "cubic", name
    doc = _run_json(REPO / "scenarios" / "quic_sat.toml", "--runs", "1")
    f = doc["runs"][0]["flows"]["download"]
    assert f["bytes_delivered"] == 10 * 1024 * 1024
    assert f["handshake_s"] >= 0.6
