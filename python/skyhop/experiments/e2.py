"""E2 — on-board split proxy over a single GEO (M. Luglio, M. Y. Sanadidi, M. Gerla, J. Stepanek, "On-Board Satellite 'Split TCP' Proxy", IEEE JSAC 22(2), 2004).

Two rates (1 and 20 Mb/s) × three BERs (1e-6, 1e-7, 1e-8 on both links, data
and ACKs) × NewReno and Westwood (NewReno recovery), end to end and split on
board (`third` cache policy, cache swept from 10 to 250 packets × rate);
throughput of 31 s FTP sessions averaged over 100 sessions
(``scenarios/e2_geo_onboard.toml``; the grid is :mod:`.geo_split`'s).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import geo_split
from .base import Analysis, Context, Job
from .geo_split import BERS, RATES_MBPS, TCPS, _knee, _m
from .geo_split import E2 as GEO


class E2:
    """The E2 reproduction (see the module doc)."""

    name = "E2"
    runs = 100

    def grid(self, ctx: Context) -> list[Job]:
        return list(geo_split.jobs(GEO))

    def run(self, ctx: Context, data: dict[str, Any]) -> Analysis:
        summary, tables, e2e = geo_split.measure(GEO, data)
        return Analysis(summary, {"split": tables, "e2e": e2e})

    def claims(self, ctx: Context, analysis: Analysis) -> None:
        _claims(ctx, analysis.summary, analysis.tables["split"], analysis.tables["e2e"])

    def figures(self, ctx: Context, analysis: Analysis) -> list[Path]:
        t = analysis.tables
        return geo_split.cache_figure(
            ctx, "e2_cache_sweep", "E2", GEO.caches, t["split"], t["e2e"]
        ) + geo_split.summary_figure(
            ctx, "e2_summary", "E2", analysis.summary, t["split"], t["e2e"]
        )


#: "Westwood performs much better than NewReno end to end": Westwood at
#: least 25 % above NewReno in every (rate, BER)
MUCH_BETTER = 1.25


def _claims(ctx: Context, summary, tables, e2e) -> None:
    exp = GEO
    s = summary["summary"]
    gains = {
        (r, b, t): s[f"{r}Mbps"][f"{b:g}"][t]["gain"] or 0
        for r in RATES_MBPS
        for b in BERS
        for t in TCPS
    }
    knee, top = _knee(exp, tables, 1, 1e-6, "newreno")
    ctx.claim(
        "E2.cache_sweep",
        "throughput rises with the cache and levels off after about 63 packets (three times the 21-packet pipe of one GEO hop)",
        knee is not None and 42 <= knee <= 126,
        f"63 packets give {_m(tables[(1, 1e-6)][(63, 'newreno')]) / top:.0%} of the largest value",
        quantity="1 Mb/s, BER 1e-6, NewReno: the first cache reaching 90 % of the largest "
        "throughput of the sweep",
        threshold="42-126 packets (two to six hop pipes around the published three)",
        ours=f"{knee} packets (largest {top / 1e3:.0f} kb/s)",
    )
    g_nr, g_ww = gains[(1, 1e-6, "newreno")], gains[(1, 1e-6, "westwood")]
    ctx.claim(
        "E2.cache_sweep",
        "with a saturated cache the split beats the end-to-end connection for both variants; NewReno gains more than Westwood",
        g_nr > 1 and g_ww > 1 and g_nr > g_ww,
        quantity="1 Mb/s, BER 1e-6: gain of the split at its best cache over end to end",
        threshold="> 1 for both; NewReno's > Westwood's",
        ours=f"NewReno {g_nr:.2f}x, Westwood {g_ww:.2f}x",
    )
    small = exp.caches(1)[0]
    worse = any(_m(tables[(1, 1e-6)][(small, t)]) < _m(e2e[(1, 1e-6)][(t,)]) for t in TCPS)
    ctx.claim(
        "E2.cache_sweep",
        "below saturation the split can be worse than no split",
        worse,
        quantity=f"1 Mb/s, BER 1e-6: throughput of the split with a {small}-packet cache "
        "against end to end",
        threshold="below end to end for at least one variant",
        ours=", ".join(
            f"{t} {_m(tables[(1, 1e-6)][(small, t)]) / 1e3:.0f} vs {_m(e2e[(1, 1e-6)][(t,)]) / 1e3:.0f} kb/s"
            for t in TCPS
        ),
    )
    g1 = max(gains[(1, b, t)] for b in BERS for t in TCPS)
    g20 = max(gains[(20, b, t)] for b in BERS for t in TCPS)
    grows_ber = all(gains[(r, 1e-6, t)] >= gains[(r, 1e-8, t)] for r in RATES_MBPS for t in TCPS)
    top_gain = max(gains.values())
    ctx.claim(
        "E2.summary",
        "splitting on board gains more as bandwidth and error rate grow; in some configurations throughput improves threefold",
        g20 > g1 and grows_ber and top_gain >= geo_split.THREEFOLD,
        quantity="gain of the split (best cache) over end to end: largest at 20 vs at 1 Mb/s; "
        "at BER 1e-6 vs 1e-8 per (rate, variant); largest of all",
        threshold=f"20 Mb/s > 1 Mb/s; 1e-6 >= 1e-8 in all four; largest >= {geo_split.THREEFOLD} "
        "(threefold within 10 %, as for E3)",
        ours=f"{g20:.2f}x vs {g1:.2f}x; "
        + ", ".join(
            f"{r}M {t} {gains[(r, 1e-6, t)]:.2f}/{gains[(r, 1e-8, t)]:.2f}"
            for r in RATES_MBPS
            for t in TCPS
        )
        + f"; largest {top_gain:.2f}x",
    )
    adv = {
        (r, b): _m(e2e[(r, b)][("westwood",)]) / max(_m(e2e[(r, b)][("newreno",)]), 1)
        for r in RATES_MBPS
        for b in BERS
    }
    much = [k for k, v in adv.items() if v >= MUCH_BETTER]
    less = [
        (r, b)
        for r in RATES_MBPS
        for b in BERS
        if gains[(r, b, "westwood")] < gains[(r, b, "newreno")]
    ]
    n_all = len(RATES_MBPS) * len(BERS)
    ctx.claim(
        "E2.summary",
        "Westwood performs better than NewReno end to end, and gains less from splitting",
        len(much) == n_all and len(less) == n_all,
        f"the study's words are 'much better'; first half holds in {len(much)} of {n_all}, "
        f"second half in {len(less)} of {n_all}",
        quantity="per (rate, BER): end-to-end throughput Westwood / NewReno; gain of the split, "
        "Westwood against NewReno",
        threshold=f"Westwood / NewReno >= {MUCH_BETTER} ('much better') in all {n_all}; "
        f"Westwood's gain below NewReno's in all {n_all}",
        ours="Westwood/NewReno "
        + ", ".join(f"{r}M {b:g} {v:.2f}" for (r, b), v in adv.items())
        + "; gain Westwood/NewReno "
        + ", ".join(
            f"{r}M {b:g} {gains[(r, b, 'westwood')]:.2f}/{gains[(r, b, 'newreno')]:.2f}"
            for r in RATES_MBPS
            for b in BERS
        ),
    )
