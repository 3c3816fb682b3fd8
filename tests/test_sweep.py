"""`skyhop sweep` and `skyhop.sweep`: grids, tables, interruption and --resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

import skyhop
from conftest import DATA, TINY, assert_one_line_error

SLOW = DATA / "sweep_slow.toml"


def test_sweep_tables(cli, tmp_path):
    out = tmp_path / "sw"
    proc = cli(
        "sweep",
        TINY,
        "--grid",
        "links.ar.per=0,0.05",
        "--grid",
        "flows.ftp.tcp=newreno,sack",
        "--runs",
        "2",
        "--seed",
        "3",
        "--out",
        out,
        "--jobs",
        "2",
    )
    assert proc.returncode == 0, proc.stderr
    df = pd.read_parquet(out / "results.parquet")
    assert len(df) == 4 * 2  # points x seeds x one flow
    assert list(df.columns[:5]) == ["point", "links.ar.per", "flows.ftp.tcp", "seed", "flow"]
    assert df["links.ar.per"].dtype.kind == "f"
    assert sorted(set(zip(df["links.ar.per"], df["flows.ftp.tcp"], strict=False))) == [
        (0.0, "newreno"),
        (0.0, "sack"),
        (0.05, "newreno"),
        (0.05, "sack"),
    ]
    assert sorted(df["seed"].unique()) == [3, 4]
    assert not df.duplicated(["point", "seed", "flow"]).any()

    # each row equals a plain run of the same point and seed
    row = df[(df["point"] == 3) & (df["seed"] == 4)].iloc[0]
    single = skyhop.run(TINY, seed=4, set=["links.ar.per=0.05", "flows.ftp.tcp=sack"])
    assert row["goodput_bps"] == single.runs[0]["flows"]["ftp"]["goodput_bps"]

    summary = pd.read_parquet(out / "summary.parquet")
    assert set(summary.columns) >= {"point", "flow", "metric", "mean", "ci95", "n"}
    doc = json.loads((out / "summary.json").read_text())
    assert [p["point"] for p in doc] == [0, 1, 2, 3]
    assert doc[3]["set"] == {"links.ar.per": 0.05, "flows.ftp.tcp": "sack"}
    good = doc[3]["summary"]["ftp"]["goodput_bps"]
    vals = df[df["point"] == 3]["goodput_bps"]
    assert good["n"] == 2 and good["mean"] == pytest.approx(vals.mean())


TYPED_GRID = {
    "tcp.delayed_ack": [True, False],  # boolean
    "links.ar.queue": [20, 50],  # integer
    "links.ar.per": [0, 0.05],  # number (an integer given is still a number)
    "links.rb.delay": ["125 ms", "0.2 s"],  # a quantity: a string
    "flows.ftp.proxies": [[], ["R"]],  # an array: its TOML text
}
TYPED_CLI = [
    "tcp.delayed_ack=true,false",
    "links.ar.queue=20,50",
    "links.ar.per=0,5e-2",
    'links.rb.delay="125 ms","0.2 s"',
    'flows.ftp.proxies=[],[ "R" ]',
]


def test_swept_columns_keep_the_type_of_their_key(cli, tmp_path):
    a = skyhop.sweep(TINY, TYPED_GRID, runs=1, out=tmp_path / "py", jobs=2)
    args = [x for g in TYPED_CLI for x in ("--grid", g)]
    proc = cli("sweep", TINY, *args, "--runs", "1", "--out", tmp_path / "cli", "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    for out in (tmp_path / "py", tmp_path / "cli"):
        for table in ("results", "summary", "legs", "proxies"):
            df = pd.read_parquet(out / f"{table}.parquet")
            assert df["tcp.delayed_ack"].dtype == bool, (out, table)
            assert df["links.ar.queue"].dtype == "int64", (out, table)
            assert df["links.ar.per"].dtype == "float64", (out, table)
            assert pd.api.types.is_string_dtype(df["links.rb.delay"]), (out, table)
            assert pd.api.types.is_string_dtype(df["flows.ftp.proxies"]), (out, table)
        doc = json.loads((out / "summary.json").read_text())
        assert doc[0]["set"] == {
            "tcp.delayed_ack": True,
            "links.ar.queue": 20,
            "links.ar.per": 0.0,
            "links.rb.delay": "125 ms",
            "flows.ftp.proxies": "[]",
        }
        assert doc[-1]["set"]["flows.ftp.proxies"] == '["R"]'
    b = pd.read_parquet(tmp_path / "cli" / "results.parquet")
    pd.testing.assert_frame_equal(a, b)
    # the engine ran what the columns say
    row = a[(a["point"] == 16)].iloc[0]  # the last path varies fastest
    assert not row["tcp.delayed_ack"]
    assert row["flows.ftp.proxies"] == "[]"
    single = skyhop.run(
        TINY, set={**{k: v[0] for k, v in TYPED_GRID.items()}, "tcp.delayed_ack": False}
    )
    assert row["goodput_bps"] == single.runs[0]["flows"]["ftp"]["goodput_bps"]


def test_traced_sweep_keeps_boolean_columns(tmp_path):
    skyhop.sweep(TINY, {"tcp.delayed_ack": [True, False]}, runs=1, out=tmp_path / "t", trace=True)
    traces = pd.read_parquet(tmp_path / "t" / "traces.parquet")
    assert traces["tcp.delayed_ack"].dtype == bool
    assert set(traces["tcp.delayed_ack"]) == {True, False}


def test_python_sweep_returns_a_dataframe(tmp_path):
    df = skyhop.sweep(TINY, {"links.ar.per": [0.0, 0.05]}, runs=2, jobs=1)
    assert len(df) == 4 and set(df["links.ar.per"]) == {0.0, 0.05}
    again = skyhop.sweep(TINY, ["links.ar.per=0,0.05"], runs=2, out=tmp_path / "o", jobs=2)
    pd.testing.assert_frame_equal(df, again)


def test_existing_sweep_needs_resume_and_the_same_grid(cli, tmp_path):
    args = ["sweep", TINY, "--grid", "links.ar.per=0,0.05", "--runs", "1", "--out", tmp_path]
    assert cli(*args).returncode == 0
    again = cli(*args)
    assert again.returncode == 2 and "--resume" in again.stderr
    assert len(again.stderr.splitlines()) == 1
    resumed = cli(*args, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "2 already done" in resumed.stdout
    other = cli(*args[:3], "links.ar.per=0,0.01", *args[4:], "--resume")
    assert other.returncode == 2 and "grid" in other.stderr


@pytest.mark.parametrize(
    ("grid", "key"),
    [
        pytest.param("links.nope.per=0,0.1", "links.nope", id="unknown-path"),
        pytest.param("links.ar.rate=1 Mbps,0 Mbps", "links.ar.rate", id="bad-value"),
        pytest.param("links.ar.per", "links.ar.per", id="no-values"),
    ],
)
def test_bad_grid_is_one_line_exit_2(cli, tmp_path, grid, key):
    proc = cli("sweep", TINY, "--grid", grid, "--runs", "1", "--out", tmp_path / "o")
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("skyhop: error: ") and key in lines[0]
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_interrupted_sweep_resumes_without_losing_or_duplicating_rows(tmp_path, sig):
    out = tmp_path / "sw"
    points, runs = 3, 6
    total = points * runs
    args = [
        sys.executable,
        "-m",
        "skyhop",
        "sweep",
        str(SLOW),
        "--grid",
        "links.ab.per=0,0.001,0.01",
        "--runs",
        str(runs),
        "--out",
        str(out),
        "--jobs",
        "2",
    ]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    parts = out / "parts"
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if parts.is_dir() and len(list(parts.glob("*.json"))) >= 2:
                break
            time.sleep(0.01)
        assert proc.poll() is None, "the sweep finished before it could be interrupted"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "--resume" in err and "Traceback" not in err
    before = {p.name: p.stat().st_mtime_ns for p in parts.glob("*.json")}
    assert 2 <= len(before) < total, "interrupt came too late to test resuming"
    # the count said is the parts on disk (also those finished as it stopped)
    assert f"interrupted: {len(before)} of {total} runs saved" in err, err
    assert not (out / "results.parquet").exists()
    # no worker survives the interruption to write more parts
    time.sleep(0.5)
    assert {p.name for p in parts.glob("*.json")} == set(before)

    resumed = subprocess.run([*args, "--resume"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(before)} already done" in resumed.stdout
    after = {p.name: p.stat().st_mtime_ns for p in parts.glob("*.json")}
    assert len(after) == total
    assert all(after[name] == mtime for name, mtime in before.items()), "finished parts rerun"
    assert not list(parts.glob("*.tmp"))

    df = pd.read_parquet(out / "results.parquet")
    assert len(df) == total  # one flow
    assert not df.duplicated(["point", "seed", "flow"]).any()
    assert sorted(set(zip(df["point"], df["seed"], strict=False))) == [
        (p, s) for p in range(points) for s in range(1, runs + 1)
    ]
    # resumed rows are the rows an uninterrupted sweep gives
    fresh = skyhop.sweep(SLOW, {"links.ab.per": [0, 0.001, 0.01]}, runs=runs, jobs=2)
    pd.testing.assert_frame_equal(df, fresh)


def test_sweep_worker_does_not_rerun_the_cli(tmp_path):
    # spawned workers import the parent's __main__; `python -m skyhop` must guard it
    env = dict(os.environ)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "skyhop",
            "sweep",
            str(TINY),
            "--grid",
            "links.ar.per=0",
            "--runs",
            "2",
            "--jobs",
            "2",
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("sweep:") == 1


def test_python_sweep_from_a_script_without_main_guard(tmp_path):
    # spawned workers must not re-run the caller's script (no __name__ guard here)
    script = tmp_path / "plain_script.py"
    script.write_text(
        "import skyhop\n"
        f"df = skyhop.sweep({str(TINY)!r}, {{'links.ar.per': [0, 0.05]}}, runs=2, jobs=2)\n"
        "print('rows', len(df))\n"
    )
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["rows 4"]


def test_a_sweep_of_web_sessions_keeps_every_object_and_page(tmp_path):
    from skyhop.experiments.common import scenario_path

    out = tmp_path / "web"

    def sweep(**kw):
        return skyhop.sweep(
            scenario_path("web_geo.toml"),
            {"flows.web.web.http": ["1.0", "1.1"]},
            set={"flows.web.web.pages": 3},
            runs=2,
            out=out,
            **kw,
        )

    df = sweep(jobs=2)
    objs = pd.read_parquet(out / "objects.parquet")
    pages = pd.read_parquet(out / "pages.parquet")
    assert len(pages) == 2 * 2 * 3
    # One object row per completed object, and the same pages under both
    # versions (same seeds, same page model draws).
    assert len(objs) == df["objects_completed"].sum()
    per = objs.groupby(["flows.web.web.http", "seed"])["reply_bytes"].sum()
    assert per[("1.0", 1)] == per[("1.1", 1)]
    for (http, seed), g in objs.groupby(["flows.web.web.http", "seed"]):
        row = df[(df["flows.web.web.http"] == http) & (df["seed"] == seed)].iloc[0]
        assert g["response_time_s"].mean() == pytest.approx(row["object_response_mean_s"])
    # Resuming re-reads the parts (checked) and writes the same tables.
    sweep(resume=True, jobs=1)
    pd.testing.assert_frame_equal(objs, pd.read_parquet(out / "objects.parquet"))

    # An edited result table is caught on resume, and its run is redone.
    part = next((out / "parts").glob("p00000-s*.json"))
    doc = json.loads(part.read_text())
    (block,) = [b for b in doc["tables"] if b["table"] == "objects"]
    block["records"][0]["reply_bytes"] += 1
    part.write_text(json.dumps(doc))
    with pytest.warns(RuntimeWarning, match="result tables do not match"):
        sweep(resume=True, jobs=1)
    pd.testing.assert_frame_equal(objs, pd.read_parquet(out / "objects.parquet"))


# ---------------------------------------------------------------------------
# issue 39, item 5: every point validated with everything applied; cases


def test_a_set_whose_required_partner_is_swept_is_accepted(cli, tmp_path):
    out = tmp_path / "sw"
    proc = cli(
        "sweep", TINY, "--set", 'flows.ftp.proxies=["R"]', "--set", "nodes.R.proxy.policy=buffers",
        "--set", 'nodes.R.proxy.recv_buffer="200 kB"',
        "--grid", 'nodes.R.proxy.send_buffer="50 kB","100 kB"', "--runs", "1", "--out", out,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert [e["set"]["nodes.R.proxy.send_buffer"] for e in summary] == ["50 kB", "100 kB"]
    # a --set wrong at one point only is named with that point
    proc = cli(
        "sweep", TINY, "--set", "links.ar.per=0.5",
        "--grid", "links.ar.per=0,2", "--runs", "1", "--out", tmp_path / "bad",
    )  # fmt: skip
    assert_one_line_error(proc, "links.ar.per", "(grid point links.ar.per=2)")


def test_cases_sweep_paired_settings_as_one(cli, tmp_path):
    out = tmp_path / "cases"
    proc = cli(
        "sweep", TINY,
        "--case", 'e2e:flows.ftp.proxies=[],flows.ftp.legs=["sack"]',
        "--case", 'split:flows.ftp.proxies=["R"],flows.ftp.legs=["sack","cubic"]',
        "--grid", "links.ar.per=0,0.02", "--runs", "2", "--out", out,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert [(e["set"]["case"], e["set"]["links.ar.per"]) for e in summary] == [
        ("e2e", 0.0), ("e2e", 0.02), ("split", 0.0), ("split", 0.02),
    ]  # fmt: skip
    legs = pd.read_parquet(out / "legs.parquet")
    per_case = legs.groupby("case")["leg"].max().to_dict()
    assert per_case == {"e2e": 0, "split": 1}
    assert "case" in proc.stdout
    # resuming with other cases is refused
    proc = cli(
        "sweep", TINY, "--case", 'x:flows.ftp.proxies=["R"],flows.ftp.legs=["sack","sack"]',
        "--grid", "links.ar.per=0,0.02", "--runs", "2", "--out", out, "--resume",
    )  # fmt: skip
    assert_one_line_error(proc, "--resume")
    for bad, words in [
        ("nocolon", ["--case", "expected NAME:PATH=VALUE"]),
        ("a:links.ar.per=0.1", ["--case", "which --grid sweeps"]),
    ]:
        proc = cli(
            "sweep", TINY, "--case", bad, "--grid", "links.ar.per=0", "--out", tmp_path / "b"
        )
        assert_one_line_error(proc, *words)


def test_the_sweep_table_fits_with_short_unique_headers(cli, tmp_path):
    # item 7: long swept paths become their shortest distinct tails, with a legend
    out = tmp_path / "wide"
    proc = cli(
        "sweep", TINY, "--set", 'flows.ftp.proxies=["R"]', "--set", "nodes.R.proxy.policy=buffers",
        "--grid", 'nodes.R.proxy.recv_buffer="100 kB","200 kB"',
        "--grid", 'nodes.R.proxy.send_buffer="50 kB","100 kB"', "--runs", "1", "--out", out,
        env={**os.environ, "COLUMNS": "120"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    table = [line for line in proc.stdout.splitlines() if not line.startswith("sweep: ")]
    assert max(len(line) for line in table) <= 120
    assert "nodes.R.proxy.…" not in proc.stdout and "…" not in proc.stdout
    header = "\n".join(table[:8])
    assert "recv_buffer" in header and "send_buffer" in header
    assert "recv_buffer = nodes.R.proxy.recv_buffer" in proc.stdout
