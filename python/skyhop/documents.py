"""Documents skyhop writes and later reads back as input, checked for the
shape their readers rely on: a live record's ``replay.json`` (read by
``skyhop replay``). Each is read through :func:`skyhop.files.read_bounded`
(a regular file, at most a bound), with keys unique; a file that is not
what it should be (edited, truncated, another program's) is a
:class:`~skyhop.errors.ScenarioError` naming the file and the key inside it,
never an internal error halfway through the replay.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .errors import ScenarioError
from .files import FileRefused, read_bounded

__all__ = [
    "MAX_DOCUMENT_BYTES",
    "MAX_RESULTS_BYTES",
    "check_shape",
    "loads_strict",
    "read_json",
    "read_results_bytes",
    "read_results_json",
    "read_results_table",
    "replay_meta",
]

#: the largest JSON document read back (a scenario with its traces inline may be large)
MAX_DOCUMENT_BYTES = 1 << 30


# ---------------------------------------------------------------------------
# reading


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"the key {k!r} appears twice in one object")
        out[k] = v
    return out


def loads_strict(text: str | bytes) -> Any:
    """JSON text as Python values; an object with a key given twice is an
    error (ValueError), not the last value silently kept."""
    return json.loads(text, object_pairs_hook=_pairs)


def read_json(
    path: str | os.PathLike[str], key: str = "", *, limit: int = MAX_DOCUMENT_BYTES
) -> Any:
    """The JSON document in ``path`` (a regular file of at most ``limit``
    bytes, keys unique); ScenarioError naming the file otherwise."""
    name = os.fspath(path)
    try:
        data = read_bounded(name, limit)
    except FileRefused as e:
        raise ScenarioError(name, key, e.strerror) from None
    except OSError as e:
        raise ScenarioError(name, key, f"cannot read it: {e.strerror or e}") from None
    try:
        return loads_strict(data)
    except RecursionError:
        raise ScenarioError(name, key, "not a skyhop document: nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as e:
        raise ScenarioError(name, key, f"not valid JSON: {e}") from None


# ---------------------------------------------------------------------------
# shapes: what each reader relies on


class _Maybe:
    def __init__(self, shape: Any) -> None:
        self.shape = shape


class _List:
    def __init__(self, shape: Any, min_len: int = 0) -> None:
        self.shape, self.min_len = shape, min_len


class _Map:
    """An object of any keys, each value of ``shape``."""

    def __init__(self, shape: Any) -> None:
        self.shape = shape


class _Record:
    """An object with these keys (``optional`` may be absent; others are kept)."""

    def __init__(self, required: dict[str, Any], optional: dict[str, Any] | None = None) -> None:
        self.required, self.optional = required, optional or {}


class _Pair:
    def __init__(self, first: Any, second: Any) -> None:
        self.first, self.second = first, second


INT, NUM, STR, BOOL, ANY = "an integer", "a number", "a string", "true or false", "any value"
SCALAR = "a number, string or true/false"


def _words(shape: Any) -> str:
    if isinstance(shape, str):
        return shape
    if isinstance(shape, _Maybe):
        return f"{_words(shape.shape)} or null"
    if isinstance(shape, _List):
        return "a list"
    if isinstance(shape, _Pair):
        return "a list of two"
    return "an object"


def _shown(value: Any) -> str:
    text = json.dumps(value, allow_nan=True, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _fits(value: Any, shape: str) -> bool:
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if shape == INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if shape == NUM:
        return number
    if shape == STR:
        return isinstance(value, str)
    if shape == BOOL:
        return isinstance(value, bool)
    if shape == SCALAR:
        return number or isinstance(value, (str, bool))
    return shape == ANY


def _sub(where: str, k: Any) -> str:
    if isinstance(k, int):
        return f"{where}[{k}]"
    return f"{where}.{k}" if where else str(k)


def check_shape(value: Any, shape: Any, file: str, where: str = "") -> None:
    """Raise ScenarioError(file, where, ...) unless ``value`` has ``shape``."""

    def bad() -> ScenarioError:
        return ScenarioError(
            file,
            where or "(the whole file)",
            f"expected {_words(shape)}, got {_shown(value)} (not as skyhop writes it)",
        )

    if isinstance(shape, _Maybe):
        if value is not None:
            check_shape(value, shape.shape, file, where)
        return
    if isinstance(shape, str):
        if not _fits(value, shape):
            raise bad()
        return
    if isinstance(shape, (_List, _Pair)):
        if not isinstance(value, list):
            raise bad()
        if isinstance(shape, _Pair):
            if len(value) != 2:
                raise bad()
            check_shape(value[0], shape.first, file, _sub(where, 0))
            check_shape(value[1], shape.second, file, _sub(where, 1))
            return
        if len(value) < shape.min_len:
            raise ScenarioError(file, where, f"expected at least {shape.min_len} entries, got none")
        for i, v in enumerate(value):
            check_shape(v, shape.shape, file, _sub(where, i))
        return
    if not isinstance(value, dict):
        raise bad()
    if isinstance(shape, _Map):
        for k, v in value.items():
            check_shape(v, shape.shape, file, _sub(where, k))
        return
    for k, s in shape.required.items():
        if k not in value:
            raise ScenarioError(file, _sub(where, k), "missing (not as skyhop writes it)")
        check_shape(value[k], s, file, _sub(where, k))
    for k, s in shape.optional.items():
        if k in value:
            check_shape(value[k], s, file, _sub(where, k))


REPLAY_META = _Record(
    {
        "scenario": _Map(ANY),
        "seed": INT,
        "live_nodes": _List(STR, 1),
        "stop_ns": INT,
        "arrivals": STR,
    },
    {"links": _List(_Map(ANY))},
)


def replay_meta(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """A live record's ``replay.json``, checked: what :func:`skyhop.live.replay`
    needs, of the types and within the ranges a live run writes (the
    scenario itself is checked by the engine when it loads)."""
    path = os.fspath(Path(folder) / "replay.json")
    doc = read_json(path)
    check_shape(doc, REPLAY_META, path)
    unknown = sorted(set(doc) - set(REPLAY_META.required) - set(REPLAY_META.optional))
    if unknown:
        raise ScenarioError(path, unknown[0], "unknown key (not as skyhop live writes it)")
    if not 0 <= doc["seed"] < 2**64:
        raise ScenarioError(path, "seed", f"{doc['seed']} is not a seed (0 to 2^64 - 1)")
    if not 0 <= doc["stop_ns"] < 2**64:
        raise ScenarioError(path, "stop_ns", f"{doc['stop_ns']} is not a time in nanoseconds")
    nodes = doc["live_nodes"]
    if len(set(nodes)) != len(nodes):
        dup = next(n for n in nodes if nodes.count(n) > 1)
        raise ScenarioError(path, "live_nodes", f"names node {dup!r} twice")
    arrivals = doc["arrivals"]
    if not arrivals or os.path.basename(arrivals) != arrivals or arrivals in (".", ".."):
        raise ScenarioError(
            path,
            "arrivals",
            f"{arrivals!r} is not a file name in the record's folder (e.g. arrivals.pcapng)",
        )
    return doc


# ---------------------------------------------------------------------------
# results files read back by plot and report

#: the largest results file read (a summary, a manifest, a run document, a table)
MAX_RESULTS_BYTES = 1 << 30


def read_results_bytes(path: str | os.PathLike[str], key: str) -> bytes:
    """A results file's bytes (a regular file, at most MAX_RESULTS_BYTES);
    ScenarioError naming the file otherwise."""
    try:
        return read_bounded(path, MAX_RESULTS_BYTES)
    except FileRefused as e:
        raise ScenarioError(os.fspath(path), key, f"cannot read it ({e.strerror})") from None
    except OSError as e:
        raise ScenarioError(os.fspath(path), key, f"cannot read it ({e.strerror or e})") from None


def read_results_json(path: str | os.PathLike[str], key: str) -> Any:
    """A results file's JSON document; ScenarioError naming the file otherwise."""
    data = read_results_bytes(path, key)
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as e:
        raise ScenarioError(os.fspath(path), key, f"cannot read it ({e})") from None


def read_results_table(path: str | os.PathLike[str], key: str = "plot"):
    """A Parquet table of a sweep; ScenarioError naming a damaged one.

    The bytes are handed to Arrow as a copy Arrow owns, never as a Python
    file object (why: :func:`skyhop.tables.read_parquet`)."""
    import pandas as pd
    import pyarrow as pa

    data = read_results_bytes(path, key)
    sink = pa.BufferOutputStream()
    sink.write(data)
    try:
        return pd.read_parquet(pa.BufferReader(sink.getvalue()))
    except Exception as e:  # pyarrow's errors are many; any of them: one line
        raise ScenarioError(
            os.fspath(path), key, f"cannot read it as a Parquet table ({type(e).__name__}: {e})"
        ) from None
