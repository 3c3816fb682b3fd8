"""Goodput of NewReno, CUBIC and BBR on the 10 Mb/s single-GEO path
(validation/ns3/geo10.toml) against the random packet error rate of the up
link, 5 seeds each, skyhop only. Writes docs/figures/geo10_goodput_vs_per.png
and prints the table of docs/VALIDATION.md section 6.

Cases: the scenario as it is (IW 10, min RTO 200 ms, otherwise the studies'
defaults: RFC 6675 SACK recovery for CUBIC and BBR, NewReno without SACK);
CUBIC and BBR with RACK-TLP alone (`tcp.rack = true`); and CUBIC and BBR
under `tcp.profile = "linux"` (RACK-TLP, delayed ACKs, Limited Transmit,
Linux's RTTVAR floor, restart after idle,
PRR for CUBIC).

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

# (label, --set overrides, line style)
CASES = [
    ("NewReno", ["flows.bulk.tcp=newreno"], "-"),
    ("CUBIC", ["flows.bulk.tcp=cubic"], "-"),
    ("BBR", ["flows.bulk.tcp=bbr"], "-"),
    ("CUBIC + RACK", ["flows.bulk.tcp=cubic", "tcp.rack=true"], "--"),
    ("BBR + RACK", ["flows.bulk.tcp=bbr", "tcp.rack=true"], "--"),
    ("CUBIC, linux", ["flows.bulk.tcp=cubic", "tcp.profile=linux"], ":"),
    ("BBR, linux", ["flows.bulk.tcp=bbr", "tcp.profile=linux"], ":"),
]


def run(sets: list[str], per: float, seed: int) -> dict:
    args = [str(RUN), str(SCN), str(seed)]
    for s in [*sets, f"links.up.per={per}"]:
        args += ["--set", s]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["flows"]["bulk"]


def main() -> None:
    fig, ax = plt.subplots(figsize=(7, 4.5))
    table = {}
    for label, sets, style in CASES:
        means = []
        for per in PERS:
            fl = [run(sets, per, s) for s in SEEDS]
            g = sum(f["goodput_bps"] for f in fl) / len(fl) / 1e6
            rto = sum(f["timeouts"] for f in fl) / len(fl)
            means.append(g)
            table[(label, per)] = (g, rto)
            print(f"{label:14s} PER {per:<6} {g:5.2f} Mb/s  {rto:.1f} RTOs/run")
        ax.plot([max(p, 1e-4) for p in PERS], means, marker="o", ls=style, label=label)
    ax.axhline(CAPACITY, color="grey", ls="--", lw=0.8, label="capacity")
    ax.axhline(CAPACITY / 2, color="grey", ls=":", lw=0.8, label="half capacity")
    ax.set_xscale("log")
    ax.set_xlabel("packet error rate on the up link (0 plotted at 1e-4)")
    ax.set_ylabel("goodput, Mb/s (60 s, mean of 5 seeds)")
    ax.set_title("10 Mb/s single GEO, 500 ms RTT, 1-BDP queues")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    fig.savefig(ROOT / "docs" / "figures" / "geo10_goodput_vs_per.png", dpi=120)
    print()
    print("| PER | " + " | ".join(c[0] for c in CASES) + " |")
    print("|---" * (len(CASES) + 1) + "|")
    for per in PERS:
        cells = [f"{table[(c[0], per)][0]:.2f}" for c in CASES]
        print(f"| {per * 100:g} % | " + " | ".join(cells) + " |")
    print()
    print("RTOs per run:")
    for per in PERS:
        cells = [f"{table[(c[0], per)][1]:.1f}" for c in CASES]
        print(f"| {per * 100:g} % | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
