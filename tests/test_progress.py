"""Progress of long commands: runs done / total with an ETA, as a bar on a
terminal and as periodic `skyhop: progress:` lines otherwise."""

from __future__ import annotations

import io

from skyhop._output import RunProgress, duration_text


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def _lines(stream: io.StringIO) -> list[str]:
    return stream.getvalue().splitlines()


def test_duration_text():
    assert duration_text(0.4) == "0 s"
    assert duration_text(59) == "59 s"
    assert duration_text(65) == "1 min 05 s"
    assert duration_text(3725) == "1 h 02 min"


def test_lines_every_tenth_or_every_ten_seconds_with_an_estimate():
    clock, out = Clock(), io.StringIO()
    p = RunProgress("E4", terminal=False, clock=clock, stream=out)
    p.update(0, 1000, "e2e_1mbps", 0)
    assert _lines(out) == [
        "skyhop: progress: E4: 0/1000 runs (0 %), 0 s elapsed, estimating the time left [e2e_1mbps]"
    ]
    # 5 % after 30 s: no new tenth, but 10 s have passed
    clock.t += 30
    p.update(50, 1000, "e2e_1mbps", 0)
    assert _lines(out)[-1] == (
        "skyhop: progress: E4: 50/1000 runs (5 %), 30 s elapsed, about 9 min 30 s left [e2e_1mbps]"
    )
    # within 10 s and the same tenth: nothing
    clock.t += 1
    p.update(60, 1000, "split", 0)
    assert len(_lines(out)) == 2
    # a new tenth: a line at once
    clock.t += 1
    p.update(100, 1000, "split", 0)
    assert len(_lines(out)) == 3 and "100/1000 runs (10 %)" in _lines(out)[-1]
    clock.t += 100
    p.update(1000, 1000, "done", 0)
    p.update(1000, 1000, "done", 0)
    assert _lines(out)[-1] == "skyhop: progress: E4: 1000/1000 runs (100 %), 2 min 12 s elapsed"
    assert len(_lines(out)) == 4


def test_runs_found_done_do_not_count_for_the_estimate():
    clock, out = Clock(), io.StringIO()
    p = RunProgress("sweep", terminal=False, clock=clock, stream=out)
    p.update(600, 1000)  # a resumed sweep reports the runs it found done first
    assert "600/1000 runs (60 %)" in _lines(out)[0]
    assert "estimating the time left" in _lines(out)[0]
    assert "600 already done" in _lines(out)[0]
    clock.t += 20
    p.update(700, 1000)
    # 100 runs in 20 s: 300 left take 60 s (not 20 / 700 * 300)
    assert "about 1 min 00 s left" in _lines(out)[-1]


def test_experiments_report_what_a_resume_skipped():
    clock, out = Clock(), io.StringIO()
    p = RunProgress("E1", terminal=False, clock=clock, stream=out)
    p.update(0, 400, "a", 0)
    clock.t += 10
    p.update(100, 400, "a", 0)
    clock.t += 1
    p.update(300, 400, "b", 200)  # sub-sweep b found 200 runs done
    # 100 runs made in 11 s: the 100 left take 11 s more; the line says
    # what the resume skipped
    assert p.eta_s() == 11 / 100 * 100
    assert _lines(out)[-1] == (
        "skyhop: progress: E1: 300/400 runs (75 %), 11 s elapsed, about 11 s left, "
        "200 already done [b]"
    )


def test_a_bar_on_a_terminal_prints_no_lines():
    out = io.StringIO()
    p = RunProgress("sweep", terminal=True, stream=out)
    p.update(0, 10)
    p.update(5, 10)
    p.warning("a part was redone")
    p.close()
    text = out.getvalue()
    assert "skyhop: progress:" not in text
    assert "skyhop: warning: a part was redone" in text


def test_cli_sweep_progress_lines_when_stderr_is_not_a_terminal(cli, tmp_path, tiny):
    proc = cli(
        "sweep", tiny, "--grid", "links.ar.per=0,0.05", "--runs", "2", "--out", tmp_path / "s"
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("skyhop: progress: sweep: 0/4 runs (0 %)")
    assert lines[-1].startswith("skyhop: progress: sweep: 4/4 runs (100 %)")
    assert all(line.startswith("skyhop: progress: sweep: ") for line in lines)
