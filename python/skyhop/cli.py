"""The ``skyhop`` command line.

Contract (relied upon by other tools; documented in README.md):

``skyhop run SCENARIO.toml [--runs N] [--seed S] [--set PATH=VALUE ...] [--json]
[--out FILE.parquet|FILE.csv] [--trace] [--jobs J]``

- ``--json`` prints exactly one JSON document on stdout:
  ``{"scenario": {...}, "runs": [{"seed": S, "flows": {NAME: {...}}, ...}],
  "summary": {NAME: {METRIC: {"mean": M, "ci95": H, "n": K}}}}``.
- Bad input prints one line ``skyhop: error: FILE: KEY: problem`` on stderr
  and exits with status 2; never a traceback.
- Exit status: 0 success, 2 bad input or failed run, 3 internal error,
  130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

__all__ = ["main"]

EXIT_OK = 0
EXIT_ERROR = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """Bad command-line usage (reported like a ScenarioError)."""


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
    p_run.set_defaults(func=cmd_run)

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
    p_sweep.set_defaults(func=cmd_sweep)

    p_exp = sub.add_parser(
        "experiment",
        help="re-run a published experiment by name (E1, E2, E3)",
        description="Run the full grid of a published experiment (SPEC section 9) and write "
        "results.parquet, summary.json (beside the published numbers) and the figures into "
        "DIR. Interrupted experiments resume where they stopped.",
    )
    p_exp.add_argument("name", metavar="NAME", help="E1, E2 or E3")
    p_exp.add_argument(
        "--runs",
        type=_positive_int,
        metavar="N",
        help="runs per point (default: the published count, 20 for E1, 100 for E2/E3)",
    )
    p_exp.add_argument("--seed", type=_seed, default=1, metavar="S", help="base seed (default 1)")
    p_exp.add_argument("--out", metavar="DIR", help="output directory (default: out/NAME)")
    p_exp.add_argument(
        "--jobs", type=_positive_int, metavar="J", help="worker processes (default: all CPUs)"
    )
    p_exp.add_argument("--json", action="store_true", help="print the summary document on stdout")
    p_exp.set_defaults(func=cmd_experiment)

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
        "--repeat",
        type=_positive_int,
        metavar="N",
        help="runs per scenario (default: the scenario's run.runs)",
    )
    p_bench.add_argument("--json", action="store_true", help="machine-readable output")
    p_bench.set_defaults(func=cmd_bench)
    return parser


# ---------------------------------------------------------------------------
# output helpers


def _finite(obj: Any) -> Any:
    """Replace NaN and infinities by None, so the output is strict JSON."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_finite(v) for v in obj]
    return obj


def dump_json(doc: Any) -> str:
    """The one JSON document printed on stdout (deterministic, strict JSON)."""
    return json.dumps(_finite(doc), allow_nan=False, ensure_ascii=False)


def _warn(message: str) -> None:
    print(f"skyhop: warning: {message}", file=sys.stderr)


def _check_out_file(out: str | None) -> None:
    if out and Path(out).suffix.lower() not in (".parquet", ".csv"):
        from .errors import ScenarioError

        raise ScenarioError(out, "--out", "unsupported file type (use .parquet or .csv)")


def write_table(df: Any, out: str) -> None:
    """Write a DataFrame to ``out`` (.parquet or .csv), creating parent folders."""
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".parquet":
        df.to_parquet(path, index=False)
    else:
        df.to_csv(path, index=False)


def progress_bar(total: int) -> Any:
    """A transient rich progress bar (on stderr) when both outputs are terminals
    and there is more than one run; otherwise None."""
    if total < 2 or not (sys.stdout.isatty() and sys.stderr.isatty()):
        return None
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )


# ---------------------------------------------------------------------------
# skyhop run


def run_document(scenario: dict[str, Any], runs: list[dict[str, Any]], trace: bool) -> dict:
    """The ``--json`` document: scenario, runs (seed order), summary."""
    from .stats import flow_metrics, summarize

    out_runs = []
    for r in runs:
        entry: dict[str, Any] = {
            "seed": r["seed"],
            "flows": {name: flow_metrics(f) for name, f in r["flows"].items()},
        }
        for key in ("proxies", "engine", "warnings", "jain_fairness"):
            if key in r:
                entry[key] = r[key]
        if trace:
            entry["traces"] = r.get("traces", {})
        out_runs.append(entry)
    return {"scenario": scenario, "runs": out_runs, "summary": summarize(runs)}


def _fmt(stats: dict[str, Any], scale: float = 1.0, digits: int = 3) -> str:
    mean = stats.get("mean")
    if mean is None:
        return "—"
    text = f"{mean / scale:.{digits}f}"
    if stats.get("ci95") is not None:
        text += f" ± {stats['ci95'] / scale:.{digits}f}"
    return text


def print_table(file: str, seeds: list[int], summary: dict[str, Any]) -> None:
    """Print the human-readable summary of ``skyhop run``."""
    from rich.console import Console
    from rich.table import Table

    n = len(seeds)
    seed_text = f"seed {seeds[0]}" if n == 1 else f"seeds {seeds[0]}..{seeds[-1]}"
    table = Table(
        title=f"{file}: {n} run{'s' if n != 1 else ''} ({seed_text})",
        caption="mean ± half-width of the 95 % Student-t interval" if n > 1 else None,
    )
    table.add_column("flow", style="bold")
    table.add_column("completion time (s)", justify="right")
    table.add_column("goodput (Mb/s)", justify="right")
    table.add_column("retransmissions", justify="right")
    table.add_column("timeouts", justify="right")
    for flow, m in summary.items():
        empty = {"mean": None}
        ct = m.get("completion_time_s", empty)
        ct_text = _fmt(ct)
        if ct.get("mean") is not None and ct.get("n", n) < n:
            ct_text += f" ({ct['n']}/{n} finished)"
        elif ct.get("mean") is None and "completion_time_s" in m:
            ct_text = "— (bulk or unfinished)"
        table.add_row(
            flow,
            ct_text,
            _fmt(m.get("goodput_bps", empty), 1e6, 4),
            _fmt(m.get("retransmissions", empty), 1, 1),
            _fmt(m.get("timeouts", empty), 1, 2),
        )
    Console().print(table)


def cmd_run(args: argparse.Namespace) -> int:
    from .api import Results, check_seeds, load_scenario, run_seeds

    _check_out_file(args.out)
    scn = load_scenario(args.scenario, set=args.sets)
    base, n = check_seeds(
        scn.default_seed if args.seed is None else args.seed,
        scn.default_runs if args.runs is None else args.runs,
    )
    seeds = list(range(base, base + n))

    bar = None if args.json else progress_bar(n)
    if bar is None:
        runs = run_seeds(scn, seeds, trace=args.trace, jobs=args.jobs)
    else:
        with bar:
            task = bar.add_task("runs", total=n)
            runs = run_seeds(
                scn,
                seeds,
                trace=args.trace,
                jobs=args.jobs,
                on_done=lambda _s: bar.advance(task),
            )
    results = Results(scn.resolved, runs)
    for w in results.warnings:
        _warn(w)
    if args.out:
        write_table(results.to_pandas(), args.out)
    if args.json:
        sys.stdout.write(dump_json(run_document(scn.resolved, runs, args.trace)) + "\n")
    else:
        print_table(scn.file, seeds, results.summary())
        if args.out:
            print(f"wrote {args.out}")
    return EXIT_OK


def cmd_sweep(args: argparse.Namespace) -> int:
    from .sweep import run_sweep_cli

    return run_sweep_cli(args)


def cmd_experiment(args: argparse.Namespace) -> int:
    from .experiments import run_experiment

    name = args.name.upper()
    out = args.out or str(Path("out") / name)

    def progress(step: str) -> None:
        print(f"skyhop: {name}: {step}", file=sys.stderr, flush=True)

    doc = run_experiment(
        name, out, runs=args.runs, seed=args.seed, jobs=args.jobs, progress=progress
    )
    if args.json:
        sys.stdout.write(dump_json(doc) + "\n")
    else:
        print(f"{name}: results, summary.json and figures in {out}")
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import run_bench_cli

    return run_bench_cli(args)


# ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``skyhop`` command; returns the exit status."""
    try:
        from .errors import SkyhopError
    except ImportError as e:  # broken install: the compiled core is missing
        print(f"skyhop: error: cannot load the skyhop engine: {e}", file=sys.stderr)
        return EXIT_INTERNAL
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except UsageError as e:
        print(f"skyhop: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except SkyhopError as e:
        print(f"skyhop: error: {_one_line(str(e))}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("skyhop: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # e.g. `skyhop run ... --json | head`: not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as e:
        name = f"{e.filename}: " if e.filename else ""
        print(f"skyhop: error: {name}{e.strerror or e}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as e:  # a bug in skyhop itself
        if os.environ.get("SKYHOP_DEBUG"):
            raise
        print(
            f"skyhop: internal error: {type(e).__name__}: {_one_line(str(e))} "
            "(set SKYHOP_DEBUG=1 for a traceback; please report)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def _one_line(text: str) -> str:
    return " ".join(text.split()) if "\n" in text else text


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
