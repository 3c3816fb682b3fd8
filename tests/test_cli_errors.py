"""Every kind of bad input of the command-line contract, through the real command.

Each must give exit status 2, nothing on stdout, and exactly one line on
stderr, ``skyhop: error: FILE: KEY: problem``, naming the file and the key;
never a Python traceback or a Rust panic.
"""

from __future__ import annotations

import pytest

from conftest import TINY, assert_one_line_error

BASE = TINY.read_text()


def replace(old: str, new: str) -> str:
    assert old in BASE, old
    return BASE.replace(old, new, 1)


# (test id, scenario text, key that the error must name)
BAD_SCENARIOS = [
    (
        "unknown-key-in-link",
        replace("queue = 50\nper", 'colour = "red"\nqueue = 50\nper'),
        "links.ar.colour",
    ),
    (
        "unknown-key-in-flow",
        replace('tcp = "newreno"', 'tcp = "newreno"\nspeed = 3'),
        "flows.ftp.speed",
    ),
    ("unknown-top-level-table", BASE + "\n[bogus]\nx = 1\n", "bogus"),
    ("wrong-unit-rate", replace('rate = "1 Mbps"', 'rate = "1 Mfurlongs"'), "links.ar.rate"),
    ("wrong-unit-delay", replace('delay = "10 ms"', 'delay = "10 Mbps"'), "links.ar.delay"),
    ("missing-unit-rate", replace('rate = "1 Mbps"', "rate = 1000000"), "links.ar.rate"),
    ("missing-unit-delay", replace('delay = "10 ms"', 'delay = "10"'), "links.ar.delay"),
    ("missing-unit-size", replace('size = "300 kB"', "size = 300000"), "flows.ftp.size"),
    ("negative-rate", replace('rate = "1 Mbps"', 'rate = "-1 Mbps"'), "links.ar.rate"),
    ("zero-rate", replace('rate = "1 Mbps"', 'rate = "0 Mbps"'), "links.ar.rate"),
    (
        "link-unknown-node",
        replace('between = ["A", "R"]', 'between = ["A", "Z"]'),
        "links.ar.between",
    ),
    ("flow-unknown-source", replace('from = "A"', 'from = "Nowhere"'), "flows.ftp.from"),
    ("flow-unknown-destination", replace('to = "B"', 'to = "Z"'), "flows.ftp.to"),
    (
        "flow-without-path",
        BASE.replace("[nodes.B]", "[nodes.B]\n[nodes.Island]").replace('to = "B"', 'to = "Island"'),
        "flows.ftp",
    ),
    ("malformed-toml", replace("[links.rb]", "[links.rb"), ""),
    ("malformed-toml-value", replace("queue = 50\nper", "queue = = 50\nper"), ""),
    ("per-above-one", replace("per = 0.02", "per = 1.5"), "links.ar.per"),
]


@pytest.mark.parametrize(("text", "key"), [pytest.param(t, k, id=i) for i, t, k in BAD_SCENARIOS])
def test_bad_scenario_is_one_clear_line_and_exit_2(cli, tmp_path, text, key):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    assert_one_line_error(cli("run", path), str(path), key)


@pytest.mark.parametrize(
    ("text", "key"), [pytest.param(t, k, id=i) for i, t, k in BAD_SCENARIOS[:3]]
)
def test_bad_scenario_with_json_flag_prints_nothing_on_stdout(cli, tmp_path, text, key):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    assert_one_line_error(cli("run", path, "--json", "--runs", "3"), str(path), key)


def test_missing_file(cli, tmp_path):
    path = tmp_path / "does-not-exist.toml"
    line = assert_one_line_error(cli("run", path), str(path))
    assert "No such file" in line or "not found" in line.lower()


def test_unreadable_file_a_directory(cli, tmp_path):
    assert_one_line_error(cli("run", tmp_path), str(tmp_path))


def test_file_that_is_not_text(cli, tmp_path):
    path = tmp_path / "binary.toml"
    path.write_bytes(b"\xff\xfe\x00\x01garbage\x80")
    assert_one_line_error(cli("run", path), str(path))


@pytest.mark.parametrize(
    ("override", "key"),
    [
        pytest.param("links.nope.rate=2 Mbps", "links.nope", id="unknown-link"),
        pytest.param("links.ar.colour=red", "links.ar.colour", id="unknown-field"),
        pytest.param("run.bogus=1", "run.bogus", id="unknown-run-field"),
        pytest.param("links.ar.rate=fast", "links.ar.rate", id="bad-value"),
        pytest.param("flows.ftp.to=Z", "flows.ftp.to", id="unknown-node"),
        pytest.param("links.ar.per=-0.1", "links.ar.per", id="negative-per"),
    ],
)
def test_bad_set_override(cli, override, key):
    assert_one_line_error(cli("run", TINY, "--set", override), str(TINY), key)


def test_set_without_equals_sign(cli):
    assert_one_line_error(cli("run", TINY, "--set", "links.ar.rate"), "links.ar.rate")


@pytest.mark.parametrize("jobs", ["1", "3"])
def test_simulation_error_event_budget(cli, jobs):
    args = ("run", TINY, "--set", "run.event_budget=100", "--runs", "4", "--jobs", jobs)
    line = assert_one_line_error(cli(*args), str(TINY), "run.event_budget", "seed 1")
    assert "budget" in line


@pytest.mark.parametrize(
    ("args", "text"),
    [
        pytest.param(["--runs", "0"], "--runs", id="zero-runs"),
        pytest.param(["--runs", "many"], "--runs", id="runs-not-a-number"),
        pytest.param(["--seed", "-3"], "--seed", id="negative-seed"),
        pytest.param(["--out", "results.txt"], "--out", id="unsupported-out"),
        pytest.param(["--frobnicate"], "--frobnicate", id="unknown-option"),
    ],
)
def test_bad_options(cli, tmp_path, args, text):
    assert_one_line_error(cli("run", TINY, *args, cwd=tmp_path), text)


def test_no_command(cli):
    assert_one_line_error(cli())


def test_scenario_error_in_python_is_a_value_error():
    import skyhop

    with pytest.raises(ValueError) as info:
        skyhop.run(TINY, set=["links.ar.rate=0 Mbps"])
    err = info.value
    assert isinstance(err, skyhop.ScenarioError)
    assert isinstance(err, skyhop.SkyhopError)
    assert err.file == str(TINY)
    assert err.key == "links.ar.rate"
    assert err.message
    assert str(err) == f"{err.file}: {err.key}: {err.message}"


def test_simulation_error_in_python_is_a_runtime_error():
    import skyhop

    with pytest.raises(RuntimeError) as info:
        skyhop.run(TINY, set={"run.event_budget": 100})
    assert isinstance(info.value, skyhop.SimulationError)
    assert info.value.kind == "event_budget"
