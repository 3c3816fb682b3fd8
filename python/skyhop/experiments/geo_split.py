"""E2 and E3 — on-board split proxies over GEO paths (M. Luglio, M. Y. Sanadidi, M. Gerla, J. Stepanek, "On-Board Satellite 'Split TCP' Proxy", IEEE JSAC 22(2), 2004).

Both experiments share one shape: two rates (1 and 20 Mb/s) × three BERs
(1e-6, 1e-7, 1e-8 on every link, data and ACKs) × NewReno and Westwood (NewReno
recovery), end to end and split on board with the `third` cache policy and
the cache swept; throughput of 31 s FTP sessions averaged over 100 sessions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .common import Context, grouped, plt, scenario_path
from .plotting import errorbar_series, figure_legend_right, save_figure, series_style

RATES_MBPS = [1, 20]
BERS = [1e-6, 1e-7, 1e-8]
TCP_WORDS = {"newreno": "NewReno", "westwood": "Westwood", "sack": "SACK"}
TCPS = ["newreno", "westwood"]


@dataclass(frozen=True)
class GeoSplit:
    name: str  # "E2" / "E3"
    scenario: str
    links: tuple[str, ...]
    proxy_node: str
    #: cache sizes in multiples of the split node's larger-leg pipe (at 1 Mb/s, in packets)
    caches_1mbps: tuple[int, ...]

    def caches(self, rate_mbps: int) -> list[int]:
        return [c * rate_mbps for c in self.caches_1mbps]


E2 = GeoSplit(
    "E2", "e2_geo_onboard.toml", ("up", "down"), "SAT", (10, 21, 42, 63, 84, 126, 168, 250)
)
E3 = GeoSplit(
    "E3",
    "e3_double_geo.toml",
    ("up", "isl", "down"),
    "SAT2",
    (21, 55, 110, 165, 220, 330, 440, 660),
)


#: Drop-tail queue per link at 1 Mb/s, in packets; scaled with the rate so the
#: queue stays about one bandwidth-delay product of the end-to-end GEO path
#: (42 packets at 1 Mb/s), the usual sizing rule. The studies did not report
#: their queues; 50 is ns-2's default.
QUEUE_PER_MBPS = 50


def _rate_sets(exp: GeoSplit, rate: int, ber: float) -> dict[str, Any]:
    sets: dict[str, Any] = {}
    for link in exp.links:
        sets[f"links.{link}.rate"] = f"{rate} Mbps"
        sets[f"links.{link}.ber"] = ber
        sets[f"links.{link}.queue"] = QUEUE_PER_MBPS * rate
    return sets


def run(exp: GeoSplit, ctx: Context) -> dict[str, Any]:
    summary, tables, e2e = _measure(exp, ctx)
    ref = None
    if exp.name == "E3":
        # E3's claims compare with the single GEO: run E2's grid too (its own
        # resumable sub-sweeps, prefixed ref_e2_).
        ref = _measure(E2, ctx, prefix="ref_e2_")
        summary["reference_e2"] = ref[0]["summary"]
    _claims(exp, ctx, summary, tables, e2e, ref)
    _figures(exp, ctx, summary, tables, e2e)
    return summary


def _measure(exp: GeoSplit, ctx: Context, prefix: str = ""):
    """Run the end-to-end and split grids of one experiment."""
    scn = scenario_path(exp.scenario)
    summary: dict[str, Any] = {"cache_sweep": {}, "summary": {}}
    tables: dict[tuple[int, float], Any] = {}
    e2e: dict[tuple[int, float], Any] = {}
    for rate in RATES_MBPS:
        for ber in BERS:
            tag = f"{rate}mbps_ber{ber:g}"
            sets = _rate_sets(exp, rate, ber)
            df = ctx.sweep(
                f"{prefix}e2e_{tag}",
                scn,
                {"flows.ftp.tcp": TCPS},
                sets={**sets, "flows.ftp.proxies": []},
            )
            e2e[(rate, ber)] = grouped(df, ["flows.ftp.tcp"], "goodput_bps")
            caches = exp.caches(rate)
            df = ctx.sweep(
                f"{prefix}split_{tag}",
                scn,
                {f"nodes.{exp.proxy_node}.proxy.cache_packets": caches, "flows.ftp.tcp": TCPS},
                sets={
                    **sets,
                    "flows.ftp.proxies": [exp.proxy_node],
                    f"nodes.{exp.proxy_node}.proxy.policy": "third",
                },
            )
            tables[(rate, ber)] = grouped(
                df, [f"nodes.{exp.proxy_node}.proxy.cache_packets", "flows.ftp.tcp"], "goodput_bps"
            )
            key = f"{rate}Mbps"
            summary["cache_sweep"].setdefault(key, {})[f"{ber:g}"] = {
                tcp: {
                    "cache_packets": caches,
                    "throughput_bps": [tables[(rate, ber)][(c, tcp)] for c in caches],
                    "end_to_end_bps": e2e[(rate, ber)][(tcp,)],
                }
                for tcp in TCPS
            }
            summary["summary"].setdefault(key, {})[f"{ber:g}"] = {
                tcp: _split_summary(caches, tables[(rate, ber)], e2e[(rate, ber)], tcp)
                for tcp in TCPS
            }
    return summary, tables, e2e


def _split_summary(caches, table, e2e, tcp) -> dict[str, Any]:
    """End to end against the split: at the largest cache, and at the best
    cache of the sweep (with a drop-tail queue of about one BDP, a cache much
    larger than three pipes lets the incoming leg's slow start overrun the
    uplink queue, so the curve can fall again after its knee)."""
    means = [table[(c, tcp)]["mean"] for c in caches]
    best = max(range(len(caches)), key=lambda i: means[i] if means[i] is not None else -1)
    e2e_mean = e2e[(tcp,)]["mean"]
    return {
        "end_to_end_bps": e2e_mean,
        "split_largest_cache_bps": means[-1],
        "split_best_bps": means[best],
        "best_cache_packets": caches[best],
        "gain": _ratio(means[best], e2e_mean),
    }


def _ratio(a, b) -> float | None:
    if a is None or b in (None, 0):
        return None
    return a / b


def _m(s) -> float:
    return s["mean"] if s and s.get("mean") is not None else math.nan


def _knee(exp: GeoSplit, tables, rate, ber, tcp) -> tuple[int | None, float]:
    caches = exp.caches(rate)
    vals = [_m(tables[(rate, ber)][(c, tcp)]) for c in caches]
    top = max(vals)
    knee = next((c for c, v in zip(caches, vals, strict=False) if v >= 0.9 * top), None)
    return knee, top


def _claims(exp: GeoSplit, ctx: Context, summary, tables, e2e, ref=None) -> None:
    s = summary["summary"]
    gains = {
        (r, b, t): s[f"{r}Mbps"][f"{b:g}"][t]["gain"] or 0
        for r in RATES_MBPS
        for b in BERS
        for t in TCPS
    }
    if exp.name == "E2":
        knee, top = _knee(exp, tables, 1, 1e-6, "newreno")
        ctx.claim(
            "E2.cache_sweep",
            "throughput rises with the cache and levels off after about 63 packets (three times the 21-packet pipe of one GEO hop)",
            knee is not None and 42 <= knee <= 126,
            f"1 Mb/s, BER 1e-6, NewReno: 90 % of the largest value ({top / 1e3:.0f} kb/s) first reached at {knee} packets",
        )
        ctx.claim(
            "E2.cache_sweep",
            "with a saturated cache the split beats the end-to-end connection for both variants; NewReno gains more than Westwood",
            gains[(1, 1e-6, "newreno")] > 1
            and gains[(1, 1e-6, "westwood")] > 1
            and gains[(1, 1e-6, "newreno")] > gains[(1, 1e-6, "westwood")],
            f"gain at 1 Mb/s, BER 1e-6: NewReno {gains[(1, 1e-6, 'newreno')]:.2f}x, Westwood {gains[(1, 1e-6, 'westwood')]:.2f}x",
        )
        small = exp.caches(1)[0]
        worse = any(_m(tables[(1, 1e-6)][(small, t)]) < _m(e2e[(1, 1e-6)][(t,)]) for t in TCPS)
        ctx.claim(
            "E2.cache_sweep",
            "below saturation the split can be worse than no split",
            worse,
            f"cache {small} packets: "
            + ", ".join(
                f"{t} {_m(tables[(1, 1e-6)][(small, t)]) / 1e3:.0f} vs {_m(e2e[(1, 1e-6)][(t,)]) / 1e3:.0f} kb/s end to end"
                for t in TCPS
            ),
        )
        g1 = max(gains[(1, b, t)] for b in BERS for t in TCPS)
        g20 = max(gains[(20, b, t)] for b in BERS for t in TCPS)
        grows_ber = all(
            gains[(r, 1e-6, t)] >= gains[(r, 1e-8, t)] for r in RATES_MBPS for t in TCPS
        )
        ctx.claim(
            "E2.summary",
            "splitting on board gains more as bandwidth and error rate grow; in some configurations throughput improves threefold",
            g20 > g1 and grows_ber and max(gains.values()) >= 2.5,
            f"largest gain {max(gains.values()):.2f}x; best at 1 Mb/s {g1:.2f}x, at 20 Mb/s {g20:.2f}x; gain at BER 1e-6 vs 1e-8 per (rate, variant): "
            + ", ".join(
                f"{r}M {t}: {gains[(r, 1e-6, t)]:.2f}/{gains[(r, 1e-8, t)]:.2f}"
                for r in RATES_MBPS
                for t in TCPS
            ),
        )
        ww_better = all(
            _m(e2e[(r, b)][("westwood",)]) >= _m(e2e[(r, b)][("newreno",)])
            for r in RATES_MBPS
            for b in BERS
        )
        ww_less = all(
            gains[(r, b, "westwood")] <= gains[(r, b, "newreno")] for r in RATES_MBPS for b in BERS
        )
        ctx.claim(
            "E2.summary",
            "Westwood performs better than NewReno end to end, and gains less from splitting",
            ww_better and ww_less,
            "end to end Westwood/NewReno: "
            + ", ".join(
                f"{r}M {b:g}: {_m(e2e[(r, b)][('westwood',)]) / max(_m(e2e[(r, b)][('newreno',)]), 1):.2f}"
                for r in RATES_MBPS
                for b in BERS
            ),
        )
    else:
        ref_summary, ref_tables, _ref_e2e = ref
        knee, _top = _knee(exp, tables, 1, 1e-6, "newreno")
        ref_knee, _ = _knee(E2, ref_tables, 1, 1e-6, "newreno")
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
            len(lower) == n_all
            and knee is not None
            and ref_knee is not None
            and knee > 1.5 * ref_knee,
            f"end to end and split below E2 in {len(lower)} of {n_all} (rate, BER, variant); 1 Mb/s, BER 1e-6, NewReno: 90 % of the largest value first reached at {knee} packets (E2: {ref_knee})",
        )
        g20 = max(gains[(20, b, t)] for b in BERS for t in TCPS)
        ctx.claim(
            "E3",
            "at 20 Mb/s the on-board split improves throughput more than threefold",
            g20 > 3,
            f"largest gain at 20 Mb/s: {g20:.2f}x",
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
            "end-to-end Westwood/NewReno, best over BER: "
            + ", ".join(f"{r} Mb/s: E3 {a3[r]:.2f} vs E2 {a2[r]:.2f}" for r in RATES_MBPS),
        )


def _figures(exp: GeoSplit, ctx: Context, summary, tables, e2e) -> None:
    pyplot = plt()
    fig, axes = pyplot.subplots(len(RATES_MBPS), len(BERS), figsize=(13, 7.5))
    for i, rate in enumerate(RATES_MBPS):
        caches = exp.caches(rate)
        for j, ber in enumerate(BERS):
            ax = axes[i][j]
            series = {
                f"{TCP_WORDS.get(t, t)}, split on board": [
                    tables[(rate, ber)][(c, t)] for c in caches
                ]
                for t in TCPS
            }
            errorbar_series(ax, caches, series, scale=1e3 if rate == 1 else 1e6)
            for k, t in enumerate(TCPS):
                ax.axhline(
                    _m(e2e[(rate, ber)][(t,)]) / (1e3 if rate == 1 else 1e6),
                    ls=(0, (1, 2)),
                    color=series_style(k)["color"],
                    lw=1,
                    label=f"{TCP_WORDS.get(t, t)}, end to end (mean)",
                )
            ax.set_title(f"{exp.name}: {rate} Mb/s, BER {ber:g}", fontsize=9)
            ax.set_xlabel("on-board proxy cache (packets)", fontsize=8)
            ax.set_ylabel("throughput (kb/s)" if rate == 1 else "throughput (Mb/s)", fontsize=8)
            ax.grid(alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.tight_layout(rect=(0, 0, 0.82, 1))
    fig.legend(
        handles,
        labels,
        loc="upper left",
        bbox_to_anchor=(0.83, 0.95),
        fontsize=8,
        title=f"error bars: 95 % CI,\nn = {ctx.runs} runs per point",
        title_fontsize=8,
    )
    save_figure(fig, ctx.out / f"{exp.name.lower()}_cache_sweep")
    # Summary bars: split (largest cache) vs end to end.
    fig, axes = pyplot.subplots(1, len(RATES_MBPS), figsize=(12, 4))
    for ax, rate in zip(axes, RATES_MBPS, strict=False):
        labels, a, b = [], [], []
        for ber in BERS:
            for t in TCPS:
                s = summary["summary"][f"{rate}Mbps"][f"{ber:g}"][t]
                labels.append(f"{TCP_WORDS.get(t, t)}\nBER {ber:g}")
                a.append((s["end_to_end_bps"] or 0) / 1e6)
                b.append((s["split_best_bps"] or 0) / 1e6)
        x = range(len(labels))
        ax.bar(
            [k - 0.2 for k in x],
            a,
            0.4,
            label="end to end",
            color="white",
            edgecolor="black",
            hatch="//",
        )
        ax.bar(
            [k + 0.2 for k in x],
            b,
            0.4,
            label="split on board (best cache)",
            color=series_style(0)["color"],
            edgecolor="black",
        )
        ax.set_xticks(list(x), labels, fontsize=7)
        ax.set_ylabel("throughput (Mb/s)")
        ax.set_title(f"{exp.name}: {rate} Mb/s")
    figure_legend_right(fig, axes[0])
    save_figure(fig, ctx.out / f"{exp.name.lower()}_summary")
