"""What skyhop writes: the JSON documents, the tables, the ``skyhop: error:`` /
``skyhop: warning:`` lines and the progress bar (one place for all of them).

Only the standard library is imported here; rich and pandas are imported by
the functions that need them, so ``skyhop run --json`` never loads them.
"""

from __future__ import annotations

import json
import math
import os
import sys
import threading

# `typing` for type checkers only and `pathlib` where a file is written:
# `skyhop run --json` imports neither
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path
    from typing import Any

__all__ = [
    "RunProgress",
    "check_writable_dir",
    "check_writable_file",
    "dump_json",
    "error_line",
    "error_line_internal",
    "info_line",
    "one_line",
    "print_bench_table",
    "print_description",
    "print_run_table",
    "print_sweep_table",
    "progress_bar",
    "progress_line",
    "robust_streams",
    "warning_line",
    "write_bytes_atomic",
    "write_table",
    "write_text_atomic",
]


# ---------------------------------------------------------------------------
# streams and lines


def robust_streams() -> None:
    """Never fail on a character the terminal cannot show.

    Node and flow names may be any Unicode; on an ASCII (or otherwise
    limited) terminal, unencodable characters are written as backslash
    escapes instead of raising ``UnicodeEncodeError``. JSON output does not
    depend on this: :func:`dump_json` escapes every non-ASCII character.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # pragma: no cover - detached or closed
                pass


def one_line(text: str) -> str:
    """``text`` with any line breaks folded into single spaces."""
    return " ".join(text.split()) if "\n" in text or "\r" in text else text


def error_line(message: str) -> None:
    """``skyhop: error: MESSAGE`` on stderr (the one line of a failed command)."""
    _line(f"skyhop: error: {one_line(message)}")


def error_line_internal(e: BaseException) -> None:
    """The one line of an internal error (exit status 3: a bug in skyhop)."""
    _line(
        f"skyhop: internal error: {type(e).__name__}: {one_line(str(e))} "
        "(set SKYHOP_DEBUG=1 for a traceback; please report)"
    )


def warning_line(message: str) -> None:
    """``skyhop: warning: MESSAGE`` on stderr."""
    _line(f"skyhop: warning: {one_line(message)}")


def info_line(message: str) -> None:
    """``skyhop: MESSAGE`` on stderr (progress notes, interruptions)."""
    _line(f"skyhop: {one_line(message)}")


def progress_line(message: str) -> None:
    """``skyhop: progress: MESSAGE`` on stderr (what a long command is doing)."""
    _line(f"skyhop: progress: {one_line(message)}")


def _line(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# JSON


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
    """A JSON document as skyhop prints and stores it: deterministic, strict
    JSON (no NaN), pure ASCII (non-ASCII names appear as ``\\uXXXX`` escapes,
    so the document is the same bytes on every terminal and locale)."""
    return json.dumps(_finite(doc), allow_nan=False, ensure_ascii=True)


# ---------------------------------------------------------------------------
# output files


def check_writable_file(out: str | os.PathLike[str], key: str = "--out") -> None:
    """Make sure ``out`` can be written, before any simulation runs.

    Creates the parent folders and writes (and removes) a scratch file next
    to ``out``. Raises ScenarioError naming ``out`` otherwise.
    """
    from pathlib import Path

    from .errors import ScenarioError

    path = Path(out)
    if path.is_dir():
        raise ScenarioError(str(out), key, "is a directory, not a file")
    if path.exists() and not os.access(path, os.W_OK):
        raise ScenarioError(str(out), key, "cannot write: permission denied")
    _probe_dir(path.parent, str(out), key)


def check_writable_dir(out: str | os.PathLike[str], key: str = "--out") -> None:
    """Create directory ``out`` (and parents) and check that files can be written in it."""
    from pathlib import Path

    _probe_dir(Path(out), str(out), key)


def _probe_dir(folder: Path, name: str, key: str) -> None:
    from .errors import ScenarioError

    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = _temp_path(folder / ".skyhop-probe")
        with open(probe, "xb"):
            pass
        probe.unlink()
    except OSError as e:
        raise ScenarioError(name, key, f"cannot write there: {e.strerror or e}") from None


def _temp_path(path: Path) -> Path:
    """A fresh name for a temporary file beside ``path`` (unique per process,
    thread and call), ending ``.tmp`` so that leftovers are recognised."""
    tag = f"{os.getpid()}-{threading.get_ident()}-{os.urandom(4).hex()}"
    return path.with_name(f".{path.name}.{tag}.tmp")


def _replace_with(path: Path, write: Any) -> None:
    """Write ``path`` through a temporary file in the same folder, renamed
    into place: readers see the old file or the whole new one, never a part.

    The temporary file is created like any new file (``open``), so the
    result has the mode ``0666 & ~umask`` like every file skyhop writes,
    not the ``0600`` of ``tempfile.mkstemp``.
    """
    tmp = _temp_path(path)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_table(df: Any, out: str | os.PathLike[str]) -> None:
    """Write a DataFrame to ``out`` (.parquet or .csv) atomically, creating parent folders."""
    from pathlib import Path

    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)

    def write(tmp: Path) -> None:
        if path.suffix.lower() == ".parquet":
            df.to_parquet(tmp, index=False)
        else:
            df.to_csv(tmp, index=False)

    _replace_with(path, write)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder."""
    from pathlib import Path

    def write(tmp: Path) -> None:
        with open(tmp, "xb") as f:
            f.write(data)

    _replace_with(Path(path), write)


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in the same folder."""
    write_bytes_atomic(path, text.encode("utf-8"))


# ---------------------------------------------------------------------------
# terminal output


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


def duration_text(seconds: float) -> str:
    """A duration for people: ``"45 s"``, ``"3 min 05 s"``, ``"1 h 02 min"``."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class RunProgress:
    """Runs done out of a total, with the elapsed time and an estimate of the
    time left, for long commands (sweeps, experiments).

    On a terminal (stderr) it is a transient rich progress bar; otherwise it
    prints ``skyhop: progress: LABEL: D/T runs (P %), E elapsed, about R left
    [STEP]`` lines on stderr: the first, then whenever another tenth of the
    runs is done or ``every_s`` seconds have passed, and the last. The
    estimate counts only runs made now (not those a resume found finished).

    ``update(done, total, step=None, skipped=0)`` is the callback to hand to
    a sweep or an experiment; ``warning(message)`` prints a warning without
    breaking the bar; ``close()`` ends it.
    """

    def __init__(
        self,
        label: str,
        *,
        terminal: bool | None = None,
        every_s: float = 10.0,
        clock: Any = None,
        stream: Any = None,
    ) -> None:
        import time

        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = self.stream.isatty() if terminal is None else terminal
        self.every_s = every_s
        self.clock = clock or time.monotonic
        self.t0 = self.clock()
        self.skipped = 0
        self.last_line = -math.inf
        self.last_tenth = -1
        self.done = self.total = 0
        self.step: str | None = None
        self.bar: Any = None
        self.task: Any = None
        self.finished = False

    def eta_s(self) -> float | None:
        """Seconds left at the pace of the runs made now; None before the first."""
        fresh = self.done - self.skipped
        left = self.total - self.done
        if fresh <= 0 or left < 0:
            return None
        return (self.clock() - self.t0) / fresh * left

    def text(self) -> str:
        # floored: 100 % only when every run is done
        pct = 100 * self.done // self.total if self.total else 100
        eta = self.eta_s()
        parts = [
            f"{self.label}: {self.done}/{self.total} runs ({pct} %)",
            f"{duration_text(self.clock() - self.t0)} elapsed",
        ]
        if self.done < self.total:
            parts.append(
                "estimating the time left" if eta is None else f"about {duration_text(eta)} left"
            )
        if self.skipped:
            parts.append(f"{self.skipped} already done")
        text = ", ".join(parts)
        return text + (f" [{self.step}]" if self.step and self.done < self.total else "")

    def update(self, done: int, total: int, step: str | None = None, skipped: int = 0) -> None:
        if skipped > self.skipped:
            self.skipped = skipped
        elif not self.total and done and not skipped:
            self.skipped = done  # the first report of a resumed sweep: runs found done
        self.done, self.total = done, total
        if step is not None:
            self.step = step
        if self.terminal:
            self._bar_update()
            return
        now = self.clock()
        tenth = int(10 * done / total) if total else 10
        if self.finished:
            return
        if done >= total or tenth > self.last_tenth or now - self.last_line >= self.every_s:
            self.last_tenth = max(tenth, self.last_tenth)
            self.last_line = now
            self.finished = done >= total
            print(f"skyhop: progress: {one_line(self.text())}", file=self.stream, flush=True)

    def _bar_update(self) -> None:
        if self.bar is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self.bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("runs"),
                TimeElapsedColumn(),
                TextColumn("{task.fields[eta]}"),
                console=Console(file=self.stream, stderr=self.stream is sys.stderr),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=self.total, eta="")
        eta = self.eta_s()
        self.bar.update(
            self.task,
            completed=self.done,
            total=self.total,
            description=f"{self.label}" + (f" [{self.step}]" if self.step else ""),
            eta="" if eta is None else f"about {duration_text(eta)} left",
        )

    def warning(self, message: str) -> None:
        if self.bar is not None:
            self.bar.console.print(f"skyhop: warning: {one_line(message)}", markup=False)
        else:
            warning_line(message)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def _fmt(stats: dict[str, Any], scale: float = 1.0, digits: int = 3) -> str:
    mean = stats.get("mean")
    if mean is None:
        return "—"
    text = f"{mean / scale:.{digits}f}"
    if stats.get("ci95") is not None:
        text += f" ± {stats['ci95'] / scale:.{digits}f}"
    return text


#: the run table's columns for every flow: (metric, header, scale, digits)
BASE_METRICS = [
    ("completion_time_s", "completion time (s)", 1.0, 3),
    ("goodput_bps", "goodput (Mb/s)", 1e6, 4),
    ("retransmissions", "retransmissions", 1.0, 1),
    ("timeouts", "timeouts", 1.0, 2),
]

_COUNT_SUFFIX = "_completed"
_RESPONSE_SUFFIX = "_response_mean_s"


def extra_metrics(metric_names: list[str]) -> list[tuple[str, str, str | None]]:
    """Columns beyond :data:`BASE_METRICS`, decided by the metric names an
    application reports (none for plain transfers): ``<what>_completed``
    counts (header ``<what>``) and ``<what>_response_mean_s`` response times
    (header ``<what> response (s)``, with ``<what>_response_p95_s`` beside
    the mean when reported). ``(metric, header, p95 metric or None)``, in the
    order the metrics first appear."""
    names = list(dict.fromkeys(metric_names))
    out: list[tuple[str, str, str | None]] = []
    for m in names:
        if m.endswith(_COUNT_SUFFIX) and len(m) > len(_COUNT_SUFFIX):
            out.append((m, m[: -len(_COUNT_SUFFIX)], None))
    for m in names:
        if m.endswith(_RESPONSE_SUFFIX) and len(m) > len(_RESPONSE_SUFFIX):
            what = m[: -len(_RESPONSE_SUFFIX)]
            p95 = f"{what}_response_p95_s"
            out.append((m, f"{what} response (s)", p95 if p95 in names else None))
    return out


def _present(summaries: list[dict[str, Any]]) -> list[str]:
    """Metric names with a value in some flow's summary, in first-seen order."""
    return [
        m
        for m in dict.fromkeys(m for per in summaries for m in per)
        if any(per.get(m, {}).get("mean") is not None for per in summaries)
    ]


def leg_tcp(leg: dict[str, Any]) -> str:
    """What TCP a leg of ``describe``'s document runs: its variant, the
    profile whose defaults it has, its controller and recovery, e.g.
    ``cubic, profile linux: cubic + prr, SACK, RACK, timestamps``."""
    if "profile" not in leg:
        return str(leg["tcp"])
    extras = [
        name
        for key, name in (("sack", "SACK"), ("rack", "RACK"), ("timestamps", "timestamps"))
        if leg.get(key)
    ]
    text = f"{leg['tcp']}, profile {leg['profile']}: {leg['controller']} + {leg['recovery']}"
    return ", ".join([text, *extras])


def flows_tcp(network: dict[str, Any] | None) -> dict[str, str]:
    """Per flow of ``describe``'s document, its legs' :func:`leg_tcp`
    (one per distinct leg, joined by `` | ``)."""
    out: dict[str, str] = {}
    for f in (network or {}).get("flows", []):
        texts = list(dict.fromkeys(leg_tcp(leg) for leg in f["legs"]))
        out[f["flow"]] = " | ".join(texts)
    return out


def print_run_table(
    file: str,
    seeds: list[int],
    summary: dict[str, Any],
    jain: list[float | None] | None = None,
    tcp: dict[str, str] | None = None,
) -> None:
    """Print the human-readable summary of ``skyhop run``: per flow, and
    the counts and response times an application reports (see
    :func:`extra_metrics`); under the table, Jain's fairness index of the
    flows' goodputs (``jain``: one per run) and what TCP each flow ran
    (``tcp``: flow → :func:`flows_tcp`'s text)."""
    from rich.console import Console
    from rich.table import Table

    n = len(seeds)
    seed_text = f"seed {seeds[0]}" if n == 1 else f"seeds {seeds[0]}..{seeds[-1]}"
    table = Table(
        title=f"{file}: {n} run{'s' if n != 1 else ''} ({seed_text})",
        caption="mean ± half-width of the 95 % Student-t interval" if n > 1 else None,
    )
    table.add_column("flow", style="bold")
    for _, header, _, _ in BASE_METRICS:
        table.add_column(header, justify="right")
    extra = extra_metrics(_present(list(summary.values())))
    for _, header, _ in extra:
        table.add_column(header, justify="right")
    empty = {"mean": None}
    for flow, m in summary.items():
        ct = m.get("completion_time_s", empty)
        ct_text = _fmt(ct)
        if ct.get("mean") is not None and ct.get("n", n) < n:
            ct_text += f" ({ct['n']}/{n} finished)"
        elif ct.get("mean") is None and "completion_time_s" in m:
            ct_text = "— (bulk or unfinished)"
        cells = [flow, ct_text]
        cells += [_fmt(m.get(k, empty), scale, d) for k, _, scale, d in BASE_METRICS[1:]]
        for metric, _, p95 in extra:
            if p95 is None:
                cells.append(_fmt(m.get(metric, empty), 1, 1))
            else:
                cells.append(_fmt(m.get(metric, empty)) + f" (p95 {_fmt(m.get(p95, empty))})")
        table.add_row(*cells)
    # a pipe or file gets the whole table, not one squeezed to 80 columns
    console = Console(width=None if sys.stdout.isatty() else 200)
    console.print(table)
    values = [j for j in (jain or []) if j is not None]
    if len(summary) > 1 and values:
        from .stats import summarize_values

        st = summarize_values(values)
        console.print(f"Jain's fairness index of the flows' goodputs: {_fmt(st, 1, 4)}")
    for flow, text in (tcp or {}).items():
        if flow in summary:
            console.print(f"{flow}: TCP {text}", highlight=False, markup=False)


def print_sweep_table(title: str, summary_doc: list[dict[str, Any]]) -> None:
    """Print a sweep's summary (summary.json): one row per point and flow,
    mean ± 95 % CI half-width (n) of the main metrics (those of
    :data:`BASE_METRICS` and the response times an application reports)."""
    from rich.console import Console
    from rich.table import Table

    paths = list(summary_doc[0]["set"]) if summary_doc else []
    table = Table(title=title, caption="mean ± half-width of the 95 % Student-t interval (n runs)")
    table.add_column("point", justify="right")
    for p in paths:
        table.add_column(p, justify="right")
    table.add_column("flow", style="bold")
    present = _present([per for e in summary_doc for per in e["summary"].values()])
    shown = [m for m in BASE_METRICS if m[0] in present]
    shown += [
        (metric, header, 1.0, 3)
        for metric, header, _ in extra_metrics(present)
        if metric.endswith(_RESPONSE_SUFFIX)
    ]
    for _, header, _, _ in shown:
        table.add_column(header, justify="right")
    for e in summary_doc:
        for flow, per in e["summary"].items():
            cells = []
            for metric, _, scale, digits in shown:
                st = per.get(metric, {"mean": None})
                text = _fmt(st, scale, digits)
                if st.get("mean") is not None:
                    text += f" ({st.get('n')})"
                cells.append(text)
            table.add_row(str(e["point"]), *(str(e["set"][p]) for p in paths), flow, *cells)
    # a pipe or file gets the whole table, not one squeezed to 80 columns
    Console(width=None if sys.stdout.isatty() else 200).print(table)


def _si(x: float | None) -> str:
    if x is None:
        return "—"
    for factor, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= factor:
            return f"{x / factor:.2f} {prefix}"
    return f"{x:.2f} "


def print_bench_table(report: dict[str, Any]) -> None:
    """Print the human-readable report of ``skyhop bench``."""
    from pathlib import Path

    from rich.console import Console
    from rich.table import Table

    table = Table(title="skyhop bench (one thread)")
    for col in ("scenario", "runs", "wall (s)", "events/s", "packet-hops/s", "sim s / wall s"):
        table.add_column(col, justify="left" if col == "scenario" else "right")
    for r in report["results"]:
        table.add_row(
            Path(r["scenario"]).stem,
            str(r["runs"]),
            f"{r['wall_s']:.3f}",
            _si(r["events_per_s"]),
            _si(r["packet_hops_per_s"]),
            f"{r['sim_s_per_wall_s']:.1f}" if r["sim_s_per_wall_s"] else "—",
        )
    Console().print(table)


def _rate(bps: float) -> str:
    for factor, unit in ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")):
        if bps >= factor:
            return f"{bps / factor:g} {unit}"
    return f"{bps:g} bit/s"


def _bytes(n: float) -> str:
    return f"{n / 1e6:.2f} MB" if n >= 1e6 else f"{n / 1e3:.1f} kB"


def print_description(file: str, d: dict[str, Any]) -> None:
    """Print ``skyhop describe``: links, flows and legs, warnings (plain text)."""
    out = [f"{file}: {len(d['nodes'])} nodes, run {d['duration_s']:g} s"]
    out.append("nodes: " + ", ".join(f"{n['node']} ({n['address']})" for n in d["nodes"]))
    out.append("links (per direction):")
    for ln in d["links"]:
        if ln["delay_source"] == "slant range":
            src = (
                f"slant range {ln['slant_range_m'] / 1e3:.3f} km, elevation "
                f"{ln['elevation_deg']:.2f} deg, azimuth {ln['azimuth_deg']:.2f} deg"
            )
        else:
            src = ln["delay_source"]
        frac = ln["queue_bdp_fraction"]
        queue = f"queue {ln['queue_packets']} packets"
        if frac is not None:
            queue += f" ({frac:.2f} x BDP {_bytes(ln['bdp_bytes'])})"
        chans = ", ".join(
            " ".join(f"{k}={v}" for k, v in c.items()) if isinstance(c, dict) else str(c)
            for c in ln["channels"]
        )
        out.append(
            f"  {ln['link']} {ln['dir']} {ln['from']} -> {ln['to']}: {_rate(ln['rate_bps'])}, "
            f"delay {ln['delay_s'] * 1e3:.6f} ms ({src}), {queue}, "
            f"errors: {chans or 'none'}"
        )
    out.append("flows:")
    for f in d["flows"]:
        size = f.get("app") or ("bulk" if f["size_bytes"] is None else _bytes(f["size_bytes"]))
        if f.get("app", "").startswith("file"):
            size = _bytes(f["size_bytes"])
        out.append(
            f"  {f['flow']}: {' - '.join(f['path'])}, {size}, start {f['start_s']:g} s, "
            f"{len(f['legs'])} leg{'s' if len(f['legs']) != 1 else ''}"
        )
        for i, leg in enumerate(f["legs"]):
            out.append(
                f"    leg {i} {leg['from']} -> {leg['to']} ({leg_tcp(leg)}): bottleneck "
                f"{_rate(leg['bottleneck_bps'])}, RTT {leg['rtt_s'] * 1e3:.3f} ms, BDP "
                f"{_bytes(leg['bdp_bytes'])} ({leg['bdp_packets']:.1f} packets); window "
                f"limit {leg['window_limit']} {_bytes(leg['window_limit_bytes'])}"
            )
    out.append("warnings:" if d["warnings"] else "warnings: none")
    out.extend(f"  {w}" for w in d["warnings"])
    print("\n".join(out))


def _ms(s: float | None) -> str:
    if s is None:
        return "—"
    return f"{s * 1e3:.3f} ms" if s >= 1e-3 else f"{s * 1e6:.0f} µs"


def lateness_text(report: dict[str, Any]) -> str:
    """The one-line time-fidelity summary of a live run (stderr)."""
    lat = report["lateness"]
    rt = report["realtime"]
    how = []
    if rt.get("fifo_priority") is not None:
        how.append(f"SCHED_FIFO {rt['fifo_priority']}")
    if rt.get("cpu") is not None:
        how.append(f"CPU {rt['cpu']}")
    rt_text = ", ".join(how) if how else "no real-time scheduling"
    return (
        f"live: {lat['packets']} packets released to the hosts, lateness p50 {_ms(lat['p50_s'])}"
        f", p99 {_ms(lat['p99_s'])}, max {_ms(lat['max_s'])} ({rt_text}); "
        f"stopped: {report['stop_reason']} at {report['duration_s']:.3f} s"
    )


def print_live_report(file: str, result: dict[str, Any], report: dict[str, Any] | None) -> None:
    """The human-readable summary of ``skyhop live`` (and ``replay``, without
    ``report``): per link direction what it carried, the commands' ends, the
    simulated flows."""
    from rich.console import Console
    from rich.table import Table

    console = Console(width=None if sys.stdout.isatty() else 200)
    links = Table(title=f"{one_line(file)}: links")
    for col in ("link", "dir", "from", "to", "packets", "bytes", "delivered", "drops", "util"):
        links.add_column(col, justify="left" if col in ("link", "dir", "from", "to") else "right")
    for lk in result.get("links", []):
        drops = lk["queue_drops"] + lk["channel_drops"] + lk["link_drops"]
        links.add_row(
            one_line(lk["link"]),
            lk["dir"],
            one_line(lk["from"]),
            one_line(lk["to"]),
            str(lk["packets"]),
            _bytes(lk["bytes"]),
            str(lk["delivered"]),
            str(drops),
            f"{lk['utilisation']:.3f}",
        )
    console.print(links)
    if report is not None and report["commands"]:
        cmds = Table(title="commands")
        for col in ("node", "command", "status", "ended at"):
            cmds.add_column(col)
        for c in report["commands"]:
            status = (
                "stopped at the end"
                if c["stopped_at_end"]
                else f"exit {c['exit_code']}"
                if c["exit_code"] is not None
                else f"signal {c['signal']}"
            )
            ended = f"{c['ended_at_s']:.3f} s" if c.get("ended_at_s") is not None else "—"
            cmds.add_row(
                one_line(c["node"]),
                one_line(c["command"]),
                status + (" (daemon)" if c["background"] else ""),
                ended,
            )
        console.print(cmds)
    flows = result.get("flows", {})
    if flows:
        from .stats import summarize

        print_run_table(f"{file}: simulated flows", [result.get("seed", 0)], summarize([result]))
