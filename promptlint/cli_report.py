"""`promptlint report` writes the HTML codebase report; `promptlint baseline` records findings."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

if TYPE_CHECKING:
    from promptlint.model import AnalysisResult

DEFAULT_REPORT = Path("promptlint-report.html")
DEFAULT_BASELINE = Path("promptlint-baseline.json")


def register(app: typer.Typer) -> None:
    app.command("report")(report)
    app.command("baseline")(baseline)


PathsArgument = Annotated[Optional[list[Path]], typer.Argument(help="Files or folders (default: .)")]
ConfigOption = Annotated[Optional[Path], typer.Option("--config", help="Config file")]


def report(
    paths: PathsArgument = None,
    output: Annotated[Path, typer.Option("--output", "-o", help="HTML file to write")] = DEFAULT_REPORT,
    show_info: Annotated[bool, typer.Option("--show-info", help="Also show info findings")] = False,
    baseline_file: Annotated[
        Optional[Path], typer.Option("--baseline", help="Compare with this baseline file: new, fixed and "
                                     "unchanged findings and the money of each")
    ] = None,
    verify_results: Annotated[
        Optional[Path], typer.Option("--verify-results", help="Include a `promptlint verify --format json` "
                                     "result: current vs fixed hit rate and TTFT, predicted vs measured")
    ] = None,
    config_file: ConfigOption = None,
) -> None:
    """Write one self-contained HTML report: cost per call site first, then baseline, verify, rules, modules."""
    from promptlint.baseline import BaselineError
    from promptlint.cli import fail
    from promptlint.reporters.compare import compare
    from promptlint.reporters.html import write_report

    verify = _load_verify(verify_results) if verify_results is not None else None
    if baseline_file is not None and not baseline_file.is_file():
        raise fail(f"baseline file not found: {baseline_file} (write one with `promptlint baseline`)")
    if not output.resolve().parent.is_dir():
        raise fail(f"--output: no such folder: {output.parent}")
    targets, config, result = _analyze(paths, config_file, {"show-info": show_info or None}, None)
    comparison = None
    if baseline_file is not None:
        try:
            comparison = compare(result, baseline_file, Path.cwd())
        except BaselineError as exc:
            raise fail(str(exc)) from None
    write_report(result, config, output, comparison, verify)
    extra = f"; {len(comparison.new)} new since the baseline" if comparison is not None else ""
    typer.echo(f"promptlint: wrote {output} ({len(result.findings)} findings{extra})", err=True)
    _exit_on_internal_errors(result)


def _load_verify(path: Path):  # type: ignore[no-untyped-def]
    import json

    from promptlint.cli import fail
    from verifier.report import VerifyReport

    try:
        return VerifyReport.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise fail(f"--verify-results {path}: not a readable `promptlint verify --format json` result ({exc})") \
            from None


def baseline(
    paths: PathsArgument = None,
    output: Annotated[Path, typer.Option("--output", "-o", help="Baseline file to write")] = DEFAULT_BASELINE,
    config_file: ConfigOption = None,
) -> None:
    """Record the current findings, so `check --baseline FILE` reports only new ones."""
    from promptlint.baseline import write_baseline

    _, _, result = _analyze(paths, config_file, {}, None)
    count = write_baseline(result, output, Path.cwd())
    typer.echo(f"promptlint: wrote {output} with {count} finding{'s' if count != 1 else ''}; "
               f"use `promptlint check --baseline {output}`", err=True)
    _exit_on_internal_errors(result)


def _exit_on_internal_errors(result: AnalysisResult) -> None:
    """A bug in promptlint makes the report or baseline incomplete: say so and exit 2, as check does."""
    from promptlint.cli import EXIT_ERROR, report_internal_errors

    if any(e.internal for e in result.errors):
        report_internal_errors(result)
        raise typer.Exit(EXIT_ERROR)


def _analyze(paths: Optional[list[Path]], config_file: Optional[Path], overrides: dict[str, object],
             baseline_file: Optional[Path]):  # type: ignore[no-untyped-def]
    from promptlint.baseline import BaselineError
    from promptlint.cli import fail, resolve_config
    from promptlint.config import ConfigError
    from promptlint.pipeline import analyze_for_report, apply_baseline_stage

    targets = paths or [Path(".")]
    missing = [str(p) for p in targets if not p.exists()]
    if missing:
        raise fail(f"no such file or folder: {', '.join(missing)}")
    try:
        config = resolve_config(targets, config_file, overrides)
        result = analyze_for_report(targets, config, Path.cwd())
        if baseline_file is not None:
            result, _ = apply_baseline_stage(result, baseline_file, Path.cwd())
    except (ConfigError, BaselineError) as exc:
        raise fail(str(exc)) from None
    return targets, config, result
