"""`skyhop plot`: a sweep's metric against its swept keys with 95 % CIs, and
the CDF of a result-table column (web response times) of a sweep or a run."""

from __future__ import annotations

import json

import pytest

import skyhop
from conftest import TINY, assert_one_line_error
from skyhop.experiments.common import scenario_path
from skyhop.figures import cdf_series, sweep_series

WEB = scenario_path("web_geo.toml")


@pytest.fixture(scope="module")
def grid_sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("plot") / "sw"
    skyhop.sweep(
        TINY,
        {"links.ar.per": [0.0, 0.02, 0.05], "flows.ftp.tcp": ["newreno", "sack"]},
        runs=3,
        out=out,
        jobs=2,
    )
    return out


@pytest.fixture(scope="module")
def web_sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("plot") / "web"
    skyhop.sweep(
        WEB,
        {"flows.web.web.http": ["1.0", "1.1"]},
        set={"flows.web.web.pages": 4},
        runs=2,
        out=out,
        jobs=2,
    )
    return out


def _png(path) -> None:
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", path


def test_metric_against_a_swept_path_one_line_per_other_combination(grid_sweep):
    data = sweep_series(grid_sweep, "goodput_bps")
    assert data["x"] == "links.ar.per" and data["categories"] is None and data["runs"] == 3
    assert set(data["series"]) == {"tcp = newreno", "tcp = sack"}
    summary = json.loads((grid_sweep / "summary.json").read_text())
    for e in summary:
        label = f"tcp = {e['set']['flows.ftp.tcp']}"
        (st,) = [st for x, st in data["series"][label] if x == e["set"]["links.ar.per"]]
        assert st == e["summary"]["ftp"]["goodput_bps"]
        assert st["n"] == 3 and st["ci95"] is not None
    # a categorical x: the variants, one line per loss rate
    by_tcp = sweep_series(grid_sweep, "goodput_bps", x="flows.ftp.tcp")
    assert by_tcp["categories"] == ["tcp = newreno", "tcp = sack"]
    assert len(by_tcp["series"]) == 3


@pytest.mark.parametrize(
    ("out", "files"), [("g.png", ["g.png"]), ("g", ["g.png", "g.pdf", "g.svg"])]
)
def test_cli_plot_writes_the_named_format_or_all_three(cli, grid_sweep, tmp_path, out, files):
    proc = cli("plot", grid_sweep, "--metric", "goodput_bps", "--out", tmp_path / out)
    assert proc.returncode == 0, proc.stderr
    for f in files:
        assert (tmp_path / f).stat().st_size > 1000
    _png(tmp_path / "g.png")
    if len(files) == 3:
        assert b"<svg" in (tmp_path / "g.svg").read_bytes()[:500]
        assert (tmp_path / "g.pdf").read_bytes()[:4] == b"%PDF"


def test_plot_is_deterministic(cli, grid_sweep, tmp_path):
    for name in ("a.svg", "b.svg"):
        proc = cli(
            "plot",
            grid_sweep,
            "--metric",
            "timeouts",
            "--x",
            "flows.ftp.tcp",
            "--out",
            tmp_path / name,
        )
        assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--metric", "goodput"], ("--metric", "unknown metric 'goodput'", "goodput_bps")),
        (
            ["--metric", "goodput_bps", "--x", "links.rb.per"],
            ("--x", "'links.rb.per' is not a swept path", "links.ar.per"),
        ),
        (["--metric", "goodput_bps", "--flow", "web"], ("--flow", "unknown flow 'web'", "ftp")),
        (
            ["--cdf", "response_time_s"],
            ("--cdf", "no table has a column 'response_time_s'", "legs"),
        ),
        (["--cdf", "bytes_sent", "--table", "chunks"], ("--table", "no table 'chunks'")),
        (["--cdf", "bytes_sent", "--x", "links.ar.per"], ("--x goes with --metric",)),
        (["--metric", "goodput_bps", "--table", "legs"], ("--table goes with --cdf",)),
    ],
)
def test_bad_plot_requests_are_one_line_errors(cli, grid_sweep, tmp_path, args, words):
    proc = cli("plot", grid_sweep, *args, "--out", tmp_path / "x.png")
    assert_one_line_error(proc, *words)
    assert not (tmp_path / "x.png").exists()


def test_plot_of_what_is_not_a_sweep(cli, tmp_path):
    proc = cli("plot", tmp_path / "none", "--metric", "goodput_bps", "--out", tmp_path / "x.png")
    assert_one_line_error(proc, "no such folder")
    (tmp_path / "empty").mkdir()
    proc = cli("plot", tmp_path / "empty", "--metric", "goodput_bps", "--out", tmp_path / "x.png")
    assert_one_line_error(proc, "not a sweep folder")
    (tmp_path / "exp" / "sweeps" / "time_WG").mkdir(parents=True)
    (tmp_path / "exp" / "sweeps" / "time_WG" / "sweep.json").write_text("{}")
    proc = cli("plot", tmp_path / "exp", "--metric", "goodput_bps", "--out", tmp_path / "x.png")
    assert_one_line_error(proc, "an experiment folder", "sweeps/time_WG")
    proc = cli("plot", tmp_path / "exp", "--out", tmp_path / "x.png")
    assert_one_line_error(proc, "one of the arguments --metric --cdf is required")


def test_response_time_cdf_of_a_sweep(cli, web_sweep, tmp_path):
    import pandas as pd

    title, data = cdf_series(web_sweep, "response_time_s")
    assert set(data) == {"objects", "pages"}
    assert "2 runs per point" in title
    pages = pd.read_parquet(web_sweep / "pages.parquet")
    for http in ("1.0", "1.1"):
        values, missing = data["pages"][f"http = {http}"]
        rows = pages[pages["flows.web.web.http"] == http]["response_time_s"]
        assert len(values) == rows.notna().sum() and missing == rows.isna().sum()
        assert list(values) == sorted(rows.dropna())
    only = cdf_series(web_sweep, "response_time_s", tables=["pages"])[1]
    assert set(only) == {"pages"}
    proc = cli("plot", web_sweep, "--cdf", "response_time_s", "--out", tmp_path / "cdf.png")
    assert proc.returncode == 0, proc.stderr
    _png(tmp_path / "cdf.png")


def test_response_time_cdf_of_a_run_document(cli, tmp_path):
    doc = tmp_path / "run.json"
    proc = cli("run", WEB, "--runs", "2", "--set", "flows.web.web.pages=3", "--json")
    assert proc.returncode == 0, proc.stderr
    doc.write_text(proc.stdout)
    runs = json.loads(proc.stdout)["runs"]
    _, data = cdf_series(doc, "response_time_s", tables=["objects"], flow="web")
    values, _ = data["objects"]["flow web"]
    expected = sorted(
        o["response_time_s"]
        for r in runs
        for o in r["flows"]["web"]["objects"]
        if o["response_time_s"] is not None
    )
    assert list(values) == expected
    proc = cli(
        "plot", doc, "--cdf", "response_time_s", "--flow", "web", "--out", tmp_path / "c.svg"
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "c.svg").stat().st_size > 1000
    proc = cli("plot", doc, "--metric", "goodput_bps", "--out", tmp_path / "m.png")
    assert_one_line_error(proc, "a file (a run document) has no grid", "--cdf")
    (tmp_path / "bad.json").write_text("[1, 2]")
    proc = cli(
        "plot", tmp_path / "bad.json", "--cdf", "response_time_s", "--out", tmp_path / "m.png"
    )
    assert_one_line_error(proc, "bad.json", "not a sweep folder nor the JSON document")
