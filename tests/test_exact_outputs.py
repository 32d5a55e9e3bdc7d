"""What a user sees, checked against expectations computed independently of promptlint:

- locations: line, column and end column found by searching the source text for the offending
  expression, compared with the JSON fields, the SARIF region, the GitHub annotation and the text
  header (1-based lines; columns count characters; the end column is exclusive, as SARIF's);
- severities: one example per volatility scope, and each format's name for each severity;
- exit codes: every path, each with inputs where the answer differs from the other paths.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from promptlint.cli import app
from promptlint.config import Config
from promptlint import __version__
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
from promptlint.reporters import sarif
from promptlint.reporters.json_report import finding_record, render_json
from promptlint.reporters.github import annotation, escape_data, escape_property, render_github
from tests.conftest import FIXTURES, write_tree

# One function per volatility scope; each value sits before the same long stable policy and the
# conversation history, so only the scope decides the severity (docs: README "The rules").
SCOPES = '''
import os
import random
import uuid
from datetime import date, datetime
from openai import OpenAI

POLICY = "Follow the refund policy step by step and cite the relevant section. " * 20
TOPICS = {"billing", "shipping", "returns"}
EXAMPLES = ["Q: reset router? A: hold the button.", "Q: refund? A: see policy.", "Q: hours? A: 9-5."]


def per_request(question: str, history: list) -> str:
    system = f"Request {uuid.uuid4()}\\n" + POLICY
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])


def per_user(user_id: str, question: str, history: list) -> str:
    system = f"Customer {user_id}\\n" + POLICY
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])


def per_day(question: str, history: list) -> str:
    system = f"Today is {date.today()}\\n" + POLICY
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])


def per_process(question: str, history: list) -> str:
    system = f"Worker {os.getpid()}\\n" + POLICY
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])


class Conversation:
    def __init__(self) -> None:
        self.started = datetime.now()

    def ask(self, question: str, history: list) -> str:
        system = f"Conversation started {self.started}\\n" + POLICY
        return OpenAI().chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": system}, *history, {"role": "user", "content": question}])


def process_order(question: str, history: list) -> str:
    system = "Topics: " + ", ".join(TOPICS) + "\\n" + POLICY
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])


def request_order(question: str, history: list) -> str:
    system = "Examples:\\n" + "\\n".join(random.sample(EXAMPLES, 2)) + "\\n" + POLICY
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])


def short_single_shot(question: str) -> str:
    system = f"Zeit — {datetime.now()}\\nBe brief."
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
'''

# (text around the value, the value, rule, severity): the scope decides the severity.
SCOPE_FINDINGS = [
    ('TOPICS = {"billing", "shipping", "returns"}', '{"billing", "shipping", "returns"}', "PC003", "warning"),
    ("{uuid.uuid4()}", "uuid.uuid4()", "PC001", "error"),  # per request, before a long prefix and history
    ("{user_id}", "user_id", "PC001", "warning"),  # per user
    ("{date.today()}", "date.today()", "PC001", "info"),  # per day
    ("{os.getpid()}", "os.getpid()", "PC001", "info"),  # once per process
    ("{self.started}", "self.started", "PC001", "info"),  # stored in __init__: once per conversation
    # Order per request; located where the value enters the prompt: the joined text.
    ('"\\n".join(random.sample(EXAMPLES, 2))', '"\\n".join(random.sample(EXAMPLES, 2))', "PC003", "error"),
    # Per request, but only 10 characters of stable text follow and no history: little is lost.
    # The em dash before it checks that columns count characters, not UTF-8 bytes.
    ("— {datetime.now()}", "datetime.now()", "PC001", "info"),
]
SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}
GITHUB_COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def span(text: str, context: str, value: str) -> tuple[int, int, int, int]:
    """(line, column, end_line, end_column) of ``value`` inside the only occurrence of ``context``:
    1-based, columns in characters, end column exclusive."""
    assert text.count(context) == 1, context
    offset = text.index(context) + context.index(value)
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    assert "\n" not in value
    return line, column, line, column + len(value)


def run(root: Path, *args: str) -> tuple[int, str]:
    previous = Path.cwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(app, ["check", ".", "--no-cache", *args])
    finally:
        os.chdir(previous)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout


@pytest.fixture(scope="module")
def scopes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = write_tree(tmp_path_factory.mktemp("scopes"), {"app.py": SCOPES})
    return root, (root / "app.py").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def expected(scopes: tuple[Path, str]) -> list[tuple[tuple[int, int, int, int], str, str]]:
    _, text = scopes
    return sorted((span(text, context, value), rule, severity) for context, value, rule, severity in SCOPE_FINDINGS)


def test_json_locations_and_severities_per_scope(scopes: tuple[Path, str], expected: list) -> None:
    code, out = run(scopes[0], "--format", "json", "--show-info")
    found = sorted(((f["line"], f["column"], f["end_line"], f["end_column"]), f["rule"], f["severity"])
                   for f in json.loads(out)["findings"])
    assert found == expected
    assert code == 1


def test_sarif_regions_and_levels(scopes: tuple[Path, str], expected: list) -> None:
    _, out = run(scopes[0], "--format", "sarif", "--show-info")
    found = []
    for result in json.loads(out)["runs"][0]["results"]:
        region = result["locations"][0]["physicalLocation"]["region"]
        found.append(((region["startLine"], region["startColumn"], region["endLine"], region["endColumn"]),
                      result["ruleId"], result["level"]))
    assert sorted(found) == sorted((where, rule, SARIF_LEVELS[severity]) for where, rule, severity in expected)


def test_github_annotations_levels_and_positions(scopes: tuple[Path, str], expected: list) -> None:
    _, out = run(scopes[0], "--format", "github", "--show-info")
    pattern = re.compile(r"^::(\w+) file=app\.py,line=(\d+),col=(\d+),endLine=(\d+),endColumn=(\d+),"
                         r"title=promptlint (PC\d+) ")
    found = sorted(((int(m[2]), int(m[3]), int(m[4]), int(m[5])), m[6], m[1])
                   for m in map(pattern.match, out.splitlines()) if m)
    assert found == sorted((where, rule, GITHUB_COMMANDS[severity]) for where, rule, severity in expected)


def test_text_headers(scopes: tuple[Path, str], expected: list) -> None:
    _, out = run(scopes[0], "--show-info")
    headers = sorted(line.split("] ")[0] + "]" for line in out.splitlines() if line.startswith("app.py:"))
    assert headers == sorted(f"app.py:{line}:{column}: {rule} [{severity}]"
                             for (line, column, _, _), rule, severity in expected)


# The demo app's findings in Python files: the expression each one must point at.
DEMO_SPANS = {
    ("support_bot/escalation.py", "PC007"): ("datetime.now(timezone.utc).isoformat()",) * 2,
    ("support_bot/prompts.py", "PC001"): ("{now:%A", "now"),
    ("support_bot/summarize.py", "PC004"): ("json.dumps(_output_schema())",) * 2,
    ("support_bot/tools.py", "PC002"): ("for name in ENABLED_TOOLS", "ENABLED_TOOLS"),
}


def test_demo_python_findings_point_at_the_offending_expression() -> None:
    demo = FIXTURES / "demo_app"
    _, out = run(demo, "--format", "json")
    findings = {(f["path"], f["rule"]): f for f in json.loads(out)["findings"]}
    for (path, rule), (context, value) in DEMO_SPANS.items():
        f = findings[(path, rule)]
        text = (demo / path).read_text(encoding="utf-8")
        assert (f["line"], f["column"], f["end_line"], f["end_column"]) == span(text, context, value), (path, rule)
    # PC005 points at the whole call that sends the volatile cache key (several lines).
    call = findings[("support_bot/agent.py", "PC005")]
    lines = (demo / "support_bot/agent.py").read_text(encoding="utf-8").split("\n")
    first = lines[call["line"] - 1][call["column"] - 1:]
    assert first.startswith("openai_client.chat.completions.create(")
    assert lines[call["end_line"] - 1][:call["end_column"] - 1].rstrip().endswith(")")
    assert lines[call["end_line"] - 1][call["end_column"] - 1:].strip() == ""


def test_demo_yaml_placeholder_location() -> None:
    demo = FIXTURES / "demo_app"
    _, out = run(demo, "--format", "json")
    f = next(f for f in json.loads(out)["findings"] if f["path"] == "support_bot/prompts.yaml")
    text = (demo / "support_bot/prompts.yaml").read_text(encoding="utf-8")
    assert (f["line"], f["column"], f["end_line"], f["end_column"]) == \
        span(text, "Ticket received at {received_at}", "{received_at}")


def test_demo_jinja_placeholder_location() -> None:
    demo = FIXTURES / "demo_app"
    _, out = run(demo, "--format", "json")
    f = next(f for f in json.loads(out)["findings"] if f["path"] == "support_bot/templates/system.j2")
    text = (demo / "support_bot/templates/system.j2").read_text(encoding="utf-8")
    assert (f["line"], f["column"], f["end_line"], f["end_column"]) == span(text, "{{ now }}", "{{ now }}")


# --- exit codes --------------------------------------------------------------------------------

def only(*functions: str) -> str:
    """The imports and constants of SCOPES with some of its functions."""
    head = SCOPES.split("\n\ndef per_request")[0]
    bodies = [re.search(rf"(?ms)^def {function}\(.*?(?=^def |^class |\Z)", SCOPES) for function in functions]
    assert all(bodies)
    return head + "\n\n" + "".join(body.group(0) for body in bodies if body)


PROJECTS = {
    "clean": {"app.py": only("short_single_shot").replace("{datetime.now()}", "{{}}")},
    "error": {"app.py": only("per_request")},
    "warning": {"app.py": only("per_user")},
    "info": {"app.py": only("per_day")},
    "broken only": {"broken.py": "from openai import OpenAI\ndef f(:\n"},
    "broken and clean": {"broken.py": "from openai import OpenAI\ndef f(:\n",
                         "app.py": only("short_single_shot").replace("{datetime.now()}", "{{}}")},
    "broken and warning": {"broken.py": "from openai import OpenAI\ndef f(:\n", "app.py": only("per_user")},
}


@pytest.mark.parametrize("project,args,code", [
    ("clean", (), 0),
    ("clean", ("--fail-on", "info", "--show-info"), 0),
    ("error", (), 1),
    ("error", ("--fail-on", "error"), 1),
    ("warning", (), 1),  # default fail level: warning
    ("warning", ("--fail-on", "warning"), 1),
    ("warning", ("--fail-on", "error"), 0),  # below the fail level
    ("warning", ("--fail-on", "info"), 1),
    ("info", (), 0),
    ("info", ("--fail-on", "info"), 0),  # hidden info findings do not fail
    ("info", ("--fail-on", "info", "--show-info"), 1),
    ("info", ("--fail-on", "warning", "--show-info"), 0),
    ("broken only", (), 2),  # nothing could be analyzed
    ("broken and clean", (), 0),  # a per-file error alone changes nothing
    ("broken and warning", (), 1),
    ("broken and warning", ("--fail-on", "error"), 0),
    ("clean", ("--format", "yaml"), 2),  # usage error
    ("clean", ("--select", "XX999"), 2),  # configuration error
])
def test_exit_code(tmp_path: Path, project: str, args: tuple[str, ...], code: int) -> None:
    root = write_tree(tmp_path, PROJECTS[project])
    assert run(root, *args)[0] == code


@pytest.mark.parametrize("configured,flag,code", [("error", None, 0), ("warning", None, 1), ("error", "warning", 1),
                                                   ("warning", "error", 0)])
def test_fail_on_from_the_config_and_the_flag_wins(tmp_path: Path, configured: str, flag: str | None,
                                                   code: int) -> None:
    root = write_tree(tmp_path, {**PROJECTS["warning"], "pyproject.toml": f'[tool.promptlint]\nfail-on = "{configured}"\n'})
    assert run(root, *(("--fail-on", flag) if flag else ()))[0] == code


def test_show_fixes_exit_codes(tmp_path: Path) -> None:
    root = write_tree(tmp_path, PROJECTS["clean"])
    assert run(root, "--show-fixes")[0] == 0


# --- GitHub annotations, unit by unit ----------------------------------------------------------

def finding_at(location: Location, severity: Severity = Severity.WARNING) -> Finding:
    site = CallSite(Location("app.py", 30, 5, 30, 9), "openai.chat.completions", "openai")
    return Finding("PC001", "volatile-before-stable", severity, location, "msg", site)


@pytest.mark.parametrize("location,properties", [
    (Location("app.py", 3, 7, 3, 12), "line=3,col=7,endLine=3,endColumn=12"),
    (Location("app.py", 3, 7, 5, 12), "line=3,col=7,endLine=5"),  # over several lines: no end column
    (Location("app.py", 3, 7, 5, 2), "line=3,col=7,endLine=5"),
    (Location("t.j2", 3, 1, 3, 1), "line=3,col=1,endLine=3"),  # an empty range: no end column
])
def test_github_annotation_properties(location: Location, properties: str) -> None:
    line = annotation(finding_at(location))
    assert line.startswith(f"::warning file={location.path},{properties},title=promptlint PC001 (volatile-before-stable)::")


def test_github_annotation_in_a_notebook_names_the_cell() -> None:
    line = annotation(finding_at(Location("nb.ipynb", 2, 5, 2, 9, cell=3)))
    assert line.startswith("::warning file=nb.ipynb,line=2,col=5,endLine=2,endColumn=9,"
                           "title=promptlint PC001 (volatile-before-stable) in cell 3::")


def test_github_escapes_carriage_returns_and_newlines_in_uppercase_hex() -> None:
    assert escape_data("50%\r\nnext") == "50%25%0D%0Anext"
    assert escape_property("a:b,c\r") == "a%3Ab%2Cc%0D"


@pytest.mark.parametrize("findings,files,summary", [
    (0, 1, "promptlint: 0 findings in 1 Python file"),
    (1, 2, "promptlint: 1 finding in 2 Python files"),
    (2, 0, "promptlint: 2 findings in 0 Python files"),
])
def test_github_summary_line(findings: int, files: int, summary: str) -> None:
    result = AnalysisResult(tuple(finding_at(Location("app.py", i + 1, 1, i + 1, 4)) for i in range(findings)), (),
                            files_analyzed=files)
    assert render_github(result, Config()).splitlines()[-1] == summary


# --- the JSON contract, key by key ------------------------------------------------------------

def contract_finding() -> Finding:
    where = Location("bot/prompts.py", 49, 39, 49, 42)
    site = CallSite(Location("bot/agent.py", 30, 20, 36, 10), "openai.chat.completions", "openai", "gpt-4o",
                    "bot.agent.reply")
    origin = Origin(Location("bot/prompts.py", 48, 11, 48, 25), "datetime.datetime.now", "clock",
                    Volatility.PER_REQUEST)
    loss = ProviderLoss("openai", "gpt-4o", 1664, 2.08, 62.4, 1000.0, "2025-06-01", "cached input at 50 %")
    estimate = Estimate(1664, "o200k_base", True, False, (loss,), "n")
    return Finding("PC001", "volatile-before-stable", Severity.ERROR, where, "the message", site, origin,
                   (RelatedLocation(Location("bot/prompts.py", 48, 11, 48, 25), "born here"),),
                   None, "move it", estimate, "0123456789abcdef", 0, 2)


def test_json_finding_record_is_exactly_the_contract() -> None:
    assert json.loads(json.dumps(finding_record(contract_finding()))) == {
        "rule": "PC001", "name": "volatile-before-stable", "severity": "error",
        "path": "bot/prompts.py", "line": 49, "column": 39, "end_line": 49, "end_column": 42,
        "message": "the message",
        "cell": None,  # added for Jupyter notebooks (the 1-based cell; null for other files)
        "volatile_source": {"path": "bot/prompts.py", "line": 48, "kind": "per-request", "category": "clock",
                            "source": "datetime.datetime.now", "cell": None},
        "call_site": {"path": "bot/agent.py", "line": 30, "api": "openai.chat.completions", "provider": "openai",
                      "model": "gpt-4o", "cell": None},
        "lost_tokens_per_call": 1664,
        "hint": "move it",
        "fingerprint": "0123456789abcdef",
        # `note` added: false for a step of the value's path, true for a note beside it
        "related": [{"path": "bot/prompts.py", "line": 48, "message": "born here", "note": False}],
        "estimate": {"lost_tokens_per_call": 1664, "tokenizer": "o200k_base", "exact": True,
                     "unknown_length": False, "note": "n",
                     "losses": [{"provider": "openai", "model": "gpt-4o", "lost_tokens_per_call": 1664,
                                 "usd_per_1k_calls": 2.08, "usd_per_month": 62.4, "calls_per_day": 1000.0,
                                 "price_as_of": "2025-06-01", "note": "cached input at 50 %"}]},
    }


def test_json_record_without_source_or_estimate() -> None:
    bare = replace(contract_finding(), volatile_source=None, estimate=None, related=(), hint="")
    record = finding_record(bare)
    assert (record["volatile_source"], record["lost_tokens_per_call"], record["estimate"], record["related"],
            record["hint"]) == (None, None, None, [], "")


def test_json_document_errors_and_summary() -> None:
    warning = replace(contract_finding(), rule="PC003", severity=Severity.WARNING)
    result = AnalysisResult(
        (contract_finding(), warning, replace(warning, rule="PC001")),
        (FileError("broken.py", "syntax error (line 3): invalid syntax"),
         FileError("odd.py", "internal error in promptlint (…)", INTERNAL_ERROR, "KeyError: 'x'",
                   "promptlint/parallel.py:310 in _run")),
        (), 14)
    text = render_json(result, Config())
    document = json.loads(text)
    # Two-space indentation, one trailing newline, non-ASCII text as is (not \u escapes).
    assert text == json.dumps(document, indent=2, ensure_ascii=False) + "\n" and "(…)" in text
    assert list(document) == ["version", "findings", "errors", "summary"]
    assert document["version"] == 1
    assert document["errors"] == [
        {"path": "broken.py", "message": "syntax error (line 3): invalid syntax", "kind": "input",
         "exception": None, "where": None},
        {"path": "odd.py", "message": "internal error in promptlint (…)", "kind": "internal",
         "exception": "KeyError: 'x'", "where": "promptlint/parallel.py:310 in _run"}]
    assert document["summary"] == {
        "findings": 3, "by_severity": {"error": 1, "warning": 2, "info": 0},
        "by_rule": {"PC001": 2, "PC003": 1}, "files_analyzed": 14, "call_sites": 0, "errors": 2,
        "internal_errors": 1, "promptlint_version": __version__}


# --- command-line plumbing: flags that change what the user gets -------------------------------

def test_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert (result.exit_code, result.stdout) == (0, f"promptlint {__version__}\n")


def test_an_unknown_rule_code_names_the_command_line(tmp_path: Path) -> None:
    root = write_tree(tmp_path, PROJECTS["clean"])
    previous = Path.cwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(app, ["check", ".", "--select", "PC001,XX999"])
    finally:
        os.chdir(previous)
    assert result.exit_code == 2
    assert result.stderr == ("promptlint: error: command line: unknown rule code or prefix 'XX999' "
                             "(see `promptlint rules`)\n")


@pytest.mark.parametrize("flags,rules", [
    ((), ["PC001", "PC003"]),
    (("--select", "PC001,PC003"), ["PC001", "PC003"]),
    (("--select", "PC001, PC002"), ["PC001"]),
    (("--select", "PC003", "--select", "PC001"), ["PC001", "PC003"]),
    (("--ignore", "PC001,PC002"), ["PC003"]),
])
def test_comma_separated_and_repeated_rule_flags(tmp_path: Path, flags: tuple[str, ...], rules: list[str]) -> None:
    root = write_tree(tmp_path, {"app.py": only("per_request", "request_order")})
    _, out = run(root, "--format", "json", *flags)
    assert sorted({f["rule"] for f in json.loads(out)["findings"]}) == rules


def test_config_flag_and_output_file(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {**PROJECTS["warning"], "strict.toml": '[tool.promptlint]\nfail-on = "error"\n'})
    assert run(root, "--config", "strict.toml")[0] == 0  # the warning is below this file's fail level
    code, out = run(root, "--format", "json", "-o", "report.json")
    assert (code, out) == (1, "")
    written = (root / "report.json").read_text(encoding="utf-8")
    assert json.loads(written)["findings"][0]["rule"] == "PC001"
    assert written == run(root, "--format", "json")[1]


# --- SARIF, unit by unit -----------------------------------------------------------------------

@pytest.mark.parametrize("location,region", [
    (Location("a.py", 3, 1, 3, 9), {"startLine": 3, "startColumn": 1, "endLine": 3, "endColumn": 9}),
    (Location("a.py", 3, 7, 5, 2), {"startLine": 3, "startColumn": 7, "endLine": 5, "endColumn": 2}),
    (Location("t.j2", 3, 1, 3, 1), {"startLine": 3, "startColumn": 1}),  # an empty range: a point
    (Location("a.py", 3, 0, 3, 0), {"startLine": 3, "startColumn": 1}),  # columns are at least 1
])
def test_sarif_region(location: Location, region: dict) -> None:
    assert sarif._region(location) == region


def test_sarif_result_message_fingerprint_and_base() -> None:
    finding = finding_at(Location("app.py", 3, 7, 3, 12))
    plain = sarif._result(finding, {"PC001": 0})
    assert plain["message"] == {"text": "msg"}
    assert plain["partialFingerprints"] == {sarif.FINGERPRINT_KEY: "none"}
    assert plain["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "app.py", "uriBaseId": "%SRCROOT%"}
    hinted = sarif._result(replace(finding, hint="move it", fingerprint="abc"), {"PC001": 0})
    assert hinted["message"] == {"text": "msg Fix: move it."}
    assert hinted["partialFingerprints"] == {sarif.FINGERPRINT_KEY: "abc"}


def test_sarif_fix_regions_and_safety(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    text = "\nx = now()\ny = 2"  # starts with an empty line; the second edit ends at the end of the file
    (tmp_path / "app.py").write_text(text, encoding="utf-8")
    start = text.index("now()")
    edits = (Edit("app.py", start, start + 5, "FIXED"), Edit("app.py", len(text) - 1, len(text), "3"))
    finding = replace(finding_at(Location("app.py", 2, 5, 2, 10)), fix=Fix("pin it", False, edits))
    fix = sarif._fix(finding)
    assert fix == {"description": {"text": "pin it (unsafe: changes what the model reads)"},
                   "artifactChanges": [{"artifactLocation": {"uri": "app.py", "uriBaseId": "%SRCROOT%"},
                                        "replacements": [
                                            {"deletedRegion": {"startLine": 2, "startColumn": 5, "endLine": 2,
                                                               "endColumn": 10},
                                             "insertedContent": {"text": "FIXED"}},
                                            {"deletedRegion": {"startLine": 3, "startColumn": 5, "endLine": 3,
                                                               "endColumn": 6},
                                             "insertedContent": {"text": "3"}}]}]}
    safe = sarif._fix(replace(finding, fix=Fix("pin it", True, edits[:1])))
    assert safe is not None and safe["description"] == {"text": "pin it (safe)"}
    beyond = Edit("app.py", 0, len(text) + 1, "")  # the file changed since: no fix rather than a wrong one
    assert sarif._fix(replace(finding, fix=Fix("pin it", True, (beyond,)))) is None


def test_sarif_fix_regions_in_a_file_with_crlf_line_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Edit offsets count the file's characters as they are, "\\r" included."""
    monkeypatch.chdir(tmp_path)
    text = "a = 1\r\nx = now()\r\n"
    (tmp_path / "app.py").write_bytes(text.encode("utf-8"))
    start = text.index("now()")
    finding = replace(finding_at(Location("app.py", 2, 5, 2, 10)), fix=Fix("pin", True, (Edit("app.py", start, start + 5, "T"),)))
    fix = sarif._fix(finding)
    assert fix is not None
    assert fix["artifactChanges"][0]["replacements"][0]["deletedRegion"] == \
        {"startLine": 2, "startColumn": 5, "endLine": 2, "endColumn": 10}
