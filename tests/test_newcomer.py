"""What a new user trips on: describe states what shapes a link and a
proxy, channel plot shows any fade process, the documentation matches the
engine."""

from __future__ import annotations

import json

from conftest import REPO, skyhop_cli

E1 = REPO / "scenarios" / "e1_haps.toml"
E2 = REPO / "scenarios" / "e2_geo_onboard.toml"
E6 = REPO / "scenarios" / "e6_geo_3g.toml"


def test_describe_shows_a_dvbs_link_layer_not_errors_none():
    proc = skyhop_cli("describe", E6)
    assert proc.returncode == 0, proc.stderr
    sat = [line for line in proc.stdout.splitlines() if line.strip().startswith("sat ")]
    assert len(sat) == 2
    for line in sat:
        assert "errors: none" not in line
        assert "dvbs link layer" in line and "t_good=6000 ms" in line and "fer_bad=0.0001" in line
    doc = json.loads(skyhop_cli("describe", E6, "--json").stdout)
    assert doc["links"][0]["link_layer"]["model"] == "dvbs"
    plain = json.loads(skyhop_cli("describe", E1, "--json").stdout)
    assert all(ln["link_layer"] is None for ln in plain["links"])


def test_describe_states_the_window_a_proxy_really_advertises():
    third = json.loads(
        skyhop_cli("describe", E2, "--set", 'flows.ftp.proxies=["SAT"]', "--json").stdout
    )
    leg = third["flows"][0]["legs"][0]
    assert leg["window_limit"] == "nodes.SAT.proxy (a third of the cache)"
    half = json.loads(
        skyhop_cli(
            "describe",
            E2,
            "--set",
            'flows.ftp.proxies=["SAT"]',
            "--set",
            "nodes.SAT.proxy.policy=half-free",
            "--json",
        ).stdout
    )
    leg_half = half["flows"][0]["legs"][0]
    assert leg_half["window_limit"] == "nodes.SAT.proxy (half the free cache)"
    # the same cache: half of it, against a third
    assert leg_half["window_limit_bytes"] * 2 in range(
        leg["window_limit_bytes"] * 3 - 2, leg["window_limit_bytes"] * 3 + 3
    )


def test_channel_plot_draws_a_dvbs_fade_process(tmp_path):
    out = tmp_path / "fade.png"
    proc = skyhop_cli("channel", "plot", E6, "--link", "sat", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 1000
    import skyhop
    from skyhop.channel_plot import sample_channel

    s = sample_channel(skyhop.load_scenario(E6), "sat")
    assert s["model"] == "dvbs"
    assert set(s["state"]) == {0, 1}
    assert set(s["loss_probability"]) == {1e-5, 1e-4}
    back = skyhop_cli(
        "channel", "plot", E6, "--link", "sat", "--direction", "reverse", "--out", out
    )
    assert back.returncode == 2 and "forward direction" in back.stderr


def test_the_scenario_documentation_knows_the_sender_has_rack():
    from skyhop.schema import BEGIN, keys_rows

    text = (REPO / "docs" / "scenario.md").read_text()
    assert "The sender has no RACK" not in text
    # The engine has it: a `rack` key of its own in [tcp] and per flow.
    rows = {r[0]: r for r in keys_rows()}
    assert "tcp.rack" in rows and "RFC 8985" in rows["tcp.rack"][3], rows.get("tcp.rack")
    # The written part of the page says what it does (above the keys table
    # generated from the engine's schema, which lists the key too).
    written, generated = text.split(BEGIN)
    assert "**`rack = true`** (RFC 8985" in written
    assert "RACK-TLP" in written and "tail loss probe" in written
    assert "| `tcp.rack` |" in generated


# ---------------------------------------------------------------------------
# issue 39, item 3: a command a script starts in the background (`cmd &`:
# the shell starts it with SIGINT ignored) still stops on Ctrl-C


def test_ctrl_c_stops_a_command_started_with_sigint_ignored():
    import os
    import signal
    import subprocess
    import sys
    import time

    from conftest import TINY

    def ignore_sigint():
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    env = {k: v for k, v in os.environ.items() if k != "SKYHOP_DEBUG"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "skyhop", "run", str(TINY), "--runs", "1000000", "--jobs", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=ignore_sigint,
    )
    time.sleep(1.0)  # starting or running: either way an interruption
    proc.send_signal(signal.SIGINT)
    try:
        _out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError("SIGINT ignored: the run went on") from None
    assert (proc.returncode, err) == (130, "skyhop: interrupted\n")


# ---------------------------------------------------------------------------
# issue 39: a new user's frictions, re-tried as the issue describes them

AIRCRAFT = REPO / "scenarios" / "aircraft_atlantic.toml"
LIVE_GEO = REPO / "scenarios" / "live_geo.toml"
TINY_PATH = REPO / "tests" / "data" / "tiny.toml"


def test_describe_of_an_aircraft_without_a_constellation(tmp_path):
    # item 8: the return link is up while the aircraft sees the GEO (the
    # reverse direction mirrors the forward one); no "0 satellites"
    doc = json.loads(skyhop_cli("describe", AIRCRAFT, "--json").stdout)
    down = {ln["dir"]: ln for ln in doc["links"] if ln["link"] == "down"}
    assert down["forward"]["up_fraction"] == 1.0
    assert down["reverse"]["up_fraction"] == 1.0
    text = skyhop_cli("describe", AIRCRAFT).stdout
    assert "0 satellites" not in text and "no constellation" in text
    assert "up 0 %" not in text


def test_describe_names_due_north_0_degrees_not_360(tmp_path):
    # item 8: a station due south of its GEO, a hair east: azimuth 359.9999998
    scn = tmp_path / "north.toml"
    scn.write_text(
        '[run]\nduration = "10 s"\n[nodes.A]\nlat = -30.0\nlon = 10.0000001\n'
        "[nodes.SAT]\ngeo_longitude = 10.0\n[nodes.B]\nlat = 30.0\nlon = 10.0\n"
        '[links.up]\nbetween = ["A", "SAT"]\nrate = "1 Mbps"\nqueue = 50\n'
        '[links.down]\nbetween = ["SAT", "B"]\nrate = "1 Mbps"\nqueue = 50\n'
        '[flows.f]\nfrom = "A"\nto = "B"\nsize = "1 MB"\n'
    )
    text = skyhop_cli("describe", scn).stdout
    up = next(line for line in text.splitlines() if " up forward " in line)
    assert "azimuth 0.00 deg" in up and "360.00" not in text


def test_identical_runs_are_said_to_be_identical_not_plus_minus_zero():
    # item 10: a loss-free path is deterministic; three seeds, three equal runs
    proc = skyhop_cli("run", TINY_PATH, "--runs", "3", "--set", "links.ar.per=0")
    assert proc.returncode == 0, proc.stderr
    assert "± 0.000" not in proc.stdout and "(identical)" in proc.stdout
    assert "every run gave the same value" in proc.stdout
    doc = json.loads(
        skyhop_cli("run", TINY_PATH, "--runs", "3", "--set", "links.ar.per=0", "--json").stdout
    )
    assert doc["summary"]["ftp"]["goodput_bps"]["ci95"] == 0.0


def test_a_run_table_tells_unfinished_from_bulk():
    # items 2 and 15: a transfer unfinished at the run's end is a lower
    # bound "≥ ... (k of n unfinished)"; a bulk flow "runs until the end"
    proc = skyhop_cli(
        "run", TINY_PATH, "--runs", "4", "--set", "links.ar.per=0.1", "--duration", "6s"
    )
    assert proc.returncode == 0, proc.stderr
    assert "unfinished)" in proc.stdout and "≥" in proc.stdout
    assert "bulk or unfinished" not in proc.stdout
    bulk = skyhop_cli("run", TINY_PATH, "--set", "flows.ftp.size=unlimited", "--duration", "2s")
    assert "— (runs until the end)" in bulk.stdout
    web = skyhop_cli(
        "run",
        REPO / "scenarios" / "web_geo.toml",
        "--duration",
        "5s",
        "--set",
        "flows.web.web.pages=2",
    )
    assert web.returncode == 0, web.stderr
    assert "bulk or unfinished" not in web.stdout


def test_a_flood_of_alike_warnings_is_one_line_and_quiet_silences_it():
    # item 12: 20 templated connections, 29 warnings of two forms
    args = [AIRCRAFT, "--set", "templates.conn.count=20", "--duration", "1s"]
    proc = skyhop_cli("run", *args)
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("skyhop: warning:")]
    assert len(lines) <= 6, proc.stderr
    assert any("16 flows f4–f19, each like:" in ln for ln in lines), lines
    quiet = skyhop_cli("run", *args, "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == ""
    doc = json.loads(skyhop_cli("run", *args, "--json").stdout)
    assert len(doc["runs"][0]["warnings"]) == 29  # the document keeps each


def test_the_live_scenario_simulates_its_own_download():
    # item 13: the live example's download, simulated with one --set
    plain = skyhop_cli("run", LIVE_GEO)
    assert "download" not in plain.stdout
    twin = skyhop_cli("run", LIVE_GEO, "--set", "templates.twin.count=1", "--json")
    assert twin.returncode == 0, twin.stderr
    flow = json.loads(twin.stdout)["runs"][0]["flows"]["download"]
    assert flow["bytes_delivered"] == 2_000_000 and flow["completion_time_s"] > 1.0
    assert "templates.twin.count=1" in LIVE_GEO.read_text()


def test_a_leg_count_message_says_one_leg():
    # item 15: "1 leg", not "1 legs"
    proc = skyhop_cli("run", TINY_PATH, "--set", 'flows.ftp.legs=["sack","cubic"]')
    line = proc.stderr.strip()
    assert "1 leg (0 proxies + 1)" in line and "1 legs" not in line, line


def test_every_option_a_message_suggests_exists():
    # item 3: the lateness warning suggested --realtime, which does not exist
    import re

    options = set()
    for cmd in ("run", "live", "sweep", "replay", "describe", "plot", "bench"):
        options |= set(re.findall(r"--[a-z][a-z-]+", skyhop_cli(cmd, "--help").stdout))
    sources = [*(REPO / "crates" / "skyhop" / "src" / "live").glob("*.rs")]
    sources += [
        REPO / "python" / "skyhop" / "cli" / "live.py",
        REPO / "python" / "skyhop" / "live.py",
    ]
    for src in sources:
        text = src.read_text()
        # messages: string literals with words and an option in them
        for string in re.findall(r'"([^"\n]* [^"\n]*--[a-z][^"\n]*)"', text):
            for opt in re.findall(r"(?<![\w-])--[a-z][a-z-]+", string):
                assert opt in options, (src.name, opt, string)
