"""`skyhop sweep --trace`: one traces.parquet with the swept columns, stored
per (point, seed) in the verified part store, resumable."""

from __future__ import annotations

import pandas as pd
import pytest

import skyhop
from conftest import TINY, skyhop_cli

GRID = {"links.ar.per": [0.0, 0.05]}


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    out = tmp_path_factory.mktemp("tr") / "sw"
    df = skyhop.sweep(TINY, GRID, runs=2, seed=3, out=out, trace=True)
    return out, df


def test_traces_table_has_the_swept_columns_and_every_run(traced):
    out, df = traced
    assert df.attrs["traces"] == str(out / "traces.parquet")
    tr = pd.read_parquet(out / "traces.parquet")
    assert list(tr.columns) == [
        "point", "links.ar.per", "run", "seed", "flow", "leg", "series", "t_s", "value",
    ]  # fmt: skip
    assert set(map(tuple, tr[["point", "seed"]].drop_duplicates().values.tolist())) == {
        (0, 3), (0, 4), (1, 3), (1, 4),
    }  # fmt: skip
    assert (tr.loc[tr["point"] == 1, "links.ar.per"] == 0.05).all()
    assert set(tr["run"]) == {0, 1}
    assert {"cwnd", "srtt"} <= set(tr["series"])


def test_traces_equal_those_of_a_single_run(traced):
    out, _ = traced
    tr = pd.read_parquet(out / "traces.parquet")
    res = skyhop.run(TINY, runs=1, seed=4, trace=True, set={"links.ar.per": 0.05})
    one = res.trace_frame()
    got = tr[(tr["point"] == 1) & (tr["seed"] == 4)]
    assert len(got) == len(one) > 0
    assert got["value"].tolist() == pytest.approx(one["value"].tolist(), nan_ok=True)
    assert got["t_s"].tolist() == one["t_s"].tolist()
    assert got["series"].tolist() == one["series"].tolist()


def test_a_missing_or_altered_traces_file_is_redone_on_resume(traced, tmp_path):
    import shutil

    src, _ = traced
    out = tmp_path / "sw"
    shutil.copytree(src, out)
    ref = pd.read_parquet(src / "traces.parquet")
    traces = sorted((out / "parts").glob("*.traces.parquet"))
    assert len(traces) == 4
    traces[0].unlink()
    traces[1].write_bytes(traces[1].read_bytes()[:-10] + b"0123456789")
    (out / "traces.parquet").unlink()
    with pytest.warns(RuntimeWarning, match="traces file"):
        skyhop.sweep(TINY, GRID, runs=2, seed=3, out=out, trace=True, resume=True)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "traces.parquet"), ref)


def test_resume_with_a_different_trace_setting_is_refused(traced, tmp_path):
    import shutil

    src, _ = traced
    out = tmp_path / "sw"
    shutil.copytree(src, out)
    proc = skyhop_cli(
        "sweep", TINY, "--grid", "links.ar.per=0.0,0.05", "--runs", "2", "--seed", "3",
        "--out", out, "--resume",
    )  # fmt: skip
    assert proc.returncode == 2
    assert "--trace differs" in proc.stderr


def test_trace_needs_an_output_directory():
    with pytest.raises(skyhop.ScenarioError, match="trace=True needs out"):
        skyhop.sweep(TINY, GRID, runs=1, trace=True)
