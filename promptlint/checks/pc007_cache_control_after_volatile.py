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

Severity and message follow how often the value changes. A per-request value (a clock, an id) is
an error: no call ever reads the entry it writes. A per-user or per-session value (a user's name,
a conversation's id) is read again by that user's or conversation's later calls, so it only costs
the stable text after it that other users would have shared: it is a warning when such text
follows it up to the breakpoint (at least `min-stable-chars`), and not reported when only the
conversation's own history does. Per-day and once-per-process values are `info`.

## Fix safety
No automatic fix: `--unsafe-fixes` can swap the two blocks where they are literals in one list.
"""

from __future__ import annotations

from typing import Iterable

from promptlint.checks.base import (
    PER_CONVERSATION,
    SEVERITY_BY_VOLATILITY,
    Rule,
    RuleContext,
    breakpoints,
    describe_hole,
    stable_after,
    volatile_holes,
)
from promptlint.model import Finding, PromptLayout, Volatility

# What a value of each scope before the breakpoint costs: the entry written there is read again
# only by calls that share the value.
CONSEQUENCES = {
    Volatility.PER_USER: "each user writes a cache entry of their own, read only by that user's later calls, "
                         "so the stable text after it is written again for every user",
    Volatility.PER_SESSION: "each conversation writes a cache entry of its own, so the stable text after it is "
                            "written again for every conversation",
    Volatility.PER_DAY: "the cache entry is written anew once a day, for every conversation at once",
    Volatility.PER_PROCESS: "each worker process writes a cache entry of its own: workers and restarts never "
                            "read each other's",
}
EVERY_CALL = "every call writes a new cache entry and none is read"


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
        # A per-user value with only that user's conversation after it: the entry is theirs to read.
        """
from anthropic import Anthropic
def reply(user_name: str, messages: list):
    return Anthropic().messages.create(model="claude-sonnet-4-5", max_tokens=400, system=[
        {"type": "text", "text": f"User's name: {user_name}", "cache_control": {"type": "ephemeral"}}],
        messages=messages)
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
        # Every user writes the policy into a cache entry of their own.
        """
from anthropic import Anthropic
POLICY = "Refunds are allowed within 30 days of purchase with a receipt. " * 30
def reply(user_name: str, messages: list):
    return Anthropic().messages.create(model="claude-sonnet-4-5", max_tokens=400, system=[
        {"type": "text", "text": f"User's name: {user_name}"},
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
            # Only the text up to the breakpoint is written into the entry; a conversation's own
            # history is read back by its later calls.
            if hole.volatility in PER_CONVERSATION \
                    and not stable_after(layout, index, until=last_mark).matters(context, shared_only=True):
                continue
            severity = SEVERITY_BY_VOLATILITY[hole.volatility]
            consequence = CONSEQUENCES.get(hole.volatility, EVERY_CALL)
            message = (f"{describe_hole(hole)} comes before the cache breakpoint of the "
                       f"`{layout.call.api}` call: {consequence}")
            yield self.finding(layout, layout_index, index, hole, severity, message)
