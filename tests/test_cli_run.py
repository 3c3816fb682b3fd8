"""`skyhop run`: the --json contract, determinism, --out, the table, --set."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from conftest import DATA, TINY

CONTRACT_FLOW_KEYS = {
    "completion_time_s",
    "goodput_bps",
    "bytes_delivered",
    "retransmissions",
    "timeouts",
}
TWO_FLOWS = DATA / "two_flows.toml"


def run_json(cli, *args):
    proc = cli("run", *args, "--json")
    assert proc.returncode == 0, proc.stderr
    return proc, json.loads(proc.stdout)  # exactly one document, or this raises


def test_json_is_one_document_with_the_contract_keys(cli):
    proc, doc = run_json(cli, TINY, "--runs", "3", "--seed", "11")
    assert proc.stdout.endswith("\n") and proc.stdout.count("\n") == 1
    assert set(doc) >= {"scenario", "runs", "summary"}
    assert list(doc)[:3] == ["scenario", "runs", "summary"]

    assert isinstance(doc["scenario"], dict) and "flows" in doc["scenario"]
    assert [r["seed"] for r in doc["runs"]] == [11, 12, 13]
    for r in doc["runs"]:
        assert set(r["flows"]) == {"ftp"}
        flow = r["flows"]["ftp"]
        assert set(flow) >= CONTRACT_FLOW_KEYS
        assert flow["bytes_delivered"] == 300_000  # a finished 300 kB transfer
        assert flow["completion_time_s"] > 0
        for key in CONTRACT_FLOW_KEYS:
            assert isinstance(flow[key], (int, float))
        assert isinstance(flow["retransmissions"], int)
        assert isinstance(flow["timeouts"], int)

    summary = doc["summary"]["ftp"]
    assert set(summary) >= CONTRACT_FLOW_KEYS
    for metric in CONTRACT_FLOW_KEYS:
        stats = summary[metric]
        assert set(stats) == {"mean", "ci95", "n"}
        values = [r["flows"]["ftp"][metric] for r in doc["runs"]]
        assert stats["n"] == 3
        assert stats["mean"] == pytest.approx(sum(values) / 3)
        assert stats["ci95"] >= 0


def test_summary_ci95_is_the_student_t_half_width(cli):
    _, doc = run_json(cli, TINY, "--runs", "4")
    values = [r["flows"]["ftp"]["completion_time_s"] for r in doc["runs"]]
    mean = sum(values) / 4
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 3)
    t975_3dof = 3.182446305284263
    assert doc["summary"]["ftp"]["completion_time_s"]["ci95"] == pytest.approx(
        t975_3dof * sd / 2, rel=1e-9
    )


def test_single_run_has_null_ci95(cli):
    _, doc = run_json(cli, TINY, "--runs", "1")
    stats = doc["summary"]["ftp"]["goodput_bps"]
    assert stats["n"] == 1
    assert stats["ci95"] is None
    assert stats["mean"] == doc["runs"][0]["flows"]["ftp"]["goodput_bps"]


def test_bulk_flow_has_null_completion_time(cli):
    _, doc = run_json(cli, TWO_FLOWS, "--runs", "2")
    for r in doc["runs"]:
        assert r["flows"]["bulk"]["completion_time_s"] is None
        assert r["flows"]["bulk"]["goodput_bps"] > 0
    ct = doc["summary"]["bulk"]["completion_time_s"]
    assert ct["n"] == 0 and ct["mean"] is None


def test_defaults_come_from_the_scenario(cli):
    # two_flows.toml: run.seed = 5, run.runs = 3
    _, doc = run_json(cli, TWO_FLOWS)
    assert [r["seed"] for r in doc["runs"]] == [5, 6, 7]
    assert set(doc["runs"][0]["flows"]) == {"file", "bulk"}


def test_same_seed_gives_byte_identical_json(cli):
    a = cli("run", TWO_FLOWS, "--runs", "4", "--seed", "3", "--json")
    b = cli("run", TWO_FLOWS, "--runs", "4", "--seed", "3", "--json", "--jobs", "1")
    c = cli("run", TWO_FLOWS, "--runs", "4", "--seed", "3", "--json", "--jobs", "4")
    assert a.returncode == b.returncode == c.returncode == 0
    assert a.stdout == b.stdout == c.stdout


def test_run_i_equals_a_single_run_with_seed_s_plus_i(cli):
    _, many = run_json(cli, TINY, "--runs", "3", "--seed", "20")
    _, one = run_json(cli, TINY, "--runs", "1", "--seed", "22")
    assert many["runs"][2] == one["runs"][0]


def test_different_seeds_give_different_losses(cli):
    _, a = run_json(cli, TINY, "--runs", "3", "--seed", "1")
    _, b = run_json(cli, TINY, "--runs", "3", "--seed", "4")
    flows_a = [r["flows"] for r in a["runs"]]
    flows_b = [r["flows"] for r in b["runs"]]
    assert flows_a != flows_b
    # and within one job, the runs are not all alike
    assert len({json.dumps(f, sort_keys=True) for f in flows_a}) > 1


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_out_writes_one_row_per_run_and_flow(cli, tmp_path, suffix):
    out = tmp_path / "sub" / f"results{suffix}"
    _, doc = run_json(cli, TWO_FLOWS, "--runs", "3", "--seed", "9", "--out", out)
    df = pd.read_parquet(out) if suffix == ".parquet" else pd.read_csv(out)
    assert len(df) == 3 * 2
    assert list(df.columns[:2]) == ["seed", "flow"]
    assert set(df.columns) >= CONTRACT_FLOW_KEYS
    assert sorted(df["seed"].unique().tolist()) == [9, 10, 11]
    row = df[(df["seed"] == 10) & (df["flow"] == "file")].iloc[0]
    expected = doc["runs"][1]["flows"]["file"]
    assert row["goodput_bps"] == pytest.approx(expected["goodput_bps"])
    assert row["retransmissions"] == expected["retransmissions"]


def test_table_output(cli):
    proc = cli("run", TWO_FLOWS, "--runs", "2")
    assert proc.returncode == 0, proc.stderr
    for text in ("file", "bulk", "goodput", "completion"):
        assert text in proc.stdout
    assert "Traceback" not in proc.stderr


def test_set_overrides_reach_the_resolved_scenario(cli):
    _, doc = run_json(
        cli,
        TINY,
        "--set",
        "flows.ftp.tcp=sack",
        "--set",
        "links.ar.per=0",
        "--set",
        'flows.ftp.size="100 kB"',
    )
    flow = doc["scenario"]["flows"]["ftp"]
    assert flow["tcp"] == "sack"
    assert doc["scenario"]["links"]["ar"]["per"] == 0
    run = doc["runs"][0]["flows"]["ftp"]
    assert run["bytes_delivered"] == 100_000
    assert doc["runs"][0]["engine"]["channel_drops"] == 0  # no loss left on the path


def test_resolved_scenario_round_trips(cli, tmp_path):
    import skyhop

    _, doc = run_json(cli, TINY, "--seed", "2")
    again = skyhop.run(doc["scenario"], seed=2)
    assert again.scenario == doc["scenario"]
    expected = doc["runs"][0]["flows"]["ftp"]
    assert {k: again.runs[0]["flows"]["ftp"][k] for k in expected} == expected


def test_trace_adds_time_series(cli):
    _, doc = run_json(cli, TINY, "--trace")
    traces = doc["runs"][0]["traces"]
    assert traces, "no traces recorded"
    for series in traces.values():
        assert len(series["t_s"]) == len(series["value"])


def test_version(cli):
    import skyhop

    proc = cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"skyhop {skyhop.__version__}"


def test_warnings_go_to_stderr_once_and_json_stays_clean(cli):
    proc = cli("run", TINY, "--runs", "3", "--json", "--set", "tcp.rcv_buffer=5 kB")
    assert proc.returncode == 0, proc.stderr
    json.loads(proc.stdout)
    warnings = [ln for ln in proc.stderr.splitlines() if ln.startswith("skyhop: warning: ")]
    assert len(warnings) == 1, proc.stderr  # the same warning of 3 runs, shown once
    assert "rcv_buffer" in warnings[0] or "receive" in warnings[0]


@pytest.mark.parametrize(
    ("sets", "line"),
    [
        ([], "ftp: TCP newreno, profile linux: reno + prr, SACK, RACK, timestamps"),
        (
            ["flows.ftp.tcp=cubic"],
            "ftp: TCP cubic, profile linux: cubic + prr, SACK, RACK, timestamps",
        ),
        (["tcp.profile=studies"], "ftp: TCP newreno, profile studies: reno + newreno"),
    ],
    ids=["default", "explicit-controller", "studies"],
)
def test_the_table_says_which_profile_controller_and_recovery_ran(cli, sets, line):
    args = [a for s in sets for a in ("--set", s)]
    proc = cli("run", TINY, *args)
    assert proc.returncode == 0, proc.stderr
    assert line in proc.stdout.splitlines()
    # describe says the same for each leg
    leg = json.loads(cli("describe", TINY, *args, "--json").stdout)["flows"][0]["legs"][0]
    assert line.split(", profile ")[1].startswith(leg["profile"])


def test_a_modern_controller_under_the_studies_defaults_is_warned_about(cli):
    proc = cli("run", TINY, "--set", "tcp.profile=studies", "--set", "flows.ftp.tcp=cubic")
    assert proc.returncode == 0, proc.stderr
    warning = [ln for ln in proc.stderr.splitlines() if "tcp.profile" in ln]
    assert warning and "flows.ftp: cubic" in warning[0] and '"linux" (the default)' in warning[0]
