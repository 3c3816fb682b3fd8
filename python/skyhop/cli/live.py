"""``skyhop live`` and ``skyhop replay``: real hosts in the scenario's
network, and the deterministic replay of their record."""

from __future__ import annotations

import argparse
import json
import os
import sys

from .. import _output as output
from .. import _terminal as terminal
from ..errors import UsageError
from .commands import _link_names, _scenario_sets, run_document
from .common import EXIT_OK

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any


def cmd_live(args: argparse.Namespace) -> int:
    from .. import _core
    from ..api import read_source
    from ..live import RecordError, load_live_scenario, parse_command, userns_reexec_argv
    from ..units import duration_s

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
    # --duration is run.duration (its range, its memory estimate), as for run
    scn, _ = load_live_scenario(read_source(args.scenario), _scenario_sets(args), commands)
    grace = duration_s(args.grace, "--grace")
    warn = duration_s(args.lateness_warn, "--lateness-warn")
    wake = duration_s(args.wake_window, "--wake-window")
    abort = None
    if args.lateness_abort is not None:
        abort = duration_s(args.lateness_abort, "--lateness-abort")
    if args.pcap:
        output.check_writable_dir(args.pcap, "--pcap")
    elif args.pcap_links:
        raise UsageError("--pcap-links needs --pcap DIR")
    pcap_links = _link_names(args.pcap_links, scn, "--pcap-links")
    seed = scn.default_seed if args.seed is None else args.seed
    import signal

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt  # stop the hosts' commands and clean up, as Ctrl-C does

    # what --json reports of the network: from the scenario as run, now
    network = json.loads(_core.describe(scn.loaded)) if args.json else None
    old_term = signal.signal(signal.SIGTERM, on_term)
    try:
        doc = _live_run(scn, commands, seed, args, (grace, warn, wake, abort), pcap_links)
    finally:
        signal.signal(signal.SIGTERM, old_term)
    result, report = doc["result"], doc["live"]
    result["seed"] = seed
    if report.get("pcap_files") is not None:
        result["pcap_files"] = report.pop("pcap_files")
    if not args.quiet:
        warnings = [w for w in result.get("warnings", []) if w not in report["warnings"]]
        for w in output.group_warnings([*warnings, *report["warnings"]]):
            output.warning_line(w)
    output.info_line(terminal.lateness_text(report))
    if args.json:
        out = run_document(scn.resolved, [result], args.trace, network)
        out["live"] = report
        sys.stdout.write(output.dump_json(out) + "\n")
    else:
        terminal.print_live_report(scn.file, result, report)
    if report.get("record_error"):
        sys.stdout.flush()  # the results first: they are complete
        raise RecordError(
            f"--record: {report['record_error']}; the run's results above are complete, "
            "its record is not (it cannot be replayed)"
        )
    return report["exit_code"]


def _live_run(
    scn: Any,
    commands: list[Any],
    seed: int,
    args: argparse.Namespace,
    times: tuple[float, float, float, float | None],
    pcap_links: list[str] | None,
) -> dict[str, Any]:
    from ..live import live

    grace, warn, wake, abort = times

    return live(
        scn,
        commands,
        seed=seed,
        grace_s=grace,
        lateness_warn_s=warn,
        wake_window_s=wake,
        lateness_abort_s=abort,
        realtime=not args.no_realtime,
        record=args.record,
        trace=args.trace,
        pcap_dir=args.pcap,
        pcap_links=pcap_links,
        stdout_to_stderr=args.json,
    )


def cmd_replay(args: argparse.Namespace) -> int:
    from ..live import replay

    if args.pcap:
        output.check_writable_dir(args.pcap, "--pcap")
    scn, result = replay(args.record, trace=args.trace, pcap_dir=args.pcap)
    if args.json:
        sys.stdout.write(output.dump_json(run_document(scn.resolved, [result], args.trace)) + "\n")
    else:
        terminal.print_live_report(args.record, result, None)
    return EXIT_OK
