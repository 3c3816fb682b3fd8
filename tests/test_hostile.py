"""Hostile and extreme input, by class, through the real command line: each
refused before it can exhaust memory, hang or reach the user as a
traceback, with one ``skyhop: error:`` line naming the culprit (exit 2).
"""

from __future__ import annotations

import os

import pytest

from conftest import TINY, assert_one_line_error, skyhop_cli

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
