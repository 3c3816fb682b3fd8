"""Result tables: every list of records in a run result is a table.

A run result (``runs[i]`` of ``skyhop run --json``) holds, per flow, scalars
(the metrics: ``goodput_bps``, ``completion_time_s``, ...) and lists. The rule
that every consumer of results follows, with no knowledge of applications:

- every value of a flow's result that is a list of records (JSON objects) is
  a table named by its key: ``legs`` (one record per TCP connection leg) for
  every flow, and whatever the flow's application reports (a web session's
  ``objects`` and ``pages``; another application's tables under their own
  names);
- every top-level value of a run result that is a list of records is a
  table too: ``links`` (one record per link direction) and ``proxies`` (one
  record per split proxy: ``max_occupancy_bytes``, ``mean_occupancy_bytes``,
  ``cache_bytes``, ...);
- an empty list adds no rows, and a table without a single record in any run
  is not there (an empty list cannot say what it would have held).

As rows, a record of a flow's table gets in front of its own fields: the
head (``seed``; in a sweep ``point``, the swept columns and ``seed``), ``flow``
and its index within its list under the table's name in the singular
(``legs`` → ``leg``, ``objects`` → ``object``, ``pages`` → ``page``,
``proxies`` → ``proxy``; ``<singular>_index`` when the singular would
clash with a field of the records or a column of the head, as for ``links``
→ ``link_index``, whose records name their ``link``; ``<name>_index`` when
the name does not end in ``s``). A record of a top-level table gets the head
and its index.

Only the standard library is imported here; pandas only by :func:`frame`
and :func:`read_parquet` (with pyarrow).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

__all__ = [
    "TableBlock",
    "assemble",
    "blocks_of",
    "flow_tables",
    "frame",
    "index_column",
    "is_table",
    "read_parquet",
]

#: one list of records of one run: ``{"table": NAME, "flow": FLOW or None, "records": [...]}``
TableBlock = dict


def is_table(value: object) -> bool:
    """A list whose items are all records (JSON objects)."""
    return isinstance(value, list) and all(isinstance(x, dict) for x in value)


def flow_tables(flow: Mapping[str, object]) -> dict[str, list[dict]]:
    """The tables of one flow's result (its lists of records), in their order."""
    return {k: v for k, v in flow.items() if is_table(v)}  # type: ignore[misc]


def blocks_of(result: Mapping[str, object]) -> list[TableBlock]:
    """Every non-empty table of one run result as blocks, flows first (in the
    result's order, each flow's tables in its order), then the top-level ones."""
    blocks: list[TableBlock] = []
    flows = result.get("flows") or {}
    for name, flow in flows.items():  # type: ignore[union-attr]
        for table, records in flow_tables(flow).items():
            if records:
                blocks.append({"table": table, "flow": name, "records": records})
    for key, value in result.items():
        if key != "flows" and value and is_table(value):
            blocks.append({"table": key, "flow": None, "records": value})
    return blocks


def index_column(table: str, taken: Iterable[str] = ()) -> str:
    """The column holding a record's index within its list (see the module doc).

    >>> index_column("legs"), index_column("proxies"), index_column("links", ["link"])
    ('leg', 'proxy', 'link_index')
    """
    taken = set(taken)
    if table.endswith("ies") and len(table) > 3:
        singular = table[:-3] + "y"
    elif table.endswith("s") and not table.endswith("ss") and len(table) > 1:
        singular = table[:-1]
    else:
        singular = ""
    if singular and singular not in taken:
        return singular
    name = f"{singular or table}_index"
    while name in taken:
        name = "_" + name
    return name


def assemble(
    blocks: Iterable[tuple[Mapping[str, object], TableBlock]],
) -> dict[str, list[dict]]:
    """Rows of every table from ``(head, block)`` pairs, in the order given.

    Each row is the head, ``flow`` (for a flow's table), the record's index
    (:func:`index_column`, chosen once per table over all its records) and
    the record's fields.
    """
    gathered: dict[str, list[tuple[Mapping[str, object], TableBlock]]] = {}
    for head, block in blocks:
        gathered.setdefault(block["table"], []).append((head, block))
    out: dict[str, list[dict]] = {}
    for table, pairs in gathered.items():
        taken: set[str] = set()
        for head, block in pairs:
            taken.update(head)
            if block.get("flow") is not None:
                taken.add("flow")
            for record in block["records"]:
                taken.update(record)
        index = index_column(table, taken)
        rows: list[dict] = []
        for head, block in pairs:
            flow = block.get("flow")
            lead = dict(head) if flow is None else {**head, "flow": flow}
            for i, record in enumerate(block["records"]):
                rows.append({**lead, index: i, **record})
        out[table] = rows
    return out


def frame(rows: list[dict]):
    """Rows as a DataFrame; columns holding only numbers and nulls are
    numeric (float64 where a null or a fraction is among them)."""
    import pandas as pd

    df = pd.DataFrame.from_records(rows)
    return numeric_nulls(df)


def numeric_nulls(df):
    """Object columns of numbers and nulls only (e.g. the completion time of
    a transfer that may not finish, a response time of an incomplete object)
    become float64 columns with NaN."""
    for col in df.columns:
        if df[col].dtype == object and all(
            v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in df[col]
        ):
            df[col] = df[col].astype("float64")
    return df


def read_parquet(path: str | os.PathLike[str]):
    """A Parquet file skyhop wrote, as a DataFrame (``pandas.read_parquet``'s).

    The file is handed to Arrow opened by Arrow (``pyarrow.OSFile``), never
    as a Python file object, which pandas before 3.0 makes of a local path:
    Arrow may drop its last reference to the file on one of its own threads
    after the read returns, and a Python object released there while the
    interpreter exits aborts the process ("terminate called without an
    active exception") in place of the command's exit status."""
    import pandas as pd
    import pyarrow as pa

    with pa.OSFile(os.fspath(path)) as f:
        return pd.read_parquet(f)
