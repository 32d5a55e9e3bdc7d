r"""PC005 volatile-cache-key.

## What it does
Finds a cache routing key or salt (`prompt_cache_key`, `cache_salt`, a conversation id header)
that is new on every request: a fresh uuid, the clock, a random number.

## Why is this bad?
OpenAI routes requests by a hash of the prompt start combined with `prompt_cache_key`; vLLM
mixes `cache_salt` into the first block's hash. A key that changes per request sends every call
to a cold cache: 0 % hits however stable the prompt is.

## Example
```python
client.chat.completions.create(..., prompt_cache_key=str(uuid.uuid4()))
```

## Use instead
```python
client.chat.completions.create(..., prompt_cache_key=f"support-bot-{hash(user_id) % 16}")
```

## Known problems
A per-user key is the recommended use and is not flagged.

## Fix safety
No automatic fix: choosing the key's granularity is a decision about traffic.
"""

from __future__ import annotations

from typing import Iterable

from promptlint.checks.base import Rule, RuleContext, describe_hole
from promptlint.model import Finding, Hole, PromptLayout, Severity, Volatility


class VolatileCacheKey(Rule):
    code = "PC005"
    name = "volatile-cache-key"
    summary = "A cache key or salt changes on every request"
    fix_hint = "use a stable key: per prompt family, or per user bucket"

    VALID = [
        """
from openai import OpenAI
def ask(user_id: str, messages: list):
    return OpenAI().chat.completions.create(model="gpt-4o", messages=messages,
                                            prompt_cache_key=f"support-{user_id}")
""",
    ]
    INVALID = [
        """
import uuid
from openai import OpenAI
def ask(messages: list):
    return OpenAI().chat.completions.create(model="gpt-4o", messages=messages,
                                            prompt_cache_key=str(uuid.uuid4()))
""",
    ]

    def check(self, layout: PromptLayout, layout_index: int, context: RuleContext) -> Iterable[Finding]:
        for setting in layout.settings:
            hole = setting.value
            if not isinstance(hole, Hole) or hole.volatility is not Volatility.PER_REQUEST:
                continue
            message = (f"`{setting.name}` of the `{layout.call.api}` call is a {describe_hole(hole)}: "
                       "every request is routed to a cold cache")
            yield self.finding(layout, layout_index, -1, hole, Severity.ERROR, message)
