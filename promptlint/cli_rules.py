"""`promptlint rules` lists the rules; `promptlint rule CODE` prints one rule's documentation."""

from __future__ import annotations

from typing import Annotated

import typer

from promptlint.checks import RULES


def register(app: typer.Typer) -> None:
    app.command("rules")(list_rules)
    app.command("rule")(show_rule)


def list_rules() -> None:
    """List every rule: code, name, summary."""
    for rule in RULES:
        typer.echo(f"{rule.code}  {rule.name:<32} {rule.summary}")


def show_rule(
    code: Annotated[str, typer.Argument(help="Rule code (PC001) or name")],
    markdown: Annotated[bool, typer.Option("--markdown", help="Print the rule's Markdown page (docs/rules/)")] = False,
) -> None:
    """Print a rule's documentation, exactly as written in the rule's module."""
    from promptlint.rule_docs import find_rule, rule_doc, rule_page

    rule = find_rule(code)
    if rule is None:
        typer.echo(f"promptlint: error: unknown rule '{code}' (see `promptlint rules`)", err=True)
        raise typer.Exit(2)
    typer.echo(rule_page(rule) if markdown else rule_doc(rule), nl=not markdown)
