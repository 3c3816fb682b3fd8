"""E7's figures (drawn with :mod:`skyhop.figures`, shown in the report):
utilisation per capacity mode and variant, goodput against the number of
terminals, a short transfer's completion time from idle per mode, proxy
placement, and the rain case's MODCOD rate against TCP's goodput. What
they need of the experiment's layout comes in ``lay`` (``e7.layout()``: this
module does not import ``e7``, which imports it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import Context
from .common import stats

MODE_LABELS = {"cra": "CRA only", "rbdc": "RBDC only", "vbdc": "VBDC only", "mix": "mix"}
TCP_LABELS = {
    "cubic": "CUBIC",
    "bbr": "BBR",
    "hybla": "Hybla",
    "newreno": "NewReno",
    "westwood+": "Westwood+",
    "reno": "Reno",
}
PLACEMENTS = {
    "none": [],
    "terminal": ["terminal"],
    "gateway": ["gateway"],
    "both": ["terminal", "gateway"],
}


def draw(ctx: Context, s: dict[str, Any], lay: dict[str, Any]) -> list[Path]:
    from ..figures import (
        bar_groups,
        ci_legend,
        errorbar_series,
        figure,
        placement_label,
        reference_line,
        save_figure,
    )

    capacity_bps, carriers, goodput_ceiling = (
        lay["capacity_bps"],
        lay["carriers"],
        lay["goodput_ceiling"],
    )
    modes, tcps, terminals, loop_s = lay["modes"], lay["tcps"], lay["terminals"], lay["loop_s"]
    proxies, proxy_tcps, short_bytes = lay["proxies"], lay["proxy_tcps"], lay["short_bytes"]
    n = ctx.runs
    p = s["points"]
    written: list[Path] = []
    cap = f"{capacity_bps / 1e6:.3f} Mbit/s"

    # Utilisation per capacity mode and variant, 4 terminals.
    fig, ax = figure(8.6, 4.2)
    bar_groups(
        ax,
        [MODE_LABELS[m] for m in modes],
        {TCP_LABELS[t]: [p[f"categories_{m}_{t}"]["utilisation"] for m in modes] for t in tcps},
    )
    reference_line(
        ax, goodput_ceiling, f"ceiling: TCP payload per RLE burst byte ({goodput_ceiling:.3f})"
    )
    ax.set_ylabel(f"aggregate goodput / capacity ({cap})")
    ax.set_title("E7: 4 terminals uploading through DVB-RCS2 DAMA", fontsize=10)
    ci_legend(ax, n)
    written += save_figure(fig, ctx.out / "e7_categories")

    # Goodput against the number of terminals (RBDC, CUBIC), with the closed form.
    fig, ax = figure(8.2, 4.2)
    agg = [p[f"terminals_{k}"]["utilisation"] for k in terminals]
    per = [
        stats([sum(x["mean"] for x in p[f"terminals_{k}"]["per_terminal_kbps"]) / k])
        for k in terminals
    ]
    errorbar_series(
        ax,
        terminals,
        {
            "aggregate goodput (Mbit/s)": [
                {**a, "mean": a["mean"] * capacity_bps / 1e6 if a["mean"] is not None else None}
                for a in agg
            ],
            "goodput per terminal (Mbit/s)": [{**x, "mean": x["mean"] / 1e3} for x in per],
        },
    )
    closed = [
        min(k * capacity_bps / carriers, capacity_bps) * goodput_ceiling / 1e6 for k in terminals
    ]
    ax.plot(
        terminals,
        closed,
        color="0.4",
        linestyle=(0, (1, 2)),
        label="closed form: min(k carriers, all) x 0.951",
    )
    ax.set_xticks(terminals, [str(k) for k in terminals])
    ax.set_xlabel("terminals (RBDC only, CUBIC)")
    ax.set_ylabel("goodput (Mbit/s)")
    ax.set_ylim(bottom=0)
    ax.set_title("E7: the return link shared by more terminals", fontsize=10)
    ci_legend(ax, n)
    written += save_figure(fig, ctx.out / "e7_terminals")

    # A short transfer from an idle terminal, per mode.
    fig, ax = figure(8.2, 4.2)
    bar_groups(
        ax,
        [MODE_LABELS[m] for m in modes],
        {"completion time (s)": [p[f"short_{m}"]["short_completion_s"] for m in modes]},
    )
    cra = p["short_cra"]["short_completion_s"]["mean"]
    if cra is not None:
        reference_line(ax, cra + loop_s[0], f"CRA + one request/grant loop ({loop_s[0]:.2f} s)")
        reference_line(
            ax,
            cra + 2 * loop_s[0],
            "CRA + two loops",
            linestyle=(0, (4, 2)),
        )
    ax.set_ylabel("completion time (s)")
    ax.set_title(
        f"E7: {short_bytes // 1000} kB from an idle terminal while 3 others upload (CUBIC)",
        fontsize=10,
    )
    ci_legend(ax, n)
    written += save_figure(fig, ctx.out / "e7_short")

    # Proxy placement (RBDC only, 4 terminals).
    fig, ax = figure(8.2, 4.2)
    bar_groups(
        ax,
        [placement_label(PLACEMENTS[k]) for k in proxies],
        {
            TCP_LABELS[t]: [p[f"proxies_{k}_{t}"]["utilisation"] for k in proxies]
            for t in proxy_tcps
        },
    )
    reference_line(ax, goodput_ceiling, f"ceiling ({goodput_ceiling:.3f})")
    ax.set_ylabel(f"aggregate goodput / capacity ({cap})")
    ax.set_title("E7: split proxies, RBDC only, 4 terminals", fontsize=10)
    ci_legend(ax, n)
    written += save_figure(fig, ctx.out / "e7_proxies")

    written += _rain(ctx, s["rain"], n, lay)
    return written


def _rain(ctx: Context, rain: dict[str, Any], n: int, lay: dict[str, Any]) -> list[Path]:
    """The MODCOD's data-field rate over time under the fade, and the
    downloads' goodput (clear sky and fade) against it."""
    from ..figures import ci_legend, figure, reference_line, save_figure, series_style

    rain_duration_s, rain_symbol_rate_mbaud = lay["rain_duration_s"], lay["rain_symbol_rate_mbaud"]
    gse_ceiling = lay["gse_ceiling"]
    fig, ax = figure(8.6, 4.2)
    for i, (case, label) in enumerate((("clear", "clear sky"), ("fade", "20 dB fade"))):
        rows = rain[case]["modcods"]
        ts = [r["t_s"] for r in rows] + [float(rain_duration_s)]
        rates = [r["efficiency"] * rain_symbol_rate_mbaud for r in rows]
        style = series_style(i)
        ax.step(
            ts,
            [*rates, rates[-1]],
            where="post",
            color=style["color"],
            linestyle=style["linestyle"],
            linewidth=1.4,
            label=f"MODCOD data-field rate, {label}",
        )
        reference_line(
            ax,
            rain[case]["goodput_bps"] / 1e6,
            f"TCP goodput, {label} ({rain[case]['goodput_bps'] / 1e6:.2f} Mbit/s; "
            f"{rain[case]['goodput_bps'] / rain[case]['allowed_bps']:.3f} of the mean rate, "
            f"ceiling {gse_ceiling:.3f})",
            color=style["color"],
            linestyle=(0, (1, 2)) if i == 0 else (0, (4, 2)),
        )
    ax.set_xlabel("time (s)")
    ax.set_ylabel("Mbit/s")
    ax.set_ylim(bottom=0)
    ax.set_title(
        f"E7: a download through a {rain_symbol_rate_mbaud:g} Mbaud DVB-S2 carrier with ACM",
        fontsize=10,
    )
    ci_legend(ax, n, title="one run per case (nothing drawn)")
    return save_figure(fig, ctx.out / "e7_rain")
