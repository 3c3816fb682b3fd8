"""How long the experiments take: the table of ``docs/VALIDATION.md``'s
speed section, written from what each experiment measured.

Every experiment records its wall time (``wall_time_s``) and its runs per
point in its ``summary.json``; the runs in all follow from its grid
(:func:`skyhop.experiments.total_runs`). This module turns a set of
experiment folders into the Markdown table the documentation carries between
the markers below, so that no time estimate is typed by hand::

    python -m skyhop.experiments.timings [--machine TEXT] --update docs/VALIDATION.md results/E1 ... results/E6

Run it on the machine that ran the experiments (``--machine`` says more
about it than the CPU count), from fresh folders: a resumed experiment
records only the time of its own session.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from ..errors import ScenarioError

__all__ = ["BEGIN", "END", "timings_markdown", "timings_rows", "update_doc"]

BEGIN = "<!-- BEGIN GENERATED TIMINGS: python -m skyhop.experiments.timings --update docs/VALIDATION.md DIR... -->"
END = "<!-- END GENERATED TIMINGS -->"


def timings_rows(folders: list[str | Path]) -> list[dict[str, Any]]:
    """One row per experiment folder: name, runs per point, runs in all,
    wall time (s) and runs per second."""
    from . import EXPERIMENTS, total_runs

    rows = []
    for folder in folders:
        path = Path(folder) / "summary.json"
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ScenarioError(str(path), "timings", f"cannot read it ({e})") from None
        names = [k for k in doc if k in EXPERIMENTS]
        if len(names) != 1 or "wall_time_s" not in doc or "runs_per_point" not in doc:
            raise ScenarioError(str(path), "timings", "not the summary of a skyhop experiment")
        name, runs = names[0], int(doc["runs_per_point"])
        total = total_runs(name, runs)
        wall = float(doc["wall_time_s"])
        rows.append(
            {
                "experiment": name,
                "runs_per_point": runs,
                "runs": total,
                "wall_time_s": wall,
                "runs_per_s": total / wall if wall > 0 else None,
            }
        )
    return rows


def _wall(seconds: float) -> str:
    from .._output import duration_text

    return duration_text(seconds)


def timings_markdown(rows: list[dict[str, Any]], machine: str | None = None) -> str:
    """The table (Markdown) and the line saying where it was measured."""
    machine = machine or f"{os.cpu_count()} CPUs, one worker process per CPU (the default)"
    lines = [
        f"Measured with `skyhop experiment NAME` at the published sizes, fresh "
        f"output folders, on {machine}:",
        "",
        "| experiment | runs per point | runs | wall time | runs/s |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        rate = "—" if r["runs_per_s"] is None else f"{r['runs_per_s']:.0f}"
        runs = f"{r['runs']:,}".replace(",", " ")
        lines.append(
            f"| {r['experiment']} | {r['runs_per_point']} | {runs} | "
            f"{_wall(r['wall_time_s'])} | {rate} |"
        )
    return "\n".join(lines) + "\n"


def update_doc(path: str | Path, rows: list[dict[str, Any]], machine: str | None = None) -> str:
    """``path``'s text with the section between :data:`BEGIN` and :data:`END`
    regenerated (the file is not written)."""
    text = Path(path).read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:start] + "\n\n" + timings_markdown(rows, machine) + "\n" + text[end:]


def _main(argv: list[str]) -> int:  # pragma: no cover - a maintainer's tool
    machine = None
    if len(argv) >= 2 and argv[0] == "--machine":
        machine, argv = argv[1], argv[2:]
    if len(argv) >= 3 and argv[0] == "--update":
        from .._output import write_text_atomic

        doc, folders = argv[1], argv[2:]
        write_text_atomic(doc, update_doc(doc, timings_rows(folders), machine))
        sys.stderr.write(f"regenerated the timings of {doc} from {len(folders)} experiments\n")
        return 0
    sys.stderr.write(
        "usage: python -m skyhop.experiments.timings [--machine TEXT] "
        "--update docs/VALIDATION.md DIR...\n"
    )
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(_main(sys.argv[1:]))
