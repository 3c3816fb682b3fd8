"""Page and object response times of one web user behind a GEO terminal
(scenarios/web_geo.toml: 8 Mb/s forward, 1 Mb/s return, 250 ms each way
between gateway and terminal), as distributions over 20 sessions of 50
pages: HTTP/1.0 with four parallel connections against HTTP/1.1 with one
persistent connection, with the studies' TCP defaults (SACK, IW 1,
RFC 6298 RTO) and under tcp.profile = "linux". Writes
docs/figures/web_geo_response_cdf.png (with skyhop.figures' palette and
line styles) and prints the quantiles quoted in docs/VALIDATION.md.
(`skyhop plot RUN.json --cdf response_time_s` draws the same curves for any
saved run document.)

Run from the repository root with skyhop installed:
    python3 validation/web/web_geo_figure.py
"""

import pathlib

import matplotlib.ticker
import numpy as np

import skyhop
from skyhop.figures import save_figure, series_style, subplots

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCN = ROOT / "scenarios" / "web_geo.toml"
OUT = ROOT / "docs" / "figures" / "web_geo_response_cdf.png"

CASES = [
    ("HTTP/1.0 ×4", {"flows.web.web.http": "1.0", "tcp.profile": "studies"}),
    (
        "HTTP/1.1",
        {"flows.web.web.http": "1.1", "tcp.idle_restart": True, "tcp.profile": "studies"},
    ),
    ("HTTP/1.0 ×4, linux", {"flows.web.web.http": "1.0", "tcp.profile": "linux"}),
    ("HTTP/1.1, linux", {"flows.web.web.http": "1.1", "tcp.profile": "linux"}),
]


def main() -> None:
    fig, axes = subplots(1, 2, width=12, height=4.2)
    axes = axes[0]
    print("| case | object p50 | object p95 | page p50 | page p95 | page p99 |")
    print("|---|---|---|---|---|---|")
    for i, (label, sets) in enumerate(CASES):
        style = series_style(i)
        res = skyhop.run(SCN, runs=20, seed=1, set=sets)
        objs = res.objects_frame()["response_time_s"].dropna().to_numpy()
        pages = res.pages_frame()["response_time_s"].dropna().to_numpy()
        for ax, v in ((axes[0], objs), (axes[1], pages)):
            x = np.sort(v)
            ax.step(
                x,
                np.arange(1, len(x) + 1) / len(x),
                where="post",
                color=style["color"],
                linestyle=style["linestyle"],
                linewidth=1.4,
                label=f"{label} (n = {len(x)})",
            )
        q = lambda v, p: float(np.quantile(v, p))  # noqa: E731
        print(
            f"| {label} | {q(objs, 0.5):.2f} s | {q(objs, 0.95):.2f} s | {q(pages, 0.5):.2f} s "
            f"| {q(pages, 0.95):.2f} s | {q(pages, 0.99):.2f} s |"
        )
    for ax, what in ((axes[0], "object"), (axes[1], "page")):
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xticks([0.5, 1, 2, 5, 10, 20, 50])
        ax.set_xlabel(f"{what} response time (s)")
        ax.set_ylabel("fraction ≤ x")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.18), fontsize=7, ncol=2, frameon=False)
    axes[0].set_title("objects (request to last reply byte)", fontsize=10)
    axes[1].set_title("pages (main request to last object)", fontsize=10)
    fig.suptitle(
        "One web user behind a GEO terminal (web_geo.toml), 20 sessions of 50 pages, seeds 1..20",
        fontsize=10,
    )
    fig.tight_layout()
    save_figure(fig, OUT, formats=("png",))
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
