"""SARIF results written out whole for hand-built findings: level, message, region, related
locations, code flow, fingerprint, properties, fixes and the run's invocation, as a code-scanning
viewer reads them (the schema check in test_integrations_formats.py only proves the shape)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from promptlint import __version__
from promptlint.checks import RULES
from promptlint.config import Config
from promptlint.model import (
    INTERNAL_ERROR,
    AnalysisResult,
    CallSite,
    Edit,
    Estimate,
    FileError,
    Finding,
    Fix,
    Location,
    Origin,
    ProviderLoss,
    RelatedLocation,
    Severity,
    Volatility,
)
from promptlint.reporters.sarif import render_sarif
from promptlint.rule_docs import DOCS_URL_ENV

SOURCE = 'import time\nstamp = time.time()\nprompt = f"{stamp} rules"\nclient.create(prompt)\n'
LOSS = ProviderLoss("openai", "gpt-4o", 900, 1.2345678, 1234.56789, 5000.0, "2026-10-01")


def physical(path: str, region: dict[str, int]) -> dict[str, Any]:
    return {"artifactLocation": {"uri": path, "uriBaseId": "%SRCROOT%"}, "region": region}


def sarif(result: AnalysisResult, new: set[int] | None = None) -> dict[str, Any]:
    return json.loads(render_sarif(result, Config(), new))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.py").write_text(SOURCE, encoding="utf-8")
    return tmp_path


def bust(severity: Severity = Severity.ERROR, fix: Fix | None = None, estimate: Estimate | None = None,
         hint: str = "put the clock last") -> Finding:
    where = Location("app.py", 3, 13, 3, 18)
    call = CallSite(Location("app.py", 4, 1, 4, 22), "openai.chat.completions", "openai", "gpt-4o", "ask")
    born = Location("app.py", 2, 9, 2, 20)
    return Finding("PC001", "volatile-before-stable", severity, where, "clock `stamp` first", call,
                   Origin(born, "time.time", "clock", Volatility.PER_REQUEST),
                   (RelatedLocation(born, "`time.time` is called here"),
                    RelatedLocation(Location("app.py", 3, 1, 3, 7), "assigned to `prompt`"),
                    RelatedLocation(call.location, "reaches the `openai.chat.completions` call here")),
                   fix=fix, hint=hint, estimate=estimate, fingerprint="f1")


def test_a_result_whole(project: Path) -> None:
    fix = Fix("move the clock after the rules", safe=False, edits=(Edit("app.py", 44, 53, "{x}"),))
    finding = bust(fix=fix, estimate=Estimate(900, "o200k_base", False, losses=(LOSS,)))
    document = sarif(AnalysisResult((finding,), (), files_analyzed=1))
    run = document["runs"][0]
    assert document["version"] == "2.1.0" and run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": project.resolve().as_uri() + "/"}}
    here = physical("app.py", {"startLine": 3, "startColumn": 13, "endLine": 3, "endColumn": 18})
    born = physical("app.py", {"startLine": 2, "startColumn": 9, "endLine": 2, "endColumn": 20})
    step = physical("app.py", {"startLine": 3, "startColumn": 1, "endLine": 3, "endColumn": 7})
    call = physical("app.py", {"startLine": 4, "startColumn": 1, "endLine": 4, "endColumn": 22})
    assert run["results"] == [{
        "ruleId": "PC001",
        "ruleIndex": [rule.code for rule in RULES].index("PC001"),
        "level": "error",
        "message": {"text": "clock `stamp` first Fix: put the clock last."},
        "locations": [{"physicalLocation": here}],
        "partialFingerprints": {"promptlintFingerprint/v1": "f1"},
        "properties": {
            "name": "volatile-before-stable", "severity": "error",
            "callSite": {"api": "openai.chat.completions", "provider": "openai", "model": "gpt-4o"},
            "lostTokensPerCall": 900, "tokenizer": "o200k_base", "estimateExact": False,
            "losses": [{"provider": "openai", "model": "gpt-4o", "usdPerMonth": 1234.5679, "usdPer1kCalls": 1.234568,
                        "callsPerDay": 5000.0, "priceAsOf": "2026-10-01"}],
            "fixSafety": "unsafe",
        },
        "relatedLocations": [
            {"id": 1, "physicalLocation": born, "message": {"text": "volatile value born here: `time.time` (clock)"}},
            {"id": 2, "physicalLocation": born, "message": {"text": "`time.time` is called here"}},
            {"id": 3, "physicalLocation": step, "message": {"text": "assigned to `prompt`"}},
            {"id": 4, "physicalLocation": call,
             "message": {"text": "reaches the `openai.chat.completions` call here"}},
        ],
        "codeFlows": [{"threadFlows": [{"locations": [
            {"location": {"physicalLocation": born, "message": {"text": "`time.time`"}}},
            {"location": {"physicalLocation": step, "message": {"text": "assigned to `prompt`"}}},
            {"location": {"physicalLocation": call,
                          "message": {"text": "reaches the `openai.chat.completions` call here"}}},
        ]}]}],
        "fixes": [{"description": {"text": "move the clock after the rules (unsafe: changes what the model reads)"},
                   "artifactChanges": [{"artifactLocation": {"uri": "app.py", "uriBaseId": "%SRCROOT%"},
                                        "replacements": [{"deletedRegion": {"startLine": 3, "startColumn": 13,
                                                                            "endLine": 3, "endColumn": 22},
                                                          "insertedContent": {"text": "{x}"}}]}]}],
    }]
    assert run["invocations"] == [{"executionSuccessful": True}]


def test_a_bare_result_gets_the_call_as_its_only_related_place(project: Path) -> None:
    where = Location("app.py", 2, 1, 2, 1)
    call = CallSite(Location("app.py", 4, 1, 4, 22), "openai.chat.completions", "openai")
    finding = Finding("PC003", "unordered-prompt-content", Severity.INFO, where, "m", call, hint="")
    entry = sarif(AnalysisResult((finding,), ()))["runs"][0]["results"][0]
    call_place = physical("app.py", {"startLine": 4, "startColumn": 1, "endLine": 4, "endColumn": 22})
    assert entry["level"] == "note" and entry["message"] == {"text": "m"}
    assert entry["locations"] == [{"physicalLocation": physical("app.py", {"startLine": 2, "startColumn": 1})}]
    assert entry["partialFingerprints"] == {"promptlintFingerprint/v1": "none"}
    assert entry["properties"] == {"name": "unordered-prompt-content", "severity": "info",
                                   "callSite": {"api": "openai.chat.completions", "provider": "openai", "model": None}}
    assert entry["relatedLocations"] == [{"id": 1, "physicalLocation": call_place,
                                          "message": {"text": "reaches the `openai.chat.completions` call here"}}]
    assert entry["codeFlows"] == [{"threadFlows": [{"locations": [
        {"location": {"physicalLocation": call_place, "message": {"text": "`openai.chat.completions` call"}}}]}]}]
    assert "fixes" not in entry


def test_the_call_is_added_to_related_places_unless_one_already_reaches_a_call(project: Path) -> None:
    where = Location("app.py", 2, 1, 2, 5)
    call = CallSite(Location("app.py", 4, 1, 4, 22), "system message (x)", "any")
    step = RelatedLocation(Location("app.py", 3, 1, 3, 7), "assigned to `prompt`")
    other = RelatedLocation(Location("lib.py", 9, 1, 9, 30), "reaches the `openai.chat.completions` call here")
    messages = []
    for related in ((step,), (step, other)):
        finding = Finding("PC001", "volatile-before-stable", Severity.ERROR, where, "m", call, related=related)
        entry = sarif(AnalysisResult((finding,), ()))["runs"][0]["results"][0]
        messages.append([place["message"]["text"] for place in entry["relatedLocations"]])
    assert messages == [["assigned to `prompt`", "reaches the `system message (x)` call here"],
                        ["assigned to `prompt`", "reaches the `openai.chat.completions` call here"]]


def test_a_note_is_a_related_place_but_no_step_of_the_code_flow(project: Path) -> None:
    """`also reaches the ... call here` is a note on the finding (another call of a provider
    switch): listed with the related places, left out of the value's thread flow, and it does not
    stand for the call the finding reaches."""
    where = Location("app.py", 2, 1, 2, 5)
    call = CallSite(Location("app.py", 4, 1, 4, 22), "openai.chat.completions", "openai")
    note = RelatedLocation(Location("lib.py", 9, 1, 9, 30), "also reaches the `litellm.completion` call here",
                           note=True)
    finding = Finding("PC001", "volatile-before-stable", Severity.ERROR, where, "m", call, related=(note,))
    entry = sarif(AnalysisResult((finding,), ()))["runs"][0]["results"][0]
    assert [place["message"]["text"] for place in entry["relatedLocations"]] == \
        ["also reaches the `litellm.completion` call here", "reaches the `openai.chat.completions` call here"]
    assert [step["location"]["message"]["text"] for step in entry["codeFlows"][0]["threadFlows"][0]["locations"]] \
        == ["`openai.chat.completions` call"]


def test_the_document_is_indented_by_two_and_keeps_unicode(project: Path) -> None:
    finding = Finding("PC001", "volatile-before-stable", Severity.ERROR, Location("app.py", 1, 1, 1, 2),
                      "clock — before the rules", CallSite(Location("app.py", 1, 1, 1, 2), "", ""))
    text = render_sarif(AnalysisResult((finding,), ()), Config())
    assert text.splitlines()[1].startswith('  "$schema": ') and text.endswith("}\n")
    assert "clock — before the rules" in text


def test_help_uri_from_the_documentation_address(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DOCS_URL_ENV, "https://docs.example/rules/")
    rules = sarif(AnalysisResult((), ()))["runs"][0]["tool"]["driver"]["rules"]
    assert [rule["helpUri"] for rule in rules] == [f"https://docs.example/rules/{rule.code}.md" for rule in RULES]
    monkeypatch.delenv(DOCS_URL_ENV)
    assert not any("helpUri" in rule for rule in sarif(AnalysisResult((), ()))["runs"][0]["tool"]["driver"]["rules"])


def test_a_finding_that_reaches_no_call_has_no_related_places(project: Path) -> None:
    finding = Finding("PC900", "ignore-without-code", Severity.WARNING, Location("app.py", 1, 1, 1, 5), "m",
                      CallSite(Location("app.py", 1, 1, 1, 5), "", ""))
    entry = sarif(AnalysisResult((finding,), ()))["runs"][0]["results"][0]
    assert entry["level"] == "warning"
    assert "relatedLocations" not in entry and "codeFlows" not in entry


@pytest.mark.parametrize(("location", "region"), [
    (Location("a.py", 3, 5, 3, 9), {"startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 9}),
    (Location("a.py", 3, 5, 4, 2), {"startLine": 3, "startColumn": 5, "endLine": 4, "endColumn": 2}),
    (Location("a.py", 3, 5, 3, 5), {"startLine": 3, "startColumn": 5}),
    (Location("a.py", 3, 0, 3, 0), {"startLine": 3, "startColumn": 1}),  # a column 0 (a file-level finding)
    (Location("a.py", 3, 0, 3, 4), {"startLine": 3, "startColumn": 1, "endLine": 3, "endColumn": 4}),
    (Location("a.py", 3, 5, 4, 1), {"startLine": 3, "startColumn": 5, "endLine": 4, "endColumn": 1}),
])
def test_regions(project: Path, location: Location, region: dict[str, int]) -> None:
    finding = Finding("PC001", "volatile-before-stable", Severity.ERROR, location, "m",
                      CallSite(location, "", ""))
    entry = sarif(AnalysisResult((finding,), ()))["runs"][0]["results"][0]
    assert entry["locations"][0]["physicalLocation"]["region"] == region


def test_a_notebook_cell_and_a_windows_path(project: Path) -> None:
    where = Location("nb.ipynb", 2, 1, 2, 4, cell=3)
    finding = Finding("PC001", "volatile-before-stable", Severity.ERROR, where, "m", CallSite(where, "", ""))
    physical_location = sarif(AnalysisResult((finding,), ()))["runs"][0]["results"][0]["locations"][0]
    assert physical_location["physicalLocation"]["properties"] == {"cell": 3}


def test_fixes_are_left_out_when_the_file_changed_or_nothing_is_edited(project: Path) -> None:
    beyond = Fix("x", safe=True, edits=(Edit("app.py", 10, 10_000, ""),))
    missing = Fix("x", safe=True, edits=(Edit("gone.py", 0, 1, ""),))
    described = Fix("x", safe=True)
    for fix in (beyond, missing, described):
        entry = sarif(AnalysisResult((bust(fix=fix),), ()))["runs"][0]["results"][0]
        assert "fixes" not in entry
        assert entry["properties"]["fixSafety"] == "safe"
    two_files = Fix("sort", safe=True, edits=(Edit("app.py", 0, 6, "from"), Edit("lib.py", 0, 1, "y")))
    (project / "lib.py").write_text("x\n", encoding="utf-8")
    fixes = sarif(AnalysisResult((bust(fix=two_files),), ()))["runs"][0]["results"][0]["fixes"]
    assert fixes[0]["description"] == {"text": "sort (safe)"}
    assert [change["artifactLocation"]["uri"] for change in fixes[0]["artifactChanges"]] == ["app.py", "lib.py"]


def test_baseline_state_under_diff(project: Path) -> None:
    old, fresh = bust(), bust(Severity.WARNING)
    results = sarif(AnalysisResult((old, fresh), ()), new={id(fresh)})["runs"][0]["results"]
    assert [r["baselineState"] for r in results] == ["unchanged", "new"]
    assert "baselineState" not in sarif(AnalysisResult((old,), ()))["runs"][0]["results"][0]


def test_invocation_notifications(project: Path) -> None:
    errors = (FileError("bad.py", "invalid syntax"), FileError("x.py", "KeyError", INTERNAL_ERROR))
    invocation = sarif(AnalysisResult((), errors))["runs"][0]["invocations"][0]
    assert invocation == {"executionSuccessful": False, "toolExecutionNotifications": [
        {"level": "warning", "message": {"text": "invalid syntax"},
         "locations": [{"physicalLocation": {"artifactLocation": {"uri": "bad.py", "uriBaseId": "%SRCROOT%"}}}]},
        {"level": "error", "message": {"text": "KeyError"},
         "locations": [{"physicalLocation": {"artifactLocation": {"uri": "x.py", "uriBaseId": "%SRCROOT%"}}}]}]}
    assert sarif(AnalysisResult((), errors[:1]))["runs"][0]["invocations"][0]["executionSuccessful"] is True


def test_driver_and_rule_metadata(project: Path) -> None:
    driver = sarif(AnalysisResult((), ()))["runs"][0]["tool"]["driver"]
    assert (driver["name"], driver["version"], driver["semanticVersion"]) == ("promptlint", __version__, __version__)
    assert driver["informationUri"] == "https://pypi.org/project/promptlint/"
    assert [rule["id"] for rule in driver["rules"]] == [rule.code for rule in RULES]
    by_id = {rule["id"]: rule for rule in driver["rules"]}
    pc001 = by_id["PC001"]
    assert pc001["name"] == "VolatileBeforeStable"
    assert pc001["defaultConfiguration"] == {"level": "error"}
    assert by_id["PC900"]["defaultConfiguration"] == {"level": "warning"}
    assert pc001["properties"] == {"tags": ["prompt-caching", "performance", "cost"], "precision": "high"}
    assert pc001["fullDescription"]["text"].startswith("Finds ") and "## " not in pc001["fullDescription"]["text"]
    assert pc001["help"]["text"].startswith("PC001 volatile-before-stable.")
    assert "## Why is this bad?" in pc001["help"]["markdown"]
