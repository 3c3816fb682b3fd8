"""`skyhop report DIR`: one self-contained HTML page whose tables hold the
numbers of summary.json, opened in headless Chromium."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import TINY, assert_one_line_error, skyhop_cli

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)"
)


class _Dom(HTMLParser):
    """Elements with their attributes and their text (enough for the checks)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[dict] = []
        self.stack: list[dict] = []
        self.body: dict = {}

    def handle_starttag(self, tag, attrs):
        el = {"tag": tag, "attrs": dict(attrs), "text": ""}
        if tag == "body":
            self.body = el["attrs"]
        self.elements.append(el)
        if tag not in ("meta", "br", "line", "circle", "rect", "polygon", "path", "polyline"):
            self.stack.append(el)

    def handle_endtag(self, tag):
        while self.stack:
            el = self.stack.pop()
            if el["tag"] == tag:
                break

    def handle_data(self, data):
        for el in self.stack:
            el["text"] += data


def parse(html: str) -> _Dom:
    dom = _Dom()
    dom.feed(html)
    return dom


def dump_dom(page: Path, tmp_path: Path) -> str:
    """The DOM of ``page`` after its scripts ran, as headless Chromium sees it."""
    profile = tmp_path / "chromium-profile"
    proc = subprocess.run(
        [
            CHROMIUM,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            "--virtual-time-budget=5000",
            "--dump-dom",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def _check_self_contained(html: str) -> None:
    assert "<script src" not in html and "<link" not in html
    assert not re.search(r"(src|href)=\"(https?:)?//", html)
    urls = set(re.findall(r"https?://[^\s\"'<>]+", html))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls


def _walk_published(node, path, out):
    if isinstance(node, dict):
        if "published" in node and "mean" in node:
            out[" / ".join(path)] = node
            return
        for k, v in node.items():
            _walk_published(v, [*path, str(k)], out)


@pytest.fixture(scope="module")
def e1_folder(tmp_path_factory) -> Path:
    """E1 at reduced size (2 runs per point) and its report."""
    out = tmp_path_factory.mktemp("e1") / "E1"
    proc = skyhop_cli("experiment", "E1", "--runs", "2", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert all(line.startswith("skyhop: progress: ") for line in proc.stderr.splitlines())
    proc = skyhop_cli("report", out)
    assert proc.returncode == 0, proc.stderr
    return out


@needs_chromium
def test_experiment_report_in_chromium_holds_the_summary(e1_folder, tmp_path):
    page = e1_folder / "report.html"
    html = page.read_text(encoding="utf-8")
    _check_self_contained(html)
    dom = parse(dump_dom(page, tmp_path))
    # the script ran: figures rendered with hover points
    assert dom.body.get("data-ready") == "1"
    assert int(dom.body["data-figures"]) >= 12
    assert int(dom.body["data-points"]) > 100
    doc = json.loads((e1_folder / "summary.json").read_text())

    # published vs ours: one row per published entry, with our mean and the published value
    want: dict = {}
    _walk_published(doc["E1"], ["E1"], want)
    rows = {e["attrs"]["data-path"]: e for e in dom.elements if "pv" in e["attrs"].get("class", "")}
    assert set(rows) == set(want) and want
    for path, entry in want.items():
        row = rows[path]
        assert json.loads(row["attrs"]["data-mean"]) == entry["mean"]
        assert json.loads(row["attrs"]["data-published"]) == entry["published"]
        assert f"{entry['mean']:.4g}" in row["text"] and f"{entry['published']:.4g}" in row["text"]

    # every claim, marked, with its evidence
    claims = [e for e in dom.elements if e["attrs"].get("class", "").startswith("claim ")]
    assert len(claims) == len(doc["claims"])
    for el, c in zip(claims, doc["claims"], strict=True):
        assert json.loads(el["attrs"]["data-holds"]) is c["holds"]
        assert c["evidence"] in el["text"] and c["claim"] in el["text"]
        for key in ("quantity", "threshold", "ours"):
            assert c[key] and c[key] in el["text"], (key, c)
        assert ("✔ holds" if c["holds"] else "✘ does not hold") in el["text"]

    # each sub-sweep's table holds its summary.json
    for sub in sorted((e1_folder / "sweeps").iterdir()):
        summary = json.loads((sub / "summary.json").read_text())
        for e in summary:
            for flow, per in e["summary"].items():
                st = per["goodput_bps"]
                cells = [
                    el
                    for el in dom.elements
                    if el["attrs"].get("data-metric") == "goodput_bps"
                    and el["attrs"].get("data-point") == str(e["point"])
                    and json.loads(el["attrs"]["data-value"]) == st["mean"]
                    and json.loads(el["attrs"]["data-n"]) == st["n"]
                ]
                assert cells, (sub.name, e["point"], flow)
                assert f"{st['mean'] / 1e6:.4g}" in cells[0]["text"]


def test_experiment_report_embeds_the_experiment_figures(e1_folder):
    html = (e1_folder / "report.html").read_text(encoding="utf-8")
    _check_self_contained(html)
    dom = parse(html)
    embedded = [el for el in dom.elements if "expfig" in el["attrs"].get("class", "")]
    files = sorted(p.name for p in e1_folder.glob("*.svg"))
    assert [el["attrs"]["data-file"] for el in embedded] == files
    assert len(files) == 5
    imgs = [el for el in dom.elements if el["tag"] == "img"]
    assert all(el["attrs"]["src"].startswith("data:image/svg+xml;base64,") for el in imgs)


@needs_chromium
def test_screenshot_of_the_report(e1_folder, tmp_path):
    shot = tmp_path / "shot.png"
    proc = subprocess.run(
        [
            CHROMIUM,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--hide-scrollbars",
            "--window-size=1280,1600",
            "--virtual-time-budget=5000",
            f"--screenshot={shot}",
            (e1_folder / "report.html").resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_sweep_report_tables_and_figures(tmp_path):
    out = tmp_path / "sw"
    proc = skyhop_cli(
        "sweep", TINY, "--grid", "links.ar.per=0,0.02,0.05", "--grid", "flows.ftp.tcp=newreno,sack",
        "--runs", "3", "--out", out,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    # the terminal summary table
    assert "goodput (Mb/s)" in proc.stdout and "newreno" in proc.stdout
    proc = skyhop_cli("report", out, "--out", tmp_path / "r.html")
    assert proc.returncode == 0, proc.stderr
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    _check_self_contained(html)
    dom = parse(html)
    summary = json.loads((out / "summary.json").read_text())
    cells = {
        (el["attrs"]["data-point"], el["attrs"]["data-metric"]): el
        for el in dom.elements
        if el["attrs"].get("class") == "stat"
    }
    for e in summary:
        for metric in ("completion_time_s", "goodput_bps", "retransmissions"):
            st = e["summary"]["ftp"][metric]
            el = cells[(str(e["point"]), metric)]
            assert json.loads(el["attrs"]["data-value"]) == st["mean"]
            assert json.loads(el["attrs"]["data-ci95"]) == st["ci95"]
    svgs = [el for el in dom.elements if el["tag"] == "svg"]
    assert len(svgs) == 3  # completion time, goodput, throughput
    points = [el for el in dom.elements if el["attrs"].get("class") == "pt"]
    assert len(points) == 3 * 6
    # hover text: series, x, mean ± CI, n
    tips = [p["attrs"]["data-tip"] for p in points]
    assert all("packet error rate" in tip and "n = 3" in tip for tip in tips)
    # a lossy point has a spread; the loss-free one's identical runs say so
    assert any("±" in tip for tip in tips) and "(identical)" in tips[0]
    assert "error bars: 95 % CI, n = 3 runs per point" in html


def test_report_of_a_folder_without_results(tmp_path):
    (tmp_path / "empty").mkdir()
    proc = skyhop_cli("report", tmp_path / "empty")
    assert_one_line_error(proc, "holds no skyhop results")
    proc = skyhop_cli("report", tmp_path / "missing")
    assert_one_line_error(proc, "no such folder")


# ---------------------------------------------------------------------------
# issue 39, item 11: a proxy's occupancy, and CIs to the mean's precision


def test_the_report_shows_proxy_occupancy_and_rounds_its_intervals(tmp_path):
    out = tmp_path / "px"
    proc = skyhop_cli(
        "sweep", TINY, "--set", 'flows.ftp.proxies=["R"]',
        "--grid", "links.ar.per=0,0.02", "--runs", "3", "--out", out,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    proc = skyhop_cli("report", out, "--out", tmp_path / "r.html")
    assert proc.returncode == 0, proc.stderr
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    dom = parse(html)
    occ = [
        el for el in dom.elements
        if el["attrs"].get("data-metric") == "proxy.R.max_occupancy_bytes"
    ]  # fmt: skip
    assert len(occ) == 2 and "proxy at R: largest occupancy (kB)" in html
    summary = json.loads((out / "summary.json").read_text())
    for el, e in zip(occ, summary, strict=True):
        st = e["summary"]["ftp"]["proxy.R.max_occupancy_bytes"]
        assert json.loads(el["attrs"]["data-value"]) == st["mean"]
    svg_titles = [el["attrs"].get("aria-label") for el in dom.elements if el["tag"] == "svg"]
    assert "proxy at R: largest occupancy" in svg_titles
    # the loss-free point's runs are identical: said so, no ± 4.472e-16
    assert not re.search(r"± \d(\.\d+)?e-\d", html)
    assert "(identical)" in html
    from skyhop.report import mean_ci

    assert mean_ci(0.0766, 0.0025) == "0.07660 ± 0.00250"
    assert mean_ci(518.28, 13.468) == "518.3 ± 13.5"
    assert mean_ci(4.2, 4.472e-16, 20) == "4.200 ± 0.000"
    assert mean_ci(4.2, 0.0, 20) == "4.2 (identical)"
