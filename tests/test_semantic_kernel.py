"""Semantic Kernel prompt functions, and counters an object steps between turns.

A prompt function's template (handlebars, Semantic Kernel's `{{$name}}` or Jinja2) is rendered
with the `KernelArguments` of each `invoke`, and its `<message role="...">` tags are the messages
sent. The guided-conversation planner of microsoft/semantic-kernel (bench/wild label
semantic-kernel-01) writes the turns left, a counter its resource object steps once per turn, into
the middle of its long system message.
"""

from __future__ import annotations

from pathlib import Path

from promptlint.analysis.templates import _handlebars_as_jinja, sk_messages
from promptlint.analysis.values import Mapping, Seq, lit
from promptlint.config import Config
from promptlint.engine import analyze
from promptlint.model import Hole, Volatility
from tests.conftest import write_tree

RULES = "\n".join(f"- Rule {n}: ask one question at a time and keep every answer in the schema." for n in range(30))

BUDGET = '''
class Budget:
    def __init__(self, turns: int):
        self.remaining = turns
        self.turn_number = 0

    def next_turn(self) -> None:
        self.remaining -= 1
        self.turn_number += 1
'''

PLANNER = '''
from semantic_kernel import Kernel
from semantic_kernel.functions import KernelArguments
from app.budget import Budget

PLAN = """<message role="system">You plan the next step of the interview. \\
{{#if show_turns}}Turns left: {{ turns_left }}.{{/if}}
RULES
</message>
<message role="user">{{ history }}</message>"""


async def plan(kernel: Kernel, budget: Budget, history: str):
    function = kernel.add_function(prompt=PLAN, function_name="plan", plugin_name="interview",
                                   template_format="handlebars")
    arguments = KernelArguments(show_turns=True, turns_left=budget.remaining, history=history)
    return await kernel.invoke(function=function, arguments=arguments)
'''.replace("RULES", RULES)


def findings(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, int, str, str]]:
    root = write_tree(tmp_path, files)
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert not result.errors, result.errors
    return [(f.location.path, f.location.line, f.location.column, f.severity.value, f.message)
            for f in result.findings]


def test_a_counter_in_the_system_message_of_a_prompt_function_is_reported_at_its_placeholder(tmp_path: Path) -> None:
    """INVALID: the line and column are the placeholder's in the source (after a `\\` line
    continuation inside the string), the origin is the statement that steps the counter."""
    found = findings(tmp_path, {"app/budget.py": BUDGET, "app/planner.py": PLANNER})
    assert [(path, line, column, severity) for path, line, column, severity, _ in found] == [
        ("app/planner.py", 6, 31, "error")]
    message = found[0][4]
    assert "per-request counter `self.remaining -= 1`" in message and "`semantic_kernel.invoke` prompt" in message


def test_the_same_counter_in_the_users_message_is_quiet(tmp_path: Path) -> None:
    """VALID: the rules first, the turns left with the conversation."""
    planner = PLANNER.replace("{{#if show_turns}}Turns left: {{ turns_left }}.{{/if}}", "").replace(
        "<message role=\"user\">{{ history }}", "<message role=\"user\">Turns left: {{ turns_left }}\n{{ history }}")
    assert planner.count("turns_left }}") == 1
    assert findings(tmp_path, {"app/budget.py": BUDGET, "app/planner.py": planner}) == []


def test_a_counter_stepped_by_assignment_is_a_counter_too(tmp_path: Path) -> None:
    """INVALID: `self.remaining = self.remaining - 1` is the same step as `-= 1`."""
    budget = BUDGET.replace("self.remaining -= 1", "self.remaining = self.remaining - 1")
    found = findings(tmp_path, {"app/budget.py": budget, "app/planner.py": PLANNER})
    assert [(line, severity) for _, line, _, severity, _ in found] == [(6, "error")]
    assert "per-request counter `self.remaining = self.remaining - 1`" in found[0][4]


def test_a_counter_a_base_class_steps(tmp_path: Path) -> None:
    """INVALID: the planner is handed a subclass; the base class steps the count."""
    budget = BUDGET.replace("class Budget:", "class BaseBudget:") + "\n\nclass Budget(BaseBudget):\n    pass\n"
    found = findings(tmp_path, {"app/budget.py": budget, "app/planner.py": PLANNER})
    assert [(line, severity) for _, line, _, severity, _ in found] == [(6, "error")]


def test_an_attribute_set_only_by_the_constructor_is_no_counter(tmp_path: Path) -> None:
    """VALID: `self.remaining += 1` in `__init__` runs once per object, not once per turn."""
    budget = BUDGET.replace("    def next_turn(self) -> None:\n        self.remaining -= 1\n        self.turn_number += 1\n",
                            "").replace("self.turn_number = 0", "self.remaining += 1")
    assert "-= 1" not in budget
    assert findings(tmp_path, {"app/budget.py": budget, "app/planner.py": PLANNER}) == []


def test_semantic_kernel_format_and_invoke_prompt(tmp_path: Path) -> None:
    """INVALID: `{{$now}}` of Semantic Kernel's own format, a clock, opens the prompt sent by
    `invoke_prompt`; with no message tags the whole text is one user message."""
    app = '''
from datetime import datetime
from semantic_kernel import Kernel

PROMPT = "Today is {{$now}}.\\n" + "Answer in the style of the handbook, citing its sections. " * 60 + "{{$input}}"


async def answer(kernel: Kernel, question: str):
    return await kernel.invoke_prompt(PROMPT, arguments={"now": datetime.now().isoformat(), "input": question})
'''
    root = write_tree(tmp_path, {"app/answer.py": app})
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert [(f.location.line, f.rule) for f in result.findings] == [(4, "PC001")]
    assert "`datetime.now()`" in result.findings[0].message
    assert [part.name for part in result.layouts[0].parts] == ["final_user"]


def test_a_jinja2_prompt_function_made_by_its_class_and_invoked_itself(tmp_path: Path) -> None:
    """INVALID: `KernelFunctionFromPrompt(...)` called as `function.invoke(kernel, arguments)`."""
    app = '''
import uuid
from semantic_kernel.functions import KernelArguments, KernelFunctionFromPrompt

PROMPT = """<message role="system">Request {{ request_id }}.
RULES</message>
<message role="user">{{ question }}</message>"""

summarize = KernelFunctionFromPrompt(function_name="answer", prompt=PROMPT, template_format="jinja2")


async def answer(kernel, question: str):
    return await summarize.invoke(kernel, KernelArguments(request_id=str(uuid.uuid4()), question=question))
'''.replace("RULES", RULES)
    found = findings(tmp_path, {"app/answer.py": app})
    assert [(path, line, severity) for path, line, _, severity, _ in found] == [("app/answer.py", 4, "error")]
    assert "uuid.uuid4()" in found[0][4]


def test_a_template_the_conversion_cannot_read_is_skipped_without_an_error(tmp_path: Path) -> None:
    """VALID (not judged): an unclosed Jinja2 block stays unread, and is not the user's error."""
    app = PLANNER.replace('template_format="handlebars"', 'template_format="jinja2"').replace(
        "{{#if show_turns}}", "{% if show_turns %}").replace("{{/if}}", "")
    root = write_tree(tmp_path, {"app/budget.py": BUDGET, "app/planner.py": app})
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert result.findings == () and result.errors == ()


def test_handlebars_blocks_become_blanks_and_outputs_keep_their_names() -> None:
    source = 'a {{#if (eq x 1)}}b{{else if y}}c{{else}}d{{/if}} {{json art}} {{> part}} {{{raw}}} {{@index}}\n{{~ v ~}}'
    converted = _handlebars_as_jinja(source)
    blanks = [" " * len(tag) for tag in ("{{#if (eq x 1)}}", "{{else if y}}", "{{else}}", "{{/if}}")]
    assert converted.split("\n")[0] == "a {}b{}c{}d{} {{{{ json }}}} {{{{ value }}}} {{{{ raw }}}} {{{{ index }}}}".format(
        *blanks)
    assert converted.split("\n")[1] == "{{ v }}"


def test_message_tags_split_the_rendered_text_into_messages_in_order() -> None:
    stamp = Hole(Volatility.PER_REQUEST, "now", None)
    from promptlint.analysis.values import Text

    rendered = Text((*lit('<message role="system">Rules. ').segs, stamp,
                     *lit('</message>\n<message role="assistant">Hi</message>\nTail').segs))
    messages = sk_messages(rendered)
    assert isinstance(messages, Seq)
    roles = [m.get("role") for m in messages.items if isinstance(m, Mapping)]
    assert roles == [lit("system"), lit("assistant"), lit("user")]
    system = messages.items[0].get("content")  # type: ignore[union-attr]
    assert stamp in system.segs  # type: ignore[union-attr]
