"""The wall-time table of docs/VALIDATION.md is written from what the
experiments measured (summary.json's wall_time_s), and agrees with their grids."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from skyhop.errors import ScenarioError
from skyhop.experiments import total_runs
from skyhop.experiments.timings import BEGIN, END, timings_markdown, timings_rows, update_doc

DOC = Path(__file__).resolve().parents[1] / "docs" / "VALIDATION.md"


def _folder(tmp_path, name, runs, wall):
    d = tmp_path / name
    d.mkdir()
    (d / "summary.json").write_text(
        json.dumps({name: {}, "claims": [], "runs_per_point": runs, "wall_time_s": wall})
    )
    return d


def test_rows_and_table_from_the_summaries(tmp_path):
    rows = timings_rows([_folder(tmp_path, "E6", 20, 30.4), _folder(tmp_path, "E1", 2, 125.0)])
    assert [r["experiment"] for r in rows] == ["E6", "E1"]
    assert (
        rows[0]["runs"]
        == total_runs("E6", 20)
        # every run of both profiles (ns2, studies), each the same grid
        == 2 * ((4 + 4 + 10 + 36 + 10 + 10 + 6 + 24 + 16) * 20 + 20)
    )
    assert rows[1]["runs"] == total_runs("E1", 2)
    text = timings_markdown(rows, machine="a test machine")
    assert "on a test machine:" in text
    assert (
        f"| E6 | 20 | {rows[0]['runs']:,} | 30 s | {rows[0]['runs'] / 30.4:.0f} |".replace(",", " ")
        in text
    )
    assert "| E1 | 2 |" in text and "| 2 min 05 s |" in text


def test_update_replaces_only_the_marked_section(tmp_path):
    doc = tmp_path / "v.md"
    doc.write_text(f"before\n{BEGIN}\nold table\n{END}\nafter\n")
    rows = timings_rows([_folder(tmp_path, "E5", 20, 9.0)])
    new = update_doc(doc, rows, machine="m")
    assert new.startswith(f"before\n{BEGIN}\n\n") and new.endswith(f"{END}\nafter\n")
    assert "old table" not in new and "| E5 | 20 |" in new


def test_a_folder_that_is_no_experiment_is_refused(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "summary.json").write_text("[]")
    with pytest.raises(ScenarioError, match="not the summary of a skyhop experiment"):
        timings_rows([tmp_path / "x"])
    with pytest.raises(ScenarioError, match="cannot read it"):
        timings_rows([tmp_path / "missing"])


def test_the_documented_table_agrees_with_the_grids():
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index(BEGIN) : text.index(END)]
    rows = re.findall(r"^\| (E\d) \| (\d+) \| ([\d ]+) \| ([^|]+) \|", table, re.M)
    assert {r[0] for r in rows} == {"E1", "E2", "E3", "E4", "E5", "E6"}
    for name, runs, total, _wall in rows:
        assert int(total.replace(" ", "")) == total_runs(name, int(runs)), name
