"""The commands of ``skyhop`` but live and replay: each reads its parsed
arguments, calls the libraries and writes through :mod:`skyhop._output`."""

from __future__ import annotations

import argparse
import sys

from .. import _output as output
from .. import _terminal as terminal
from ..errors import UsageError
from .common import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK

# `typing` for type checkers only, `pathlib` in the commands that use it:
# `skyhop run` imports neither
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any


def _sweep_options(args: argparse.Namespace) -> Any:
    """``--backend``, ``--address`` and ``--jobs`` as one
    :class:`~skyhop.sweep.SweepOptions`, built once for the whole command."""
    from ..sweep import SweepOptions

    if args.address is not None and args.backend != "ray":
        raise UsageError("--address needs --backend ray")
    return SweepOptions(args.backend, args.address, args.jobs)


# ---------------------------------------------------------------------------
# skyhop run


def run_document(
    scenario: dict[str, Any],
    runs: list[dict[str, Any]],
    trace: bool,
    network: dict[str, Any] | None = None,
) -> dict:
    """The ``--json`` document: scenario, network, runs (seed order), summary."""
    from ..stats import flow_metrics, summarize
    from ..tables import flow_tables

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
        for key in (
            "proxies",
            "quic",
            "links",
            "network_events",
            "network",
            "media",
            "engine",
            "warnings",
            "jain_fairness",
            "pcap_files",
        ):
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
    from ..errors import ScenarioError

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
    from ..errors import ScenarioError
    from ..units import duration_s

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


def _names(text: str, key: str) -> list[str]:
    """``a,b`` as names, at least one."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        from ..errors import ScenarioError

        raise ScenarioError("<options>", key, f"give at least one name, got {text!r}")
    return names


def _trace_thinning(args: argparse.Namespace) -> dict[str, Any] | None:
    """``--trace-every`` and ``--trace-series`` as the engine's options
    (``trace_every_s``, ``trace_series``), or None when neither is given."""
    every, series = getattr(args, "trace_every", None), getattr(args, "trace_series", None)
    if every is None and series is None:
        return None
    from ..units import duration_s

    out: dict[str, Any] = {}
    if every is not None:
        out["trace_every_s"] = duration_s(every, "--trace-every")
    if series is not None:
        out["trace_series"] = _names(series, "--trace-series")
    return out


def _scenario_sets(args: argparse.Namespace) -> list[str]:
    """``--set`` overrides, then ``--duration`` as ``run.duration``."""
    if getattr(args, "duration", None) is None:
        return args.sets
    import json

    from ..units import duration_s

    duration_s(args.duration, "--duration")  # a bad one named as the option
    return [*args.sets, f"run.duration={json.dumps(args.duration)}"]


def _check_out_file(out: str | None, key: str = "--out") -> None:
    if not out:
        return
    from pathlib import Path

    if Path(out).suffix.lower() not in (".parquet", ".csv"):
        from ..errors import ScenarioError

        raise ScenarioError(out, key, "unsupported file type (use .parquet or .csv)")
    output.check_writable_file(out, key)


def cmd_describe(args: argparse.Namespace) -> int:
    from ..api import describe

    desc = describe(args.scenario, set=args.sets)
    if args.json:
        sys.stdout.write(output.dump_json(desc) + "\n")
    else:
        terminal.print_description(args.scenario, desc)
    return EXIT_OK


def cmd_run(args: argparse.Namespace) -> int:
    from ..api import Results, check_memory, check_seeds, load_scenario, run_seeds

    _check_out_file(args.out)
    _check_out_file(args.trace_out, "--trace-out")
    _check_out_file(args.packet_log, "--packet-log")
    thinning = _trace_thinning(args)
    trace = args.trace or bool(args.trace_out) or thinning is not None
    sets = _scenario_sets(args)
    scn = load_scenario(args.scenario, set=sets)
    base, n = check_seeds(
        scn.default_seed if args.seed is None else args.seed,
        scn.default_runs if args.runs is None else args.runs,
    )
    seeds = list(range(base, base + n))
    observe: dict[str, Any] | None = None
    if thinning is not None:
        observe = dict(thinning)
    if args.packet_log or args.pcap:
        observe = observe or {}
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

    check_memory(scn, n, jobs=args.jobs, trace=trace, observe=observe)
    bar = None if args.json or args.quiet else output.progress_bar(n)
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
    if not args.quiet:
        for w in output.group_warnings(results.warnings):
            output.warning_line(w)
    if args.out:
        output.write_table(results.to_pandas(), args.out)
    if args.trace_out:
        output.write_table(results.trace_frame(), args.trace_out)
    if args.packet_log:
        output.write_table(results.packet_log_frame(), args.packet_log)
    for r in runs:
        r.pop("packet_log", None)
    # The resolved network of the scenario already read (a pipe is read once).
    import json

    from .. import _core

    network = json.loads(_core.describe(scn.loaded))
    if args.json:
        doc = run_document(scn.resolved, runs, trace, network)
        sys.stdout.write(output.dump_json(doc) + "\n")
    else:
        terminal.print_run_table(
            scn.file,
            seeds,
            results.summary(),
            jain=[r.get("jain_fairness") for r in results.runs],
            tcp=terminal.flows_tcp(network),
            finite={f["flow"]: bool(f.get("finite")) for f in network.get("flows", [])},
        )
        if args.out:
            print(f"wrote {args.out}")
    return EXIT_OK


# ---------------------------------------------------------------------------
# skyhop sweep


def cmd_sweep(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..errors import ScenarioError
    from ..sweep import SweepInterrupted, run_sweep

    if not args.grid and not args.cases:
        raise ScenarioError(
            args.scenario,
            "--grid",
            "give at least one --grid PATH=V1,V2,... (or --case NAME:PATH=V,...)",
        )
    options = _sweep_options(args)
    output.quiet_resource_tracker()
    progress = output.RunProgress("sweep", quiet=args.quiet)
    try:
        info = run_sweep(
            args.scenario,
            args.grid,
            out=args.out,
            runs=args.runs,
            seed=args.seed,
            set=_scenario_sets(args),
            resume=args.resume,
            options=options,
            on_progress=progress.update,
            on_warning=progress.warning,
            trace=args.trace,
            trace_options=_trace_thinning(args),
            cases=args.cases or None,
        )
    except SweepInterrupted as e:
        progress.close()
        output.info_line(
            f"interrupted: {e.done} of {e.total} runs saved in {args.out}; continue with --resume"
        )
        return EXIT_INTERRUPTED
    except ScenarioError as e:
        if (e.file, e.key) == ("<options>", "grid"):  # the option, as the command line names it
            raise ScenarioError("<options>", "--grid", e.message) from None
        raise
    finally:
        progress.close()
    if args.json:
        sys.stdout.write((Path(args.out) / "summary.json").read_text(encoding="utf-8"))
    else:
        import json

        summary_doc = json.loads((Path(args.out) / "summary.json").read_text(encoding="utf-8"))
        terminal.print_sweep_table(f"sweep of {Path(args.scenario).name}", summary_doc)
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

    from ..errors import ScenarioError
    from ..experiments import EXPERIMENTS, run_experiment
    from ..sweep import SweepInterrupted

    name = args.name.upper()
    if name not in EXPERIMENTS:
        raise ScenarioError(
            "<experiment>",
            "name",
            f"unknown experiment {args.name!r} (known: {', '.join(EXPERIMENTS)})",
        )
    options = _sweep_options(args)
    out = args.out or str(Path("out") / name)
    output.check_writable_dir(out)
    output.quiet_resource_tracker()
    progress = output.RunProgress(name, quiet=args.quiet)
    try:
        doc = run_experiment(
            name,
            out,
            runs=args.runs,
            seed=args.seed,
            on_progress=progress.update,
            on_warning=progress.warning,
            options=options,
            profile=args.profile,
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
        from ..experiments.common import claims_text

        print(f"{name}: results, summary.json and figures in {out}")
        print(claims_text(doc["claims"]))
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..errors import ScenarioError
    from ..report import build_report

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

    from ..figures import FORMATS
    from ..plot import cdf_figure, sweep_figure

    suffix = Path(args.out).suffix.lower().lstrip(".")
    if suffix in FORMATS:
        output.check_writable_file(args.out)
    else:
        output.check_writable_dir(Path(args.out).parent or ".")
    if args.back is not None and args.rtt is None:
        raise UsageError("--back goes with --rtt")
    if args.seed is not None and args.trace is None:
        raise UsageError("--seed goes with --trace")
    if args.epochs is not None and args.trace is None:
        raise UsageError("--epochs goes with --trace (--rtt marks a run's epochs itself)")
    if args.rtt is not None:
        from ..rtt_plot import plot_rtt

        for opt, v in (("--x", args.x), ("--table", args.table), ("--flow", args.flow)):
            if v is not None:
                raise UsageError(f"{opt} does not go with --rtt")
        files = plot_rtt(args.source, args.rtt, args.out, back=args.back)
    elif args.trace is not None:
        from ..plot import trace_figure

        for opt in ("x", "table"):
            if getattr(args, opt) is not None:
                raise UsageError(f"--{opt} goes with --metric or --cdf, not --trace")
        quantities = _names(args.trace, "--trace")
        files = trace_figure(
            args.source, quantities, args.out, flow=args.flow, seed=args.seed, epochs=args.epochs
        )
    elif args.metric is not None:
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
    from ..schema import keys_markdown, scenario_schema

    if args.markdown:
        sys.stdout.write(keys_markdown(scenario_schema()))
    else:
        import json

        sys.stdout.write(json.dumps(scenario_schema(), indent=2, ensure_ascii=True) + "\n")
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    from ..api import load_scenario
    from ..errors import SkyhopError

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
    from pathlib import Path

    from ..api import load_scenario
    from ..channel_plot import plot_channel, sample_channel
    from ..errors import ScenarioError
    from ..figures import FORMATS
    from ..units import duration_s

    if Path(args.out).suffix.lower().lstrip(".") not in FORMATS:
        raise ScenarioError(
            args.out, "--out", f"unsupported image type (use {', '.join('.' + f for f in FORMATS)})"
        )
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
    from ..bench import DEFAULT_BENCHES, QUIC_BENCHES, VARIANT_BASELINES, VARIANT_BENCHES, bench

    if args.variants and args.scenarios:
        raise UsageError("--variants takes no scenario files")
    if args.quic and (args.scenarios or args.variants):
        raise UsageError("--quic takes no scenario files and not --variants")
    from pathlib import Path

    from ..errors import ScenarioError

    for p in args.scenarios:
        if Path(p).is_dir():
            raise ScenarioError(p, "", "is a folder: name the scenario files to time (*.toml)")
        if Path(p).exists() and not Path(p).is_file():
            raise ScenarioError(p, "", "not a regular file: name the scenario files to time")
    default = VARIANT_BENCHES if args.variants else QUIC_BENCHES if args.quic else DEFAULT_BENCHES
    baselines = VARIANT_BASELINES if args.variants else None
    report = bench(args.scenarios or default, args.repeat, args.rounds, baselines)
    if args.json:
        sys.stdout.write(output.dump_json(report) + "\n")
    else:
        terminal.print_bench_table(report)
    return EXIT_OK
