"""Tools chosen per call: a browser agent adds `scroll_up` to its tools only while the page is
scrolled down (autogen's web surfer: `if viewport["pageTop"] > 5: tools.append(TOOL_SCROLL_UP)`).
Tools come first in every provider's prefix, so each time the test's answer changes, the system
prompt and the whole history after the tools miss the cache (PC006). A tool chosen by a setting of
the deployment (a flag, an equality with a constant, whether there are any) is the same on every
call of one configuration and is not reported."""

from __future__ import annotations

from pathlib import Path

from promptlint.config import Config
from promptlint.engine import analyze
from promptlint.model import Finding
from tests.conftest import write_tree

SURFER = '''
from openai import OpenAI

CLICK = {"type": "function", "function": {"name": "click", "description": "Click an element."}}
SCROLL_UP = {"type": "function", "function": {"name": "scroll_up", "description": "Scroll up."}}
SYSTEM = "You browse the web for the user and report what you find. " * 40


class Surfer:
    def __init__(self, can_scroll: bool, mode: str):
        self.client = OpenAI()
        self.can_scroll = can_scroll
        self.mode = mode

    def step(self, page, history: list):
        viewport = page.evaluate("window.visualViewport")
        tools = [CLICK]
TEST
            tools.append(SCROLL_UP)
        messages = [{"role": "system", "content": SYSTEM}, *history]
        return self.client.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools)
'''


def tool_findings(tmp_path: Path, files: dict[str, str], **config: object) -> list[Finding]:
    root = write_tree(tmp_path, files)
    result = analyze([root], Config(root=root, cache_dir=None, **config), cwd=root)  # type: ignore[arg-type]
    assert not result.errors, result.errors
    return [f for f in result.findings if f.rule in ("PC002", "PC006")]


def test_a_tool_added_when_a_measured_threshold_holds_is_reported_where_it_is_added(tmp_path: Path) -> None:
    found = tool_findings(tmp_path, {"surfer.py": SURFER.replace("TEST", '        if viewport["pageTop"] > 5:')})
    assert [(f.rule, f.location.line, f.severity.value) for f in found] == [("PC006", 18, "warning")]
    assert '`viewport["pageTop"] > 5`' in found[0].message
    assert "the whole history after them miss the cache" in found[0].message


def test_a_tool_chosen_by_a_setting_is_the_same_on_every_call(tmp_path: Path) -> None:
    for test in ("if self.can_scroll:", 'if self.mode == "browser":', "if len(history) > 0:",
                 "if viewport is not None:"):
        found = tool_findings(tmp_path, {"surfer.py": SURFER.replace("TEST", f"        {test}")})
        assert found == [], test


def test_tools_handed_with_a_message_list_to_a_project_wrapper_are_judged_there(tmp_path: Path) -> None:
    files = {
        "model.py": '''
from openai import OpenAI

class ModelClient:
    def __init__(self):
        self.client = OpenAI()

    def create(self, messages: list, tools: list):
        return self.client.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools)
''',
        "surfer.py": '''
from model import ModelClient

CLICK = {"type": "function", "function": {"name": "click", "description": "Click an element."}}
SCROLL_DOWN = {"type": "function", "function": {"name": "scroll_down", "description": "Scroll down."}}


def step(client, page, history: list, request: str):
    viewport = page.evaluate("window.visualViewport")
    tools = [CLICK]
    if viewport["pageTop"] + viewport["height"] < viewport["scrollHeight"]:
        tools.append(SCROLL_DOWN)
    messages = [*history, {"role": "user", "content": request}]
    return client.create(messages, tools=tools)
''',
    }
    found = tool_findings(tmp_path, files)
    assert [(f.rule, f.location.path, f.location.line) for f in found] == [("PC006", "surfer.py", 11)]
    assert "messages passed to create()" in found[0].message


def test_lists_read_as_tools_are_knowledge_a_project_extends(tmp_path: Path) -> None:
    source = SURFER.replace("tools = [CLICK]", "actions = [CLICK]").replace("tools.append", "actions.append") \
        .replace("tools=tools", "tools=actions").replace("TEST", '        if viewport["pageTop"] > 5:')
    assert tool_findings(tmp_path, {"surfer.py": source}) == []
    found = tool_findings(tmp_path, {"surfer.py": source}, tool_list_names=("actions",))
    assert [(f.rule, f.location.line) for f in found] == [("PC006", 18)]


def test_a_filter_by_membership_in_a_set_keeps_the_order_of_the_list_it_walks(tmp_path: Path) -> None:
    program = '''
from openai import OpenAI


def run(history: list, allowed: list, specs: list):
    names = list(set(allowed))
    tools = [spec for spec in specs if spec["function"]["name"] in names]
    return OpenAI().chat.completions.create(model="gpt-4.1", messages=history, tools=tools)
'''
    assert tool_findings(tmp_path, {"app.py": program}) == []
    walked = program.replace('for spec in specs if spec["function"]["name"] in names', "for spec in names")
    assert [f.rule for f in tool_findings(tmp_path, {"app.py": walked})] == ["PC002"]
