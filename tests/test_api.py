"""The Python facade: skyhop.run, Results, errors, statistics."""

from __future__ import annotations

import pickle

import pytest

import skyhop
from conftest import DATA, TINY
from skyhop.stats import ci95, summarize_values

TWO_FLOWS = DATA / "two_flows.toml"


def tiny_dict() -> dict:
    import tomllib

    return tomllib.loads(TINY.read_text())


def test_public_names():
    assert set(skyhop.__all__) >= {
        "run",
        "sweep",
        "Results",
        "SkyhopError",
        "ScenarioError",
        "SimulationError",
        "load_scenario",
        "__version__",
    }
    for name in skyhop.__all__:
        assert hasattr(skyhop, name), name


def test_exception_hierarchy():
    assert issubclass(skyhop.ScenarioError, skyhop.SkyhopError)
    assert issubclass(skyhop.ScenarioError, ValueError)
    assert issubclass(skyhop.SimulationError, skyhop.SkyhopError)
    assert issubclass(skyhop.SimulationError, RuntimeError)
    assert not issubclass(skyhop.SimulationError, ValueError)


def test_exceptions_survive_pickling():
    e = pickle.loads(pickle.dumps(skyhop.ScenarioError("f.toml", "links.x.rate", "bad unit")))
    assert (e.file, e.key, e.message) == ("f.toml", "links.x.rate", "bad unit")
    assert str(e) == "f.toml: links.x.rate: bad unit"
    s = pickle.loads(pickle.dumps(skyhop.SimulationError("boom", "event_budget")))
    assert (s.message, s.kind, str(s)) == ("boom", "event_budget", "boom")


def test_run_from_a_dict_equals_run_from_the_file():
    from_file = skyhop.run(TINY, runs=2, seed=4)
    from_dict = skyhop.run(tiny_dict(), runs=2, seed=4)
    assert from_dict.scenario == from_file.scenario
    assert from_dict.runs == from_file.runs


def test_dict_scenario_errors_name_the_dict_and_key():
    d = tiny_dict()
    d["links"]["ar"]["colour"] = "red"
    with pytest.raises(skyhop.ScenarioError) as info:
        skyhop.run(d)
    assert info.value.file == "<dict>"
    assert info.value.key == "links.ar.colour"


def test_set_accepts_a_dict_of_python_values():
    as_dict = skyhop.run(TINY, seed=3, set={"flows.ftp.tcp": "sack", "links.ar.per": 0.05})
    as_strings = skyhop.run(TINY, seed=3, set=["flows.ftp.tcp=sack", "links.ar.per=0.05"])
    assert as_dict.runs == as_strings.runs
    assert as_dict.scenario["flows"]["ftp"]["tcp"] == "sack"


def test_results_summary_and_frame():
    res = skyhop.run(TWO_FLOWS, runs=3, seed=1)
    assert len(res) == 3 and res.seeds == [1, 2, 3]
    summary = res.summary()
    assert set(summary) == {"file", "bulk"}
    stats = summary["file"]["goodput_bps"]
    values = [r["flows"]["file"]["goodput_bps"] for r in res.runs]
    assert stats["n"] == 3
    assert stats["mean"] == pytest.approx(sum(values) / 3)
    assert stats["ci95"] == pytest.approx(ci95(values))

    df = res.to_pandas()
    assert len(df) == 6
    assert list(df.columns[:2]) == ["seed", "flow"]
    assert "legs" not in df.columns
    assert df["completion_time_s"].dtype.kind == "f"  # bulk rows are NaN, not objects

    sf = res.summary_frame()
    assert sf.loc[("file", "goodput_bps"), "n"] == 3


def test_runs_default_to_the_scenario():
    res = skyhop.run(TWO_FLOWS)  # run.runs = 3, run.seed = 5
    assert res.seeds == [5, 6, 7]


def test_threads_do_not_change_results():
    a = skyhop.run(TWO_FLOWS, runs=4, jobs=1)
    b = skyhop.run(TWO_FLOWS, runs=4, jobs=3)
    assert a.runs == b.runs


def test_numpy_style_integer_seed():
    np = pytest.importorskip("numpy")
    assert skyhop.run(TINY, seed=np.int64(7)).seeds == [7]


@pytest.mark.parametrize(("runs", "seed"), [(0, 1), (1, -1), (2, 2**64 - 1), ("3", 1)])
def test_bad_runs_or_seed_raise_scenario_error(runs, seed):
    with pytest.raises(skyhop.ScenarioError):
        skyhop.run(TINY, runs=runs, seed=seed)


def test_missing_file_raises_scenario_error(tmp_path):
    with pytest.raises(skyhop.ScenarioError) as info:
        skyhop.run(tmp_path / "nope.toml")
    assert info.value.file == str(tmp_path / "nope.toml")


def test_trace_frame():
    res = skyhop.run(TINY, trace=True, runs=2)
    name = sorted(res.runs[0]["traces"])[0]
    df = res.trace_frame(name)
    assert list(df.columns) == ["seed", "t_s", "value"]
    assert set(df["seed"]) == {1, 2}
    with pytest.raises(skyhop.TableError, match=r"no trace 'no\.such\.trace'") as e:
        res.trace_frame("no.such.trace")
    assert not isinstance(e.value, KeyError)


def test_ci95_matches_scipy():
    stats = pytest.importorskip("scipy.stats")

    xs = [3.0, 4.5, 2.25, 5.0, 4.0]
    lo, hi = stats.t.interval(0.95, len(xs) - 1, loc=sum(xs) / 5, scale=stats.sem(xs))
    assert ci95(xs) == pytest.approx((hi - lo) / 2, rel=1e-12)
    assert ci95([1.0]) is None
    assert ci95([2.0, 2.0, 2.0]) == 0.0


def test_summary_leaves_out_nulls():
    assert summarize_values([1.0, None, 3.0]) == {"mean": 2.0, "ci95": ci95([1.0, 3.0]), "n": 2}
    assert summarize_values([None, None]) == {"mean": None, "ci95": None, "n": 0}


def test_objects_and_pages_frames_give_web_distributions():
    from skyhop.experiments.common import scenario_path

    res = skyhop.run(
        scenario_path("web_geo.toml"), runs=2, set={"flows.web.web.pages": 4, "run.runs": 2}
    )
    objs = res.objects_frame()
    pages = res.pages_frame()
    assert set(objs["seed"]) == set(res.seeds)
    # seed, flow, the object's index in its flow's list, then its fields
    assert list(objs.columns[:4]) == ["seed", "flow", "object", "page"]
    assert (objs["response_time_s"] > 0.5).all()  # a GEO round trip at least
    assert len(pages) == 8 and list(pages.groupby("seed")["page"].max()) == [3, 3]
    # The frames agree with the flow summaries.
    for seed, g in objs.groupby("seed"):
        run = next(r for r in res.runs if r["seed"] == seed)
        flow = run["flows"]["web"]
        assert len(g) == flow["objects_completed"]
        assert g["response_time_s"].mean() == pytest.approx(flow["object_response_mean_s"])
        assert g["reply_bytes"].sum() == flow["bytes_delivered"]
    with pytest.raises(skyhop.TableError, match="no table 'objects' in these runs") as e:
        skyhop.run(TINY).objects_frame()
    assert not isinstance(e.value, KeyError)
    assert "tables: legs, links" in str(e.value)
