"""Run a skyhop scenario's topology and flow in ns-3 (3.44, Python bindings).

Run with the ns-3 virtual environment's interpreter, never skyhop's:

    .venv-ns3/bin/python validation/ns3/ns3_run.py validation/ns3/geo10.toml \
        --tcp cubic --set links.up.per=0.01 --runs 20 --json

It reads the same TOML file skyhop reads (a chain of point-to-point links and
one TCP flow; per-link `rate`, `delay`, `queue`, `per`; `[tcp]` settings;
`size` or `run.duration`) and builds the matching ns-3 simulation:

* one `PointToPointNetDevice` pair per link, with the link's delay. ns-3 adds a
  2-byte PPP header to every frame, so the device rate is the skyhop rate
  x 1502/1500: a 1500-byte IP packet then takes exactly the time skyhop gives
  it (40-byte ACKs take 42/1502 of a data packet instead of 40/1500).
* the device transmit queue is a `DropTailQueue` of `queue` packets. ns-3's
  `PointToPointNetDevice::Send` enqueues the packet and, if the transmitter is
  idle, dequeues it at once, so the packet being serialised is never in the
  queue: MaxSize "Np" counts waiting packets only, which is skyhop's (and
  ns-2's) convention. The traffic-control layer's default queue disc
  (pfifo_fast, 1000 packets), which `Ipv4AddressHelper::Assign` installs, is
  removed so that the device queue is the only buffer, as in skyhop.
* a link's `per` (skyhop: both directions, every packet) becomes one
  `RateErrorModel` (ERROR_UNIT_PACKET) as the receive error model of each of
  the link's two devices. skyhop draws the loss when the packet is queued and
  ns-3 when it arrives; a lost packet occupies the link in both.
* TCP: segment size = `tcp.mss` (1460 B), timestamps off so that the header is
  the 40 B skyhop counts (1500-byte packets; window scaling stays on, so the
  window is never capped at 64 KiB), SACK on for the SACK-based variants,
  `TcpClassicRecovery` (RFC 6675 with SACK, NewReno without) or
  `TcpPrrRecovery`, initial window, min RTO, 1 ms clock granularity, initial
  RTO (`RttEstimator::InitialEstimation` and `ConnTimeout`), no delayed ACKs
  (`DelAckCount` 1) unless `tcp.delayed_ack`, Limited Transmit as
  `tcp.limited_transmit`, receive buffer = `tcp.rcv_buffer`, a 256 MB send
  buffer, CUBIC without HyStart (skyhop's CUBIC has none), BBR paced.
  ns-3 always opens the connection with a three-way handshake: compare with
  skyhop's `tcp.handshake = true` (skyhop_run.py sets it).
* a `BulkSendApplication` with `MaxBytes` = the flow's size (0 = unlimited for
  a bulk flow) and a `PacketSink`. Goodput = bytes delivered in order to the
  sink x 8 / active time; completion time = when the last byte reached the
  sink, counted from the flow's start (the skyhop definitions).

Run i (0-based) uses `RngSeedManager::SetRun(seed + i)`. One JSON document per
invocation on stdout with one record per run.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys
import time
import tomllib

RATE_UNITS = {"bps": 1, "kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9}
TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "min": 60.0}
SIZE_UNITS = {"B": 1, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1024, "MiB": 2**20}

# skyhop variant -> (ns-3 congestion control, SACK, ns-3 recovery)
VARIANTS = {
    "newreno": ("ns3::TcpNewReno", False, "ns3::TcpClassicRecovery"),
    "sack": ("ns3::TcpNewReno", True, "ns3::TcpClassicRecovery"),
    "cubic": ("ns3::TcpCubic", True, "ns3::TcpPrrRecovery"),
    "bbr": ("ns3::TcpBbr", True, "ns3::TcpClassicRecovery"),
}
# Under skyhop's linux profile every controller runs with SACK; Reno AIMD
# and CUBIC with PRR (Linux's tcp_cwnd_reduction), BBR with RFC 6675 (it
# sets cwnd itself).
LINUX_VARIANTS = {
    "reno": ("ns3::TcpLinuxReno", True, "ns3::TcpPrrRecovery"),
    "newreno": ("ns3::TcpLinuxReno", True, "ns3::TcpPrrRecovery"),
    "cubic": ("ns3::TcpCubic", True, "ns3::TcpPrrRecovery"),
    "bbr": ("ns3::TcpBbr", True, "ns3::TcpClassicRecovery"),
}
RECOVERIES = {
    "newreno": (False, "ns3::TcpClassicRecovery"),
    "sack": (True, "ns3::TcpClassicRecovery"),
    "prr": (True, "ns3::TcpPrrRecovery"),
}


def quantity(text: str, units: dict[str, float], key: str) -> float:
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([A-Za-z]+)\s*", str(text))
    if not m or m.group(2) not in units:
        raise SystemExit(f"{key}: cannot read {text!r} (units {sorted(units)})")
    return float(m.group(1)) * units[m.group(2)]


def apply_set(doc: dict, assignment: str) -> None:
    path, _, value = assignment.partition("=")
    keys = path.split(".")
    try:
        val = tomllib.loads(f"v = {value}")["v"]
    except tomllib.TOMLDecodeError:
        val = value
    node = doc
    for k in keys[:-1]:
        node = node.setdefault(k, {})
    node[keys[-1]] = val


def resolve(doc: dict, tcp_variant: str | None) -> dict:
    """The chain, the flow and the TCP settings the ns-3 run needs."""
    flows = doc.get("flows", {})
    if len(flows) != 1:
        raise SystemExit("ns3_run.py handles one flow")
    fname, flow = next(iter(flows.items()))
    if flow.get("proxies"):
        raise SystemExit("ns3_run.py has no split proxies")
    tcp = dict(doc.get("tcp", {}))
    tcp.update(flow.get("options", {}))
    # skyhop's default profile is "linux"; a scenario names "studies" for the
    # studies' era. Each is matched by its own ns-3 configuration.
    profile = tcp.get("profile", "linux")
    if profile not in ("linux", "studies"):
        raise SystemExit(f"tcp.profile {profile!r}: not matched here")
    linux = profile == "linux"
    variant = tcp_variant or flow.get("tcp", "cubic" if linux else "newreno")
    table = LINUX_VARIANTS if linux else VARIANTS
    if variant not in table:
        raise SystemExit(f"variant {variant!r}: ns-3 match exists for {sorted(table)}")
    cc, sack, recovery = table[variant]
    if "recovery" in tcp:
        sack, recovery = RECOVERIES[tcp["recovery"]]
    # the path: walk the links from `from` to `to` (a chain)
    links = doc["links"]
    adj: dict[str, list[tuple[str, str]]] = {}
    for lid, link in links.items():
        a, b = link["between"]
        for k in ("forward", "reverse", "channel", "ber"):
            if k in link:
                raise SystemExit(f"links.{lid}.{k}: not matched in ns3_run.py")
        if link.get("errors_apply_to", "both") != "both":
            raise SystemExit(f"links.{lid}.errors_apply_to: only 'both' is matched")
        adj.setdefault(a, []).append((b, lid))
        adj.setdefault(b, []).append((a, lid))
    src, dst = flow["from"], flow["to"]
    prev = {src: None}
    frontier = [src]
    while frontier:
        nxt = []
        for n in sorted(frontier):
            for m, lid in sorted(adj.get(n, [])):
                if m not in prev:
                    prev[m] = (n, lid)
                    nxt.append(m)
        frontier = nxt
    hops = []
    n = dst
    while prev[n] is not None:
        p, lid = prev[n]
        link = links[lid]
        hops.append(
            {
                "id": lid,
                "from": p,
                "to": n,
                "rate_bps": quantity(link["rate"], RATE_UNITS, f"links.{lid}.rate"),
                "delay_s": quantity(link["delay"], TIME_UNITS, f"links.{lid}.delay"),
                "queue": int(link.get("queue", 50)),
                "per": float(link.get("per", 0.0)),
            }
        )
        n = p
    hops.reverse()
    size = flow.get("size", "unlimited")
    run = doc.get("run", {})
    # The linux profile's defaults (skyhop's TcpConfig::linux): timestamps
    # (1448-byte segments in 1500-byte packets), IW 10, min RTO 200 ms,
    # delayed ACKs every second segment or after 40 ms, Limited Transmit,
    # a 4 MB send buffer, HyStart for CUBIC.
    dflt = {
        "mss": "1460 B",
        "initial_window": 10 if linux else 1,
        "rto_min": "200 ms" if linux else "1 s",
        "delayed_ack": linux,
        "delayed_ack_timeout": "40 ms" if linux else "200 ms",
        "limited_transmit": linux,
        "timestamps": linux,
    }
    for k, v in dflt.items():
        tcp.setdefault(k, v)
    mss = int(quantity(tcp["mss"], SIZE_UNITS, "tcp.mss"))
    if tcp["timestamps"]:
        mss -= 12
    return {
        "profile": profile,
        "timestamps": bool(tcp["timestamps"]),
        "hystart": linux,
        "send_buffer": 4_194_304 if linux else 256_000_000,
        "flow": fname,
        "variant": variant,
        "cc": cc,
        "sack": sack,
        "recovery": recovery,
        "hops": hops,
        "size": 0 if size == "unlimited" else int(quantity(size, SIZE_UNITS, "size")),
        "duration_s": quantity(run.get("duration", "230 s"), TIME_UNITS, "run.duration"),
        "mss": mss,
        "initial_window": int(tcp["initial_window"]),
        "rto_min_s": quantity(tcp["rto_min"], TIME_UNITS, "tcp.rto_min"),
        "rto_initial_s": quantity(tcp.get("rto_initial", "1 s"), TIME_UNITS, "tcp.rto_initial"),
        "delayed_ack": bool(tcp["delayed_ack"]),
        "delayed_ack_timeout_s": quantity(
            tcp["delayed_ack_timeout"], TIME_UNITS, "tcp.delayed_ack_timeout"
        ),
        "limited_transmit": bool(tcp["limited_transmit"]),
        "rcv_buffer": int(quantity(tcp.get("rcv_buffer", "4 MB"), SIZE_UNITS, "tcp.rcv_buffer")),
        "dupthresh": int(tcp.get("dupthresh", 3)),
    }


HELPERS = r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/applications-module.h"
#include <vector>
namespace skyhop_ns3 {
inline uint64_t g_rx = 0;
inline uint64_t g_target = 0;
inline double g_done = -1.0;
inline uint32_t g_recoveries = 0;
inline uint32_t g_timeouts = 0;
inline std::vector<double> g_cwnd_t;
inline std::vector<double> g_cwnd_v;
inline double g_rto = 0.0;
inline double g_rtt = 0.0;
inline std::vector<double> g_ev_t, g_ev_rto, g_ev_rtt;
inline std::vector<int> g_ev_from, g_ev_to;
inline void Reset(uint64_t target) {
  g_rx = 0; g_target = target; g_done = -1.0; g_recoveries = 0; g_timeouts = 0;
  g_cwnd_t.clear(); g_cwnd_v.clear();
  g_ev_t.clear(); g_ev_rto.clear(); g_ev_rtt.clear(); g_ev_from.clear(); g_ev_to.clear();
}
inline void OnRto(ns3::Time, ns3::Time now) { g_rto = now.GetSeconds(); }
inline void OnRtt(ns3::Time, ns3::Time now) { g_rtt = now.GetSeconds(); }
inline void OnRx(ns3::Ptr<const ns3::Packet> p, const ns3::Address&) {
  g_rx += p->GetSize();
  if (g_target > 0 && g_done < 0 && g_rx >= g_target) {
    g_done = ns3::Simulator::Now().GetSeconds();
    ns3::Simulator::Stop();
  }
}
inline void OnCwnd(uint32_t, uint32_t now) {
  g_cwnd_t.push_back(ns3::Simulator::Now().GetSeconds());
  g_cwnd_v.push_back(now);
}
inline void OnState(ns3::TcpSocketState::TcpCongState_t old,
                    ns3::TcpSocketState::TcpCongState_t now) {
  g_ev_t.push_back(ns3::Simulator::Now().GetSeconds());
  g_ev_rto.push_back(g_rto);
  g_ev_rtt.push_back(g_rtt);
  g_ev_from.push_back(old);
  g_ev_to.push_back(now);
  if (now == ns3::TcpSocketState::CA_RECOVERY) g_recoveries++;
  if (now == ns3::TcpSocketState::CA_LOSS) g_timeouts++;
}
inline void HookSink(ns3::Ptr<ns3::Application> sink) {
  sink->TraceConnectWithoutContext("Rx", ns3::MakeCallback(&OnRx));
}
inline void HookSocket(uint32_t node, bool cwnd) {
  std::string base = "/NodeList/" + std::to_string(node) +
                     "/$ns3::TcpL4Protocol/SocketList/0/";
  ns3::Config::ConnectWithoutContext(base + "CongState", ns3::MakeCallback(&OnState));
  if (cwnd) {
    ns3::Config::ConnectWithoutContext(base + "CongestionWindow", ns3::MakeCallback(&OnCwnd));
    ns3::Config::ConnectWithoutContext(base + "RTO", ns3::MakeCallback(&OnRto));
    ns3::Config::ConnectWithoutContext(base + "RTT", ns3::MakeCallback(&OnRtt));
  }
}
inline void ScheduleHook(double at, uint32_t node, bool cwnd) {
  ns3::Simulator::Schedule(ns3::Seconds(at), &HookSocket, node, cwnd);
}
}
"""


def run_ns3(cfg: dict, runs: int, seed: int, trace_cwnd: bool) -> list[dict]:
    import cppyy
    from ns import ns

    if not hasattr(cppyy.gbl, "skyhop_ns3"):
        cppyy.cppdef(HELPERS)
    h = cppyy.gbl.skyhop_ns3

    c = ns.Config
    c.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue(cfg["cc"]))
    c.SetDefault("ns3::TcpL4Protocol::RecoveryType", ns.StringValue(cfg["recovery"]))
    c.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(cfg["mss"]))
    c.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(cfg["initial_window"]))
    c.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2 if cfg["delayed_ack"] else 1))
    c.SetDefault(
        "ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.Seconds(cfg["delayed_ack_timeout_s"]))
    )
    c.SetDefault(
        "ns3::TcpSocket::SndBufSize", ns.UintegerValue(cfg.get("send_buffer", 256_000_000))
    )
    c.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(cfg["rcv_buffer"]))
    c.SetDefault("ns3::TcpSocket::ConnTimeout", ns.TimeValue(ns.Seconds(cfg["rto_initial_s"])))
    c.SetDefault("ns3::TcpSocket::DataRetries", ns.UintegerValue(1000))
    c.SetDefault("ns3::TcpSocket::ConnCount", ns.UintegerValue(1000))
    rto0 = ns.TimeValue(ns.Seconds(cfg["rto_initial_s"]))
    c.SetDefault("ns3::RttEstimator::InitialEstimation", rto0)
    c.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(cfg["sack"]))
    c.SetDefault("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(cfg.get("timestamps", False)))
    c.SetDefault("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(True))
    c.SetDefault("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(cfg["rto_min_s"])))
    c.SetDefault("ns3::TcpSocketBase::ClockGranularity", ns.TimeValue(ns.MilliSeconds(1)))
    c.SetDefault("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(cfg["limited_transmit"]))
    c.SetDefault("ns3::TcpSocketBase::ReTxThreshold", ns.UintegerValue(cfg["dupthresh"]))
    c.SetDefault("ns3::TcpCubic::HyStart", ns.BooleanValue(cfg.get("hystart", False)))
    c.SetDefault("ns3::TcpSocketState::EnablePacing", ns.BooleanValue(cfg["cc"] == "ns3::TcpBbr"))

    out = []
    for i in range(runs):
        ns.RngSeedManager.SetSeed(1)
        ns.RngSeedManager.SetRun(seed + i)
        h.Reset(cfg["size"])
        t0 = time.perf_counter()
        hops = cfg["hops"]
        nodes = ns.NodeContainer()
        nodes.Create(len(hops) + 1)
        ns.InternetStackHelper().Install(nodes)
        addr = ns.Ipv4AddressHelper()
        stream = 100
        dst_addr = None
        for k, hop in enumerate(hops):
            p2p = ns.PointToPointHelper()
            p2p.SetDeviceAttribute(
                "DataRate", ns.DataRateValue(ns.DataRate(round(hop["rate_bps"] * 1502 / 1500)))
            )
            p2p.SetChannelAttribute("Delay", ns.TimeValue(ns.Seconds(hop["delay_s"])))
            p2p.SetQueue("ns3::DropTailQueue", "MaxSize", ns.StringValue(f"{hop['queue']}p"))
            devs = p2p.Install(nodes.Get(k), nodes.Get(k + 1))
            addr.SetBase(ns.Ipv4Address(f"10.{k + 1}.0.0"), ns.Ipv4Mask("255.255.255.0"))
            ifaces = addr.Assign(devs)
            ns.TrafficControlHelper().Uninstall(devs)
            if hop["per"] > 0:
                for d in range(2):
                    em = ns.CreateObject[ns.RateErrorModel]()
                    em.SetAttribute("ErrorUnit", ns.StringValue("ERROR_UNIT_PACKET"))
                    em.SetAttribute("ErrorRate", ns.DoubleValue(hop["per"]))
                    stream += em.AssignStreams(stream)
                    devs.Get(d).SetAttribute("ReceiveErrorModel", ns.PointerValue(em))
            dst_addr = ifaces.GetAddress(1)
        ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

        port = 5000
        bulk = ns.BulkSendHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(dst_addr, port).ConvertTo()
        )
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(cfg["size"]))
        bulk.SetAttribute("SendSize", ns.UintegerValue(cfg["mss"]))
        sender = bulk.Install(nodes.Get(0))
        sender.Start(ns.Seconds(0.0))
        sinkh = ns.PacketSinkHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
        )
        sink = sinkh.Install(nodes.Get(len(hops)))
        sink.Start(ns.Seconds(0.0))
        h.HookSink(sink.Get(0))
        h.ScheduleHook(1e-9, nodes.Get(0).GetId(), trace_cwnd)

        ns.Simulator.Stop(ns.Seconds(cfg["duration_s"]))
        ns.Simulator.Run()
        done = h.g_done if h.g_done >= 0 else None
        active = done if done is not None else cfg["duration_s"]
        rec = {
            "seed": seed + i,
            "goodput_bps": h.g_rx * 8.0 / active,
            "bytes_delivered": int(h.g_rx),
            "completion_time_s": done,
            "fast_recoveries": int(h.g_recoveries),
            "timeouts": int(h.g_timeouts),
            "wall_s": time.perf_counter() - t0,
        }
        if trace_cwnd:
            rec["cwnd"] = {"t_s": list(h.g_cwnd_t), "bytes": [int(v) for v in h.g_cwnd_v]}
            # congestion-state changes (0 open, 1 disorder, 3 recovery, 4 loss)
            # with the RTO and the last RTT sample at that moment
            rec["states"] = [
                {"t_s": t, "from": int(a), "to": int(b), "rto_s": r, "rtt_s": q}
                for t, a, b, r, q in zip(
                    h.g_ev_t, h.g_ev_from, h.g_ev_to, h.g_ev_rto, h.g_ev_rtt, strict=True
                )
            ]
        out.append(rec)
        ns.Simulator.Destroy()
        print(
            f"ns-3 {cfg['variant']} run {i + 1}/{runs}: {rec['goodput_bps'] / 1e6:.3f} Mb/s"
            f" done={done} ({rec['wall_s']:.1f} s)",
            file=sys.stderr,
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", type=pathlib.Path, nargs="?")
    ap.add_argument(
        "--batch",
        type=pathlib.Path,
        help="JSON list of {scenario, tcp, set, runs, seed}: run them all in this"
        " process (the ns-3 import takes half a minute) and print a JSON list",
    )
    ap.add_argument("--jsonl", type=pathlib.Path, help="with --batch: append each job's result")
    ap.add_argument("--tcp", help="variant (default: the flow's tcp)")
    ap.add_argument("--set", action="append", default=[], help="PATH=VALUE, as skyhop's --set")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--trace-cwnd", action="store_true", help="record the sender's cwnd")
    args = ap.parse_args()
    if args.batch:
        results = []
        for job in json.loads(args.batch.read_text()):
            doc = tomllib.loads(pathlib.Path(job["scenario"]).read_text())
            for s in job.get("set", []):
                apply_set(doc, s)
            cfg = resolve(doc, job.get("tcp"))
            runs = run_ns3(cfg, job["runs"], job.get("seed", 1), False)
            results.append({"job": job, "config": cfg, "runs": runs})
            if args.jsonl:
                with args.jsonl.open("a") as f:
                    f.write(json.dumps(results[-1]) + "\n")
        json.dump(results, sys.stdout)
        print()
        return
    doc = tomllib.loads(args.scenario.read_text())
    for s in args.set:
        apply_set(doc, s)
    cfg = resolve(doc, args.tcp)
    runs = run_ns3(cfg, args.runs, args.seed, args.trace_cwnd)
    json.dump({"config": cfg, "runs": runs}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
