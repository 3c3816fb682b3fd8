"""The Python facade: load a scenario, run it over seeds, collect results."""

from __future__ import annotations

import json
import math
import operator
import os
import queue
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence

from . import _core
from .errors import ScenarioError, SimulationError, TableError
from .files import MAX_SCENARIO_BYTES, read_bounded
from .stats import flow_metrics, summarize

# `typing` and `pathlib` are left out of what `skyhop run` imports (they cost
# a few milliseconds of every start): typing for type checkers only.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    import pandas as pd

__all__ = ["Results", "Scenario", "describe", "load_scenario", "run"]

ScenarioSource = str | os.PathLike[str] | Mapping[str, object]
SetOverrides = Sequence[str] | Mapping[str, object] | None

_U64_MAX = 2**64 - 1


class Scenario:
    """A validated scenario, resolved (every default filled in).

    Attributes
    ----------
    file : str
        Where it came from (a path, or ``<dict>``).
    resolved : dict
        The resolved scenario, units as strings.
    json : str
        The same as JSON text.
    loaded : skyhop._core.Loaded
        The engine's plan of it, built once when it was loaded: every run,
        description and memory check of this scenario uses it.
    """

    __slots__ = ("file", "json", "loaded", "resolved")

    def __init__(self, file: str, loaded: Any) -> None:
        self.file = file
        self.loaded = loaded
        self.json: str = loaded.json
        self.resolved: dict[str, Any] = json.loads(self.json)

    @property
    def default_runs(self) -> int:
        """``run.runs`` of the scenario (1 when absent)."""
        return int(self.resolved.get("run", {}).get("runs", 1))

    @property
    def default_seed(self) -> int:
        """``run.seed`` of the scenario (1 when absent)."""
        return int(self.resolved.get("run", {}).get("seed", 1))

    def __repr__(self) -> str:
        return f"Scenario({self.file!r})"


def _toml_literal(value: Any) -> str:
    """A Python value as a TOML literal (for ``set={path: value}``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a valid TOML basic string
    if isinstance(value, Mapping):
        inner = ", ".join(f"{json.dumps(str(k))} = {_toml_literal(v)}" for k, v in value.items())
        return "{" + inner + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_literal(v) for v in value) + "]"
    raise ScenarioError("<set>", "", f"cannot express {value!r} as a scenario value")


def _set_strings(overrides: SetOverrides) -> list[str]:
    if overrides is None:
        return []
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, Mapping):
        for k in overrides:
            if not isinstance(k, str):
                raise ScenarioError(
                    "<options>", "set", f"keys must be dotted paths (str), got {k!r}"
                )
        return [f"{k}={_toml_literal(v)}" for k, v in overrides.items()]
    if isinstance(overrides, bytes) or not isinstance(overrides, Iterable):
        raise ScenarioError(
            "<options>",
            "set",
            f"expected a dict or a list of 'PATH=VALUE' strings, got {overrides!r}",
        )
    items = list(overrides)
    for item in items:
        if not isinstance(item, str):
            raise ScenarioError("<options>", "set", f"expected 'PATH=VALUE' strings, got {item!r}")
    return items


# ---------------------------------------------------------------------------
# validation of keyword arguments (the Python API and the command line share it)


def check_int(name: str, value: Any, *, minimum: int | None = None) -> int:
    """``value`` as an int (``bool`` and non-integral numbers refused), else ScenarioError."""
    if isinstance(value, bool):
        raise ScenarioError("<options>", name, f"must be an integer, got {value!r}")
    try:
        value = operator.index(value)
    except TypeError:
        raise ScenarioError("<options>", name, f"must be an integer, got {value!r}") from None
    if minimum is not None and value < minimum:
        raise ScenarioError("<options>", name, f"must be at least {minimum}, got {value}")
    return value


def check_jobs(jobs: Any) -> int | None:
    """``jobs``: None (all CPUs) or a positive integer."""
    return None if jobs is None else check_int("jobs", jobs, minimum=1)


def check_bool(name: str, value: Any) -> bool:
    """A flag: exactly True or False (``1``, ``"yes"`` and the like are refused)."""
    if not isinstance(value, bool):
        raise ScenarioError("<options>", name, f"must be True or False, got {value!r}")
    return value


def load_scenario(source: ScenarioSource, *, set: SetOverrides = None) -> Scenario:
    """Read and validate a scenario.

    Parameters
    ----------
    source : str, path-like or dict
        A scenario file (TOML; JSON when its name ends in ``.json``), or the
        scenario as a dict (same schema).
    set : list of str or dict, optional
        Overrides by dotted path: ``["links.wu.per=0.005"]`` (VALUE read as a
        TOML value, a bare word being a string) or ``{"links.wu.per": 0.005}``.

    Returns
    -------
    Scenario

    Raises
    ------
    ScenarioError
        Unreadable or malformed file, unknown key, bad unit, bad override, ...
    """
    sets = _set_strings(set)
    return read_source(source)(sets)


def read_source(source: ScenarioSource) -> Callable[[list[str]], Scenario]:
    """Read a scenario source once; the function returned loads and
    validates it with a list of overrides (a sweep's points, each with its
    own), without reading the file again (a pipe can be read only once)."""
    if isinstance(source, Mapping):
        try:
            text = json.dumps(source, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise ScenarioError("<dict>", "", f"not representable as a scenario: {e}") from None
        except RecursionError:
            raise ScenarioError(
                "<dict>", "", "nested too deeply to be a scenario (tables within tables)"
            ) from None
        return lambda sets: Scenario("<dict>", _core.load_scenario(text, "<dict>", sets, "json"))
    if not isinstance(source, (str, os.PathLike)):
        raise ScenarioError(
            "<options>",
            "scenario",
            f"must be a path or a dict, not {type(source).__name__}",
        )
    file = os.fspath(source)
    try:
        text = read_bounded(file, MAX_SCENARIO_BYTES, pipe=True).decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(file, "", "cannot read file: not UTF-8 text") from None
    except OSError as e:
        raise ScenarioError(file, "", f"cannot read file: {e.strerror or e}") from None
    # Relative paths inside the scenario (fade traces, masking files) are
    # relative to the scenario file.
    base = os.path.dirname(os.path.realpath(file))
    fmt = "json" if file.lower().endswith(".json") else "toml"
    return lambda sets: Scenario(file, _core.load_scenario(text, file, sets, fmt, base))


def describe(source: ScenarioSource, *, set: SetOverrides = None) -> dict[str, Any]:
    """The resolved network of a scenario, as ``skyhop describe --json`` prints it.

    Returns a dict with ``duration_s``, ``nodes`` (name and pcap address),
    ``links`` (one entry per link direction: ``rate_bps``, ``delay_s`` and
    ``delay_source`` -- ``given``, ``slant range`` with ``elevation_deg``,
    ``azimuth_deg``, ``slant_range_m``, or ``inter-satellite`` --,
    ``queue_packets``, ``bdp_bytes``, ``queue_bdp_fraction``, ``channels``),
    ``flows`` (``path`` and ``legs`` with ``rtt_s``, ``bottleneck_bps``,
    ``bdp_bytes``, ``bdp_packets``, ``window_limit``, ``window_limit_bytes``,
    ``route_at_start`` -- for a leg across a moving network, the nodes of its
    route at time 0, whose figures these are; ``None`` over fixed links --
    and the leg's TCP settings) and ``warnings``.
    """
    scn = load_scenario(source, set=set)
    return json.loads(_core.describe(scn.loaded))


def check_runs(runs: Any, name: str = "runs") -> int:
    """A run count: an integer from 1 to ``run.runs``' cap (1000000)."""
    runs = check_int(name, runs, minimum=1)
    if runs > _core.MAX_RUNS:
        raise ScenarioError(
            "<options>", name, f"{runs} is out of range: must be between 1 and {_core.MAX_RUNS}"
        )
    return runs


def check_seeds(seed: Any, runs: Any) -> tuple[int, int]:
    """Validate a base seed and a run count; return them as ints."""
    runs = check_runs(runs)
    seed = check_int("seed", seed)
    if seed < 0 or seed + runs - 1 > _U64_MAX:
        raise ScenarioError(
            "<options>", "seed", f"seeds must lie in 0..2^64-1, got {seed}..{seed + runs - 1}"
        )
    return seed, runs


def check_memory(
    scenario: Scenario,
    runs: int,
    *,
    jobs: int | None = None,
    trace: bool = False,
    observe: Mapping[str, Any] | None = None,
) -> None:
    """Refuse, before any starts, ``runs`` runs of ``scenario`` (``jobs`` at
    once) whose estimated memory would exceed the limit (``SKYHOP_MEMORY_LIMIT``,
    default a quarter of physical memory): a ScenarioError naming the largest
    part and what to change. What runs record (``trace``, the packet log and
    pcap files of ``observe``, as for :func:`run_seeds`) counts for every run."""
    opts = None
    if observe is not None:
        opts = json.dumps({k: v for k, v in observe.items() if k != "pcap_per_seed"})
    jobs = min(runs, jobs or default_jobs())
    _core.check_memory(scenario.loaded, trace, opts, runs, jobs)


def default_jobs() -> int:
    """Worker threads/processes to use by default: the CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def run_seeds(
    scenario: Scenario,
    seeds: Iterable[int],
    *,
    trace: bool = False,
    jobs: int | None = None,
    on_done: Callable[[int], None] | None = None,
    observe: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Run ``scenario`` once per seed, in parallel threads; results in seed order.

    The engine releases the GIL, so threads run truly in parallel. Each run
    depends only on (scenario, seed): the results do not depend on ``jobs``.
    If runs fail, the error of the lowest failing seed among those that ran is
    raised, with the file and seed prepended to its message.

    The simulations run in daemon threads while the calling thread only
    waits, so Ctrl-C (KeyboardInterrupt) is seen at once; no further run is
    started after it, and the runs in flight are cancelled (the engine checks
    a cancellation flag every 4096 events).

    ``observe`` turns the per-packet observer on (keys of
    ``_core.run_observed``: ``log``, ``log_links``, ``log_window``,
    ``pcap_dir``, ``pcap_links``; and ``pcap_per_seed``: name each pcap file
    after its seed); each result then may carry ``packet_log`` (columns) and
    ``pcap_files``.
    """
    seeds = sorted(seeds)
    if not seeds:
        return []
    jobs = min(len(seeds), jobs or default_jobs())
    _core.reset_cancel()
    pending = iter(seeds)
    take = threading.Lock()
    stop = threading.Event()
    done: queue.SimpleQueue = queue.SimpleQueue()

    def worker() -> None:
        while not stop.is_set():
            with take:
                s = next(pending, None)
            if s is None:
                break
            try:
                if observe is None:
                    text = _core.run(scenario.loaded, s, trace)
                else:
                    opts = {k: v for k, v in observe.items() if k != "pcap_per_seed"}
                    if observe.get("pcap_per_seed"):
                        opts["pcap_suffix"] = f".seed{s}"
                    text = _core.run_observed(scenario.loaded, s, trace, json.dumps(opts))
                done.put((s, text, None))
            except BaseException as e:  # handed to the caller's thread
                done.put((s, None, e))
        done.put(None)

    for _ in range(jobs):
        threading.Thread(target=worker, name="skyhop-run", daemon=True).start()
    texts: dict[int, str] = {}
    failed: dict[int, BaseException] = {}
    running = jobs
    try:
        while running:
            try:
                item = done.get(timeout=0.2)
            except queue.Empty:
                continue
            if item is None:
                running -= 1
                continue
            s, text, err = item
            if err is not None:
                failed[s] = err
                stop.set()
                continue
            texts[s] = text
            if on_done and not failed:
                on_done(s)
    except BaseException:
        stop.set()
        _core.cancel()
        raise
    if failed:
        s = min(failed)
        e = failed[s]
        if isinstance(e, SimulationError):
            raise _with_context(e, scenario, s) from None
        raise e
    return [json.loads(texts[s]) for s in seeds]


def _with_context(e: SimulationError, scenario: Scenario, seed: int) -> SimulationError:
    key = "run.event_budget: " if e.kind == "event_budget" else ""
    return SimulationError(f"{scenario.file}: {key}seed {seed}: {e.message}", e.kind)


class Results:
    """Results of several runs of one scenario.

    Attributes
    ----------
    scenario : dict
        The resolved scenario that was run.
    runs : list of dict
        One RunResult per run, in seed order: ``seed``, ``flows`` (per flow:
        ``completion_time_s``, ``goodput_bps``, ``bytes_delivered``,
        ``retransmissions``, ``timeouts``, ...), ``proxies``, ``engine``,
        ``traces`` (empty unless ``trace=True``), ``warnings``.

    Tables: every list of records in the runs (per flow ``legs`` and what the
    flow's application reports, per run ``links`` and ``proxies``) is a
    table, whatever its name: :meth:`tables`, :meth:`table_frame` and
    ``<name>_frame()`` (``objects_frame()``, ``pages_frame()``,
    ``proxies_frame()``, ...) give them as DataFrames.
    """

    def __init__(self, scenario: dict[str, Any], runs: list[dict[str, Any]]) -> None:
        self.scenario = scenario
        self.runs = runs

    @property
    def seeds(self) -> list[int]:
        """The seed of each run, in order."""
        return [r["seed"] for r in self.runs]

    @property
    def warnings(self) -> list[str]:
        """Distinct warnings of all runs, in first-seen order."""
        seen: dict[str, None] = {}
        for r in self.runs:
            for w in r.get("warnings", []):
                seen.setdefault(w, None)
        return list(seen)

    def summary(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Mean and 95 % confidence interval per flow and metric.

        Returns
        -------
        dict
            ``{flow: {metric: {"mean": M, "ci95": H, "n": K}}}`` over every
            scalar FlowResult field. ``ci95`` is the half-width of the
            two-sided 95 % Student-t interval, ``None`` when ``n < 2``.
            Null values (e.g. ``completion_time_s`` of a transfer that did
            not finish) are left out, so ``n`` counts the runs that have a
            value; ``mean`` is ``None`` when none has.
        """
        return summarize(self.runs)

    def summary_frame(self) -> pd.DataFrame:
        """:meth:`summary` as a DataFrame indexed by (flow, metric)."""
        import pandas as pd

        rows = [
            {"flow": flow, "metric": metric, **stats}
            for flow, metrics in self.summary().items()
            for metric, stats in metrics.items()
        ]
        return pd.DataFrame(rows, columns=["flow", "metric", "mean", "ci95", "n"]).set_index(
            ["flow", "metric"]
        )

    def to_pandas(self) -> pd.DataFrame:
        """One row per run and flow: ``seed``, ``flow`` and every scalar FlowResult field."""
        import pandas as pd

        rows = [
            {"seed": r["seed"], "flow": name, **flow_metrics(flow)}
            for r in self.runs
            for name, flow in r["flows"].items()
        ]
        return _numeric_nulls(pd.DataFrame(rows))

    def trace_frame(self, name: str | None = None) -> pd.DataFrame:
        """Traces (``trace=True``) as a table.

        Without ``name``: every trace of every run in long format, one row
        per point: ``run`` (0-based), ``seed``, ``flow``, ``leg`` (nullable),
        ``series``, ``t_s`` (seconds), ``value`` (units per series:
        ``cwnd``, ``ssthresh``, ``flight``, ``rwnd`` in bytes, ``srtt`` in
        seconds, ``rate_estimate`` in bit/s, ``proxy.<node>.occupancy`` in
        bytes, ``link.<link>.<dir>.queue`` in packets; see
        :mod:`skyhop.traces`). This is the table ``skyhop run --trace-out``
        writes.

        With ``name`` (a key of ``runs[i]["traces"]``, e.g. ``"ftp.0.cwnd"``):
        that series of every run, columns seed, t_s, value.
        """
        import pandas as pd

        if name is None:
            from .traces import trace_columns
            from .traces import trace_frame as frame

            return frame(trace_columns(self.runs))

        frames = []
        for r in self.runs:
            series = r.get("traces", {}).get(name)
            if series is None:
                continue
            frames.append(
                pd.DataFrame({"seed": r["seed"], "t_s": series["t_s"], "value": series["value"]})
            )
        if not frames:
            known = sorted({k for r in self.runs for k in r.get("traces", {})})
            raise TableError(
                f"no trace {name!r} (traces: {', '.join(known) or 'none; run with trace=True'})"
            )
        return pd.concat(frames, ignore_index=True)

    def links_frame(self) -> pd.DataFrame:
        """Per-link statistics: one row per run and link direction (``seed``,
        ``link``, ``dir``, ``from``, ``to``, ``rate_bps``, ``packets``,
        ``bytes``, ``delivered``, ``utilisation``, ``queue_drops``,
        ``channel_drops``, ``link_drops``, ``mean_queue_packets``,
        ``max_queue_packets``)."""
        import pandas as pd

        rows = [{"seed": r["seed"], **link} for r in self.runs for link in r.get("links", [])]
        return pd.DataFrame(rows)

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every result table of these runs, by name (:mod:`skyhop.tables`).

        A table is any list of records in a run result: per flow ``legs``
        and what the flow's application reports (a web session's
        ``objects`` and ``pages``, ...), and per run ``links`` and
        ``proxies`` (proxy statistics: ``cache_bytes``,
        ``max_occupancy_bytes``, ``mean_occupancy_bytes``, ...). One row per
        record: ``seed``, ``flow`` (for a flow's table), the record's index
        within its list (the table's name in the singular: ``leg``,
        ``object``, ``page``, ``proxy``; ``link_index`` for ``links``, whose
        records have a ``link`` field), then the record's fields. A table
        no run has a record of is absent.
        """
        from .tables import assemble, blocks_of, frame

        rows = assemble(({"seed": r["seed"]}, b) for r in self.runs for b in blocks_of(r))
        return {name: frame(table) for name, table in rows.items()}

    def table_frame(self, name: str) -> pd.DataFrame:
        """One result table (see :meth:`tables`); ``skyhop.TableError`` when no
        run has a record of it."""
        from .tables import assemble, blocks_of, frame

        rows = assemble(
            ({"seed": r["seed"]}, b) for r in self.runs for b in blocks_of(r) if b["table"] == name
        )
        if name not in rows:
            known = sorted({b["table"] for r in self.runs for b in blocks_of(r)})
            raise TableError(
                f"no table {name!r} in these runs (tables: {', '.join(known) or 'none'})"
            )
        return frame(rows[name])

    def __getattr__(self, attr: str) -> Any:
        # ``<name>_frame()`` for every table: objects_frame(), pages_frame(),
        # legs_frame(), proxies_frame(), ... (see tables()).
        if attr.endswith("_frame") and len(attr) > len("_frame") and not attr.startswith("_"):
            name = attr[: -len("_frame")]

            def table(_name: str = name) -> pd.DataFrame:
                return self.table_frame(_name)

            table.__name__ = attr
            table.__doc__ = f"The {name!r} table of these runs (see Results.tables())."
            return table
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {attr!r}")

    def packet_log_frame(self) -> pd.DataFrame:
        """The per-packet log of runs made with a packet log (``skyhop run
        --packet-log``): ``run``, ``seed`` and the log's columns (``t_s``,
        ``link``, ``dir``, ``event``, ``reason``, ``flow``, ``leg``, ``kind``,
        ``seq``, ``len``, ``retx``, ``ack``, ``wnd``, ``sack``, ``size_bytes``)."""
        import pandas as pd

        frames = []
        for i, r in enumerate(self.runs):
            log = r.get("packet_log")
            if log is None:
                continue
            df = pd.DataFrame(log)
            df.insert(0, "seed", r["seed"])
            df.insert(0, "run", i)
            frames.append(df)
        if not frames:
            raise KeyError("no packet log (run with a packet log: skyhop run --packet-log FILE)")
        df = pd.concat(frames, ignore_index=True)
        for c in ("seq", "ack", "wnd"):
            df[c] = df[c].astype("Int64")
        return df

    def __len__(self) -> int:
        return len(self.runs)

    def __repr__(self) -> str:
        flows = sorted({f for r in self.runs for f in r["flows"]})
        return f"Results(runs={len(self.runs)}, flows={flows})"


def _numeric_nulls(df: pd.DataFrame) -> pd.DataFrame:
    """Columns that are null in every row (e.g. the completion time of a bulk
    flow) become float columns of NaN rather than untyped object columns."""
    for col in df.columns:
        if df[col].dtype == object and df[col].isna().all():
            df[col] = df[col].astype("float64")
    return df


def run(
    scenario: ScenarioSource,
    *,
    runs: int | None = None,
    seed: int | None = None,
    set: SetOverrides = None,
    trace: bool = False,
    jobs: int | None = None,
) -> Results:
    """Simulate a scenario over independent seeds.

    Parameters
    ----------
    scenario : str, path-like or dict
        A TOML scenario file, or the scenario as a dict (same schema).
    runs : int, optional
        Number of independent runs; default ``run.runs`` of the scenario (1).
    seed : int, optional
        Base seed S: run i (0-based) uses seed S + i. Default ``run.seed``.
    set : list of str or dict, optional
        Overrides by dotted path, as ``--set`` on the command line:
        ``["flows.ftp.tcp=sack"]`` or ``{"flows.ftp.tcp": "sack"}``.
    trace : bool, default False
        Record time series (cwnd, ssthresh, srtt, ...) in ``runs[i]["traces"]``.
    jobs : int, optional
        Runs simulated at once (threads); default: all CPUs. Results do not
        depend on it.

    Returns
    -------
    Results

    Raises
    ------
    ScenarioError
        The scenario or an argument is invalid (also a ``ValueError``): a
        wrong type or value of ``runs``, ``seed``, ``set``, ``trace`` or
        ``jobs`` names the argument in ``key`` (``file`` is ``"<options>"``).
    SimulationError
        A run could not complete (e.g. it exceeded its event budget).

    Examples
    --------
    >>> import skyhop
    >>> res = skyhop.run("scenarios/geo_single.toml", runs=3, seed=7)  # doctest: +SKIP
    >>> res.summary()["ftp"]["goodput_bps"]["n"]  # doctest: +SKIP
    3
    >>> res.to_pandas()[["seed", "flow", "goodput_bps"]]  # doctest: +SKIP
    """
    trace = check_bool("trace", trace)
    jobs = check_jobs(jobs)
    if runs is not None:
        check_runs(runs)
    if seed is not None:
        check_int("seed", seed, minimum=0)
    scn = load_scenario(scenario, set=set)
    base, n = check_seeds(
        scn.default_seed if seed is None else seed, scn.default_runs if runs is None else runs
    )
    check_memory(scn, n, jobs=jobs, trace=trace)
    results = run_seeds(scn, range(base, base + n), trace=trace, jobs=jobs)
    return Results(scn.resolved, results)
