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
    TCP_BEGIN,
    TCP_END,
    keys_markdown,
    keys_rows,
    scenario_schema,
    tcp_markdown,
    update_doc,
)

SCENARIO_FILES = sorted(
    p
    for p in {
        *REPO.glob("scenarios/*.toml"),
        *REPO.glob("python/skyhop/scenarios/*.toml"),
        *REPO.glob("benches/*.toml"),
        *REPO.glob("tests/data/*.toml"),
        *REPO.glob("validation/**/*.toml"),
    }
    # validation/quic is a Rust tool crate: its manifest is no scenario
    if p.name != "Cargo.toml" and "target" not in p.relative_to(REPO).parts
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


@pytest.mark.parametrize("table", ["", "forward"])
def test_a_link_table_with_two_loss_models_fails_where_the_engine_refuses_it(validator, table):
    ok = tomllib.loads(BROKEN.replace("rate = 10", 'rate = "1 Mbps"'))
    path = ["links", "ab"] + ([table] if table else [])
    channel = {"model": "per", "p": 0.01}
    for one in ({"per": 0.01}, {"ber": 1e-6}, {"channel": channel}):
        assert not list(validator.iter_errors(_with(ok, path, one)))
    for two in ({"per": 0.01, "ber": 1e-6}, {"ber": 1e-6, "channel": channel}):
        errors = list(validator.iter_errors(_with(ok, path, two)))
        assert errors and all(list(e.absolute_path) == path for e in errors), errors
    models = scenario_schema()["definitions"]["LinkSection"]["x-skyhop-loss-models"]
    assert sorted(models) == ["ber", "channel", "per"]


def _with(doc: dict, path: list[str], keys: dict) -> dict:
    """``doc`` with ``keys`` added to the table at ``path`` (a deep copy)."""
    out = json.loads(json.dumps(doc))
    node = out
    for p in path:
        node = node.setdefault(p, {})
    node.update(keys)
    return out


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
    stale = (
        f"intro\n{BEGIN}\n| old | table |\n{END}\n{TCP_BEGIN}\n| old | tcp |\n{TCP_END}\noutro\n"
    )
    doc.write_text(stale)
    new = update_doc(doc)
    assert new == (
        f"intro\n{BEGIN}\n\n{keys_markdown()}\n{END}\n"
        f"{TCP_BEGIN}\n\n{tcp_markdown()}\n{TCP_END}\noutro\n"
    )
    assert (
        "| old | table |" not in new and "| old | tcp |" not in new and "| `run.duration` |" in new
    )
    assert doc.read_text() == stale
    # and regenerating the result changes nothing
    doc.write_text(new)
    assert update_doc(doc) == new


def _tables_of(text: str, begin: str, end: str) -> list[list[str]]:
    """The body rows of the Markdown table between two markers, as cells."""
    body = text[text.index(begin) + len(begin) : text.index(end)]
    rows = [line for line in body.splitlines() if line.startswith("|")][2:]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows]


def test_docs_tcp_table_has_every_key_and_each_profiles_default():
    """The `[tcp]` table of docs/scenario.md lists exactly the engine's TCP
    keys (the table of tcp/params.rs), with each profile's default as the
    engine resolves it."""
    schema = scenario_schema()
    props = schema["definitions"]["TcpOptions"]["properties"]
    text = (REPO / "docs" / "scenario.md").read_text(encoding="utf-8")
    rows = _tables_of(text, TCP_BEGIN, TCP_END)
    header = text[text.index(TCP_BEGIN) :].splitlines()[2]
    profiles = [c.strip().strip("`") for c in header.split("|")[3:-3]]
    assert profiles == ["linux", "ns2", "studies"]
    documented = {r[0].strip("`"): r for r in rows}
    assert set(documented) == set(props), set(documented) ^ set(props)
    for key, prop in props.items():
        for i, profile in enumerate(profiles):
            assert documented[key][2 + i] == prop["x-skyhop-defaults"][profile], (key, profile)
        assert documented[key][2 + len(profiles)] == prop.get("x-skyhop-range", ""), key
    # the defaults the engine runs with, as the docs say them
    # (linux, ns2, studies)
    assert documented["rto_min"][2:5] == ["200 ms", "1 s", "1 s"]
    assert documented["initial_window"][2:5] == ["10", "2", "1"]
    assert documented["delayed_ack"][2:5] == ["true", "false", "false"]
    assert documented["rto_initial"][2:5] == ["1 s", "6 s", "1 s"]


def test_generated_types_name_only_forms_the_loader_reads():
    """No key is typed with a placeholder, and a `{ model = ... }` table is
    documented only where the schema's alternatives are tables with a
    `model` (a choice of words is typed as its words)."""
    schema = scenario_schema()
    rows = keys_rows(schema)
    for path, typ, _default, _desc in rows:
        assert "?" not in path and "?" not in typ, (path, typ)
        if " {model = " in path:
            base, model = path.split(" {model = ")
            typed = dict((p, t) for p, t, _, _ in rows)[base]
            assert typed == "table `{ model = ... }`", (path, typed)
            assert model.startswith('"') and model.endswith('"}'), path
    typed = {p: t for p, t, _, _ in rows}
    assert typed["routing.policy"] == '`"shortest-delay"` | `"epochs"`'
    assert typed["constellation.ground_rule"] == '`"elevation"` | `"range"`'
    assert typed["constellation.altitude"] == "length (string with unit)"
    assert typed["constellation.phasing"] == 'integer ≥ 0 or `"half-offset"`'
    assert '"cubic"' in typed["flows.<id>.tcp"] and '"bbr"' in typed["flows.<id>.legs"]
    assert typed["links.<id>.channel"] == "table `{ model = ... }`"


def test_documented_word_choices_load_as_words(tmp_path):
    """`routing.policy` is a word, as documented: the loader reads
    `policy = "epochs"` and refuses a `{ model = ... }` table there."""
    base = (REPO / "scenarios" / "leo_rome_geometric.toml").read_text(encoding="utf-8")
    assert "[routing]" in base
    f = tmp_path / "s.toml"
    f.write_text(base)
    assert skyhop_cli("validate", f, "--set", "routing.policy=epochs").returncode == 0
    proc = skyhop_cli("validate", f, "--set", 'routing.policy={model="epochs"}')
    assert proc.returncode == 2 and "routing.policy" in proc.stderr, proc.stderr


QUANTITY = re.compile(r"(\d[\d.]*)\s*(TB|Tbps|[kKMG]i?B|B|[kMG]?bps|ns|µs|us|ms|s|min)\b")


def test_documented_ranges_use_units_the_parser_reads():
    """Every quantity in the valid-ranges table and the `[tcp]` table's
    range column is written in a unit the engine parses (no "1 TB")."""
    schema = scenario_schema()
    patterns = [
        re.compile(schema["definitions"][name]["pattern"]) for name in ("Size", "Rate", "Duration")
    ]
    text = (REPO / "docs" / "scenario.md").read_text(encoding="utf-8")
    ranges = text[text.index("## Valid ranges") : text.index("**Memory.**")]
    cells = [r[4] for r in _tables_of(text, TCP_BEGIN, TCP_END)]
    cells += [line.split("|")[-2] for line in ranges.splitlines() if line.startswith("| `")]
    found = 0
    for cell in cells:
        for number, unit in QUANTITY.findall(cell.replace("10⁷", "10000000")):
            found += 1
            quantity = f"{number} {unit}"
            assert any(p.search(quantity) for p in patterns), (quantity, cell)
    assert found > 20


def test_section_references_in_scenarios_name_a_section_of_the_docs():
    """Comments citing `docs/scenario.md, "Section"` name a heading there."""
    headings = [
        line.lstrip("#").strip()
        for line in (REPO / "docs" / "scenario.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    ]
    cited = 0
    for path in [*REPO.glob("scenarios/*.toml"), *REPO.glob("python/skyhop/scenarios/*.toml")]:
        for name in re.findall(r'scenario\.md, "([^"]+)"', path.read_text(encoding="utf-8")):
            cited += 1
            assert any(h.startswith(name) for h in headings), (path.name, name)
    assert cited >= 6
