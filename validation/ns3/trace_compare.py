"""cwnd of skyhop and ns-3 side by side on one geo10 case (seed / run 1).

    python validation/ns3/trace_compare.py --per 0 --duration 30

Runs skyhop (`--trace`) and ns3_run.py (`--trace-cwnd`) for NewReno, CUBIC
and BBR and draws the two congestion windows per variant into
docs/figures/ns3_geo10_cwnd_per<PER>.png; prints each side's goodput,
timeouts and fast recoveries.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCN = HERE / "geo10.toml"
MSS = 1460


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per", type=float, default=0.0)
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--ns3-python", default=str(ROOT / ".venv-ns3" / "bin" / "python"))
    a = ap.parse_args()
    sets = [f"links.up.per={a.per}", f"run.duration={a.duration:g} s"]
    fig, axes = plt.subplots(3, 1, figsize=(7, 8), sharex=True)
    for ax, tcp in zip(axes, ["newreno", "cubic", "bbr"], strict=True):
        cmd = ["skyhop", "run", str(SCN), "--json", "--runs", "1", "--trace"]
        cmd += ["--set", "tcp.handshake=true", "--set", f"flows.bulk.tcp={tcp}"]
        for s in sets:
            cmd += ["--set", s]
        sk = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        run = sk["runs"][0]
        cw = run["traces"]["bulk.0.cwnd"]
        f = run["flows"]["bulk"]
        ax.step(cw["t_s"], [v / MSS for v in cw["value"]], where="post", label="skyhop")
        cmd = [a.ns3_python, str(HERE / "ns3_run.py"), str(SCN), "--tcp", tcp, "--trace-cwnd"]
        for s in sets:
            cmd += ["--set", s]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        n3 = json.loads(out)["runs"][0]
        ax.step(
            n3["cwnd"]["t_s"], [v / MSS for v in n3["cwnd"]["bytes"]], where="post", label="ns-3"
        )
        print(
            f"{tcp}: skyhop {f['goodput_bps'] / 1e6:.2f} Mb/s, {f['timeouts']} RTO,"
            f" {f['fast_recoveries']} FR; ns-3 {n3['goodput_bps'] / 1e6:.2f} Mb/s,"
            f" {n3['timeouts']} RTO, {n3['fast_recoveries']} FR"
        )
        ax.set_ylabel(f"{tcp} cwnd (segments)")
        ax.legend(loc="upper right")
    axes[-1].set_xlabel("time (s)")
    axes[0].set_title(f"geo10, PER {a.per * 100:g} % on the up link, run 1")
    fig.tight_layout()
    out = ROOT / "docs" / "figures" / f"ns3_geo10_cwnd_per{a.per:g}.png"
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
