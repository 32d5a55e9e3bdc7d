r"""PC007 cache-control-after-volatile.

## What it does
Finds an explicit cache breakpoint (Anthropic `cache_control`, Bedrock `cachePoint`) that comes
after a value that changes between calls.

## Why is this bad?
Anthropic and Bedrock write a cache entry at the breakpoint, keyed by everything before it. If
that prefix contains a timestamp or a request id, every call writes a fresh entry (billed at
1.25x or 2x the input price) and none is ever read: caching costs more than no caching.

## Example
```python
system=[{"type": "text", "text": f"Now: {datetime.now()}"},
        {"type": "text", "text": POLICY, "cache_control": {"type": "ephemeral"}}]
```

## Use instead
```python
system=[{"type": "text", "text": POLICY, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": f"Now: {datetime.now()}"}]
```

## Known problems
Breakpoints set by code the analyzer cannot see (a wrapper library) are not checked.

## Fix safety
No automatic fix: `--unsafe-fixes` can swap the two blocks where they are literals in one list.
"""

from __future__ import annotations

from typing import Iterable

from promptlint.checks.base import SEVERITY_BY_VOLATILITY, Rule, RuleContext, breakpoints, describe_hole, volatile_holes
from promptlint.model import Finding, PromptLayout


class CacheControlAfterVolatile(Rule):
    code = "PC007"
    name = "cache-control-after-volatile"
    summary = "A cache breakpoint comes after content that changes between calls"
    fix_hint = "put the breakpoint on the last block that never changes; move volatile blocks after it"
    supersedes = ("PC001", "PC003", "PC004")

    VALID = [
        """
from datetime import datetime
from anthropic import Anthropic
POLICY = "Refunds are allowed within 30 days of purchase with a receipt. " * 30
def reply(messages: list):
    return Anthropic().messages.create(model="claude-sonnet-4-5", max_tokens=400, system=[
        {"type": "text", "text": POLICY, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": f"Now: {datetime.now()}"}], messages=messages)
""",
    ]
    INVALID = [
        """
from datetime import datetime
from anthropic import Anthropic
POLICY = "Refunds are allowed within 30 days of purchase with a receipt. " * 30
def reply(messages: list):
    return Anthropic().messages.create(model="claude-sonnet-4-5", max_tokens=400, system=[
        {"type": "text", "text": f"Now: {datetime.now()}"},
        {"type": "text", "text": POLICY, "cache_control": {"type": "ephemeral"}}], messages=messages)
""",
    ]

    def check(self, layout: PromptLayout, layout_index: int, context: RuleContext) -> Iterable[Finding]:
        marks = breakpoints(layout)
        if not marks:
            return
        last_mark = marks[-1]
        for index, part, hole in volatile_holes(layout):
            if index > last_mark:
                continue
            severity = SEVERITY_BY_VOLATILITY[hole.volatility]
            message = (f"{describe_hole(hole)} comes before the cache breakpoint of the "
                       f"`{layout.call.api}` call: every call writes a new cache entry and none is read")
            yield self.finding(layout, layout_index, index, hole, severity, message)
