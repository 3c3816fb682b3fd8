"""What skyhop writes: the JSON documents, the files, the ``skyhop: error:`` /
``skyhop: warning:`` lines and the progress bar (the terminal's tables are
in :mod:`skyhop._terminal`).

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
    "group_warnings",
    "info_line",
    "one_line",
    "progress_bar",
    "progress_line",
    "quiet_resource_tracker",
    "robust_streams",
    "shown",
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
    """``text`` with any line breaks folded into single spaces, and control
    characters escaped (:func:`shown`)."""
    text = " ".join(text.split()) if "\n" in text or "\r" in text else text
    return shown(text)


def shown(text: str) -> str:
    """``text`` safe to print on a terminal: control characters (escape
    sequences, backspaces, bells; C0, DEL and C1) written as ``\\x1b``-style
    escapes, everything else as it is."""
    if all(" " <= c < "\x7f" or c > "\x9f" for c in text):
        return text
    return "".join(
        c if (" " <= c < "\x7f" or c > "\x9f" or c in "\n\t") else f"\\x{ord(c):02x}" for c in text
    )


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


def group_warnings(warnings: list[str], at_least: int = 3) -> list[str]:
    """Warnings of the same form (the same words, other numbers and names:
    one per templated flow or link) as one line each, ``16 flows f4-f19,
    each like: <the first of them>``; others as they are, in first-seen
    order (the JSON documents keep every one)."""
    import re

    def shape(w: str) -> str:
        return re.sub(r"\d+(\.\d+)?", "#", w)

    def subject(w: str) -> tuple[str, str] | None:
        m = re.search(r"\b(flows|links)\.([^\s;,()]+?)(?=[\s;,()]|\.\d|$)", w)
        return (m.group(1), m.group(2)) if m else None

    groups: dict[str, list[str]] = {}
    for w in dict.fromkeys(warnings):
        groups.setdefault(shape(w), []).append(w)
    out = []
    for group in groups.values():
        subjects = [subject(w) for w in group]
        kinds = {s[0] for s in subjects if s is not None}
        if len(group) < at_least or len(kinds) != 1 or None in subjects:
            out.extend(group)
            continue
        (kind,) = kinds
        names = sorted({s[1] for s in subjects if s}, key=_natural)
        out.append(f"{len(group)} {kind} {_name_range(names)}, each like: {group[0]}")
    return out


def _natural(name: str) -> tuple:
    import re

    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name))


def _name_range(names: list[str]) -> str:
    """``f4-f19`` for f4, f5, ..., f19 (one prefix, consecutive numbers);
    else the names, at most six of them shown."""
    import re

    parts = [re.fullmatch(r"(.*?)(\d+)", n) for n in names]
    if all(parts) and len({p.group(1) for p in parts if p}) == 1:
        nums = [int(p.group(2)) for p in parts if p]
        if nums == list(range(nums[0], nums[0] + len(nums))):
            return f"{names[0]}\u2013{names[-1]}"
    shown = ", ".join(names[:6])
    return shown + (f", \u2026 ({len(names)} in all)" if len(names) > 6 else "")


def info_line(message: str) -> None:
    """``skyhop: MESSAGE`` on stderr (progress notes, interruptions)."""
    _line(f"skyhop: {one_line(message)}")


def progress_line(message: str) -> None:
    """``skyhop: progress: MESSAGE`` on stderr (what a long command is doing)."""
    _line(f"skyhop: progress: {one_line(message)}")


def _line(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (the helper process that
    removes the pool's semaphores if the sweep dies) with its standard error
    on /dev/null, also when it is started again after being killed.

    Its only output is Python's own: a traceback for each semaphore a
    restarted tracker never saw registered, and a "leaked semaphore objects"
    warning after the sweep was killed outright. Neither is skyhop's line
    nor the user's business; what the tracker does (clean-up) is unchanged,
    and the sweep's own warning that the tracker was restarted still shows.
    For the command line (``skyhop sweep``, ``skyhop experiment``), where
    skyhop owns the process (and its standard error)."""
    from multiprocessing import resource_tracker

    tracker = resource_tracker._resource_tracker
    if getattr(tracker, "_skyhop_quiet", False):
        return
    start = tracker.ensure_running

    def ensure_running() -> None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        saved = os.dup(2)
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 2)
            start()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            os.close(null)

    tracker.ensure_running = ensure_running  # type: ignore[method-assign]
    tracker._skyhop_quiet = True  # type: ignore[attr-defined]
    resource_tracker.ensure_running = ensure_running


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
    except OSError as e:
        tmp.unlink(missing_ok=True)
        # named after the file being written (not its temporary name, nor
        # nothing: a full file system raises without a name)
        raise _named(e, path) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _named(e: OSError, path: Any) -> OSError:
    """``e`` about ``path``: its errno and reason, ``path`` as its file name."""
    errno, reason = e.errno, e.strerror
    if errno is None:
        # pyarrow says "Error writing bytes to file. Detail: [errno 28] ..."
        import re

        found = re.search(r"\[errno (\d+)\]", str(e))
        if found:
            errno = int(found.group(1))
            reason = os.strerror(errno)
    if errno is not None:
        reason = os.strerror(errno)  # not the writer's wording (pyarrow's is long)
    reason = reason or str(e) or type(e).__name__
    return OSError(errno, f"cannot write: {reason}", str(path))


def write_with(path: str | os.PathLike[str], write: Any) -> None:
    """``write(tmp)`` writes the file; it is renamed to ``path`` when whole
    (an error names ``path``, whatever the writer said)."""
    from pathlib import Path

    _replace_with(Path(path), write)


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
    breaking the bar; ``close()`` ends it. ``quiet``: neither (``--quiet``).
    """

    def __init__(
        self,
        label: str,
        *,
        terminal: bool | None = None,
        every_s: float = 10.0,
        clock: Any = None,
        stream: Any = None,
        quiet: bool = False,
    ) -> None:
        import time

        self.quiet = quiet
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
        if self.quiet:
            return
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
        if self.quiet:
            return
        if self.bar is not None:
            self.bar.console.print(f"skyhop: warning: {one_line(message)}", markup=False)
        else:
            warning_line(message)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
