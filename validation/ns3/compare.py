"""skyhop against ns-3 on matched topologies: one command, one table.

    python validation/ns3/compare.py --runs 20

(from the repository root, in skyhop's virtual environment, with ns-3 in
`.venv-ns3`: `python3 -m venv .venv-ns3 && .venv-ns3/bin/pip install ns3`).
For every case below it runs skyhop (skyhop_run.py, the `skyhop` CLI) and
ns-3 (ns3_run.py, in the ns-3 interpreter given by --ns3-python), prints
mean +- 95 % CI half-width for each simulator and the relative difference
(skyhop - ns-3) / ns-3, and writes validation/ns3/results.json.

Cases: NewReno, CUBIC and BBR on
  * geo10: validation/ns3/geo10.toml (10 Mb/s up and down through one GEO,
    125 ms per hop, 1-BDP queues, IW 10, min RTO 200 ms), PER 0, 0.1 %, 1 %
    on the up link (both directions); metric: goodput of a bulk transfer of
    --geo-duration seconds (60 s in the scenario; ns-3 with SACK is slow
    here, so the default is shorter - see docs/VALIDATION.md);
  * e1: scenarios/e1_haps.toml (W-U-T-S-G, 1 Mb/s, 50-packet queues, no
    proxy, 5 MB W -> G, IW 1, min RTO 1 s): no loss at all; PER 0.1 % on W-U
    with the scenario's 0.1 % on T-S and S-G; PER 1 % on W-U (the scenario
    as shipped); metric: completion time.

ns-3 jobs run in --jobs worker processes; finished jobs are kept in
validation/ns3/ns3_jobs.jsonl and reused on the next call unless --fresh.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import skyhop_run  # noqa: E402

VARIANTS = ["newreno", "cubic", "bbr"]
GEO_PERS = [0.0, 0.001, 0.01]
E1_CASES = {
    "no loss": ["links.wu.per=0.0", "links.ts.per=0.0", "links.sg.per=0.0"],
    "W-U 0.1 %": ["links.wu.per=0.001"],
    "W-U 1 %": [],
}


def cases(geo_duration: float) -> list[dict]:
    geo = []
    for per in GEO_PERS:
        for v in VARIANTS:
            geo.append(
                {
                    "name": f"geo10 PER {per * 100:g} % {v}",
                    "scenario": str(HERE / "geo10.toml"),
                    "tcp": v,
                    "set": [f"links.up.per={per}", f"run.duration={geo_duration:g} s"],
                    "metric": "goodput_bps",
                }
            )
    out = []
    for label, sets in E1_CASES.items():
        for v in VARIANTS:
            out.append(
                {
                    "name": f"e1 {label} {v}",
                    "scenario": str(ROOT / "scenarios" / "e1_haps.toml"),
                    "tcp": v,
                    "set": sets,
                    "metric": "completion_time_s",
                }
            )
    return out + geo


def t975(n: int) -> float:
    # two-sided 95 % Student-t quantiles for n - 1 degrees of freedom
    table = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306}
    table |= {9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131}
    table |= {16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 29: 2.045, 39: 2.023}
    return table.get(n - 1, 1.96)


def mean_ci(xs: list[float]) -> tuple[float, float | None]:
    n = len(xs)
    m = sum(xs) / n
    if n < 2:
        return m, None
    s = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return m, t975(n) * s / math.sqrt(n)


def job_key(job: dict) -> str:
    return json.dumps([job["scenario"], job["tcp"], job["set"], job["runs"]])


def run_ns3(jobs: list[dict], python: str, nworkers: int, cache: pathlib.Path) -> dict:
    done = {}
    if cache.exists():
        for line in cache.read_text().splitlines():
            r = json.loads(line)
            done[job_key(r["job"])] = r
    todo = [j for j in jobs if job_key(j) not in done]
    if todo:
        # interleave the expensive (geo10) and cheap jobs across the workers
        chunks = [todo[i::nworkers] for i in range(nworkers)]
        procs = []
        for chunk in chunks:
            if not chunk:
                continue
            f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
            json.dump(chunk, f)
            f.close()
            cmd = [python, str(HERE / "ns3_run.py"), "--batch", f.name, "--jsonl", str(cache)]
            procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL))
        for p in procs:
            if p.wait() != 0:
                raise SystemExit(f"ns3_run.py failed ({p.args})")
        for line in cache.read_text().splitlines():
            r = json.loads(line)
            done[job_key(r["job"])] = r
    return done


def print_markdown(doc: dict) -> None:
    print("| case | metric | skyhop | ns-3 | skyhop − ns-3 | RTOs / FRs per run (skyhop; ns-3) |")
    print("|---|---|---|---|---|---|")
    for r in doc["rows"]:

        def cell(s: dict, unit: str = r["unit"]) -> str:
            ci = f" ± {s['ci95']:.2f}" if s["ci95"] is not None else ""
            miss = "" if s["n"] == doc["runs"] else f" ({s['n']} of {doc['runs']} done)"
            return f"{s['mean']:.2f}{ci} {unit}{miss}"

        sk, n3 = r["skyhop"], r["ns3"]
        ev = (
            f"{sk['timeouts']:.1f} / {sk['fast_recoveries']:.1f}; "
            f"{n3['timeouts']:.1f} / {n3['fast_recoveries']:.1f}"
        )
        metric = "goodput" if r["metric"] == "goodput_bps" else "5 MB time"
        diff = f"{r['rel_diff'] * 100:+.1f} %"
        print(f"| {r['case']} | {metric} | {cell(sk)} | {cell(n3)} | {diff} | {ev} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--geo-duration", type=float, default=30.0, help="seconds (default 30)")
    ap.add_argument("--ns3-python", default=str(ROOT / ".venv-ns3" / "bin" / "python"))
    ap.add_argument("--jobs", type=int, default=2, help="ns-3 worker processes")
    ap.add_argument("--only", help="run only cases whose name contains this")
    ap.add_argument("--fresh", action="store_true", help="ignore finished ns-3 jobs")
    ap.add_argument("--out", type=pathlib.Path, default=HERE / "results.json")
    ap.add_argument(
        "--markdown",
        action="store_true",
        help="print the table of an existing results.json (--out) as Markdown and stop",
    )
    args = ap.parse_args()
    if args.markdown:
        print_markdown(json.loads(args.out.read_text()))
        return

    cs = [c for c in cases(args.geo_duration) if not args.only or args.only in c["name"]]
    cache = HERE / "ns3_jobs.jsonl"
    if args.fresh and cache.exists():
        cache.unlink()
    jobs = [
        {"scenario": c["scenario"], "tcp": c["tcp"], "set": c["set"], "runs": args.runs} for c in cs
    ]
    ns3 = run_ns3(jobs, args.ns3_python, args.jobs, cache)

    rows = []
    print(f"{'case':32} {'metric':10} {'skyhop':>20} {'ns-3':>20} {'diff':>7}")
    for c, job in zip(cs, jobs, strict=True):
        sk = skyhop_run.run(pathlib.Path(c["scenario"]), c["tcp"], c["set"], args.runs)
        n3 = ns3[job_key(job)]["runs"]
        metric = c["metric"]
        scale = 1e-6 if metric == "goodput_bps" else 1.0
        unit = "Mb/s" if metric == "goodput_bps" else "s"
        row = {"case": c["name"], "metric": metric, "unit": unit, "runs": args.runs}
        for side, rs in (("skyhop", sk), ("ns3", n3)):
            xs = [r[metric] for r in rs if r[metric] is not None]
            m, ci = mean_ci([x * scale for x in xs]) if xs else (float("nan"), None)
            row[side] = {
                "mean": m,
                "ci95": ci,
                "n": len(xs),
                "timeouts": sum(r["timeouts"] for r in rs) / len(rs),
                "fast_recoveries": sum(r["fast_recoveries"] for r in rs) / len(rs),
                "values": [x * scale for x in xs],
            }
        row["rel_diff"] = (row["skyhop"]["mean"] - row["ns3"]["mean"]) / row["ns3"]["mean"]
        rows.append(row)

        def fmt(s: dict, unit: str = unit) -> str:
            ci = f" ± {s['ci95']:.2f}" if s["ci95"] is not None else ""
            miss = "" if s["n"] == args.runs else f" ({s['n']}/{args.runs})"
            return f"{s['mean']:.2f}{ci} {unit}{miss}"

        print(
            f"{c['name']:32} {metric[:10]:10} {fmt(row['skyhop']):>20} {fmt(row['ns3']):>20}"
            f" {row['rel_diff'] * 100:+6.1f}%",
            flush=True,
        )
    args.out.write_text(
        json.dumps({"runs": args.runs, "geo_duration_s": args.geo_duration, "rows": rows}, indent=1)
        + "\n"
    )


if __name__ == "__main__":
    main()
