"""Command-line wiring only: parse flags, call the engine, hand the result to a reporter.

Exit codes (documented in the README):
  0  no finding at or above the fail level
  1  findings at or above the fail level
  2  usage, configuration or internal error (a crash never reads as a finding)
Each further command lives in its own module and registers itself (see COMMAND_MODULES).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from promptlint import __version__
from promptlint.config import Config, ConfigError, apply_settings, load_config
from promptlint.model import AnalysisResult, Severity

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
FORMATS_SHOWING_FIXES = ("sarif", "markdown", "html")

app = typer.Typer(
    name="promptlint",
    help="Find LLM prompt layouts that destroy the provider's prompt prefix cache.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Modules that add commands with `register(app)`; one line each, so features stay apart.
COMMAND_MODULES: list[str] = [
    "promptlint.cli_rules",
    "promptlint.cli_cost",
    "promptlint.cli_verify",
    "promptlint.cli_report",
]


def version_callback(value: bool) -> None:
    if value:
        typer.echo(f"promptlint {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[
        Optional[bool], typer.Option("--version", callback=version_callback, is_eager=True)
    ] = None,
) -> None:
    """promptlint: stable things first, volatile things last."""


def resolve_config(
    paths: list[Path], config_file: Optional[Path], overrides: dict[str, object]
) -> Config:
    """Config for the first analyzed path, with CLI overrides applied (they win)."""
    start = paths[0] if paths else Path(".")
    config = load_config(start, config_file)
    settings = {k: v for k, v in overrides.items() if v not in (None, [], ())}
    return apply_settings(config, settings, "command line") if settings else config


def fail(message: str) -> typer.Exit:
    typer.echo(f"promptlint: error: {message}", err=True)
    return typer.Exit(EXIT_ERROR)


def exit_code(result: AnalysisResult, fail_on: Severity) -> int:
    """An internal error (a bug in promptlint) wins: the findings may be incomplete. Then findings
    at the fail level; else per-file errors alone change nothing, unless no requested file could
    be analyzed at all (docs/robustness.md)."""
    from promptlint.engine import nothing_analyzed

    if any(e.internal for e in result.errors):
        return EXIT_ERROR
    failing = [f for f in result.findings if f.severity.rank >= fail_on.rank]
    if failing:
        return EXIT_FINDINGS
    return EXIT_ERROR if nothing_analyzed(result) else EXIT_OK


def split_codes(values: Optional[list[str]]) -> list[str]:
    return [c.strip() for v in values or [] for c in v.split(",") if c.strip()]


@app.command()
def check(
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Files or folders (default: .)")] = None,
    output_format: Annotated[
        str, typer.Option("--format", "-f", help="text | json | sarif | github | markdown | html")
    ] = "text",
    select: Annotated[Optional[list[str]], typer.Option(help="Rule codes or prefixes to run")] = None,
    ignore: Annotated[Optional[list[str]], typer.Option(help="Rule codes or prefixes to skip")] = None,
    fail_on: Annotated[
        Optional[str], typer.Option("--fail-on", help="info | warning | error (default: warning)")
    ] = None,
    show_info: Annotated[bool, typer.Option("--show-info", help="Also show info findings")] = False,
    config_file: Annotated[Optional[Path], typer.Option("--config", help="Config file")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not read or write the cache")] = False,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to a file")] = None,
    diff: Annotated[
        Optional[str], typer.Option("--diff", metavar="REF", help="Only findings on lines changed since REF (git)")
    ] = None,
    baseline: Annotated[
        Optional[Path], typer.Option("--baseline", help="Hide the findings recorded in this baseline file")
    ] = None,
    fix: Annotated[bool, typer.Option("--fix", help="Apply safe fixes, then report what is left")] = False,
    unsafe_fixes: Annotated[
        bool, typer.Option("--unsafe-fixes", help="With --fix or --show-fixes: also fixes that change prompt text")
    ] = False,
    show_fixes: Annotated[
        bool, typer.Option("--show-fixes", help="Print the fixes as a unified diff; write nothing")
    ] = False,
) -> None:
    """Analyze Python code and prompt templates; report cache-busting prompt layouts."""
    from promptlint.baseline import BaselineError
    from promptlint.gitdiff import GitError
    from promptlint.pipeline import CheckOptions, run_check
    from promptlint.reporters import render

    targets = paths or [Path(".")]
    missing = [str(p) for p in targets if not p.exists()]
    if missing:
        raise fail(f"no such file or folder: {', '.join(missing)}")
    options = CheckOptions(diff_ref=diff, baseline=baseline, fix=fix and not show_fixes,
                           unsafe_fixes=unsafe_fixes, show_fixes=show_fixes,
                           attach_fixes=output_format in FORMATS_SHOWING_FIXES)
    try:
        config = resolve_config(
            targets,
            config_file,
            {"select": split_codes(select), "ignore": split_codes(ignore), "fail-on": fail_on,
             "show-info": show_info or None, "cache-dir": "" if no_cache else None},
        )
        outcome = run_check(targets, config, options, Path.cwd())
        text = render(output_format, outcome.result, config) if not show_fixes else ""
    except (ConfigError, BaselineError, GitError) as exc:
        raise fail(str(exc)) from None
    except KeyError as exc:
        raise fail(f"unknown format {exc}") from None
    for note in outcome.notes:
        typer.echo(f"promptlint: {note}", err=True)
    if show_fixes:
        preview = outcome.fixes.diff() if outcome.fixes else ""
        emit(preview, output)
        raise typer.Exit(EXIT_FINDINGS if preview else EXIT_OK)
    emit(text, output)
    report_internal_errors(outcome.result)
    raise typer.Exit(exit_code(outcome.result, config.fail_on))


def report_internal_errors(result: AnalysisResult) -> None:
    """On stderr, whatever the format: the run hit a bug in promptlint, not in the user's code."""
    from promptlint.internal import REPORT_HINT

    internal = [e for e in result.errors if e.internal]
    if not internal:
        return
    typer.echo(f"promptlint: internal error: promptlint failed on {len(internal)} "
               f"file{'s' if len(internal) != 1 else ''}; the other files were analyzed, but the "
               "results may be incomplete (exit code 2)", err=True)
    for error in internal:
        typer.echo(f"promptlint: internal error: {error.path}: {error.exception} (at {error.where})", err=True)
    typer.echo(f"promptlint: this is a bug in promptlint, not in your code: {REPORT_HINT}", err=True)


def emit(text: str, output: Optional[Path]) -> None:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        output.write_text(text, encoding="utf-8")


def _register_commands() -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(app)


_register_commands()


def main() -> None:
    """Console entry point: a crash is exit 2 with a message, never a traceback dressed as a finding."""
    try:
        app()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - last line of defence, documented exit code 2
        typer.echo(f"promptlint: internal error: {type(exc).__name__}: {exc}", err=True)
        from promptlint.internal import REPORT_HINT

        typer.echo(f"promptlint: this is a bug in promptlint, not in your code: {REPORT_HINT}", err=True)
        sys.exit(EXIT_ERROR)
