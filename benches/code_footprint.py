"""Hot-code footprint of an engine run, from a callgrind profile with
instruction-level counts: how many bytes of code run at least a given
number of times per event, on how many 64-byte lines, and which functions
hold them (docs/VALIDATION.md section 5.2). A developer tool, for
comparing builds; deterministic, like the profile it reads.

    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=OUT \\
        target/release/examples/bench SCENARIO.toml --repeat 1
    python3 benches/code_footprint.py OUT BINARY EVENTS [--per-event 0.01]

EVENTS is the event count the bench printed (the counts are divided by
it). Instruction sizes come from `objdump -d` of BINARY (build it with
line tables or symbols, e.g. CARGO_PROFILE_RELEASE_DEBUG=line-tables-only).
"""

from __future__ import annotations

import argparse
import collections
import itertools
import re
import subprocess

NAMED = re.compile(r"\((\d+)\)(?: (.*))?")
NAME_KEYS = ("fn=", "cfn=", "fl=", "fi=", "fe=", "cfi=", "cfl=", "ob=", "cob=")


def read_counts(path: str) -> tuple[collections.Counter, dict[int, str]]:
    """Instructions executed per address, and each address's function
    (callgrind's compressed names and relative positions undone; the cost
    line after a `calls=` line is the call's inclusive cost and skipped)."""
    names: dict[tuple[str, str], str] = {}
    fn = "?"
    last = 0
    skip = False
    counts: collections.Counter = collections.Counter()
    owner: dict[int, str] = {}
    with open(path) as f:
        for line in f:
            if line.startswith(NAME_KEYS):
                key, value = line.rstrip("\n").split("=", 1)
                kind = "fn" if key in ("fn", "cfn") else "file"
                m = NAMED.match(value)
                if m:
                    if m.group(2):
                        names[(kind, m.group(1))] = m.group(2)
                    value = names.get((kind, m.group(1)), value)
                if key == "fn":
                    fn = value
                continue
            if line.startswith("calls="):
                skip = True
                continue
            if not line or line[0] not in "0123456789+-*":
                continue
            parts = line.split()
            if len(parts) < 3:
                continue
            tok = parts[0]
            if tok == "*":
                addr = last
            elif tok[0] in "+-":
                addr = last + int(tok[0] + str(int(tok[1:], 0)))
            else:
                addr = int(tok, 0)
            last = addr
            if skip:
                skip = False
                continue
            counts[addr] += int(parts[2])
            owner[addr] = fn
    return counts, owner


def instruction_sizes(binary: str, lo: int, hi: int) -> dict[int, int]:
    cmd = ["objdump", "-d", "--no-show-raw-insn", f"--start-address={lo}", f"--stop-address={hi}"]
    out = subprocess.run(
        [*cmd, binary],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    addrs = [int(m.group(1), 16) for m in re.finditer(r"^\s*([0-9a-f]+):", out, re.M)]
    return {a: b - a for a, b in itertools.pairwise(addrs)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("profile")
    ap.add_argument("binary")
    ap.add_argument("events", type=float)
    ap.add_argument("--per-event", type=float, default=0.01, help="the hotness threshold")
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_args()
    counts, owner = read_counts(a.profile)
    hot = [x for x, c in counts.items() if c / a.events >= min(a.per_event, 0.01)]
    sizes = instruction_sizes(a.binary, min(hot), max(hot) + 16)
    for th in sorted({0.3, 0.1, 0.03, 0.01, a.per_event}, reverse=True):
        sel = [x for x in hot if counts[x] / a.events >= th]
        nbytes = sum(sizes.get(x, 4) for x in sel)
        lines = {b // 64 for x in sel for b in range(x, x + sizes.get(x, 4))}
        print(
            f"run >= {th:g}/event: {nbytes / 1024:.1f} KiB of code on {len(lines)} lines "
            f"({len(lines) * 64 / 1024:.1f} KiB, {nbytes / max(1, 64 * len(lines)):.2f} used)"
        )
    by_fn: dict[str, list] = collections.defaultdict(lambda: [0, set()])
    for x in hot:
        if counts[x] / a.events < a.per_event:
            continue
        s = sizes.get(x, 4)
        by_fn[owner[x]][0] += s
        by_fn[owner[x]][1].update(b // 64 for b in range(x, x + s))
    print(f"by function (run >= {a.per_event:g}/event): bytes, lines")
    for name, (nbytes, lines) in sorted(by_fn.items(), key=lambda kv: -len(kv[1][1]))[: a.top]:
        print(f"{nbytes:7d} {len(lines):5d}  {name[:110]}")


if __name__ == "__main__":
    main()
