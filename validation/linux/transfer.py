"""One TCP transfer between two live hosts of `skyhop live`, timed on the
machine's monotonic clock (the same clock in every namespace).

    python3 transfer.py server-bulk SECONDS OUT.json   # count bytes for SECONDS after accept
    python3 transfer.py client-bulk NODE               # send to NODE until stopped
    python3 transfer.py server-file OUT.json           # read to EOF
    python3 transfer.py client-file NODE BYTES OUT.json  # connect, send BYTES, close

The server listens on its node's address (SKYHOP_ADDR), port 5003 (or
TRANSFER_PORT); a client connects to SKYHOP_ADDR_<NODE>, retrying until the
server is up. A bulk server writes {"bytes", "seconds", "t_accept"}: the bytes
the application read in the SECONDS after the connection was accepted. A file
client writes {"t_connect", "t_connected"}, its server {"bytes", "t_accept",
"t_eof"}: the completion time is t_eof - t_connect (the handshake included).
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time

PORT = int(os.environ.get("TRANSFER_PORT", "5003"))


def listen() -> socket.socket:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((os.environ["SKYHOP_ADDR"], PORT))
    s.listen(1)
    return s


def connect(node: str) -> tuple[socket.socket, float, float]:
    dst = os.environ[f"SKYHOP_ADDR_{node}"]
    while True:
        t0 = time.monotonic()
        try:
            s = socket.create_connection((dst, PORT), timeout=30)
            return s, t0, time.monotonic()
        except OSError:
            time.sleep(0.05)


def main() -> None:
    mode = sys.argv[1]
    if mode == "server-bulk":
        secs, out = float(sys.argv[2]), sys.argv[3]
        c, _ = listen().accept()
        t0 = time.monotonic()
        n = 0
        while True:
            left = t0 + secs - time.monotonic()
            if left <= 0:
                break
            c.settimeout(left)
            try:
                b = c.recv(1 << 20)
            except socket.timeout:
                break
            if not b:
                break
            n += len(b)
        with open(out, "w") as f:
            json.dump({"bytes": n, "seconds": secs, "t_accept": t0}, f)
    elif mode == "client-bulk":
        s, _, _ = connect(sys.argv[2])
        buf = b"x" * (1 << 20)
        try:
            while True:
                s.sendall(buf)
        except OSError:
            pass
    elif mode == "server-file":
        out = sys.argv[2]
        c, _ = listen().accept()
        t0 = time.monotonic()
        n = 0
        while True:
            b = c.recv(1 << 20)
            if not b:
                break
            n += len(b)
        t1 = time.monotonic()
        with open(out, "w") as f:
            json.dump({"bytes": n, "t_accept": t0, "t_eof": t1}, f)
    elif mode == "client-file":
        node, size, out = sys.argv[2], int(sys.argv[3]), sys.argv[4]
        s, t0, t1 = connect(node)
        with open(out, "w") as f:
            json.dump({"t_connect": t0, "t_connected": t1}, f)
        buf = b"x" * (1 << 20)
        left = size
        while left > 0:
            k = min(left, len(buf))
            s.sendall(buf[:k])
            left -= k
        s.shutdown(socket.SHUT_WR)
        s.settimeout(600)
        try:
            while s.recv(1 << 16):
                pass
        except OSError:
            pass
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
