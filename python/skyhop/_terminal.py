"""The terminal's tables: a run's summary, a sweep's, the benchmark, a
scenario's description and a live run's report (rich, imported when one is
printed). Names from the scenario are shown through :func:`shown`, so a
name holding terminal control sequences cannot rewrite the screen.
"""

from __future__ import annotations

import sys

from ._output import one_line, shown

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = [
    "cell",
    "extra_metrics",
    "lateness_text",
    "print_bench_table",
    "print_description",
    "print_live_report",
    "print_run_table",
    "print_sweep_table",
]


def cell(text: Any) -> str:
    """A name or value for a rich table: control characters escaped
    (:func:`shown`) and rich's ``[markup]`` taken literally."""
    from rich.markup import escape

    return escape(one_line(str(text)))


def _fmt(stats: dict[str, Any], scale: float = 1.0, digits: int = 3) -> str:
    """``mean ± ci95`` (scaled); ``mean (identical)`` where every run gave
    the same value (a half-width of 0 is no confidence, it is no spread)."""
    mean = stats.get("mean")
    if mean is None:
        return "—"
    text = f"{mean / scale:.{digits}f}"
    ci = stats.get("ci95")
    if ci == 0 and (stats.get("n") or 0) > 1:
        return text + " (identical)"
    if ci is not None:
        text += f" ± {ci / scale:.{digits}f}"
    return text


#: the table's note on identical runs
IDENTICAL_NOTE = "identical: every run gave the same value (no spread, not a confidence)"
#: the table's note on unfinished transfers
UNFINISHED_NOTE = "≥: unfinished transfers counted up to their run's end (a lower bound)"


def completion_text(
    per: dict[str, Any], finite: bool | None = None, runs: int | None = None
) -> str:
    """A flow's completion time in a table. Runs whose transfer had not
    finished when the run ended (``unfinished`` of a sweep's summary, or
    ``runs`` minus the finished ones of a flow that is ``finite``) make it a
    lower bound: the mean with each unfinished run counted up to its end
    (its active time), "≥ 512.300 (7 of 20 unfinished)". A flow with no end
    of its own (bulk, a probe) has none: "— (runs until the end)"."""
    ct = per.get("completion_time_s") or {"mean": None}
    k = ct.get("unfinished")
    if k is None and finite and runs:
        k = runs - (ct.get("n") or 0)
    if k:
        total = (ct.get("n") or 0) + k
        bound = (per.get("active_time_s") or {}).get("mean")
        shown = "—" if bound is None else f"≥ {bound:.3f}"
        return f"{shown} ({k} of {total} unfinished)"
    if ct.get("mean") is None:
        return "— (runs until the end)" if finite is False or k == 0 else "—"
    return _fmt(ct)


def short_names(paths: list[str]) -> dict[str, str]:
    """The shortest distinct dotted tails of swept paths, for table headers:
    ``nodes.haps.proxy.policy`` and ``nodes.haps.proxy.recv_buffer`` are
    ``policy`` and ``recv_buffer``; ``links.a.per`` and ``links.b.per`` are
    ``a.per`` and ``b.per``."""
    parts = {p: p.split(".") for p in paths}
    depth = dict.fromkeys(paths, 1)
    while True:
        names = {p: ".".join(parts[p][-depth[p] :]) for p in paths}
        taken: dict[str, int] = {}
        for n in names.values():
            taken[n] = taken.get(n, 0) + 1
        clash = [p for p in paths if taken[names[p]] > 1 and depth[p] < len(parts[p])]
        if not clash:
            return names
        for p in clash:
            depth[p] += 1


#: the run table's columns for every flow: (metric, header, scale, digits)
BASE_METRICS = [
    ("completion_time_s", "completion time (s)", 1.0, 3),
    ("goodput_bps", "goodput (Mb/s)", 1e6, 4),
    ("retransmissions", "retransmissions", 1.0, 1),
    ("timeouts", "timeouts", 1.0, 2),
]

_COUNT_SUFFIX = "_completed"
_RESPONSE_SUFFIX = "_response_mean_s"


def extra_metrics(metric_names: list[str]) -> list[tuple[str, str, str | None]]:
    """Columns beyond :data:`BASE_METRICS`, decided by the metric names an
    application reports (none for plain transfers): ``<what>_completed``
    counts (header ``<what>``) and ``<what>_response_mean_s`` response times
    (header ``<what> response (s)``, with ``<what>_response_p95_s`` beside
    the mean when reported). ``(metric, header, p95 metric or None)``, in the
    order the metrics first appear."""
    names = list(dict.fromkeys(metric_names))
    out: list[tuple[str, str, str | None]] = []
    for m in names:
        if m.endswith(_COUNT_SUFFIX) and len(m) > len(_COUNT_SUFFIX):
            out.append((m, m[: -len(_COUNT_SUFFIX)], None))
    for m in names:
        if m.endswith(_RESPONSE_SUFFIX) and len(m) > len(_RESPONSE_SUFFIX):
            what = m[: -len(_RESPONSE_SUFFIX)]
            p95 = f"{what}_response_p95_s"
            out.append((m, f"{what} response (s)", p95 if p95 in names else None))
    return out


def _present(summaries: list[dict[str, Any]]) -> list[str]:
    """Metric names with a value in some flow's summary, in first-seen order."""
    return [
        m
        for m in dict.fromkeys(m for per in summaries for m in per)
        if any(per.get(m, {}).get("mean") is not None for per in summaries)
    ]


def leg_tcp(leg: dict[str, Any]) -> str:
    """What TCP a leg of ``describe``'s document runs: its variant, the
    profile whose defaults it has, its controller and recovery, e.g.
    ``cubic, profile linux: cubic + prr, SACK, RACK, timestamps``."""
    if "profile" not in leg:
        return str(leg["tcp"])
    extras = [
        name
        for key, name in (("sack", "SACK"), ("rack", "RACK"), ("timestamps", "timestamps"))
        if leg.get(key)
    ]
    text = f"{leg['tcp']}, profile {leg['profile']}: {leg['controller']} + {leg['recovery']}"
    return ", ".join([text, *extras])


def flow_quic(q: dict[str, Any]) -> str:
    """What a QUIC flow of ``describe``'s document runs, e.g. ``QUIC
    (quinn-proto 0.11.19) cubic, stream window 1.25 MB (caps 20.0 Mb/s)``."""
    window = q["stream_window_bytes"] / 1e6
    # With terminating proxies the cap is the tightest connection's.
    over = "its tightest connection" if q.get("terminated_at") else f"{q['rtt_s']:.3f} s"
    text = (
        f"QUIC ({q['stack']}) {q['controller']}, stream window {window:g} MB "
        f"(caps {q['window_bound_bps'] / 1e6:.1f} Mb/s over {over})"
    )
    if q.get("terminated_at"):
        proxies = [
            f"{p['node']} ({p['policy']}, {p['cache_bytes'] / 1e6:g} MB)"
            for p in q["terminated_at"]
        ]
        text += "; terminated at " + ", ".join(proxies)
    if q.get("passed_through"):
        text += f"; split proxies at {', '.join(q['passed_through'])} pass it through"
    return text


def flows_tcp(network: dict[str, Any] | None) -> dict[str, str]:
    """Per flow of ``describe``'s document, its legs' :func:`leg_tcp`
    (one per distinct leg, joined by `` | ``), or a QUIC flow's
    :func:`flow_quic`."""
    out: dict[str, str] = {}
    for f in (network or {}).get("flows", []):
        if f.get("quic"):
            out[f["flow"]] = flow_quic(f["quic"])
            continue
        texts = list(dict.fromkeys(leg_tcp(leg) for leg in f["legs"]))
        out[f["flow"]] = " | ".join(texts)
    return out


def _console() -> Any:
    """The console tables are printed on: the terminal's width on a
    terminal; on a pipe or a file, ``COLUMNS`` if set, else as wide as a
    table needs (up to 200 columns)."""
    import os

    from rich.console import Console

    if sys.stdout.isatty():
        return Console()
    try:
        width = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        width = 200
    return Console(width=max(40, width))


def _caption(
    n: int,
    summaries: list[dict[str, Any]],
    shown: list[str],
    unit: str = "",
    unfinished: bool = False,
) -> str | None:
    """The table's caption: what ± means, and the notes the cells of the
    ``shown`` metrics need (identical runs; unfinished transfers)."""
    if n < 2:
        return None
    notes = ["mean ± half-width of the 95 % Student-t interval" + unit]
    stats = [per[m] for per in summaries for m in shown if isinstance(per.get(m), dict)]
    if any(st.get("ci95") == 0 and (st.get("n") or 0) > 1 for st in stats):
        notes.append(IDENTICAL_NOTE)
    if unfinished or any(st.get("unfinished") for st in stats):
        notes.append(UNFINISHED_NOTE)
    return "\n".join(notes)


def print_run_table(
    file: str,
    seeds: list[int],
    summary: dict[str, Any],
    jain: list[float | None] | None = None,
    tcp: dict[str, str] | None = None,
    finite: dict[str, bool] | None = None,
) -> None:
    """Print the human-readable summary of ``skyhop run``: per flow, and
    the counts and response times an application reports (see
    :func:`extra_metrics`); under the table, Jain's fairness index of the
    flows' goodputs (``jain``: one per run) and what TCP each flow ran
    (``tcp``: flow → :func:`flows_tcp`'s text). ``finite``: per flow,
    whether its application ends by itself (``describe``'s ``finite``), so
    that runs without a completion time are told as unfinished
    (:func:`completion_text`)."""
    from rich.table import Table

    n = len(seeds)
    seed_text = f"seed {seeds[0]}" if n == 1 else f"seeds {seeds[0]}..{seeds[-1]}"
    finite = finite or {}
    unfinished = any(
        finite.get(f) and (m.get("completion_time_s") or {}).get("n", n) < n
        for f, m in summary.items()
    )
    extra = extra_metrics(_present(list(summary.values())))
    metrics = [m for m, *_ in BASE_METRICS] + [m for m, _, _ in extra]
    metrics += [p for _, _, p in extra if p]
    table = Table(
        title=f"{cell(file)}: {n} run{'s' if n != 1 else ''} ({seed_text})",
        caption=_caption(n, list(summary.values()), metrics, unfinished=unfinished),
    )
    table.add_column("flow", style="bold")
    for _, header, _, _ in BASE_METRICS:
        table.add_column(header, justify="right")
    for _, header, _ in extra:
        table.add_column(header, justify="right")
    empty = {"mean": None}
    for flow, m in summary.items():
        ct = m.get("completion_time_s", empty)
        if flow in finite:
            ct_text = completion_text(m, finite[flow], n)
        else:  # not known (a live run's simulated flows): as many as finished
            ct_text = _fmt(ct)
            if ct.get("mean") is not None and ct.get("n", n) < n:
                ct_text += f" ({ct['n']}/{n} finished)"
        cells = [cell(flow), ct_text]
        cells += [_fmt(m.get(k, empty), scale, d) for k, _, scale, d in BASE_METRICS[1:]]
        for metric, _, p95 in extra:
            if p95 is None:
                cells.append(_fmt(m.get(metric, empty), 1, 1))
            else:
                cells.append(_fmt(m.get(metric, empty)) + f" (p95 {_fmt(m.get(p95, empty))})")
        table.add_row(*cells)
    console = _console()
    console.print(table)
    values = [j for j in (jain or []) if j is not None]
    if len(summary) > 1 and values:
        from .stats import summarize_values

        st = summarize_values(values)
        console.print(f"Jain's fairness index of the flows' goodputs: {_fmt(st, 1, 4)}")
    for flow, text in (tcp or {}).items():
        if flow in summary:
            console.print(
                f"{shown(flow)}: {text if text.startswith('QUIC') else 'TCP ' + text}",
                highlight=False,
                markup=False,
            )


def print_sweep_table(title: str, summary_doc: list[dict[str, Any]]) -> None:
    """Print a sweep's summary (summary.json): one row per point and flow,
    mean ± 95 % CI half-width (n where fewer than the runs per point) of
    the main metrics (those of
    :data:`BASE_METRICS`, the response times an application reports and, where
    the flow has split proxies, each proxy's maximum and mean occupancy)."""
    from rich.table import Table

    from .stats import parse_proxy_metric

    paths = list(summary_doc[0]["set"]) if summary_doc else []
    short = short_names(paths)
    per_flows = [per for e in summary_doc for per in e["summary"].values()]
    present = _present(per_flows)
    # runs per point: the most any metric has (a cell shows its n when fewer)
    runs = max(
        (
            (st.get("n") or 0) + (st.get("unfinished") or 0)
            for per in per_flows
            for st in per.values()
        ),
        default=0,
    )
    columns = [m for m in BASE_METRICS if m[0] in present]
    columns += [
        (metric, header, 1.0, 3)
        for metric, header, _ in extra_metrics(present)
        if metric.endswith(_RESPONSE_SUFFIX)
    ]
    # a split proxy's occupancy (kB), per proxy node: what its memory must hold
    columns += [
        (m, f"{node} {'max' if field.startswith('max') else 'mean'} occupancy (kB)", 1e3, 1)
        for m in present
        if (parsed := parse_proxy_metric(m)) is not None
        for node, field in [parsed]
    ]
    rows = []
    for e in summary_doc:
        for flow, per in e["summary"].items():
            cells = []
            for metric, _, scale, digits in columns:
                st = per.get(metric, {"mean": None})
                if metric == "completion_time_s" and st.get("unfinished"):
                    cells.append(completion_text(per))
                    continue
                text = _fmt(st, scale, digits)
                if st.get("mean") is not None and (st.get("n") or 0) < runs:
                    text += f" ({st.get('n')})"
                cells.append(text)
            rows.append(([str(e["point"]), *(cell(e["set"][p]) for p in paths), cell(flow)], cells))

    def make(part: list[int], caption: bool) -> Any:
        table = Table(
            title=cell(title),
            caption=_caption(
                2,
                per_flows,
                [c[0] for c in columns],
                f"; (n): runs with a value, where not all {runs}",
            )
            if caption
            else None,
        )
        table.add_column("point", justify="right")
        for p in paths:
            table.add_column(cell(short[p]), justify="right", min_width=min(len(short[p]), 24))
        table.add_column("flow", style="bold")
        for i in part:
            table.add_column(columns[i][1], justify="right")
        for keys, cells in rows:
            table.add_row(*keys, *(cells[i] for i in part))
        return table

    console = _console()
    # as many metric columns per table as the width holds without wrapping
    # (a narrow terminal gets the columns in several tables, keys repeated)
    wide = console.options.update_width(100_000)
    parts: list[list[int]] = [[]]
    for i in range(len(columns)):
        trial = [*parts[-1], i]
        if parts[-1] and console.measure(make(trial, False), options=wide).maximum > console.width:
            parts.append([i])
        else:
            parts[-1] = trial
    for k, part in enumerate(parts):
        console.print(make(part, k == len(parts) - 1))
    # the swept paths the headers shorten, in full
    for p in paths:
        if short[p] != p:
            console.print(f"{cell(short[p])} = {cell(p)}", highlight=False)


def _si(x: float | None) -> str:
    if x is None:
        return "—"
    for factor, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= factor:
            return f"{x / factor:.2f} {prefix}"
    return f"{x:.2f} "


def print_bench_table(report: dict[str, Any]) -> None:
    """Print the human-readable report of ``skyhop bench``."""
    from pathlib import Path

    from rich.table import Table

    rounds = report.get("rounds", 1)
    title = "skyhop bench (one run at a time)"
    if rounds > 1:
        title = f"skyhop bench (one run at a time; fastest of {rounds} rounds)"
    table = Table(title=title)
    cols = ["scenario", "runs", "wall (s)", "events/s", "packet-hops/s", "sim s / wall s"]
    compared = [r for r in report["results"] if "baseline" in r]
    quic = any("quic_datagrams" in r for r in report["results"])
    if quic:
        cols += ["QUIC datagrams / CPU s", "CPU µs / datagram"]
    if compared:
        cols.append("vs baseline" + (" (median)" if rounds > 1 else ""))
        names = ", ".join(sorted({Path(r["baseline"]).stem for r in compared}))
        table.caption = f"vs baseline: events/s over that of the case compared with ({names})"
    for col in cols:
        table.add_column(col, justify="left" if col == "scenario" else "right")
    for r in report["results"]:
        row = [
            cell(Path(r["scenario"]).stem),
            str(r["runs"]),
            f"{r['wall_s']:.3f}",
            _si(r["events_per_s"]),
            _si(r["packet_hops_per_s"]),
            f"{r['sim_s_per_wall_s']:.1f}" if r["sim_s_per_wall_s"] else "—",
        ]
        if quic:
            per = r.get("quic_datagrams_per_cpu_s")
            us = r.get("cpu_us_per_quic_datagram")
            row += [_si(per) if per else "—", f"{us:.2f}" if us else "—"]
        if compared:
            m = r.get("vs_baseline_median")
            row.append(f"{m:.2f}" if m is not None else "—")
        table.add_row(*row)
    _console().print(table)


def _rate(bps: float) -> str:
    for factor, unit in ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")):
        if bps >= factor:
            return f"{bps / factor:g} {unit}"
    return f"{bps:g} bit/s"


def _bytes(n: float) -> str:
    return f"{n / 1e6:.2f} MB" if n >= 1e6 else f"{n / 1e3:.1f} kB"


def _place(p: dict[str, Any]) -> str:
    alt = p["altitude_m"]
    alt_s = f"{alt / 1e3:.3f} km" if abs(alt) >= 1000 else f"{alt:.0f} m"
    return f"({p['lat_deg']:.4f}, {p['lon_deg']:.4f}, {alt_s})"


def _access_text(a: dict[str, Any]) -> str:
    """A terminal of the starlink access preset (``describe``)."""
    ms = lambda s: f"{s * 1e3:.3f} ms"  # noqa: E731
    head = (
        f"starlink access: terminal {a['terminal']}, PoP {a['pop']}, epochs of "
        f"{a['epoch_s']:g} s from {a['epoch_offset_s']:g} s"
    )
    link = (
        f"    access link: frames {ms(a['frame_s'])}, grant {ms(a['grant_s'])}, pause "
        f"{ms(a['pause_s'])} after each boundary ({ms(a['pause_before_s'])} before), uplink "
        f"{_rate(a['uplink_bps'])}, downlink {_rate(a['downlink_bps'])}, queues "
        f"{a['dish_queue']} (dish) / {a['gateway_queue']} (gateway) packets"
    )
    if a.get("path_at_start") is None:
        return f"{head}\n    no satellite serves it in the first epoch\n{link}"
    path = (
        f"    path at the start: {' - '.join(a['path_at_start'])} ({a['isl_hops']} ISL hops); "
        f"one way {ms(a['one_way_s'])} = dish-satellite {ms(a['up_s'])} + ISLs "
        f"{ms(a['isl_s'])} + satellite-gateway {ms(a['feeder_s'])} + fibre {ms(a['fibre_s'])}; "
        f"idle RTT to the PoP about {ms(a['idle_rtt_s'])}"
    )
    return f"{head}\n{path}\n{link}"


def _azimuth(deg: float) -> str:
    """An azimuth to two decimals in [0, 360): due north is 0.00, never 360.00."""
    return f"{round(deg, 2) % 360.0:.2f}"


def print_description(file: str, d: dict[str, Any]) -> None:
    """Print ``skyhop describe``: links, flows and legs, warnings (plain text)."""
    out = [f"{file}: {len(d['nodes'])} nodes, run {d['duration_s']:g} s"]
    out.append("nodes: " + ", ".join(f"{n['node']} ({n['address']})" for n in d["nodes"]))
    placed = [n for n in d["nodes"] if n.get("position")]
    if placed:
        out.append("positions (lat, lon, altitude; at the start, and at the end for moving nodes):")
        for n in placed:
            line = f"  {n['node']}: {_place(n['position'])}"
            if n.get("position_end"):
                line += f" -> {_place(n['position_end'])}"
            out.append(line)
    m = d.get("motion")
    if m and (m["satellites"] or m["inter_satellite_links"] or m["ground_nodes"]):
        grounds = ", ".join(m["ground_nodes"]) or "none"
        elev = m["min_elevation_deg"]
        out.append(
            f"moving network: {m['satellites']} satellites, {m['inter_satellite_links']} "
            f"inter-satellite links, ground nodes {grounds}"
            + (f" (min elevation {elev:g} deg)" if elev is not None else "")
            + f"; routes: {m['routing']}; packets to a link that is down: {m['when_down']}"
        )
    elif m:
        out.append(
            "moving nodes, no constellation: their links' delays follow the positions; "
            f"packets to a link that is down: {m['when_down']}"
        )
    for a in d.get("access") or []:
        out.append(_access_text(a))
    out.append("links (per direction):")
    for ln in d["links"]:
        if ln.get("distance_m") is not None and ln["delay_source"] != "slant range":
            src = f"{ln['delay_source']}, distance {ln['distance_m'] / 1e3:.3f} km"
            if ln.get("elevation_deg") is not None:
                src += f", elevation {ln['elevation_deg']:.2f} deg"
            if ln.get("delay_range_s"):
                lo, hi = ln["delay_range_s"]
                src += f", delay over the run {lo * 1e3:.3f} .. {hi * 1e3:.3f} ms"
            if ln.get("up_fraction") is not None:
                src += f", up {ln['up_fraction'] * 100:.0f} % of the run"
        elif ln["delay_source"] == "slant range":
            src = (
                f"slant range {ln['slant_range_m'] / 1e3:.3f} km, elevation "
                f"{ln['elevation_deg']:.2f} deg, azimuth {_azimuth(ln['azimuth_deg'])} deg"
            )
        else:
            src = ln["delay_source"]
        frac = ln["queue_bdp_fraction"]
        queue = f"queue {ln['queue_packets']} packets"
        if frac is not None:
            queue += f" ({frac:.2f} x BDP {_bytes(ln['bdp_bytes'])})"
        chans = ", ".join(
            " ".join(f"{k}={v}" for k, v in c.items()) if isinstance(c, dict) else str(c)
            for c in ln["channels"]
        )
        layer = ln.get("link_layer")
        if isinstance(layer, dict):
            rest = " ".join(f"{k}={v}" for k, v in layer.items() if k != "model")
            text = f"{layer.get('model')} link layer ({rest})"
            chans = f"{chans}, {text}" if chans else text
        out.append(
            f"  {ln['link']} {ln['dir']} {ln['from']} -> {ln['to']}: {_rate(ln['rate_bps'])}, "
            f"delay {ln['delay_s'] * 1e3:.6f} ms ({src}), {queue}, "
            f"errors: {chans or 'none'}"
        )
    for b in d.get("beams", []):
        out.append(f"beam {b['beam']} (links {', '.join(b['links'])}):")
        out.extend(f"  {line}" for line in b["description"])
    out.append("flows:")
    for f in d["flows"]:
        size = f.get("app") or ("bulk" if f["size_bytes"] is None else _bytes(f["size_bytes"]))
        if f.get("app", "").startswith("file") and "on the wire" not in f["app"]:
            size = _bytes(f["size_bytes"])
        out.append(
            f"  {f['flow']}: {' - '.join(f['path'])}, {size}, start {f['start_s']:g} s, "
            f"{len(f['legs'])} leg{'s' if len(f['legs']) != 1 else ''}"
        )
        for i, leg in enumerate(f["legs"]):
            route = leg.get("route_at_start")
            head = f"    leg {i} {leg['from']} -> {leg['to']} ({leg_tcp(leg)}): "
            limit = f"window limit {leg['window_limit']} {_bytes(leg['window_limit_bytes'])}"
            if route is not None and not route:
                out.append(f"{head}no route at the start of the run (moving network); {limit}")
                continue
            out.append(
                f"{head}bottleneck "
                f"{_rate(leg['bottleneck_bps'])}, RTT {leg['rtt_s'] * 1e3:.3f} ms, BDP "
                f"{_bytes(leg['bdp_bytes'])} ({leg['bdp_packets']:.1f} packets)"
                + (" at the start of the run" if route else "")
                + f"; {limit}"
            )
            if route:
                out.append(
                    f"      route at the start ({len(route) - 1} hops, changes during the run): "
                    + " - ".join(route)
                )
    from ._output import group_warnings

    out.append("warnings:" if d["warnings"] else "warnings: none")
    out.extend(f"  {w}" for w in group_warnings(d["warnings"]))
    print(shown("\n".join(out)))


def _ms(s: float | None) -> str:
    if s is None:
        return "—"
    return f"{s * 1e3:.3f} ms" if s >= 1e-3 else f"{s * 1e6:.0f} µs"


def _cpu_list(mask: str) -> str:
    """The CPUs of a sysfs CPU mask ("00000000,0000000e" → "1-3")."""
    bits = int(mask.replace(",", ""), 16)
    cpus = [i for i in range(bits.bit_length()) if bits >> i & 1]
    runs: list[str] = []
    for c in cpus:
        if runs and c == int(runs[-1].split("-")[-1]) + 1:
            runs[-1] = f"{runs[-1].split('-')[0]}-{c}"
        else:
            runs.append(str(c))
    return ",".join(runs) or "none"


def lateness_text(report: dict[str, Any]) -> str:
    """The one-line time-fidelity summary of a live run (stderr)."""
    lat = report["lateness"]
    rt = report["realtime"]
    how = []
    if rt.get("fifo_priority") is not None:
        how.append(f"SCHED_FIFO {rt['fifo_priority']}")
    if rt.get("cpu") is not None:
        how.append(f"CPU {rt['cpu']}")
    if rt.get("receive_cpus") is not None:
        how.append(f"hosts' receive on CPU {_cpu_list(rt['receive_cpus'])}")
    rt_text = ", ".join(how) if how else "no real-time scheduling"
    return (
        f"live: {lat['packets']} packets released to the hosts, lateness p50 {_ms(lat['p50_s'])}"
        f", p99 {_ms(lat['p99_s'])}, max {_ms(lat['max_s'])} ({rt_text}); "
        f"stopped: {report['stop_reason']} at {report['duration_s']:.3f} s"
    )


def print_live_report(file: str, result: dict[str, Any], report: dict[str, Any] | None) -> None:
    """The human-readable summary of ``skyhop live`` (and ``replay``, without
    ``report``): per link direction what it carried, the commands' ends, the
    simulated flows."""
    from rich.table import Table

    console = _console()
    if report is not None and report.get("hosts"):
        hosts = Table(title="live hosts (their kernel's TCP as the run started)")
        for col in ("node", "address", "congestion control", "SACK", "timestamps", "qdisc"):
            hosts.add_column(col)
        for h in report["hosts"]:
            sysctl = h.get("sysctl") or {}

            def flag(key: str, sysctl: dict[str, Any] = sysctl) -> str:
                v = sysctl.get(f"net.ipv4.{key}")
                return "—" if v is None else ("on" if v not in ("0", "") else "off")

            hosts.add_row(
                cell(h["node"]),
                cell(h["address"]),
                cell(sysctl.get("net.ipv4.tcp_congestion_control", "—")),
                flag("tcp_sack"),
                flag("tcp_timestamps"),
                cell(sysctl.get("net.core.default_qdisc", "—")),
            )
        console.print(hosts)
    links = Table(title=f"{cell(file)}: links")
    for col in ("link", "dir", "from", "to", "packets", "bytes", "delivered", "drops", "util"):
        links.add_column(col, justify="left" if col in ("link", "dir", "from", "to") else "right")
    for lk in result.get("links", []):
        drops = lk["queue_drops"] + lk["channel_drops"] + lk["link_drops"]
        links.add_row(
            cell(lk["link"]),
            lk["dir"],
            cell(lk["from"]),
            cell(lk["to"]),
            str(lk["packets"]),
            _bytes(lk["bytes"]),
            str(lk["delivered"]),
            str(drops),
            f"{lk['utilisation']:.3f}",
        )
    console.print(links)
    if report is not None and report["commands"]:
        cmds = Table(title="commands")
        for col in ("node", "command", "status", "ended at"):
            cmds.add_column(col)
        for c in report["commands"]:
            status = (
                "stopped at the end"
                if c["stopped_at_end"]
                else f"exit {c['exit_code']}"
                if c["exit_code"] is not None
                else f"signal {c['signal']}"
            )
            ended = f"{c['ended_at_s']:.3f} s" if c.get("ended_at_s") is not None else "—"
            cmds.add_row(
                cell(c["node"]),
                cell(c["command"]),
                status + (" (daemon)" if c["background"] else ""),
                ended,
            )
        console.print(cmds)
    flows = result.get("flows", {})
    if flows:
        from .stats import summarize

        print_run_table(f"{file}: simulated flows", [result.get("seed", 0)], summarize([result]))
