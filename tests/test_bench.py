"""`skyhop bench`: reports speed from the engine counters (never asserts wall time)."""

from __future__ import annotations

import json

from conftest import REPO, TINY


def test_bench_json_report(cli):
    proc = cli("bench", TINY, "--repeat", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    (r,) = report["results"]
    assert r["scenario"] == str(TINY) and r["runs"] == 2
    assert r["events"] > 0 and r["packet_hops"] > 0 and r["wall_s"] > 0
    assert r["events_per_s"] == r["events"] / r["wall_s"]
    assert r["packet_hops_per_s"] == r["packet_hops"] / r["wall_s"]
    assert r["sim_s_per_wall_s"] == r["sim_time_s"] / r["wall_s"]


def test_bench_scenarios_are_valid(cli):
    import skyhop

    for name in ("e1_chain.toml", "dumbbell_1g.toml"):
        scn = skyhop.load_scenario(REPO / "benches" / name)
        assert scn.resolved["flows"]
    dumbbell = skyhop.load_scenario(REPO / "benches" / "dumbbell_1g.toml").resolved
    assert len(dumbbell["flows"]) == 100


def test_leo_bench_scenarios_are_hypatias_set_ups():
    # B2: the 100 cities paired reciprocally (each a source once and a
    # destination once, every pair both ways), 1 Gb/s links with queues of
    # 10 packets per Mb/s, routes every 100 ms; B1: one flow at 10 Mb/s with
    # Hypatia's ground-link range rule. Both in the lists that run them.
    import skyhop
    from skyhop.bench import DEFAULT_BENCHES, LEO_BENCHES

    assert "benches/leo_b2_kuiper_1g.toml" in DEFAULT_BENCHES
    assert set(LEO_BENCHES) == {
        "benches/leo_b1_rio_stpetersburg.toml",
        "benches/leo_b1_manila_dalian.toml",
        "benches/leo_b2_kuiper_1g.toml",
    }
    b2 = skyhop.load_scenario(REPO / "benches" / "leo_b2_kuiper_1g.toml").resolved
    pairs = {(f["from"], f["to"]) for f in b2["flows"].values()}
    assert len(pairs) == 100 and all((b, a) in pairs for a, b in pairs)
    assert len({a for a, _ in pairs}) == 100 and len({b for _, b in pairs}) == 100
    c = b2["constellation"]
    assert c["preset"] == "kuiper-630" and c["cities"] == 100
    for cls in ("isl", "gsl"):
        assert c[cls]["queue"] == 10_000
    for name in LEO_BENCHES[:2]:
        b1 = skyhop.load_scenario(REPO / name).resolved
        assert len(b1["flows"]) == 1 and b1["constellation"]["ground_rule"] == "range"


def test_bench_outside_the_repository_is_a_clear_error(cli, tmp_path):
    proc = cli("bench", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("skyhop: error: benches/e1_chain.toml")
    assert len(proc.stderr.splitlines()) == 1


def test_variant_bench_scenarios_name_their_profile_and_variant():
    import skyhop
    from skyhop.bench import VARIANT_BENCHES

    expect = {
        "dumbbell_1g.toml": ("studies", "newreno"),
        "dumbbell_1g_sack.toml": ("studies", "sack"),
        "dumbbell_1g_linux.toml": ("linux", "cubic"),
        "dumbbell_1g_bbr_rack.toml": ("linux", "bbr"),
        "holes.toml": ("studies", "newreno"),
        "holes_sack.toml": ("studies", "sack"),
    }
    assert [p.rsplit("/", 1)[1] for p in VARIANT_BENCHES] == list(expect)
    for name, (profile, variant) in expect.items():
        text = (REPO / "benches" / name).read_text()
        assert f'profile = "{profile}"' in text, name
        scn = skyhop.load_scenario(REPO / "benches" / name)
        tcps = {f.get("tcp") for f in scn.resolved["flows"].values()}
        assert tcps == {variant}, (name, tcps)


def test_variants_takes_no_scenario_files(cli):
    proc = cli("bench", "--variants", TINY)
    assert proc.returncode == 2
    assert "--variants takes no scenario files" in proc.stderr


def test_rounds_report_the_fastest_round_and_ratios_to_the_baseline():
    # Two rounds of two cases, the second compared with the first: each case
    # reports its fastest round's figures and every round's events/s; the
    # compared one its events/s over the baseline's, round by round, and
    # their median. The engine's counts are the same in every round.
    from skyhop.bench import bench

    two = str(REPO / "tests" / "data" / "two_flows.toml")
    report = bench([str(TINY), two], repeat=1, rounds=3, baselines={two: str(TINY)})
    assert report["rounds"] == 3
    base, other = report["results"]
    for r in (base, other):
        assert len(r["rounds_events_per_s"]) == 3
        assert r["events_per_s"] == max(r["rounds_events_per_s"])
        assert r["events_per_s"] == r["events"] / r["wall_s"]
    assert "baseline" not in base
    assert other["baseline"] == str(TINY)
    pairs = zip(other["rounds_events_per_s"], base["rounds_events_per_s"], strict=True)
    ratios = [a / b for a, b in pairs]
    assert other["vs_baseline"] == ratios
    assert other["vs_baseline_median"] == sorted(ratios)[1]


def test_a_baseline_not_benchmarked_is_a_clear_error(cli):
    from skyhop.bench import bench
    from skyhop.errors import ScenarioError

    two = str(REPO / "tests" / "data" / "two_flows.toml")
    try:
        bench([two], baselines={two: str(TINY)})
    except ScenarioError as e:
        assert "must both be benchmarked" in str(e)
    else:
        raise AssertionError("a baseline outside the list was accepted")
    proc = cli("bench", TINY, "--rounds", "0")
    assert proc.returncode == 2 and "--rounds" in proc.stderr


def test_bench_rounds_on_the_command_line(cli):
    proc = cli("bench", TINY, "--rounds", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["rounds"] == 2
    (r,) = report["results"]
    assert len(r["rounds_events_per_s"]) == 2 and r["events_per_s"] == max(r["rounds_events_per_s"])
    proc = cli("bench", TINY, "--rounds", "2")
    assert proc.returncode == 0, proc.stderr
    assert "fastest of 2 rounds" in proc.stdout


def test_a_quic_case_reports_datagrams_per_processor_second(cli, tmp_path):
    # A short QUIC transfer (the bench cases' shape, 2 s): every connection
    # end's datagrams over the processor time of the runs.
    from skyhop.bench import QUIC_BENCHES

    assert QUIC_BENCHES == ("benches/quic_geo_100.toml", "benches/quic_lan_1g.toml")
    scn = tmp_path / "q.toml"
    text = (REPO / "benches" / "quic_lan_1g.toml").read_text().replace('"5 s"', '"0.2 s"')
    scn.write_text(text)
    proc = cli("bench", scn, "--json")
    assert proc.returncode == 0, proc.stderr
    (r,) = json.loads(proc.stdout)["results"]
    assert r["quic_datagrams"] > 1000
    assert r["quic_datagrams_per_cpu_s"] == r["quic_datagrams"] / r["cpu_s"]
    assert r["cpu_us_per_quic_datagram"] == r["cpu_s"] / r["quic_datagrams"] * 1e6
    proc = cli("bench", scn)
    assert proc.returncode == 0, proc.stderr
    assert "QUIC datagrams / CPU s" in proc.stdout
