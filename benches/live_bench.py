"""Live-run benchmark: real Linux TCP between two live hosts through a
simulated path, measured (not asserted): goodput at the receiver, the
lateness of the packets the engine released (p50/p99/max), the CPU the
engine's thread used.

    python3 benches/live_bench.py [--seconds 10] [--json]

Needs what `skyhop live` needs (root, or user namespaces). Each case runs a
bulk TCP transfer for --seconds with the case's congestion control set on
the sender's socket (`TCP_CONGESTION`; a namespace's
`net.ipv4.tcp_congestion_control` may only name the machine's allowed
ones) and read back, so each row names the algorithm that ran. Results
depend on the machine and what else runs on it; docs/live.md shows one set
and the machine it came from.

    --case SUBSTRING   only the cases whose "path cc" contains it
    --rounds N         run the chosen cases N times, in turn
    --wake-window D    passed to skyhop live (several, comma-separated: each
                       round runs every case once per window, in turn)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

CASES = [
    # (name, link rate, one-way delay per link, links, queue packets, cc)
    ("1 Gb/s, 10 ms", "1 Gbps", "10 ms", 1, 2000, "cubic"),
    ("1 Gb/s, 10 ms", "1 Gbps", "10 ms", 1, 2000, "bbr"),
    ("100 Mb/s, 10 ms", "100 Mbps", "10 ms", 1, 500, "cubic"),
    ("GEO 10 Mb/s, 2 x 125 ms", "10 Mbps", "125 ms", 2, 250, "cubic"),
    ("GEO 10 Mb/s, 2 x 125 ms", "10 Mbps", "125 ms", 2, 250, "bbr"),
]

BULK = r"""
import os, socket, sys, time
mode, secs, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
if mode == "server":
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((os.environ["SKYHOP_ADDR"], 5003)); s.listen(1)
    c, _ = s.accept(); n = 0; t0 = None
    while True:
        b = c.recv(1 << 20)
        if not b: break
        if t0 is None: t0 = time.monotonic()
        n += len(b)
    dt = time.monotonic() - t0
    open(out, "w").write(f'{{"bytes": {n}, "seconds": {dt}}}')
else:
    dst, cc = os.environ["SKYHOP_ADDR_B"], sys.argv[4]
    for _ in range(200):
        try:
            s = socket.socket()
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
            s.connect((dst, 5003)); break
        except OSError: s.close(); time.sleep(0.05)
    got = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16)
    open(out, "w").write(got.rstrip(b"\0").decode())
    buf = b"x" * (1 << 20); t0 = time.monotonic()
    while time.monotonic() - t0 < secs:
        s.sendall(buf)
    s.close()
"""


def scenario(rate: str, delay: str, links: int, queue: int) -> str:
    nodes = ["A"] + [f"R{i}" for i in range(1, links)] + ["B"]
    text = '[run]\nduration = "600 s"\n' + "".join(f"[nodes.{n}]\n" for n in nodes)
    for i in range(links):
        a, b = nodes[i], nodes[i + 1]
        text += (
            f'[links.l{i}]\nbetween = ["{a}", "{b}"]\nrate = "{rate}"\n'
            f'delay = "{delay}"\nqueue = {queue}\n'
        )
    # one tiny simulated flow beside the real one
    return text + '[flows.probe]\nfrom = "A"\nto = "B"\nsize = "1 kB"\n'


def run_case(case, seconds: float, tmp: Path, window: str = "0s") -> dict:
    name, rate, delay, links, queue, cc = case
    scn = tmp / "bench.toml"
    scn.write_text(scenario(rate, delay, links, queue))
    bulk = tmp / "bulk.py"
    bulk.write_text(BULK)
    out, ran = tmp / "server.json", tmp / "cc.txt"
    out.unlink(missing_ok=True)
    ran.unlink(missing_ok=True)
    cmd = [
        sys.executable, "-m", "skyhop", "live", str(scn), "--json",
        "--duration", f"{seconds + 30}s", "--wake-window", window,
        "--run", f"B:{sys.executable} {bulk} server 0 {out}",
        "--run", f"A:{sys.executable} {bulk} client {seconds} {ran} {cc}",
    ]  # fmt: skip
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{name} {cc}: skyhop live failed: {p.stderr.strip()}")
    doc = json.loads(p.stdout)["live"]
    got = json.loads(out.read_text())
    lat = doc["lateness"]
    if ran.read_text() != cc:
        raise SystemExit(f"{name}: asked for {cc}, the sender ran {ran.read_text()}")
    pk = doc["packets"]
    return {
        "case": name,
        "cc": cc,
        "wake_window": window,
        "goodput_mbps": got["bytes"] * 8 / got["seconds"] / 1e6,
        "packets_released": lat["packets"],
        "lateness_p50_us": (lat["p50_s"] or 0) * 1e6,
        "lateness_p99_us": (lat["p99_s"] or 0) * 1e6,
        "lateness_max_us": (lat["max_s"] or 0) * 1e6,
        "engine_cpu_share": doc["engine_cpu_s"] / doc["duration_s"],
        "engine_busiest_second": doc.get("engine_busiest_second", 0.0),
        "warnings": doc["warnings"],
        # packets per read and per write: what TSO and merging saved
        "packets_per_read": pk["read"] / max(pk.get("device_reads", pk["read"]), 1),
        "packets_per_write": pk["released"] / max(pk.get("device_writes", pk["released"]), 1),
        # how often the engine's thread slept, and woke by its own timer
        "waits_per_s": pk.get("waits", 0) / doc["duration_s"],
        "timer_wakeups_per_s": pk.get("waits_timed_out", 0) / doc["duration_s"],
        "tso": all(h.get("tso", False) for h in doc["hosts"]),
        "realtime": doc["realtime"],
    }


def _line(r: dict) -> str:
    lat = (r["lateness_p50_us"], r["lateness_p99_us"], r["lateness_max_us"])
    return (
        f"{r['case']:<26} {r['cc']:<6} window {r['wake_window']:<5} {r['goodput_mbps']:7.1f} Mb/s  "
        f"lateness p50 {lat[0]:6.0f} µs  p99 {lat[1]:7.0f} µs  max {lat[2]:8.0f} µs"
        f"   engine CPU {r['engine_cpu_share']:.0%}"
        f"   packets/read {r['packets_per_read']:.1f} /write {r['packets_per_write']:.1f}"
        f"   waits/s {r['waits_per_s'] / 1e3:.0f} k"
        f" ({r['timer_wakeups_per_s'] / 1e3:.0f} k by timer)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--case", default="", help="only cases whose 'path cc' contains this")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--wake-window", default="0s")
    args = ap.parse_args()
    cases = [c for c in CASES if args.case in f"{c[0]} {c[5]}"]
    if not cases:
        raise SystemExit(f"no case matches {args.case!r}")
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for _ in range(args.rounds):
            for case in cases:
                for window in args.wake_window.split(","):
                    rows.append(run_case(case, args.seconds, Path(d), window))
                    if not args.json:
                        print(_line(rows[-1]), flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
