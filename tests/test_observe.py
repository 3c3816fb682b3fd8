"""Seeing inside a run: describe, per-link statistics, traces as tables,
packet logs and pcap files (read back with tshark)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pandas as pd
import pytest

from conftest import REPO, assert_one_line_error

GEO = REPO / "scenarios" / "geo_single.toml"
E2 = REPO / "scenarios" / "e2_geo_onboard.toml"
# The studies' defaults (IW 1, no delayed ACKs), whose slow start on this
# path keeps packets in the 10-20 s window the packet-log test reads.
LOSSY = [
    "--set",
    "tcp.profile=studies",
    "--set",
    "links.down.per=0.01",
    "--set",
    "links.up.queue=1000",
    "--set",
    'flows.ftp.size="1 MB"',
    "--seed",
    "3",
]


def test_describe_shows_slant_range_delays_and_warns_for_a_small_split_cache(cli):
    proc = cli("describe", E2, "--json")
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    up = next(ln for ln in d["links"] if ln["link"] == "up" and ln["dir"] == "forward")
    assert up["delay_source"] == "slant range"
    # c = 299792458 m/s: the delay is the slant range over c (the Rust test
    # checks it against the geometry helper to the nanosecond).
    assert abs(up["delay_s"] - up["slant_range_m"] / 299_792_458.0) < 1e-9
    text = cli("describe", E2).stdout
    assert f"{up['delay_s'] * 1e3:.6f} ms (slant range" in text
    # A 10 Mb/s split through the satellite with the default 200-packet cache.
    proc = cli(
        "describe",
        GEO,
        "--set",
        "tcp.profile=studies",
        "--set",
        'links.up.rate="10 Mb/s"',
        "--set",
        'links.down.rate="10 Mb/s"',
        "--set",
        'flows.ftp.proxies=["SAT"]',
    )
    assert proc.returncode == 0, proc.stderr
    assert "nodes.SAT.proxy cache 200 packets (292.0 kB) is below 2x" in proc.stdout
    assert "packets would not limit" in proc.stdout


def test_json_carries_network_legs_and_link_statistics(cli):
    proc = cli("run", GEO, *LOSSY, "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["network"]["flows"][0]["legs"][0]["rtt_s"] > 0.5
    run = doc["runs"][0]
    assert run["flows"]["ftp"]["legs"][0]["tcp"] == "newreno"
    links = {(ln["link"], ln["dir"]): ln for ln in run["links"]}
    assert sum(ln["channel_drops"] for ln in links.values()) == run["engine"]["channel_drops"]
    assert links[("down", "forward")]["channel_drops"] > 0


@pytest.mark.skipif(
    shutil.which("tshark") is None, reason="tshark is not installed (CI installs it)"
)
@pytest.mark.parametrize("tcp", ["newreno", "sack"])
def test_pcap_reads_back_in_tshark_with_skyhops_counts(cli, tmp_path, tcp):
    out = tmp_path / "pcap"
    proc = cli("run", GEO, *LOSSY, "--set", f"flows.ftp.tcp={tcp}", "--json", "--pcap", out)
    assert proc.returncode == 0, proc.stderr
    run = json.loads(proc.stdout)["runs"][0]
    links = {(ln["link"], ln["dir"]): ln for ln in run["links"]}

    def tshark(name, *args):
        res = subprocess.run(
            ["tshark", "-n", "-r", str(out / name), *args],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "LC_ALL": "C"},
        )
        return [ln for ln in res.stdout.splitlines() if ln.strip()]

    for (link, d), ln in links.items():
        assert (
            len(tshark(f"{link}.{d}.pcap", "-T", "fields", "-e", "frame.number")) == ln["packets"]
        )
    retx = tshark(
        "up.forward.pcap", "-Y", "tcp.analysis.retransmission", "-T", "fields", "-e", "frame.number"
    )
    assert run["flows"]["ftp"]["retransmissions"] > 0
    assert len(retx) == run["flows"]["ftp"]["retransmissions"]
    if tcp == "sack":
        blocks = tshark(
            "down.reverse.pcap",
            "-Y",
            "tcp.options.sack_le",
            "-T",
            "fields",
            "-e",
            "tcp.options.sack_le",
            "-e",
            "tcp.options.sack_re",
        )
        assert blocks
        for row in blocks:
            le, re_ = row.split("\t")
            assert int(le.split(",")[0]) < int(re_.split(",")[0])


def test_trace_out_and_packet_log_are_long_tables(cli, tmp_path):
    tr, log = tmp_path / "tr.parquet", tmp_path / "log.csv"
    proc = cli(
        "run",
        GEO,
        *LOSSY,
        "--trace-out",
        tr,
        "--packet-log",
        log,
        "--packet-log-links",
        "down:forward",
        "--packet-log-window",
        "10s,20s",
    )
    assert proc.returncode == 0, proc.stderr
    df = pd.read_parquet(tr)
    assert list(df.columns) == ["run", "seed", "flow", "leg", "series", "t_s", "value"]
    assert {"cwnd", "srtt", "link.up.forward.queue"} <= set(df["series"])
    pl = pd.read_csv(log)
    assert set(pl["link"]) == {"down"} and set(pl["dir"]) == {"forward"}
    assert pl["t_s"].between(10, 20).all()
    assert {"enqueue", "arrive"} <= set(pl["event"])
    assert (pl[pl["event"] == "drop"]["reason"] == "channel").all()


def test_bad_observer_options_are_one_line_errors(cli, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    if os.access(locked, os.W_OK):  # running as root: permissions do not bind
        blocker = tmp_path / "file"
        blocker.write_text("x")
        locked = blocker / "sub"
    assert_one_line_error(cli("run", GEO, "--pcap", locked), "--pcap", "cannot write")
    assert_one_line_error(
        cli("run", GEO, "--runs", "2", "--pcap", tmp_path / "p"), "--pcap-per-seed"
    )
    assert_one_line_error(
        cli("run", GEO, "--pcap", tmp_path / "p", "--pcap-links", "up,nope"),
        "--pcap-links",
        "unknown link 'nope'",
    )
    assert_one_line_error(
        cli("run", GEO, "--packet-log", tmp_path / "l.csv", "--packet-log-window", "20s"),
        "--packet-log-window",
    )


WEB_SCENARIO = """
name = "web"
[run]
duration = "60 s"
[nodes.S]
[nodes.C]
[links.l]
between = ["S", "C"]
rate = "10 Mbps"
delay = "50 ms"
queue = 200
[flows.probe]
from = "S"
to = "C"
app = "cbr"
cbr = { rate = "100 kbps" }
[flows.w]
from = "S"
to = "C"
app = "web"
web = { http = "1.0", parallel = 2, pages = 3, reply_max = "50 KB" }
"""


@pytest.mark.skipif(
    shutil.which("tshark") is None, reason="tshark is not installed (CI installs it)"
)
def test_web_connections_and_a_probe_read_back_in_tshark(cli, tmp_path):
    # A datagram flow before a web session: the web session's streams,
    # opened at run time, are each a TCP conversation of their own, and the
    # packet log names their flow.
    scn = tmp_path / "web.toml"
    scn.write_text(WEB_SCENARIO, encoding="utf-8")
    out = tmp_path / "pcap"
    log = tmp_path / "log.csv"
    proc = cli("run", scn, "--json", "--pcap", out, "--packet-log", log)
    assert proc.returncode == 0, proc.stderr
    run = json.loads(proc.stdout)["runs"][0]
    w = run["flows"]["w"]
    assert w["pages_completed"] == 3
    res = subprocess.run(
        ["tshark", "-n", "-r", str(out / "l.forward.pcap"), "-q", "-z", "conv,tcp"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "LC_ALL": "C"},
    )
    conversations = [ln for ln in res.stdout.splitlines() if "<->" in ln]
    # Each connection: a reply stream and a request stream (its SYN-ACK and
    # ACKs cross the forward direction too).
    assert len(conversations) == 2 * w["connections_opened"]
    import csv

    rows = list(csv.DictReader(log.open(encoding="utf-8")))
    flows = {r["flow"] for r in rows}
    assert flows == {"probe", "w"}
    data = [r for r in rows if r["flow"] == "w" and r["kind"] == "data" and r["event"] == "arrive"]
    forward = sum(int(r["len"]) for r in data if r["dir"] == "forward")
    assert forward == w["bytes_delivered"]
    assert (
        sum(1 for r in rows if r["flow"] == "w" and r["kind"] == "syn") >= w["connections_opened"]
    )
