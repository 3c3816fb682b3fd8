"""One TCP transfer between two live hosts of `skyhop live`, timed on the
machine's monotonic clock (the same clock in every namespace).

    python3 transfer.py server-bulk SECONDS OUT.json   # count bytes for SECONDS after accept
    python3 transfer.py client-bulk NODE [OUT.json]    # send to NODE until stopped
    python3 transfer.py server-file OUT.json           # read to EOF
    python3 transfer.py client-file NODE BYTES OUT.json  # connect, send BYTES, close

The server listens on its node's address (SKYHOP_ADDR), port 5003 (or
TRANSFER_PORT); with TRANSFER_CC set, every socket runs that congestion
controller (setsockopt TCP_CONGESTION: a network namespace other than the
first may not make a controller outside net.ipv4.tcp_allowed_congestion_control
its default, but a privileged socket may choose it), and the JSON records the
controller the kernel reports for the socket (key "cc"). A client connects
to SKYHOP_ADDR_<NODE>, retrying until the server is up. A bulk server
writes {"bytes", "seconds", "t_accept"}: the bytes
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
CC = os.environ.get("TRANSFER_CC")


def use_cc(s: socket.socket) -> None:
    if CC:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, CC.encode())


def cc_of(s: socket.socket) -> str:
    return s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode()


def listen() -> socket.socket:
    s = socket.socket()
    use_cc(s)  # inherited by the accepted socket
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((os.environ["SKYHOP_ADDR"], PORT))
    s.listen(1)
    return s


def connect(node: str) -> tuple[socket.socket, float, float]:
    dst = os.environ[f"SKYHOP_ADDR_{node}"]
    while True:
        s = socket.socket()
        use_cc(s)
        s.settimeout(30)
        t0 = time.monotonic()
        try:
            s.connect((dst, PORT))
            return s, t0, time.monotonic()
        except OSError:
            s.close()
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
            except TimeoutError:
                break
            if not b:
                break
            n += len(b)
        with open(out, "w") as f:
            json.dump({"bytes": n, "seconds": secs, "t_accept": t0, "cc": cc_of(c)}, f)
    elif mode == "client-bulk":
        s, _, _ = connect(sys.argv[2])
        out = sys.argv[3] if len(sys.argv) > 3 else None
        if out:
            with open(out, "w") as f:
                json.dump({"cc": cc_of(s)}, f)
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
            json.dump({"bytes": n, "t_accept": t0, "t_eof": t1, "cc": cc_of(c)}, f)
    elif mode == "client-file":
        node, size, out = sys.argv[2], int(sys.argv[3]), sys.argv[4]
        s, t0, t1 = connect(node)
        with open(out, "w") as f:
            json.dump({"t_connect": t0, "t_connected": t1, "cc": cc_of(s)}, f)
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
