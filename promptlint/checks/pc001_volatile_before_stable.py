"""PC001 volatile-before-stable.

## What it does
Finds a value that changes between calls (the clock, a uuid, a random number, a counter, a user
or session identifier) placed before stable prompt content: before the rest of a long system
prompt, or before the conversation history.

## Why is this bad?
Providers and serving engines cache the longest identical *prefix* of a prompt. One changing byte
makes every token after it a cache miss: the whole stable system prompt and the history are
billed and prefilled again on every call, and the first token comes later.
Volatile text at the very end of the system prompt still busts the cache when conversation
history follows it. Text inside the final user message is safe: nothing stable follows it.

## Example
```python
system = f"Current time: {datetime.now():%H:%M}\n" + LONG_INSTRUCTIONS
client.chat.completions.create(model="gpt-4o", messages=[
    {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
```

## Use instead
```python
client.chat.completions.create(model="gpt-4o", messages=[
    {"role": "system", "content": LONG_INSTRUCTIONS}, *history,
    {"role": "user", "content": f"{question}\n\n(Current time: {datetime.now():%H:%M})"}])
```

## Known problems
Severity follows how often the value changes: per-request values are errors (warnings when less
than about 500 tokens of stable text follow), per-user and per-session values warnings, per-day
and once-per-process values `info` (shown with `--show-info`). Values stored on an object in
`__init__` are assumed to live for one conversation. Unknown values (parameters, I/O) are not
flagged.

## Fix safety
No automatic fix: moving content changes what the model reads. `--unsafe-fixes` offers to move an
f-string's volatile field to the final user message where the layout is simple.
"""

from __future__ import annotations

from typing import Iterable

from promptlint.checks.base import (
    LONG_STABLE_CHARS,
    SEVERITY_BY_VOLATILITY,
    Rule,
    RuleContext,
    describe_hole,
    stable_after,
    volatile_holes,
)
from promptlint.model import Finding, PromptLayout, Severity, Volatility

ORDER_CATEGORIES = {"set-order", "shuffle", "sample", "json-order"}


class VolatileBeforeStable(Rule):
    code = "PC001"
    name = "volatile-before-stable"
    summary = "A value that changes between calls sits before stable prompt content"
    fix_hint = "move the volatile value after the stable parts (e.g. into the final user message)"

    VALID = [
        # Volatile text in the final user turn: nothing stable follows it.
        """
from datetime import datetime
from openai import OpenAI
client = OpenAI()
SYSTEM = "You are a careful assistant. " * 40
def answer(question: str, history: list) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": SYSTEM}, *history,
        {"role": "user", "content": f"{question} (now: {datetime.now()})"}])
""",
        # Evaluated once at import time: info at most.
        """
from datetime import datetime
from anthropic import Anthropic
STARTED = datetime.now().isoformat()
SYSTEM = f"Server started {STARTED}. " + "Follow the policy carefully. " * 30
def reply(messages: list):
    return Anthropic().messages.create(model="claude-sonnet-4-5", max_tokens=500, system=SYSTEM,
                                       messages=messages)
""",
    ]
    INVALID = [
        """
from datetime import datetime
from openai import OpenAI
client = OpenAI()
POLICY = "Follow the refund policy step by step and cite the relevant section. " * 20
def answer(question: str) -> str:
    system = f"Current time: {datetime.now()}\\n" + POLICY
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
""",
        {
            "app/clock.py": """
import time
def stamp() -> str:
    return f"Request time: {time.time()}"
""",
            "app/bot.py": """
import anthropic
from app.clock import stamp
client = anthropic.Anthropic()
def chat(history: list):
    system = "\\n\\n".join([stamp(), "You are a support agent for ACME."])
    return client.messages.create(model="claude-haiku-4-5", max_tokens=300, system=system,
                                  messages=history)
""",
        },
    ]

    def check(self, layout: PromptLayout, layout_index: int, context: RuleContext) -> Iterable[Finding]:
        for index, part, hole in volatile_holes(layout):
            if part == "tools" or hole.volatility is Volatility.ORDER_UNSTABLE:
                continue
            if hole.category in ORDER_CATEGORIES:
                continue
            after = stable_after(layout, index)
            if not after.matters(context):
                continue
            severity = SEVERITY_BY_VOLATILITY.get(hole.volatility, Severity.WARNING)
            if severity is Severity.ERROR and not after.history and after.chars < LONG_STABLE_CHARS:
                severity = Severity.WARNING
            message = (f"{describe_hole(hole)} comes before {after.describe()} in the "
                       f"`{layout.call.api}` prompt; every call misses the prefix cache from here on")
            yield self.finding(layout, layout_index, index, hole, severity, message)
