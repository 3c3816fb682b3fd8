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
    text = (REPO / "docs" / "scenario.md").read_text()
    assert "The sender has no RACK" not in text


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
