"""The ``skyhop`` command line.

Contract (relied upon by other tools; documented in README.md):

``skyhop run SCENARIO.toml [--runs N] [--seed S] [--set PATH=VALUE ...] [--json]
[--out FILE.parquet|FILE.csv] [--trace] [--jobs J]``

- ``--json`` prints exactly one JSON document on stdout:
  ``{"scenario": {...}, "runs": [{"seed": S, "flows": {NAME: {...}}, ...}],
  "summary": {NAME: {METRIC: {"mean": M, "ci95": H, "n": K}}}}``.
- Bad input prints one line ``skyhop: error: FILE: KEY: problem`` on stderr
  and exits with status 2; never a traceback.
- Exit status: 0 success, 2 bad input, failed run or a sweep worker killed
  from outside, 3 internal error (a bug), 130 interrupted.

This module owns all argument parsing; the commands call the libraries
(:mod:`skyhop.api`, :mod:`skyhop.sweep`, :mod:`skyhop.bench`,
:mod:`skyhop.experiments`) and write through :mod:`skyhop._output`.
"""

from __future__ import annotations

import argparse
import os
import sys

from . import _output as output
from .errors import UsageError

# `typing` for type checkers only, `pathlib` in the commands that use it:
# `skyhop run` imports neither
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, NoReturn

__all__ = ["build_parser", "main"]

EXIT_OK = 0
EXIT_ERROR = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an integer in 0..2^64-1, got {text!r}"
        ) from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"expected an integer in 0..2^64-1, got {text!r}")
    return value


def _add_scenario_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    p.add_argument(
        "--runs",
        type=_positive_int,
        metavar="N",
        help="independent runs (default: run.runs of the scenario)",
    )
    p.add_argument(
        "--seed",
        type=_seed,
        metavar="S",
        help="base seed; run i uses seed S+i (default: run.seed of the scenario)",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        dest="sets",
        help="override a scenario value by dotted path, e.g. links.wu.per=0.005 "
        "(VALUE is a TOML value; a bare word is a string); repeatable",
    )
    p.add_argument(
        "--jobs",
        type=_positive_int,
        metavar="J",
        help="simulations at once (default: all CPUs); results do not depend on it",
    )


def _add_backend_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--backend",
        choices=["local", "ray"],
        default="local",
        help="where runs go: local worker processes (default) or a Ray cluster "
        "(pip install 'skyhop[ray]'); a sweep may be resumed on either",
    )
    p.add_argument(
        "--address",
        metavar="ADDR",
        help="Ray cluster address (HOST:PORT, ray://HOST:PORT or auto; default: RAY_ADDRESS "
        "or a new local Ray instance); needs --backend ray",
    )


def _check_backend_args(args: argparse.Namespace) -> None:
    if args.address is not None and args.backend != "ray":
        raise UsageError("--address needs --backend ray")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``skyhop`` command."""
    from . import __version__

    parser = _Parser(
        prog="skyhop",
        description="Packet-level simulator of TCP over hybrid satellite networks.",
    )
    parser.add_argument("--version", action="version", version=f"skyhop {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p_run = sub.add_parser(
        "run",
        help="run a scenario over seeds and summarise the results",
        description="Run a scenario N times (seeds S..S+N-1) and print per-flow means "
        "with 95 % confidence intervals.",
    )
    _add_scenario_options(p_run)
    p_run.add_argument(
        "--json",
        action="store_true",
        help="print one JSON document {scenario, runs, summary} on stdout",
    )
    p_run.add_argument(
        "--out", metavar="FILE", help="also write one row per run and flow (.parquet or .csv)"
    )
    p_run.add_argument(
        "--trace",
        action="store_true",
        help="record time series (cwnd, ssthresh, srtt, ...); included in --json output",
    )
    p_run.add_argument(
        "--trace-out",
        metavar="FILE",
        help="write the traces as one long table (run, seed, flow, leg, series, t_s, value) "
        "to FILE (.parquet or .csv); implies --trace",
    )
    p_run.add_argument(
        "--packet-log",
        metavar="FILE",
        help="write a per-packet event log (enqueue, drop with reason, arrive) to FILE "
        "(.parquet or .csv)",
    )
    p_run.add_argument(
        "--packet-log-links",
        metavar="LINKS",
        help="comma-separated links of the packet log (ab, or ab:forward / ab:reverse); "
        "default all",
    )
    p_run.add_argument(
        "--packet-log-window",
        metavar="FROM,TO",
        help="time window of the packet log, e.g. 10s,20s (both ends included)",
    )
    p_run.add_argument(
        "--pcap",
        metavar="DIR",
        help="write one pcap file per link direction into DIR (one run, or --pcap-per-seed)",
    )
    p_run.add_argument(
        "--pcap-links", metavar="LINKS", help="comma-separated links to capture (default all)"
    )
    p_run.add_argument(
        "--pcap-per-seed",
        action="store_true",
        help="with several runs: one file per link direction and seed (LINK.DIR.seedS.pcap)",
    )
    p_run.set_defaults(func=cmd_run)

    p_live = sub.add_parser(
        "live",
        help="run a scenario in real time between real hosts running your commands",
        description="Make every node named by --run/--daemon (or marked live = true) a real "
        "host: its own network namespace with a TUN device carrying the node's address. "
        "Each COMMAND runs inside its node's namespace (SKYHOP_ADDR_<NODE> names every "
        "node's address); its packets cross the scenario's links, channels, link layers and "
        "queues in wall-clock time, beside the simulated flows. The run ends when every "
        "--run command has exited, or at --duration; the exit status is the first failing "
        "command's. Needs root, or unprivileged user namespaces (docs/live.md).",
    )
    p_live.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    p_live.add_argument(
        "--run",
        action="append",
        default=[],
        metavar="NODE:COMMAND",
        dest="runs_cmd",
        help="run COMMAND (a shell command line) in NODE's namespace; the run waits for it; "
        "repeatable",
    )
    p_live.add_argument(
        "--daemon",
        action="append",
        default=[],
        metavar="NODE:COMMAND",
        help="run COMMAND in NODE's namespace without waiting for it (a server); stopped "
        "at the end; repeatable",
    )
    p_live.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        dest="sets",
        help="override a scenario value by dotted path (as for run); repeatable",
    )
    p_live.add_argument("--seed", type=_seed, metavar="S", help="seed (default: run.seed)")
    p_live.add_argument(
        "--duration",
        metavar="D",
        help="stop after D (e.g. 60s); default: the scenario's run.duration",
    )
    p_live.add_argument(
        "--json", action="store_true", help="print one JSON document on stdout (as run --json)"
    )
    p_live.add_argument("--pcap", metavar="DIR", help="write one pcap file per link direction")
    p_live.add_argument(
        "--pcap-links", metavar="LINKS", help="comma-separated links to capture (default all)"
    )
    p_live.add_argument(
        "--record",
        metavar="DIR",
        help="record every packet from the hosts into DIR (arrivals.pcapng, replay.json) "
        "for skyhop replay",
    )
    p_live.add_argument("--trace", action="store_true", help="record time series")
    p_live.add_argument(
        "--grace",
        default="2s",
        metavar="D",
        help="time stopped commands get between SIGTERM and SIGKILL (default 2s)",
    )
    p_live.add_argument(
        "--lateness-warn",
        default="1ms",
        metavar="D",
        help="warn when the 99th percentile of the packets' lateness exceeds D (default 1ms)",
    )
    p_live.add_argument(
        "--lateness-abort",
        metavar="D",
        help="stop the run with an error when more than 1 %% of the packets are later than D",
    )
    p_live.add_argument(
        "--no-realtime",
        action="store_true",
        help="do not ask for SCHED_FIFO and a pinned CPU for the engine",
    )
    p_live.set_defaults(func=cmd_live)

    p_replay = sub.add_parser(
        "replay",
        help="replay a live run's record as a deterministic simulation",
        description="Re-run the scenario of a live run recorded with --record DIR, "
        "injecting every recorded packet from the hosts at the simulated time it entered "
        "the network: the live run's network again, deterministically (same per-link counts).",
    )
    p_replay.add_argument("record", metavar="DIR", help="the folder given to skyhop live --record")
    p_replay.add_argument("--json", action="store_true", help="print one JSON document")
    p_replay.add_argument("--pcap", metavar="DIR", help="write one pcap file per link direction")
    p_replay.add_argument("--trace", action="store_true", help="record time series")
    p_replay.set_defaults(func=cmd_replay)

    p_desc = sub.add_parser(
        "describe",
        help="show the resolved network: links, delays, queues, legs, BDPs, warnings",
        description="Print the resolved network of a scenario: per link direction its rate, "
        "delay and where it came from, queue (packets and fraction of the BDP) and channel; "
        "per flow its path and legs with round-trip times and BDPs; every warning.",
    )
    p_desc.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    p_desc.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        dest="sets",
        help="override a scenario value by dotted path; repeatable",
    )
    p_desc.add_argument("--json", action="store_true", help="print the description as JSON")
    p_desc.set_defaults(func=cmd_describe)

    p_sweep = sub.add_parser(
        "sweep",
        help="run a grid of scenario variants x seeds (resumable)",
        description="Run the cartesian product of --grid values x --runs seeds on local "
        "processes, persisting each finished (point, seed) at once.",
    )
    _add_scenario_options(p_sweep)
    p_sweep.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="PATH=V1,V2,...",
        help="a swept dotted path and its values (TOML values, comma-separated); repeatable",
    )
    p_sweep.add_argument("--out", required=True, metavar="DIR", help="output directory")
    p_sweep.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted sweep in DIR, skipping finished (point, seed) pairs",
    )
    p_sweep.add_argument("--json", action="store_true", help="print summary.json on stdout")
    p_sweep.add_argument(
        "--trace",
        action="store_true",
        help="record time series and write DIR/traces.parquet (point, swept paths, run, seed, "
        "flow, leg, series, t_s, value)",
    )
    _add_backend_options(p_sweep)
    p_sweep.set_defaults(func=cmd_sweep)

    p_exp = sub.add_parser(
        "experiment",
        help="re-run a published experiment by name (E1, E2, E3, E4, E5, E6)",
        description="Run the full grid of a published experiment and write results.parquet, "
        "summary.json (beside the published numbers of "
        "python/skyhop/experiments/targets.toml) and the figures (PNG, PDF, SVG) into DIR. "
        "Interrupted experiments resume where they stopped.",
    )
    p_exp.add_argument("name", metavar="NAME", help="E1, E2, E3, E4, E5 or E6")
    p_exp.add_argument(
        "--runs",
        type=_positive_int,
        metavar="N",
        help="runs per point (default: the published count, "
        "20 for E1, E5 and E6, 100 for E2/E3, 1000 for E4)",
    )
    p_exp.add_argument("--seed", type=_seed, default=1, metavar="S", help="base seed (default 1)")
    p_exp.add_argument("--out", metavar="DIR", help="output directory (default: out/NAME)")
    p_exp.add_argument(
        "--jobs", type=_positive_int, metavar="J", help="worker processes (default: all CPUs)"
    )
    p_exp.add_argument("--json", action="store_true", help="print the summary document on stdout")
    _add_backend_options(p_exp)
    p_exp.set_defaults(func=cmd_experiment)

    p_report = sub.add_parser(
        "report",
        help="turn an experiment or sweep folder into one self-contained HTML page",
        description="Write one HTML file (no network needed to open it) with the scenario, "
        "the grid, tables of mean ± 95 % CI, interactive figures and, for an experiment, the "
        "published-vs-ours table with every claim and its evidence.",
    )
    p_report.add_argument("folder", metavar="DIR", help="experiment or sweep output folder")
    p_report.add_argument(
        "--out", metavar="FILE.html", help="where to write the page (default: DIR/report.html)"
    )
    p_report.set_defaults(func=cmd_report)

    p_fig = sub.add_parser(
        "plot",
        help="draw a sweep's metric against its swept keys, or the CDF of a result table column",
        description="With --metric: a sweep's metric (mean with its 95 %% CI) against one "
        "swept path, one line per combination of the other swept paths. With --cdf: the "
        "empirical CDF of a column of the result tables (e.g. response_time_s of a web "
        "session's objects and pages), of a sweep folder or of a file holding the JSON "
        "document of 'skyhop run --json'. FILE.png, .pdf or .svg writes that format; any "
        "other name gets all three.",
    )
    p_fig.add_argument(
        "source", metavar="DIR|RUN.json", help="sweep folder (or, with --cdf, a run document)"
    )
    what = p_fig.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--metric", metavar="METRIC", help="a metric of summary.json, e.g. goodput_bps"
    )
    what.add_argument(
        "--cdf", metavar="COLUMN", help="a column of the result tables, e.g. response_time_s"
    )
    p_fig.add_argument(
        "--x",
        metavar="PATH",
        help="the swept path on the x axis (default: the first numeric one with several values)",
    )
    p_fig.add_argument("--flow", metavar="F", help="only this flow (default: every flow)")
    p_fig.add_argument(
        "--table",
        metavar="T1,T2",
        help="with --cdf: only these tables (default: every table with the column)",
    )
    p_fig.add_argument("--out", required=True, metavar="FILE", help="image to write")
    p_fig.set_defaults(func=cmd_plot)

    p_schema = sub.add_parser(
        "schema",
        help="print the JSON Schema of the scenario format",
        description="Print the JSON Schema (draft-07) of scenario files, generated from the "
        "types the engine validates against; --markdown prints the keys table of "
        "docs/scenario.md instead.",
    )
    p_schema.add_argument(
        "--markdown", action="store_true", help="print the keys table (Markdown) instead"
    )
    p_schema.set_defaults(func=cmd_schema)

    p_val = sub.add_parser(
        "validate",
        help="check scenario files without running them",
        description="Load and validate each scenario as 'skyhop run' would, without running "
        "it: 'FILE: ok' on stdout for a good file, one 'skyhop: error:' line per bad one on "
        "stderr; exit status 2 if any is bad.",
    )
    p_val.add_argument("files", nargs="+", metavar="FILE", help="scenario files (.toml or .json)")
    p_val.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        dest="sets",
        help="override a scenario value by dotted path (applied to every file); repeatable",
    )
    p_val.set_defaults(func=cmd_validate)

    p_chan = sub.add_parser(
        "channel",
        help="look at a link's channel model (channel plot)",
        description="Inspect the channel model of a link direction.",
    )
    chan_sub = p_chan.add_subparsers(dest="channel_command", metavar="ACTION", parser_class=_Parser)
    chan_sub.required = True
    p_plot = chan_sub.add_parser(
        "plot",
        help="draw the channel state (or line of sight and skyline) over time",
        description="Sample the channel of one link direction over time, as the run with the "
        "given seed sees it, and draw its state and loss probability; for lms-urban, the "
        "masking angle against the satellite's elevation and the street skyline.",
    )
    p_plot.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    p_plot.add_argument("--link", required=True, metavar="ID", help="link id (links.<ID>)")
    p_plot.add_argument(
        "--direction", default="forward", choices=["forward", "reverse"], help="default forward"
    )
    p_plot.add_argument(
        "--duration",
        metavar="T",
        help='time span with a unit, e.g. 120s or "2 min" (default: run.duration)',
    )
    p_plot.add_argument(
        "--seed", type=_seed, metavar="S", help="seed (default: run.seed of the scenario)"
    )
    p_plot.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        dest="sets",
        help="override a scenario value by dotted path; repeatable",
    )
    p_plot.add_argument("--out", required=True, metavar="FILE.png", help="image to write")
    p_plot.set_defaults(func=cmd_channel_plot)

    p_bench = sub.add_parser(
        "bench",
        help="measure simulator speed (events/s, packet-hops/s)",
        description="Run benchmark scenarios and report wall time, events per second, "
        "packet-hops per second and simulated seconds per wall second (one thread).",
    )
    p_bench.add_argument(
        "scenarios",
        nargs="*",
        metavar="SCENARIO.toml",
        help="scenarios to time (default: benches/e1_chain.toml benches/dumbbell_1g.toml)",
    )
    p_bench.add_argument(
        "--variants",
        action="store_true",
        help="time the variants' cases instead: SACK, linux-profile CUBIC and BBR with "
        "RACK on the 1 Gb/s dumbbell, and holes with SACK, each after its NewReno case",
    )
    p_bench.add_argument(
        "--repeat",
        type=_positive_int,
        metavar="N",
        help="runs per scenario (default: the scenario's run.runs)",
    )
    p_bench.add_argument("--json", action="store_true", help="machine-readable output")
    p_bench.set_defaults(func=cmd_bench)
    return parser


# ---------------------------------------------------------------------------
# skyhop run


def run_document(
    scenario: dict[str, Any],
    runs: list[dict[str, Any]],
    trace: bool,
    network: dict[str, Any] | None = None,
) -> dict:
    """The ``--json`` document: scenario, network, runs (seed order), summary."""
    from .stats import flow_metrics, summarize
    from .tables import flow_tables

    out_runs = []
    for r in runs:
        entry: dict[str, Any] = {
            "seed": r["seed"],
            "flows": {
                # the metrics, then every table of the flow (legs, and what
                # its application reports)
                name: {**flow_metrics(f), "legs": f.get("legs", []), **flow_tables(f)}
                for name, f in r["flows"].items()
            },
        }
        for key in ("proxies", "links", "engine", "warnings", "jain_fairness", "pcap_files"):
            if key in r:
                entry[key] = r[key]
        if trace:
            entry["traces"] = r.get("traces", {})
        out_runs.append(entry)
    doc: dict[str, Any] = {"scenario": scenario, "runs": out_runs, "summary": summarize(runs)}
    if network is not None:
        doc["network"] = network
    return doc


def _link_names(text: str | None, scn: Any, key: str) -> list[str] | None:
    """``ab,cd:forward`` checked against the scenario's links."""
    from .errors import ScenarioError

    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    known = list(scn.resolved.get("links", {}))
    for n in names:
        link = n.rpartition(":")[0] if n.endswith((":forward", ":reverse")) else n
        if link not in known:
            raise ScenarioError(
                "<options>", key, f"unknown link {n!r} (links: {', '.join(known) or 'none'})"
            )
    if not names:
        raise ScenarioError("<options>", key, "give at least one link name")
    return names


def _window(text: str | None) -> list[float] | None:
    """``10s,20s`` as seconds ``[10.0, 20.0]`` (each end read by the engine's parser)."""
    from .errors import ScenarioError
    from .units import duration_s

    if text is None:
        return None
    parts = text.split(",")
    if len(parts) != 2:
        raise ScenarioError(
            "<options>",
            "--packet-log-window",
            f"expected FROM,TO with time units, e.g. 10s,20s; got {text!r}",
        )
    out = [duration_s(p, "--packet-log-window") for p in parts]
    if out[0] > out[1]:
        raise ScenarioError("<options>", "--packet-log-window", f"{text!r} ends before it starts")
    return out


def _check_out_file(out: str | None, key: str = "--out") -> None:
    if not out:
        return
    from pathlib import Path

    if Path(out).suffix.lower() not in (".parquet", ".csv"):
        from .errors import ScenarioError

        raise ScenarioError(out, key, "unsupported file type (use .parquet or .csv)")
    output.check_writable_file(out, key)


def cmd_describe(args: argparse.Namespace) -> int:
    from .api import describe

    desc = describe(args.scenario, set=args.sets)
    if args.json:
        sys.stdout.write(output.dump_json(desc) + "\n")
    else:
        output.print_description(args.scenario, desc)
    return EXIT_OK


def cmd_run(args: argparse.Namespace) -> int:
    from .api import Results, check_seeds, load_scenario, run_seeds

    _check_out_file(args.out)
    _check_out_file(args.trace_out, "--trace-out")
    _check_out_file(args.packet_log, "--packet-log")
    trace = args.trace or bool(args.trace_out)
    scn = load_scenario(args.scenario, set=args.sets)
    base, n = check_seeds(
        scn.default_seed if args.seed is None else args.seed,
        scn.default_runs if args.runs is None else args.runs,
    )
    seeds = list(range(base, base + n))
    observe: dict[str, Any] | None = None
    if args.packet_log or args.pcap:
        observe = {}
    elif args.packet_log_links or args.packet_log_window:
        raise UsageError("--packet-log-links and --packet-log-window need --packet-log FILE")
    elif args.pcap_links or args.pcap_per_seed:
        raise UsageError("--pcap-links and --pcap-per-seed need --pcap DIR")
    if args.packet_log:
        observe["log"] = True
        observe["log_links"] = _link_names(args.packet_log_links, scn, "--packet-log-links")
        observe["log_window"] = _window(args.packet_log_window)
    if args.pcap:
        if n > 1 and not args.pcap_per_seed:
            raise UsageError(
                f"--pcap with {n} runs needs --pcap-per-seed (one file per link direction "
                "and seed), or --runs 1"
            )
        observe["pcap_links"] = _link_names(args.pcap_links, scn, "--pcap-links")
        output.check_writable_dir(args.pcap, "--pcap")
        observe["pcap_dir"] = args.pcap
        observe["pcap_per_seed"] = bool(args.pcap_per_seed)

    bar = None if args.json else output.progress_bar(n)
    if bar is None:
        runs = run_seeds(scn, seeds, trace=trace, jobs=args.jobs, observe=observe)
    else:
        with bar:
            task = bar.add_task("runs", total=n)
            runs = run_seeds(
                scn,
                seeds,
                trace=trace,
                jobs=args.jobs,
                on_done=lambda _s: bar.advance(task),
                observe=observe,
            )
    results = Results(scn.resolved, runs)
    for w in results.warnings:
        output.warning_line(w)
    if args.out:
        output.write_table(results.to_pandas(), args.out)
    if args.trace_out:
        output.write_table(results.trace_frame(), args.trace_out)
    if args.packet_log:
        output.write_table(results.packet_log_frame(), args.packet_log)
    for r in runs:
        r.pop("packet_log", None)
    if args.json:
        from .api import describe

        network = describe(args.scenario, set=args.sets)
        doc = run_document(scn.resolved, runs, trace, network)
        sys.stdout.write(output.dump_json(doc) + "\n")
    else:
        from .api import describe

        network = describe(args.scenario, set=args.sets)
        output.print_run_table(
            scn.file,
            seeds,
            results.summary(),
            jain=[r.get("jain_fairness") for r in results.runs],
            tcp=output.flows_tcp(network),
        )
        if args.out:
            print(f"wrote {args.out}")
    return EXIT_OK


# ---------------------------------------------------------------------------
# skyhop live, skyhop replay


def cmd_live(args: argparse.Namespace) -> int:
    from .api import load_scenario
    from .live import parse_command, userns_reexec_argv
    from .units import duration_s

    if os.geteuid() != 0 and not os.environ.get("SKYHOP_LIVE_USERNS"):
        argv = userns_reexec_argv(sys.argv[1:])
        if argv is None:
            raise UsageError(
                "skyhop live needs root, or unprivileged user namespaces and util-linux "
                "unshare (neither is available here)"
            )
        sys.stdout.flush()
        sys.stderr.flush()
        os.environ["SKYHOP_LIVE_USERNS"] = "1"
        os.execv(argv[0], argv)
    commands = [parse_command(t, "--run") for t in args.runs_cmd]
    commands += [parse_command(t, "--daemon") for t in args.daemon]
    scn = load_scenario(args.scenario, set=args.sets)
    duration = duration_s(args.duration, "--duration") if args.duration else None
    if duration is not None and duration <= 0:
        raise UsageError("--duration must be positive")
    grace = duration_s(args.grace, "--grace")
    warn = duration_s(args.lateness_warn, "--lateness-warn")
    abort = duration_s(args.lateness_abort, "--lateness-abort") if args.lateness_abort else None
    if args.pcap:
        output.check_writable_dir(args.pcap, "--pcap")
    elif args.pcap_links:
        raise UsageError("--pcap-links needs --pcap DIR")
    pcap_links = _link_names(args.pcap_links, scn, "--pcap-links")
    seed = scn.default_seed if args.seed is None else args.seed
    import signal

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt  # stop the hosts' commands and clean up, as Ctrl-C does

    old_term = signal.signal(signal.SIGTERM, on_term)
    try:
        doc = _live_run(scn, commands, seed, args, duration, grace, warn, abort, pcap_links)
    finally:
        signal.signal(signal.SIGTERM, old_term)
    result, report = doc["result"], doc["live"]
    result["seed"] = seed
    if report.get("pcap_files") is not None:
        result["pcap_files"] = report.pop("pcap_files")
    for w in result.get("warnings", []):
        if w not in report["warnings"]:
            output.warning_line(w)
    for w in report["warnings"]:
        output.warning_line(w)
    output.info_line(output.lateness_text(report))
    if args.json:
        from .api import describe

        network = describe(args.scenario, set=args.sets)
        out = run_document(scn.resolved, [result], args.trace, network)
        out["live"] = report
        sys.stdout.write(output.dump_json(out) + "\n")
    else:
        output.print_live_report(scn.file, result, report)
    return report["exit_code"]


def _live_run(
    scn: Any,
    commands: list[Any],
    seed: int,
    args: argparse.Namespace,
    duration: float | None,
    grace: float,
    warn: float,
    abort: float | None,
    pcap_links: list[str] | None,
) -> dict[str, Any]:
    from .live import live

    return live(
        scn,
        commands,
        seed=seed,
        duration_s=duration,
        grace_s=grace,
        lateness_warn_s=warn,
        lateness_abort_s=abort,
        realtime=not args.no_realtime,
        record=args.record,
        trace=args.trace,
        pcap_dir=args.pcap,
        pcap_links=pcap_links,
        stdout_to_stderr=args.json,
    )


def cmd_replay(args: argparse.Namespace) -> int:
    from .live import replay

    if args.pcap:
        output.check_writable_dir(args.pcap, "--pcap")
    scn, result = replay(args.record, trace=args.trace, pcap_dir=args.pcap)
    if args.json:
        sys.stdout.write(output.dump_json(run_document(scn.resolved, [result], args.trace)) + "\n")
    else:
        output.print_live_report(args.record, result, None)
    return EXIT_OK


# ---------------------------------------------------------------------------
# skyhop sweep


def cmd_sweep(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .errors import ScenarioError
    from .sweep import SweepInterrupted, run_sweep

    if not args.grid:
        raise ScenarioError(args.scenario, "--grid", "give at least one --grid PATH=V1,V2,...")
    _check_backend_args(args)
    progress = output.RunProgress("sweep")
    try:
        info = run_sweep(
            args.scenario,
            args.grid,
            out=args.out,
            runs=args.runs,
            seed=args.seed,
            set=args.sets,
            resume=args.resume,
            jobs=args.jobs,
            on_progress=progress.update,
            on_warning=progress.warning,
            trace=args.trace,
            backend=args.backend,
            address=args.address,
        )
    except SweepInterrupted as e:
        progress.close()
        output.info_line(
            f"interrupted: {e.done} of {e.total} runs saved in {args.out}; continue with --resume"
        )
        return EXIT_INTERRUPTED
    finally:
        progress.close()
    if args.json:
        sys.stdout.write((Path(args.out) / "summary.json").read_text(encoding="utf-8"))
    else:
        import json

        summary_doc = json.loads((Path(args.out) / "summary.json").read_text(encoding="utf-8"))
        output.print_sweep_table(f"sweep of {Path(args.scenario).name}", summary_doc)
        print(
            f"sweep: {info['total']} runs ({info['skipped']} already done, "
            f"{info['done']} run now); "
            f"results in {Path(args.out) / 'results.parquet'}, "
            f"summary in {Path(args.out) / 'summary.parquet'} and summary.json"
            + (f", traces in {info['traces']}" if "traces" in info else "")
        )
    return EXIT_OK


# ---------------------------------------------------------------------------
# skyhop experiment, skyhop bench


def cmd_experiment(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .errors import ScenarioError
    from .experiments import EXPERIMENTS, run_experiment
    from .sweep import SweepInterrupted

    name = args.name.upper()
    if name not in EXPERIMENTS:
        raise ScenarioError(
            "<experiment>",
            "name",
            f"unknown experiment {args.name!r} (known: {', '.join(EXPERIMENTS)})",
        )
    _check_backend_args(args)
    out = args.out or str(Path("out") / name)
    output.check_writable_dir(out)
    progress = output.RunProgress(name)
    try:
        doc = run_experiment(
            name,
            out,
            runs=args.runs,
            seed=args.seed,
            jobs=args.jobs,
            on_progress=progress.update,
            on_warning=progress.warning,
            backend=args.backend,
            address=args.address,
        )
    except SweepInterrupted as e:
        progress.close()
        output.info_line(
            f"interrupted: the sub-sweep under way has {e.done} of {e.total} runs saved in "
            f"{e.out}; run the same command again to continue"
        )
        return EXIT_INTERRUPTED
    finally:
        progress.close()
    if args.json:
        sys.stdout.write(output.dump_json(doc) + "\n")
    else:
        print(f"{name}: results, summary.json and figures in {out}")
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .errors import ScenarioError
    from .report import build_report

    out = args.out or str(Path(args.folder) / "report.html")
    if Path(out).suffix.lower() not in (".html", ".htm"):
        raise ScenarioError(out, "--out", "the report is an HTML file: name it FILE.html")
    kind, page = build_report(args.folder)  # checks the folder before anything is written
    output.check_writable_file(out)
    output.write_text_atomic(Path(out), page)
    print(f"{kind} report written to {out}")
    return EXIT_OK


def cmd_plot(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .figures import FORMATS, cdf_figure, sweep_figure

    suffix = Path(args.out).suffix.lower().lstrip(".")
    if suffix in FORMATS:
        output.check_writable_file(args.out)
    else:
        output.check_writable_dir(Path(args.out).parent or ".")
    if args.metric is not None:
        if args.table is not None:
            raise UsageError("--table goes with --cdf, not --metric")
        files = sweep_figure(args.source, args.metric, args.out, x=args.x, flow=args.flow)
    else:
        if args.x is not None:
            raise UsageError("--x goes with --metric, not --cdf")
        tables = None
        if args.table is not None:
            tables = [t.strip() for t in args.table.split(",") if t.strip()]
        files = cdf_figure(args.source, args.cdf, args.out, tables=tables, flow=args.flow)
    print("wrote " + ", ".join(str(f) for f in files))
    return EXIT_OK


def cmd_schema(args: argparse.Namespace) -> int:
    from .schema import keys_markdown, scenario_schema

    if args.markdown:
        sys.stdout.write(keys_markdown(scenario_schema()))
    else:
        import json

        sys.stdout.write(json.dumps(scenario_schema(), indent=2, ensure_ascii=True) + "\n")
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    from .api import load_scenario
    from .errors import SkyhopError

    bad = 0
    for f in args.files:
        try:
            load_scenario(f, set=args.sets)
        except SkyhopError as e:
            bad += 1
            output.error_line(str(e))
        except OSError as e:
            bad += 1
            output.error_line(f"{f}: {e.strerror or e}")
        else:
            print(f"{f}: ok")
    return EXIT_ERROR if bad else EXIT_OK


def cmd_channel_plot(args: argparse.Namespace) -> int:
    from .api import load_scenario
    from .channel_plot import plot_channel, sample_channel
    from .units import duration_s

    output.check_writable_file(args.out)
    duration = None if args.duration is None else duration_s(args.duration, "--duration")
    scn = load_scenario(args.scenario, set=args.sets)
    samples = sample_channel(
        scn, args.link, direction=args.direction, seed=args.seed, duration_s=duration
    )
    plot_channel(samples, args.out, title=f"links.{args.link}.{args.direction}")
    print(f"channel of links.{args.link}.{args.direction} drawn in {args.out}")
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import DEFAULT_BENCHES, VARIANT_BENCHES, bench

    if args.variants and args.scenarios:
        raise UsageError("--variants takes no scenario files")
    default = VARIANT_BENCHES if args.variants else DEFAULT_BENCHES
    report = bench(args.scenarios or default, args.repeat)
    if args.json:
        sys.stdout.write(output.dump_json(report) + "\n")
    else:
        output.print_bench_table(report)
    return EXIT_OK


# ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``skyhop`` command; returns the exit status."""
    output.robust_streams()
    try:
        from .errors import SkyhopError
    except ImportError as e:  # pragma: no cover - broken install
        output.error_line(f"cannot load the skyhop engine: {e}")
        return EXIT_INTERNAL
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except SkyhopError as e:  # bad input, failed run, lost worker, bad option
        output.error_line(str(e))
        return EXIT_ERROR
    except KeyboardInterrupt:
        output.info_line("interrupted")
        _exit_now_if_runs_in_flight(EXIT_INTERRUPTED)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # e.g. `skyhop run ... --json | head`: not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as e:
        name = f"{e.filename}: " if e.filename else ""
        output.error_line(f"{name}{e.strerror or e}")
        return EXIT_ERROR
    except MemoryError:
        output.error_line("out of memory (fewer --jobs or --runs at once may help)")
        return EXIT_ERROR
    except Exception as e:  # a bug in skyhop itself
        if os.environ.get("SKYHOP_DEBUG"):
            raise
        output.error_line_internal(e)
        return EXIT_INTERNAL


def _exit_now_if_runs_in_flight(status: int) -> None:
    """After Ctrl-C, simulations still running in background threads (the
    engine cannot be stopped mid-run yet) must not delay or disturb the exit:
    leave at once, output flushed."""
    import threading

    if any(t.name == "skyhop-run" and t.is_alive() for t in threading.enumerate()):
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
