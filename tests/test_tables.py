"""Result tables, handled generically: every list of records in a run result
is a table, in Results, in the run document and in a sweep's store, whatever
its name. A table no application reports today (``chunks``) goes through
all of them without a line of Python knowing its name."""

from __future__ import annotations

import copy
import hashlib
import json

import pandas as pd
import pytest

import skyhop
from conftest import TINY
from skyhop.api import Results
from skyhop.cli import run_document
from skyhop.experiments.common import scenario_path
from skyhop.sweep import store
from skyhop.sweep.grid import build_points, parse_grid
from skyhop.tables import assemble, blocks_of, index_column

PROXY = {"flows.ftp.proxies": ["R"]}


def _with_chunks(result: dict) -> dict:
    """A run result as a new application would report it: a flow table
    ``chunks`` (with a field named like its index column's default) and a
    run-level table ``beams``."""
    result = copy.deepcopy(result)
    for i, flow in enumerate(result["flows"].values()):
        flow["chunks"] = [
            {"bytes": 1000 * (k + 1), "done_s": 0.5 * k + i, "late": k == 2} for k in range(3)
        ]
        flow["chunk_count"] = 3
    result["beams"] = [{"beam": "east", "load": 0.25}, {"beam": "west", "load": None}]
    return result


@pytest.fixture(scope="module")
def tiny_runs():
    return skyhop.run(TINY, runs=2, seed=5, set=PROXY).runs


def test_index_column_names():
    assert index_column("legs") == "leg"
    assert index_column("objects") == "object"
    assert index_column("pages") == "page"
    assert index_column("proxies") == "proxy"
    assert index_column("links", {"link", "dir"}) == "link_index"
    assert index_column("chunks", {"chunk"}) == "chunk_index"
    assert index_column("mass") == "mass_index"
    assert index_column("data") == "data_index"


def test_results_tables_of_a_new_application(tiny_runs):
    runs = [_with_chunks(r) for r in tiny_runs]
    res = Results({}, runs)
    tables = res.tables()
    assert set(tables) == {"legs", "chunks", "links", "proxies", "beams"}
    chunks = tables["chunks"]
    assert list(chunks.columns) == ["seed", "flow", "chunk", "bytes", "done_s", "late"]
    assert len(chunks) == 2 * 3
    assert list(chunks["seed"]) == [5, 5, 5, 6, 6, 6]
    assert list(chunks["chunk"]) == [0, 1, 2, 0, 1, 2]
    assert list(chunks["bytes"]) == [1000, 2000, 3000] * 2
    pd.testing.assert_frame_equal(res.chunks_frame(), chunks)
    pd.testing.assert_frame_equal(res.table_frame("chunks"), chunks)
    # a run-level table: the head and the index, no flow
    beams = tables["beams"]
    assert list(beams.columns) == ["seed", "beam_index", "beam", "load"]
    assert beams["load"].dtype == "float64" and beams["load"].isna().sum() == 2
    # the new metric is a metric like any other
    assert res.summary()["ftp"]["chunk_count"] == {"mean": 3.0, "ci95": 0.0, "n": 2}
    with pytest.raises(skyhop.TableError, match=r"no table 'frames'.*tables: beams, chunks"):
        res.frames_frame()
    with pytest.raises(AttributeError):
        res.not_a_table  # noqa: B018


def test_proxies_and_legs_reach_the_tables(tiny_runs):
    res = Results({}, tiny_runs)
    proxies = res.proxies_frame()
    assert list(proxies.columns[:4]) == ["seed", "proxy", "flow", "node"]
    assert list(proxies["node"]) == ["R", "R"]
    for seed, run in zip((5, 6), tiny_runs, strict=True):
        row = proxies[proxies["seed"] == seed].iloc[0]
        assert row["max_occupancy_bytes"] == run["proxies"][0]["max_occupancy_bytes"]
        assert row["mean_occupancy_bytes"] == run["proxies"][0]["mean_occupancy_bytes"]
        assert row["cache_bytes"] == run["proxies"][0]["cache_bytes"]
    legs = res.legs_frame()
    assert list(legs[["seed", "leg"]].itertuples(index=False, name=None)) == [
        (5, 0),
        (5, 1),
        (6, 0),
        (6, 1),
    ]
    assert list(legs["from"]) == ["A", "R", "A", "R"]


def test_run_document_carries_every_table(tiny_runs):
    runs = [_with_chunks(r) for r in tiny_runs]
    doc = run_document({}, runs, trace=False)
    flow = doc["runs"][0]["flows"]["ftp"]
    assert flow["chunks"] == runs[0]["flows"]["ftp"]["chunks"]
    assert flow["legs"] == runs[0]["flows"]["ftp"]["legs"]
    assert doc["summary"]["ftp"]["chunk_count"]["mean"] == 3


def test_blocks_keep_the_order_and_skip_empty_lists(tiny_runs):
    run = _with_chunks(tiny_runs[0])
    run["flows"]["ftp"]["empty"] = []
    run["warnings"] = ["a warning is a string, not a record"]
    names = [(b["table"], b["flow"]) for b in blocks_of(run)]
    assert names == [
        ("legs", "ftp"),
        ("chunks", "ftp"),
        ("proxies", None),
        ("links", None),
        ("beams", None),
    ]
    rows = assemble([({"seed": 1}, b) for b in blocks_of(run)])
    assert "empty" not in rows and "warnings" not in rows


def _store_sweep(tmp_path, monkeypatch, grid, seeds, transform=_with_chunks):
    """A sweep through the part store, in this process: each (point, seed)
    run by the engine (then given new tables), stored, and assembled."""
    real = store.run_one
    monkeypatch.setattr(store, "run_one", lambda *a: transform(real(*a)))
    parsed = parse_grid(grid)
    points = build_points(TINY, [f"flows.ftp.proxies={json.dumps(['R'])}"], parsed)
    out = tmp_path / "sw"
    (out / store.PARTS).mkdir(parents=True)
    for p in points:
        for s in seeds:
            doc, traces = store.compute_part(p, s, s - seeds[0])
            store.store_part(out / store.PARTS, p.index, s, doc, traces)
    warnings: list[str] = []
    written = store.assemble(out, points, seeds, [p for p, _ in parsed], False, warnings.append)
    return out, points, written, warnings


def test_sweep_store_assembles_a_new_table(tmp_path, monkeypatch):
    grid = {"links.ar.per": [0.0, 0.05], "tcp.delayed_ack": [True, False]}
    out, _, written, warnings = _store_sweep(tmp_path, monkeypatch, grid, [3, 4])
    assert warnings == []
    assert set(written) == {"legs", "chunks", "links", "proxies", "beams"}
    chunks = pd.read_parquet(out / "chunks.parquet")
    assert list(chunks.columns) == [
        "point",
        "links.ar.per",
        "tcp.delayed_ack",
        "seed",
        "flow",
        "chunk",
        "bytes",
        "done_s",
        "late",
    ]
    assert len(chunks) == 4 * 2 * 3
    assert chunks["tcp.delayed_ack"].dtype == bool
    assert chunks["links.ar.per"].dtype == "float64"
    first = chunks[(chunks["point"] == 1) & (chunks["seed"] == 4)]
    assert list(first["chunk"]) == [0, 1, 2]
    assert list(first["tcp.delayed_ack"]) == [False] * 3
    assert list(first["links.ar.per"]) == [0.0] * 3
    beams = pd.read_parquet(out / "beams.parquet")
    head = ["point", "links.ar.per", "tcp.delayed_ack", "seed", "beam_index"]
    assert list(beams.columns[:5]) == head
    assert len(beams) == 4 * 2 * 2
    proxies = pd.read_parquet(out / "proxies.parquet")
    assert len(proxies) == 4 * 2 and (proxies["max_occupancy_bytes"] > 0).all()
    # the part carries the tables under their checksum
    part = json.loads((out / "parts" / store.part_name(0, 3)).read_text())
    assert [b["table"] for b in part["tables"]] == ["legs", "chunks", "proxies", "links", "beams"]
    results = pd.read_parquet(out / "results.parquet")
    assert "chunk_count" in results.columns and "chunks" not in results.columns


def test_a_part_with_an_edited_table_is_not_trusted(tmp_path, monkeypatch):
    out, points, _, _ = _store_sweep(tmp_path, monkeypatch, {"links.ar.per": [0.0]}, [1])
    path = out / "parts" / store.part_name(0, 1)
    doc = json.loads(path.read_text())
    doc["tables"][1]["records"][0]["bytes"] += 1
    path.write_text(json.dumps(doc))
    with pytest.raises(store.BadPart, match="result tables do not match"):
        store.read_part(path, points[0], 1, points[0].flows)


def _as_earlier_part(path, point) -> None:
    """Rewrite a part as skyhop wrote it before result tables were kept
    whole: no ``tables``; the objects and pages of web sessions as rows
    (head, flow, for pages the page's index, the record) under ``web``."""
    doc = json.loads(path.read_text())
    head = {"point": doc["point"], **point.columns, "seed": doc["seed"]}
    web: dict[str, list] = {}
    for b in doc.pop("tables"):
        if b["table"] in ("objects", "pages"):
            for i, rec in enumerate(b["records"]):
                index = {"page": i} if b["table"] == "pages" else {}
                web.setdefault(b["table"], []).append({**head, "flow": b["flow"], **index, **rec})
    del doc["tables_sha256"]
    doc["web"] = web
    text = json.dumps([web], sort_keys=True, allow_nan=True, separators=(",", ":"))
    doc["web_sha256"] = hashlib.sha256(text.encode()).hexdigest()
    # an earlier skyhop wrote swept booleans as strings
    for row in doc["rows"]:
        for k, v in point.columns.items():
            if isinstance(v, bool):
                row[k] = "true" if v else "false"
    text = json.dumps(doc["rows"], sort_keys=True, allow_nan=True, separators=(",", ":"))
    doc["rows_sha256"] = hashlib.sha256(text.encode()).hexdigest()
    path.write_text(json.dumps(doc))


def test_a_sweep_stored_by_an_earlier_skyhop_resumes(tmp_path):
    grid = {"flows.web.web.http": ["1.0", "1.1"], "tcp.delayed_ack": [True, False]}
    out = tmp_path / "web"

    def sweep(**kw):
        return skyhop.sweep(
            scenario_path("web_geo.toml"),
            grid,
            set={"flows.web.web.pages": 2},
            runs=2,
            out=out,
            **kw,
        )

    fresh = sweep(jobs=2)
    tables = {t: pd.read_parquet(out / f"{t}.parquet") for t in ("objects", "pages", "legs")}
    points = build_points(
        scenario_path("web_geo.toml"), ["flows.web.web.pages=2"], parse_grid(grid)
    )
    for p in points:
        for s in (1, 2):
            _as_earlier_part(out / "parts" / store.part_name(p.index, s), p)
    # one run is missing: it is run again, with its tables
    (out / "parts" / store.part_name(3, 2)).unlink()
    with pytest.warns(RuntimeWarning, match=r"7 run\(s\) were stored by an earlier skyhop"):
        again = sweep(resume=True, jobs=1)
    pd.testing.assert_frame_equal(fresh, again)
    for t in ("objects", "pages"):
        pd.testing.assert_frame_equal(tables[t], pd.read_parquet(out / f"{t}.parquet"))
    legs = pd.read_parquet(out / "legs.parquet")
    pd.testing.assert_frame_equal(
        legs,
        tables["legs"][(tables["legs"]["point"] == 3) & (tables["legs"]["seed"] == 2)].reset_index(
            drop=True
        ),
    )


def test_a_sweep_summary_sizes_the_proxies(tmp_path, monkeypatch, capsys):
    """summary.json, summary.parquet and the sweep's table carry each split
    proxy's maximum and mean occupancy per flow and proxy node, mean ± CI over
    the runs, equal to what proxies.parquet holds."""
    from skyhop._terminal import print_sweep_table

    grid = {"links.ar.per": [0.0, 0.05]}
    out, _, _, _ = _store_sweep(tmp_path, monkeypatch, grid, [3, 4], transform=lambda r: r)
    proxies = pd.read_parquet(out / "proxies.parquet")
    doc = json.loads((out / "summary.json").read_text())
    summary = pd.read_parquet(out / "summary.parquet")
    for entry in doc:
        rows = proxies[proxies["point"] == entry["point"]]
        ftp = entry["summary"]["ftp"]
        for field in ("max_occupancy_bytes", "mean_occupancy_bytes"):
            st = ftp[f"proxy.R.{field}"]
            assert st["n"] == 2
            assert st["mean"] == pytest.approx(rows[field].mean())
            assert st["ci95"] is not None and st["ci95"] >= 0
            row = summary[
                (summary["point"] == entry["point"]) & (summary["metric"] == f"proxy.R.{field}")
            ]
            assert row["mean"].tolist() == [pytest.approx(st["mean"])]
        assert ftp["proxy.R.max_occupancy_bytes"]["mean"] > 0
    print_sweep_table("sw", doc)
    text = capsys.readouterr().out
    assert "R max occupancy (kB)" in text and "R mean occupancy (kB)" in text
    # a sweep without proxies shows no such column
    for entry in doc:
        entry["summary"]["ftp"] = {
            k: v for k, v in entry["summary"]["ftp"].items() if not k.startswith("proxy.")
        }
    print_sweep_table("sw", doc)
    assert "occupancy" not in capsys.readouterr().out


@pytest.mark.parametrize("reader", ["file", "results"])
def test_parquet_is_read_from_a_source_arrow_owns(tmp_path, monkeypatch, reader):
    """Arrow may release the source of a read on one of its own threads after
    the read returns; a Python file object released there while the
    interpreter exits aborts the process (SIGABRT, "terminate called without
    an active exception"). So skyhop's Parquet reads hand pandas an Arrow
    file (a path would become a Python file object under pandas < 3, a
    BytesIO is one), and read the same table as pandas does from the path."""
    import pyarrow as pa

    from skyhop.documents import read_results_table
    from skyhop.tables import read_parquet

    path = tmp_path / "t.parquet"
    df = pd.DataFrame({"seed": [1, 2], "flow": ["a", "b"], "goodput_bps": [1.5, None]})
    df.to_parquet(path, index=False)
    seen = []
    real = pd.read_parquet

    def spy(source, *args, **kwargs):
        seen.append(source)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(pd, "read_parquet", spy)
    got = read_parquet(path) if reader == "file" else read_results_table(path)
    assert len(seen) == 1 and isinstance(seen[0], pa.NativeFile), seen
    pd.testing.assert_frame_equal(got, real(path))
