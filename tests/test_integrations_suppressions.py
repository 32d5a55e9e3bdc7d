"""Inline suppressions through the real CLI: promptlint/noqa comments, unused and unknown codes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from promptlint.checks import RULES_BY_CODE
from promptlint.config import Config
from promptlint.engine import analyze
from promptlint.suppressions import SuppressionStats, apply_suppressions, parse_directives
from tests.conftest import write_tree
from tests.integration_helpers import CLOCK_BUST, CROSS_MODULE, check_json, rules_found

LINE = '    system = f"Current time: {datetime.now()}\\n" + POLICY'


def with_comment(comment: str) -> str:
    return CLOCK_BUST.replace(LINE, f"{LINE}  {comment}")


def test_unsuppressed_example_is_found(tmp_path: Path) -> None:
    write_tree(tmp_path, CLOCK_BUST)
    assert rules_found(tmp_path) == ["PC001"]


def test_promptlint_ignore_with_code_suppresses(tmp_path: Path) -> None:
    write_tree(tmp_path, with_comment("# promptlint: ignore[PC001]"))
    assert rules_found(tmp_path) == []


def test_rule_name_works_like_its_code(tmp_path: Path) -> None:
    write_tree(tmp_path, with_comment("# promptlint: ignore[volatile-before-stable]"))
    assert rules_found(tmp_path) == []


def test_noqa_with_our_code_suppresses_and_other_codes_are_left_alone(tmp_path: Path) -> None:
    write_tree(tmp_path, with_comment("# noqa: E501, PC001"))
    assert rules_found(tmp_path) == []


def test_bare_noqa_does_not_suppress(tmp_path: Path) -> None:
    write_tree(tmp_path, with_comment("# noqa"))
    assert rules_found(tmp_path) == ["PC001"]


def test_blanket_promptlint_ignore_suppresses_every_rule(tmp_path: Path) -> None:
    write_tree(tmp_path, with_comment("# promptlint: ignore"))
    assert rules_found(tmp_path) == []


def test_suppression_at_the_line_where_the_value_is_born(tmp_path: Path) -> None:
    source = CLOCK_BUST.replace(LINE, '    now = datetime.now()  # promptlint: ignore[PC001]\n'
                                      '    system = f"Current time: {now}\\n" + POLICY')
    write_tree(tmp_path, source)
    assert rules_found(tmp_path) == []


def test_wrong_code_does_not_suppress_and_is_reported_unused(tmp_path: Path) -> None:
    write_tree(tmp_path, with_comment("# promptlint: ignore[PC002]"))
    assert sorted(rules_found(tmp_path)) == ["PC001", "PC900"]


def test_unknown_code_suppresses_nothing_and_is_reported(tmp_path: Path) -> None:
    write_tree(tmp_path, with_comment("# noqa: PC999"))
    found = rules_found(tmp_path)
    assert sorted(found) == ["PC001", "PC900"]


def test_unused_suppression_is_reported_with_its_location(tmp_path: Path) -> None:
    source = 'SYSTEM = "You are a careful assistant."  # promptlint: ignore[PC001]\n'
    write_tree(tmp_path, source)
    from tests.integration_helpers import check_json

    code, report = check_json(tmp_path)
    assert code == 1
    [finding] = report["findings"]
    assert (finding["rule"], finding["line"], finding["column"]) == ("PC900", 1, 44)
    assert "unused suppression of `PC001`" in finding["message"]


def test_unused_suppression_of_an_unselected_rule_is_not_reported(tmp_path: Path) -> None:
    write_tree(tmp_path, 'SYSTEM = "x"  # promptlint: ignore[PC001]\n')
    assert rules_found(tmp_path, "--select", "PC002,PC900") == []


def test_pc900_can_be_ignored_and_suppressed(tmp_path: Path) -> None:
    write_tree(tmp_path, 'SYSTEM = "x"  # promptlint: ignore[PC001]\nOTHER = "y"  # promptlint: ignore[PC001, PC900]\n')
    assert rules_found(tmp_path, "--ignore", "PC900") == []
    assert [f for f in rules_found(tmp_path)] == ["PC900"]  # only the first line


def test_suppression_inside_a_string_is_not_a_comment(tmp_path: Path) -> None:
    write_tree(tmp_path, with_comment("").replace("+ POLICY", '+ "# promptlint: ignore[PC001]" + POLICY'))
    assert "PC001" in rules_found(tmp_path)


def test_directives_in_templates_are_lines_not_tokens(tmp_path: Path) -> None:
    path = tmp_path / "system.j2"
    directives = parse_directives(path, "Hello {{ now }} {# promptlint: ignore[PC001] #}\n")
    assert [(d.line, d.codes) for d in directives] == [(1, ("PC001",))]


def test_pc900_follows_the_rule_conventions() -> None:
    rule = RULES_BY_CODE["PC900"]
    assert rule.name == "unused-suppression" and rule.VALID and rule.INVALID


def test_pc900_examples_through_the_pipeline(tmp_path: Path) -> None:
    rule = RULES_BY_CODE["PC900"]
    for index, example in enumerate(rule.VALID):
        folder = write_tree(tmp_path / f"valid{index}", example)
        assert "PC900" not in rules_found(folder)
    for index, example in enumerate(rule.INVALID):
        folder = write_tree(tmp_path / f"invalid{index}", example)
        assert "PC900" in rules_found(folder)


# A finding over three lines (json.dumps of a dict built in set order, lines 9-11 of app.py).
MULTI_LINE = '''
import json
from openai import OpenAI

POLICY = "Follow the refund policy step by step and cite the relevant section. " * 20
TOPICS = {{"billing", "shipping", "returns"}}


def answer(question: str, history: list) -> str:
    system = "Catalog: " + json.dumps(  {first}
        {{name: "open" for name in TOPICS}},  {middle}
    ) + "\\n" + POLICY  {last}
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": system}}, *history, {{"role": "user", "content": question}}])
'''


def multi_line(first: str = "", middle: str = "", last: str = "") -> str:
    return MULTI_LINE.format(first=first, middle=middle, last=last)


def test_the_multi_line_example_spans_three_lines(tmp_path: Path) -> None:
    write_tree(tmp_path, multi_line())
    [finding] = check_json(tmp_path)[1]["findings"]
    assert (finding["rule"], finding["line"], finding["end_line"]) == ("PC004", 9, 11)


@pytest.mark.parametrize("where", ["first", "last"])
def test_a_suppression_on_the_first_or_last_line_of_a_multi_line_finding(tmp_path: Path, where: str) -> None:
    write_tree(tmp_path, multi_line(**{where: "# promptlint: ignore[PC004]"}))
    assert rules_found(tmp_path) == []


def test_a_suppression_inside_a_multi_line_finding_does_not_apply(tmp_path: Path) -> None:
    write_tree(tmp_path, multi_line(middle="# promptlint: ignore[PC004]"))
    assert sorted(rules_found(tmp_path)) == ["PC004", "PC900"]


def test_unused_suppression_location_and_message(tmp_path: Path) -> None:
    source = with_comment("# promptlint: ignore[PC002]")
    write_tree(tmp_path, source)
    unused = [f for f in check_json(tmp_path)[1]["findings"] if f["rule"] == "PC900"]
    text = (tmp_path / "app.py").read_text(encoding="utf-8")
    line_number = text[:text.index("# promptlint")].count("\n") + 1
    line = text.split("\n")[line_number - 1]
    column = line.index("promptlint: ignore[PC002]") + 1
    assert [(f["line"], f["column"], f["end_line"], f["end_column"], f["severity"]) for f in unused] == \
        [(line_number, column, line_number, column + len("promptlint: ignore[PC002]"), "warning")]


# Every kind of unused suppression, with its exact message and the span of the directive text.
UNUSED_KINDS = [
    ("noqa: E501, PC002", "unused suppression of `PC002` (no such finding on this line)"),
    ("promptlint: ignore", "blanket suppression `promptlint: ignore` suppresses nothing on this line"),
    ("promptlint: ignore[XX1, XX2, PC003, PC004]",
     "unknown rule codes `XX1`, `XX2` (suppresses nothing); unused suppression of `PC003`, `PC004` "
     "(no such finding on this line)"),
    ("promptlint: ignore[XX9]", "unknown rule code `XX9` (suppresses nothing)"),
]


def test_unused_suppressions_exactly(tmp_path: Path) -> None:
    source = with_comment("# noqa: E501, PC002") + \
        "\nX = 1  # promptlint: ignore\nY = 2  # promptlint: ignore[XX1, XX2, PC003, PC004]\nZ = 3  # promptlint: ignore[XX9]\n"
    write_tree(tmp_path, {"sub/app.py": source})
    text = (tmp_path / "sub/app.py").read_text(encoding="utf-8")
    expected = []
    for directive, message in UNUSED_KINDS:
        offset = text.index(directive)
        line = text.count("\n", 0, offset) + 1
        column = offset - text.rfind("\n", 0, offset)
        expected.append({"path": "sub/app.py", "line": line, "column": column, "end_line": line,
                         "end_column": column + len(directive), "message": message})
    found = [f for f in check_json(tmp_path)[1]["findings"] if f["rule"] == "PC900"]  # run from the parent folder
    assert [{k: f[k] for k in expected[0]} for f in found] == expected
    rule = RULES_BY_CODE["PC900"]
    for f in found:
        assert (f["name"], f["severity"], f["hint"]) == (rule.name, "warning", rule.fix_hint)
        assert (f["call_site"]["api"], f["call_site"]["provider"]) == ("", "")
        assert re.fullmatch(r"[0-9a-f]{16}", f["fingerprint"])
    assert len({f["fingerprint"] for f in found}) == len(found)


def test_a_stale_suppression_of_a_rule_ignored_for_the_file_is_not_reported(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app.py": with_comment("# promptlint: ignore[PC001, PC002]"),
                          "pyproject.toml": '[tool.promptlint]\nper-file-ignores = {"app.py" = ["PC002"]}\n'})
    assert rules_found(tmp_path) == []


def test_a_suppression_where_the_value_is_born_in_a_file_not_passed(tmp_path: Path) -> None:
    """pre-commit passes only the staged file; the comment sits where the value is born."""
    files = dict(CROSS_MODULE)
    files["helpdesk/sections.py"] = files["helpdesk/sections.py"].replace(
        'return f"Current time: {datetime.now().isoformat()}"',
        'return f"Current time: {datetime.now().isoformat()}"  # promptlint: ignore[PC001]')
    write_tree(tmp_path, files)
    assert rules_found(tmp_path, "helpdesk/bot.py") == []
    write_tree(tmp_path, CROSS_MODULE)
    assert rules_found(tmp_path, "helpdesk/bot.py") == ["PC001"]


# The value is born in clock.py, enters the prompt in prompts.py and reaches the call in bot.py.
THREE_FILES = {
    "helpdesk/__init__.py": "",
    "helpdesk/clock.py": """
from datetime import datetime
def stamp() -> str:
    return datetime.now().isoformat()  {born}
""",
    "helpdesk/prompts.py": """
from helpdesk.clock import stamp
RULES = "Answer politely, cite the knowledge base, never promise refunds. " * 20
def system_prompt() -> str:
    return f"Time: {{stamp()}}\\n" + RULES  {enters}
""",
    "helpdesk/bot.py": """
from openai import OpenAI
from helpdesk.prompts import system_prompt
def reply(history: list, question: str):
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system_prompt()}, *history, {"role": "user", "content": question}])
""",
}


def three_files(born: str = "", enters: str = "") -> dict[str, str]:
    return {name: text.format(born=born, enters=enters) if "{born}" in text or "{enters}" in text else text
            for name, text in THREE_FILES.items()}


@pytest.mark.parametrize("where", ["born", "enters"])
def test_a_comment_in_a_file_that_is_neither_checked_nor_the_call(tmp_path: Path, where: str) -> None:
    write_tree(tmp_path, three_files())
    [finding] = check_json(tmp_path, "helpdesk/bot.py")[1]["findings"]  # control: found without the comment
    assert (finding["path"], finding["volatile_source"]["path"]) == ("helpdesk/prompts.py", "helpdesk/clock.py")
    write_tree(tmp_path, three_files(**{where: "# promptlint: ignore[PC001]"}))
    assert rules_found(tmp_path, "helpdesk/bot.py") == []


def test_the_python_api_with_another_working_directory(tmp_path: Path) -> None:
    """apply_suppressions works from its ``cwd`` argument, not the process's working directory."""
    root = write_tree(tmp_path / "project", {"app.py": with_comment("# promptlint: ignore[PC001]") +
                                             "X = 1  # promptlint: ignore[PC002]\n", "other.py": CLOCK_BUST})
    config = Config(root=root, cache_dir=None)
    result = analyze([root], config, cwd=root)
    assert [f.rule for f in result.findings] == ["PC001", "PC001"]
    kept, stats = apply_suppressions(result, config, root, [root / "app.py", root / "other.py"])
    assert stats == SuppressionStats(suppressed=1, unused=1)
    assert [(f.rule, f.location.path, f.call_site.location.path) for f in kept.findings] == \
        [("PC900", "app.py", "app.py"), ("PC001", "other.py", "other.py")]


def test_per_file_ignores_of_other_files_leave_a_stale_code_reported(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app.py": with_comment("# promptlint: ignore[PC001, PC002]"),
                          "pyproject.toml": '[tool.promptlint]\nper-file-ignores = {"other/*" = ["PC002"]}\n'})
    assert rules_found(tmp_path) == ["PC900"]


def test_unused_directives_of_a_checked_file_after_a_file_not_checked(tmp_path: Path) -> None:
    """Directives of files outside the check (here a_clock.py, sorted first) are skipped, not an end."""
    write_tree(tmp_path, {
        "a_clock.py": "from datetime import datetime\ndef stamp() -> str:\n"
                      "    return datetime.now().isoformat()  # promptlint: ignore[PC001]\n",
        "b_app.py": "from openai import OpenAI\nfrom a_clock import stamp\n"
                    "RULES = 'Answer politely and cite the knowledge base. ' * 30\n"
                    "X = 1  # promptlint: ignore[PC002]\n"
                    "def reply(history: list, question: str):\n"
                    "    return OpenAI().chat.completions.create(model='gpt-4o', messages=[\n"
                    "        {'role': 'system', 'content': f'Time: {stamp()}' + RULES}, *history,\n"
                    "        {'role': 'user', 'content': question}])\n"})
    assert rules_found(tmp_path, "b_app.py") == ["PC900"]


def test_a_file_that_is_not_utf8_with_a_directive_does_not_stop_the_check(tmp_path: Path) -> None:
    write_tree(tmp_path, CLOCK_BUST)
    (tmp_path / "legacy.py").write_bytes(b"from openai import OpenAI  # promptlint: ignore[PC001]\n"
                                         b"NAME = 'caf\xe9'\n")
    code, document = check_json(tmp_path)
    assert [(f["path"], f["rule"]) for f in document["findings"]] == [("app.py", "PC001"), ("legacy.py", "PC900")]
    assert [(e["path"], e["kind"]) for e in document["errors"]] == [("legacy.py", "input")]
    assert code == 1


def test_template_directives_exactly_and_noqa_is_python_only(tmp_path: Path) -> None:
    path = tmp_path / "system.j2"
    text = "Hi\nHello {{ now }} {# promptlint: ignore[PC001] #} {# noqa: PC002 #}\n"
    [directive] = parse_directives(path, text)
    column = text.split("\n")[1].index("promptlint: ignore[PC001]") + 1
    assert (directive.path, directive.line, directive.column, directive.end_column, directive.codes) == \
        (path, 2, column, column + len("promptlint: ignore[PC001]"), ("PC001",))


@pytest.mark.parametrize("codes,reported", [('["ALL"]', []), ('["PC002"]', []), ('["PC003"]', ["PC900"])])
def test_per_file_ignores_by_file_name_in_a_subfolder(tmp_path: Path, codes: str, reported: list[str]) -> None:
    """``"app.py" = [...]`` matches sub/app.py too; a stale PC002 there is quiet only if PC002 is ignored."""
    write_tree(tmp_path, {"sub/app.py": with_comment("# promptlint: ignore[PC001, PC002]"),
                          "pyproject.toml": f'[tool.promptlint]\nper-file-ignores = {{"app.py" = {codes}}}\n'})
    assert rules_found(tmp_path) == reported


@pytest.mark.parametrize("suffix", [".py", ".pyi"])
def test_python_and_stub_directives_are_read_from_comments_only(suffix: str) -> None:
    """In Python (stubs too) a directive is a comment token: the same text inside a string is not
    one, while a template or YAML file is read line by line."""
    text = 'NOTE = "# promptlint: ignore[PC001]"\nx = 1  # promptlint: ignore[PC003]\n'
    assert [(d.line, d.codes) for d in parse_directives(Path(f"stub{suffix}"), text)] == [(2, ("PC003",))]
    assert [d.line for d in parse_directives(Path("notes.txt"), text)] == [1, 2]
