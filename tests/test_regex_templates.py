"""Prompt templates a project fills with a regular expression of its own (AGiXT's
`custom_format`, onyx's `PromptTemplate`), and a clock written just before the request's own
content in a one-message prompt. Small programs through the real analyzer."""

from __future__ import annotations

from pathlib import Path

from promptlint.analysis.regex_sub import compiled
from promptlint.analysis.values import lit
from promptlint.config import Config
from promptlint.engine import analyze
from promptlint.model import Finding
from tests.conftest import write_tree

RULES = "Answer with the names of the selected commands only, comma-separated, nothing else. " * 100

CUSTOM_FORMAT = '''
import re
from datetime import datetime
from openai import OpenAI

_FIELD = re.compile(r"(?<!{){([^{}\\n]+)}(?!})")


def custom_format(string, **kwargs):
    def fill(match):
        key = match.group(1)
        value = kwargs.get(key, match.group(0))
        if isinstance(value, list):
            return "".join(str(x) for x in value)
        return str(value)
    return _FIELD.sub(fill, string)


def answer(user_input: str):
    prompt = custom_format(TEMPLATE, date=datetime.now().strftime("%B %d, %Y %I:%M %p"), user_input=user_input)
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": prompt}])
'''


def findings(tmp_path: Path, source: str) -> list[Finding]:
    root = write_tree(tmp_path, {"app.py": source})
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    assert not result.errors, result.errors
    return result.findings


def test_a_template_filled_by_a_regex_callback_is_read_with_its_values(tmp_path: Path) -> None:
    # INVALID: the clock and the question open the only message, ~5,000 characters of rules follow.
    template = f'TEMPLATE = """Today is {{date}}.\nUsers latest input: {{user_input}}\n\n## Rules\n{RULES}"""\n'
    (found,) = [f for f in findings(tmp_path, CUSTOM_FORMAT + template) if f.severity.value != "info"]
    assert found.rule == "PC010" and "datetime.now()" in found.message
    # The finding points at the template's placeholder, where the fix moves the rules above.
    written = (tmp_path / "app.py").read_text().splitlines()
    assert found.location.path == "app.py"
    assert "Today is {date}" in written[found.location.line - 1]


def test_a_regex_filled_template_with_its_values_last_is_clean(tmp_path: Path) -> None:
    # VALID: the rules first, then what changes.
    template = f'TEMPLATE = """## Rules\n{RULES}\nToday is {{date}}.\nUsers latest input: {{user_input}}\n"""\n'
    assert not [f for f in findings(tmp_path, CUSTOM_FORMAT + template) if f.severity.value != "info"]


def test_a_prompt_template_class_filled_by_pattern_sub(tmp_path: Path) -> None:
    # onyx's PromptTemplate: `---name---` fields, a callback looking each up in the values given.
    app = f'''
import re
from openai import OpenAI


class PromptTemplate:
    def __init__(self, template: str, pattern: str = r"---([a-zA-Z0-9_]+)---"):
        self._pattern = re.compile(pattern)
        self._template = template

    def build(self, **kwargs: str) -> str:
        def repl(match: re.Match) -> str:
            return kwargs.get(match.group(1), match.group(0))
        return self._pattern.sub(repl, self._template)


SYSTEM = PromptTemplate("You help ---user_name--- with their documents.\\n" + {RULES!r})


def answer(user_name: str, history: list, question: str):
    system = SYSTEM.build(user_name=user_name)
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": system}}, *history, {{"role": "user", "content": question}}])
'''
    found = [f for f in findings(tmp_path, app) if f.rule == "PC001" and f.severity.value != "info"]
    assert found and "user_name" in found[0].message, found


def test_re_sub_with_a_string_keeps_the_values_it_does_not_touch(tmp_path: Path) -> None:
    app = f'''
import re
import time
from openai import OpenAI
RULES = {RULES!r}


def answer(history: list, question: str):
    system = re.sub(r"\\n{{3,}}", "\\n\\n", f"Request started at {{time.time()}}\\n\\n\\n\\n" + RULES)
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": system}}, *history, {{"role": "user", "content": question}}])
'''
    found = [f for f in findings(tmp_path, app) if f.rule == "PC001"]
    assert found and found[0].severity.value == "error", found


def test_a_pattern_that_could_backtrack_without_end_is_not_run() -> None:
    assert compiled(lit(r"(a+)+$")) is None
    assert compiled(lit(r"(\w*\s?)*x")) is None
    assert compiled(lit(r"(a|aa)+b")) is None
    assert compiled(lit("x" * 300)) is None
    assert compiled(lit("(unclosed")) is None
    assert compiled(lit(r"---([a-zA-Z0-9_]+)---")) is not None


def test_a_clock_just_before_the_question_loses_the_rules_after_both(tmp_path: Path) -> None:
    # PC001 sees nothing the clock alone loses (the question follows at once); the rules after both
    # are lost on every call, which is PC010's finding, from the first value on.
    app = f'''
from datetime import datetime
from openai import OpenAI
RULES = {RULES!r}


def answer(question: str):
    prompt = PROMPT
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[{{"role": "user", "content": prompt}}])
'''
    late = app.replace("PROMPT", 'f"Now: {datetime.now()}\\nQuestion: {question}\\n{RULES}"')
    (found,) = [f for f in findings(tmp_path / "late", late) if f.severity.value != "info"]
    assert found.rule == "PC010" and "datetime.now()" in found.message
    # VALID twin: the rules first.
    first = app.replace("PROMPT", 'f"{RULES}\\nNow: {datetime.now()}\\nQuestion: {question}"')
    assert not [f for f in findings(tmp_path / "first", first) if f.severity.value != "info"]
    # A value whose order is fixed per process is no clock: PC010 does not start from it ("filled
    # per call" would be wrong); the set order is PC003's.
    ordered = late.replace("{datetime.now()}", "{', '.join(set(question.split()))}")
    assert not [f for f in findings(tmp_path / "ordered", ordered) if f.rule == "PC010"]
