r"""PC002 unstable-tool-order.

## What it does
Finds tool lists whose order can change between calls: built by iterating a `set`, from
`list(set(...))`, from a dict filled in set order, shuffled, or loaded from a directory listing
(`os.listdir`, `glob.glob`, `Path.iterdir`/`glob`/`rglob`).

## Why is this bad?
Tools are the very first thing in the cached prefix (OpenAI, Anthropic, Bedrock and Gemini all
put them before the system prompt). A different order is a different prefix: the whole request
misses. Iteration order of a set of strings changes with every process (hash randomization), so
every worker sends its own order and the cache thrashes.

## Example
```python
tools = [TOOL_SPECS[name] for name in set(enabled_tools)]
```

## Use instead
```python
tools = [TOOL_SPECS[name] for name in sorted(set(enabled_tools))]
```

## Known problems
Tool lists assembled by code the analyzer cannot see (an MCP server's `list_tools()`) are not
flagged; sort them by name before sending. A set's order changes with every process (error); a
directory listing keeps the file system's order, one order per machine until files change
(warning: each machine, replica or checkout warms a prefix of its own).

## Fix safety
`--fix` wraps the unordered iterable in `sorted(...)`: safe, it only fixes the order.
"""

from __future__ import annotations

from typing import Iterable

from promptlint.checks.base import DIR_ORDER_NOTE, Rule, RuleContext, describe_hole, volatile_holes
from promptlint.model import Finding, PromptLayout, Severity, Volatility


class UnstableToolOrder(Rule):
    code = "PC002"
    name = "unstable-tool-order"
    summary = "The order of tool definitions can change between calls"
    fix_hint = "sort the tools (e.g. `sorted(names)`) so every call sends them in one order"

    VALID = [
        """
from openai import OpenAI
SPECS = {"search": {"type": "function", "function": {"name": "search"}},
         "lookup": {"type": "function", "function": {"name": "lookup"}}}
def run(enabled: set, messages: list):
    tools = [SPECS[name] for name in sorted(enabled)]
    return OpenAI().chat.completions.create(model="gpt-4.1", tools=tools, messages=messages)
""",
    ]
    INVALID = [
        """
import json
from pathlib import Path
from openai import OpenAI
TOOLS_DIR = Path(__file__).parent / "tools"
def run(messages: list):
    tools = [json.loads(spec.read_text()) for spec in TOOLS_DIR.glob("*.json")]
    return OpenAI().chat.completions.create(model="gpt-4.1", tools=tools, messages=messages)
""",
        """
from openai import OpenAI
SPECS = {"search": {"type": "function", "function": {"name": "search"}},
         "lookup": {"type": "function", "function": {"name": "lookup"}}}
def run(messages: list):
    enabled = set(SPECS)
    tools = [SPECS[name] for name in enabled]
    return OpenAI().chat.completions.create(model="gpt-4.1", tools=tools, messages=messages)
""",
    ]

    def check(self, layout: PromptLayout, layout_index: int, context: RuleContext) -> Iterable[Finding]:
        for index, part, hole in volatile_holes(layout):
            if part != "tools" or hole.volatility is not Volatility.ORDER_UNSTABLE:
                continue
            if hole.category == "json-order":
                continue
            message = (f"tool definitions of the `{layout.call.api}` call are sent in an order that "
                       f"changes between runs ({describe_hole(hole)}); tools come first in the prompt, "
                       "so the whole request misses the cache")
            severity = Severity.ERROR
            if hole.category == "dir-order":
                severity = Severity.WARNING  # one order per machine: a prefix of its own per deployment
                message += f"; {DIR_ORDER_NOTE}"
            yield self.finding(layout, layout_index, index, hole, severity, message)
