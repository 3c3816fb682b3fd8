"""Live runs: the engine in wall-clock time between real hosts.

Every node named by a command (or marked ``live = true``) becomes a real
host: its own Linux network namespace with a TUN device carrying the node's
address. The commands run inside those namespaces; the packets they send
cross the scenario's links, channels, link layers, queues and proxies,
beside its simulated flows. See ``docs/live.md``.

This module is a library: it parses no command line and prints nothing.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _core
from .api import Scenario, SourceText, _with_context
from .errors import ScenarioError, SimulationError, SkyhopError

__all__ = [
    "LiveCommand",
    "RecordError",
    "live",
    "parse_command",
    "replay",
    "userns_reexec_argv",
]

#: shell words that are not programs in PATH
_SHELL_WORDS = frozenset(
    "! . : [ alias bg break builtin case cd command continue declare echo eval exec exit "
    "export false fg for function getopts hash if jobs kill let local printf pwd read "
    "readonly return set shift source test times trap true type ulimit umask unalias "
    "unset until wait while { ( ((".split()
)


@dataclass(frozen=True)
class LiveCommand:
    """A command to run on a node (``background``: the run does not wait for it)."""

    node: str
    command: str
    background: bool = False


def parse_command(text: str, key: str = "--run") -> LiveCommand:
    """``NODE:COMMAND`` as a :class:`LiveCommand` (checked for form only)."""
    node, sep, command = text.partition(":")
    if not sep or not node.strip() or not command.strip():
        raise ScenarioError(
            "<options>",
            key,
            f"expected NODE:COMMAND, e.g. G:'python3 -m http.server', got {text!r}",
        )
    return LiveCommand(node.strip(), command.strip(), background=key == "--daemon")


def check_startable(cmd: LiveCommand, key: str) -> None:
    """Refuse a command whose program cannot be found, before anything is made."""
    try:
        words = shlex.split(cmd.command)
    except ValueError as e:
        raise ScenarioError("<options>", key, f"node {cmd.node}: {cmd.command!r}: {e}") from None
    while words and "=" in words[0] and not words[0].startswith("="):
        words = words[1:]  # VAR=value prefixes
    if not words:
        return
    prog = words[0]
    if prog in _SHELL_WORDS or any(c in prog for c in "$`|;&<>("):
        return
    if "/" in prog:
        ok = os.path.isfile(prog) and os.access(prog, os.X_OK)
    else:
        ok = shutil.which(prog) is not None
    if not ok:
        raise ScenarioError(
            "<options>", key, f"node {cmd.node}: cannot start {cmd.command!r}: {prog}: not found"
        )


def load_live_scenario(
    source: str | os.PathLike[str] | SourceText,
    sets: list[str],
    commands: Sequence[LiveCommand],
) -> tuple[Scenario, list[str]]:
    """The scenario of a live run, and the overrides that made it: every
    node with a command is marked
    ``live = true`` (so a scenario of live hosts alone needs no flow). Node
    names come from the scenario as loaded, or, where it does not load for
    want of a flow, from its file's ``[nodes]``; an unknown node is an
    error naming the option and the nodes there are. The file is read once
    (a pipe too)."""
    from .api import read_source

    src = read_source(source)
    try:
        known = set(src(sets).resolved.get("nodes", {}))
    except ScenarioError as e:
        if e.key != "flows":
            raise
        known = _nodes_in_text(src)
    for c in commands:
        if c.node not in known:
            key = "--daemon" if c.background else "--run"
            raise ScenarioError(
                "<options>", key, f"unknown node {c.node!r} (nodes: {', '.join(sorted(known))})"
            )
    sets = [*sets, *(f"nodes.{c.node}.live=true" for c in commands)]
    return src(sets), sets


def _nodes_in_text(src: SourceText) -> set[str]:
    """The node names a scenario's text declares (TOML or JSON)."""
    try:
        if src.fmt == "json":
            doc = json.loads(src.text)
        else:
            import tomllib

            doc = tomllib.loads(src.text)
    except ValueError:
        return set()  # the engine has said what is wrong with it
    nodes = doc.get("nodes") if isinstance(doc, dict) else None
    return set(nodes) if isinstance(nodes, dict) else set()


def live_nodes_of(scenario: Scenario) -> list[str]:
    """Nodes the scenario marks ``live = true``."""
    return [n for n, sec in scenario.resolved.get("nodes", {}).items() if (sec or {}).get("live")]


def live(
    scenario: Scenario,
    commands: Sequence[LiveCommand],
    *,
    seed: int,
    duration_s: float | None = None,
    grace_s: float = 2.0,
    lateness_warn_s: float = 1e-3,
    lateness_abort_s: float | None = None,
    realtime: bool = True,
    wake_window_s: float = 0.0,
    record: str | os.PathLike[str] | None = None,
    trace: bool = False,
    pcap_dir: str | os.PathLike[str] | None = None,
    pcap_links: list[str] | None = None,
    stdout_to_stderr: bool = False,
) -> dict[str, Any]:
    """Run ``scenario`` live with ``seed``; returns ``{"result", "live", "pcap_files"?}``.

    ``record``: a folder that receives ``arrivals.pcapng`` (every packet from
    the hosts, with the simulated time it entered the network) and
    ``replay.json`` (what :func:`replay` needs).
    """
    nodes = list(scenario.resolved.get("nodes", {}))
    for c in commands:
        key = "--daemon" if c.background else "--run"
        if c.node not in nodes:
            raise ScenarioError(
                "<options>", key, f"unknown node {c.node!r} (nodes: {', '.join(nodes)})"
            )
        check_startable(c, key)
    record_dir = Path(record) if record is not None else None
    if record_dir is not None:
        from ._output import check_writable_dir

        check_writable_dir(record_dir, "--record")  # before any host is made
    args = {
        "commands": [
            {"node": c.node, "command": c.command, "background": c.background} for c in commands
        ],
        "live_nodes": live_nodes_of(scenario),
        "duration_s": duration_s,
        "grace_s": grace_s,
        "lateness_warn_s": lateness_warn_s,
        "lateness_abort_s": lateness_abort_s,
        "realtime": realtime,
        "wake_window_s": wake_window_s,
        "record": str(record_dir / "arrivals.pcapng") if record_dir else None,
        "trace": trace,
        "pcap_dir": os.fspath(pcap_dir) if pcap_dir is not None else None,
        "pcap_links": pcap_links,
        "stdout_to_stderr": stdout_to_stderr,
    }
    _core.reset_cancel()
    try:
        doc = json.loads(_core.live(scenario.loaded, seed, json.dumps(args)))
    except SimulationError as e:
        raise _with_context(e, scenario, seed) from None
    if record_dir is not None and not doc["live"].get("record_error"):
        meta = {
            "scenario": scenario.resolved,
            "seed": seed,
            "live_nodes": [h["node"] for h in doc["live"]["hosts"]],
            "stop_ns": doc["live"]["stop_ns"],
            "arrivals": "arrivals.pcapng",
            "links": doc["result"].get("links", []),
        }
        from ._output import write_text_atomic

        path = record_dir / "replay.json"
        try:
            write_text_atomic(path, json.dumps(meta, indent=1) + "\n")
        except OSError as e:
            doc["live"]["record_error"] = f"{path}: cannot write: {e.strerror or e}"
    return doc


class RecordError(SkyhopError):
    """A live run's record could not be written whole (its results are
    complete; the record cannot be replayed)."""


def replay(
    record: str | os.PathLike[str],
    *,
    trace: bool = False,
    pcap_dir: str | os.PathLike[str] | None = None,
) -> tuple[Scenario, dict[str, Any]]:
    """Replay a live run's record folder as a deterministic simulation;
    returns the scenario and the run result (same schema as a run's)."""
    from .documents import replay_meta

    folder = Path(record)
    meta_path = folder / "replay.json"
    if not folder.is_dir():
        raise ScenarioError(str(folder), "", "no such folder (the folder given to --record)")
    if not meta_path.exists():
        raise ScenarioError(
            str(folder),
            "",
            "not a live run's record (no replay.json; use skyhop live --record DIR)",
        )
    meta = replay_meta(folder)
    text = json.dumps(meta["scenario"])
    try:
        resolved = _core.load_scenario(text, str(meta_path), [], "json")
    except ScenarioError as e:
        key = f"scenario.{e.key}" if e.key else "scenario"
        raise ScenarioError(str(meta_path), key, e.message) from None
    scn = Scenario(str(meta_path), resolved)
    nodes = scn.resolved.get("nodes", {})
    for i, n in enumerate(meta["live_nodes"]):
        if n not in nodes:
            raise ScenarioError(
                str(meta_path), f"live_nodes[{i}]", f"{n!r} is not a node of its scenario"
            )
    _core.reset_cancel()
    try:
        text = _core.replay(
            scn.loaded,
            meta["seed"],
            str(folder / meta["arrivals"]),
            meta["live_nodes"],
            meta["stop_ns"],
            trace,
            os.fspath(pcap_dir) if pcap_dir is not None else None,
        )
    except SimulationError as e:
        raise _with_context(e, scn, meta["seed"]) from None
    return scn, json.loads(text)


def userns_reexec_argv(argv: list[str]) -> list[str] | None:
    """The command line that re-runs ``skyhop`` as root of a new user
    namespace (where unprivileged user namespaces are allowed and util-linux
    ``unshare`` is installed); ``None`` if that is not possible."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    try:
        if int(Path("/proc/sys/user/max_user_namespaces").read_text()) == 0:
            return None
    except (OSError, ValueError):
        return None
    clone = Path("/proc/sys/kernel/unprivileged_userns_clone")
    try:
        if clone.exists() and clone.read_text().strip() == "0":
            return None
    except OSError:
        return None
    import sys

    return [unshare, "--user", "--map-root-user", sys.executable, "-m", "skyhop", *argv]
