"""Goodput of NewReno, CUBIC and BBR on the 10 Mb/s single-GEO path
(validation/ns3/geo10.toml) against the random packet error rate of the up
link, 5 seeds each, skyhop only. Writes docs/figures/geo10_goodput_vs_per.png.

Run from the repository root after `cargo build --release --example run`.
"""

import json
import pathlib
import subprocess

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUN = ROOT / "target" / "release" / "examples" / "run"
SCN = ROOT / "validation" / "ns3" / "geo10.toml"
PERS = [0.0, 0.001, 0.003, 0.01]
SEEDS = range(1, 6)
CAPACITY = 10.0 * 1460 / 1500  # Mb/s of payload


def goodput(tcp: str, per: float, seed: int) -> float:
    out = subprocess.run(
        [
            str(RUN),
            str(SCN),
            str(seed),
            "--set",
            f"flows.bulk.tcp={tcp}",
            "--set",
            f"links.up.per={per}",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)["flows"]["bulk"]["goodput_bps"] / 1e6


def main() -> None:
    fig, ax = plt.subplots(figsize=(6, 4))
    for tcp in ["newreno", "cubic", "bbr"]:
        means = []
        for per in PERS:
            g = [goodput(tcp, per, s) for s in SEEDS]
            means.append(sum(g) / len(g))
            print(tcp, per, round(means[-1], 3))
        ax.plot([max(p, 1e-4) for p in PERS], means, marker="o", label=tcp)
    ax.axhline(CAPACITY, color="grey", ls="--", lw=0.8, label="capacity")
    ax.axhline(CAPACITY / 2, color="grey", ls=":", lw=0.8, label="half capacity")
    ax.set_xscale("log")
    ax.set_xlabel("packet error rate on the up link (0 plotted at 1e-4)")
    ax.set_ylabel("goodput, Mb/s (60 s, mean of 5 seeds)")
    ax.set_title("10 Mb/s single GEO, 500 ms RTT, 1-BDP queues")
    ax.legend()
    fig.tight_layout()
    fig.savefig(ROOT / "docs" / "figures" / "geo10_goodput_vs_per.png", dpi=120)


if __name__ == "__main__":
    main()
