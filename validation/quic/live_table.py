"""The live-versus-simulated QUIC table: quinn's own client and server
(validation/quic, quinn 0.11.12 over quinn-proto 0.11.19, the version skyhop
simulates) and Debian's ngtcp2 examples (gtlsclient/gtlsserver, ngtcp2
0.12.1) between live hosts of `skyhop live`, over the scenario paths skyhop
simulates, beside skyhop's simulated QUIC flow on the same paths.

    cargo build --release --manifest-path validation/quic/Cargo.toml
    apt-get install ngtcp2-client ngtcp2-server        # for the ngtcp2 rows
    python3 validation/quic/live_table.py live --runs 5            # quinn live
    python3 validation/quic/live_table.py live --stack ngtcp2 --runs 3
    python3 validation/quic/live_table.py sim --runs 20            # skyhop
    python3 validation/quic/live_table.py markdown

Needs root for `live` (network namespaces and TUN devices). Every run
appends one JSON line to results/<stack>_runs.jsonl; a cell already there is
skipped, so an interrupted measurement resumes. `markdown` prints the table
(mean ± 95 % CI half-width, Student t) and writes results/table.csv.

Each row is one 10 MiB transfer from the row's sender to its receiver
(the study's file, Endres et al. 2022), with quinn's default settings on
both sides (CUBIC, a 1.25 MB stream window, MTU discovery up to 1452 B).
Goodput = file bits / completion time, the completion time counted from the
client's first connection attempt to the last byte read at the receiver
(the handshake included) — skyhop's `completion_time_s` of the simulated
flow, which opens its connection at its start. quinn's client sends (as in
skyhop's model, the end whose application sends first opens the
connection); ngtcp2's client downloads (a GET), so its time also holds the
request's half round trip. A run's scenario flow is moved to the last
millisecond of a 240 s run (`flows.<id>.start`), which ends when the
client exits, so the links carry only the live stacks' packets; a
seed draws the same loss decisions per packet on each link direction live
as simulated (the packets themselves differ).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RESULTS = Path(os.environ.get("QUIC_TABLE_RESULTS", HERE / "results"))
QT = HERE / "target" / "release" / "quic-transfer"
TIMED = HERE / "timed.py"
_VENV_SKYHOP = Path(sys.executable).parent / "skyhop"
SKYHOP = str(_VENV_SKYHOP) if _VENV_SKYHOP.exists() else shutil.which("skyhop") or "skyhop"
# skyhop's simulated QUIC flow: `skyhop run` with the flow's transport QUIC.
SIM = [SKYHOP, "run"]

SIZE = 10 * 1024 * 1024
PORT = 4433
# A live run whose packets reached the hosts more than this late (99th
# percentile) had its engine starved by other work: kept, not counted.
MAX_P99_LATENESS_S = 0.001


def rows() -> list[dict]:
    geo10 = str(ROOT / "validation" / "linux" / "geo10.toml")
    out = []
    for per in (0.0, 0.001):
        out.append(
            {
                "row": f"GEO 10 Mb/s, PER {per * 100:g} %",
                "scenario": geo10,
                "flow": "bulk",
                "sets": [
                    f"links.up.per={per}",
                    f"links.down.per={per}",
                    f'flows.bulk.size="{SIZE} B"',
                ],
                "src": "A",
                "dst": "B",
                "one_way_s": 0.25,
            }
        )
    for name, label in (
        ("quic_sat", "20/2 Mb/s, 600 ms"),
        ("quic_sat_loss", "20/2 Mb/s, 600 ms, 1 % loss"),
    ):
        out.append(
            {
                "row": label,
                "scenario": str(ROOT / "scenarios" / f"{name}.toml"),
                "flow": "download",
                "sets": [],
                "src": "server",
                "dst": "client",
                "one_way_s": 0.3,
            }
        )
    return out


def valid(d: dict) -> bool:
    late = d.get("lateness") or {}
    return "error" not in d and (late.get("p99_s") or 0.0) <= MAX_P99_LATENESS_S


def done(path: Path) -> set[tuple[str, int]]:
    if not path.exists():
        return set()
    out = set()
    for line in path.read_text().splitlines():
        d = json.loads(line)
        if d.get("error") is None and (d.get("stack") == "skyhop" or valid(d)):
            out.add((d["row"], d["run"]))
    return out


def live_cmd(r: dict, run: int, extra: list[str]) -> list[str]:
    cmd = [SKYHOP, "live", r["scenario"], "--json", "--seed", str(run)]
    for s in r["sets"]:
        cmd += ["--set", s]
    # The scenario's own flow starts a millisecond before the run's end, so
    # the links carry only the live stacks' packets: the run ends when the
    # client exits, long before (a flow starting at or after the end is refused).
    cmd += ["--set", 'run.duration="240 s"', "--set", f'flows.{r["flow"]}.start="239.999 s"']
    return [*cmd, "--lateness-warn", "1ms", *extra]


def quinn_run(r: dict, run: int, tmp: str) -> dict:
    src, dst = r["src"], r["dst"]
    cmd = live_cmd(
        r,
        run,
        [
            "--daemon",
            f"{dst}:exec {QT} server $SKYHOP_ADDR:{PORT} {tmp}/server.json",
            "--run",
            f"{src}:exec {QT} client $SKYHOP_ADDR_{dst}:{PORT} {tmp}/client.json --bytes {SIZE}",
        ],
    )
    p = subprocess.run(cmd, capture_output=True, text=True)
    d: dict = {}
    try:
        doc = json.loads(p.stdout)
        d["lateness"] = doc.get("live", {}).get("lateness")
        server = json.loads(Path(tmp, "server.json").read_text())
        client = json.loads(Path(tmp, "client.json").read_text())
        t = server["t_eof"] - client["t_connect"]
        d.update(
            completion_s=t,
            goodput_bps=server["bytes"] * 8 / t,
            bytes=server["bytes"],
            intact=server["intact"] and server["bytes"] == SIZE,
            handshake_s=client["handshake_s"],
            stats=server["stats"],
        )
    except (OSError, ValueError, KeyError) as e:
        d["error"] = f"{type(e).__name__}: {e}; exit {p.returncode}; {p.stderr[-600:]}"
    return d


def ngtcp2_run(r: dict, run: int, tmp: str) -> dict:
    src, dst = r["src"], r["dst"]
    www = Path(tmp, "www")
    www.mkdir()
    data = bytes(i % 251 for i in range(251)) * (SIZE // 251 + 1)
    Path(www, "file").write_bytes(data[:SIZE])
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            f"{tmp}/key.pem",
            "-out",
            f"{tmp}/cert.pem",
            "-subj",
            "/CN=server.skyhop",
            "-days",
            "1",
        ],
        check=True,
        capture_output=True,
    )
    dl = Path(tmp, "dl")
    dl.mkdir()
    client = (
        f"sleep 2; exec {sys.executable} {TIMED} {tmp}/client.json -- gtlsclient -q "
        f"--exit-on-all-streams-close --max-stream-data-bidi-local=1250000 "
        f"--download={dl} $SKYHOP_ADDR_{src} {PORT} https://$SKYHOP_ADDR_{src}:{PORT}/file"
    )
    cmd = live_cmd(
        r,
        run,
        [
            "--daemon",
            f"{src}:exec gtlsserver -q -d {www} $SKYHOP_ADDR {PORT} {tmp}/key.pem {tmp}/cert.pem",
            "--run",
            f"{dst}:{client}",
        ],
    )
    p = subprocess.run(cmd, capture_output=True, text=True)
    d: dict = {}
    try:
        doc = json.loads(p.stdout)
        d["lateness"] = doc.get("live", {}).get("lateness")
        c = json.loads(Path(tmp, "client.json").read_text())
        got = Path(dl, "file").read_bytes()
        t = c["t_end"] - c["t_start"]
        d.update(
            completion_s=t,
            goodput_bps=len(got) * 8 / t,
            bytes=len(got),
            intact=hashlib.sha256(got).digest() == hashlib.sha256(data[:SIZE]).digest(),
            exit=c["exit"],
        )
    except (OSError, ValueError, KeyError) as e:
        d["error"] = f"{type(e).__name__}: {e}; exit {p.returncode}; {p.stderr[-600:]}"
    return d


def sim_run(r: dict, run: int) -> dict:
    # The live run's 240 s limit, so a slow lossy transfer finishes here as it does live
    # (a scenario's shorter run.duration would leave it unfinished and out of the mean).
    sets = r["sets"] + [
        f'flows.{r["flow"]}.size="{SIZE} B"',
        f'flows.{r["flow"]}.transport="quic"',
        'run.duration="240 s"',
    ]
    # A QUIC flow names no TCP variant: the scenario without its flows' `tcp`.
    text = Path(r["scenario"]).read_text()
    scn = Path(tempfile.mkdtemp(prefix="qs_"), Path(r["scenario"]).name)
    scn.write_text("\n".join(x for x in text.splitlines() if not x.startswith("tcp = ")))
    cmd = [*SIM, str(scn), "--json", "-q", "--runs", "1", "--seed", str(run)]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True)
    shutil.rmtree(scn.parent, ignore_errors=True)
    if p.returncode != 0:
        return {"error": p.stderr[-600:]}
    res = json.loads(p.stdout)["runs"][0]
    f = res["flows"][r["flow"]]
    client = next(q for q in res["quic"] if q["end"] == "client")
    return {
        "completion_s": f["completion_time_s"],
        "goodput_bps": f["goodput_bps"],
        "bytes": f["bytes_delivered"],
        "intact": f["bytes_delivered"] == SIZE and f.get("connection_error") is None,
        "handshake_s": f["handshake_s"],
        "stats": {k: client[k] for k in ("lost_packets", "congestion_events", "cwnd_bytes", "mtu")},
    }


def measure(stack: str, runs: int, only: str | None) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"{stack}_runs.jsonl"
    have = done(out)
    for r in rows():
        if only and only not in r["row"]:
            continue
        for run in range(1, runs + 1):
            if (r["row"], run) in have:
                continue
            t0 = time.monotonic()
            if stack == "skyhop":
                d = sim_run(r, run)
            else:
                tmp = tempfile.mkdtemp(prefix="qt_")
                os.chmod(tmp, 0o777)
                d = quinn_run(r, run, tmp) if stack == "quinn" else ngtcp2_run(r, run, tmp)
                shutil.rmtree(tmp, ignore_errors=True)
            d.update(row=r["row"], run=run, stack=stack, wall_s=round(time.monotonic() - t0, 1))
            with out.open("a") as fh:
                fh.write(json.dumps(d) + "\n")
            late = (d.get("lateness") or {}).get("p99_s")
            print(
                f"{stack} {r['row']} run {run}: "
                + (
                    f"error {d['error'][:300]}"
                    if "error" in d
                    else f"{d['goodput_bps'] / 1e6:.2f} Mb/s"
                )
                + (f", p99 lateness {late * 1e6:.0f} us" if late is not None else ""),
                flush=True,
            )


def t95(n: int) -> float:
    # Student t quantiles (two-sided 95 %) for small samples.
    table = {
        1: 12.706,
        2: 4.303,
        3: 3.182,
        4: 2.776,
        5: 2.571,
        6: 2.447,
        7: 2.365,
        8: 2.306,
        9: 2.262,
    }
    return table.get(n, 2.0 + 2.5 / max(n, 1))


def summary(stack: str) -> dict[str, tuple[float, float, int]]:
    path = RESULTS / f"{stack}_runs.jsonl"
    if not path.exists():
        return {}
    by: dict[str, list[float]] = {}
    for line in path.read_text().splitlines():
        d = json.loads(line)
        if "error" in d or not d.get("intact") or (stack != "skyhop" and not valid(d)):
            continue
        by.setdefault(d["row"], []).append(d["goodput_bps"] / 1e6)
    out = {}
    for row, v in by.items():
        half = t95(len(v) - 1) * statistics.stdev(v) / math.sqrt(len(v)) if len(v) > 1 else 0.0
        out[row] = (statistics.mean(v), half, len(v))
    return out


def by_seed(stack: str) -> dict[str, dict[int, float]]:
    """Goodput (Mb/s) per row and seed of the runs :func:`summary` counts."""
    path = RESULTS / f"{stack}_runs.jsonl"
    out: dict[str, dict[int, float]] = {}
    for line in path.read_text().splitlines() if path.exists() else []:
        d = json.loads(line)
        if "error" in d or not d.get("intact") or (stack != "skyhop" and not valid(d)):
            continue
        out.setdefault(d["row"], {})[d["run"]] = d["goodput_bps"] / 1e6
    return out


def paired(sim: dict[int, float], live: dict[int, float]) -> str:
    """sim / live over the seeds both have: the mean ratio and its range.
    A seed draws the same loss decisions per packet live as simulated, so
    on a lossy path this compares like with like where the two means,
    over different seeds, need many runs to agree."""
    ratios = [sim[k] / live[k] for k in sorted(set(sim) & set(live))]
    if not ratios:
        return "—"
    return f"{statistics.mean(ratios):.3f} ({min(ratios):.2f}–{max(ratios):.2f}, {len(ratios)})"


def markdown() -> None:
    sim, quinn, ng = summary("skyhop"), summary("quinn"), summary("ngtcp2")
    sim_seeds, quinn_seeds = by_seed("skyhop"), by_seed("quinn")
    cell = lambda s, r: f"{s[r][0]:.2f} ± {s[r][1]:.2f} ({s[r][2]})" if r in s else "—"  # noqa: E731
    print(
        "| path | skyhop (simulated quinn) | quinn live | sim / live (means) "
        "| sim / live (same seeds) | ngtcp2 live |"
    )
    print("|---|---|---|---|---|---|")
    rows_csv = []
    for r in rows():
        name = r["row"]
        ratio = f"{sim[name][0] / quinn[name][0]:.3f}" if name in sim and name in quinn else "—"
        pair = paired(sim_seeds.get(name, {}), quinn_seeds.get(name, {}))
        print(
            f"| {name} | {cell(sim, name)} | {cell(quinn, name)} | {ratio} | {pair} "
            f"| {cell(ng, name)} |"
        )
        rows_csv.append([name] + [s.get(name, (None,))[0] for s in (sim, quinn, ng)])
    with (RESULTS / "table.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["row", "skyhop_mbps", "quinn_live_mbps", "ngtcp2_live_mbps"])
        w.writerows(rows_csv)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["live", "sim", "markdown"])
    ap.add_argument("--stack", choices=["quinn", "ngtcp2"], default="quinn")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", help="rows whose name contains this")
    a = ap.parse_args()
    if a.what == "markdown":
        markdown()
    elif a.what == "sim":
        measure("skyhop", a.runs, a.only)
    else:
        measure(a.stack, a.runs, a.only)


if __name__ == "__main__":
    main()
