"""``skyhop report DIR``: an experiment or sweep folder as one self-contained HTML page.

The page needs no network to open: the style sheet and a few lines of
script are inline, every figure is inline SVG drawn here from the sweep
tables. Each plotted point carries its values in an SVG ``<title>`` (the
browser's own tooltip) and ``data-*`` attributes that the script shows in
a floating label on hover. Contents:

- for a sweep (``DIR/sweep.json``): the scenario file, the overrides, the
  grid, a table of mean ± 95 % CI (n) per point and flow, and one figure per
  main metric;
- for an experiment (``DIR/summary.json`` with ``claims``): every published
  claim marked holds / does not hold with its evidence, the
  published-vs-ours table (every entry of ``summary.json`` that has a
  published value), the experiment's figures (its SVG files, drawn by
  :mod:`skyhop.figures`), and each sub-sweep of ``DIR/sweeps`` as above.

Every number in a table is the value of ``summary.json`` (in a ``data-value``
attribute, exact) shown with four significant digits.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._output import write_text_atomic
from .errors import ScenarioError
from .report_svg import _e, _value_attr, mean_ci, num, svg_plot

__all__ = ["build_report", "write_report"]

#: metrics shown in tables and figures: (metric, label with unit, scale)
METRICS = [
    ("completion_time_s", "completion time (s)", 1.0),
    ("goodput_bps", "goodput (Mb/s)", 1e6),
    ("throughput_bps", "throughput (Mb/s)", 1e6),
    ("retransmissions", "retransmissions (segments)", 1.0),
    ("timeouts", "timeouts (count)", 1.0),
]


def _read_json(path: Path) -> Any:
    from .plot import _read_json as read

    return read(path, "report")


def _manifest(path: Path) -> dict[str, Any]:
    from .plot import check_manifest

    doc = check_manifest(path, _read_json(path), "report")
    for key in ("seed", "points"):
        v = doc.get(key, 0)
        if not isinstance(v, int) or isinstance(v, bool):
            raise ScenarioError(str(path), "report", f"not a skyhop sweep manifest ({key} {v!r})")
    return doc


def _summary(path: Path) -> list[dict[str, Any]]:
    from .plot import check_summary

    return check_summary(path, _read_json(path), "report")


def _sweep_section(d: Path, heading: str, anchor: str) -> str:
    manifest = _manifest(d / "sweep.json")
    if not (d / "summary.json").exists():
        return (
            f'<section id="{_e(anchor)}"><h2>{_e(heading)}</h2><p class="empty">no results yet '
            f"(the sweep has not finished; resume it with --resume)</p></section>"
        )
    summary = _summary(d / "summary.json")
    grid = manifest.get("grid", [])
    paths = [p for p, _ in grid]
    parts = [f'<section id="{_e(anchor)}"><h2>{_e(heading)}</h2>']
    scn = Path(str(manifest.get("scenario", "")))
    parts.append(
        f"<p>scenario <code>{_e(scn.name or scn)}</code>, {manifest.get('runs')} runs per point "
        f"(seeds {manifest.get('seed')}..{int(manifest.get('seed', 0)) + int(manifest.get('runs', 1)) - 1}), "
        f"{manifest.get('points')} points</p>"
    )
    if manifest.get("set"):
        parts.append(
            "<p>overrides: " + ", ".join(f"<code>{_e(s)}</code>" for s in manifest["set"]) + "</p>"
        )
    parts.append('<table class="grid"><tr><th>swept path</th><th>values</th></tr>')
    for path, values in grid:
        parts.append(
            f"<tr><td><code>{_e(path)}</code></td><td>{_e(', '.join(map(str, values)))}</td></tr>"
        )
    parts.append("</table>")
    parts.append(_summary_table(summary, paths))
    parts.append(_sweep_figures(d, summary, int(manifest.get("runs", 0))))
    parts.append("</section>")
    return "\n".join(parts)


def _proxy_metrics(summary: list[dict[str, Any]]) -> list[tuple[str, str, float]]:
    """Each split proxy's occupancy (what sizes its memory), as columns."""
    from .quantities import metric_label
    from .stats import parse_proxy_metric

    names = dict.fromkeys(
        m for e in summary for per in e["summary"].values() for m in per if parse_proxy_metric(m)
    )
    return [(m, *metric_label(m)) for m in names]


def _summary_table(summary: list[dict[str, Any]], paths: list[str]) -> str:
    present = [
        m
        for m in [*METRICS, *_proxy_metrics(summary)]
        if any(
            m[0] in per and per[m[0]].get("mean") is not None
            for e in summary
            for per in e["summary"].values()
        )
    ]
    rows = ['<table class="summary"><tr><th>point</th>']
    rows += [f"<th><code>{_e(p)}</code></th>" for p in paths]
    rows.append("<th>flow</th>")
    rows += [
        f"<th>{_e(label)}<br><small>mean ± 95 % CI (n)</small></th>" for _, label, _ in present
    ]
    rows.append("</tr>")
    for e in summary:
        for flow, per in e["summary"].items():
            cells = [f"<td>{e['point']}</td>"]
            cells += [f"<td>{_e(e['set'].get(p))}</td>" for p in paths]
            cells.append(f"<td>{_e(flow)}</td>")
            for metric, _, scale in present:
                st = per.get(metric, {})
                mean, ci, n = st.get("mean"), st.get("ci95"), st.get("n")
                shown = mean_ci(mean, ci, n, scale)
                k = st.get("unfinished")
                if k:
                    bound = (per.get("active_time_s") or {}).get("mean")
                    shown = f"≥ {num(bound)} <small>({k} of {(n or 0) + k} unfinished)</small>"
                cells.append(
                    f'<td class="stat" data-point="{e["point"]}" data-flow="{_e(flow)}" '
                    f'data-metric="{metric}" data-value="{_value_attr(mean)}" '
                    f'data-ci95="{_value_attr(ci)}" data-n="{_value_attr(n)}">'
                    f"{shown} <small>({num(n)})</small></td>"
                )
            rows.append("<tr>" + "".join(cells) + "</tr>")
    rows.append("</table>")
    return "\n".join(rows)


def _sweep_figures(d: Path, summary: list[dict[str, Any]], runs: int) -> str:
    """One figure per main metric and per proxy occupancy, drawn as
    ``skyhop plot`` draws them (:func:`skyhop.plot.sweep_series`: the swept
    path with several values on x, quantities as numbers with their unit,
    a point with unfinished runs at its lower bound)."""
    from .figure_points import FEWER_NOTE, UNFINISHED_NOTE
    from .plot import sweep_series
    from .quantities import metric_label, path_label

    if not summary:
        return ""
    occupancy = [m for m, _, _ in _proxy_metrics(summary) if m.endswith("max_occupancy_bytes")]
    figs = []
    for metric in [m for m, _, _ in METRICS[:3]] + occupancy:
        try:
            data = sweep_series(d, metric)
        except ScenarioError:  # no value of it in this sweep
            continue
        label, scale = metric_label(metric)
        xpath, categories = data["x"], data["categories"]
        series, notes = [], []
        for key, pts in data["series"].items():
            drawn = []
            for x, st in pts:
                k = st.get("unfinished") or 0
                mean = st.get("at_least") if k else st.get("mean")
                if mean is None:
                    continue
                if k and UNFINISHED_NOTE not in notes:
                    notes.append(UNFINISHED_NOTE)
                if not k and runs and (st.get("n") or 0) < runs and FEWER_NOTE not in notes:
                    notes.append(FEWER_NOTE)
                ci = None if k or st.get("ci95") is None else st["ci95"] / scale
                drawn.append(
                    {"x": x, "mean": mean / scale, "ci95": ci, "n": st.get("n"), "unfinished": k}
                )
            series.append((key if len(data["series"]) > 1 or key != metric else label, drawn))
        figs.append(
            '<figure class="fig">'
            + svg_plot(
                label.split(" (")[0],
                path_label(xpath, data.get("x_unit")) if xpath else "",
                label,
                series,
                categories=categories
                if categories is not None
                else ([""] if xpath is None else None),
                n_note=(f", n = {runs} runs per point" if runs else "")
                + "".join(f"; {n}" for n in notes),
                runs=runs,
            )
            + "</figure>"
        )
    return "\n".join(figs)


# ---------------------------------------------------------------------------
# an experiment folder


def _published_rows(node: Any, path: list[str], out: list[tuple[str, dict[str, Any]]]) -> None:
    if isinstance(node, dict):
        if "published" in node and "mean" in node:
            out.append((" / ".join(path), node))
            return
        for k, v in node.items():
            _published_rows(v, [*path, str(k)], out)


def _claim_profiles(claims: list[dict[str, Any]]) -> list[str]:
    """The TCP profiles the claims carry verdicts for (an experiment run
    under several: ``profiles`` per claim), in their order; none: one."""
    seen: list[str] = []
    for c in claims:
        for p in c.get("profiles") or {}:
            if p not in seen:
                seen.append(p)
    return seen


def _experiment_sections(doc: dict[str, Any], d: Path) -> list[str]:
    claims = doc.get("claims", [])
    names = [k for k in doc if k not in ("claims", "runs_per_point", "wall_time_s")]
    parts = []
    held = sum(1 for c in claims if c.get("holds"))
    # the first profile's verdict is the claim's own (``holds``, ``ours``);
    # each further profile gets its own columns
    profiles = _claim_profiles(claims)
    others = profiles[1:]
    counts = "".join(
        f" Under {_e(p)}: "
        f"{sum(1 for c in claims if (c.get('profiles') or {}).get(p, {}).get('holds'))}"
        f" of {len(claims)}."
        for p in others
    )
    own = f" ({_e(profiles[0])})" if profiles else ""
    parts.append(
        f'<section id="claims"><h2>Published claims</h2><p>{held} of {len(claims)} hold'
        f"{own}.{counts}</p>"
        '<table class="claims"><tr><th>#</th><th>figure</th><th>claim</th>'
        f"<th>quantity tested</th><th>threshold</th><th>ours{own}</th><th>holds{own}</th>"
        + "".join(f"<th>ours ({_e(p)})</th><th>holds ({_e(p)})</th>" for p in others)
        + "<th>evidence</th></tr>"
    )
    for i, c in enumerate(claims):
        mark = "✔ holds" if c.get("holds") else "✘ does not hold"
        cls = "yes" if c.get("holds") else "no"
        # the figure and operating point the claim's words describe
        figure = f"<br>{_e(c['figure'])}" if c.get("figure") else ""
        extra = ""
        for p in others:
            r = (c.get("profiles") or {}).get(p)
            if r is None:
                extra += "<td>—</td><td>—</td>"
                continue
            pc = "yes" if r.get("holds") else "no"
            pm = "✔ holds" if r.get("holds") else "✘ does not hold"
            extra += f'<td>{_e(r.get("ours", ""))}</td><td class="{pc}">{pm}</td>'
        parts.append(
            f'<tr class="claim {cls}" data-holds="{_value_attr(bool(c.get("holds")))}"><td>{i + 1}</td>'
            f"<td>{_e(c.get('experiment', ''))}{figure}</td><td>{_e(c.get('claim', ''))}</td>"
            f"<td>{_e(c.get('quantity', ''))}</td><td>{_e(c.get('threshold', ''))}</td>"
            f"<td>{_e(c.get('ours', ''))}</td>"
            f'<td class="{cls}">{mark}</td>{extra}<td>{_e(c.get("evidence", ""))}</td></tr>'
        )
    parts.append("</table></section>")
    rows: list[tuple[str, dict[str, Any]]] = []
    for name in names:
        _published_rows(doc[name], [name], rows)
    parts.append(
        '<section id="published"><h2>Published vs ours</h2>'
        '<table class="pubvsours"><tr><th>entry</th><th>published</th>'
        "<th>ours: mean ± 95 % CI (n)</th><th>deviation</th><th>within tolerance</th></tr>"
    )
    for path, e in rows:
        ours = num(e.get("mean"))
        if e.get("ci95") is not None:
            ours += f" ± {num(e['ci95'])}"
        ours += f" ({num(e.get('n'))})"
        dev = e.get("deviation")
        dev_text = "—" if dev is None else f"{dev * 100:+.1f} %"
        wt = e.get("within_tolerance")
        cls = "" if wt is None else ("yes" if wt else "no")
        parts.append(
            f'<tr class="pv" data-path="{_e(path)}" data-published="{_value_attr(e.get("published"))}" '
            f'data-mean="{_value_attr(e.get("mean"))}"><td>{_e(path)}</td>'
            f"<td>{num(e.get('published'))}</td><td>{ours}</td><td>{dev_text}</td>"
            f'<td class="{cls}">{num(wt) if wt is not None else "—"}</td></tr>'
        )
    parts.append("</table></section>")
    parts.append(_figures_section(d))
    sweeps = d / "sweeps"
    if sweeps.is_dir():
        for sd in sorted(p for p in sweeps.iterdir() if (p / "sweep.json").exists()):
            parts.append(_sweep_section(sd, f"Sub-sweep {sd.name}", f"sweep-{sd.name}"))
    return parts


#: the largest figure (SVG) an experiment's report inlines
MAX_FIGURE_BYTES = 64 << 20


def _figures_section(d: Path) -> str:
    """The experiment's own figures (drawn by :mod:`skyhop.figures`, saved
    beside summary.json), each inline as an SVG image (a data URI: the page
    still needs nothing from outside)."""
    import base64

    figs = sorted(d.glob("*.svg"))
    if not figs:
        return ""
    out = ['<section id="figures"><h2>Figures</h2>']
    from .files import FileRefused, read_bounded

    for f in figs:
        try:
            svg = read_bounded(f, MAX_FIGURE_BYTES)
        except FileRefused as e:
            raise ScenarioError(str(f), "", f"cannot read it ({e.strerror})") from None
        except OSError as e:
            raise ScenarioError(str(f), "", f"cannot read it ({e.strerror or e})") from None
        data = base64.b64encode(svg).decode("ascii")
        out.append(
            f'<figure class="expfig" data-file="{_e(f.name)}">'
            f'<img alt="{_e(f.stem)}" src="data:image/svg+xml;base64,{data}" '
            'style="max-width:100%;height:auto">'
            f"<figcaption><code>{_e(f.stem)}</code> (also .png, .pdf)</figcaption></figure>"
        )
    out.append("</section>")
    return "\n".join(out)


# ---------------------------------------------------------------------------

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1200px;
color:#222;padding:0 16px}
h1{font-size:24px}h2{font-size:19px;border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}
table{border-collapse:collapse;margin:10px 0;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.stat{text-align:right;white-space:nowrap}
td.yes,tr.claim.yes td.yes{color:#0a6b2c;font-weight:600}td.no{color:#b00020;font-weight:600}
pre{background:#f7f7f7;padding:10px;overflow:auto;max-height:360px;font-size:12px}
svg.plot{max-width:100%;height:auto;font:12px sans-serif}
svg .frame{fill:none;stroke:#888}svg .grid{stroke:#e4e4e4}svg .tick{fill:#444;font-size:11px}
svg .axis{fill:#222;font-size:12px}svg .ptitle{font-size:14px;font-weight:600}
svg .legend{font-size:12px}svg .note{font-size:11px;fill:#555}
svg .hit{fill:transparent;cursor:crosshair}svg .pt:hover .hit{stroke:#222;stroke-width:1}
#tip{position:fixed;pointer-events:none;background:#222;color:#fff;padding:4px 8px;border-radius:4px;
font-size:12px;display:none;z-index:10;max-width:420px}
nav a{margin-right:12px}.empty{color:#888}
"""

SCRIPT = """
(function(){
  var tip=document.getElementById('tip');
  var pts=document.querySelectorAll('svg .pt');
  pts.forEach(function(p){
    p.addEventListener('mouseenter',function(){tip.textContent=p.getAttribute('data-tip');
      tip.style.display='block';});
    p.addEventListener('mousemove',function(ev){tip.style.left=(ev.clientX+14)+'px';
      tip.style.top=(ev.clientY+10)+'px';});
    p.addEventListener('mouseleave',function(){tip.style.display='none';});
  });
  document.body.setAttribute('data-figures',String(document.querySelectorAll('svg.plot').length));
  document.body.setAttribute('data-points',String(pts.length));
  document.body.setAttribute('data-ready','1');
})();
"""


def build_report(folder: str | Path) -> tuple[str, str]:
    """``(kind, html)`` of the report of ``folder`` ("experiment" or "sweep")."""
    d = Path(folder)
    if not d.is_dir():
        raise ScenarioError(str(d), "report", "no such folder")
    summary_path = d / "summary.json"
    body: list[str] = []
    if (d / "sweep.json").exists():
        kind = "sweep"
        manifest = _manifest(d / "sweep.json")
        if not summary_path.exists():
            raise ScenarioError(
                str(d),
                "report",
                "the sweep has no results yet (no summary.json): finish it with "
                "'skyhop sweep ... --resume' first",
            )
        title = f"Sweep of {Path(str(manifest.get('scenario', ''))).name}"
        body.append(_scenario_block(Path(str(manifest.get("scenario", "")))))
        body.append(_sweep_section(d, "Results", "results"))
    elif summary_path.exists():
        doc = _read_json(summary_path)
        if (
            not isinstance(doc, dict)
            or not isinstance(doc.get("claims"), list)
            or not all(isinstance(c, dict) for c in doc["claims"])
        ):
            raise ScenarioError(
                str(summary_path), "report", "not the summary of a skyhop experiment or sweep"
            )
        kind = "experiment"
        names = [k for k in doc if k not in ("claims", "runs_per_point", "wall_time_s")]
        title = f"Experiment {', '.join(names)}"
        body.append(
            f"<p>{doc.get('runs_per_point')} runs per point; wall time "
            f"{num(doc.get('wall_time_s'))} s. Published targets: "
            "<code>python/skyhop/experiments/targets.toml</code>.</p>"
        )
        scenarios = (
            sorted(
                {
                    str(_manifest(p / "sweep.json").get("scenario", ""))
                    for p in (d / "sweeps").iterdir()
                    if (p / "sweep.json").exists()
                }
            )
            if (d / "sweeps").is_dir()
            else []
        )
        for s in scenarios:
            body.append(_scenario_block(Path(s)))
        body.extend(_experiment_sections(doc, d))
    else:
        raise ScenarioError(
            str(d),
            "report",
            "holds no skyhop results (no sweep.json or summary.json): run 'skyhop sweep' or "
            "'skyhop experiment' into it first",
        )
    sections = [b for b in body if b.startswith("<section")]
    nav = " ".join(
        f'<a href="#{_e(s.split(chr(34))[1])}">{_e(s.split("<h2>")[1].split("</h2>")[0])}</a>'
        for s in sections
    )
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{_e(title)} — skyhop report</title>"
        f'<meta name="viewport" content="width=device-width,initial-scale=1"><style>{STYLE}</style>'
        f"</head><body><h1>{_e(title)}</h1><nav>{nav}</nav>\n"
        + "\n".join(body)
        + '\n<div id="tip"></div><script>'
        + SCRIPT
        + "</script></body></html>\n"
    )
    return kind, page


def _scenario_block(path: Path) -> str:
    from .files import read_bounded

    try:
        text = read_bounded(path, 1 << 20).decode("utf-8", errors="replace")
    except OSError:
        return f"<p>scenario <code>{_e(path)}</code> (file not found here)</p>"
    return (
        f'<section id="scenario-{_e(path.stem)}"><h2>Scenario {_e(path.name)}</h2>'
        f"<pre>{_e(text)}</pre></section>"
    )


def write_report(folder: str | Path, out: str | Path) -> str:
    """Write the report of ``folder`` to ``out``; returns its kind."""
    kind, page = build_report(folder)
    write_text_atomic(Path(out), page)
    return kind
