"""Bad split-proxy input through the real command line.

Each case overrides ``scenarios/e1_haps.toml`` (chain W-U-T-S-G, flow ``ftp``
W->G) with ``--set`` and must give exit status 2, nothing on stdout and
exactly one line ``skyhop: error: FILE: KEY: problem`` on stderr, naming the
scenario file and the offending key; never a traceback or a panic.
"""

from __future__ import annotations

import pytest

from conftest import REPO, assert_one_line_error

E1 = REPO / "scenarios" / "e1_haps.toml"

# Short bulk runs: a case that is wrongly accepted fails fast instead of
# simulating a 5 MB transfer.
QUICK = ("--set", "run.duration=2 s", "--set", "flows.ftp.size=unlimited", "--runs", "1")


def run_with(cli, *sets: str):
    args = ["run", E1, *QUICK]
    for s in sets:
        args += ["--set", s]
    return cli(*args)


# (test id, --set overrides, key the error must name, further text it must contain)
BAD_PROXIES = [
    (
        "proxy-on-node-not-on-path",
        # the flow W->T runs W-U-T; S exists but is not on that path
        ["flows.ftp.to=T", 'flows.ftp.proxies=["S"]'],
        "flows.ftp.proxies[0]",
        '"S"',
    ),
    ("proxy-on-unknown-node", ['flows.ftp.proxies=["X"]'], "flows.ftp.proxies[0]", '"X"'),
    ("proxy-at-source", ['flows.ftp.proxies=["W"]'], "flows.ftp.proxies[0]", '"W"'),
    ("proxy-at-destination", ['flows.ftp.proxies=["G"]'], "flows.ftp.proxies[0]", '"G"'),
    (
        "proxy-at-destination-second",
        ['flows.ftp.proxies=["T","G"]'],
        "flows.ftp.proxies[1]",
        '"G"',
    ),
    ("proxies-out-of-path-order", ['flows.ftp.proxies=["S","T"]'], "flows.ftp.proxies[1]", ""),
    (
        "proxies-out-of-path-order-reverse-flow",
        # G->W runs G-S-T-U-W: T before S is out of order
        ["flows.ftp.from=G", "flows.ftp.to=W", 'flows.ftp.proxies=["T","S"]'],
        "flows.ftp.proxies[1]",
        "",
    ),
    ("proxy-twice", ['flows.ftp.proxies=["T","T"]'], "flows.ftp.proxies[1]", ""),
    (
        "cache-of-zero",
        ['flows.ftp.proxies=["T"]', "nodes.T.proxy.cache_packets=0"],
        "nodes.T.proxy.cache_packets",
        "",
    ),
    (
        "cache-of-zero-bytes",
        ['flows.ftp.proxies=["T"]', 'nodes.T.proxy.cache="0 B"'],
        "nodes.T.proxy.cache",
        "",
    ),
    (
        "cache-negative",
        ['flows.ftp.proxies=["T"]', "nodes.T.proxy.cache_packets=-5"],
        "nodes.T.proxy.cache_packets",
        "",
    ),
    (
        "cache-below-one-segment",
        ['flows.ftp.proxies=["T"]', 'nodes.T.proxy.cache="100 B"'],
        "nodes.T.proxy.cache",
        "",
    ),
    (
        "buffers-send-buffer-below-one-segment",
        [
            'flows.ftp.proxies=["T"]',
            "nodes.T.proxy.policy=buffers",
            'nodes.T.proxy.recv_buffer="100 kB"',
            'nodes.T.proxy.send_buffer="100 B"',
        ],
        "nodes.T.proxy.send_buffer",
        "",
    ),
    (
        "buffers-without-buffers",
        ['flows.ftp.proxies=["T"]', "nodes.T.proxy.policy=buffers"],
        "nodes.T.proxy.",
        "buffer",
    ),
    (
        "unknown-policy",
        ['flows.ftp.proxies=["T"]', "nodes.T.proxy.policy=lifo"],
        "nodes.T.proxy.policy",
        '"lifo"',
    ),
    (
        "unknown-proxy-field",
        ['flows.ftp.proxies=["T"]', "nodes.T.proxy.colour=1"],
        "nodes.T.proxy.colour",
        "",
    ),
    (
        "legs-too-few",
        ['flows.ftp.proxies=["T"]', 'flows.ftp.legs=["newreno"]'],
        "flows.ftp.legs",
        "",
    ),
    (
        "legs-too-many",
        ['flows.ftp.proxies=["T"]', 'flows.ftp.legs=["newreno","westwood","newreno"]'],
        "flows.ftp.legs",
        "",
    ),
    (
        "legs-for-two-proxies-too-few",
        ['flows.ftp.proxies=["T","S"]', 'flows.ftp.legs=["newreno","westwood"]'],
        "flows.ftp.legs",
        "",
    ),
    (
        "legs-without-proxies",
        ["flows.ftp.proxies=[]", 'flows.ftp.legs=["newreno","westwood"]'],
        "flows.ftp.legs",
        "",
    ),
    (
        "legs-unknown-variant",
        ['flows.ftp.proxies=["T"]', 'flows.ftp.legs=["newreno","vegas"]'],
        "flows.ftp.legs[1]",
        '"vegas"',
    ),
    (
        "legs-not-a-list",
        ['flows.ftp.proxies=["T"]', "flows.ftp.legs=newreno"],
        "flows.ftp.legs",
        "",
    ),
    ("proxies-not-a-list", ["flows.ftp.proxies=T"], "flows.ftp.proxies", ""),
]


@pytest.mark.parametrize(
    ("sets", "key", "text"), [pytest.param(s, k, t, id=i) for i, s, k, t in BAD_PROXIES]
)
def test_bad_proxy_input_is_one_clear_line_and_exit_2(cli, sets, key, text):
    assert_one_line_error(run_with(cli, *sets), str(E1), key, text)


# A cache that holds a segment but is too small for its window policy to ever
# advertise one (half-free: half of one free packet; third: a third of two)
# would let the incoming leg move no data: it is a load error naming the key.
TOO_SMALL_FOR_POLICY = [
    ("half-free-one-packet", "half-free", 1),
    ("third-one-packet", "third", 1),
    ("third-two-packets", "third", 2),
]


@pytest.mark.parametrize(
    ("policy", "packets"), [pytest.param(p, n, id=i) for i, p, n in TOO_SMALL_FOR_POLICY]
)
def test_cache_too_small_for_its_policy(cli, policy, packets):
    proc = run_with(
        cli,
        'flows.ftp.proxies=["T"]',
        f"nodes.T.proxy.policy={policy}",
        f"nodes.T.proxy.cache_packets={packets}",
    )
    assert_one_line_error(proc, str(E1), "nodes.T.proxy.cache_packets")


def test_buffers_recv_buffer_below_one_segment_names_recv_buffer(cli):
    proc = run_with(
        cli,
        'flows.ftp.proxies=["T"]',
        "nodes.T.proxy.policy=buffers",
        'nodes.T.proxy.recv_buffer="100 B"',
        'nodes.T.proxy.send_buffer="100 kB"',
    )
    assert_one_line_error(proc, str(E1), "nodes.T.proxy.recv_buffer")
