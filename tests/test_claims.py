"""The claim record every experiment writes: the study's words, the quantity
tested, the threshold it must meet, ours, and whether it holds; and its
Markdown table."""

from __future__ import annotations

from pathlib import Path

import pytest

from skyhop.experiments.base import Context
from skyhop.experiments.common import claims_markdown


def test_a_claim_records_words_quantity_threshold_and_ours():
    ctx = Context(out=Path("."), runs=1)
    ctx.claim(
        "E9",
        "the study's words",
        False,
        "the mechanism",
        quantity="goodput A / B",
        threshold=">= 1.25",
        ours="1.08",
    )
    assert ctx.claims == [
        {
            "experiment": "E9",
            "claim": "the study's words",
            "quantity": "goodput A / B",
            "threshold": ">= 1.25",
            "ours": "1.08",
            "holds": False,
            "evidence": "the mechanism",
        }
    ]


def test_a_claim_without_quantity_threshold_or_ours_is_refused():
    ctx = Context(out=Path("."), runs=1)
    with pytest.raises(TypeError):
        ctx.claim("E9", "words", True, "evidence")  # type: ignore[call-arg]


def test_the_markdown_table_has_one_column_per_field_and_escapes_pipes():
    md = claims_markdown(
        [
            {
                "claim": "a | b",
                "quantity": "q",
                "threshold": "t",
                "ours": "o",
                "holds": True,
                "evidence": "e\nf",
            },
            {"claim": "c", "quantity": "q2", "threshold": "t2", "ours": "o2", "holds": False},
        ]
    )
    lines = md.splitlines()
    assert lines[0].startswith("| claim (the study's words) | quantity tested | threshold | ours")
    assert lines[2] == "| a \\| b | q | t | o | yes | e f |"
    assert lines[3] == "| c | q2 | t2 | o2 | **no** |  |"
