"""E3 — on-board split proxy over two GEOs with an inter-satellite link (M. Luglio, M. Y. Sanadidi, M. Gerla, J. Stepanek, "On-Board Satellite 'Split TCP' Proxy", IEEE JSAC 22(2), 2004).

E2's grid on the double-GEO path (``scenarios/e3_double_geo.toml``: up, ISL,
down; the split at the second satellite, cache swept from 21 to 660 packets
× rate). Its claims compare with the single GEO, so E2's grid runs too, as
resumable sub-sweeps prefixed ``ref_e2_``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import geo_split
from .base import Analysis, Context, Job
from .geo_split import BERS, RATES_MBPS, TCPS, _knee
from .geo_split import E2 as REF
from .geo_split import E3 as GEO

#: the prefix of the sub-sweeps of E2's grid run as E3's reference
REFERENCE = "ref_e2_"


class E3:
    """The E3 reproduction (see the module doc)."""

    name = "E3"
    runs = 100

    def grid(self, ctx: Context) -> list[Job]:
        return [*geo_split.jobs(GEO), *geo_split.jobs(REF, prefix=REFERENCE)]

    def run(self, ctx: Context, data: dict[str, Any]) -> Analysis:
        summary, tables, e2e = geo_split.measure(GEO, data)
        ref = geo_split.measure(REF, data, prefix=REFERENCE)
        summary["reference_e2"] = ref[0]["summary"]
        return Analysis(summary, {"split": tables, "e2e": e2e, "ref": ref})

    def claims(self, ctx: Context, analysis: Analysis) -> None:
        t = analysis.tables
        _claims(ctx, analysis.summary, t["split"], t["ref"])

    def figures(self, ctx: Context, analysis: Analysis) -> list[Path]:
        t = analysis.tables
        return geo_split.cache_figure(
            ctx, "e3_cache_sweep", "E3", GEO.caches, t["split"], t["e2e"]
        ) + geo_split.summary_figure(
            ctx, "e3_summary", "E3", analysis.summary, t["split"], t["e2e"]
        )


def _claims(ctx: Context, summary, tables, ref) -> None:
    exp = GEO
    s = summary["summary"]
    gains = {
        (r, b, t): s[f"{r}Mbps"][f"{b:g}"][t]["gain"] or 0
        for r in RATES_MBPS
        for b in BERS
        for t in TCPS
    }
    ref_summary, ref_tables, _ref_e2e = ref
    knee, _top = _knee(exp, tables, 1, 1e-6, "newreno")
    ref_knee, _ = _knee(REF, ref_tables, 1, 1e-6, "newreno")
    rs = ref_summary["summary"]
    lower = [
        (r, b, t)
        for r in RATES_MBPS
        for b in BERS
        for t in TCPS
        if s[f"{r}Mbps"][f"{b:g}"][t]["end_to_end_bps"]
        < rs[f"{r}Mbps"][f"{b:g}"][t]["end_to_end_bps"]
        and s[f"{r}Mbps"][f"{b:g}"][t]["split_best_bps"]
        < rs[f"{r}Mbps"][f"{b:g}"][t]["split_best_bps"]
    ]
    n_all = len(RATES_MBPS) * len(BERS) * len(TCPS)
    ctx.claim(
        "E3",
        "lower throughput than the single GEO overall; the cache must be much larger before throughput levels off",
        len(lower) == n_all and knee is not None and ref_knee is not None and knee > 1.5 * ref_knee,
        quantity="end-to-end and best-split throughput against E2's per (rate, BER, variant); "
        "1 Mb/s, BER 1e-6, NewReno: the first cache reaching 90 % of the largest value",
        threshold=f"both below E2 in all {n_all}; the knee above 1.5 x E2's",
        ours=f"below E2 in {len(lower)} of {n_all}; knee {knee} packets against {ref_knee}",
    )
    g20 = max(gains[(20, b, t)] for b in BERS for t in TCPS)
    ctx.claim(
        "E3",
        "at 20 Mb/s the on-board split improves throughput more than threefold",
        g20 >= geo_split.THREEFOLD,
        quantity="largest gain of the split (best cache) over end to end at 20 Mb/s",
        threshold=f">= {geo_split.THREEFOLD} (threefold within 10 %, as for E2)",
        ours=f"{g20:.2f}x ("
        + ", ".join(f"{t} {b:g}: {gains[(20, b, t)]:.2f}" for b in BERS for t in TCPS)
        + ")",
    )

    def adv(summ, r):
        return max(
            (summ[f"{r}Mbps"][f"{b:g}"]["westwood"]["end_to_end_bps"] or 0)
            / max(summ[f"{r}Mbps"][f"{b:g}"]["newreno"]["end_to_end_bps"] or 0, 1)
            for b in BERS
        )

    a3 = {r: adv(s, r) for r in RATES_MBPS}
    a2 = {r: adv(rs, r) for r in RATES_MBPS}
    ctx.claim(
        "E3",
        "Westwood's advantage over NewReno is larger than in the single-GEO case, especially at high bandwidth",
        all(a3[r] > a2[r] for r in RATES_MBPS) and a3[20] / a2[20] >= a3[1] / a2[1],
        quantity="end-to-end Westwood / NewReno, largest over BER, E3 against E2, per rate",
        threshold="E3 > E2 at both rates; the E3/E2 ratio larger at 20 Mb/s",
        ours=", ".join(f"{r} Mb/s: E3 {a3[r]:.2f} vs E2 {a2[r]:.2f}" for r in RATES_MBPS),
    )
