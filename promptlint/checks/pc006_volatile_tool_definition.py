r"""PC006 volatile-tool-definition.

## What it does
Finds a value that changes between calls inside a tool definition: a description that mentions
the current time, a schema enum built from a set, a tool name with a request id. Also finds a tool
added to the request's tools only when a threshold test on what the call measured holds
(`if viewport["pageTop"] > 5: tools.append(TOOL_SCROLL_UP)`): the tools then differ from one call
to the next.

## Why is this bad?
Tool definitions come first in the cached prefix. Any change there invalidates the tools, the
system prompt and all messages: nothing of the request is served from cache.

## Example
```python
tools = [{"name": "book", "description": f"Book a room. Today is {date.today()}.", "input_schema": SCHEMA}]
```

## Use instead
```python
tools = [{"name": "book", "description": "Book a room.", "input_schema": SCHEMA}]  # put the date in the user turn
```
For a tool that only makes sense sometimes, send it on every call and say in the latest message
when it applies ("the page cannot scroll further up"), or refuse the call in the tool itself.

## Known problems
Per-day values are reported as `info`: one miss a day. A tool chosen per call is reported as a
`warning`: the prefix misses only on the calls where the test's answer changes. The lists read as
tools are named in rules/prompt_sinks.yaml `tool_list_names` (`tools`, `functions`; add yours
with `tool-list-names`); only ordering comparisons of a local or a parameter count as per-call
tests (`len(history) > limit`), other than against 0 or 1 (`len(tools) > 0` asks whether there
are any). A tool chosen by an equality with a setting (`environment == "browser"`), a flag or a
None test is the same for every call of one configuration and is not reported. Tools filtered in
a comprehension by a changing value are reported with that value.

## Fix safety
No automatic fix.
"""

from __future__ import annotations

from typing import Iterable

from promptlint.analysis.derived import CHOSEN_TOOLS
from promptlint.checks.base import SEVERITY_BY_VOLATILITY, Rule, RuleContext, describe_hole, volatile_holes
from promptlint.model import Finding, Hole, PromptLayout, Severity, Volatility


class VolatileToolDefinition(Rule):
    code = "PC006"
    name = "volatile-tool-definition"
    summary = "A tool definition contains a value that changes between calls"
    fix_hint = "keep tool definitions constant; pass changing values in the final user message"

    VALID = [
        """
from anthropic import Anthropic
TOOLS = [{"name": "book_room", "description": "Book a meeting room.",
          "input_schema": {"type": "object", "properties": {"room": {"type": "string"}}}}]
def book(messages: list):
    return Anthropic().messages.create(model="claude-sonnet-4-5", max_tokens=200, tools=TOOLS,
                                       messages=messages)
""",
        """
from openai import OpenAI
CLICK = {"type": "function", "function": {"name": "click", "description": "Click an element."}}
SCROLL_UP = {"type": "function", "function": {"name": "scroll_up", "description": "Scroll up."}}
class Surfer:
    def __init__(self, can_scroll: bool):
        self.can_scroll = can_scroll
    def step(self, history: list):
        tools = [CLICK]
        if self.can_scroll:  # a setting of this agent: the same tools on every call
            tools.append(SCROLL_UP)
        return OpenAI().chat.completions.create(model="gpt-4.1", tools=tools, messages=history)
""",
    ]
    INVALID = [
        """
from datetime import datetime
from anthropic import Anthropic
def book(messages: list):
    tools = [{"name": "book_room",
              "description": f"Book a meeting room. Now: {datetime.now().isoformat()}",
              "input_schema": {"type": "object", "properties": {"room": {"type": "string"}}}}]
    return Anthropic().messages.create(model="claude-sonnet-4-5", max_tokens=200, tools=tools,
                                       messages=messages)
""",
        """
from openai import OpenAI
CLICK = {"type": "function", "function": {"name": "click", "description": "Click an element."}}
SCROLL_UP = {"type": "function", "function": {"name": "scroll_up", "description": "Scroll up."}}
def step(page, history: list):
    top = page.evaluate("window.scrollY")
    tools = [CLICK]
    if top > 5:  # what this step measured: the tools change as the page scrolls
        tools.append(SCROLL_UP)
    return OpenAI().chat.completions.create(model="gpt-4.1", tools=tools, messages=history)
""",
    ]

    def check(self, layout: PromptLayout, layout_index: int, context: RuleContext) -> Iterable[Finding]:
        chosen = False
        for index, part, hole in volatile_holes(layout):
            if part != "tools" or hole.volatility is Volatility.ORDER_UNSTABLE:
                continue
            if hole.category == CHOSEN_TOOLS:
                if not chosen:  # one finding per request: the first test that changes its tools
                    chosen = True
                    yield self.finding(layout, layout_index, index, hole, Severity.WARNING,
                                       _chosen_message(hole, layout))
                continue
            severity = SEVERITY_BY_VOLATILITY[hole.volatility]
            message = (f"{describe_hole(hole)} inside a tool definition of the `{layout.call.api}` "
                       "call: tools come first, so no part of the request can be cached")
            yield self.finding(layout, layout_index, index, hole, severity, message)


def _chosen_message(hole: Hole, layout: PromptLayout) -> str:
    chosen = hole.origin.source if hole.origin else hole.expression  # "tools added when `<test>`"
    return (f"the tools sent with the `{layout.call.api}` request change between calls: {chosen}, a test of "
            "what this call measured; tools come first, so each time its answer changes, the system prompt and "
            "the whole history after them miss the cache")
