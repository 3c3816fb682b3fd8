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
