r"""PC006 volatile-tool-definition.

## What it does
Finds a value that changes between calls inside a tool definition: a description that mentions
the current time, a schema enum built from a set, a tool name with a request id.

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

## Known problems
Per-day values are reported as `info`: one miss a day.

## Fix safety
No automatic fix.
"""

from __future__ import annotations

from typing import Iterable

from promptlint.checks.base import SEVERITY_BY_VOLATILITY, Rule, RuleContext, describe_hole, volatile_holes
from promptlint.model import Finding, PromptLayout, Volatility


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
    ]

    def check(self, layout: PromptLayout, layout_index: int, context: RuleContext) -> Iterable[Finding]:
        for index, part, hole in volatile_holes(layout):
            if part != "tools" or hole.volatility is Volatility.ORDER_UNSTABLE:
                continue
            severity = SEVERITY_BY_VOLATILITY[hole.volatility]
            message = (f"{describe_hole(hole)} inside a tool definition of the `{layout.call.api}` "
                       "call: tools come first, so no part of the request can be cached")
            yield self.finding(layout, layout_index, index, hole, severity, message)
