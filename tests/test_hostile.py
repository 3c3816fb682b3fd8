"""Hostile and extreme input, by class, through the real command line: each
refused before it can exhaust memory, hang or reach the user as a
traceback, with one ``skyhop: error:`` line naming the culprit (exit 2).
"""

from __future__ import annotations

import os

import pytest

from conftest import REPO, TINY, assert_one_line_error, skyhop_cli

#: a fast path and a long run: what it records would not fit in 1 GB
BIG = [
    "--duration",
    "1e6s",
    "--set",
    "links.ar.rate=10Gbps",
    "--set",
    "links.rb.rate=10Gbps",
    "--set",
    "flows.ftp.size=1000GB",
]
OPEN = BIG[:-2]  # a flow without a size (a probe, a web session)
LIMITED = {**os.environ, "SKYHOP_MEMORY_LIMIT": "1 GB"}

GE_1NS = 'links.ar.channel={model="gilbert-elliott", t_good="1 ns", t_bad="1 ns"}'
LMS = 'links.ar.channel={model="lms-urban", elevation_deg=30, azimuth_deg=180, %s}'


# (id, arguments after the scenario ({tmp}: a fresh folder), texts of the line)
MEMORY = [
    ("trace", ["run", *BIG, "--trace"], ["--trace", "above the limit of 1.0 GB"]),
    (
        "trace-sweep",
        ["sweep", *BIG, "--trace", "--grid", "links.ar.queue=10,20", "--out", "{tmp}/sw"],
        ["--trace", "grid point links.ar.queue=10"],
    ),
    (
        "packet-log",
        ["run", *BIG, "--packet-log", "{tmp}/p.csv"],
        ["--packet-log", "--packet-log-window"],
    ),
    ("pcap", ["run", *BIG, "--pcap", "{tmp}"], ["--pcap", "--pcap-links"]),
    ("queue", ["run", "--set", "links.ar.queue=100000000"], ["links.ar.queue"]),
    (
        "probe",
        [
            "run",
            "{open}",
            *OPEN,
            "--set",
            "flows.ftp.app=cbr",
            "--set",
            'flows.ftp.cbr={rate="10 Gbps", packet="1 B"}',
        ],
        ["flows.ftp", "probe's rate"],
    ),
    (
        "web-http10",
        [
            "run",
            "{open}",
            *OPEN,
            "--set",
            "flows.ftp.app=web",
            "--set",
            'flows.ftp.web={http="1.0", parallel=64}',
        ],
        ["flows.ftp.web"],
    ),
    (
        "lms-narrow-buildings",
        ["run", "{clean}", "--set", LMS % "building_width_min_m=1e-9, building_width_max_m=1"],
        ["links.ar.channel.building_width_min_m", "more than 1e6"],
    ),
    (
        "lms-long-section",
        ["run", "{clean}", "--set", LMS % "section_length_m=1e12"],
        ["links.ar.channel.section_length_m"],
    ),
    ("chain-1ns", ["run", "{clean}", "--set", GE_1NS], ["links.ar.channel", "run.event_budget"]),
    (
        "channel-plot-1e7s",
        [
            "channel",
            "plot",
            "{clean}",
            "--link",
            "ar",
            "--duration",
            "1e7s",
            "--set",
            GE_1NS.replace("1 ns", "1 ms"),
            "--out",
            "{tmp}/c.png",
        ],
        ["--duration", "links.ar.channel", "shorter span"],
    ),
]


def _args(args: list[str], tmp) -> list[str]:
    """``{scn}``: the tiny scenario, ``{open}``: its flow without a size,
    ``{tmp}``: a fresh folder; the tiny scenario after the command if none."""
    open_flow = tmp / "open.toml"
    open_flow.write_text(TINY.read_text().replace('size = "300 kB"', "").replace("per = 0.02", ""))
    clean = tmp / "clean.toml"
    clean.write_text(TINY.read_text().replace("per = 0.02", ""))
    out = [
        a.replace("{tmp}", str(tmp))
        .replace("{scn}", str(TINY))
        .replace("{open}", str(open_flow))
        .replace("{clean}", str(clean))
        for a in args
    ]
    if not {"{scn}", "{open}", "{clean}"} & set(args):
        out.insert(1, str(TINY))
    return out


@pytest.mark.parametrize(("args", "texts"), [pytest.param(a, t, id=i) for i, a, t in MEMORY])
def test_memory_is_bounded_by_an_estimate_before_anything_runs(tmp_path, args, texts):
    proc = skyhop_cli(*_args(args, tmp_path), env=LIMITED, timeout=60)
    assert_one_line_error(proc, *texts)
    assert not (tmp_path / "c.png").exists()


@pytest.mark.parametrize("count", ["100000000", "9000000000000000000"])
def test_template_counts_are_bounded(tmp_path, count):
    scn = tmp_path / "t.toml"
    scn.write_text(TINY.read_text() + f"\n[templates.t]\ncount = {count}\n[templates.t.nodes]\n")
    proc = skyhop_cli("validate", scn, timeout=30)
    assert_one_line_error(proc, "templates.t.count", "at most 100000")


# (id, arguments, texts of the line)
OPTIONS = [
    ("runs-2^64-1", ["run", "{scn}", "--runs", "18446744073709551615"], ["--runs", "1000000"]),
    ("runs-2^64", ["run", "{scn}", "--runs", "18446744073709551616"], ["--runs"]),
    ("runs-above-cap", ["run", "{scn}", "--runs", "1000001"], ["--runs", "1000000"]),
    (
        "sweep-runs-2^64-1",
        [
            "sweep",
            "{scn}",
            "--grid",
            "links.ar.per=0",
            "--out",
            "{tmp}/s",
            "--runs",
            "18446744073709551615",
        ],
        ["--runs"],
    ),
    ("experiment-runs", ["experiment", "E1", "--runs", "18446744073709551615"], ["--runs"]),
    (
        "channel-plot-txt",
        ["channel", "plot", "{scn}", "--link", "ar", "--out", "{tmp}/c.txt"],
        ["c.txt", "--out", ".png"],
    ),
    (
        "packet-log-window-1e400s",
        ["run", "{scn}", "--packet-log", "{tmp}/p.csv", "--packet-log-window", "0s,1e400s"],
        ["--packet-log-window", "1e400s", "out of range"],
    ),
    ("duration-no-unit", ["run", "{scn}", "--duration", "120"], ["--duration", "no unit"]),
]


@pytest.mark.parametrize(("args", "texts"), [pytest.param(a, t, id=i) for i, a, t in OPTIONS])
def test_bad_options_are_one_line_naming_the_option(tmp_path, args, texts):
    args = [a.replace("{tmp}", str(tmp_path)).replace("{scn}", str(TINY)) for a in args]
    line = assert_one_line_error(skyhop_cli(*args, timeout=60), *texts)
    assert "seed" not in line


def test_python_runs_beyond_the_cap_name_the_argument():
    import skyhop

    for runs in (2**64 - 1, 2**64, 1_000_001):
        with pytest.raises(skyhop.ScenarioError) as e:
            skyhop.run(TINY, runs=runs)
        assert e.value.key == "runs", e.value


def test_duration_option_sets_run_duration():
    import json

    proc = skyhop_cli("run", TINY, "--duration", "3s", "--json", timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["scenario"]["run"]["duration"] == "3000 ms"


# ---------------------------------------------------------------------------
# special files: anything but a regular file is refused, reads are bounded


def _special(kind: str, path) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    else:
        os.symlink("/dev/zero", path)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_special_file_named_like_a_sweep_part_is_redone_not_read(tmp_path, kind):
    out = tmp_path / "sw"
    args = ["sweep", TINY, "--grid", "links.ar.per=0,0.01", "--duration", "2s", "--out", out]
    assert skyhop_cli(*args, timeout=120).returncode == 0
    part = sorted((out / "parts").iterdir())[0]
    part.unlink()
    _special(kind, part)
    proc = skyhop_cli(*args, "--resume", timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "not a regular file" in proc.stderr and "its run is redone" in proc.stderr
    assert part.is_file() and not part.is_symlink()
    assert "2 runs (1 already done, 1 run now)" in proc.stdout


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_special_file_as_fade_trace_is_refused(tmp_path, kind):
    scn = tmp_path / "s.toml"
    scn.write_text(TINY.read_text().replace("per = 0.02", ""))
    _special(kind, tmp_path / "fade.csv")
    proc = skyhop_cli(
        "validate", scn, "--set", 'links.ar.channel={model="trace", file="fade.csv"}', timeout=30
    )
    assert proc.returncode == 2
    assert "links.ar.channel.file" in proc.stderr and "not a regular file" in proc.stderr


@pytest.mark.parametrize("command", ["run", "validate", "describe"])
def test_a_device_as_scenario_is_refused(command):
    assert_one_line_error(
        skyhop_cli(command, "/dev/zero", timeout=30), "/dev/zero", "not a regular"
    )


def test_a_scenario_through_a_pipe_is_read(tmp_path):
    import subprocess
    import sys

    proc = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m skyhop validate <(cat "{TINY}")'],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith(": ok\n")


# ---------------------------------------------------------------------------
# JSON scenarios


def test_a_json_scenario_runs_validates_describes_and_round_trips(tmp_path):
    import json

    first = skyhop_cli("run", TINY, "--duration", "3s", "--json", timeout=60)
    assert first.returncode == 0, first.stderr
    doc = json.loads(first.stdout)
    resolved = tmp_path / "resolved.json"
    resolved.write_text(json.dumps(doc["scenario"]))
    again = skyhop_cli("run", resolved, "--json", timeout=60)
    assert again.returncode == 0, again.stderr
    doc2 = json.loads(again.stdout)
    assert doc2["scenario"] == doc["scenario"]
    assert doc2["runs"] == doc["runs"]
    assert skyhop_cli("validate", resolved).stdout == f"{resolved}: ok\n"
    desc = skyhop_cli("describe", resolved, "--json")
    assert desc.returncode == 0 and json.loads(desc.stdout)["flows"]
    bad = tmp_path / "bad.json"
    bad.write_text('{"run": {"duration": "3 s"}, "nodes": {"A": {}}, "colour": 1}')
    assert_one_line_error(skyhop_cli("validate", bad), "bad.json", "colour")


# ---------------------------------------------------------------------------
# closed standard streams


def _shell(command: str):
    import subprocess
    import sys

    return subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m skyhop {command}'],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("json_out", ["", "--json"])
def test_closed_stdout_is_one_line_not_a_traceback(json_out):
    proc = _shell(f'run "{TINY}" {json_out} >&-')
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("skyhop: error: standard output is closed")
    assert len(proc.stderr.splitlines()) == 1


def test_closed_stdin_and_stderr_do_not_matter(tmp_path):
    out = tmp_path / "r.csv"
    proc = _shell(f'run "{TINY}" --out "{out}" <&- 2>&-')
    assert proc.returncode == 0
    assert "wrote" in proc.stdout and out.stat().st_size > 0


# ---------------------------------------------------------------------------
# warnings and background threads under the command line

_NOISY_COMMAND = """
import sys, threading, warnings
import skyhop.cli.parser as parser
from skyhop.cli import main

def raise_in_thread(exc):
    def target():
        raise exc
    t = threading.Thread(target=target, name="skyhop-progress")
    t.start()
    t.join()

def noisy(args):
    warnings.warn("a part was repaired", RuntimeWarning)
    raise_in_thread(KeyboardInterrupt())
    raise_in_thread(ZeroDivisionError("boom"))
    return 0

parser.cmd_schema = noisy
sys.exit(main(["schema"]))
"""


def test_python_warnings_and_thread_errors_are_one_line_each():
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "SKYHOP_DEBUG"}
    proc = subprocess.run(
        [sys.executable, "-c", _NOISY_COMMAND], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        "skyhop: warning: a part was repaired",
        "skyhop: internal error: ZeroDivisionError: boom "
        "(set SKYHOP_DEBUG=1 for a traceback; please report)",
    ], proc.stderr


# ---------------------------------------------------------------------------
# a full file system names the file


def _small_files():
    """Files may grow to 300 bytes: a write beyond fails as on a full file
    system, with an error that names no file."""
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (300, 300))


FULL = [
    ("run-out-parquet", ["run", "{scn}", "--out", "{tmp}/o.parquet"], "o.parquet"),
    ("trace-out", ["run", "{scn}", "--trace-out", "{tmp}/t.csv"], "t.csv"),
    ("packet-log", ["run", "{scn}", "--packet-log", "{tmp}/p.csv"], "p.csv"),
    ("pcap", ["run", "{scn}", "--pcap", "{tmp}"], "ar.forward.pcap"),
    ("sweep-part", ["sweep", "{scn}", "--grid", "links.ar.per=0", "--out", "{tmp}/s"], ".json"),
    ("channel-plot", ["channel", "plot", "{scn}", "--link", "ar", "--out", "{tmp}/c.png"], "c.png"),
]


@pytest.mark.parametrize(("args", "name"), [pytest.param(a, n, id=i) for i, a, n in FULL])
def test_a_full_file_system_names_the_file(tmp_path, args, name):
    args = [a.replace("{tmp}", str(tmp_path)).replace("{scn}", str(TINY)) for a in args]
    proc = skyhop_cli(*args, preexec_fn=_small_files, timeout=120)
    line = assert_one_line_error(proc, "cannot write", "File too large")
    assert f"{tmp_path}/" in line and name in line, line
    assert not list(tmp_path.rglob("*.tmp"))


def test_no_space_left_names_the_file(tmp_path, monkeypatch):
    import errno

    import pandas as pd

    from skyhop._output import write_table

    def full(self, path, **kw):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    with pytest.raises(OSError) as e:
        write_table(pd.DataFrame({"a": [1]}), tmp_path / "r.csv")
    assert e.value.filename == str(tmp_path / "r.csv")
    assert e.value.strerror == "cannot write: No space left on device"
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------
# names holding terminal escape sequences are shown escaped


@pytest.mark.parametrize("command", ["run", "describe", "sweep"])
def test_names_with_escape_sequences_are_printed_escaped(tmp_path, command):
    scn = tmp_path / "esc.toml"
    text = TINY.read_text().replace("[flows.ftp]", '[flows."x\\u001b[2J\\u0007[bold]y"]')
    text = text.replace("[nodes.B]", '[nodes."B\\u001b]0;t\\u0007"]')
    text = text.replace('"R", "B"]', '"R", "B\\u001b]0;t\\u0007"]')
    text = text.replace('to = "B"', 'to = "B\\u001b]0;t\\u0007"')
    scn.write_text(text)
    args = {
        "run": [],
        "describe": [],
        "sweep": ["--grid", "links.ar.per=0", "--out", tmp_path / "s"],
    }
    proc = skyhop_cli(command, scn, *args[command], timeout=120)
    assert proc.returncode == 0, proc.stderr
    for stream in (proc.stdout, proc.stderr):
        assert "\x1b" not in stream and "\x07" not in stream
    assert "x\\x1b[2J\\x07[bold]y" in proc.stdout.replace("\n", "") or command == "describe"
    if command == "describe":
        assert "B\\x1b]0;t\\x07" in proc.stdout


# ---------------------------------------------------------------------------
# the Python API: skyhop errors naming the argument


def _deep(n: int) -> dict:
    d: dict = {}
    cur = d
    for _ in range(n):
        cur["a"] = {}
        cur = cur["a"]
    return d


@pytest.mark.parametrize(
    ("call", "file", "key"),
    [
        pytest.param(lambda s: s.run(TINY, runs=2**64 - 1), "<options>", "runs", id="runs-2^64-1"),
        pytest.param(lambda s: s.run(TINY, runs=10**30), "<options>", "runs", id="runs-huge"),
        pytest.param(lambda s: s.run(_deep(5000)), "<dict>", "", id="deep-dict"),
        pytest.param(lambda s: s.run(TINY, set={"": 1}), str(TINY), "--set", id="set-empty-path"),
        pytest.param(
            lambda s: s.run(TINY, set={"links.ar.per": 2}),
            str(TINY),
            "links.ar.per",
            id="set-value",
        ),
        pytest.param(lambda s: s.sweep(TINY, {}), "<options>", "grid", id="grid-empty-dict"),
        pytest.param(lambda s: s.sweep(TINY, []), "<options>", "grid", id="grid-empty-list"),
        pytest.param(
            lambda s: s.sweep(TINY, {"links.ar.per": []}), "<options>", "grid", id="grid-no-values"
        ),
        pytest.param(lambda s: s.sweep(TINY, ["x"]), "<options>", "grid", id="grid-no-equals"),
        pytest.param(
            lambda s: s.sweep(TINY, {"links.ar.per": [2]}),
            str(TINY),
            "links.ar.per",
            id="grid-value",
        ),
        pytest.param(
            lambda s: s.sweep(TINY, {"links.zz.per": [0]}),
            str(TINY),
            "links.zz.per",
            id="grid-path",
        ),
    ],
)
def test_python_api_errors_are_scenario_errors_naming_file_and_key(call, file, key):
    import skyhop

    with pytest.raises(skyhop.ScenarioError) as e:
        call(skyhop)
    assert (e.value.file, e.value.key) == (file, key), e.value


def test_a_missing_trace_is_a_table_error_not_a_key_error():
    import skyhop

    res = skyhop.run(TINY, runs=1)
    with pytest.raises(skyhop.TableError, match="run with trace=True") as e:
        res.trace_frame("ftp.0.cwnd")
    assert not isinstance(e.value, KeyError)


def test_an_empty_grid_is_refused_on_the_command_line(tmp_path):
    proc = skyhop_cli("sweep", TINY, "--grid", "=", "--out", tmp_path / "s")
    assert_one_line_error(proc, "<options>: --grid:")


# ---------------------------------------------------------------------------
# issue 39: signals from the command's first line of Python on

_SIGNALLED_WHILE_STARTING = """
import os, signal, sys
sys.orig_argv = [sys.executable, "/usr/local/bin/skyhop", "run", sys.argv[1]]
import skyhop.cli  # what the console script imports before it calls main
os.kill(os.getpid(), signal.{sig})
sys.exit(skyhop.cli.main(["run", sys.argv[1], "--runs", "1000000"]))
"""


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_a_signal_while_the_command_starts_is_an_interruption(sig):
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "SKYHOP_DEBUG"}
    proc = subprocess.run(
        [sys.executable, "-c", _SIGNALLED_WHILE_STARTING.format(sig=sig), str(TINY)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert (proc.returncode, proc.stderr) == (130, "skyhop: interrupted\n"), proc.stderr
    assert proc.stdout == ""


def test_importing_skyhop_leaves_a_programs_signals_alone():
    import subprocess
    import sys

    code = (
        "import signal, skyhop, skyhop.cli; "
        "print(signal.getsignal(signal.SIGTERM) is signal.SIG_DFL, "
        "signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["True", "True"], proc.stderr


# ---------------------------------------------------------------------------
# issue 39: every command reading a results file, on malformed ones


@pytest.fixture(scope="module")
def finished_sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("malformed") / "sw"
    proc = skyhop_cli(
        "sweep", TINY, "--grid", "links.ar.per=0,0.02", "--runs", "2", "--trace",
        "--trace-every", "100ms", "--out", out,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return out


#: (id, file of the sweep folder, its malformed content)
MALFORMED = [
    ("summary-text", "summary.json", "not json"),
    ("summary-object", "summary.json", "{}"),
    ("summary-numbers", "summary.json", "[1, 2]"),
    ("summary-no-set", "summary.json", '[{"point": 0, "summary": {}}]'),
    ("summary-bad-stats", "summary.json", '[{"point": 0, "set": {}, "summary": {"f": {"m": 3}}}]'),
    ("summary-string-mean", "summary.json",
     '[{"point": 0, "set": {}, "summary": {"f": {"goodput_bps": {"mean": "x"}}}}]'),
    ("summary-deep", "summary.json", "[" * 100_000 + "]" * 100_000),
    ("manifest-list", "sweep.json", "[]"),
    ("manifest-grid", "sweep.json", '{"grid": 5, "runs": 2}'),
    ("manifest-runs", "sweep.json", '{"grid": [], "runs": "two"}'),
    ("legs-parquet", "legs.parquet", "PAR1 not parquet"),
    ("traces-parquet", "traces.parquet", "garbage"),
]  # fmt: skip

READERS = [
    ("plot-metric", ["plot", "{dir}", "--metric", "goodput_bps", "--out", "{tmp}/p.png"]),
    ("plot-cdf", ["plot", "{dir}", "--cdf", "bytes_sent", "--out", "{tmp}/p.png"]),
    ("plot-trace", ["plot", "{dir}", "--trace", "cwnd", "--out", "{tmp}/p.png"]),
    ("report", ["report", "{dir}", "--out", "{tmp}/r.html"]),
]


@pytest.mark.parametrize(("file", "content"), [pytest.param(f, c, id=i) for i, f, c in MALFORMED])
@pytest.mark.parametrize("args", [pytest.param(a, id=i) for i, a in READERS])
def test_results_readers_name_a_malformed_file(finished_sweep, tmp_path, file, content, args):
    import shutil

    folder = tmp_path / "sw"
    shutil.copytree(finished_sweep, folder)
    (folder / file).write_text(content)
    args = [a.replace("{dir}", str(folder)).replace("{tmp}", str(tmp_path)) for a in args]
    proc = skyhop_cli(*args, timeout=120)
    if proc.returncode == 0:
        # the command does not read that file (a report reads no Parquet)
        assert not proc.stderr.strip(), proc.stderr
        return
    assert_one_line_error(proc, str(folder))


@pytest.mark.parametrize(
    "doc",
    ['{"runs": [1]}', '{"runs": [{"flows": 3}]}', '{"runs": [{"seed": 1, "traces": 5}]}', "nul"],
)
@pytest.mark.parametrize("what", [["--cdf", "bytes_sent"], ["--trace", "cwnd"]])
def test_plot_names_a_malformed_run_document(tmp_path, doc, what):
    path = tmp_path / "run.json"
    path.write_text(doc)
    proc = skyhop_cli("plot", path, *what, "--out", tmp_path / "p.png")
    assert_one_line_error(proc, str(path))


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_plot_refuses_special_files_without_reading_them(tmp_path, kind):
    path = tmp_path / "traces.parquet"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path = "/dev/zero"
    proc = skyhop_cli("plot", path, "--trace", "cwnd", "--out", tmp_path / "p.png", timeout=60)
    assert_one_line_error(proc, str(path))


# ---------------------------------------------------------------------------
# issue 39: bench's options and arguments


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--repeat", "1000000000000"], ["--repeat", "expected a whole number from 1 to"]),
        (["--rounds", "99999999999"], ["--rounds", "expected a whole number from 1 to"]),
        (["{dir}"], ["is a folder", "scenario files"]),
        (["/dev/null"], ["/dev/null", "not a regular file"]),
    ],
)
def test_bench_refuses_what_it_cannot_time(tmp_path, args, words):
    args = [a.replace("{dir}", str(tmp_path)) for a in args]
    proc = skyhop_cli("bench", *args, timeout=60)
    assert_one_line_error(proc, *words)


# ---------------------------------------------------------------------------
# special files everywhere a path is read: refused before reading, never a
# hang (a FIFO) or an endless read (/dev/zero), one line naming the file

KINDS = ["fifo", "dev-zero", "dir"]


def _make_special(kind: str, path) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dir":
        path.mkdir()
    else:
        os.symlink("/dev/zero", path)


def _clean_scenario(tmp) -> str:
    clean = tmp / "clean.toml"
    clean.write_text(TINY.read_text().replace("per = 0.02", ""))
    return str(clean)


STARLINK = REPO / "scenarios" / "starlink_rome.toml"


def _tle_scenario(folder, tle: str) -> str:
    """Starlink Rome with its shell replaced by the TLE file ``tle``."""
    path = folder / "tle.toml"
    path.write_text(STARLINK.read_text().replace('preset = "starlink-550"', f'tle = "{tle}"'))
    return str(path)


def test_a_relative_tle_file_is_found_beside_the_scenario(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    # the second line's checksum is wrong: the error shows the file was read
    (sub / "sats.tle").write_text(
        "ISS\n1 25544U 98067A   20194.88612269 -.00002218  00000-0 -31515-4 0  9993\n"
        "2 25544  51.6461 221.2784 0001413  89.1723 280.4612 15.49507896236008\n"
    )
    scn = _tle_scenario(sub, "sats.tle")
    proc = skyhop_cli("validate", "sub/tle.toml", cwd=tmp_path, timeout=60)
    assert_one_line_error(proc, "constellation.tle", str(sub / "sats.tle"), "line 2")
    assert scn


def _sweep_copy(sweep_folder, tmp):
    import shutil

    out = tmp / "sw"
    shutil.copytree(sweep_folder, out)
    return out


# (place, the file made special, the command) — each a callable of (tmp, sweep
# folder, record folder) returning (special path, arguments)
SPECIAL_PLACES = {
    "scenario-run": lambda t, s, r: (t / "s.toml", ["run", t / "s.toml"]),
    "scenario-sweep": lambda t, s, r: (
        t / "s.toml",
        ["sweep", t / "s.toml", "--grid", "links.ar.per=0", "--out", t / "o"],
    ),
    "scenario-describe": lambda t, s, r: (t / "s.toml", ["describe", t / "s.toml"]),
    "fade-trace": lambda t, s, r: (
        t / "fade.csv",
        [
            "validate",
            _clean_scenario(t),
            "--set",
            'links.ar.channel={model="trace", file="fade.csv"}',
        ],
    ),
    "masking-file": lambda t, s, r: (
        t / "mask.csv",
        [
            "validate",
            _clean_scenario(t),
            "--set",
            'links.ar.channel={model="lms-urban", elevation_deg=30, azimuth_deg=180, '
            'masking_file="mask.csv"}',
        ],
    ),
    "tle-file": lambda t, s, r: (t / "sats.tle", ["validate", _tle_scenario(t, "sats.tle")]),
    "replay-json": lambda t, s, r: (r / "replay.json", ["replay", r]),
    "arrivals-pcapng": lambda t, s, r: (r / "arrivals.pcapng", ["replay", r]),
    "sweep-json-report": lambda t, s, r: (s / "sweep.json", ["report", s]),
    "summary-json-plot": lambda t, s, r: (
        s / "summary.json",
        ["plot", s, "--metric", "goodput_bps", "--out", t / "p.png"],
    ),
    "table-parquet-plot": lambda t, s, r: (
        s / "links.parquet",
        ["plot", s, "--cdf", "packets", "--out", t / "p.png"],
    ),
    "run-document-plot": lambda t, s, r: (
        t / "doc.json",
        ["plot", t / "doc.json", "--cdf", "packets", "--out", t / "p.png"],
    ),
    "experiment-figure-report": lambda t, s, r: (
        t / "exp" / "fig.svg",
        ["report", t / "exp", "--out", t / "r.html"],
    ),
    "scenario-bench": lambda t, s, r: (t / "b.toml", ["bench", t / "b.toml"]),
}


@pytest.fixture
def record_folder(tmp_path):
    """A complete live record (written here as a live run writes it), of
    the tiny scenario with A live and no packet."""
    rec = tmp_path / "rec"
    rec.mkdir()
    _write_record(rec, [])
    return rec


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("place", list(SPECIAL_PLACES))
def test_a_special_file_is_refused_wherever_a_path_is_read(tmp_path, finished_sweep, place, kind):
    if place == "experiment-figure-report":
        (tmp_path / "exp").mkdir()
        (tmp_path / "exp" / "summary.json").write_text('{"claims": []}')
    rec = tmp_path / "rec"
    rec.mkdir()
    _write_record(rec, [])
    sw = _sweep_copy(finished_sweep, tmp_path)
    path, args = SPECIAL_PLACES[place](tmp_path, sw, rec)
    path.unlink(missing_ok=True)
    _make_special(kind, path)
    proc = skyhop_cli(*args, timeout=60)
    if place == "run-document-plot" and kind == "dir":
        expected = ["not a sweep folder"]  # a folder given to plot is a sweep's
    elif place == "scenario-bench":
        expected = ["is a folder" if kind == "dir" else "not a regular file"]
    elif kind == "fifo" and place.startswith("scenario"):
        expected = ["nothing written to it"]  # a scenario may be a pipe: an empty one
    else:
        expected = ["not a regular file"]
    assert_one_line_error(proc, path.name, *expected)


def test_a_scenario_fifo_with_a_writer_is_read(tmp_path):
    import threading

    fifo = tmp_path / "s.toml"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w") as f:
            f.write(TINY.read_text())

    t = threading.Thread(target=write, daemon=True)
    t.start()
    proc = skyhop_cli("validate", fifo, timeout=60)
    assert proc.returncode == 0, proc.stderr
    t.join(timeout=10)


# ---------------------------------------------------------------------------
# a live record: replay.json's values are checked, a truncated record refused


def _pcapng(nodes: list[str], packets: list[tuple[int, int, bytes]], stop: int | None) -> bytes:
    """A record as skyhop live writes it: a section, an interface per node,
    the packets (interface, time, bytes), then (unless ``stop`` is None:
    a record cut short) the statistics closing each interface."""
    import struct

    def block(kind: int, body: bytes) -> bytes:
        return struct.pack("<II", kind, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))

    def opt(code: int, value: bytes) -> bytes:
        pad = b"\0" * (-len(value) % 4)
        return struct.pack("<HH", code, len(value)) + value + pad

    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    for n in nodes:
        out += block(1, struct.pack("<HHI", 101, 0, 0) + opt(2, n.encode()) + opt(9, b"\x09"))
    for iface, t, data in packets:
        pad = b"\0" * (-len(data) % 4)
        out += block(
            6,
            struct.pack("<IIIII", iface, t >> 32, t & 0xFFFFFFFF, len(data), len(data))
            + data
            + pad,
        )
    if stop is not None:
        for i in range(len(nodes)):
            count = sum(1 for p in packets if p[0] == i)
            out += block(
                5,
                struct.pack("<III", i, stop >> 32, stop & 0xFFFFFFFF)
                + opt(4, struct.pack("<Q", count))
                + opt(0, b""),
            )
    return out


#: a UDP datagram from A (10.0.0.1) to B (10.0.1.1), nodes in name order
UDP_A_TO_B = bytes.fromhex("4500001c00000000401100000a0000010a000101") + bytes(8)
STOP_NS = 1_000_000_000


def _write_record(folder, packets, *, stop: int | None = STOP_NS, meta: dict | None = None):
    import json

    import skyhop

    scn = skyhop.load_scenario(TINY, set=["nodes.A.live=true"]).resolved
    doc = {
        "scenario": scn,
        "seed": 1,
        "live_nodes": ["A"],
        "stop_ns": STOP_NS,
        "arrivals": "arrivals.pcapng",
        "links": [],
    }
    doc.update(meta or {})
    (folder / "replay.json").write_text(json.dumps(doc))
    (folder / "arrivals.pcapng").write_bytes(_pcapng(["A"], packets, stop))
    return doc


def test_a_complete_record_replays(record_folder):
    _write_record(record_folder, [(0, 5_000_000, UDP_A_TO_B)])
    proc = skyhop_cli("replay", record_folder, "--json", timeout=60)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    "cut",
    ["no-closing-statistics", "inside-the-last-block", "inside-a-packet", "a-packet-dropped"],
)
def test_a_truncated_record_is_refused_not_replayed_shorter(record_folder, cut):
    pkts = [(0, 5_000_000, UDP_A_TO_B), (0, 6_000_000, UDP_A_TO_B)]
    _write_record(record_folder, pkts)
    arrivals = record_folder / "arrivals.pcapng"
    whole = arrivals.read_bytes()
    if cut == "no-closing-statistics":
        arrivals.write_bytes(_pcapng(["A"], pkts, None))
    elif cut == "inside-the-last-block":
        arrivals.write_bytes(whole[:-6])
    elif cut == "inside-a-packet":
        arrivals.write_bytes(_pcapng(["A"], pkts, None)[:-10])
    else:
        closing = whole[len(_pcapng(["A"], pkts, None)) :]
        arrivals.write_bytes(_pcapng(["A"], pkts[:1], None) + closing)
    proc = skyhop_cli("replay", record_folder, timeout=60)
    line = assert_one_line_error(proc, "arrivals.pcapng")
    assert "truncated" in line or "where the record's end says 2" in line, line


# (id, change to replay.json (a dict of keys, or text), the key named)
REPLAY_META = [
    ("whole-a-list", "[]", "(the whole file)"),
    ("whole-null", "null", "(the whole file)"),
    ("not-json", "{", ""),
    ("duplicate-key", '{"seed": 1, "seed": 2}', ""),
    ("seed-negative", {"seed": -1}, "seed"),
    ("seed-2^64", {"seed": 2**64}, "seed"),
    ("seed-text", {"seed": "1"}, "seed"),
    ("seed-fraction", {"seed": 1.5}, "seed"),
    ("seed-true", {"seed": True}, "seed"),
    ("seed-missing", {"seed": None}, "seed"),
    ("stop-negative", {"stop_ns": -1}, "stop_ns"),
    ("stop-2^64", {"stop_ns": 2**64}, "stop_ns"),
    ("stop-text", {"stop_ns": "1"}, "stop_ns"),
    ("stop-float", {"stop_ns": 1e30}, "stop_ns"),
    ("stop-beyond-duration", {"stop_ns": 10**18}, "record"),
    ("stop-not-the-records", {"stop_ns": STOP_NS + 1}, "record"),
    ("live-nodes-empty", {"live_nodes": []}, "live_nodes"),
    ("live-nodes-a-string", {"live_nodes": "A"}, "live_nodes"),
    ("live-nodes-numbers", {"live_nodes": [1]}, "live_nodes[0]"),
    ("live-nodes-unknown", {"live_nodes": ["Z"]}, "live_nodes[0]"),
    ("live-nodes-twice", {"live_nodes": ["A", "A"]}, "live_nodes"),
    ("live-nodes-not-the-records", {"live_nodes": ["B"]}, "record"),
    ("arrivals-a-path", {"arrivals": "../x.pcapng"}, "arrivals"),
    ("arrivals-absolute", {"arrivals": "/dev/zero"}, "arrivals"),
    ("arrivals-a-number", {"arrivals": 5}, "arrivals"),
    ("scenario-a-list", {"scenario": []}, "scenario"),
    ("scenario-bad-key", {"scenario": {"nodes": 5}}, "scenario.nodes"),
    ("unknown-key", {"colour": 1}, "colour"),
]


@pytest.mark.parametrize(("change", "key"), [pytest.param(c, k, id=i) for i, c, k in REPLAY_META])
def test_replay_json_values_are_checked(record_folder, change, key):
    import json

    if isinstance(change, str):
        (record_folder / "replay.json").write_text(change)
    else:
        doc = json.loads((record_folder / "replay.json").read_text())
        for k, v in change.items():
            if v is None:
                del doc[k]
            else:
                doc[k] = v
        (record_folder / "replay.json").write_text(json.dumps(doc))
    proc = skyhop_cli("replay", record_folder, timeout=60)
    line = assert_one_line_error(proc, "replay.json" if key != "record" else "record")
    assert f": {key}: " in line or not key, line


# ---------------------------------------------------------------------------
# issue 39: scenario values that would abort, hang or mislead

# the geometric Rome scenario (starlink_rome.toml runs over the access
# network, whose scheduler sets the routes by epochs)
STARLINK_ROME = REPO / "scenarios" / "leo_rome_geometric.toml"


@pytest.mark.parametrize(
    ("sets", "key", "words"),
    [
        (
            ["constellation.planes=65535", "constellation.per_plane=65535"],
            "constellation.planes",
            ["4294836225 satellites", "65536 nodes"],
        ),
        (["routing.update=1ns"], "routing.update", ["run.event_budget"]),
        (["constellation.phasing=x"], "constellation.phasing", ['"x"', "half-offset"]),
        (["constellation.gsl.shift=2"], "constellation.gsl.shift", ["inter-satellite"]),
        (["run.seed=5\nrun.runs = 3"], "run.seed", ["more than one value"]),
    ],
)
@pytest.mark.parametrize("command", ["validate", "run"])
def test_hostile_scenario_values_are_one_line_before_anything_runs(command, sets, key, words):
    args = [a for s in sets for a in ("--set", s)]
    proc = skyhop_cli(command, STARLINK_ROME, *args, timeout=60)
    assert_one_line_error(proc, str(STARLINK_ROME), key, *words)


def test_the_memory_estimate_counts_a_packet_log_across_a_constellation(tmp_path):
    # 150 s of a 200 Mb/s download logged at the gateway's fiber: gigabytes
    # (10 s of it peaked at 0.57 GB), refused before the run, not 4.6 MB
    env = {**os.environ, "SKYHOP_MEMORY_LIMIT": "1 GB"}
    log = tmp_path / "log.parquet"
    args = ["run", STARLINK_ROME, "--duration", "150s", "--packet-log", log]
    proc = skyhop_cli(*args, env=env, timeout=60)
    assert_one_line_error(proc, "--packet-log", "GB of memory")
    pcap = ["run", STARLINK_ROME, "--duration", "150s", "--pcap", tmp_path / "p"]
    assert_one_line_error(skyhop_cli(*pcap, env=env, timeout=60), "--pcap", "GB of memory")
    assert not log.exists()


@pytest.mark.parametrize(
    ("doc", "key", "words"),
    [
        ('{"run": {"seed": 1, "seed": 2}}', "", ["given twice"]),
        ('{"run": {"seed": 9223372036854775808}}', "run.seed", ["larger than 9223372036854775807"]),
    ],
)
def test_a_json_scenario_with_duplicate_keys_or_huge_seeds_is_refused(tmp_path, doc, key, words):
    path = tmp_path / "s.json"
    path.write_text(doc)
    assert_one_line_error(skyhop_cli("validate", path, timeout=60), str(path), key, *words)


def test_a_proxy_on_a_constellations_route_is_named_as_such(tmp_path):
    text = STARLINK_ROME.read_text().replace(
        "[flows.download]",
        '[nodes.Frankfurt.proxy]\npolicy = "third"\n\n[flows.download]\nproxies = ["Frankfurt"]',
    )
    path = tmp_path / "gw.toml"
    path.write_text(text)
    proc = skyhop_cli("validate", path, timeout=60)
    assert_one_line_error(proc, "flows.download.proxies[0]", "moving network", "not modelled")
