"""A crash of promptlint's own code is an internal error, never a problem of the user's file: its
own kind in the JSON ``errors`` (with the exception and where it happened), the other files are
still analyzed and reported, and the exit code is 2 even when other findings would give 1 or 0.

The crash is provoked in-process with ``monkeypatch`` (one internal function raises) and the real
CLI is run in the same process (typer's CliRunner), so no production code carries a test hook.
"""

from __future__ import annotations

import inspect
import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from promptlint.analysis.evaluator import Evaluator
from promptlint.checks import RULES_BY_CODE
from promptlint import cli as cli_module
from promptlint.cli import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, app, exit_code
from promptlint.config import Config
from promptlint.engine import analyze
from promptlint.internal import REPORT_HINT, internal_error, raised_at
from promptlint.model import INPUT_ERROR, INTERNAL_ERROR, AnalysisResult, FileError, Severity
from tests.conftest import write_tree
from tests.integration_helpers import CLEAN, CLOCK_BUST, CROSS_MODULE

CRASHING = "crashing.py"


def project(root: Path, clean_other: bool = False) -> Path:
    """Two independent modules, each with an LLM call: ``crashing.py`` and ``other.py``."""
    return write_tree(root, {CRASHING: CLOCK_BUST, "other.py": CLEAN if clean_other else CLOCK_BUST})


def crash_on(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Make the evaluator raise on the module ``name`` only, as a bug in promptlint would."""
    original = Evaluator.run_module

    def run_module(self: Evaluator, module, *args, **kwargs):  # type: ignore[no-untyped-def]
        if Path(module.display).name == name:
            raise KeyError("no such slot")
        return original(self, module, *args, **kwargs)

    monkeypatch.setattr(Evaluator, "run_module", run_module)


def check(root: Path, *args: str) -> tuple[int, str, str]:
    previous = Path.cwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(app, ["check", ".", "--no-cache", *args])
    finally:
        os.chdir(previous)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_an_evaluator_crash_is_an_internal_error_and_the_other_file_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    crash_on(monkeypatch, CRASHING)
    code, out, err = check(project(tmp_path), "--format", "json")
    document = json.loads(out)
    assert [e["path"] for e in document["errors"]] == [CRASHING]
    error = document["errors"][0]
    assert error["kind"] == INTERNAL_ERROR
    assert error["exception"] == "KeyError: 'no such slot'"
    assert error["where"].startswith("promptlint/parallel.py:") and error["where"].endswith(" in _run")
    assert "bug in promptlint" in error["message"] and "KeyError" in error["message"]
    assert document["summary"]["internal_errors"] == 1
    assert [(f["path"], f["rule"]) for f in document["findings"]] == [("other.py", "PC001")]
    assert code == EXIT_ERROR  # not 1: the findings of the crashed file are missing
    assert err.splitlines() == [
        "promptlint: internal error: promptlint failed on 1 file; the other files were analyzed, but the results "
        "may be incomplete (exit code 2)",
        f"promptlint: internal error: crashing.py: KeyError: 'no such slot' (at {error['where']})",
        f"promptlint: this is a bug in promptlint, not in your code: {REPORT_HINT}"]


def test_the_same_project_without_the_crash_exits_one_with_both_findings(tmp_path: Path) -> None:
    code, out, err = check(project(tmp_path), "--format", "json")
    document = json.loads(out)
    assert code == EXIT_FINDINGS and document["errors"] == []
    assert document["summary"]["internal_errors"] == 0
    assert sorted(f["path"] for f in document["findings"]) == [CRASHING, "other.py"]
    assert "internal error" not in err


def test_a_crash_beside_a_clean_file_exits_two_not_zero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    crash_on(monkeypatch, CRASHING)
    code, out, _ = check(project(tmp_path, clean_other=True))
    assert code == EXIT_ERROR
    assert f"internal error: {CRASHING}: internal error in promptlint" in out


def test_a_rule_that_raises_is_an_internal_error_and_the_other_rules_still_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object) -> list:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(RULES_BY_CODE["PC001"], "check", broken)
    write_tree(tmp_path, {"app.py": CLOCK_BUST, "tools.py": SET_TOOLS})
    code, out, err = check(tmp_path, "--format", "json")
    document = json.loads(out)
    kinds = {(e["path"], e["kind"], e["exception"]) for e in document["errors"]}
    assert kinds == {("app.py", INTERNAL_ERROR, "ZeroDivisionError: division by zero"),
                     ("tools.py", INTERNAL_ERROR, "ZeroDivisionError: division by zero")}
    assert all("rule PC001" in e["message"] for e in document["errors"])
    assert "promptlint: internal error: promptlint failed on 2 files;" in err
    assert [f["rule"] for f in document["findings"]] == ["PC002"]
    assert code == EXIT_ERROR


def test_github_and_sarif_show_an_internal_error_as_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    crash_on(monkeypatch, CRASHING)
    root = project(tmp_path)
    _, github, _ = check(root, "--format", "github")
    assert f"::error file={CRASHING},title=promptlint internal error (a bug in promptlint)::" in github
    _, sarif, _ = check(root, "--format", "sarif")
    invocation = json.loads(sarif)["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert [n["level"] for n in invocation["toolExecutionNotifications"]] == ["error"]


def test_an_input_error_keeps_its_kind_and_does_not_change_the_exit_code(tmp_path: Path) -> None:
    write_tree(tmp_path, {"broken.py": "from openai import OpenAI\ndef f(:\n", "app.py": CLEAN})
    code, out, _ = check(tmp_path, "--format", "json")
    document = json.loads(out)
    assert [(e["path"], e["kind"], e["exception"], e["where"]) for e in document["errors"]] == \
        [("broken.py", INPUT_ERROR, None, None)]
    assert document["summary"]["internal_errors"] == 0
    assert code == EXIT_OK


def test_the_python_api_reports_the_crash_and_keeps_going(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    crash_on(monkeypatch, CRASHING)
    root = project(tmp_path)
    result = analyze([root], Config(root=root, cache_dir=None, jobs=1), cwd=root)
    assert [(e.path, e.kind) for e in result.errors] == [(CRASHING, INTERNAL_ERROR)]
    assert [f.location.path for f in result.findings] == ["other.py"]


def test_where_names_the_innermost_frame_of_promptlint_code() -> None:
    # Severity.rank of a value it does not know: a KeyError raised inside promptlint/model.py
    # (a module the mutation runs leave alone, so its frames keep their names).
    rank = Severity.rank.fget  # type: ignore[attr-defined]
    lines, first = inspect.getsourcelines(rank)
    raising = first + next(i for i, line in enumerate(lines) if "[self.value]" in line)
    with pytest.raises(KeyError) as caught:
        rank(SimpleNamespace(value="loud"))
    error = internal_error("x.py", caught.value, "testing")
    assert error.where == f"promptlint/model.py:{raising} in rank"
    assert error.kind == INTERNAL_ERROR and error.path == "x.py"
    assert error.exception == "KeyError: 'loud'"
    assert error.message == ("internal error in promptlint (testing; a bug in promptlint, not in this file): "
                             f"{error.exception} [at {error.where}]")


def test_where_falls_back_to_the_innermost_frame_outside_promptlint() -> None:
    def explode() -> None:
        raise RuntimeError("outside")

    with pytest.raises(RuntimeError) as caught:
        explode()
    assert raised_at(caught.value) is not None
    assert raised_at(caught.value).endswith(" in explode")  # type: ignore[union-attr]
    assert raised_at(RuntimeError("never raised")) is None


@pytest.mark.parametrize("errors,fail_on,expected", [
    ((), Severity.WARNING, EXIT_OK),
    ((FileError("a.py", "syntax error", INPUT_ERROR),), Severity.WARNING, EXIT_OK),
    ((FileError("a.py", "bug", INTERNAL_ERROR),), Severity.WARNING, EXIT_ERROR),
])
def test_exit_code_with_another_file_analyzed(errors: tuple[FileError, ...], fail_on: Severity, expected: int) -> None:
    result = AnalysisResult((), errors, files_analyzed=2, stats={"files_failed": float(len(errors))})
    assert exit_code(result, fail_on) == expected


SET_TOOLS = """
from openai import OpenAI
SPECS = {"search": {"type": "function", "function": {"name": "search"}},
         "lookup": {"type": "function", "function": {"name": "lookup"}}}
def run(messages: list):
    enabled = set(SPECS)
    return OpenAI().chat.completions.create(model="gpt-4o", messages=messages,
                                            tools=[SPECS[name] for name in enabled])
"""


def test_usage_errors_say_what_is_wrong_on_stderr(tmp_path: Path) -> None:
    code, out, err = check(tmp_path, "does-not-exist")
    assert (code, out, err) == (EXIT_ERROR, "", "promptlint: error: no such file or folder: does-not-exist\n")


def test_main_turns_a_crash_outside_the_per_file_stages_into_exit_2(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def crash() -> None:
        raise RuntimeError("reporter exploded")

    monkeypatch.setattr(cli_module, "app", crash)
    with pytest.raises(SystemExit) as caught:
        cli_module.main()
    assert caught.value.code == EXIT_ERROR
    assert capsys.readouterr().err.splitlines() == [
        "promptlint: internal error: RuntimeError: reporter exploded",
        f"promptlint: this is a bug in promptlint, not in your code: {REPORT_HINT}"]


@pytest.mark.parametrize("raised,code", [(KeyboardInterrupt(), 130), (SystemExit(1), 1), (SystemExit(0), 0)])
def test_main_passes_exits_through_and_maps_interrupts(monkeypatch: pytest.MonkeyPatch, raised: BaseException,
                                                       code: int, capsys: pytest.CaptureFixture[str]) -> None:
    def stop() -> None:
        raise raised

    monkeypatch.setattr(cli_module, "app", stop)
    with pytest.raises(SystemExit) as caught:
        cli_module.main()
    assert caught.value.code == code
    assert capsys.readouterr().err == ""


def test_baseline_written_despite_a_crash_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    crash_on(monkeypatch, CRASHING)
    root = project(tmp_path)
    previous = Path.cwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(app, ["baseline", ".", "-o", "base.json"])
    finally:
        os.chdir(previous)
    assert result.exit_code == EXIT_ERROR
    assert "promptlint: wrote base.json with 1 finding" in result.stderr
    assert "promptlint: internal error: promptlint failed on 1 file" in result.stderr


def test_a_crash_in_a_file_not_passed_is_still_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pre-commit passes only the changed file; the module evaluated for it may be another one."""
    write_tree(tmp_path, CROSS_MODULE)
    code, out, _ = check(tmp_path, "--format", "json")
    assert code == EXIT_FINDINGS  # control: the finding is in sections.py, reached from bot.py
    crash_on(monkeypatch, "bot.py")
    previous = Path.cwd()
    os.chdir(tmp_path)
    try:
        result = CliRunner().invoke(app, ["check", "helpdesk/sections.py", "--no-cache", "--format", "json"])
    finally:
        os.chdir(previous)
    document = json.loads(result.stdout)
    assert [(e["path"], e["kind"]) for e in document["errors"]] == [("helpdesk/bot.py", INTERNAL_ERROR)]
    assert result.exit_code == EXIT_ERROR


WINDOWED = '''
class Chat:
    def __init__(self):
        self.messages = [{"role": "system", "content": "Be brief."}]

    def add(self, text):
        self.messages.append({"role": "user", "content": text})
        if len(self.messages) > 20:
            self.messages = self.messages[-20:]
'''


def test_a_pc009_crash_on_one_module_is_an_internal_error_and_the_other_module_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # PC009 reads modules apart from the layouts (in the workers on a large project): its failure
    # comes back as the module's internal error, and the modules after it are still read.
    rule = RULES_BY_CODE["PC009"]
    original = type(rule).check_module

    def check_module(self, path, tree, *args, **kwargs):  # type: ignore[no-untyped-def]
        if Path(path).name == "a_first.py":
            raise ZeroDivisionError("division by zero")
        return original(self, path, tree, *args, **kwargs)

    monkeypatch.setattr(type(rule), "check_module", check_module)
    write_tree(tmp_path, {"a_first.py": WINDOWED, "b_second.py": WINDOWED})
    code, out, _ = check(tmp_path, "--format", "json")
    document = json.loads(out)
    assert [(e["path"], e["kind"], e["exception"]) for e in document["errors"]] == [
        ("a_first.py", INTERNAL_ERROR, "ZeroDivisionError: division by zero")]
    assert "rule PC009" in document["errors"][0]["message"]
    assert [(f["path"], f["line"], f["rule"]) for f in document["findings"]] == [("b_second.py", 8, "PC009")]
    assert code == EXIT_ERROR
