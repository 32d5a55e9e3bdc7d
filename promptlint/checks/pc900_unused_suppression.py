r"""PC900 unused-suppression.

## What it does
Finds suppression comments (`# promptlint: ignore[CODE]`, `# noqa: CODE`) that suppress nothing:
no finding of that rule is reported on the line any more, or the code is not a promptlint rule.

## Why is this bad?
A suppression outlives the problem it silenced. Left in place it hides the next real cache bust
written on that line, and a misspelt code (`# noqa: PC01`) never suppressed anything at all, so
the reader believes a finding was reviewed when it was not.

## Example
```python
SYSTEM = "You are a careful assistant."  # promptlint: ignore[PC001]
```

## Use instead
```python
SYSTEM = "You are a careful assistant."
```

## Known problems
Only suppressions for selected rules are checked: with `--select PC002` a `PC001` suppression is
not reported. A bare `# noqa` (no codes) belongs to other tools and is never reported or used;
name the code. Suppressions are found in Python comments and, in templates and YAML files, in any
line containing `promptlint: ignore`.

## Fix safety
No automatic fix: delete the comment (or the stale code in it) by hand.
"""

from __future__ import annotations

from typing import Iterable

from promptlint.checks.base import Rule, RuleContext
from promptlint.model import Finding, PromptLayout


class UnusedSuppression(Rule):
    """Reported by the suppression stage (``promptlint.suppressions``), not by a layout check."""

    code = "PC900"
    name = "unused-suppression"
    summary = "A suppression comment that suppresses nothing (stale, or an unknown rule code)"
    fix_hint = "remove the suppression comment, or the code in it that no longer applies"
    pipeline_stage = "suppressions"  # the example tests run this rule through the check pipeline

    VALID = [
        """
from datetime import datetime
from openai import OpenAI
POLICY = "Follow the refund policy step by step and cite the relevant section. " * 20
def answer(question: str, history: list) -> str:
    system = f"Now: {datetime.now()}\\n" + POLICY  # promptlint: ignore[PC001]
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
""",
    ]
    INVALID = [
        """
from openai import OpenAI
POLICY = "Follow the refund policy step by step and cite the relevant section. " * 20
def answer(question: str, history: list) -> str:
    system = POLICY  # promptlint: ignore[PC001]
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
""",
        """
from openai import OpenAI
def answer(question: str) -> str:
    return OpenAI().chat.completions.create(  # noqa: PC999
        model="gpt-4o", messages=[{"role": "user", "content": question}])
""",
    ]

    def check(self, layout: PromptLayout, layout_index: int, context: RuleContext) -> Iterable[Finding]:
        return ()
