"""The argument parser of the ``skyhop`` command: every subcommand, its
options and the function that carries it out."""

from __future__ import annotations

import argparse

from .commands import (
    cmd_bench,
    cmd_channel_plot,
    cmd_describe,
    cmd_experiment,
    cmd_plot,
    cmd_report,
    cmd_run,
    cmd_schema,
    cmd_sweep,
    cmd_validate,
)
from .common import _Parser, _positive_int, _run_count, _seed
from .live import cmd_live, cmd_replay


def _add_scenario_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    p.add_argument(
        "--runs",
        type=_run_count,
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
        "--duration",
        metavar="D",
        help='simulated time of each run, e.g. 120s or "2 min" (as --set run.duration=D; '
        "default: run.duration of the scenario)",
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


def _add_trace_thinning(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--trace-every",
        metavar="D",
        help="keep each traced series' value at every multiple of D (e.g. 10ms): one point "
        "per D at most, instead of every change; implies --trace",
    )
    p.add_argument(
        "--trace-series",
        metavar="Q1,Q2",
        help="trace only these quantities (cwnd, ssthresh, srtt, flight, rwnd, "
        "rate_estimate, occupancy, queue, delay); implies --trace",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``skyhop`` command."""
    from .. import __version__

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
    _add_trace_thinning(p_run)
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
    p_run.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no warnings or progress bar on stderr (errors still; --json keeps the warnings)",
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
        "--wake-window",
        default="0s",
        metavar="D",
        help="sleep up to D past the next event, so that the events due within D share one "
        "wake-up (each packet up to D later; fewer timers: more goodput at gigabit rates). "
        "Default 0s: every wait ends at the next event",
    )
    p_live.add_argument(
        "--no-realtime",
        action="store_true",
        help="do not ask for SCHED_FIFO and a pinned CPU for the engine",
    )
    p_live.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no warnings on stderr (errors still; --json keeps the warnings)",
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
    p_sweep.add_argument(
        "--case",
        action="append",
        default=[],
        metavar="NAME:PATH=V,PATH=V",
        dest="cases",
        help="a named set of settings swept together (e.g. a proxy and the legs it "
        "splits): one value of the 'case' column, crossed with the --grid values; "
        "repeatable",
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
    _add_trace_thinning(p_sweep)
    _add_backend_options(p_sweep)
    p_sweep.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no warnings or progress on stderr (errors still; --json keeps the warnings)",
    )
    p_sweep.set_defaults(func=cmd_sweep)

    p_exp = sub.add_parser(
        "experiment",
        help="re-run a published experiment by name (E1, E2, E3, E4, E5, E6, E7)",
        description="Run the full grid of a published experiment and write results.parquet, "
        "summary.json (beside the published numbers of "
        "python/skyhop/experiments/targets.toml) and the figures (PNG, PDF, SVG) into DIR. "
        "Interrupted experiments resume where they stopped.",
    )
    p_exp.add_argument("name", metavar="NAME", help="E1, E2, E3, E4, E5, E6 or E7")
    p_exp.add_argument(
        "--runs",
        type=_run_count,
        metavar="N",
        help="runs per point (default: the published count, "
        "20 for E1, E5 and E6, 100 for E2/E3, 1000 for E4, 1 for E7)",
    )
    p_exp.add_argument("--seed", type=_seed, default=1, metavar="S", help="base seed (default 1)")
    p_exp.add_argument("--out", metavar="DIR", help="output directory (default: out/NAME)")
    p_exp.add_argument(
        "--jobs", type=_positive_int, metavar="J", help="worker processes (default: all CPUs)"
    )
    p_exp.add_argument(
        "--profile",
        choices=("ns2", "studies"),
        help="run under this TCP profile alone (default: every profile the experiment runs "
        "under: ns2, the studies' own simulator, then studies, the era's TCP by the RFCs; "
        "E5 runs under studies only)",
    )
    p_exp.add_argument("--json", action="store_true", help="print the summary document on stdout")
    _add_backend_options(p_exp)
    p_exp.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no warnings or progress on stderr (errors still; --json keeps the warnings)",
    )
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
        help="draw a sweep's metric against its swept keys, the CDF of a result table "
        "column, traced series over time, or a flow's RTT with the epoch boundaries",
        description="With --metric: a sweep's metric (mean with its 95 %% CI) against one "
        "swept path, one line per combination of the other swept paths. With --cdf: the "
        "empirical CDF of a column of the result tables (e.g. response_time_s of a web "
        "session's objects and pages), of a sweep folder or of a file holding the JSON "
        "document of 'skyhop run --json'. With --trace: traced quantities over time (RTT, "
        "windows, queues, route delays), one panel each, from a --trace-out table, a run "
        "document or a traced sweep. FILE.png, .pdf or .svg writes that format; any "
        "other name gets all three.",
    )
    p_fig.add_argument(
        "source",
        metavar="DIR|RUN.json|TRACES",
        help="sweep folder (or, with --cdf, a run document; with --trace, a trace table, "
        "a run document or a traced sweep folder)",
    )
    what = p_fig.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--metric", metavar="METRIC", help="a metric of summary.json, e.g. goodput_bps"
    )
    what.add_argument(
        "--cdf", metavar="COLUMN", help="a column of the result tables, e.g. response_time_s"
    )
    what.add_argument(
        "--trace",
        metavar="Q1,Q2",
        help="traced quantities over time, e.g. srtt,cwnd (cwnd, ssthresh, srtt, flight, "
        "rwnd, rate_estimate, occupancy, queue, delay)",
    )
    what.add_argument(
        "--rtt",
        metavar="FLOW",
        help="a flow's RTT over time from a traced run document (a TCP flow's srtt, a "
        "probe's one-way delay), with the access network's epoch boundaries marked",
    )
    p_fig.add_argument(
        "--back",
        metavar="FLOW",
        help="with --rtt on a probe: the probe flow the other way; draws the round trip",
    )
    p_fig.add_argument(
        "--seed", type=_seed, metavar="S", help="with --trace: only the run with this seed"
    )
    p_fig.add_argument(
        "--epochs",
        metavar="PERIOD[@OFFSET]",
        help="with --trace: mark epoch boundaries every PERIOD from OFFSET (routing.epoch, "
        "routing.epoch_offset; e.g. '15 s@12 s'); a run document's epoch events are marked "
        "without it",
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
        "packet-hops per second and simulated seconds per wall second (one run at a time).",
    )
    p_bench.add_argument(
        "scenarios",
        nargs="*",
        metavar="SCENARIO.toml",
        help="scenarios to time (default: benches/e1_chain.toml benches/dumbbell_1g.toml "
        "benches/leo_b2_kuiper_1g.toml)",
    )
    p_bench.add_argument(
        "--variants",
        action="store_true",
        help="time the variants' cases instead: SACK, linux-profile CUBIC and BBR with "
        "RACK on the 1 Gb/s dumbbell, and holes with SACK, each after its NewReno case",
    )
    p_bench.add_argument(
        "--quic",
        action="store_true",
        help="time the QUIC cases instead (quinn-proto over 100 Mb/s GEO and at 1 Gb/s): "
        "also QUIC datagrams per processor second",
    )
    p_bench.add_argument(
        "--repeat",
        type=_run_count,
        metavar="N",
        help="runs per scenario, at most as many as run.runs allows (default: the "
        "scenario's run.runs)",
    )
    p_bench.add_argument(
        "--rounds",
        type=_run_count,
        default=1,
        metavar="N",
        help="run the whole list N times, one round after the other; each scenario "
        "reports its fastest round, and with --variants each variant its events/s "
        "relative to its NewReno case in every round and their median (default: 1)",
    )
    p_bench.add_argument("--json", action="store_true", help="machine-readable output")
    p_bench.set_defaults(func=cmd_bench)
    return parser
