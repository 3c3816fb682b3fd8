"""Run the skyhop side of an ns-3 comparison case through the `skyhop` CLI.

    python validation/ns3/skyhop_run.py validation/ns3/geo10.toml --tcp cubic \
        --set links.up.per=0.01 --runs 20

prints one JSON document `{"runs": [{seed, goodput_bps, completion_time_s,
fast_recoveries, timeouts, retransmissions}, ...]}` with the same record keys
as ns3_run.py. `tcp.handshake = true` is always set: ns-3 opens every
connection with a three-way handshake, so skyhop must count it too.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def skyhop_cmd() -> list[str]:
    exe = shutil.which("skyhop")
    return [exe] if exe else [sys.executable, "-m", "skyhop"]


def run(
    scenario: pathlib.Path, tcp: str | None, sets: list[str], runs: int, seed: int = 1
) -> list[dict]:
    cmd = [*skyhop_cmd(), "run", str(scenario), "--json", "--runs", str(runs)]
    cmd += ["--seed", str(seed), "--set", "tcp.handshake=true"]
    if tcp:
        cmd += ["--set", f"flows.{flow_name(scenario)}.tcp={tcp}"]
    for s in sets:
        cmd += ["--set", s]
    doc = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    out = []
    for r in doc["runs"]:
        (f,) = r["flows"].values()
        out.append(
            {
                "seed": r["seed"],
                "goodput_bps": f["goodput_bps"],
                "bytes_delivered": f["bytes_delivered"],
                "completion_time_s": f["completion_time_s"],
                "fast_recoveries": f["fast_recoveries"],
                "timeouts": f["timeouts"],
                "retransmissions": f["retransmissions"],
            }
        )
    return out


def flow_name(scenario: pathlib.Path) -> str:
    import tomllib

    (name,) = tomllib.loads(scenario.read_text())["flows"].keys()
    return name


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", type=pathlib.Path)
    ap.add_argument("--tcp")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    json.dump({"runs": run(a.scenario, a.tcp, a.set, a.runs, a.seed)}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
