"""Where a finding in a prompt file points: the placeholder's own line and columns in YAML block
scalars and Jinja2 templates, through the real analyzer (columns 1-based, end exclusive)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptlint.config import Config
from promptlint.engine import analyze
from tests.conftest import write_tree

YAML_APP = '''
from datetime import datetime
from pathlib import Path

import yaml
from openai import OpenAI

client = OpenAI()
PROMPTS = yaml.safe_load((Path(__file__).parent / "prompts.yaml").read_text(encoding="utf-8"))


def ask(question: str) -> str:
    system = PROMPTS["system"].format(now=datetime.now().isoformat())
    response = client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
    return response.choices[0].message.content
'''

JINJA_APP = '''
from datetime import datetime
from pathlib import Path

from jinja2 import Environment, FileSystemLoader
from openai import OpenAI

client = OpenAI()
TEMPLATES = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"))


def ask(question: str, user: str) -> str:
    system = TEMPLATES.get_template("system.j2").render(user=user, now=datetime.now())
    response = client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
    return response.choices[0].message.content
'''

INLINE_JINJA_APP = '''
from datetime import datetime

from jinja2 import Template
from openai import OpenAI

client = OpenAI()
SYSTEM = Template("Be brief. {{ user }} asked at {{ now }}. Stable rules follow: " + "rule " * 400)


def ask(question: str, user: str) -> str:
    system = SYSTEM.render(user=user, now=datetime.now())
    response = client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
    return response.choices[0].message.content
'''

RULES = "".join(f"  Rule {i}: answer in full sentences and cite the policy section.\n" for i in range(40))


def spans(root: Path, path: str) -> list[tuple[int, int, int, int]]:
    """(line, column, end_line, end_column) of every finding in ``path``."""
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert not result.errors, result.errors
    return sorted((f.location.line, f.location.column, f.location.end_line, f.location.end_column)
                  for f in result.findings if f.location.path == path)


def where(text: str, needle: str) -> tuple[int, int, int, int]:
    """The only occurrence of ``needle`` in ``text``."""
    assert text.count(needle) == 1, needle
    offset = text.index(needle)
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column, line, column + len(needle)


def yaml_case(tmp_path: Path, prompts: str) -> tuple[list[tuple[int, int, int, int]], str]:
    write_tree(tmp_path, {"app.py": YAML_APP, "prompts.yaml": prompts})
    return spans(tmp_path, "prompts.yaml"), (tmp_path / "prompts.yaml").read_text(encoding="utf-8")


def test_literal_block_placeholder_on_a_later_line(tmp_path: Path) -> None:
    # The value drops the block's 4-space indentation: the column must count it back.
    found, text = yaml_case(tmp_path, "system: |\n    You are the support assistant.\n\n"
                                      "    Sent at {now}.\n" + RULES.replace("  ", "    "))
    assert found == [where(text, "{now}")]


def test_literal_block_keeps_leading_blank_lines_apart(tmp_path: Path) -> None:
    found, text = yaml_case(tmp_path, "system: |+\n\n\n  Sent at {now}.\n" + RULES)
    assert found == [where(text, "{now}")]


def test_folded_block_placeholder(tmp_path: Path) -> None:
    # `>` joins the lines with spaces: offsets in the value are no guide to lines in the file.
    found, text = yaml_case(tmp_path, "system: >\n  You are the support assistant\n"
                                      "  for Acme. Sent at {now}.\n\n" + RULES)
    assert found == [where(text, "{now}")]


def test_nested_block_placeholder_on_its_first_line(tmp_path: Path) -> None:
    prompts = "triage:\n  system: |\n      Ticket received at {now}.\n" + RULES.replace("  ", "      ")
    found, text = yaml_case(tmp_path, prompts.replace("triage:\n  system", "system"))
    assert found == [where(text, "{now}")]


def test_jinja_expression_columns(tmp_path: Path) -> None:
    template = ("{# {{ now }} in a comment is no output #}\n"
                "Hello {{ user }}, the time is {{ now }}.\n" + RULES)
    write_tree(tmp_path, {"app.py": JINJA_APP, "templates/system.j2": template})
    text = (tmp_path / "templates/system.j2").read_text(encoding="utf-8")
    assert spans(tmp_path, "templates/system.j2") == [where(text, "{{ now }}.")[:3]
                                                       + (where(text, "{{ now }}.")[3] - 1,)]


def test_jinja_expression_inside_a_block(tmp_path: Path) -> None:
    template = "Rules:\n{% if user %}\n  Dear {{ user }}, now {{now}}\n{% endif %}\n" + RULES
    write_tree(tmp_path, {"app.py": JINJA_APP, "templates/system.j2": template})
    text = (tmp_path / "templates/system.j2").read_text(encoding="utf-8")
    assert spans(tmp_path, "templates/system.j2") == [where(text, "{{now}}")]


def test_inline_jinja_template_counts_from_the_string(tmp_path: Path) -> None:
    write_tree(tmp_path, INLINE_JINJA_APP)
    text = (tmp_path / "app.py").read_text(encoding="utf-8")
    assert spans(tmp_path, "app.py") == [where(text, "{{ now }}")]


ESCAPED_BREAKS_APP = '''
from datetime import datetime
from openai import OpenAI

client = OpenAI()
RULES = "Answer in full sentences and cite the policy section you used. " * 40
TEMPLATE = "Support desk.\\n\\nTicket received at {now}.\\n" + RULES


def ask(question: str) -> str:
    system = TEMPLATE.format(now=datetime.now().isoformat())
    response = client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
    return response.choices[0].message.content
'''


CONTINUED_JINJA_APP = '''
from datetime import datetime

from jinja2 import Template
from openai import OpenAI

client = OpenAI()
SYSTEM = Template("""You are the support assistant of Acme, \\
answering in full sentences.
Ticket received at {{ now }}.
""" + "Cite the policy section you used. " * 60)


def ask(question: str) -> str:
    system = SYSTEM.render(now=datetime.now())
    response = client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
    return response.choices[0].message.content
'''


@pytest.mark.parametrize("app,slot", [(ESCAPED_BREAKS_APP, "{now}"), (CONTINUED_JINJA_APP, "{{ now }}")],
                         ids=["escaped-line-breaks", "jinja-after-a-line-continuation"])
def test_placeholder_in_a_string_whose_lines_are_not_the_source_s(tmp_path: Path, app: str, slot: str) -> None:
    # `\n` escapes break the value's lines, not the source's (the slot was counted two lines
    # further down); a `\` at a line's end joins two source lines into one line of the value (a
    # Jinja2 template is placed piece by piece; it was counted one line up).
    write_tree(tmp_path, {"app.py": app})
    text = (tmp_path / "app.py").read_text(encoding="utf-8")
    assert spans(tmp_path, "app.py") == [where(text, slot)]


JSON_APP = '''
import json
from datetime import datetime
from openai import OpenAI
client = OpenAI()
PROMPTS = json.load(open("prompts.json"))
def ask(question: str) -> str:
    system = PROMPTS["support"]["system"].format(now=datetime.now())
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
'''


def test_a_json_string_is_placed_where_the_file_writes_it_even_when_an_earlier_one_is_the_same(
        tmp_path: Path) -> None:
    # The same text under "sales" first: each value is searched for after the one before it (the
    # parser keeps the file's order), so "support" points at its own copy.
    system = "You are the assistant. Sent at {now}. " + "Answer in full sentences and cite the policy. " * 60
    text = json.dumps({"sales": {"system": system}, "support": {"title": "Support", "system": system}}, indent=2)
    write_tree(tmp_path, {"app.py": JSON_APP, "prompts.json": text})
    second = text.index(system, text.index('"support"'))
    line = text.count("\n", 0, second) + 1
    [(found_line, *_)] = spans(tmp_path, "prompts.json")
    assert found_line == line and line > text.count("\n", 0, text.index(system)) + 1


TEMPLATE_USER_APP = '''
from pathlib import Path

from jinja2 import Environment, FileSystemLoader
from openai import OpenAI

client = OpenAI()
TEMPLATES = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"))


def plan(state) -> str:
    prompt = TEMPLATES.get_template("plan.j2").render(state=state)
    response = client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": "You plan software work."}, {"role": "user", "content": prompt}])
    return response.choices[0].message.content
'''


def test_a_template_value_is_named_by_its_whole_path(tmp_path: Path) -> None:
    # `{{ state.project["files"] }}` names the value a reviewer looks for; its last name alone
    # (`files`) could be anything the template reads.
    rules = "Split the work into small tasks and list the files each task touches. " * 40
    write_tree(tmp_path, {"app.py": TEMPLATE_USER_APP,
                          "templates/plan.j2": 'Files:\n{{ state.project["files"] }}\n' + rules + "\n"})
    result = analyze([tmp_path], Config(root=tmp_path, cache_dir=None, show_info=True), cwd=tmp_path)
    [finding] = [f for f in result.findings if f.rule == "PC010"]
    assert "filled per call from `state.project.files` on" in finding.message
    assert (finding.location.path, finding.location.line) == ("templates/plan.j2", 2)
