"""What ``check`` (and ``report``, ``baseline``) run after the engine, in this order:

analyze → suppressions → notebooks → info filter → baseline → ``--diff`` filter → fixes (attach, plan, write)

Each stage is a pure function of an AnalysisResult in its own module; this one only chains them
and collects the one-line notes the CLI prints on stderr. After ``--fix`` writes files, the whole
chain runs again, so what is reported is what is left. Jupyter notebooks are analyzed on their own
(promptlint.notebooks, suppressions included) and join the result before the filters.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from promptlint.config import Config
from promptlint.model import AnalysisResult, Severity

if TYPE_CHECKING:  # fixes import libcst: a third of a second that a run without fixes never pays
    from promptlint.discover import Discovered
    from promptlint.fixes import FixReport


@dataclass(frozen=True)
class CheckOptions:
    diff_ref: str | None = None
    baseline: Path | None = None
    fix: bool = False  # write safe fixes
    unsafe_fixes: bool = False  # with fix/show_fixes: also the unsafe ones
    show_fixes: bool = False  # compute the fixes and return their diff; write nothing
    attach_fixes: bool = True  # put fixes on findings for reporters that show them (SARIF, HTML)
    keep_unfiltered: bool = False  # with diff_ref: also return the result before the --diff filter


@dataclass
class CheckOutcome:
    result: AnalysisResult
    notes: list[str] = field(default_factory=list)
    fixes: FixReport | None = None
    # With ``keep_unfiltered`` and ``--diff``: every finding, the ones in ``result`` among them (the
    # same objects), for SARIF's baselineState; None otherwise.
    unfiltered: AnalysisResult | None = None


def run_check(targets: list[Path], config: Config, options: CheckOptions, cwd: Path) -> CheckOutcome:
    outcome = _run_once(targets, config, options, cwd)
    if not options.fix or outcome.fixes is None:
        return outcome
    from promptlint.fixes import write_fixes

    report = outcome.fixes
    write_fixes(report, cwd)
    notes = [f"refused to fix {path}: {why}" for path, why in report.refused]
    if report.changed:
        again = _run_once(targets, config, replace(options, fix=False, show_fixes=False), cwd)
        outcome = CheckOutcome(again.result, again.notes, report, again.unfiltered)
        notes.insert(0, f"fixed {report.fixed_count} finding{'s' if report.fixed_count != 1 else ''} "
                        f"in {len(report.changed)} file{'s' if len(report.changed) != 1 else ''}")
    if report.skipped_unsafe:
        notes.append(f"{report.skipped_unsafe} more fix{'es' if report.skipped_unsafe != 1 else ''} "
                     "available with --unsafe-fixes (they change prompt text; preview with --show-fixes)")
    outcome.notes = notes + outcome.notes
    return outcome


def _run_once(targets: list[Path], config: Config, options: CheckOptions, cwd: Path) -> CheckOutcome:
    from promptlint.discover import discover
    from promptlint.engine import analyze
    from promptlint.suppressions import apply_suppressions

    # Info findings are analyzed even when hidden, so a suppression of one is not "unused".
    result = analyze(targets, replace(config, show_info=True, estimate_info=config.show_info,
                                      count_in_background=True), cwd)
    requested = None
    if result.directive_files is not None:
        scan = [Path(p) for p in result.directive_files]
    else:
        requested = discover(targets, config, cwd)
        scan = [*requested.python, *requested.other]
    result, suppressed = apply_suppressions(result, config, cwd, scan)
    result = _with_notebooks(result, targets, config, cwd, requested)
    if not config.show_info:
        result = replace(result, findings=tuple(f for f in result.findings if f.severity is not Severity.INFO))
    notes: list[str] = []
    stats = dict(result.stats, suppressed=float(suppressed.suppressed))
    if options.baseline is not None:
        result, hidden = apply_baseline_stage(result, options.baseline, cwd)
        stats["baseline_hidden"] = float(hidden)
        if hidden:
            notes.append(f"{hidden} finding{'s' if hidden != 1 else ''} hidden by the baseline {options.baseline}")
    attach = options.attach_fixes or options.fix or options.show_fixes
    unfiltered = None
    if options.diff_ref is not None:
        from promptlint.gitdiff import filter_to_diff

        if options.keep_unfiltered:
            if attach:
                from promptlint.fixes import attach_fixes

                result, attach = attach_fixes(result, cwd), False  # once, before the filter
            unfiltered = replace(result, stats=dict(result.stats))
        result, diff = filter_to_diff(result, options.diff_ref, cwd)
        stats["diff_hidden"] = float(diff.hidden)
        if diff.hidden:
            notes.append(f"{diff.hidden} finding{'s' if diff.hidden != 1 else ''} on lines not changed "
                         f"since {options.diff_ref} ({diff.base[:12]}) not shown")
    if attach:
        from promptlint.fixes import attach_fixes

        result = attach_fixes(result, cwd)  # libcst parses: skipped when nothing shows fixes
    stats["fixable"] = float(sum(1 for f in result.findings if f.fix is not None and f.fix.safe))
    result = replace(result, stats=stats)
    fixes = None
    if options.fix or options.show_fixes:
        from promptlint.fixes import plan_fixes

        fixes = plan_fixes(result, config.root, cwd, options.unsafe_fixes, targets)
    return CheckOutcome(result, notes, fixes, unfiltered)


def _with_notebooks(result: AnalysisResult, targets: list[Path], config: Config, cwd: Path,
                    requested: Discovered | None) -> AnalysisResult:
    """The findings of the Jupyter notebooks among the targets (promptlint.notebooks), added."""
    from promptlint.discover import find_notebooks

    notebooks = requested.notebooks if requested is not None else \
        [Path(p) for p in result.notebooks] if result.notebooks is not None else find_notebooks(targets, config, cwd)
    if not notebooks:
        return result
    from promptlint.notebooks import analyze_notebooks

    found = analyze_notebooks(notebooks, config, cwd)
    shift = len(result.layouts)  # notebook findings point into the notebook layouts, appended
    findings = tuple(f if f.layout_index is None else replace(f, layout_index=f.layout_index + shift)
                     for f in found.findings)
    return replace(result, findings=result.findings + findings, errors=result.errors + found.errors,
                   layouts=result.layouts + found.layouts,
                   files_analyzed=result.files_analyzed + found.files_analyzed)


def apply_baseline_stage(result: AnalysisResult, path: Path, cwd: Path) -> tuple[AnalysisResult, int]:
    from promptlint.baseline import apply_baseline

    result, stats = apply_baseline(result, path, cwd)
    return result, stats.hidden


def analyze_for_report(targets: list[Path], config: Config, cwd: Path) -> AnalysisResult:
    """The findings ``report`` and ``baseline`` use: the check pipeline without filters or writes."""
    return _run_once(targets, config, CheckOptions(), cwd).result
