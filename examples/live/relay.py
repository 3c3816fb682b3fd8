"""A split-TCP relay (a performance-enhancing proxy in 30 lines): accepts
connections on this host's address and port LISTEN, and relays each one to
the node named TARGET (its address from SKYHOP_ADDR_<TARGET>) on port PORT,
over a second, independent TCP connection.

    python3 relay.py LISTEN TARGET PORT

Run it on a live node between the client and the server (skyhop live
--daemon T:'python3 examples/live/relay.py 8080 G 8000'), and point the
client at that node's address: the client's TCP sees only the first leg's
round trip, the relay's TCP the rest, as with a split proxy in a simulation.
"""

import os
import socket
import sys
import threading
import time


def pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while True:
            b = src.recv(1 << 16)
            if not b:
                break
            dst.sendall(b)
    except OSError:
        pass
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def main() -> None:
    listen, target, port = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    addr = os.environ[f"SKYHOP_ADDR_{target}"]
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((os.environ["SKYHOP_ADDR"], listen))
    srv.listen(16)
    while True:
        c, _ = srv.accept()
        threading.Thread(target=serve, args=(c, addr, port), daemon=True).start()


def serve(c: socket.socket, addr: str, port: int) -> None:
    for _ in range(100):  # the server may not be up yet
        try:
            up = socket.create_connection((addr, port))
            break
        except OSError:
            time.sleep(0.2)
    else:
        c.close()
        return
    threading.Thread(target=pump, args=(up, c), daemon=True).start()
    pump(c, up)


if __name__ == "__main__":
    main()
