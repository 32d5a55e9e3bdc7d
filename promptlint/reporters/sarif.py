"""``--format sarif``: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

One run; rule metadata from the rule registry (the rule's documentation as help); each result
with its location, related locations and a code flow from where the volatile value is born to
the call it reaches, a line-independent ``partialFingerprints`` entry, ``fixes`` where promptlint
has a fix (safe or not, as the description says), and the cost estimate in ``properties``.
Columns count Unicode code points (``columnKind``), like promptlint's own locations.
Validated in the tests against the published OASIS schema.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from promptlint import __version__
from promptlint.checks import RULES, Rule
from promptlint.config import Config
from promptlint.model import REACHES, AnalysisResult, Edit, Finding, Location, Severity
from promptlint.rule_docs import help_uri, rule_doc, rule_page

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
DEFAULT_LEVEL = {"PC900": "warning"}
FINGERPRINT_KEY = "promptlintFingerprint/v1"


def render_sarif(result: AnalysisResult, config: Config, new: set[int] | None = None) -> str:
    """``new``: under ``--diff``, the ids of the findings on changed lines; every finding is then
    written with ``baselineState`` "new" (in the diff) or "unchanged" (not), so code scanning gets
    the full picture and never closes an alert only because the diff did not touch it."""
    rule_index = {rule.code: i for i, rule in enumerate(RULES)}
    results = [_result(f, rule_index) for f in result.findings]
    if new is not None:
        for finding, entry in zip(result.findings, results):
            entry["baselineState"] = "new" if id(finding) in new else "unchanged"
    run: dict[str, Any] = {
        "tool": {"driver": _driver()},
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().resolve().as_uri() + "/"}},
        "results": results,
        "invocations": [_invocation(result)],
    }
    document = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _driver() -> dict[str, Any]:
    return {
        "name": "promptlint",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": "https://pypi.org/project/promptlint/",
        "rules": [_rule(rule) for rule in RULES],
    }


def _rule(rule: Rule) -> dict[str, Any]:
    doc = _rule_doc(rule)
    page = rule_page(rule) if doc else rule.summary
    entry: dict[str, Any] = {
        "id": rule.code,
        "name": _pascal(rule.name),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": _section(doc, "What it does") or rule.summary},
        "help": {"text": doc or rule.summary, "markdown": page},
        "defaultConfiguration": {"level": DEFAULT_LEVEL.get(rule.code, "error")},
        "properties": {"tags": ["prompt-caching", "performance", "cost"], "precision": "high"},
    }
    uri = help_uri(rule)
    if uri:
        entry["helpUri"] = uri
    return entry


@lru_cache(maxsize=None)
def _rule_doc(rule: Rule) -> str:
    return rule_doc(rule)


def _section(doc: str, title: str) -> str:
    marker = f"## {title}\n"
    if marker not in doc:
        return ""
    return doc.split(marker, 1)[1].split("\n## ", 1)[0].strip()


def _pascal(slug: str) -> str:
    return "".join(word.capitalize() for word in slug.split("-"))


def _uri(path: str) -> str:
    return Path(path).as_posix()


def _region(location: Location) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": location.line, "startColumn": max(1, location.column)}
    if location.end_line > location.line or location.end_column > location.column:
        region["endLine"] = max(location.end_line, location.line)
        region["endColumn"] = max(1, location.end_column)
    return region


def _physical(location: Location) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(location.path), "uriBaseId": "%SRCROOT%"},
                                "region": _region(location)}
    if location.cell is not None:  # a notebook: lines count within this cell
        physical["properties"] = {"cell": location.cell}
    return physical


def _result(finding: Finding, rule_index: dict[str, int]) -> dict[str, Any]:
    related = _related(finding)
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index[finding.rule],
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message + (f" Fix: {finding.hint}." if finding.hint else "")},
        "locations": [{"physicalLocation": _physical(finding.location)}],
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint or "none"},
        "properties": _properties(finding),
    }
    if related:
        result["relatedLocations"] = related
        result["codeFlows"] = [_code_flow(finding)]
    if finding.fix is not None and finding.fix.edits:
        fix = _fix(finding)
        if fix is not None:
            result["fixes"] = [fix]
    return result


def _related(finding: Finding) -> list[dict[str, Any]]:
    places = []
    if finding.volatile_source is not None and finding.volatile_source.location != finding.location:
        source = finding.volatile_source
        places.append((source.location, f"volatile value born here: {source.quoted} ({source.category})"))
    places += [(r.location, r.message) for r in finding.related]
    if finding.call_site.api and not any(r.message.startswith(REACHES) for r in finding.related):
        places.append((finding.call_site.location, f"{REACHES} `{finding.call_site.api}` call here"))
    unique = list(dict.fromkeys(places))
    return [{"id": i, "physicalLocation": _physical(loc), "message": {"text": message}}
            for i, (loc, message) in enumerate(unique, 1)]


def _code_flow(finding: Finding) -> dict[str, Any]:
    """Source → steps → call, as one thread flow (GitHub shows it as the value's path)."""
    steps = []
    if finding.volatile_source is not None:
        steps.append((finding.volatile_source.location, finding.volatile_source.quoted))
    steps += [(r.location, r.message) for r in finding.related if not r.is_origin and not r.note]
    if not steps or steps[-1][0] != finding.call_site.location:
        steps.append((finding.call_site.location, f"`{finding.call_site.api}` call"))
    return {"threadFlows": [{"locations": [
        {"location": {"physicalLocation": _physical(loc), "message": {"text": message}}} for loc, message in steps
    ]}]}


def _properties(finding: Finding) -> dict[str, Any]:
    properties: dict[str, Any] = {"name": finding.name, "severity": finding.severity.value,
                                  "callSite": {"api": finding.call_site.api, "provider": finding.call_site.provider,
                                               "model": finding.call_site.model}}
    estimate = finding.estimate
    if estimate is not None:
        properties["lostTokensPerCall"] = estimate.lost_tokens_per_call
        properties["tokenizer"] = estimate.tokenizer
        properties["estimateExact"] = estimate.exact
        properties["losses"] = [
            {"provider": loss.provider, "model": loss.model, "usdPerMonth": round(loss.usd_per_month, 4),
             "usdPer1kCalls": round(loss.usd_per_1k_calls, 6), "callsPerDay": loss.calls_per_day,
             "priceAsOf": loss.price_as_of} for loss in estimate.losses]
    if finding.fix is not None:
        properties["fixSafety"] = "safe" if finding.fix.safe else "unsafe"
    return properties


def _fix(finding: Finding) -> dict[str, Any] | None:
    assert finding.fix is not None
    changes: dict[str, list[dict[str, Any]]] = {}
    for edit in finding.fix.edits:
        region = _edit_region(edit)
        if region is None:
            return None  # the file changed since the analysis: no fix rather than a wrong one
        changes.setdefault(edit.path, []).append({"deletedRegion": region,
                                                  "insertedContent": {"text": edit.replacement}})
    safety = "safe" if finding.fix.safe else "unsafe: changes what the model reads"
    return {"description": {"text": f"{finding.fix.description} ({safety})"},
            "artifactChanges": [{"artifactLocation": {"uri": _uri(path), "uriBaseId": "%SRCROOT%"},
                                 "replacements": replacements} for path, replacements in changes.items()]}


def _edit_region(edit: Edit) -> dict[str, Any] | None:
    text = _file_text(edit.path)
    if text is None or edit.end > len(text):
        return None
    start_line, start_column = _line_column(text, edit.start)
    end_line, end_column = _line_column(text, edit.end)
    return {"startLine": start_line, "startColumn": start_column, "endLine": end_line, "endColumn": end_column}


def _file_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", newline="") as stream:
            return stream.read()
    except (OSError, UnicodeDecodeError):
        return None


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    line_start = text.rfind("\n", 0, offset) + 1
    return line, offset - line_start + 1


def _invocation(result: AnalysisResult) -> dict[str, Any]:
    # An internal error is promptlint's failure: level "error", and the run did not fully succeed.
    notifications = [{"level": "error" if error.internal else "warning", "message": {"text": error.message},
                      "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(error.path),
                                                                               "uriBaseId": "%SRCROOT%"}}}]}
                     for error in result.errors]
    invocation: dict[str, Any] = {"executionSuccessful": not any(e.internal for e in result.errors)}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return invocation
