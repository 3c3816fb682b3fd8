"""`skyhop schema` (JSON Schema generated from the engine's scenario types),
`skyhop validate`, and the generated keys table of docs/scenario.md."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from conftest import REPO, skyhop_cli

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not importable")

from skyhop.schema import (  # noqa: E402
    BEGIN,
    END,
    keys_markdown,
    keys_rows,
    scenario_schema,
    update_doc,
)

SCENARIO_FILES = sorted(
    {
        *REPO.glob("scenarios/*.toml"),
        *REPO.glob("python/skyhop/scenarios/*.toml"),
        *REPO.glob("benches/*.toml"),
        *REPO.glob("tests/data/*.toml"),
        *REPO.glob("validation/**/*.toml"),
    }
)


@pytest.fixture(scope="module")
def validator():
    schema = scenario_schema()
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def test_there_are_scenarios_to_check():
    assert len(SCENARIO_FILES) >= 10


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_shipped_and_test_scenario_validates(validator, path):
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]
    assert not errors, errors


def test_cli_schema_prints_the_same_schema():
    proc = skyhop_cli("schema")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == scenario_schema()


BROKEN = """
[nodes.A]
[nodes.B]
[links.ab]
between = ["A", "B"]
rate = 10
delay = "10 ms"
[flows.f]
from = "A"
to = "B"
"""


def test_a_broken_file_fails_at_the_path_of_its_error(validator, tmp_path):
    errors = list(validator.iter_errors(tomllib.loads(BROKEN)))
    assert len(errors) == 1
    assert list(errors[0].absolute_path) == ["links", "ab", "rate"]
    # a unit the parser does not know is refused by the pattern too
    doc = tomllib.loads(BROKEN.replace("rate = 10", 'rate = "10 furlongs"'))
    (err,) = validator.iter_errors(doc)
    assert list(err.absolute_path) == ["links", "ab", "rate"]
    # an unknown key, where the engine denies it
    doc = tomllib.loads(BROKEN.replace("rate = 10", 'rate = "1 Mbps"\nspeed = 3'))
    (err,) = validator.iter_errors(doc)
    assert list(err.absolute_path) == ["links", "ab"] and "speed" in err.message


@pytest.mark.parametrize(
    "text", ["1 Mbps", "1.5 Gb/s", " 64 kb/s ", "1e6 bps", "10", "1 mbit", "Mbps", "1_000 bps"]
)
def test_the_rate_pattern_agrees_with_the_engine(text, tmp_path):
    schema = scenario_schema()
    pattern = schema["definitions"]["Rate"]["pattern"]
    ok_schema = re.search(pattern, text) is not None
    f = tmp_path / "s.toml"
    f.write_text(BROKEN.replace("rate = 10", f"rate = {json.dumps(text)}"))
    ok_engine = skyhop_cli("validate", f).returncode == 0
    assert ok_schema == ok_engine, (text, ok_schema, ok_engine)


def test_validate_reports_one_line_per_bad_file_and_exits_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(BROKEN)
    good = REPO / "tests" / "data" / "tiny.toml"
    proc = skyhop_cli("validate", good, bad)
    assert proc.returncode == 2
    assert proc.stdout == f"{good}: ok\n"
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("skyhop: error: "), proc.stderr
    assert "links.ab.rate" in lines[0] and "has no unit" in lines[0]
    proc = skyhop_cli("validate", *SCENARIO_FILES[:3])
    assert proc.returncode == 0 and proc.stdout.count(": ok") == 3, proc.stderr


def test_schema_carries_units_defaults_and_descriptions():
    schema = scenario_schema()
    d = schema["definitions"]
    assert d["RunSection"]["properties"]["seed"]["default"] == 1
    assert "Default 4 MB" in d["TcpOptions"]["properties"]["rcv_buffer"]["description"]
    assert "units: s, ms, us, ns, min" in d["Duration"]["description"]
    models = [v["properties"]["model"]["enum"][0] for v in d["ChannelSpec"]["oneOf"]]
    assert {"per", "ber", "gilbert-elliott", "lms-urban", "trace"} <= set(models)
    paths = {r[0] for r in keys_rows(schema)}
    assert {"run.duration", "links.<id>.rate", "flows.<id>.options.mss"} <= paths


def test_docs_keys_table_is_the_generated_one():
    doc = REPO / "docs" / "scenario.md"
    assert update_doc(doc) == doc.read_text(encoding="utf-8"), (
        "docs/scenario.md's generated keys table is stale: run "
        "python -m skyhop.schema --update docs/scenario.md"
    )


def test_documented_keys_exist_in_the_schema():
    """Every key named in the first column of the hand-written tables of
    docs/scenario.md is a key of the schema (so they cannot name a key that is gone)."""
    text = (REPO / "docs" / "scenario.md").read_text(encoding="utf-8")
    text = text.split("<!-- BEGIN GENERATED KEYS")[0]
    leaves = {r[0].split(" ")[0].rsplit(".", 1)[-1] for r in keys_rows()}
    named, in_keys_table = set(), False
    for line in text.splitlines():
        if not line.startswith("|"):
            in_keys_table = False
            continue
        if re.match(r"\|\s*key\s*\|", line):
            in_keys_table = True
            continue
        m = re.match(r"\|\s*((?:`[a-z_]+`[,/ ]*(?:or )?)+)\|", line)
        if in_keys_table and m:
            named |= set(re.findall(r"`([a-z_]+)`", m.group(1)))
    assert len(named) > 30
    missing = sorted(k for k in named if k not in leaves)
    assert not missing, missing


def test_update_doc_returns_the_regenerated_table_and_writes_nothing(tmp_path):
    # the updater only returns text: nothing is written by update_doc
    doc = tmp_path / "x.md"
    doc.write_text("a\n<!-- BEGIN GENERATED KEYS: x -->\nold\n<!-- END GENERATED KEYS -->\nb\n")
    with pytest.raises(ValueError):
        update_doc(doc)  # the BEGIN marker must be exactly the one of this module
    assert "old" in Path(doc).read_text()
    # With the module's markers, a stale table is replaced by the generated
    # one (so the docs staleness test above compares against something), the
    # text around it kept; the file itself is still not written.
    stale = f"intro\n{BEGIN}\n| old | table |\n{END}\noutro\n"
    doc.write_text(stale)
    new = update_doc(doc)
    assert new == f"intro\n{BEGIN}\n\n{keys_markdown()}\n{END}\noutro\n"
    assert "| old | table |" not in new and "| `run.duration` |" in new
    assert doc.read_text() == stale
    # and regenerating the result changes nothing
    doc.write_text(new)
    assert update_doc(doc) == new
