"""The package's layering: who imports whom, and what `skyhop run` loads."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import TINY

PKG = Path(__file__).resolve().parents[1] / "python" / "skyhop"
MODULES = sorted(
    "skyhop." + ".".join(p.relative_to(PKG).with_suffix("").parts)
    for p in PKG.rglob("*.py")
    if p.name not in ("__init__.py", "__main__.py")
)
HEAVY = ("scipy", "pandas", "pyarrow", "matplotlib", "rich")


def _imports_of(path: Path, module: str) -> set[str]:
    """skyhop modules imported by a file, anywhere in it (lazy imports count)."""
    package = module.rsplit(".", 1)[0] if path.name != "__init__.py" else module
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("skyhop"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if not target.startswith("skyhop"):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in MODULES or sub == "skyhop._core" else target)
    return found


def _graph() -> dict[str, set[str]]:
    graph = {}
    for path in PKG.rglob("*.py"):
        if path.name == "__main__.py":
            continue
        parts = path.relative_to(PKG).with_suffix("").parts
        name = ".".join(("skyhop", *parts[:-1])) if path.name == "__init__.py" else None
        name = name or ".".join(("skyhop", *parts))
        # importing a package runs its __init__: the package node stands for it
        graph[name] = {m for m in _imports_of(path, name) if m != name}
    return graph


def test_no_import_cycle_among_modules():
    graph = _graph()
    # `import skyhop` (the facade) is allowed from anywhere below it only lazily
    # for convenience (experiments use skyhop.run); leave the package node out.
    graph = {m: {d for d in deps if d != "skyhop"} for m, deps in graph.items() if m != "skyhop"}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                cycle = [*stack[stack.index(d) :], d]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


def test_only_the_cli_parses_arguments_and_libraries_do_not_print():
    for path in PKG.rglob("*.py"):
        tree = ast.parse(path.read_text())
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        imported = {
            a.name.split(".")[0]
            for n in ast.walk(tree)
            if isinstance(n, (ast.Import, ast.ImportFrom))
            for a in (n.names if isinstance(n, ast.Import) else [ast.alias(n.module or "")])
        }
        in_cli = path.parent == PKG / "cli"
        if not in_cli:
            assert "argparse" not in imported, path
        # every library (sweeps, experiments, figures, tables, ...) prints
        # nothing: what reaches the terminal goes through the cli and _output
        # (the maintainers' `python -m skyhop.schema --update` and
        # `python -m skyhop.experiments.timings --update` excepted)
        if not in_cli and path.name not in (
            "_output.py",
            "_terminal.py",
            "__main__.py",
            "schema.py",
            "timings.py",
        ):
            assert "print" not in names and not attrs & {"stderr", "stdout"}, path


#: the longest a source file of the package may be
MAX_LINES = 700


def test_no_source_file_is_longer_than_700_lines():
    long = {
        str(p.relative_to(PKG)): n
        for p in PKG.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"split these files (at most {MAX_LINES} lines each): {long}"


@pytest.mark.parametrize("module", MODULES)
def test_every_module_imports_alone(module):
    proc = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr


def _modules_imported_by(*args: str) -> set[str]:
    """Modules imported by `python -X importtime -m skyhop ARGS` (full names)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "skyhop", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    names = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    assert "skyhop" in names
    return names


def _imported_by(*args: str) -> set[str]:
    """Top-level packages imported by `python -X importtime -m skyhop ARGS`."""
    return {name.split(".")[0] for name in _modules_imported_by(*args)}


def test_run_json_imports_no_heavy_library():
    loaded = _imported_by("run", str(TINY), "--runs", "3", "--json")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_run_table_needs_rich_only():
    loaded = _imported_by("run", str(TINY), "--runs", "3")
    assert "rich" in loaded
    assert not loaded & {"scipy", "pandas", "pyarrow", "matplotlib"}


#: what `skyhop run` may load of skyhop: the facade, the engine, the command
#: line and its writers, statistics and tables; of the sweep package only its
#: (standard-library) front, which `import skyhop` needs for skyhop.sweep
RUN_PATH = {
    "skyhop",
    "skyhop.__main__",
    "skyhop._core",
    "skyhop._startup",
    "skyhop._output",
    "skyhop._terminal",
    "skyhop.api",
    "skyhop.cli",
    "skyhop.cli.commands",
    "skyhop.cli.common",
    "skyhop.cli.live",
    "skyhop.cli.parser",
    "skyhop.errors",
    "skyhop.files",
    "skyhop.stats",
    "skyhop.sweep",
    "skyhop.sweep.base",
    "skyhop.tables",
}


@pytest.mark.parametrize("json_out", [True, False])
def test_run_loads_neither_the_sweep_store_nor_ray_report_or_plotting(json_out):
    args = ["run", str(TINY), "--runs", "2"] + (["--json"] if json_out else [])
    loaded = _modules_imported_by(*args)
    ours = {m for m in loaded if m == "skyhop" or m.startswith("skyhop.")}
    assert ours <= RUN_PATH, sorted(ours - RUN_PATH)
    for absent in (
        "skyhop.sweep.store",
        "skyhop.sweep.core",
        "skyhop.sweep.local",
        "skyhop.sweep.ray_backend",
        "skyhop.report",
        "skyhop.figures",
        "skyhop.experiments",
        "ray",
        "matplotlib",
        "pandas",
    ):
        assert absent not in loaded, absent


def test_importing_skyhop_loads_no_sweep_machinery():
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, skyhop; skyhop.sweep; skyhop.SweepInterrupted; "
            "print(sorted(m for m in sys.modules if m.startswith('skyhop')))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    loaded = set(ast.literal_eval(proc.stdout))
    assert loaded <= RUN_PATH, sorted(loaded - RUN_PATH)
    assert callable(__import__("skyhop").sweep)
