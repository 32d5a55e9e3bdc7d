"""A system prompt assembled from optional blocks (agno's `get_system_message`: `if
agent.add_datetime_to_context: ...`, `if agent.add_session_summary_to_context: ...`). A value
added under one option is a cause of its own: with that option alone on, it busts the cache, and
the finding of a value under another option says nothing about it. Values added unconditionally,
or under the same option, stay one finding (the later ones named on the first). A session's
running summary (`session.summary.summary`) is memory the conversation rewrites."""

from __future__ import annotations

from pathlib import Path

from promptlint.config import Config
from promptlint.engine import analyze
from promptlint.model import Finding
from tests.conftest import write_tree

AGENT = '''
import uuid
from datetime import datetime
from openai import OpenAI

RULES = "Answer in the house style and cite the section of the handbook you used. " * 60


class Agent:
    def __init__(self, add_time: bool, add_run_id: bool):
        self.client = OpenAI()
        self.add_time = add_time
        self.add_run_id = add_run_id

    def system_message(self) -> str:
        content = "You are the support agent.\\n"
        if self.add_time:
            content += f"The time is {datetime.now()}.\\n"
OPTION
            content += f"Run: {uuid.uuid4()}\\n"
        content += RULES
        return content

    def run(self, history: list, question: str) -> str:
        messages = [{"role": "system", "content": self.system_message()}, *history,
                    {"role": "user", "content": question}]
        reply = self.client.chat.completions.create(model="gpt-4.1", messages=messages)
        return reply.choices[0].message.content
'''


def findings(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    root = write_tree(tmp_path, files)
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert not result.errors, result.errors
    return [f for f in result.findings if f.rule == "PC001"]


def test_values_added_under_different_options_are_findings_of_their_own(tmp_path: Path) -> None:
    found = findings(tmp_path, {"agent.py": AGENT.replace("OPTION", "        if self.add_run_id:")})
    assert [(f.location.line, f.severity.value) for f in found] == [(17, "error"), (19, "error")]
    assert "clock" in found[0].message and "uuid" in found[1].message
    assert not any("also changes here" in r.message for f in found for r in f.related)
    # Each names the test that adds its value.
    assert [[r.location.line for r in f.related if "only when this test holds" in r.message] for f in found] \
        == [[16], [18]]


def test_values_added_under_the_same_option_are_one_finding(tmp_path: Path) -> None:
    # Both lines under `if self.add_time:`: moving the clock alone would not fix the prompt.
    [found] = findings(tmp_path, {"agent.py": AGENT.replace("OPTION\n", "")})
    assert found.location.line == 17
    assert [r.location.line for r in found.related if "also changes here" in r.message] == [18]


def test_a_value_added_unconditionally_covers_the_options_after_it(tmp_path: Path) -> None:
    # The clock is always there: the run id under its option adds no cause of its own.
    program = AGENT.replace("OPTION", "        if self.add_run_id:").replace(
        "        if self.add_time:\n            content +=", "        content +=")
    [found] = findings(tmp_path, {"agent.py": program})
    assert found.location.line == 16
    assert [r.location.line for r in found.related if "also changes here" in r.message] == [18]



def test_a_computed_condition_is_no_option(tmp_path: Path) -> None:
    # Both under tests, but the second is a budget check (vanna adds each retrieved document while
    # it fits): a step of the same assembly, so the run id is listed on the clock's finding.
    program = AGENT.replace("OPTION", "        if len(content) < 10000:")
    [found] = findings(tmp_path, {"agent.py": program.replace("if self.add_time:", "if len(content) < 20000:")})
    assert [r.location.line for r in found.related if "also changes here" in r.message] == [19]

SUMMARY = '''
from openai import OpenAI

RULES = "Answer in the house style and cite the section of the handbook you used. " * 60


class Agent:
    def __init__(self):
        self.client = OpenAI()

    def run(self, session, page, history: list, question: str) -> str:
        system = "You are the support agent.\\n"
        system += f"Summary of earlier conversations: {VALUE}\\n"
        system += RULES
        messages = [{"role": "system", "content": system}, *history, {"role": "user", "content": question}]
        return self.client.chat.completions.create(model="gpt-4.1", messages=messages).choices[0].message.content
'''


def test_a_sessions_running_summary_is_memory(tmp_path: Path) -> None:
    [found] = findings(tmp_path / "session", {"agent.py": SUMMARY.replace("VALUE", "session.summary.summary")})
    assert (found.location.line, found.severity.value) == (12, "error")
    assert "memory `session.summary`" in found.message
    # A web page's summary is not what the conversation remembers.
    assert findings(tmp_path / "page", {"agent.py": SUMMARY.replace("VALUE", "page.summary")}) == []
