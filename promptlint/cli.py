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
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from promptlint import __version__
from promptlint.config import Config, ConfigError, apply_settings, load_config
from promptlint.model import AnalysisResult, Severity

if TYPE_CHECKING:
    from promptlint.pipeline import CheckOptions, CheckOutcome

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
FORMATS_SHOWING_FIXES = ("sarif", "markdown", "html")

app = typer.Typer(
    name="promptlint",
    help="Find LLM prompt layouts that destroy the provider's prompt prefix cache.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

# Modules that add commands with `register(app)`; one line each, so features stay apart.
COMMAND_MODULES: list[str] = [
    "promptlint.cli_rules",
    "promptlint.cli_cost",
    "promptlint.cli_verify",
    "promptlint.cli_report",
    "promptlint.cli_lsp",
]


def version_callback(value: bool) -> None:
    if value:
        typer.echo(f"promptlint {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[
        Optional[bool], typer.Option("--version", "-V", callback=version_callback, is_eager=True,
                                     help="Print the version and exit")
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


CodesOption = Optional[list[str]]


@app.command()
def check(
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Files or folders (default: .)")] = None,
    output_format: Annotated[
        str, typer.Option("--format", "-f", "--output-format", help="text | json | sarif | github | markdown | html")
    ] = "text",
    select: Annotated[CodesOption, typer.Option(help="Rule codes or prefixes to run")] = None,
    extend_select: Annotated[
        CodesOption, typer.Option("--extend-select", help="Rule codes or prefixes to run on top of `select`")
    ] = None,
    ignore: Annotated[CodesOption, typer.Option(help="Rule codes or prefixes to skip")] = None,
    exclude: Annotated[
        CodesOption, typer.Option("--exclude", help="Globs of files/folders not to analyze (replaces `exclude`)")
    ] = None,
    extend_exclude: Annotated[
        CodesOption, typer.Option("--extend-exclude", help="Globs to exclude on top of `exclude`")
    ] = None,
    force_exclude: Annotated[
        Optional[bool], typer.Option("--force-exclude/--no-force-exclude",
                                     help="Apply excludes and .gitignore to files named explicitly too")
    ] = None,
    check_tests: Annotated[
        Optional[bool], typer.Option("--check-tests/--no-check-tests",
                                     help="Also analyze test code (test/tests/testing folders, test_*.py, "
                                          "*_test.py, conftest.py), skipped by default")
    ] = None,
    fail_on: Annotated[
        Optional[str], typer.Option("--fail-on", help="info | warning | error (default: warning)")
    ] = None,
    exit_zero: Annotated[
        bool, typer.Option("--exit-zero", help="Exit 0 even when there are findings (errors still exit 2)")
    ] = False,
    show_info: Annotated[bool, typer.Option("--show-info", help="Also show info findings")] = False,
    statistics: Annotated[
        bool, typer.Option("--statistics", help="Print the number of findings per rule instead of the findings")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Only the findings: no summary line, no notes")
    ] = False,
    color: Annotated[
        str, typer.Option("--color", help="auto | always | never (auto honours NO_COLOR and FORCE_COLOR)")
    ] = "auto",
    stdin_filename: Annotated[
        Optional[Path], typer.Option("--stdin-filename", help="Read one file from stdin, as if it were at this path")
    ] = None,
    config_file: Annotated[Optional[Path], typer.Option("--config", help="Config file")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not read or write the cache")] = False,
    cache_dir: Annotated[
        Optional[str], typer.Option("--cache-dir", metavar="DIR", help="Cache folder, inside the project (`cache-dir`)")
    ] = None,
    jobs: Annotated[
        Optional[int], typer.Option("--jobs", "-j", min=0, help="Worker processes (0: one per core; `jobs`)")
    ] = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to a file")] = None,
    also: Annotated[
        Optional[list[str]], typer.Option("--also", metavar="FORMAT=FILE",
                                          help="Also write this format to FILE, from the same run (repeatable)")
    ] = None,
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
    from promptlint import colors
    from promptlint.baseline import BaselineError
    from promptlint.gitdiff import GitError
    from promptlint.pipeline import CheckOptions

    try:
        colors.set_mode("never" if output is not None and color == "auto" else color)
    except ValueError as exc:
        raise fail(str(exc)) from None
    extra_outputs = parse_also(also)
    if stdin_filename is not None:
        if paths:
            raise fail("--stdin-filename reads one file from stdin; do not name paths as well")
        if fix or show_fixes:
            raise fail("--fix and --show-fixes do not work on stdin")
    if no_cache and cache_dir is not None:
        raise fail("--no-cache and --cache-dir contradict each other: give one")
    targets = paths or [stdin_filename or Path(".")]
    missing = [str(p) for p in targets if not p.exists()] if stdin_filename is None else []
    if missing:
        raise fail(f"no such file or folder: {', '.join(missing)}")
    formats = [output_format, *(name for name, _ in extra_outputs)]
    options = CheckOptions(diff_ref=diff, baseline=baseline, fix=fix and not show_fixes,
                           unsafe_fixes=unsafe_fixes, show_fixes=show_fixes,
                           attach_fixes=statistics or any(f in FORMATS_SHOWING_FIXES for f in formats),
                           keep_unfiltered="sarif" in formats)
    try:
        config = resolve_config(
            targets,
            config_file,
            {"select": split_codes(select), "extend-select": split_codes(extend_select),
             "ignore": split_codes(ignore), "exclude": split_codes(exclude),
             "extend-exclude": split_codes(extend_exclude), "force-exclude": force_exclude,
             "check-tests": check_tests, "fail-on": fail_on, "show-info": show_info or None,
             "cache-dir": "" if no_cache else cache_dir, "jobs": jobs},
        )
        outcome = analyze_targets(targets, config, options, stdin_filename)
        # --statistics replaces the main output only; --also files are always the full format.
        extra_texts = {name: render_output(name, outcome, config, quiet, False) for name, _ in extra_outputs}
        text = render_output(output_format, outcome, config, quiet, statistics) if not show_fixes else ""
    except (ConfigError, BaselineError, GitError) as exc:
        raise fail(str(exc)) from None
    except KeyError as exc:
        raise fail(f"unknown format {exc}") from None
    if not quiet:
        for note in outcome.notes:
            typer.echo(f"promptlint: {note}", err=True)
    if show_fixes:
        preview = outcome.fixes.diff() if outcome.fixes else ""
        emit(preview, output)
        raise typer.Exit(EXIT_FINDINGS if preview else EXIT_OK)
    for name, path in extra_outputs:
        emit(extra_texts[name], path)
    emit(text, output)
    report_internal_errors(outcome.result)
    status = exit_code(outcome.result, config.fail_on)
    raise typer.Exit(EXIT_OK if exit_zero and status == EXIT_FINDINGS else status)


def parse_also(values: Optional[list[str]]) -> list[tuple[str, Path]]:
    from promptlint.reporters import FORMATS

    pairs = []
    for value in values or []:
        name, sep, path = value.partition("=")
        if not sep or not path or name not in FORMATS:
            raise fail(f"--also takes FORMAT=FILE with FORMAT one of {', '.join(FORMATS)}; got {value!r}")
        pairs.append((name, Path(path)))
    return pairs


def analyze_targets(targets: list[Path], config: Config, options: CheckOptions,
                    stdin_filename: Optional[Path]) -> CheckOutcome:
    """The pipeline on the named targets, less the files ``force-exclude`` drops, or on stdin."""
    from promptlint.pipeline import CheckOutcome, run_check

    if config.force_exclude:
        from promptlint.discover import force_excluded

        targets = [t for t in targets if not force_excluded(t, config, Path.cwd())]
        if not targets:
            if stdin_filename is not None:
                sys.stdin.read()  # an editor that pipes the buffer expects it to be read
            return CheckOutcome(AnalysisResult(findings=(), errors=()))
    if stdin_filename is not None:
        from promptlint.stdin import run_on_stdin

        return run_on_stdin(stdin_filename, sys.stdin.read(), config, options, Path.cwd())
    return run_check(targets, config, options, Path.cwd())


def render_output(name: str, outcome: CheckOutcome, config: Config, quiet: bool, statistics: bool) -> str:
    """One format of one run's outcome. SARIF under ``--diff`` carries every finding, with its
    ``baselineState`` (new: on a changed line; unchanged: not), so code scanning never reads the
    findings outside the diff as fixed."""
    from promptlint.reporters import render

    result = outcome.result
    if statistics:
        from promptlint.reporters.statistics import render_statistics

        return render_statistics(result, name)
    if name == "sarif" and outcome.unfiltered is not None:
        from promptlint.reporters.sarif import render_sarif

        return render_sarif(outcome.unfiltered, config, new={id(f) for f in result.findings})
    if name == "text" and quiet:
        from promptlint.reporters.text import render_text

        return render_text(result, config, summary=False)
    return render(name, result, config)


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
