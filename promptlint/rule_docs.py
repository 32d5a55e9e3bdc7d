"""Rule documentation, exactly as written in each rule module's docstring, for every place that
shows it: `promptlint rule CODE` (terminal), `promptlint rule CODE --markdown` and the committed
pages under docs/rules/, and SARIF (`help.markdown`, `helpUri`).

The rule modules' docstrings are raw strings (``r\"\"\"...\"\"\"``), so a ``\\n`` inside a code
example stays the two characters a reader would type, and every example is valid Python.

``helpUri``: the page of the rule under ``docs/rules/`` of the repository promptlint comes from.
Its base is ``PROMPTLINT_DOCS_URL`` (e.g. ``https://github.com/OWNER/promptlint/blob/v0.1.0/docs/rules/``;
the GitHub Action sets it from the repository and ref the workflow pinned); without it SARIF
carries no ``helpUri`` rather than a guessed one, and ``help.markdown`` holds the whole page.
"""

from __future__ import annotations

import importlib
import os

from promptlint.checks import RULES, Rule

DOCS_URL_ENV = "PROMPTLINT_DOCS_URL"
PAGES_FOLDER = "docs/rules"


def rule_doc(rule: Rule) -> str:
    """The rule module's docstring, stripped, byte for byte otherwise."""
    return (importlib.import_module(type(rule).__module__).__doc__ or "").strip()


def find_rule(code_or_name: str) -> Rule | None:
    wanted = code_or_name.strip()
    return next((r for r in RULES if r.code == wanted.upper() or r.name == wanted), None)


def rule_page(rule: Rule) -> str:
    """The Markdown page of a rule: a title, then the docstring's sections unchanged."""
    doc = rule_doc(rule)
    first, _, rest = doc.partition("\n")
    title = first.strip().rstrip(".") or f"{rule.code} {rule.name}"
    body = rest.strip()
    return f"# {title}\n\n{rule.summary}\n\n{body}\n" if body else f"# {title}\n\n{rule.summary}\n"


def rules_index() -> str:
    lines = ["# promptlint rules", "", "Generated from the rule modules by `python scripts/gen_rule_docs.py`; "
             "do not edit by hand.", "", "| Code | Name | What it finds |", "|---|---|---|"]
    lines += [f"| [{r.code}]({r.code}.md) | `{r.name}` | {r.summary} |" for r in RULES]
    return "\n".join(lines) + "\n"


def pages() -> dict[str, str]:
    """File name under docs/rules/ -> content, for every rule and the index."""
    return {"README.md": rules_index(), **{f"{r.code}.md": rule_page(r) for r in RULES}}


def help_uri(rule: Rule) -> str | None:
    base = os.environ.get(DOCS_URL_ENV, "").strip()
    if not base:
        return None
    return base.rstrip("/") + f"/{rule.code}.md"
