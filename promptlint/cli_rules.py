"""`promptlint rules` lists the rules; `promptlint rule CODE` prints one rule's documentation."""

from __future__ import annotations

from typing import Annotated

import typer

from promptlint.checks import RULES


def register(app: typer.Typer) -> None:
    app.command("rules")(list_rules)
    app.command("rule")(show_rule)


def list_rules(
    frameworks: Annotated[bool, typer.Option(
        "--frameworks", help="List the SDKs and frameworks the analyzer knows (rules/*.yaml and your config)")] = False,
) -> None:
    """List every rule: code, name, summary."""
    if frameworks:
        list_frameworks()
        return
    for rule in RULES:
        typer.echo(f"{rule.code}  {rule.name:<32} {rule.summary}")


# What each knowledge table makes of a framework's names (rules/llm_calls.yaml, prompt_sinks.yaml).
COVERAGE = (
    ("apis", "LLM calls (the whole request, in the provider's order)"),
    ("client_wrappers", "calls that wrap a client and send the same requests (instructor, tracing)"),
    ("system_messages", "system messages judged where they are built"),
    ("agent_instructions", "agent and chain constructors whose arguments become the system prompt"),
    ("agent_settings", "agent settings that write changing content into the system prompt"),
    ("chat_templates", "chat templates judged where they are built"),
    ("user_messages", "user messages (the request's own input)"),
    ("history_windows", "settings that replay only the last turns (PC009)"),
    ("request_system", "model callbacks that rewrite the system prompt of a request"),
    ("request_messages", "model callbacks that rewrite the message list of a request"),
    ("run_state", "run state handed to callbacks and instruction functions, which run again for later model calls"),
    ("graph_nodes", "graph nodes whose state argument is the run's own content (per conversation)"),
)


def list_frameworks() -> None:
    """Each knowledge table with the packages it names, from the built-in rules and the config
    found from the current folder: how to add one is in docs/knowledge.md."""
    from pathlib import Path

    from promptlint.config import ConfigError, load_config
    from promptlint.knowledge import load_knowledge

    try:
        knowledge = load_knowledge(load_config(Path.cwd()))
    except ConfigError as exc:
        typer.echo(f"promptlint: error: {exc}", err=True)
        raise typer.Exit(2) from exc
    for table, meaning in COVERAGE:
        names = getattr(knowledge, table)
        packages = sorted({_package(name) for name in names})
        typer.echo(f"{meaning} ({len(names)} names):")
        typer.echo("  " + (", ".join(packages) if packages else "(none)"))
    clients = {*knowledge.http_posts, *knowledge.http_requests}
    typer.echo(f"HTTP clients whose POSTs to a chat endpoint are LLM requests ({len(clients)} names):")
    typer.echo("  " + ", ".join(sorted({_package(name) for name in clients})))
    typer.echo(f"chat endpoints (URL path endings) ({len(knowledge.http_paths)} paths):")
    typer.echo("  " + ", ".join(f"{path} ({knowledge.apis[callable_].api})"
                                for path, callable_ in sorted(knowledge.http_paths.items())))
    typer.echo(f"calls running the function they are handed, judged as its call (rules/llm_calls.yaml "
               f"forwarders, {len(knowledge.forwarders)} names):")
    typer.echo("  " + ", ".join(sorted(knowledge.forwarders)))
    typer.echo("Add your own in [tool.promptlint] (docs/knowledge.md).")


# Namespace packages whose first name says nothing (`google.adk`, `google.genai`).
NAMESPACES = ("google", "azure")


def _package(qualname: str) -> str:
    parts = qualname.split(".")
    return ".".join(parts[:2]) if parts[0] in NAMESPACES and len(parts) > 2 else parts[0]


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
