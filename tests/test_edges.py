"""Edges of the Python API and of the output: argument checks, non-ASCII names,
unwritable output paths, Ctrl-C, and no exit status 3 from user input."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

import skyhop
from conftest import DATA, TINY, assert_one_line_error, skyhop_cli

SLOW = DATA / "sweep_slow.toml"


# ---------------------------------------------------------------------------
# keyword arguments of the public API


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"jobs": -2}, "jobs"),
        ({"jobs": 0}, "jobs"),
        ({"jobs": "2"}, "jobs"),
        ({"jobs": 1.5}, "jobs"),
        ({"jobs": True}, "jobs"),
        ({"runs": True}, "runs"),
        ({"runs": 1.5}, "runs"),
        ({"runs": "3"}, "runs"),
        ({"seed": False}, "seed"),
        ({"seed": -1}, "seed"),
        ({"seed": 2.0}, "seed"),
        ({"trace": 1}, "trace"),
        ({"trace": "yes"}, "trace"),
        ({"set": 5}, "set"),
        ({"set": [1]}, "set"),
        ({"set": {1: 2}}, "set"),
    ],
)
def test_run_checks_every_keyword(kwargs, key):
    with pytest.raises(skyhop.ScenarioError) as info:
        skyhop.run(TINY, **kwargs)
    assert info.value.key == key, info.value
    assert key in str(info.value)


def test_run_checks_the_scenario_argument():
    with pytest.raises(skyhop.ScenarioError) as info:
        skyhop.run(42)
    assert info.value.key == "scenario"


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"jobs": -2}, "jobs"),
        ({"jobs": "2"}, "jobs"),
        ({"jobs": 1.5}, "jobs"),
        ({"runs": True}, "runs"),
        ({"runs": 0}, "runs"),
        ({"seed": "1"}, "seed"),
        ({"resume": "yes"}, "resume"),
        ({"resume": 1}, "resume"),
        ({"set": 3}, "set"),
        ({"out": 3}, "out"),
    ],
)
def test_sweep_checks_every_keyword(tmp_path, kwargs, key):
    kwargs.setdefault("out", tmp_path / "o")
    with pytest.raises(skyhop.ScenarioError) as info:
        skyhop.sweep(TINY, {"links.ar.per": [0]}, **kwargs)
    assert info.value.key == key, info.value
    assert not (tmp_path / "o" / "parts").exists() or key == "out"


@pytest.mark.parametrize("grid", [5, [1, 2], {3: [1]}])
def test_sweep_checks_the_grid(tmp_path, grid):
    with pytest.raises(skyhop.ScenarioError) as info:
        skyhop.sweep(TINY, grid, out=tmp_path / "o")
    assert info.value.key == "grid"


def test_bench_checks_its_arguments():
    from skyhop.bench import bench

    with pytest.raises(skyhop.ScenarioError) as info:
        bench([str(TINY)], repeat=0)
    assert info.value.key == "repeat"
    with pytest.raises(skyhop.ScenarioError) as info:
        bench(str(TINY))
    assert info.value.key == "paths"


# ---------------------------------------------------------------------------
# non-ASCII names on an ASCII terminal

UNICODE = """
[run]
duration = "30 s"
[nodes."Zürich"]
[nodes."東京"]
[links."lien-é"]
between = ["Zürich", "東京"]
rate = "1 Mbps"
delay = "10 ms"
queue = 50
[flows."flüsse"]
from = "Zürich"
to = "東京"
tcp = "newreno"
size = "50 kB"
"""


@pytest.fixture
def unicode_scenario(tmp_path):
    path = tmp_path / "unicode.toml"
    path.write_text(UNICODE, encoding="utf-8")
    return path


@pytest.mark.parametrize("encoding", ["ascii", "utf-8"])
def test_non_ascii_names_on_any_terminal(unicode_scenario, encoding):
    env = {**os.environ, "PYTHONIOENCODING": encoding, "LC_ALL": "C"}
    proc = skyhop_cli("run", unicode_scenario, "--runs", "2", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert set(doc["runs"][0]["flows"]) == {"flüsse"}
    assert proc.stdout.isascii()  # the same bytes on every terminal

    table = skyhop_cli("run", unicode_scenario, "--runs", "2", env=env)
    assert table.returncode == 0, table.stderr
    assert "Traceback" not in table.stderr
    assert ("flüsse" if encoding == "utf-8" else "fl\\xfcsse") in table.stdout


# ---------------------------------------------------------------------------
# --out checked before anything runs


def _budget_failing():
    # would fail in the simulation (exit 2, "budget"): an --out error must come first
    return ["--set", "run.event_budget=100"]


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_run_out_unwritable_is_found_before_running(tmp_path, suffix):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    out = blocker / "sub" / f"r{suffix}"
    proc = skyhop_cli("run", TINY, *_budget_failing(), "--out", out)
    line = assert_one_line_error(proc, str(out), "--out")
    assert "budget" not in line


def test_run_out_that_is_a_directory(tmp_path):
    out = tmp_path / "d.parquet"
    out.mkdir()
    assert_one_line_error(skyhop_cli("run", TINY, "--out", out), str(out), "--out")


def test_sweep_out_unwritable_is_found_before_running(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    out = blocker / "sweep"
    proc = skyhop_cli("sweep", TINY, "--grid", "links.ar.per=0", *_budget_failing(), "--out", out)
    line = assert_one_line_error(proc, str(out))
    assert "budget" not in line
    with pytest.raises(skyhop.ScenarioError):
        skyhop.sweep(TINY, {"links.ar.per": [0]}, out=out, set={"run.event_budget": 100})


# Run a command with `$0` (a folder) mounted read-only over itself, in a
# mount namespace of its own (nothing outside sees the mount); exit 99 if
# the folder can still be written.
_READ_ONLY_SH = (
    'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" || exit 98; '
    'touch "$0/probe" 2>/dev/null && exit 99; exec "$@"'
)


def _cli_with_read_only(folder, *args: str) -> subprocess.CompletedProcess:
    """`skyhop ARGS` while `folder` cannot be written: its mode for a user;
    for root (CI), whom no mode stops, a read-only bind mount."""
    if os.geteuid() != 0:
        folder.chmod(0o500)
        try:
            return skyhop_cli(*args)
        finally:
            folder.chmod(0o700)
    if shutil.which("unshare") is None:
        pytest.skip("root, and no util-linux unshare to make a read-only bind mount")
    env = {k: v for k, v in os.environ.items() if k not in ("SKYHOP_DEBUG", "SKYHOP_PANIC_REPORT")}
    cmd = ["unshare", "--mount", "sh", "-c", _READ_ONLY_SH, str(folder)]
    probe = subprocess.run([*cmd, "true"], capture_output=True, text=True)
    if probe.returncode == 98:
        pytest.skip(f"root, and no read-only bind mount can be made here: {probe.stderr.strip()}")
    assert probe.returncode == 0, (probe.returncode, probe.stderr)
    return subprocess.run(
        [*cmd, sys.executable, "-m", "skyhop", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_run_out_read_only_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    proc = _cli_with_read_only(folder, "run", TINY, *_budget_failing(), "--out", folder / "r.csv")
    assert proc.returncode != 99, "the folder could be written"
    assert "budget" not in assert_one_line_error(proc, "--out")
    assert not (folder / "r.csv").exists()


# ---------------------------------------------------------------------------
# Ctrl-C


@pytest.mark.parametrize(
    ("jobs", "sig"),
    [("1", signal.SIGINT), ("2", signal.SIGINT), ("2", signal.SIGTERM)],
    ids=["1-SIGINT", "2-SIGINT", "2-SIGTERM"],
)
def test_ctrl_c_during_run_exits_130_at_once(jobs, sig):
    proc = subprocess.Popen(
        [sys.executable, "-m", "skyhop", "run", str(SLOW), "--runs", "500", "--jobs", jobs],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(2.0)
        assert proc.poll() is None
        proc.send_signal(sig)
        t0 = time.monotonic()
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert time.monotonic() - t0 < 5
    assert err.splitlines() == ["skyhop: interrupted"]
    assert out == ""


# ---------------------------------------------------------------------------
# exit status 3 is for bugs only


@pytest.mark.parametrize(
    "args",
    [
        ["run", "{tmp}"],
        ["run", "{tmp}/nope.toml", "--json"],
        ["run", str(TINY), "--out", "{tmp}"],
        ["run", str(TINY), "--out", "{tmp}/x.parquet/"],
        ["run", str(TINY), "--set", "=", "--json"],
        ["run", str(TINY), "--set", "links..rate=1", "--json"],
        ["run", str(TINY), "--set", "links.ar.per=[[[", "--json"],
        ["run", str(TINY), "--seed", "18446744073709551615", "--runs", "2"],
        ["sweep", str(TINY), "--grid", "links.ar.per=0", "--out", "{tmp}/f/sw"],
        ["sweep", str(TINY), "--grid", "=", "--out", "{tmp}/s2"],
        ["sweep", str(TINY), "--grid", "links.ar.per=,", "--out", "{tmp}/s3"],
        ["sweep", str(TINY), "--grid", "links.ar.per=0", "--grid", "links.ar.per=1"],
        ["experiment", "E99"],
        ["bench", "{tmp}/nope.toml"],
    ],
)
def test_user_input_never_exits_3(tmp_path, args):
    (tmp_path / "f").write_text("a file, not a folder")
    proc = skyhop_cli(*[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert proc.returncode in (0, 2), (proc.returncode, proc.stderr)
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    if proc.returncode == 2:
        assert len(proc.stderr.splitlines()) == 1, proc.stderr
