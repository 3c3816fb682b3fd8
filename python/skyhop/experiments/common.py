"""Helpers the named reproductions share: statistics of result columns,
the published targets, the scenarios shipped with skyhop, the summary files.
(The jobs, the context and the runner are :mod:`.base`; figures are
:mod:`skyhop.figures`.)
"""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Any

from ..stats import summarize_values

PACKAGE = Path(__file__).resolve().parent.parent
SCENARIOS = PACKAGE / "scenarios"
TARGETS_FILE = Path(__file__).resolve().parent / "targets.toml"


#: ns-2's TCP as each study ran it (docs/ns2.md). The ``ns2`` profile's own
#: defaults are ns-2 of 2002–2003, the on-board split-proxy study's (E2–E4);
#: an era lists what its ns-2 did otherwise, each with the date it changed.
NS2_ERAS: dict[str, dict[str, Any]] = {
    # ns-2.1b8a (summer 2001): the HAPS study (E1).
    "2001": {
        "tcp.rtt_tick": "100 ms",  # tcpTick_ 0.1 s until 2002-03-08
        "tcp.rto_min_before_backoff": False,  # rfc2988_ from 2002-03-08
        "tcp.limited_transmit": False,  # singledup_ 1 from 2001-11-28
        # useHeaders_ (from 2001-11-28) was false: packetSize_ bytes on the
        # wire with no header; the experiment sizes its packets so.
    },
    # ns-2.1b9 (April 2002) to ns-2.26 (February 2003): E2–E4.
    "2003": {},
    # ns-2.31/2.32 (2007): the satellite-3G study (E6).
    "2007": {
        "tcp.rto_min": "200 ms",  # minrto_ 0.2 s from 2004-10-14
        "tcp.rto_initial": "3 s",  # rtxcur_init_ 3 s from 2006-01-21
        "tcp.partial_window_deflation": True,  # from 2003-05-05 (RFC 2582)
    },
}


def profile_sets(profile: str, era: str) -> dict[str, Any]:
    """The scenario keys of a TCP profile for a study of ``era``: nothing
    for ``studies`` (the shipped scenarios name it), ``tcp.profile = "ns2"``
    and the era's differences for ``ns2``."""
    if profile == "studies":
        return {}
    if profile == "ns2":
        return {"tcp.profile": "ns2", **NS2_ERAS[era]}
    raise ValueError(f"unknown profile {profile!r}")


def rename_variants(data: dict[str, Any], actual: dict[str, str], column: str) -> None:
    """In every DataFrame of ``data``, name the variants in ``column`` by the
    experiment's own names (``actual`` maps its names to the variants run)."""
    back = {v: k for k, v in actual.items()}
    for name, df in data.items():
        if hasattr(df, "columns") and column in df.columns:
            df = df.copy()
            df[column] = [back.get(v, v) for v in df[column]]
            data[name] = df


def scenario_path(name: str) -> str:
    """Path of a scenario shipped with skyhop (``scenarios/NAME``)."""
    return str(SCENARIOS / name)


def targets() -> dict[str, Any]:
    """The published results (a copy of the project's reference targets)."""
    with open(TARGETS_FILE, "rb") as f:
        return tomllib.load(f)


def stats(values) -> dict[str, Any]:
    """mean, ci95 (Student t half-width), n of a column (NaN/None dropped)."""
    return summarize_values(
        [
            None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)
            for v in values
        ]
    )


def grouped(df, by: list[str], metric: str) -> dict[tuple, dict[str, Any]]:
    """Summary statistics of ``metric`` for every combination of ``by``."""
    out = {}
    for key, g in df.groupby(by, sort=True, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        out[key] = stats(g[metric].tolist())
    return out


def mean_of(s: dict[str, Any] | None, missing: float = math.nan) -> float:
    """The mean of a summary (:func:`stats`), or ``missing`` when there is no
    summary or no run gave a value."""
    if not s or s.get("mean") is None:
        return missing
    return float(s["mean"])


def rel_dev(ours: float | None, published: float) -> float | None:
    if ours is None or published == 0:
        return None
    return (ours - published) / published


def write_json(path: Path, doc: Any) -> None:
    def clean(o):
        if isinstance(o, float) and not math.isfinite(o):
            return None
        if isinstance(o, dict):
            return {str(k): clean(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [clean(v) for v in o]
        return o

    from .._output import write_text_atomic

    write_text_atomic(path, json.dumps(clean(doc), indent=2, sort_keys=False) + "\n")


def proxies_literal(nodes: list[str]) -> str:
    return "[" + ",".join(f'"{n}"' for n in nodes) + "]"


def _cell(text: Any) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


#: what each TCP profile an experiment runs under stands for (column heads)
PROFILE_WORDS = {
    "ns2": "ns2 (the studies' simulator)",
    "studies": "studies (the era's TCP by the RFCs)",
}


def merge_claims(
    by_profile: dict[str, list[dict[str, Any]]], profiles: tuple[str, ...]
) -> list[dict[str, Any]]:
    """One record per claim: the first profile's (its words, figure,
    quantity, threshold, reading, ours, holds, evidence) with ``profiles``
    holding ours, holds and evidence under every profile, matched by
    (experiment, words)."""
    primary = profiles[0]
    index = {
        p: {(c["experiment"], c["claim"]): c for c in by_profile[p]}
        for p in profiles
        if p in by_profile
    }
    merged = []
    for c in by_profile[primary]:
        key = (c["experiment"], c["claim"])
        rec = dict(c)
        rec["profiles"] = {
            p: {k: index[p][key][k] for k in ("ours", "holds", "evidence")}
            for p in profiles
            if p in index and key in index[p]
        }
        merged.append(rec)
    return merged


def claims_markdown(claims: list[dict[str, Any]]) -> str:
    """The claims as a Markdown table: the study's words, the figure and
    operating point they describe, the quantity tested, the threshold and
    why it is a fair reading, ours and whether it holds under each profile
    the experiment ran, and the evidence beside (the first profile's)."""
    profiles: list[str] = []
    for c in claims:
        for p in c.get("profiles") or {c.get("profile", "ours"): None}:
            if p not in profiles:
                profiles.append(p)
    head = ["claim (the study's words)", "figure and operating point", "quantity tested"]
    head += ["threshold", "why this reading"]
    for p in profiles:
        head += [f"ours: {p}", f"holds: {p}"]
    head += ["evidence"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in claims:
        per = c.get("profiles") or {c.get("profile", "ours"): c}
        row = [
            _cell(c["claim"]),
            _cell(c.get("figure")),
            _cell(c.get("quantity")),
            _cell(c.get("threshold")),
            _cell(c.get("reading")),
        ]
        for p in profiles:
            r = per.get(p)
            row += [_cell(r["ours"]), ("yes" if r["holds"] else "**no**")] if r else ["", ""]
        row.append(_cell(c.get("evidence")))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def claims_text(claims: list[dict[str, Any]]) -> str:
    """The claims for a terminal: per claim its words, the figure and
    operating point, the threshold, ours and holds / does not hold under
    each profile; then the count that hold per profile."""
    lines = []
    for i, c in enumerate(claims, 1):
        lines.append(f"{i:2d}. [{c['experiment']}] {c['claim']}")
        lines.append(f"    figure: {c.get('figure', '')}")
        lines.append(f"    threshold: {c.get('threshold', '')}")
        for p, r in (c.get("profiles") or {c.get("profile", "ours"): c}).items():
            verdict = "holds" if r["holds"] else "does not hold"
            lines.append(f"    {p}: {verdict}: {r['ours']}")
    held = claims_held(claims)
    lines.append("claims that hold: " + ", ".join(f"{p} {a} of {n}" for p, (a, n) in held.items()))
    return "\n".join(lines)


def claims_held(claims: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """(holding, all) claims per profile."""
    out: dict[str, list[int]] = {}
    for c in claims:
        for p, r in (c.get("profiles") or {c.get("profile", "ours"): c}).items():
            n = out.setdefault(p, [0, 0])
            n[0] += bool(r["holds"])
            n[1] += 1
    return {p: (a, b) for p, (a, b) in out.items()}
