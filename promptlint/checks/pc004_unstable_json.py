r"""PC004 unstable-json-serialization.

## What it does
Finds `json.dumps(...)` without `sort_keys=True` of a dict whose key order can change between
calls (filled while iterating a set, or built from an unordered collection), when the JSON lands
in the prompt before stable content.

## Why is this bad?
JSON keys are written in insertion order. If the insertion order varies, the same data
serializes to different text, and every token after it misses the cache.

## Example
```python
profile = {key: data[key] for key in set(fields)}
system = "User profile: " + json.dumps(profile) + "\n" + INSTRUCTIONS
```

## Use instead
```python
system = "User profile: " + json.dumps(profile, sort_keys=True) + "\n" + INSTRUCTIONS
```

## Known problems
Dicts that come from outside the analysis (an API response, a database row) are not flagged:
their order is unknown, not shown to vary. Do not add `sort_keys=True` to JSON that the model
produced itself (tool-call arguments replayed in history): re-serializing it differently from what
the engine generated busts a local KV cache.

## Fix safety
`--fix` adds `sort_keys=True`: safe, the data is unchanged.
"""

from __future__ import annotations

from typing import Iterable

from promptlint.checks.base import Rule, RuleContext, stable_after, volatile_holes
from promptlint.model import Finding, PromptLayout, Severity


class UnstableJsonSerialization(Rule):
    code = "PC004"
    name = "unstable-json-serialization"
    summary = "json.dumps without sort_keys of a dict whose key order varies, before stable content"
    fix_hint = "pass `sort_keys=True` to json.dumps"

    VALID = [
        """
import json
from openai import OpenAI
INSTRUCTIONS = "Use the profile to personalise answers but never reveal it. " * 20
def answer(fields: set, data: dict, question: str):
    profile = {key: data.get(key) for key in fields}
    system = "Profile: " + json.dumps(profile, sort_keys=True) + "\\n" + INSTRUCTIONS
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
""",
    ]
    INVALID = [
        """
import json
from openai import OpenAI
INSTRUCTIONS = "Use the profile to personalise answers but never reveal it. " * 20
def answer(data: dict, question: str):
    profile = {key: data.get(key) for key in {"name", "plan", "region"}}
    system = "Profile: " + json.dumps(profile) + "\\n" + INSTRUCTIONS
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
""",
    ]

    def check(self, layout: PromptLayout, layout_index: int, context: RuleContext) -> Iterable[Finding]:
        for index, part, hole in volatile_holes(layout):
            if hole.category != "json-order":
                continue
            after = stable_after(layout, index)
            if part != "tools" and not after.matters(context):
                continue
            message = (f"`{hole.expression}` serializes a dict whose key order changes between calls, "
                       f"before {after.describe() or 'the rest of the prompt'} in the "
                       f"`{layout.call.api}` prompt")
            yield self.finding(layout, layout_index, index, hole, Severity.ERROR, message)
