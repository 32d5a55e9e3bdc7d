"""`promptlint rules` lists the rules; `promptlint rule CODE` prints one rule's documentation."""

from __future__ import annotations

from typing import Annotated

import typer

from promptlint.checks import RULES, RULES_BY_CODE


def register(app: typer.Typer) -> None:
    app.command("rules")(list_rules)
    app.command("rule")(show_rule)


def list_rules() -> None:
    """List every rule: code, name, summary."""
    for rule in RULES:
        typer.echo(f"{rule.code}  {rule.name:<32} {rule.summary}")


def show_rule(code: Annotated[str, typer.Argument(help="Rule code (PC001) or name")]) -> None:
    """Print a rule's documentation."""
    rule = RULES_BY_CODE.get(code.upper()) or next((r for r in RULES if r.name == code), None)
    if rule is None:
        typer.echo(f"promptlint: error: unknown rule '{code}' (see `promptlint rules`)", err=True)
        raise typer.Exit(2)
    typer.echo((type(rule).__module__ and __import__(type(rule).__module__, fromlist=["x"]).__doc__ or "").strip())
