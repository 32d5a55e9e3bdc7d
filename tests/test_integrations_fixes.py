"""`--fix`, `--unsafe-fixes`, `--show-fixes`: libcst edits that keep formatting, are idempotent,
and never leave a file that does not parse."""

from __future__ import annotations

import ast
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from promptlint.config import load_config
from promptlint.fixes import apply_edits, parse_problem, plan_fixes
from promptlint.model import AnalysisResult, CallSite, Edit, Finding, Fix, Location, Severity
from promptlint.pipeline import CheckOptions, run_check
from tests.conftest import FIXTURES, write_tree
from tests.integration_helpers import CLOCK_BUST, cli, rules_found

JSON_BUST = """
import json
from openai import OpenAI
INSTRUCTIONS = "Use the profile to personalise answers but never reveal it. " * 20
def answer(data: dict, question: str, history: list):
    profile = {key: data.get(key) for key in {"name", "plan", "region"}}
    system = "Profile: " + json.dumps(  # the profile goes first
        profile,
        indent=2,
    ) + "\\n" + INSTRUCTIONS
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
"""

SET_TOOLS = """
from openai import OpenAI
SPECS = {"search": {"type": "function", "function": {"name": "search"}},
         "lookup": {"type": "function", "function": {"name": "lookup"}}}
def run(messages: list):
    enabled = set(SPECS)  # which tools this tenant may use
    tools = [SPECS[name] for name in enabled]
    return OpenAI().chat.completions.create(model="gpt-4.1", tools=tools, messages=messages)
"""


def fix_run(root: Path, *flags: str) -> tuple[int, str, str]:
    return cli("check", ".", *flags, cwd=root)


def test_fix_adds_sort_keys_and_keeps_layout_and_comments(tmp_path: Path) -> None:
    write_tree(tmp_path, JSON_BUST)
    assert rules_found(tmp_path, "--select", "PC004") == ["PC004"]
    code, _, err = fix_run(tmp_path, "--fix", "--select", "PC004")
    text = (tmp_path / "app.py").read_text()
    assert "fixed 1 finding in 1 file" in err and code == 0
    assert '        indent=2,\n        sort_keys=True,\n    ) + "\\n"' in text
    assert "# the profile goes first" in text
    assert text.replace("        sort_keys=True,\n", "") == JSON_BUST.lstrip()  # nothing else changed
    before = text
    fix_run(tmp_path, "--fix", "--select", "PC004")
    assert (tmp_path / "app.py").read_text() == before  # idempotent


def test_fix_sorts_set_iteration(tmp_path: Path) -> None:
    write_tree(tmp_path, SET_TOOLS)
    code, _, _ = fix_run(tmp_path, "--fix")
    text = (tmp_path / "app.py").read_text()
    assert code == 0
    assert "tools = [SPECS[name] for name in sorted(enabled)]" in text
    assert "enabled = set(SPECS)  # which tools this tenant may use" in text
    assert rules_found(tmp_path) == []


@pytest.mark.parametrize("before,after", [
    ("tools = [SPECS[n] for n in list(set(SPECS))]", "tools = [SPECS[n] for n in sorted(set(SPECS))]"),
    ("tools = [SPECS[n] for n in set(SPECS)]", "tools = [SPECS[n] for n in sorted(set(SPECS))]"),
])
def test_fix_sorts_sets_in_place(tmp_path: Path, before: str, after: str) -> None:
    source = SET_TOOLS.replace("    enabled = set(SPECS)  # which tools this tenant may use\n", "").replace(
        "    tools = [SPECS[name] for name in enabled]", "    " + before)
    write_tree(tmp_path, source)
    assert rules_found(tmp_path) == ["PC002"]  # the shape this fix exists for must stay flagged
    fix_run(tmp_path, "--fix")
    assert "    " + after in (tmp_path / "app.py").read_text()
    assert rules_found(tmp_path) == []


LISTED_SKILLS = """
import os
from openai import OpenAI
RULES = "Use a skill only when the task names its trigger words. " * 40
def run(task: str, history: list):
    names = os.listdir("skills")  # one folder per skill
    skills = "\\n".join(f"- {name}" for name in names)
    return OpenAI().chat.completions.create(model="gpt-4.1", messages=[
        {"role": "system", "content": "Skills:\\n" + skills + "\\n" + RULES}, *history,
        {"role": "user", "content": task}])
"""


def test_fix_sorts_a_directory_listing_where_it_is_iterated(tmp_path: Path) -> None:
    write_tree(tmp_path, LISTED_SKILLS)
    assert rules_found(tmp_path) == ["PC003"]
    code, out, _ = fix_run(tmp_path, "--show-fixes")
    assert '+    skills = "\\n".join(f"- {name}" for name in sorted(names))' in out.splitlines()
    code, _, _ = fix_run(tmp_path, "--fix")
    text = (tmp_path / "app.py").read_text()
    assert code == 0 and 'skills = "\\n".join(f"- {name}" for name in sorted(names))' in text
    assert 'names = os.listdir("skills")  # one folder per skill' in text
    assert rules_found(tmp_path) == []


def test_unsafe_fix_needs_the_flag_and_can_be_previewed(tmp_path: Path) -> None:
    write_tree(tmp_path, CLOCK_BUST)
    original = (tmp_path / "app.py").read_text()
    code, _, err = fix_run(tmp_path, "--fix")
    assert code == 1 and "available with --unsafe-fixes" in err
    assert (tmp_path / "app.py").read_text() == original

    code, out, _ = fix_run(tmp_path, "--show-fixes", "--unsafe-fixes")
    assert code == 1 and out.startswith("--- a/app.py\n+++ b/app.py\n")
    assert '-    system = f"Current time: {datetime.now()}\\n" + POLICY' in out
    assert "+    system = POLICY" in out
    assert (tmp_path / "app.py").read_text() == original  # a preview writes nothing

    code, _, _ = fix_run(tmp_path, "--fix", "--unsafe-fixes")
    text = (tmp_path / "app.py").read_text()
    assert code == 0
    assert '{"role": "user", "content": question + f"\\n\\nCurrent time: {datetime.now()}"}' in text
    ast.parse(text)
    assert rules_found(tmp_path) == []
    code, out, _ = fix_run(tmp_path, "--show-fixes", "--unsafe-fixes")
    assert (code, out) == (0, "")


def test_unsafe_fix_keeps_the_rest_of_the_fstring(tmp_path: Path) -> None:
    source = CLOCK_BUST.replace('f"Current time: {datetime.now()}\\n" + POLICY',
                                'f"You are the refund agent of {COMPANY}.\\nCurrent time: {datetime.now()}\\n" + POLICY'
                                ).replace("client = ", "COMPANY = 'ACME'\nclient = ")
    source = source.replace("from openai import OpenAI\n", "from openai import OpenAI\nCOMPANY = 'ACME'\n")
    write_tree(tmp_path, source)
    fix_run(tmp_path, "--fix", "--unsafe-fixes")
    text = (tmp_path / "app.py").read_text()
    assert 'system = f"You are the refund agent of {COMPANY}.\\n" + POLICY' in text
    assert 'question + f"\\n\\nCurrent time: {datetime.now()}"' in text


def test_crlf_line_endings_survive(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_bytes(SET_TOOLS.lstrip().replace("\n", "\r\n").encode())
    fix_run(tmp_path, "--fix")
    data = (tmp_path / "app.py").read_bytes()
    assert b"for name in sorted(enabled)]\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")


def _finding_with_fix(path: str, edit: Edit) -> Finding:
    location = Location(path, 1, 1, 1, 2)
    return Finding("PC004", "unstable-json-serialization", Severity.ERROR, location, "m",
                   CallSite(location, "openai.chat.completions", "openai"), fix=Fix("test", True, (edit,)))


def test_a_fix_that_would_break_the_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = json.dumps(data)\n", encoding="utf-8")
    broken = _finding_with_fix("app.py", Edit("app.py", 4, 4, "("))
    report = plan_fixes(AnalysisResult((broken,), ()), tmp_path, tmp_path, unsafe=False)
    assert report.changed == {} and "would not parse" in report.refused[0][1]


def test_a_fix_outside_the_project_is_refused(tmp_path: Path) -> None:
    (tmp_path / "outside.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "project").mkdir()
    finding = _finding_with_fix("outside.py", Edit("outside.py", 0, 1, "y"))
    report = plan_fixes(AnalysisResult((finding,), ()), tmp_path / "project", tmp_path, unsafe=False)
    assert report.changed == {} and "outside the project" in report.refused[0][1]


def test_parse_problem_checks_libcst_and_ast() -> None:
    assert parse_problem("x = 1\n", Path("a.py")) is None
    assert parse_problem("def f(:\n", Path("a.py"))
    assert apply_edits("abcdef", [Edit("f", 4, 6, "XY"), Edit("f", 0, 1, "Z")]) == "ZbcdXY"


def test_fixes_on_the_corpus_never_break_a_file_and_are_idempotent(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(FIXTURES / "corpus", corpus, ignore=shutil.ignore_patterns("__pycache__"))
    fixed_cases = []
    for case in sorted(p for p in corpus.iterdir() if p.is_dir()):
        config = replace(load_config(case), cache_dir=None)
        with_fixes = run_check([case], config, CheckOptions(show_fixes=True, unsafe_fixes=True), case)
        report = with_fixes.fixes
        assert report is not None and not report.refused, (case.name, report.refused)
        for display, (_, after) in report.changed.items():
            ast.parse(after, filename=display)
            (case / display).write_text(after, encoding="utf-8")
        if report.changed:
            fixed_cases.append(case.name)
            again = run_check([case], config, CheckOptions(show_fixes=True, unsafe_fixes=True), case)
            assert again.fixes is not None and again.fixes.changed == {}, (case.name, again.fixes.diff())
        for path in case.rglob("*.py"):
            ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    assert fixed_cases, "no corpus case has a fix: the fixers are not exercised"


def test_fix_changes_only_the_files_named(tmp_path: Path) -> None:
    """pre-commit names the staged files: a fix in another file is reported, not written."""
    registry = """
SPECS = {"search": {"type": "function", "function": {"name": "search"}},
         "lookup": {"type": "function", "function": {"name": "lookup"}}}
def tool_list() -> list:
    enabled = set(SPECS)
    return [SPECS[name] for name in enabled]
"""
    bot = """
from openai import OpenAI
from agent.registry import tool_list
def run(messages: list):
    return OpenAI().chat.completions.create(model="gpt-4.1", tools=tool_list(), messages=messages)
"""
    write_tree(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n", "agent/__init__.py": "",
                          "agent/registry.py": registry, "agent/bot.py": bot})
    before = (tmp_path / "agent/registry.py").read_text()
    assert rules_found(tmp_path, "agent/bot.py") == ["PC002"]
    code, _, err = cli("check", "agent/bot.py", "--fix", cwd=tmp_path)
    assert code == 1 and "agent/registry.py: not among the paths given" in err
    assert (tmp_path / "agent/registry.py").read_text() == before
    code, _, err = cli("check", "agent", "--fix", cwd=tmp_path)
    assert code == 0 and "sorted(enabled)" in (tmp_path / "agent/registry.py").read_text()
