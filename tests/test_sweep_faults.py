"""Fault injection for sweeps: damaged, empty, swapped and stray parts, a killed
worker, a killed parent. Each ends with the rows of an uninterrupted sweep after
--resume, or with one clear line (exit 2) and the earlier results.parquet intact."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from conftest import DATA, TINY, assert_one_line_error, skyhop_cli, without_progress

SLOW = DATA / "sweep_slow.toml"
GRID = ["--grid", "links.ar.per=0,0.05", "--runs", "2", "--seed", "3", "--jobs", "2"]
P0S3, P1S4 = "p00000-s00000000000000000003.json", "p00001-s00000000000000000004.json"


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """A finished, uninterrupted sweep (2 points x 2 seeds)."""
    out = tmp_path_factory.mktemp("ref") / "sw"
    proc = skyhop_cli("sweep", TINY, *GRID, "--out", out)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture
def damaged(reference, tmp_path) -> Path:
    out = tmp_path / "sw"
    shutil.copytree(reference, out)
    return out


def _resume(out: Path) -> subprocess.CompletedProcess:
    return skyhop_cli("sweep", TINY, *GRID, "--out", out, "--resume")


def _same_rows(out: Path, reference: Path) -> None:
    pd.testing.assert_frame_equal(
        pd.read_parquet(out / "results.parquet"), pd.read_parquet(reference / "results.parquet")
    )
    assert (out / "summary.json").read_bytes() == (reference / "summary.json").read_bytes()


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _tamper(path: Path) -> None:
    doc = json.loads(path.read_text())
    doc["rows"][0]["goodput_bps"] += 1.0
    path.write_text(json.dumps(doc))


def _legacy(path: Path) -> None:
    path.write_text(json.dumps(json.loads(path.read_text())["rows"]))


FAULTS = {
    "truncated": _truncate,
    "empty-list": lambda p: p.write_text("[]"),
    "empty-object": lambda p: p.write_text("{}"),
    "empty-file": lambda p: p.write_bytes(b""),
    "swapped": lambda p: shutil.copyfile(p.parent / P0S3, p),
    "tampered": _tamper,
    "older-format": _legacy,
}


@pytest.mark.parametrize("fault", FAULTS)
def test_bad_part_is_redone_with_a_warning(reference, damaged, fault):
    part = damaged / "parts" / P1S4
    FAULTS[fault](part)
    proc = _resume(damaged)
    assert proc.returncode == 0, proc.stderr
    warnings = [ln for ln in proc.stderr.splitlines() if ln.startswith("skyhop: warning: ")]
    assert len(warnings) == 1 and "redone" in warnings[0], proc.stderr
    if fault != "older-format":
        assert str(part) in warnings[0]
    assert "3 already done, 1 run now" in proc.stdout
    _same_rows(damaged, reference)
    doc = json.loads(part.read_text())
    assert (doc["point"], doc["seed"]) == (1, 4)


def test_stray_files_are_ignored_with_a_warning(reference, damaged):
    parts = damaged / "parts"
    shutil.copyfile(parts / P0S3, parts / "p00007-s00000000000000000003.json")
    (parts / "notes.txt").write_text("mine")
    proc = _resume(damaged)
    assert proc.returncode == 0, proc.stderr
    warnings = [ln for ln in proc.stderr.splitlines() if ln.startswith("skyhop: warning: ")]
    assert len(warnings) == 2 and all("ignored" in w for w in warnings), proc.stderr
    assert "4 already done" in proc.stdout
    _same_rows(damaged, reference)
    assert (parts / "notes.txt").read_text() == "mine"


def test_missing_part_is_rerun(reference, damaged):
    (damaged / "parts" / P0S3).unlink()
    proc = _resume(damaged)
    assert proc.returncode == 0, proc.stderr
    assert without_progress(proc.stderr) == []  # no warning: nothing was wrong
    assert "4/4 runs (100 %)" in proc.stderr and "3 already done" in proc.stderr
    _same_rows(damaged, reference)


def test_part_that_cannot_be_redone_is_refused_and_results_kept(damaged):
    before = (damaged / "results.parquet").read_bytes()
    part = damaged / "parts" / P1S4
    part.unlink()
    part.mkdir()  # cannot be read, nor removed by skyhop
    (part / "x").write_text("")
    line = assert_one_line_error(_resume(damaged), str(part), "cannot be removed")
    assert "Traceback" not in line
    assert (damaged / "results.parquet").read_bytes() == before


@pytest.mark.parametrize("content", ["{trunc", "[]", ""])
def test_damaged_manifest_is_refused_and_results_kept(damaged, content):
    before = (damaged / "results.parquet").read_bytes()
    (damaged / "sweep.json").write_text(content)
    assert_one_line_error(_resume(damaged), "sweep.json", "cannot be resumed")
    assert (damaged / "results.parquet").read_bytes() == before


def test_results_are_replaced_only_by_a_complete_assembly(reference, damaged):
    # a resume that fails in a run leaves the earlier tables as they were
    before = (damaged / "results.parquet").read_bytes()
    (damaged / "parts" / P1S4).write_text("[]")
    proc = skyhop_cli(
        "sweep", TINY, *GRID, "--out", damaged, "--resume", "--set", "run.event_budget=100"
    )
    assert proc.returncode == 2  # another scenario: refused before any run
    assert (damaged / "results.parquet").read_bytes() == before


# ---------------------------------------------------------------------------
# killed processes (Linux: children found through /proc)

needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
SLOW_ARGS = ["--grid", "links.ab.per=0,0.01", "--runs", "5", "--jobs", "2"]


def _children(pid: int) -> list[int]:
    kids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(entry.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _workers(pid: int) -> list[int]:
    found = []
    for kid in _children(pid):
        try:
            cmd = Path(f"/proc/{kid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in cmd:
            found.append(kid)
    return found


def _start_slow_sweep(out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "skyhop", "sweep", str(SLOW), *SLOW_ARGS, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(cond, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.01)
    pytest.fail("timed out")


@pytest.fixture(scope="module")
def slow_reference(tmp_path_factory) -> pd.DataFrame:
    out = tmp_path_factory.mktemp("slowref") / "sw"
    proc = skyhop_cli("sweep", SLOW, *SLOW_ARGS, "--out", out)
    assert proc.returncode == 0, proc.stderr
    return pd.read_parquet(out / "results.parquet")


def _resume_slow(out: Path, reference: pd.DataFrame) -> None:
    proc = skyhop_cli("sweep", SLOW, *SLOW_ARGS, "--out", out, "--resume")
    assert proc.returncode == 0, proc.stderr
    pd.testing.assert_frame_equal(pd.read_parquet(out / "results.parquet"), reference)


@needs_proc
def test_killed_worker_is_one_line_with_a_resume_hint(tmp_path, slow_reference):
    out = tmp_path / "sw"
    proc = _start_slow_sweep(out)
    try:
        _wait_for(lambda: len(_workers(proc.pid)) == 2 and len(list(out.glob("parts/*.json"))))
        os.kill(_workers(proc.pid)[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 2, err
    lines = without_progress(err)
    assert len(lines) == 1 and lines[0].startswith("skyhop: error: "), err
    assert "worker" in lines[0] and "died" in lines[0] and "--resume" in lines[0]
    # the cause is named when the pool still knows it (best effort: usually SIGKILL)
    assert "signal SIG" in lines[0] or "terminated abruptly" in lines[0]
    assert not list(out.glob("parts/*.tmp"))
    _resume_slow(out, slow_reference)


@needs_proc
def test_workers_exit_when_the_parent_is_killed(tmp_path, slow_reference):
    out = tmp_path / "sw"
    proc = _start_slow_sweep(out)
    try:
        _wait_for(lambda: len(_workers(proc.pid)) == 2)
        workers = _workers(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.05)
        assert not any(_alive(w) for w in workers), "workers outlived their parent"
    finally:
        for w in _workers(proc.pid):
            os.kill(w, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
    _resume_slow(out, slow_reference)


def _tracker(pid: int) -> int | None:
    for kid in _children(pid):
        try:
            if b"resource_tracker" in Path(f"/proc/{kid}/cmdline").read_bytes():
                return kid
        except OSError:
            continue
    return None


@needs_proc
def test_a_killed_resource_tracker_prints_no_traceback(tmp_path, slow_reference):
    # issue 39, hostile 12: multiprocessing's helper process killed mid-sweep
    out = tmp_path / "sw"
    proc = _start_slow_sweep(out)
    try:
        _wait_for(lambda: _tracker(proc.pid) is not None and len(_workers(proc.pid)) == 2)
        os.kill(_tracker(proc.pid), signal.SIGKILL)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "KeyError" not in err, err
    for line in without_progress(err):
        assert line.startswith("skyhop: warning: resource_tracker"), err
    pd.testing.assert_frame_equal(pd.read_parquet(out / "results.parquet"), slow_reference)


@needs_proc
def test_a_killed_sweep_leaves_no_python_warning(tmp_path):
    # issue 39, hostile 12: after a SIGKILL, nothing but skyhop's own lines
    out = tmp_path / "sw"
    err_path = tmp_path / "err.txt"
    with open(err_path, "w") as err_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "skyhop", "sweep", str(SLOW), *SLOW_ARGS, "--out", str(out)],
            stdout=subprocess.DEVNULL,
            stderr=err_file,
        )
        try:
            _wait_for(lambda: _tracker(proc.pid) is not None and len(_workers(proc.pid)) == 2)
            tracker = _tracker(proc.pid)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
            _wait_for(lambda: not _alive(tracker), timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
    text = err_path.read_text()
    assert "Warning" not in text and "leaked" not in text, text
