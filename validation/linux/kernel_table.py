"""The kernel table: Linux's own TCP (reno, cubic, bbr) between live hosts of
`skyhop live`, over the scenario files skyhop simulates, beside skyhop's
simulation of the same rows under its default profile.

    python3 validation/linux/kernel_table.py kernel --runs 3 --duration 30
    python3 validation/linux/kernel_table.py skyhop --runs 20 --duration 30
    python3 validation/linux/kernel_table.py ns3 --runs 5 --duration 30   # ns-3 in .venv-ns3
    python3 validation/linux/kernel_table.py markdown
    python3 validation/linux/kernel_table.py kernel --runs 20 --only "PER 1 % cubic" --counters

Needs root (network namespaces and TUN devices) for `kernel`. Every run
appends one JSON line to results/kernel_runs.jsonl (or skyhop_runs.jsonl);
a cell already there is skipped, so an interrupted measurement resumes.
`markdown` prints the table (mean ± 95 % CI half-width, Student t) from them
and writes results/table.csv. A seed draws the same loss sequence on each
link direction live as simulated, so the table also compares skyhop with the
kernel over the seeds both ran ("same seeds"). With --counters a kernel run
also keeps the sender's counters (nstat) and socket state (ss -tin) as they
were when the receiver stopped counting, with the cwnd/ssthresh series.

Each kernel run is a fresh `skyhop live` run: two (or three) network
namespaces, each with the controller set by sysctl and the route to the
other hosts pinned to `initcwnd 10 rto_min 200ms` (the kernel's defaults,
written down so they cannot drift); the hosts' `net.ipv4.tcp_*` settings and
routes of the first run of each row are saved under results/settings/. The
scenario's own simulated flow is moved past the end of the run
(`flows.<name>.start`), so the links carry only the kernel's packets.

Bulk rows: the receiver counts the bytes its application read in DURATION
seconds from accept() (the first data arrives with the handshake's last
ACK); skyhop runs the same scenario without a handshake for DURATION plus
the path's one-way delay, the first data arriving after that delay, so both
count DURATION seconds of arrivals. File rows (20 MB over the E1 chain at
10 Mb/s, BBR): the time from the client's connect() to the server's EOF,
handshake included, against skyhop's completion time with a handshake.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RESULTS = Path(os.environ.get("KERNEL_TABLE_RESULTS", HERE / "results"))
TRANSFER = HERE / "transfer.py"
RELAY = ROOT / "examples" / "live" / "relay.py"
# This environment's skyhop (the one beside this interpreter), else PATH's.
_VENV_SKYHOP = Path(sys.executable).parent / "skyhop"
SKYHOP = str(_VENV_SKYHOP) if _VENV_SKYHOP.exists() else shutil.which("skyhop") or "skyhop"

FILE_BYTES = 20_000_000
# One-way delay of the bulk rows' path (2 x 125 ms plus 2 serialisations).
ONE_WAY_S = 0.25


def rows() -> list[dict]:
    out = []
    for per in (0.0, 0.001, 0.01):
        for cc in ("reno", "cubic", "bbr"):
            out.append(
                {
                    "row": f"geo10 PER {per * 100:g} % {cc}",
                    "kind": "bulk",
                    "scenario": "geo10.toml",
                    "flow": "bulk",
                    "cc": cc,
                    "sets": [f"links.up.per={per}", f"links.down.per={per}"],
                    "src": "A",
                    "dst": "B",
                }
            )
    for cc in ("reno", "cubic", "bbr"):
        out.append(
            {
                "row": f"geo2 q50 {cc}",
                "kind": "bulk",
                "scenario": "geo2_q50.toml",
                "flow": "bulk",
                "cc": cc,
                "sets": [],
                "src": "A",
                "dst": "B",
            }
        )
    for split in (False, True):
        out.append(
            {
                "row": "haps+geo10 bbr " + ("split at T" if split else "end to end"),
                "kind": "file",
                "scenario": "haps_geo10.toml",
                "flow": "ftp",
                "cc": "bbr",
                "sets": [],
                "split": split,
                "src": "W",
                "dst": "G",
            }
        )
    return out


def setup(cc: str, node: str, tmp: str) -> str:
    # The namespace's default controller where it may be set (reno, bbr),
    # and every socket's own through TRANSFER_CC (cubic is not in the
    # allowed list a namespace may take its default from).
    return (
        f"export TRANSFER_CC={cc}; sysctl -qw net.ipv4.tcp_congestion_control={cc}; "
        "ip route change 10.0.0.0/8 dev sky0 initcwnd 10 rto_min 200ms && "
        "sysctl -a 2>/dev/null "
        "| grep -E '^net\\.ipv4\\.tcp_|^net\\.core\\.(rmem|wmem|default_qdisc)' "
        f"> {tmp}/sysctl_{node}.txt; ip route show > {tmp}/route_{node}.txt; "
    )


# A kernel run whose packets reached the hosts more than this late (99th
# percentile) had its engine starved by other work on the machine: it is
# kept in the file but neither counted nor reported, and measured again.
MAX_P99_LATENESS_S = 0.001


def valid(d: dict) -> bool:
    late = d.get("lateness") or {}
    return "error" not in d and (late.get("p99_s") or 0.0) <= MAX_P99_LATENESS_S


def done(path: Path) -> set[tuple[str, int]]:
    if not path.exists():
        return set()
    out = set()
    for line in path.read_text().splitlines():
        d = json.loads(line)
        if valid(d):
            out.add((d["row"], d["run"]))
    return out


# `--counters`: the sender's kernel counters (nstat) and socket state
# (ss -tin) once a second, kept in the run's record.
COUNTERS = False
SAMPLER = (
    'while :; do echo "@ $(' + sys.executable + " -c 'import time; print(time.monotonic())')\"; "
    "nstat -asz; ss -tinH state established; sleep 1; done > {out} 2>&1"
)


def sender_stats(path: Path, t_end: float) -> dict:
    """The last sample taken before `t_end` (monotonic seconds): its nonzero
    nstat counters and the socket's ss line; with the cwnd/ssthresh series."""
    samples: list[dict] = []
    for line in path.read_text().splitlines():
        if line.startswith("@ "):
            try:
                samples.append({"t": float(line[2:]), "nstat": {}, "ss": ""})
            except ValueError:  # a clock read cut short when the run stopped
                samples.append({"t": math.inf, "nstat": {}, "ss": ""})
        elif samples and line and not line.startswith("#"):
            parts = line.split()
            if len(parts) >= 2 and parts[1].isdigit() and parts[0][0].isalpha():
                if parts[0].startswith("Tcp") and int(parts[1]):
                    samples[-1]["nstat"][parts[0]] = int(parts[1])
            else:
                samples[-1]["ss"] += line.strip() + " "
    before = [x for x in samples if x["t"] <= t_end] or samples[:1]
    last = before[-1] if before else {"t": None, "nstat": {}, "ss": ""}
    series = []
    for x in before:
        kv = dict(w.split(":", 1) for w in x["ss"].split() if ":" in w and "/" not in w[:1])
        series.append([round(x["t"] - before[0]["t"], 2), kv.get("cwnd"), kv.get("ssthresh")])
    return {"t": last["t"], "nstat": last["nstat"], "ss": last["ss"].strip(), "series": series}


def kernel_run(r: dict, run: int, duration: float) -> dict:
    tmp = tempfile.mkdtemp(prefix="kt_")
    os.chmod(tmp, 0o777)
    py = sys.executable
    cmd = [SKYHOP, "live", str(HERE / r["scenario"]), "--json", "--seed", str(run)]
    for s in r["sets"]:
        cmd += ["--set", s]
    cmd += ["--set", 'run.duration="100000 s"', "--set", f'flows.{r["flow"]}.start="99999 s"']
    src, dst, cc = r["src"], r["dst"], r["cc"]
    if r["kind"] == "bulk":
        cmd += ["--duration", f"{duration + 20:g}s"]
        cmd += [
            "--daemon",
            f"{src}:{setup(cc, src, tmp)}exec {py} {TRANSFER} client-bulk {dst} {tmp}/client.json",
        ]
        cmd += [
            "--run",
            f"{dst}:{setup(cc, dst, tmp)}exec {py} {TRANSFER} "
            f"server-bulk {duration} {tmp}/out.json",
        ]
        if COUNTERS:
            # The sender's own counters, sampled every second on the clock
            # the receiver times with (CLOCK_MONOTONIC via /proc/uptime is
            # boot time, equal while the machine does not sleep).
            cmd += ["--daemon", f"{src}:{SAMPLER.format(out=f'{tmp}/sender_stats.txt')}"]
    else:
        cmd += ["--duration", "300s"]
        cmd += [
            "--run",
            f"{dst}:{setup(cc, dst, tmp)}exec {py} {TRANSFER} server-file {tmp}/server.json",
        ]
        if r["split"]:
            cmd += ["--daemon", f"T:{setup(cc, 'T', tmp)}exec {py} {RELAY} 8080 {dst} 5003"]
            cmd += [
                "--run",
                f"{src}:{setup(cc, src, tmp)}TRANSFER_PORT=8080 exec {py} {TRANSFER} "
                f"client-file T {FILE_BYTES} {tmp}/client.json",
            ]
        else:
            cmd += [
                "--run",
                f"{src}:{setup(cc, src, tmp)}exec {py} {TRANSFER} "
                f"client-file {dst} {FILE_BYTES} {tmp}/client.json",
            ]
    p = subprocess.run(cmd, capture_output=True, text=True)
    doc = json.loads(p.stdout) if p.stdout.strip().startswith("{") else {}
    live = doc.get("live", {})
    rec = {
        "row": r["row"],
        "run": run,
        "cc": cc,
        "exit": p.returncode,
        "lateness": live.get("lateness"),
        "stop_reason": live.get("stop_reason"),
        "links": [
            {
                k: lk.get(k)
                for k in (
                    "link",
                    "dir",
                    "packets",
                    "delivered",
                    "queue_drops",
                    "channel_drops",
                    "max_queue_packets",
                )
            }
            for lk in (doc.get("runs") or [{}])[0].get("links", [])
        ],
    }
    try:
        if r["kind"] == "bulk":
            o = json.loads(Path(tmp, "out.json").read_text())
            rec["goodput_bps"] = o["bytes"] * 8 / o["seconds"]
            rec["bytes"] = o["bytes"]
            rec["cc_sender"] = json.loads(Path(tmp, "client.json").read_text())["cc"]
            rec["cc_receiver"] = o["cc"]
            if COUNTERS:
                rec["sender"] = sender_stats(
                    Path(tmp, "sender_stats.txt"), o["t_accept"] + o["seconds"]
                )
        else:
            c = json.loads(Path(tmp, "client.json").read_text())
            s = json.loads(Path(tmp, "server.json").read_text())
            rec["bytes"] = s["bytes"]
            rec["completion_s"] = s["t_eof"] - c["t_connect"]
            rec["cc_sender"] = c["cc"]
            rec["cc_receiver"] = s["cc"]
    except (OSError, KeyError, ValueError) as e:
        rec["error"] = f"{e}; stderr: {p.stderr[-2000:]}"
    settings = RESULTS / "settings" / r["row"].replace(" ", "_").replace("%", "pc")
    if not settings.exists():
        settings.mkdir(parents=True)
        for f in Path(tmp).glob("*.txt"):
            shutil.copy(f, settings / f.name)
        if live.get("hosts"):
            (settings / "hosts.json").write_text(json.dumps(live["hosts"], indent=1))
    shutil.rmtree(tmp, ignore_errors=True)
    return rec


def skyhop_run(r: dict, run: int, duration: float) -> dict:
    cmd = [SKYHOP, "run", str(HERE / r["scenario"]), "--json", "--seed", str(run), "--runs", "1"]
    for s in r["sets"]:
        cmd += ["--set", s]
    cmd += ["--set", f'flows.{r["flow"]}.tcp="{r["cc"]}"']
    if r["kind"] == "bulk":
        cmd += [
            "--set",
            "tcp.handshake=false",
            "--set",
            f'run.duration="{duration + ONE_WAY_S:g} s"',
        ]
    else:
        cmd += ["--set", "tcp.handshake=true"]
        if r["split"]:
            cmd += ["--set", 'flows.ftp.proxies=["T"]']
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    doc = json.loads(p.stdout)
    f = doc["runs"][0]["flows"][r["flow"]]
    rec = {
        "row": r["row"],
        "run": run,
        "cc": r["cc"],
        "retransmissions": f["retransmissions"],
        "timeouts": f["timeouts"],
        "profile": doc["runs"][0].get("profile") or doc.get("scenario", {}).get("profile"),
    }
    if r["kind"] == "bulk":
        rec["goodput_bps"] = f["bytes_delivered"] * 8 / duration
    else:
        rec["completion_s"] = f["completion_time_s"]
    return rec


NS3_PYTHON = ROOT / ".venv-ns3" / "bin" / "python"
# ns-3 always opens with a handshake: the first data arrives 1.5 round trips
# after the start (0.75 s), so it runs DURATION plus that and counts all.
NS3_LEAD_S = 0.75


def ns3_row(r: dict, n: int, duration: float) -> list[dict]:
    cmd = [
        str(NS3_PYTHON),
        str(ROOT / "validation" / "ns3" / "ns3_run.py"),
        str(HERE / r["scenario"]),
    ]
    cmd += [
        "--tcp",
        r["cc"],
        "--runs",
        str(n),
        "--set",
        f"run.duration={duration + NS3_LEAD_S:g} s",
    ]
    for x in r["sets"]:
        cmd += ["--set", x]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    doc = json.loads(p.stdout)
    return [
        {
            "row": r["row"],
            "run": i + 1,
            "cc": r["cc"],
            "goodput_bps": x["bytes_delivered"] * 8 / duration,
            "timeouts": x["timeouts"],
            "fast_recoveries": x["fast_recoveries"],
            "duration_s": duration,
            "config": doc["config"] if i == 0 else None,
        }
        for i, x in enumerate(doc["runs"])
    ]


def measure_ns3(n: int, duration: float, jobs: int) -> None:
    from concurrent.futures import ThreadPoolExecutor

    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / "ns3_runs.jsonl"
    have = {row for row, _ in done(path)}
    todo = [r for r in rows() if r["kind"] == "bulk" and r["row"] not in have]
    with ThreadPoolExecutor(jobs) as ex:
        for recs in ex.map(lambda r: ns3_row(r, n, duration), todo):
            with path.open("a") as f:
                for rec in recs:
                    f.write(json.dumps(rec) + "\n")
            vals = [f"{x['goodput_bps'] / 1e6:.2f}" for x in recs]
            print(f"ns3 {recs[0]['row']}: {' '.join(vals)}", flush=True)


def measure(which: str, n: int, duration: float) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{which}_runs.jsonl"
    have = done(path)
    for run in range(1, n + 1):  # runs outside, rows inside: drift spreads over rows
        for r in rows():
            if (r["row"], run) in have:
                continue
            rec = (kernel_run if which == "kernel" else skyhop_run)(r, run, duration)
            rec["duration_s"] = duration
            with path.open("a") as f:
                f.write(json.dumps(rec) + "\n")
            v = rec.get("goodput_bps", 0) / 1e6 if "goodput_bps" in rec else rec.get("completion_s")
            print(f"{which} run {run} {r['row']}: {v}", rec.get("error", ""), flush=True)


T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}


def ci(xs: list[float]) -> tuple[float, float]:
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, float("nan")
    t = T95.get(len(xs) - 1, 2.09 if len(xs) <= 21 else 1.96)
    return m, t * statistics.stdev(xs) / math.sqrt(len(xs))


def load(which: str) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    p = RESULTS / f"{which}_runs.jsonl"
    if p.exists():
        for line in p.read_text().splitlines():
            d = json.loads(line)
            if valid(d):
                out.setdefault(d["row"], []).append(d)
    return out


def markdown() -> None:
    k, s, n3 = load("kernel"), load("skyhop"), load("ns3")
    # A seed draws the same loss sequence on each link direction in a live
    # run as in a simulated one (the streams are the engine's, named by
    # link), so the runs of one seed are paired: "same seeds" compares
    # skyhop over the seeds the kernel ran with the kernel's mean.
    lines = [
        "| row | metric | Linux kernel | skyhop (default) | skyhop − kernel "
        "| same seeds | ns-3 | ns-3 − kernel |",
        "|---|---|---|---|---|---|---|---|",
    ]
    table = []
    for r in rows():
        key = "goodput_bps" if r["kind"] == "bulk" else "completion_s"
        scale = 1e6 if r["kind"] == "bulk" else 1.0
        unit = "Mb/s" if r["kind"] == "bulk" else "s"
        kv = [d[key] / scale for d in k.get(r["row"], []) if d.get(key) is not None]
        sv = [d[key] / scale for d in s.get(r["row"], []) if d.get(key) is not None]
        nv = [d[key] / scale for d in n3.get(r["row"], []) if d.get(key) is not None]
        if not kv and not sv:
            continue
        nan = (float("nan"), float("nan"))
        km, kc = ci(kv) if kv else nan
        sm, sc = ci(sv) if sv else nan
        nm, nc = ci(nv) if nv else nan

        def cell(m: float, c: float, xs: list, unit: str = unit) -> str:
            return f"{m:.2f} ± {c:.2f} {unit} (n = {len(xs)})" if xs else "—"

        dev = (sm - km) / km * 100 if kv and sv else float("nan")
        kby = {d["run"]: d[key] / scale for d in k.get(r["row"], []) if d.get(key) is not None}
        sby = {d["run"]: d[key] / scale for d in s.get(r["row"], []) if d.get(key) is not None}
        both = sorted(set(kby) & set(sby))
        pdev = (
            (statistics.fmean(sby[x] for x in both) - statistics.fmean(kby[x] for x in both))
            / statistics.fmean(kby[x] for x in both)
            * 100
            if both
            else float("nan")
        )
        ndev = (nm - km) / km * 100 if kv and nv else float("nan")
        lines.append(
            f"| {r['row']} | {'goodput' if r['kind'] == 'bulk' else '20 MB time'} | "
            f"{cell(km, kc, kv)} | {cell(sm, sc, sv)} | {dev:+.1f} % | "
            + (f"{pdev:+.1f} % (n = {len(both)}) | " if both else "— | ")
            + f"{cell(nm, nc, nv)} | "
            + (f"{ndev:+.1f} % |" if nv else "— |")
        )
        table.append(
            {
                "row": r["row"],
                "unit": unit,
                "kernel_mean": km,
                "kernel_ci95": kc,
                "kernel_n": len(kv),
                "skyhop_mean": sm,
                "skyhop_ci95": sc,
                "skyhop_n": len(sv),
                "skyhop_vs_kernel_pct": dev,
                "same_seeds_n": len(both),
                "same_seeds_skyhop_vs_kernel_pct": pdev,
                "ns3_mean": nm,
                "ns3_ci95": nc,
                "ns3_n": len(nv),
                "ns3_vs_kernel_pct": ndev,
            }
        )
    print("\n".join(lines))
    with (RESULTS / "table.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("what", choices=["kernel", "skyhop", "ns3", "markdown"])
    ap.add_argument("--jobs", type=int, default=2, help="ns3: worker processes")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=float, default=30.0, help="seconds per bulk run")
    ap.add_argument("--only", help="run only rows whose name contains this")
    ap.add_argument(
        "--counters",
        action="store_true",
        help="kernel: record the sender's nstat counters and ss state (once a second)",
    )
    a = ap.parse_args()
    global COUNTERS
    COUNTERS = a.counters
    if a.only:
        global rows
        all_rows = rows
        rows = lambda: [r for r in all_rows() if a.only in r["row"]]  # noqa: E731
    if a.what == "markdown":
        markdown()
    elif a.what == "ns3":
        measure_ns3(a.runs, a.duration, a.jobs)
    else:
        measure(a.what, a.runs, a.duration)


if __name__ == "__main__":
    main()
