"""The claim record every experiment writes: the study's words, the figure
and operating point, the quantity tested, the threshold and why it is a fair
reading, ours, and whether it holds -- under each TCP profile the
experiment ran; its Markdown table and its terminal form."""

from __future__ import annotations

from pathlib import Path

import pytest

from skyhop.experiments.base import Context
from skyhop.experiments.common import claims_held, claims_markdown, claims_text, merge_claims


def _record(ctx: Context, holds: bool, ours: str) -> None:
    ctx.claim(
        "E9",
        "the study's words",
        holds,
        "the mechanism",
        figure="Fig. 3: 1 Mb/s, BER 1e-6",
        quantity="goodput A / B",
        threshold=">= 1.25",
        reading="'much better' is a quarter ahead",
        ours=ours,
    )


def test_a_claim_records_words_figure_quantity_threshold_reading_and_ours():
    ctx = Context(out=Path("."), runs=1, profile="ns2")
    _record(ctx, False, "1.08")
    assert ctx.claims == [
        {
            "experiment": "E9",
            "claim": "the study's words",
            "figure": "Fig. 3: 1 Mb/s, BER 1e-6",
            "quantity": "goodput A / B",
            "threshold": ">= 1.25",
            "reading": "'much better' is a quarter ahead",
            "ours": "1.08",
            "holds": False,
            "evidence": "the mechanism",
            "profile": "ns2",
        }
    ]


def test_a_claim_without_figure_quantity_threshold_reading_or_ours_is_refused():
    ctx = Context(out=Path("."), runs=1)
    with pytest.raises(TypeError):
        ctx.claim("E9", "words", True, "evidence")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        ctx.claim(  # type: ignore[call-arg]
            "E9", "words", True, quantity="q", threshold="t", ours="o", reading="r"
        )


def _two_profiles():
    ns2, studies = (
        Context(out=Path("."), runs=1, profile="ns2"),
        Context(out=Path("."), runs=1, profile="studies"),
    )
    _record(ns2, True, "1.30")
    _record(studies, False, "1.08")
    return merge_claims({"ns2": ns2.claims, "studies": studies.claims}, ("ns2", "studies"))


def test_merged_claims_carry_ours_and_holds_under_each_profile():
    (c,) = _two_profiles()
    assert c["holds"] is True and c["ours"] == "1.30" and c["profile"] == "ns2"
    assert c["profiles"] == {
        "ns2": {"ours": "1.30", "holds": True, "evidence": "the mechanism"},
        "studies": {"ours": "1.08", "holds": False, "evidence": "the mechanism"},
    }
    assert claims_held([c]) == {"ns2": (1, 1), "studies": (0, 1)}


def test_the_markdown_table_has_a_column_per_field_and_profile_and_escapes_pipes():
    merged = _two_profiles()
    merged[0]["claim"] = "a | b"
    md = claims_markdown(merged)
    lines = md.splitlines()
    assert lines[0] == (
        "| claim (the study's words) | figure and operating point | quantity tested | threshold "
        "| why this reading | ours: ns2 | holds: ns2 | ours: studies | holds: studies | evidence |"
    )
    assert lines[1] == "|" + "---|" * 10
    assert lines[2] == (
        "| a \\| b | Fig. 3: 1 Mb/s, BER 1e-6 | goodput A / B | >= 1.25 | 'much better' is a "
        "quarter ahead | 1.30 | yes | 1.08 | **no** | the mechanism |"
    )


def test_the_terminal_form_names_figure_threshold_and_each_profiles_verdict():
    text = claims_text(_two_profiles())
    assert "[E9] the study's words" in text
    assert "figure: Fig. 3: 1 Mb/s, BER 1e-6" in text
    assert "threshold: >= 1.25" in text
    assert "ns2: holds: 1.30" in text
    assert "studies: does not hold: 1.08" in text
    assert text.splitlines()[-1] == "claims that hold: ns2 1 of 1, studies 0 of 1"
