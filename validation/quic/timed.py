"""Run a command and write when it started and ended on the monotonic clock
(the same clock in every network namespace) and its exit status:

    python3 timed.py OUT.json -- COMMAND [ARG...]   # {"t_start", "t_end", "exit"}
"""

from __future__ import annotations

import json
import subprocess
import sys
import time


def main() -> None:
    out, sep, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    if sep != "--" or not cmd:
        raise SystemExit("usage: timed.py OUT.json -- COMMAND [ARG...]")
    t0 = time.monotonic()
    code = subprocess.call(cmd)
    t1 = time.monotonic()
    with open(out, "w") as f:
        json.dump({"t_start": t0, "t_end": t1, "exit": code}, f)
    raise SystemExit(code)


if __name__ == "__main__":
    main()
