"""A TCP transfer between two live hosts, for the live-run tests.

    python3 xfer.py server BYTES OUT.json   (on the receiving node)
    python3 xfer.py client BYTES OUT.json [DEST_NODE] (on the sending node)

The client connects to DEST_NODE's address (SKYHOP_ADDR_<DEST_NODE>, default
B), sends BYTES bytes of a fixed pseudo-random pattern, half-closes and
waits for the server to close. The server checks every byte and writes what
it got; both write their timings (monotonic seconds) to OUT.json.
"""

import hashlib
import json
import os
import socket
import sys
import time

PORT = 5001


def pattern(n: int) -> bytes:
    out = bytearray()
    block = b"skyhop"
    while len(out) < n:
        block = hashlib.sha256(block).digest()
        out += block
    return bytes(out[:n])


def main() -> int:
    mode, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    data = pattern(n)
    if mode == "server":
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((os.environ["SKYHOP_ADDR"], PORT))
        s.listen(1)
        c, _ = s.accept()
        t0 = time.monotonic()
        got = bytearray()
        while True:
            b = c.recv(1 << 16)
            if not b:
                break
            got += b
        t1 = time.monotonic()
        c.close()
        ok = bytes(got) == data
        doc = {
            "received": len(got),
            "intact": ok,
            "seconds": t1 - t0,
            "sha256": hashlib.sha256(bytes(got)).hexdigest(),
        }
        with open(out, "w") as f:
            json.dump(doc, f)
        return 0 if ok else 1
    dest = sys.argv[4] if len(sys.argv) > 4 else "B"
    addr = os.environ[f"SKYHOP_ADDR_{dest}"]
    t0 = time.monotonic()
    for _ in range(200):
        try:
            s = socket.create_connection((addr, PORT), timeout=10)
            break
        except OSError:
            time.sleep(0.05)
            t0 = time.monotonic()
    else:
        return 2
    s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    s.recv(1)  # the server's close
    t1 = time.monotonic()
    s.close()
    with open(out, "w") as f:
        json.dump({"sent": n, "seconds": t1 - t0}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
