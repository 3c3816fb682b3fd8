"""Every file skyhop writes gets the mode 0666 & ~umask, like any file a
program creates: tables, summaries, manifests, parts, traces, reports,
figures, packet logs and captures."""

from __future__ import annotations

import os
import stat

import pytest

from conftest import TINY, skyhop_cli


def _cli_with_umask(mask: int, *args):
    return skyhop_cli(*args, preexec_fn=lambda: os.umask(mask))


def _modes(*roots) -> dict[str, int]:
    out = {}
    for root in roots:
        paths = [root] if root.is_file() else [p for p in root.rglob("*") if p.is_file()]
        for p in paths:
            out[str(p)] = stat.S_IMODE(p.stat().st_mode)
    return out


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_files_follow_the_umask(tmp_path, mask):
    want = 0o666 & ~mask
    run = tmp_path / "run"
    proc = _cli_with_umask(
        mask,
        "run",
        TINY,
        "--out",
        run / "r.parquet",
        "--trace-out",
        run / "t.csv",
        "--packet-log",
        run / "l.parquet",
        "--pcap",
        run / "pcap",
    )
    assert proc.returncode == 0, proc.stderr
    sw = tmp_path / "sw"
    proc = _cli_with_umask(
        mask, "sweep", TINY, "--grid", "links.ar.per=0,0.05", "--runs", "2", "--trace", "--out", sw
    )
    assert proc.returncode == 0, proc.stderr
    proc = _cli_with_umask(mask, "report", sw, "--out", tmp_path / "rep" / "report.html")
    assert proc.returncode == 0, proc.stderr
    proc = _cli_with_umask(
        mask, "plot", sw, "--metric", "goodput_bps", "--out", tmp_path / "fig" / "g"
    )
    assert proc.returncode == 0, proc.stderr
    proc = _cli_with_umask(
        mask,
        "channel",
        "plot",
        TINY,
        "--link",
        "ar",
        "--duration",
        "10s",
        "--out",
        tmp_path / "ch.png",
    )
    assert proc.returncode == 0, proc.stderr
    modes = _modes(run, sw, tmp_path / "rep", tmp_path / "fig", tmp_path / "ch.png")
    for name in (
        "r.parquet",
        "t.csv",
        "l.parquet",
        "results.parquet",
        "summary.json",
        "summary.parquet",
        "sweep.json",
        "traces.parquet",
        "legs.parquet",
        "report.html",
        "g.svg",
        "ch.png",
    ):
        assert any(p.endswith(os.sep + name) for p in modes), name
    assert any(p.endswith(".pcap") for p in modes)
    assert any(".traces.parquet" in p for p in modes)  # the parts' traces
    wrong = {p: oct(m) for p, m in modes.items() if m != want}
    assert not wrong, (oct(want), wrong)


def test_experiment_files_follow_the_umask(tmp_path):
    out = tmp_path / "E6"
    proc = _cli_with_umask(
        0o077, "experiment", "E6", "--runs", "1", "--profile", "ns2", "--out", out
    )
    assert proc.returncode == 0, proc.stderr
    modes = _modes(out)
    assert {"summary.json", "claims.md", "results.parquet", "e6_cqe.pdf"} <= {
        os.path.basename(p) for p in modes
    }
    wrong = {p: oct(m) for p, m in modes.items() if m != 0o600}
    assert not wrong, wrong
