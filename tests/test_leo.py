"""Moving networks through the command line: `skyhop describe` shows
positions, distances and delay ranges; a constellation run's route changes
and handovers reach the JSON document and `Results`' tables; bad motion
input is one line naming file, key and value, exit 2."""

from __future__ import annotations

import json
import os

import pytest

from conftest import REPO, assert_one_line_error

AIRCRAFT = REPO / "scenarios" / "aircraft_atlantic.toml"
STARLINK = REPO / "scenarios" / "starlink_rome.toml"


def test_describe_shows_positions_distances_and_the_delay_range_of_a_moving_link(cli):
    proc = cli("describe", AIRCRAFT)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "positions (lat, lon, altitude" in out
    # The aircraft leaves Heathrow at 10.7 km and is over the Atlantic after 30 min.
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("AGW:"))
    assert "(51.4700, -0.4543, 10.700 km) -> (" in line, line
    down = next(ln for ln in out.splitlines() if ln.strip().startswith("down forward"))
    assert "moving positions, distance" in down and "delay over the run" in down, down
    assert "up 100 % of the run" in down, down
    proc = cli("describe", AIRCRAFT, "--json")
    d = json.loads(proc.stdout)
    link = next(x for x in d["links"] if x["link"] == "down" and x["dir"] == "forward")
    lo, hi = link["delay_range_s"]
    assert 0.12 < lo < hi < 0.14


def test_describe_shows_the_constellation_and_its_routing(cli):
    proc = cli("describe", STARLINK)
    assert proc.returncode == 0, proc.stderr
    assert (
        "moving network: 1584 satellites, 3168 inter-satellite links, ground nodes "
        "Frankfurt, Rome (min elevation 25 deg); routes: shortest delay every 100 ms"
    ) in proc.stdout


def test_a_leg_across_a_constellation_is_described_by_its_route_at_the_start(cli):
    # Not the figures of the fixed links alone (none join server and Rome):
    # the shortest-delay route at time 0, its bottleneck the ground links'
    # 200 Mb/s, its RTT at least the fibre's 2 x 1 ms plus two passes up to
    # 550 km and down.
    proc = cli("describe", STARLINK, "--json")
    assert proc.returncode == 0, proc.stderr
    leg = json.loads(proc.stdout)["flows"][0]["legs"][0]
    route = leg["route_at_start"]
    assert route[:2] == ["server", "Frankfurt"] and route[-1] == "Rome", route
    assert all(n.startswith("starlink-550-") for n in route[2:-1]) and len(route) > 3
    assert leg["bottleneck_bps"] == 200_000_000
    c = 299_792_458.0
    assert 2e-3 + 4 * 550e3 / c < leg["rtt_s"] < 0.05, leg["rtt_s"]
    text = cli("describe", STARLINK).stdout
    assert "at the start of the run" in text and "route at the start (" in text
    # A leg over fixed links has none.
    aircraft = json.loads(cli("describe", AIRCRAFT, "--json").stdout)
    assert all(g["route_at_start"] is None for f in aircraft["flows"] for g in f["legs"])


def test_a_constellation_run_reports_route_changes_and_handovers_as_a_table(cli):
    proc = cli("run", STARLINK, "--set", 'run.duration="20 s"', "--json")
    assert proc.returncode == 0, proc.stderr
    run = json.loads(proc.stdout)["runs"][0]
    events = run["network_events"]
    assert events[0]["kind"] == "route" and events[0]["t_s"] == 0
    assert all(e["kind"] in ("route", "handover") for e in events)
    assert run["network"]["route_updates"] == 201
    assert run["flows"]["download"]["goodput_bps"] > 10e6

    from skyhop.tables import blocks_of

    names = {b["table"] for b in blocks_of(run)}
    assert "network_events" in names


@pytest.mark.parametrize(
    ("sets", "key", "text"),
    [
        pytest.param(
            ['constellation.altitude="80 km"'],
            "constellation.altitude",
            "80 km is below 100 km",
            id="orbit-below-100-km",
        ),
        pytest.param(
            ["constellation.min_elevation=95"],
            "constellation.min_elevation",
            "95",
            id="min-elevation-above-90",
        ),
        pytest.param(
            ["constellation.cities=500"],
            "constellation.cities",
            "500",
            id="too-many-cities",
        ),
    ],
)
def test_bad_constellation_input_is_one_line_and_exit_2(cli, sets, key, text):
    args = [a for s in sets for a in ("--set", s)]
    assert_one_line_error(cli("run", STARLINK, *args), str(STARLINK), key, text)


def test_waypoints_out_of_order_and_a_broken_tle_are_one_line(cli, tmp_path):
    scn = AIRCRAFT.read_text().replace(
        '  { lat = 40.6413, lon = -73.7781, altitude = "10.7 km" },  # New York JFK',
        '  { lat = 40.6413, lon = -73.7781, altitude = "10.7 km" },\n'
        '  { lat = 40.6413, lon = -73.7781, altitude = "10.7 km" },',
    )
    path = tmp_path / "air.toml"
    path.write_text(scn)
    assert_one_line_error(
        cli("run", path), str(path), "nodes.AGW.route.waypoints[2]", "the same place"
    )
    tle = tmp_path / "bad.tle"
    tle.write_text(
        "ISS\n1 25544U 98067A   20194.88612269 -.00002218  00000-0 -31515-4 0  9993\n"
        "2 25544  51.6461 221.2784 0001413  89.1723 280.4612 15.49507896236008\n"
    )
    scn = STARLINK.read_text().replace('preset = "starlink-550"', f'tle = "{tle}"')
    path = tmp_path / "tle.toml"
    path.write_text(scn)
    assert_one_line_error(cli("run", path), str(path), "constellation.tle", "bad.tle line 2")


def test_a_constellation_too_big_for_the_memory_limit_is_refused(cli):
    proc = cli("run", STARLINK, env={**os.environ, "SKYHOP_MEMORY_LIMIT": "100 kB"})
    assert_one_line_error(proc, str(STARLINK), "constellation", "1584 satellites")


def test_pcap_files_cover_the_links_a_constellation_builds(cli, tmp_path):
    # One file per direction of every link that carried packets, the
    # ground and inter-satellite links built during the run included, each
    # with the packets the run's link table counts.
    out = tmp_path / "pcap"
    proc = cli("run", STARLINK, "--set", "run.duration=1s", "--pcap", out, "--json")
    assert proc.returncode == 0, proc.stderr
    run = json.loads(proc.stdout)["runs"][0]
    files = {os.path.basename(p): n for p, n in run["pcap_files"]}
    built = [lk for lk in run["links"] if lk["link"].startswith("gsl:")]
    assert built
    for lk in run["links"]:
        assert files[f"{lk['link']}.{lk['dir']}.pcap"] == lk["packets"]


def test_a_built_link_is_directed_from_its_ground_station(cli):
    # issue 39, item 15: forward is ground station to satellite on every
    # ground link, whichever way its first packet went (the download's data
    # reach Rome from a satellite, Frankfurt's go up to one)
    proc = cli("run", STARLINK, "--set", "run.duration=1s", "--json")
    assert proc.returncode == 0, proc.stderr
    links = json.loads(proc.stdout)["runs"][0]["links"]
    gsl = [lk for lk in links if lk["link"].startswith("gsl:")]
    assert {lk["from"] for lk in gsl if lk["dir"] == "forward"} == {"Rome", "Frankfurt"}
    for lk in gsl:
        ground = lk["from"] if lk["dir"] == "forward" else lk["to"]
        assert lk["link"].startswith(f"gsl:{ground}-starlink-550-"), lk
