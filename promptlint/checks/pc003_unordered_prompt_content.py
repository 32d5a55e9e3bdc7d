r"""PC003 unordered-prompt-content.

## What it does
Finds prompt text whose order changes between calls: few-shot examples passed through
`random.shuffle` or `random.sample`, sections produced by iterating a `set`, or by iterating a
directory listing (`os.listdir`, `glob.glob`, `Path.iterdir`/`glob`/`rglob`: skills, examples or
files loaded from a folder), placed before stable content.

## Why is this bad?
The same examples in another order are a different prefix. Everything after the first reordered
item misses the cache on every call, even though the content is "the same".

## Example
```python
examples = random.sample(EXAMPLES, 3)
system = "\n".join(examples) + "\n\n" + INSTRUCTIONS
```

## Use instead
```python
system = INSTRUCTIONS + "\n\n" + "\n".join(EXAMPLES[:3])  # a fixed choice, in a fixed order
```

## Known problems
Random choices that are deliberate (e.g. evaluation sampling) are still flagged if they reach a
prompt before stable content; put them last or fix the seed per conversation.
Severity follows the scope: a shuffle or sample changes on every call (error); a set of strings
keeps one order per process (hash randomization, `PYTHONHASHSEED`), so it costs a miss per worker
start and per worker in a pool (warning); a directory listing keeps the file system's order,
the same on one machine until files change and another on the next machine or checkout (warning).
At an assembly point with only a short known tail after it (a "new tools available" notice kept
in the history) the finding is `info`, and so is a set's order in a Jupyter notebook (all its
calls run in one kernel process, so they share one order). A set comprehension that provably
keeps nothing (`{m["f"] for m in msgs if isinstance(m, dict)}` over objects of a class) has one
order and is not reported, and neither is a set's or a listing's order after text that already
changes on every call (a step's search results, then the set of questions asked so far): the
prompt differs there anyway, so the order costs nothing more. Nor is an order fixed per process
inside a turn of the replayed history (a set of URLs joined into the user's text, which is stored
and re-sent as written); the order of a list of messages itself (examples listed from a folder)
is still reported.

## Fix safety
For set iteration and directory listings `--fix` wraps the iterable in `sorted(...)` (safe: the
same items in one order). Shuffles have no fix.
"""

from __future__ import annotations

from typing import Iterable

from promptlint.checks.base import (
    DIR_ORDER_NOTE,
    Rule,
    RuleContext,
    describe_hole,
    stable_after,
    volatile_holes,
)
from promptlint.analysis.layout import PER_PROCESS_ORDERS
from promptlint.model import Finding, Hole, PromptLayout, Severity, Volatility


class UnorderedPromptContent(Rule):
    code = "PC003"
    name = "unordered-prompt-content"
    summary = "Prompt text is shuffled, sampled or built in set order before stable content"
    fix_hint = "use a fixed order (sorted, or a fixed selection) or move this text after the stable parts"

    VALID = [
        """
import os
from openai import OpenAI
RULES = "Use a skill only when the task names its trigger words. " * 40
def run(task: str, history: list):
    skills = "\\n".join(f"- {name}" for name in sorted(os.listdir("skills")))
    return OpenAI().chat.completions.create(model="gpt-4.1", messages=[
        {"role": "system", "content": "Skills:\\n" + skills + "\\n" + RULES}, *history,
        {"role": "user", "content": task}])
""",
        """
import random
from anthropic import Anthropic
EXAMPLES = ["Q: 2+2? A: 4", "Q: 3+3? A: 6", "Q: 5+5? A: 10"]
RULES = "Answer with a number only. Show no working. " * 20
def ask(question: str):
    system = RULES + "\\n" + "\\n".join(EXAMPLES)
    shuffled = random.sample(EXAMPLES, 2)
    return Anthropic().messages.create(model="claude-haiku-4-5", max_tokens=20, system=system,
        messages=[{"role": "user", "content": "\\n".join(shuffled) + question}])
""",
    ]
    INVALID = [
        """
import os
from openai import OpenAI
RULES = "Use a skill only when the task names its trigger words. " * 40
def run(task: str, history: list):
    skills = "\\n".join(f"- {name}" for name in os.listdir("skills"))
    return OpenAI().chat.completions.create(model="gpt-4.1", messages=[
        {"role": "system", "content": "Skills:\\n" + skills + "\\n" + RULES}, *history,
        {"role": "user", "content": task}])
""",
        """
import random
from anthropic import Anthropic
EXAMPLES = ["Q: 2+2? A: 4", "Q: 3+3? A: 6", "Q: 5+5? A: 10"]
RULES = "Answer with a number only. Show no working. " * 20
def ask(question: str):
    random.shuffle(EXAMPLES)
    system = "\\n".join(EXAMPLES) + "\\n" + RULES
    return Anthropic().messages.create(model="claude-haiku-4-5", max_tokens=20, system=system,
        messages=[{"role": "user", "content": question}])
""",
    ]

    def check(self, layout: PromptLayout, layout_index: int, context: RuleContext) -> Iterable[Finding]:
        for index, part, hole in volatile_holes(layout):
            if part == "tools" or hole.volatility is not Volatility.ORDER_UNSTABLE:
                continue
            if hole.category == "json-order":
                continue
            if hole.is_history:
                # Inside turns of the replayed conversation (layout.history_hole): a turn stored
                # once is re-sent as written, in the order its process gave it.
                continue
            if hole.category in PER_PROCESS_ORDERS and _changed_before(layout, index, part):
                # One order per process after text that changes on every call (this step's search
                # results, then the set of questions asked so far): the order costs nothing more.
                continue
            after = stable_after(layout, index)
            if not after.matters(context):
                continue
            severity = Severity.ERROR
            if after.only_assumed:
                # Judged at an assembly point, with only a short known tail: a message built once
                # and kept in the history (a "new tools" notice) is resent unchanged.
                severity = Severity.INFO
            elif hole.category in ("set-order", "dir-order"):
                severity = Severity.WARNING  # one order per process (hash seed) or per machine
            message = (f"{describe_hole(hole)}: prompt content whose order changes between calls comes "
                       f"before {after.describe()} in the `{layout.call.api}` prompt")
            if hole.category == "set-order":
                message += ("; a set of strings iterates in an order fixed per process by PYTHONHASHSEED, "
                            "so each worker (and each restart) sends a different prefix")
            elif hole.category == "dir-order":
                message += f"; {DIR_ORDER_NOTE}"
            if hole.category == "set-order" and context.one_process:
                # A notebook's calls all run in one kernel: one process, one order, one prefix.
                severity = Severity.INFO
                message += "; a notebook runs in one kernel process, so its calls share one order (info)"
            yield self.finding(layout, layout_index, index, hole, severity, message)


def _changed_before(layout: PromptLayout, index: int, part: str) -> bool:
    """Whether the part of the prompt holding segment ``index`` (the system text, the messages of
    one role) already holds, before it, a value that changes on every call (a clock, a step's
    results, a shuffle)."""
    return any(name == part and isinstance(segment, Hole) and (
        segment.volatility is Volatility.PER_REQUEST
        or segment.volatility is Volatility.ORDER_UNSTABLE and segment.category not in PER_PROCESS_ORDERS)
        for name, segment in layout.segments()[:index])
