"""skyhop live: real Linux TCP between real hosts (network namespaces joined
by TUN devices) over simulated satellite paths.

These tests assert correctness (bytes intact, physical lower bounds, counts
that must agree, nothing left behind), never wall time. They need network
namespaces and TUN; where those cannot be made they skip with the reason
(CI machines have them, and run them).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, assert_one_line_error, skyhop_cli

XFER = REPO / "tests" / "live" / "xfer.py"
PY = sys.executable


def _can_make_hosts() -> str | None:
    """Why live hosts cannot be made here (None: they can)."""
    if not sys.platform.startswith("linux"):
        return "live runs need Linux"
    if not os.path.exists("/dev/net/tun"):
        return "no /dev/net/tun"
    if os.geteuid() != 0 and shutil.which("unshare") is None:
        return "neither root nor util-linux unshare"
    probe = subprocess.run(
        ["unshare", "--net", "true"] if os.geteuid() == 0 else ["unshare", "-Urn", "true"],
        capture_output=True,
    )
    if probe.returncode != 0:
        return "network namespaces cannot be created: " + probe.stderr.decode().strip()
    return None


REASON = _can_make_hosts()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"live hosts: {REASON}")

GEO = """
[run]
duration = "120 s"
[nodes.A]
[nodes.SAT]
[nodes.B]
[links.up]
between = ["A", "SAT"]
rate = "10 Mbps"
delay = "125 ms"
queue = 250
[links.down]
between = ["SAT", "B"]
rate = "10 Mbps"
delay = "125 ms"
queue = 250
"""

# The forward link a DVB-S link layer with ACM, SR-ARQ and its GOOD/BAD
# channel; the return over 3G; a Gilbert-Elliott channel on a ground link.
# The satellite channel (its chain is seeded by the run's seed and the
# link's name; seed 1) starts GOOD and turns BAD at 0.08 s, 4.73 s, 7.30 s,
# ...: a dozen changes while the file crosses (about 12 s), each costing
# the HBW frames sent before the report switches the link to LBW, which
# the ARQ resends.
DVBS = """
[run]
duration = "120 s"
[nodes.A]
[nodes.ES]
[nodes.B]
[links.ground]
between = ["A", "ES"]
rate = "100 Mbps"
delay = "5 ms"
queue = 1000
[links.ground.channel]
model = "gilbert-elliott"
t_good = "4 s"
t_bad = "0.5 s"
per_good = 0.0
per_bad = 0.02
[links.sat]
between = ["ES", "B"]
rate = "1416 kbps"
delay = "250 ms"
queue = 100
reverse.queue = 1000
[links.sat.link_layer]
model = "dvbs"
return_path = "rct"
acm = "acm"
initial = "good"
t_good = "2 s"
t_bad = "1 s"
fer_good = 1e-5
fer_bad = 1e-4
cqe = "50 ms"
arq = true
nmax = 1
asto = true
asto_time = "0.32 s"
arto = "0.6 s"
"""


def _scenario(tmp_path: Path, text: str, flows: str = "") -> Path:
    p = tmp_path / "live.toml"
    p.write_text(text + flows)
    return p


# A tiny simulated flow beside the real traffic (cross traffic in the same queues).
TINY_FLOW = """
[flows.probe]
from = "A"
to = "B"
size = "1 kB"
"""


def _transfer(tmp_path: Path, scenario: Path, n: int, *extra: str, timeout: float = 240):
    srv, cli_out = tmp_path / "server.json", tmp_path / "client.json"
    pcap = tmp_path / "pcap"
    proc = skyhop_cli(
        "live",
        scenario,
        "--run",
        f"B:{PY} {XFER} server {n} {srv}",
        "--run",
        f"A:{PY} {XFER} client {n} {cli_out}",
        "--json",
        "--pcap",
        pcap,
        "--duration",
        "100s",
        *extra,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    return doc, json.loads(srv.read_text()), json.loads(cli_out.read_text()), pcap, proc.stderr


def _tshark_count(path: Path) -> int:
    out = subprocess.run(["tshark", "-r", str(path)], capture_output=True, text=True, check=True)
    return len([line for line in out.stdout.splitlines() if line.strip()])


def _check_links_against_pcap(doc: dict, pcap: Path) -> None:
    """Each link direction's pcap file holds the packets the results count;
    read back in tshark (a visible skip where tshark is missing: CI has it)."""
    files = {Path(p).name: n for p, n in doc["runs"][0]["pcap_files"]}
    for link in doc["runs"][0]["links"]:
        name = f"{link['link']}.{link['dir']}.pcap"
        assert files[name] == link["packets"], name
    if shutil.which("tshark") is None:
        pytest.skip("tshark is not installed: the pcap files were not read back (CI installs it)")
    for link in doc["runs"][0]["links"]:
        name = f"{link['link']}.{link['dir']}.pcap"
        assert _tshark_count(pcap / name) == link["packets"], name


def test_linux_tcp_crosses_a_geo_path_intact_and_no_faster_than_physics(tmp_path):
    n = 2_000_000
    doc, srv, cli, pcap, err = _transfer(tmp_path, _scenario(tmp_path, GEO), n)
    assert srv == {**srv, "received": n, "intact": True}
    # Lower bound: the handshake's round trip (2 x 250 ms), the payload at
    # 10 Mb/s, one more one-way trip to the receiver.
    assert cli["seconds"] >= 0.5 + n * 8 / 10e6 + 0.25
    live = doc["live"]
    assert live["stop_reason"] == "commands-done"
    assert [c["exit_code"] for c in live["commands"]] == [0, 0]
    assert live["packets"]["injected"] > n / 1500
    assert live["packets"]["foreign"] == 0 and live["packets"]["unroutable"] == 0
    assert live["lateness"]["packets"] == live["packets"]["released"]
    assert live["lateness"]["max_s"] >= live["lateness"]["p99_s"] >= live["lateness"]["p50_s"] >= 0
    # The hosts' addresses are the ones describe shows.
    addrs = {h["node"]: h["address"] for h in live["hosts"]}
    shown = {x["node"]: x["address"] for x in doc["network"]["nodes"]}
    assert addrs == {"A": shown["A"], "B": shown["B"]}
    # Every data byte crossed both links: the forward links carried at least
    # the payload in 1500-byte packets.
    links = {(lk["link"], lk["dir"]): lk for lk in doc["runs"][0]["links"]}
    assert links[("up", "forward")]["bytes"] >= n
    assert links[("down", "forward")]["delivered"] >= n / 1460
    assert "lateness p50" in err
    _check_links_against_pcap(doc, pcap)


def test_linux_tcp_over_dvbs_with_arq_and_a_gilbert_elliott_channel(tmp_path):
    n = 1_000_000
    doc, srv, cli, pcap, _ = _transfer(tmp_path, _scenario(tmp_path, DVBS), n)
    assert srv["received"] == n and srv["intact"]
    # At most the GOOD mode's 1.416 Mb/s of information; 280 ms round trip.
    assert cli["seconds"] >= 0.28 + n * 8 / 1.416e6
    links = {(lk["link"], lk["dir"]): lk for lk in doc["runs"][0]["links"]}
    sat = links[("sat", "forward")]
    # What only the DVB-S layer does. Framing: every byte of the file
    # crossed in 188-byte frames, each IP packet cut into ceil(size / 188).
    new_frames = sat["frames_sent"] - sat["frames_retransmitted"]
    assert n / 188 <= new_frames <= sat["bytes"] / 188 + sat["packets"], sat
    # ACM: the channel's changes reported (one report per change) and the
    # mode switched to LBW and back at least once each.
    assert sat["reports_sent"] >= 2 and sat["mode_switches"] >= 2, sat
    # HBW frames sent while the channel was BAD were lost; SR-ARQ resent
    # them (in LBW), acknowledged by ARQ ACKs over the return path...
    assert sat["frames_misaligned"] > 0 and sat["frames_lost"] >= sat["frames_misaligned"], sat
    assert sat["frames_retransmitted"] > 0 and sat["arq_acks_sent"] > 0, sat
    # ...below TCP: no IP packet was lost to the satellite channel.
    assert sat["channel_drops"] == 0, sat
    # The ground link's Gilbert-Elliott channel is the plain FIFO's: no frames.
    assert "frames_sent" not in links[("ground", "forward")]
    _check_links_against_pcap(doc, pcap)


def test_a_replayed_record_gives_the_live_run_again(tmp_path):
    scn = _scenario(tmp_path, GEO, TINY_FLOW)
    n = 300_000
    doc, srv, _, _, _ = _transfer(tmp_path, scn, n, "--record", str(tmp_path / "rec"))
    assert srv["intact"]
    assert doc["live"]["record_packets"] == doc["live"]["packets"]["read"]
    proc = skyhop_cli("replay", tmp_path / "rec", "--json")
    assert proc.returncode == 0, proc.stderr
    replayed = json.loads(proc.stdout)["runs"][0]
    assert replayed["links"] == doc["runs"][0]["links"]
    assert replayed["flows"]["probe"] == doc["runs"][0]["flows"]["probe"]


# A GEO broadband beam (issue 40): terminal A's link and T2's share one
# DVB-S2 forward carrier and one DVB-RCS2 return link (2 carriers of 1 Mbaud,
# waveform 14: 188 bytes per timeslot, 16 timeslots per 26.5 ms frame), where
# a terminal sends only in the timeslots it was granted after asking (RBDC);
# a simulated upload from T2 shares the return link with A's real one.
BEAM = """
[run]
duration = "120 s"
[nodes.B]
[nodes.GW]
[nodes.A]
[nodes.T2]
[links.core]
between = ["GW", "B"]
rate = "100 Mbps"
delay = "10 ms"
queue = 1000
[links.a]
between = ["GW", "A"]
rate = "2 Mbps"
delay = "250 ms"
queue = 100
[links.t2]
between = ["GW", "T2"]
rate = "2 Mbps"
delay = "250 ms"
queue = 100
[beams.beam]
gateway = "GW"
links = ["a", "t2"]
[beams.beam.forward]
symbol_rate_mbaud = 30.0
esn0_db = 10.0
[beams.beam.return]
symbol_rate_mbaud = 1.0
carriers = 2
waveform = 14
slots_per_frame = 16
frame = "26.5 ms"
scheduler_latency = "10 ms"
rbdc_max = "1.816 Mbps"
[flows.cross]
from = "T2"
to = "B"
size = "100 kB"
"""


def test_linux_tcp_uploads_through_a_dama_beam_intact_and_the_beam_agrees(tmp_path):
    n = 150_000
    scn = _scenario(tmp_path, BEAM)
    doc, srv, cli, pcap, _ = _transfer(tmp_path, scn, n, "--record", str(tmp_path / "rec"))
    assert srv["received"] == n and srv["intact"]
    run = doc["runs"][0]
    # Lower bound: the handshake's round trip (2 x 260 ms), the payload at
    # one return carrier's 16 x 188 bytes per 26.5 ms (a terminal sends on
    # one carrier at a time), each 1448-byte segment taking 1523 burst
    # bytes (RLE), then the last segment's trip up and the server's close
    # back down (2 x 260 ms).
    one_carrier = 16 * 188 * 8 / 0.0265
    assert cli["seconds"] >= 0.52 + n * 1523 / 1448 * 8 / one_carrier + 0.52
    assert run["flows"]["cross"]["completion_time_s"] is not None
    links = {(lk["link"], lk["dir"]): lk for lk in run["links"]}
    up = links[("a", "reverse")]
    assert up["bytes"] >= n and up["queue_drops"] == 0 and up["channel_drops"] == 0
    # The beam's own report agrees with its member links' counters: per
    # terminal the timeslots granted and used, the packets that crossed
    # the return link (each had its access delay taken when its first
    # burst left; a live run ends on the wall clock, and one still on its
    # way then has its delay and no delivery yet) and the forward frames;
    # the beam never granted more timeslots than it had, nor did a
    # terminal use more than it was granted, and the bursts carried at
    # least the IP bytes.
    beam = run["media"]["beam"]
    per = {t["member"]: t for t in beam["terminals"]}
    for m in ("a", "t2"):
        rtn, fwd = links[(m, "reverse")], links[(m, "forward")]
        assert per[m]["return_slots_granted"] == rtn["slots_granted"], m
        assert per[m]["return_slots_used"] == rtn["slots_used"] <= rtn["slots_granted"], m
        started = per[m]["access_delays"]
        assert rtn["delivered"] <= started <= rtn["packets"] - rtn["link_drops"], m
        assert per[m]["forward_frames"] == fwd["frames"], m
        assert rtn["slots_used"] * 188 >= rtn["bytes"], m
    assert beam["return_slots_used"] == sum(per[m]["return_slots_used"] for m in per)
    assert beam["return_slots_granted"] == sum(per[m]["return_slots_granted"] for m in per)
    assert beam["return_slots_granted"] <= beam["return_slots_offered"]
    _check_links_against_pcap(doc, pcap)
    # The record replays as the same run, beam report included.
    proc = skyhop_cli("replay", tmp_path / "rec", "--json")
    assert proc.returncode == 0, proc.stderr
    replayed = json.loads(proc.stdout)["runs"][0]
    assert replayed["links"] == run["links"]
    assert replayed["media"] == run["media"]


def _leftovers(marker: str) -> list[str]:
    ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [line for line in ps.splitlines() if marker in line and "ps -eo" not in line]


def _netns_count() -> int:
    """Network namespaces with a process in them (ours have none afterwards)."""
    inodes = set()
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                inodes.add(os.stat(p / "ns" / "net").st_ino)
            except OSError:
                pass
    return len(inodes)


def _netns_all() -> set[int]:
    """Network namespaces with a process in them, by inode."""
    inodes = set()
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                inodes.add(os.stat(p / "ns" / "net").st_ino)
            except OSError:
                pass
    return inodes


def _netns_of(marker: str) -> set[int]:
    """The network namespaces, other than this process's, of the processes
    whose command line has `marker`."""
    inodes = set()
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if marker.encode() in (p / "cmdline").read_bytes():
                    inodes.add(os.stat(p / "ns" / "net").st_ino)
            except OSError:
                pass
    return inodes - {os.stat("/proc/self/ns/net").st_ino}


@pytest.mark.parametrize("how", ["duration", "SIGINT", "SIGTERM", "SIGKILL"])
def test_nothing_survives_the_run(tmp_path, how):
    """Hanging commands, a daemon and a process a command detached are all
    gone after the run, however it ends; no namespace is left."""
    scn = _scenario(tmp_path, GEO, TINY_FLOW)
    marker = f"91{os.getpid() % 1000:03d}"
    args = [
        "live",
        scn,
        "--run",
        f"A:sleep 1{marker} & setsid sleep 2{marker} & sleep 3{marker}",
        "--daemon",
        f"B:sleep 4{marker}",
        "--duration",
        "5s" if how == "duration" else "60s",
        "--grace",
        "0.5s",
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "skyhop", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    # The hosts' namespaces, seen through their commands (other runs on the
    # machine may make and remove namespaces meanwhile: only ours count).
    deadline = time.monotonic() + 20
    while len(_netns_of(f"{marker}")) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    ours = _netns_of(f"{marker}")
    assert _leftovers(f"sleep 4{marker}"), "the daemon never started"
    assert len(ours) == 2, "one namespace per live host"
    if how != "duration":
        proc.send_signal(getattr(signal, how))
    _out, err = proc.communicate(timeout=60)
    expected = {"duration": 124, "SIGINT": 130, "SIGTERM": 130, "SIGKILL": -9}[how]
    assert proc.returncode == expected, err
    time.sleep(0.3)
    assert _leftovers(marker) == []
    assert not ours & _netns_all()
    # The devices lived in those namespaces only: none in the machine's.
    assert not Path("/sys/class/net/sky0").exists()


def test_bad_input_is_one_line_and_leaves_nothing(tmp_path, cli):
    scn = _scenario(tmp_path, GEO, TINY_FLOW)
    before = _netns_count()
    assert_one_line_error(cli("live", scn, "--run", "X:true"), "--run", "unknown node 'X'")
    assert_one_line_error(
        cli("live", scn, "--run", "A:no-such-program-here --flag"), "cannot start", "not found"
    )
    assert_one_line_error(cli("live", scn, "--run", "A"), "expected NODE:COMMAND")
    lonely = _scenario(tmp_path, GEO + "[nodes.Z]\n", TINY_FLOW)
    assert_one_line_error(cli("live", lonely, "--run", "Z:true"), "not an endpoint of any link")
    assert_one_line_error(
        cli("live", scn, "--run", "A:true", "--set", "links.up.forward.drop_segments=[3]"),
        "links.up.forward.drop_segments",
        "cannot judge real packets",
    )
    assert_one_line_error(cli("live", scn, "--run", "A:true", "--duration", "5"), "--duration")
    assert _netns_count() <= before


def test_the_exit_status_is_the_first_failing_commands(tmp_path, cli):
    scn = _scenario(tmp_path, GEO, TINY_FLOW)
    proc = cli("live", scn, "--run", "A:sleep 0.3; exit 3", "--run", "B:sleep 0.1; exit 4")
    assert proc.returncode == 4, proc.stderr
    proc = cli("live", scn, "--run", "A:true", "--run", "B:true", "--json")
    assert proc.returncode == 0
    doc = json.loads(proc.stdout)
    assert [c["exit_code"] for c in doc["live"]["commands"]] == [0, 0]


def test_a_scenario_of_live_hosts_needs_no_flow(tmp_path, cli):
    scn = _scenario(tmp_path, GEO)
    proc = cli("live", scn, "--run", "A:true", "--run", "B:true", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["runs"][0]["flows"] == {}
    # a simulation of it has nothing to carry: an error, unless a node is live
    assert_one_line_error(cli("run", scn), "flows", "no flows defined")
    marked = _scenario(tmp_path, GEO.replace("[nodes.A]", "[nodes.A]\nlive = true"))
    proc = cli("run", marked)
    assert proc.returncode == 0
    assert "no flows: a simulation of this scenario carries nothing" in proc.stderr


# Two ground stations under Starlink's first shell, no fixed link at all:
# the live hosts reach each other only through the moving network's routes.
LEO = """
[run]
duration = "120 s"
[nodes.A]
lat = 41.9028
lon = 12.4964
[nodes.B]
lat = 50.1109
lon = 8.6821
[constellation]
preset = "starlink-550"
ground = ["A", "B"]
isl = { rate = "10 Gbps", queue = 100 }
gsl = { rate = "20 Mbps", queue = 100 }
[routing]
update = "100 ms"
"""


def test_linux_tcp_between_ground_stations_of_a_constellation(tmp_path):
    n = 1_000_000
    doc, srv, cli, pcap, _ = _transfer(tmp_path, _scenario(tmp_path, LEO), n)
    assert srv["received"] == n and srv["intact"]
    # Lower bound: the handshake's round trip, the payload at the ground
    # links' 20 Mb/s, one more one-way trip; a one-way trip is at least
    # up to 550 km and down again.
    c = 299_792_458.0
    one_way = 2 * 550e3 / c
    assert cli["seconds"] >= 2 * one_way + n * 8 / 20e6 + one_way
    live = doc["live"]
    assert live["packets"]["unroutable"] == 0 and live["packets"]["foreign"] == 0
    # Links of the moving network were built for the hosts' packets, and
    # every one of them is in the pcap files with the count the run reports.
    names = {lk["link"] for lk in doc["runs"][0]["links"]}
    assert any(x.startswith("gsl:") for x in names), names
    _check_links_against_pcap(doc, pcap)


# ---------------------------------------------------------------------------
# issue 39, items 4 and 13: names answer at once; the hosts' TCP shown


def test_commands_see_the_nodes_names_and_no_unreachable_resolver(tmp_path, cli):
    scn = _scenario(tmp_path, GEO)
    out = tmp_path / "names.txt"
    hosts_before = Path("/etc/hosts").read_bytes()
    proc = cli(
        "live", scn, "--run",
        f"A:getent hosts B > {out}; grep -h nameserver /etc/resolv.conf >> {out}; "
        f"grep -h '^hosts:' /etc/nsswitch.conf >> {out}; echo $SKYHOP_ADDR_B >> {out}",
        "--run", "B:true",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = out.read_text().splitlines()
    assert lines[0].split() == [lines[3], "B"]
    assert lines[1].split() == ["nameserver", "127.0.0.1"]
    assert lines[2].split() == ["hosts:", "files", "dns"]
    # the machine's own files are as they were, and nothing is left behind
    assert Path("/etc/hosts").read_bytes() == hosts_before
    assert not list(Path(os.environ.get("TMPDIR", "/tmp")).glob(f"skyhop-live-{os.getpid()}*"))
    # the terminal summary names each host's congestion control
    assert "live hosts" in proc.stdout and "congestion control" in proc.stdout
    cc = Path("/proc/sys/net/ipv4/tcp_congestion_control").read_text().strip()
    assert cc in proc.stdout


# ---------------------------------------------------------------------------
# issue 41: the hosts' receive processing steered off the engine's CPU

RPS = "unshare -m sh -c 'mount -t sysfs none /sys && cat /sys/class/net/sky0/queues/rx-0/rps_cpus'"


def _sysfs_mounts() -> list[str]:
    return [ln for ln in Path("/proc/self/mountinfo").read_text().splitlines() if " sysfs " in ln]


def test_the_hosts_receive_processing_is_steered_off_the_engines_cpu(tmp_path, cli):
    scn = _scenario(tmp_path, GEO)
    out = tmp_path / "rps.txt"
    mounts = _sysfs_mounts()
    proc = cli("live", scn, "--json", "--run", f"A:{RPS} > {out}", "--run", "B:true")
    assert proc.returncode == 0, proc.stderr
    rt = json.loads(proc.stdout)["live"]["realtime"]
    seen = int(out.read_text().strip().replace(",", ""), 16)
    if rt["cpu"] is None:  # one CPU: the engine is not pinned, nothing to steer to
        assert rt["receive_cpus"] is None and seen == 0
    else:
        mask = int(rt["receive_cpus"].replace(",", ""), 16)
        assert mask != 0 and not mask >> rt["cpu"] & 1, rt
        assert seen == mask  # what the host's device really has
        assert "hosts' receive on CPU" in proc.stderr
    # the set-up's sysfs mount stayed in its own mount namespace
    assert _sysfs_mounts() == mounts
    # without real-time scheduling the engine is not pinned: nothing steered
    off = ("--json", "--no-realtime", "--run", f"A:{RPS} > {out}", "--run", "B:true")
    proc = cli("live", scn, *off)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["live"]["realtime"]["receive_cpus"] is None
    assert int(out.read_text().strip().replace(",", ""), 16) == 0


# ---------------------------------------------------------------------------
# issue 41: TUN offloads. A host's stack hands the engine TSO super-packets
# of up to 64 kB; the world carries them as the MTU-sized packets of the
# wire, and what reaches a host may be merged again (GRO).


def _direct(rate: str) -> str:
    return f"""
[run]
duration = "60 s"
[nodes.A]
[nodes.B]
[links.l]
between = ["A", "B"]
rate = "{rate}"
delay = "5 ms"
queue = 1000
"""


def _pcap_lengths(path: Path) -> list[int]:
    """The original length of every packet of a pcap file."""
    b = path.read_bytes()
    order = "<" if b[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    out, at = [], 24
    while at + 16 <= len(b):
        incl, orig = struct.unpack(order + "II", b[at + 8 : at + 16])
        out.append(orig)
        at += 16 + incl
    assert at == len(b), "a truncated pcap file"
    return out


def _pcapng_lengths(path: Path) -> list[int]:
    """The original length of every Enhanced Packet Block of a pcapng file."""
    b = path.read_bytes()
    out, at = [], 0
    while at + 8 <= len(b):
        kind, size = struct.unpack("<II", b[at : at + 8])
        if kind == 6:
            out.append(struct.unpack("<I", b[at + 24 : at + 28])[0])
        at += size
    assert at == len(b), "a truncated pcapng file"
    return out


def _pattern(n: int) -> bytes:
    """The bytes tests/live/xfer.py sends (its chain of SHA-256 blocks)."""
    out, block = bytearray(), b"skyhop"
    while len(out) < n:
        block = hashlib.sha256(block).digest()
        out += block
    return bytes(out[:n])


def _gso_run(tmp_path: Path, text: str, n: int):
    rec = tmp_path / "rec"
    doc, srv, _, pcap, _ = _transfer(tmp_path, _scenario(tmp_path, text), n, "--record", rec)
    assert srv["received"] == n and srv["intact"], srv
    # The receiver's checksum of the bytes, against one taken here.
    assert srv["sha256"] == hashlib.sha256(_pattern(n)).hexdigest()
    live = doc["live"]
    if not all(h["tso"] for h in live["hosts"]):
        pytest.skip("the kernel refused TSO on TUN devices: no super-packets to cut")
    pk = live["packets"]
    # The sender's stack passed super-packets, each cut into several packets.
    assert pk["super_packets_read"] > 0 and pk["device_reads"] < pk["read"], pk
    # The world carried only packets of the wire: none above the MTU on the
    # links (pcap), none in the record; the record is what entered the world.
    links = {(lk["link"], lk["dir"]): lk for lk in doc["runs"][0]["links"]}
    fwd = _pcap_lengths(pcap / "l.forward.pcap")
    assert len(fwd) == links[("l", "forward")]["packets"]
    assert max(fwd) <= 1500 and sum(fwd) == links[("l", "forward")]["bytes"]
    assert sum(1 for x in fwd if x == 1500) > n / 1448 * 0.9, "full-sized segments"
    recorded = _pcapng_lengths(rec / "arrivals.pcapng")
    assert len(recorded) == live["record_packets"] == pk["read"]
    assert max(recorded) <= 1500
    # Every packet released was written, alone or merged with others: the
    # merged writes are the only writes of more than one packet.
    assert pk["released"] >= pk["device_writes"] > 0 and pk["release_refused"] == 0
    assert (pk["merged_writes"] > 0) == (pk["released"] > pk["device_writes"]), pk
    assert pk["merged_writes"] <= pk["device_writes"]
    assert live["lateness"]["packets"] == pk["released"]
    # The replay is the live run's world again.
    proc = skyhop_cli("replay", rec, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["runs"][0]["links"] == doc["runs"][0]["links"]
    return links, pk


def test_a_file_larger_than_64kb_crosses_a_gso_path_intact(tmp_path):
    # At 10 Gb/s a full segment takes 1.2 µs of the link: the segments cut
    # from one super-packet reach the receiving host within some 50 µs,
    # closer together than the engine's turns (each a sleep and a wake-up,
    # and writes to the devices), so some are released in the same turn and
    # merged (GRO) into one write.
    n = 4_000_000
    links, pk = _gso_run(tmp_path, _direct("10 Gbps"), n)
    assert links[("l", "forward")]["bytes"] >= n
    assert pk["merged_writes"] > 0, pk


def test_a_wake_up_window_keeps_every_byte_and_counts_its_waits(tmp_path):
    n = 2_000_000
    scn = _scenario(tmp_path, _direct("100 Mbps"))
    doc, srv, _, _, _ = _transfer(tmp_path, scn, n, "--wake-window", "500us")
    assert srv["received"] == n and srv["intact"], srv
    live = doc["live"]
    assert live["wake_window_s"] == 5e-4
    pk = live["packets"]
    # every wait is counted; some ended by the timer (the engine's own
    # events), the others by a host's packet
    assert 0 < pk["waits_timed_out"] < pk["waits"], pk
    assert live["lateness"]["packets"] == pk["released"] >= n / 1448


def test_super_packets_cut_for_a_lossy_link_arrive_intact(tmp_path):
    # 1 % of the data direction's packets lost: segments of super-packets
    # are lost one by one, and the hosts' TCP repairs the holes.
    n = 3_000_000
    links, _ = _gso_run(tmp_path, _direct("200 Mbps") + "forward.per = 0.01\n", n)
    assert links[("l", "forward")]["channel_drops"] > 0
    assert links[("l", "reverse")]["channel_drops"] == 0


# ---------------------------------------------------------------------------
# issue 39, hostile input: live options, the --record folder, a full disk

FAST = """
[run]
duration = "30 s"
[nodes.A]
[nodes.B]
[links.ab]
between = ["A", "B"]
rate = "100 Mbps"
delay = "1 ms"
queue = 1000
"""


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--duration", ""], ["--duration"]),
        (["--lateness-abort", ""], ["--lateness-abort"]),
        (["--grace", ""], ["--grace"]),
        (["--duration", "99999999s"], ["run.duration", "out of range"]),
        (["--duration", "0s"], ["run.duration"]),
        (["--grace", "3600s"], ["--grace", "longer than the 60 s"]),
        (["--lateness-warn", "-1s"], ["--lateness-warn"]),
        (["--wake-window", "2ms"], ["--wake-window", "wider than 0.001 s"]),
        (["--wake-window", "5"], ["--wake-window"]),
    ],
)
def test_live_options_out_of_range_are_one_line_and_start_nothing(tmp_path, cli, args, words):
    scn = _scenario(tmp_path, FAST)
    before = _netns_count()
    assert_one_line_error(cli("live", scn, "--run", "A:true", *args), *words)
    assert _netns_count() <= before


def test_an_unusable_record_folder_is_refused_before_the_run(tmp_path, cli):
    scn = _scenario(tmp_path, FAST)
    blocker = tmp_path / "file"
    blocker.write_text("")
    proc = cli("live", scn, "--run", f"A:touch {tmp_path / 'ran'}", "--record", blocker / "rec")
    assert_one_line_error(proc, "--record", str(blocker / "rec"))
    assert not (tmp_path / "ran").exists()


def test_a_full_disk_costs_the_record_not_the_live_runs_results(tmp_path):
    """The record's folder a 64 kB tmpfs (in a mount namespace of the test's
    own): the record stops when it fills, the run goes on, its results are
    printed whole, and the error names the record (exit 2)."""
    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("needs root and util-linux unshare for a private tmpfs")
    scn = _scenario(tmp_path, FAST)
    rec = tmp_path / "rec"
    rec.mkdir()
    n = 1_000_000
    srv, cli_out = tmp_path / "server.json", tmp_path / "client.json"
    inner = [
        sys.executable, "-m", "skyhop", "live", str(scn),
        "--run", f"B:{PY} {XFER} server {n} {srv}",
        "--run", f"A:{PY} {XFER} client {n} {cli_out}",
        "--json", "--record", str(rec),
    ]  # fmt: skip
    script = f'mount -t tmpfs -o size=64k tmpfs "{rec}" && exec "$@"'
    proc = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", *inner],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 2, proc.stderr
    errors = [x for x in proc.stderr.splitlines() if x.startswith("skyhop: error: ")]
    assert len(errors) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for words in ("--record", str(rec), "No space left on device", "results above are complete"):
        assert words in errors[0], errors[0]
    doc = json.loads(proc.stdout)  # the results, whole
    assert json.loads(srv.read_text())["received"] == n
    assert doc["live"]["stop_reason"] == "commands-done"
    assert doc["live"]["record_error"]
    assert list(rec.iterdir()) == []  # the tmpfs is gone with its namespace


def test_a_scenario_on_a_pipe_is_read_once_and_json_describes_it(tmp_path, cli):
    proc = cli("live", "/dev/stdin", "--run", "A:true", "--run", "B:true", "--json", input=FAST)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [n["node"] for n in doc["network"]["nodes"]] == ["A", "B"]


# ---- a real QUIC stack (docs/quic.md, the live-versus-simulated table) ----


def test_ngtcp2_downloads_across_a_geo_path_intact(tmp_path):
    """Debian's ngtcp2 examples (gtlsclient/gtlsserver, installed by CI's
    .ci/run): B downloads a 1 MB file from A over HTTP/3 across the GEO
    path; the file arrives intact, no sooner than physics allows, and no
    ngtcp2 process outlives the run. (quinn's own client and server, a tool
    crate, are measured by validation/quic/live_table.py, not here: building
    them costs minutes.)"""
    for tool in ("gtlsclient", "gtlsserver"):
        assert shutil.which(tool), f"{tool} missing: apt-get install ngtcp2-client ngtcp2-server"
    n = 1_000_000
    www, dl = tmp_path / "www", tmp_path / "dl"
    www.mkdir()
    dl.mkdir()
    body = os.urandom(n)
    (www / "file").write_bytes(body)
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem"),
            "-subj", "/CN=server.skyhop", "-days", "1",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    timed = REPO / "validation" / "quic" / "timed.py"
    proc = skyhop_cli(
        "live",
        _scenario(tmp_path, GEO),
        "--daemon",
        f"A:exec gtlsserver -q -d {www} $SKYHOP_ADDR 4433 {tmp_path}/key.pem {tmp_path}/cert.pem",
        "--run",
        f"B:sleep 1; exec {PY} {timed} {tmp_path}/t.json -- gtlsclient -q "
        f"--exit-on-all-streams-close --download={dl} $SKYHOP_ADDR_A 4433 https://$SKYHOP_ADDR_A:4433/file",
        "--json",
        "--duration",
        "100s",
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr
    assert (dl / "file").read_bytes() == body
    t = json.loads((tmp_path / "t.json").read_text())
    assert t["exit"] == 0
    # The handshake's round trip (2 x 250 ms), the request's way there and
    # the file's way back (another round trip), the file at 10 Mb/s.
    assert t["t_end"] - t["t_start"] >= 0.5 + 0.5 + n * 8 / 10e6
    live = json.loads(proc.stdout)["live"]
    assert live["packets"]["foreign"] == 0 and live["packets"]["unroutable"] == 0
    # More than the file's bytes in 1452-byte datagrams were carried.
    assert live["packets"]["injected"] > n / 1452
    assert _leftovers(str(www)) == []
