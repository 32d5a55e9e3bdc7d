"""SARIF (validated against the published 2.1.0 schema), GitHub annotations and Markdown: content
and escaping of everything that comes from analyzed code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from promptlint.config import Config
from promptlint.model import (
    AnalysisResult,
    CallSite,
    Estimate,
    FileError,
    Finding,
    Location,
    Origin,
    ProviderLoss,
    RelatedLocation,
    Severity,
    Volatility,
)
from promptlint.reporters import render
from promptlint.reporters.github import render_github
from promptlint.reporters.markdown import render_markdown
from tests.conftest import write_tree
from tests.integration_helpers import CLOCK_BUST, CROSS_MODULE, cli

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
EVIL = "</td><script>alert(1)</script> | `tick` **bold** [link](http://x) %0A\n::error::injected"
SET_TOOLS = """
from openai import OpenAI
SPECS = {"search": {"type": "function", "function": {"name": "search"}},
         "lookup": {"type": "function", "function": {"name": "lookup"}}}
def run(messages: list):
    enabled = set(SPECS)
    tools = [SPECS[name] for name in enabled]
    return OpenAI().chat.completions.create(model="gpt-4.1", tools=tools, messages=messages)
"""


def sarif_of(root: Path, *args: str) -> dict:
    code, out, err = cli("check", ".", "--format", "sarif", *args, cwd=root)
    assert code in (0, 1), err
    return json.loads(out)


def validate(document: dict) -> None:
    jsonschema.Draft4Validator(SCHEMA).validate(document)


def test_sarif_validates_and_has_rules_locations_related_and_fixes(tmp_path: Path) -> None:
    write_tree(tmp_path, {**CROSS_MODULE, "tools.py": SET_TOOLS})
    document = sarif_of(tmp_path)
    validate(document)
    run = document["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules][:3] == ["PC001", "PC002", "PC003"]
    assert all(r["shortDescription"]["text"] and "## What it does" in r["help"]["markdown"] for r in rules)
    results = {r["ruleId"]: r for r in run["results"]}
    clock = results["PC001"]
    assert clock["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "helpdesk/sections.py"
    related = [(r["physicalLocation"]["artifactLocation"]["uri"], r["message"]["text"])
               for r in clock["relatedLocations"]]
    assert any(uri == "helpdesk/bot.py" and "reaches the `openai.chat.completions` call" in text
               for uri, text in related)
    flow = clock["codeFlows"][0]["threadFlows"][0]["locations"]
    assert flow[-1]["location"]["physicalLocation"]["artifactLocation"]["uri"] == "helpdesk/bot.py"
    assert clock["partialFingerprints"]["promptlintFingerprint/v1"]
    tools = results["PC002"]
    [fix] = tools["fixes"]
    [change] = fix["artifactChanges"]
    [replacement] = change["replacements"]
    assert change["artifactLocation"]["uri"] == "tools.py"
    assert replacement["insertedContent"]["text"] == "sorted(enabled)"
    assert replacement["deletedRegion"] == {"startLine": 6, "startColumn": 38, "endLine": 6, "endColumn": 45}
    assert "(safe)" in fix["description"]["text"]


def test_sarif_with_no_findings_and_with_errors_validates(tmp_path: Path) -> None:
    write_tree(tmp_path, {"ok.py": "x = 1\n", "broken.py": "import openai\ndef f(:\n"})
    document = sarif_of(tmp_path)
    validate(document)
    assert document["runs"][0]["results"] == []
    notes = document["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "broken.py"


def evil_result() -> AnalysisResult:
    where = Location("we|ird `dir`/a,b:c.py", 3, 5, 3, 9)
    loss = ProviderLoss("openai", "gpt-4o", 900, 1.25, 1234.5, 1000.0, "2026-10-01")
    finding = Finding("PC001", "volatile-before-stable", Severity.ERROR, where, EVIL,
                      CallSite(where, "openai.chat.completions", "openai", "gpt-4o"),
                      volatile_source=Origin(where, "datetime.datetime.now", "clock", Volatility.PER_REQUEST),
                      related=(RelatedLocation(where, EVIL),), hint=EVIL,
                      estimate=Estimate(900, "o200k_base", True, losses=(loss,)), fingerprint="abc")
    return AnalysisResult((finding,), (FileError("x|y.py", EVIL),), files_analyzed=1)


def test_sarif_of_hostile_text_is_valid_json_and_schema() -> None:
    document = json.loads(render("sarif", evil_result(), Config()))
    validate(document)
    result = document["runs"][0]["results"][0]
    assert EVIL in result["message"]["text"]
    assert result["properties"]["losses"][0]["usdPerMonth"] == 1234.5


def test_github_annotations_cannot_be_split_or_injected() -> None:
    text = render_github(evil_result(), Config())
    lines = text.splitlines()
    assert len(lines) == 3  # one finding, one error, the summary
    assert "%0A::error::injected" in lines[0]  # stays inside the message: no second command
    assert "%0A" in lines[0] and "%250A" in lines[0]
    assert "file=we|ird `dir`/a%2Cb%3Ac.py" in lines[0]
    assert lines[0].startswith("::error ")


def test_github_format_from_the_cli(tmp_path: Path) -> None:
    write_tree(tmp_path, CLOCK_BUST)
    code, out, _ = cli("check", ".", "--format", "github", cwd=tmp_path)
    assert code == 1
    assert re.match(r"::error file=app\.py,line=5,col=\d+,endLine=5,endColumn=\d+,title=promptlint PC001 "
                    r"\(volatile-before-stable\)::per-request clock", out)


def test_markdown_escapes_and_shows_money() -> None:
    text = render_markdown(evil_result(), Config())
    assert "<script>" not in text and "&lt;script&gt;" in text
    table_rows = [line for line in text.splitlines() if line.startswith("| 🔴")]
    assert len(table_rows) == 1
    assert table_rows[0].count(" | ") == 4  # every pipe from the code is escaped
    assert "Money at stake: about $1,234 per month" in text
    assert "`openai/gpt-4o` | $1,234 | 1 |" in text
    assert "**bold**" not in text and r"\*\*bold\*\*" in text


def test_markdown_from_the_cli(tmp_path: Path) -> None:
    write_tree(tmp_path, CLOCK_BUST)
    code, out, _ = cli("check", ".", "--format", "markdown", cwd=tmp_path)
    assert code == 1
    assert out.startswith("## promptlint: 1 cache-busting prompt layout\n")
    assert "| 🔴 error | `PC001` volatile-before-stable | `app.py:5` |" in out


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "markdown", "html"])
def test_every_format_renders_an_empty_result(fmt: str) -> None:
    assert render(fmt, AnalysisResult((), ()), Config())


def test_unknown_format_is_exit_2(tmp_path: Path) -> None:
    write_tree(tmp_path, "x = 1\n")
    code, _, err = cli("check", ".", "--format", "xml", cwd=tmp_path)
    assert code == 2 and "unknown format" in err
