"""Sweeps on Ray (--backend ray): the same rows as the local backend for the
same seeds, the same part store (a sweep killed on Ray resumes locally with
nothing lost or duplicated), a worker killed mid-task rerun by Ray, a failing
run reported once while the sweep goes on, an unreachable cluster refused at once."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import pandas as pd
import pytest

from conftest import DATA, TINY, assert_one_line_error, skyhop_cli

ray = pytest.importorskip(
    "ray", reason="ray is not importable: pip install 'skyhop[ray]' to run the Ray backend tests"
)
psutil = pytest.importorskip("psutil", reason="psutil (a dependency of ray) is not importable")

import skyhop  # noqa: E402
from skyhop.errors import SweepError  # noqa: E402
from skyhop.sweep import SweepOptions, run_sweep  # noqa: E402

SLOW = DATA / "sweep_slow.toml"
GRID = {"links.ar.per": [0, 0.05]}


@pytest.fixture(scope="module")
def local_ray():
    """A local two-CPU Ray instance shared by the in-process tests."""
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_gives_the_rows_of_the_local_backend(local_ray, tmp_path):
    kw = {"runs": 3, "seed": 5, "trace": True}
    a = skyhop.sweep(TINY, GRID, out=tmp_path / "ray", backend="ray", **kw)
    b = skyhop.sweep(TINY, GRID, out=tmp_path / "local", backend="local", **kw)
    assert len(a) == 2 * 3
    pd.testing.assert_frame_equal(a, b)
    for name in ("summary.json", "sweep.json"):
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    # the parts are byte for byte those a local worker writes
    for part in sorted((tmp_path / "local" / "parts").iterdir()):
        assert (tmp_path / "ray" / "parts" / part.name).read_bytes() == part.read_bytes()
    ta, tb = pd.read_parquet(a.attrs["traces"]), pd.read_parquet(b.attrs["traces"])
    assert len(ta) > 0
    pd.testing.assert_frame_equal(ta, tb)


def test_a_sweep_over_the_transport_gives_the_rows_of_the_local_backend(local_ray, tmp_path):
    # TCP and QUIC (quinn in virtual time) on the same lossy path, on Ray
    # and locally (a flow swept over its transport names no TCP variant).
    scn = tmp_path / "geo.toml"
    scn.write_text(
        '[nodes.A]\n[nodes.B]\n[links.l]\nbetween = ["A", "B"]\nrate = "5 Mbps"\n'
        'delay = "250 ms"\nper = 0.01\n[flows.ftp]\nfrom = "A"\nto = "B"\nsize = "300 kB"\n'
    )
    grid = {"flows.ftp.transport": ["tcp", "quic"]}
    kw = {"runs": 2, "seed": 3}
    a = skyhop.sweep(scn, grid, out=tmp_path / "ray", backend="ray", **kw)
    b = skyhop.sweep(scn, grid, out=tmp_path / "local", backend="local", **kw)
    assert sorted(set(a["flows.ftp.transport"])) == ["quic", "tcp"]
    pd.testing.assert_frame_equal(a, b)
    for part in sorted((tmp_path / "local" / "parts").iterdir()):
        assert (tmp_path / "ray" / "parts" / part.name).read_bytes() == part.read_bytes()


def test_a_failing_run_is_reported_once_and_the_sweep_goes_on(local_ray, tmp_path):
    warnings: list[str] = []
    out = tmp_path / "sw"
    with pytest.raises(SweepError) as e:
        run_sweep(
            TINY,
            {"run.event_budget": [10, 2_000_000_000]},
            out=out,
            runs=2,
            options=SweepOptions(backend="ray"),
            on_warning=warnings.append,
        )
    failed = [w for w in warnings if w.startswith("run failed")]
    assert len(failed) == 2, warnings  # point 0, seeds 1 and 2: once each
    assert all("point 0 (run.event_budget=10)" in w and "event budget" in w for w in failed)
    assert {"seed 1", "seed 2"} == {w.split("), ")[1].split(":")[0] for w in failed}
    assert "2 of 4 runs failed" in str(e.value)
    # the good point's runs are all stored
    assert sorted(p.name for p in (out / "parts").glob("*.json")) == [
        "p00001-s00000000000000000001.json",
        "p00001-s00000000000000000002.json",
    ]


def _ray_task_processes() -> list:
    found = []
    for p in psutil.process_iter(["cmdline"]):
        cmd = p.info.get("cmdline") or []
        if cmd and cmd[0].startswith("ray::skyhop_run"):
            found.append(p)
    return found


def test_a_worker_killed_mid_task_has_its_task_rerun(local_ray, tmp_path):
    grid = {"links.ab.per": [0, 0.01]}
    reference = skyhop.sweep(SLOW, grid, runs=3, out=tmp_path / "local")
    result: dict = {}

    def go() -> None:
        try:
            result["df"] = skyhop.sweep(SLOW, grid, runs=3, out=tmp_path / "ray", backend="ray")
        except BaseException as e:  # pragma: no cover - reported below
            result["error"] = e

    t = threading.Thread(target=go)
    t.start()
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and t.is_alive() and time.monotonic() < deadline:
        for p in _ray_task_processes():
            try:
                p.send_signal(signal.SIGKILL)
                killed = p.pid
                break
            except psutil.Error:
                continue
        time.sleep(0.005)
    t.join(timeout=300)
    assert killed is not None, "no Ray task process was seen running"
    assert "error" not in result, result.get("error")
    pd.testing.assert_frame_equal(result["df"], reference)


def _descendants(pid: int) -> list:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def test_sweep_killed_on_ray_resumes_locally_without_loss_or_duplicates(tmp_path):
    args = ["--grid", "links.ab.per=0,0.01", "--runs", "8", "--seed", "2"]
    ref = tmp_path / "ref"
    proc = skyhop_cli("sweep", SLOW, *args, "--out", ref)
    assert proc.returncode == 0, proc.stderr
    total = 16

    out = tmp_path / "sw"
    env = dict(os.environ)
    env.pop("RAY_ADDRESS", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "skyhop",
            "sweep",
            str(SLOW),
            *args,
            "--out",
            str(out),
            "--backend",
            "ray",
            "--jobs",
            "2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and proc.poll() is None:
            if len(list(out.glob("parts/*.json"))) >= 2:
                break
            time.sleep(0.01)
        family = _descendants(proc.pid)
        os.killpg(proc.pid, signal.SIGKILL)
        for p in family:  # Ray's own processes, wherever they went
            try:
                p.kill()
            except psutil.Error:
                pass
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    saved = len(list(out.glob("parts/*.json")))
    assert 2 <= saved < total, f"{saved} parts when the sweep was killed"
    assert not (out / "results.parquet").exists()

    proc = skyhop_cli("sweep", SLOW, *args, "--out", out, "--resume")
    assert proc.returncode == 0, proc.stderr
    assert f"({saved} already done, {total - saved} run now)" in proc.stdout
    got = pd.read_parquet(out / "results.parquet")
    assert not got.duplicated(["point", "seed", "flow"]).any()
    pd.testing.assert_frame_equal(got, pd.read_parquet(ref / "results.parquet"))
    assert (out / "summary.json").read_bytes() == (ref / "summary.json").read_bytes()


def test_a_local_sweep_resumes_on_ray(local_ray, tmp_path):
    ref = tmp_path / "ref"
    reference = skyhop.sweep(TINY, GRID, runs=2, out=ref)
    out = tmp_path / "sw"
    shutil.copytree(ref, out)
    (out / "parts" / "p00001-s00000000000000000002.json").unlink()
    (out / "results.parquet").unlink()
    info = run_sweep(TINY, GRID, runs=2, out=out, resume=True, options=SweepOptions(backend="ray"))
    assert info["skipped"] == 3 and info["done"] == 1
    pd.testing.assert_frame_equal(pd.read_parquet(out / "results.parquet"), reference)


def test_unreachable_ray_address_is_one_line_and_keeps_the_store(tmp_path):
    out = tmp_path / "sw"
    proc = skyhop_cli("sweep", TINY, "--grid", "links.ar.per=0,0.05", "--runs", "2", "--out", out)
    assert proc.returncode == 0, proc.stderr
    parts = sorted(p.name for p in (out / "parts").iterdir())
    (out / "parts" / parts[0]).unlink()
    before = {p.name: p.read_bytes() for p in (out / "parts").iterdir()}
    results = (out / "results.parquet").read_bytes()

    proc = skyhop_cli(
        "sweep", TINY, "--grid", "links.ar.per=0,0.05", "--runs", "2", "--out", out,
        "--resume", "--backend", "ray", "--address", "127.0.0.1:1",
        timeout=60,
    )  # fmt: skip
    assert_one_line_error(proc, "cannot reach the Ray cluster at 127.0.0.1:1", "No run")
    assert {p.name: p.read_bytes() for p in (out / "parts").iterdir()} == before
    assert (out / "results.parquet").read_bytes() == results


def test_address_without_ray_backend_is_a_usage_error(tmp_path):
    proc = skyhop_cli(
        "sweep", TINY, "--grid", "links.ar.per=0", "--out", tmp_path / "x",
        "--address", "127.0.0.1:6379",
    )  # fmt: skip
    assert_one_line_error(proc, "--address needs --backend ray")
    with pytest.raises(skyhop.ScenarioError, match="backend"):
        skyhop.sweep(TINY, GRID, out=tmp_path / "y", backend="cluster")


def test_experiment_accepts_the_ray_backend_options(tmp_path):
    proc = skyhop_cli(
        "experiment", "E1", "--runs", "1", "--out", tmp_path / "e1",
        "--backend", "ray", "--address", "127.0.0.1:1", timeout=60,
    )  # fmt: skip
    assert_one_line_error(proc, "cannot reach the Ray cluster")
    # nothing was run: the experiment's sub-sweeps are absent or empty
    assert not list((tmp_path / "e1").glob("sweeps/*/parts/*.json"))
