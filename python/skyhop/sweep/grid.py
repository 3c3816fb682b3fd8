"""The grid of a sweep: swept paths, their values, and the points they make.

A value is given to the engine as TOML text (``--set PATH=TEXT``), and shown
in the tables' column for its path with the type of the scenario key it
sets, found in the JSON Schema the engine generates (:func:`skyhop.schema.key_type`):

- boolean → ``bool``; integer → ``int``; number → ``float``;
- string (names, enumerations, quantities with units such as ``"20 ms"``)
  → ``str``;
- array or table (``flows.ftp.proxies = ["T", "S"]``) → its TOML text,
  normalised (``["T", "S"]`` whichever way it was typed);
- a key the schema does not type (or types as several things, e.g. a
  string or a number) → the value's own TOML type; mixed integers and
  floats become floats, other mixtures strings.

The same value gives the same column whether it came from the command line
(``--grid tcp.delayed_ack=true,false``) or from Python
(``{"tcp.delayed_ack": [True, False]}``).
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..api import _toml_literal
from ..errors import ScenarioError

__all__ = [
    "CASE",
    "GridSpec",
    "GridValue",
    "Point",
    "build_points",
    "column_values",
    "parse_cases",
    "parse_grid",
    "split_values",
]

GridSpec = Mapping[str, Sequence[Any]] | Sequence[str]


@dataclass(frozen=True)
class GridValue:
    """One value of a swept path: the TOML text given to the engine and the
    value shown in the tables' column for that path."""

    text: str
    column: Any


@dataclass
class Point:
    """One combination of grid values."""

    index: int
    sets: list[str]  # the grid's PATH=VALUE overrides for this point
    columns: dict[str, Any]  # path -> column value
    resolved_json: str

    @property
    def sha256(self) -> str:
        """Identity of the point's resolved scenario (carried by each of its parts)."""
        return hashlib.sha256(self.resolved_json.encode()).hexdigest()

    @property
    def flows(self) -> list[str]:
        return sorted(json.loads(self.resolved_json).get("flows", {}))


def split_values(text: str) -> list[str]:
    """Split ``V1,V2,...`` on the commas outside brackets, braces and quotes.

    >>> split_values('1,2.5, "a,b" ,[1,2]')
    ['1', '2.5', '"a,b"', '[1,2]']
    """
    values, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            values.append(text[start:i].strip())
            start = i + 1
    values.append(text[start:].strip())
    return values


def toml_value(text: str) -> Any:
    """``text`` read as the engine reads a ``--set`` value: a TOML value, or
    else (a bare word) the text itself as a string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text.strip()


_SCALARS = {"boolean": bool, "integer": int, "number": float, "string": str}


def _column_of(value: Any, kind: str | None) -> Any:
    """The column value of one parsed TOML value for a key of JSON type ``kind``."""
    if kind == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if kind in _SCALARS and type(value) is _SCALARS[kind]:
        return value
    if isinstance(value, (bool, int, float, str)):
        return value
    try:
        return _toml_literal(value)
    except ScenarioError:  # dates and times: kept as written
        return str(value)


def column_values(path: str, texts: Sequence[str], kind: str | None) -> list[Any]:
    """The column values of one swept path (one type for all of them)."""
    cols = [_column_of(toml_value(t), kind) for t in texts]
    if all(isinstance(c, bool) for c in cols):
        return cols
    if all(isinstance(c, int) and not isinstance(c, bool) for c in cols):
        return cols
    if all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in cols):
        return [float(c) for c in cols]
    if all(isinstance(c, str) for c in cols):
        return cols
    return [c if isinstance(c, str) else _toml_literal(c) for c in cols]


def parse_grid(grid: GridSpec) -> list[tuple[str, list[GridValue]]]:
    """Normalise a grid to ``[(path, [GridValue, ...]), ...]`` in the given order.

    Parameters
    ----------
    grid : dict or sequence of str
        ``{"links.wu.per": [0.001, 0.01], "flows.ftp.tcp": ["newreno", "sack"]}``
        or command-line style ``["links.wu.per=0.001,0.01", "flows.ftp.tcp=newreno,sack"]``.
    """
    texts: list[tuple[str, list[str]]] = []
    if isinstance(grid, str):
        grid = [grid]
    if not isinstance(grid, (Mapping, Sequence)):
        raise ScenarioError(
            "<options>",
            "grid",
            f"expected a dict {{path: [values]}} or a list of 'PATH=V1,V2,...', got {grid!r}",
        )
    if isinstance(grid, Mapping):
        for path, values in grid.items():
            if not isinstance(path, str):
                raise ScenarioError("<options>", "grid", f"paths must be str, got {path!r}")
            if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
                values = [values]
            texts.append((path, [_toml_literal(v) for v in values]))
    else:
        for item in grid:
            if not isinstance(item, str):
                raise ScenarioError("<options>", "grid", f"expected 'PATH=V1,V2,...', got {item!r}")
            path, sep, rest = item.partition("=")
            path = path.strip()
            if not sep or not path or not rest.strip():
                raise ScenarioError("<options>", "grid", f"{item!r}: expected PATH=V1,V2,...")
            vals = split_values(rest)
            if any(v == "" for v in vals):
                raise ScenarioError("<options>", "grid", f"{path}: empty value in {rest!r}")
            texts.append((path, vals))
    if not texts:
        raise ScenarioError(
            "<options>",
            "grid",
            "no swept path: give at least one, e.g. {'links.wu.per': [0, 0.01]}",
        )
    seen = set()
    for path, values in texts:
        if path in seen:
            raise ScenarioError("<options>", "grid", f"{path}: swept twice")
        seen.add(path)
        if not values:
            raise ScenarioError("<options>", "grid", f"{path}: no values")
    schema = _schema() if texts else None
    out: list[tuple[str, list[GridValue]]] = []
    for path, values in texts:
        from ..schema import key_type

        cols = column_values(path, values, key_type(path, schema))
        out.append((path, [GridValue(t, c) for t, c in zip(values, cols, strict=True)]))
    return out


def _schema() -> dict[str, Any]:
    from ..schema import scenario_schema

    return scenario_schema()


#: the column of a sweep's cases (``--case NAME:PATH=V,...``)
CASE = "case"

Cases = list[tuple[str, list[str]]]


def parse_cases(cases: Any) -> Cases:
    """Named cases of paired settings, ``[(name, ["PATH=VALUE", ...]), ...]``,
    from ``["NAME:PATH=V,PATH=V", ...]`` (the command line) or
    ``{name: {path: value, ...}}`` (Python). Each case is one value of the
    sweep's ``case`` column; its settings apply together, so that settings
    that belong together (a proxy and the legs it splits) are swept as one."""
    if cases is None:
        return []
    out: Cases = []
    if isinstance(cases, Mapping):
        for name, settings in cases.items():
            if not isinstance(name, str) or not isinstance(settings, Mapping) or not settings:
                raise ScenarioError(
                    "<options>",
                    "cases",
                    f"expected {{name: {{path: value, ...}}}}, got {name!r}: {settings!r}",
                )
            out.append((name, [f"{k}={_toml_literal(v)}" for k, v in settings.items()]))
    else:
        if isinstance(cases, str):
            cases = [cases]
        for item in cases:
            name, sep, rest = str(item).partition(":")
            sets = [t for t in split_values(rest)] if sep else []
            if not name.strip() or not sets or any("=" not in t or t.startswith("=") for t in sets):
                raise ScenarioError(
                    "<options>",
                    "--case",
                    f"{item!r}: expected NAME:PATH=VALUE,PATH=VALUE,... "
                    '(e.g. \'split:flows.f.proxies=["P"],flows.f.legs=["cubic","bbr"]\')',
                )
            out.append((name.strip(), [t.strip() for t in sets]))
    names = [n for n, _ in out]
    for n in names:
        if names.count(n) > 1:
            raise ScenarioError("<options>", "--case", f"case {n!r} is named twice")
    return out


def build_points(
    scenario: Any,
    base_sets: list[str],
    parsed: list[tuple[str, list[GridValue]]],
    cases: Cases | None = None,
    check: Callable[[Point, Any], None] | None = None,
) -> list[Point]:
    """Every combination of the cases and the grid's values (the last path
    varying fastest), each loaded and validated by the engine with
    everything applied (``--set``, then the case's settings, then the
    grid's): a setting whose required partner is swept is checked with its
    partner, and a bad value or path fails here, before any run, naming the
    point. The scenario file is read once. ``check(point, scenario)`` sees
    each point with the scenario its loading made (the engine's plan of
    it)."""
    import itertools

    from ..api import read_source

    read = read_source(scenario)
    paths = [p for p, _ in parsed]
    swept = set(paths)
    for name, sets in cases or []:
        for t in sets:
            if t.partition("=")[0].strip() in swept:
                raise ScenarioError(
                    "<options>",
                    "--case",
                    f"case {name!r} sets {t.partition('=')[0].strip()}, which --grid sweeps",
                )
    points: list[Point] = []
    combos = itertools.product(cases or [None], *[range(len(values)) for _, values in parsed])
    for index, (case, *choice) in enumerate(combos):
        sets = [f"{paths[k]}={parsed[k][1][i].text}" for k, i in enumerate(choice)]
        columns = {paths[k]: parsed[k][1][i].column for k, i in enumerate(choice)}
        if case is not None:
            sets = [*case[1], *sets]
            columns = {CASE: case[0], **columns}
        try:
            scn = read(base_sets + sets)
        except ScenarioError as e:
            grid_sets = sets[len(case[1]) :] if case is not None else sets
            where = ", ".join(([f"case {case[0]}"] if case is not None else []) + grid_sets)
            if not where:
                raise
            raise ScenarioError(e.file, e.key, f"{e.message} (grid point {where})") from None
        point = Point(index, sets, columns, scn.json)
        if check is not None:
            check(point, scn)
        points.append(point)
    return points
