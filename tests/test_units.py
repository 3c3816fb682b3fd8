"""One duration parser, the engine's: every option that takes a duration
accepts what a scenario file accepts ("120 s", "120s", "2 min") and refuses
the rest with the engine's message."""

from __future__ import annotations

import pytest

from conftest import assert_one_line_error
from skyhop.errors import ScenarioError
from skyhop.experiments.common import scenario_path
from skyhop.units import duration_s

E4 = scenario_path("e4_shadowed.toml")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("120 s", 120.0), ("120s", 120.0), ("2 min", 120.0), ("500 ms", 0.5), (" 1e3 us ", 1e-3)],
)
def test_durations_as_the_engine_reads_them(text, seconds):
    assert duration_s(text) == pytest.approx(seconds, rel=1e-15)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1 h", 'unknown unit "h" in duration "1 h" (units: s, ms, us, ns, min)'),
        ("10", 'duration "10" has no unit'),
        ("-1 s", 'duration "-1 s" must not be negative'),
        ("soon", 'cannot read duration "soon"'),
    ],
)
def test_refused_durations_carry_the_engine_message(text, words):
    with pytest.raises(ScenarioError) as e:
        duration_s(text, "--duration")
    assert e.value.key == "--duration" and e.value.file == "<options>"
    assert words in e.value.message


def test_scenario_files_refuse_what_the_options_refuse(tmp_path, cli):
    # the same text, the same words, whether in a file or on the command line
    bad = cli("run", E4, "--set", 'run.duration="1 h"')
    line = assert_one_line_error(bad, "run.duration")
    option = cli(
        "channel", "plot", E4, "--link", "up", "--duration", "1 h", "--out", tmp_path / "x.png"
    )
    line2 = assert_one_line_error(option, "--duration")
    assert line.split("run.duration: ", 1)[1] == line2.split("--duration: ", 1)[1]


@pytest.mark.parametrize("duration", ["20s", "20 s"])
def test_channel_plot_takes_durations_with_or_without_a_space(cli, tmp_path, duration):
    out = tmp_path / "up.png"
    proc = cli("channel", "plot", E4, "--link", "up", "--duration", duration, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_packet_log_window_uses_the_engine_parser(cli, tmp_path):
    log = tmp_path / "l.csv"
    proc = cli(
        "run",
        E4,
        "--packet-log",
        log,
        "--packet-log-window",
        "10,20",
        "--set",
        'run.duration="1 s"',
    )
    assert_one_line_error(proc, "--packet-log-window", 'duration "10" has no unit')
    proc = cli("run", E4, "--packet-log", log, "--packet-log-window", "1 h,2 h")
    assert_one_line_error(proc, "--packet-log-window", 'unknown unit "h"')
