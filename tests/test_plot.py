"""`skyhop plot`: a sweep's metric against its swept keys with 95 % CIs, and
the CDF of a result-table column (web response times) of a sweep or a run."""

from __future__ import annotations

import json

import pytest

import skyhop
from conftest import TINY, assert_one_line_error
from skyhop.experiments.common import scenario_path
from skyhop.plot import cdf_series, sweep_series

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
    assert_one_line_error(proc, "one of the arguments --metric --cdf --trace is required")


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


# ---------------------------------------------------------------------------
# issue 39, item 6: the swept key with several values on x, quantities as
# numbers with their unit, the report's labels; item 2: n per point


@pytest.fixture(scope="module")
def size_sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("plot") / "sizes"
    skyhop.sweep(
        TINY,
        {"links.rb.queue": [50], "flows.ftp.size": ["100 kB", "300 kB", "1 MB"]},
        set={"links.ar.per": 0.05, "run.duration": "8 s"},
        runs=3,
        out=out,
        jobs=2,
    )
    return out


def test_plot_picks_the_varied_key_and_spaces_sizes_as_numbers(size_sweep, tmp_path):
    data = sweep_series(size_sweep, "goodput_bps")
    assert data["x"] == "flows.ftp.size"  # not the single-valued queue
    assert data["categories"] is None and data["x_unit"] == "kB"
    xs = sorted(x for pts in data["series"].values() for x, _ in pts)
    assert xs == [100.0, 300.0, 1000.0]
    from skyhop.plot import sweep_figure

    sweep_figure(size_sweep, "goodput_bps", tmp_path / "g.svg")
    svg = (tmp_path / "g.svg").read_text()
    assert "goodput (Mb/s)" in svg and "transfer size (kB): flows.ftp.size" in svg
    assert "1e6" not in svg and "1e-6" not in svg


def test_unfinished_runs_are_lower_bounds_with_n_per_point(size_sweep, tmp_path):
    summary = json.loads((size_sweep / "summary.json").read_text())
    big = next(e for e in summary if e["set"]["flows.ftp.size"] == "1 MB")
    ct = big["summary"]["ftp"]["completion_time_s"]
    assert ct["unfinished"] == 3 - ct["n"] and ct["unfinished"] > 0
    small = next(e for e in summary if e["set"]["flows.ftp.size"] == "100 kB")
    assert small["summary"]["ftp"]["completion_time_s"]["unfinished"] == 0
    data = sweep_series(size_sweep, "completion_time_s")
    (pts,) = data["series"].values()
    st = dict(pts)[1000.0]
    active = big["summary"]["ftp"]["active_time_s"]["mean"]
    assert st["at_least"] == active and st["at_least"] >= (ct["mean"] or 0)
    from skyhop.plot import sweep_figure

    sweep_figure(size_sweep, "completion_time_s", tmp_path / "c.svg")
    svg = (tmp_path / "c.svg").read_text()
    assert "unfinished" in svg and "lower bound" in svg


def test_experiment_figures_mark_points_over_fewer_runs(tmp_path):
    from skyhop.figures import ci_legend, errorbar_series, figure, save_figure

    fig, ax = figure()
    full = {"mean": 4.0, "ci95": 0.5, "n": 20}
    fewer = {"mean": 3.0, "ci95": 0.4, "n": 13}
    errorbar_series(ax, [1, 2], {"a": [full, fewer]})
    ci_legend(ax, 20)
    title = ax.get_legend().get_title().get_text()
    assert "n = 20 runs per point" in title and "runs without a value left out" in title
    texts = [t.get_text() for t in ax.texts]
    assert texts == ["n = 13"]
    save_figure(fig, tmp_path / "f", formats=("svg",))


# ---------------------------------------------------------------------------
# issue 39, item 9: traces thinned, and drawn over time


def test_a_thinned_trace_and_its_plot(cli, tmp_path):
    out = tmp_path / "t.parquet"
    proc = cli(
        "run", TINY, "--trace-out", out, "--trace-every", "100ms",
        "--trace-series", "srtt,cwnd,queue",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    import pandas as pd

    df = pd.read_parquet(out)
    assert set(df["series"].str.rsplit(".", n=1).str[-1]) == {"srtt", "cwnd", "queue"}
    # one point per 100 ms at most, on multiples of it
    assert ((df["t_s"] * 10).round(9) % 1 == 0).all()
    assert df.groupby("series").size().max() <= 60 / 0.1 + 1
    full = cli("run", TINY, "--trace-out", tmp_path / "f.parquet")
    assert full.returncode == 0
    assert len(pd.read_parquet(tmp_path / "f.parquet")) > 5 * len(df)
    proc = cli("plot", out, "--trace", "srtt,queue", "--out", tmp_path / "tr.svg")
    assert proc.returncode == 0, proc.stderr
    svg = (tmp_path / "tr.svg").read_text()
    assert "smoothed RTT (ms)" in svg and "queue (packets)" in svg and "time (s)" in svg
    bad = cli("plot", out, "--trace", "rtt", "--out", tmp_path / "x.png")
    assert_one_line_error(bad, "--trace", "no traced 'rtt'", "srtt")
    bad = cli("run", TINY, "--trace-series", "rtt")
    assert_one_line_error(bad, "--trace-series", "unknown quantity")
    bad = cli("run", TINY, "--trace-every", "0s")
    assert_one_line_error(bad, "--trace-every")


def test_a_traced_sweep_plots_its_traces(cli, tmp_path):
    out = tmp_path / "sw"
    proc = cli(
        "sweep", TINY, "--grid", "links.ar.per=0,0.02", "--runs", "1", "--trace-every", "50ms",
        "--trace-series", "cwnd", "--out", out,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    from skyhop.plot import trace_series

    _, data = trace_series(out, ["cwnd"])
    assert len(data["cwnd"]) == 2  # one line per point
    manifest = json.loads((out / "sweep.json").read_text())
    assert manifest["trace"] == {"trace_every_s": 0.05, "trace_series": ["cwnd"]}
