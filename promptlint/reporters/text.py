"""Human output: a code frame at the volatile value, where it comes from, the call it reaches,
what it costs (estimated), and a one-line fix hint. No wrapping when stdout is not a terminal."""

from __future__ import annotations

import io
from functools import lru_cache

from rich.console import Console
from rich.markup import escape

from promptlint import colors
from promptlint.config import Config
from promptlint.model import REACHES, SENDS, AnalysisResult, Finding, Severity

STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
CONTEXT_LINES = 1


# Text that is not on disk, by the path findings show (``--stdin-filename``): code frames use it.
BUFFERS: dict[str, tuple[str, ...]] = {}


def _lines(path: str) -> tuple[str, ...]:
    return BUFFERS.get(path) or _file_lines(path)


@lru_cache(maxsize=256)
def _file_lines(path: str) -> tuple[str, ...]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return tuple(handle.read().splitlines())
    except OSError:
        return ()


def make_console(buffer: io.StringIO) -> Console:
    """Colors as ``promptlint.colors`` decides (``--color``, NO_COLOR, FORCE_COLOR, a terminal);
    never wrapped (soft wrap: a terminal folds long lines itself, and paths stay whole), no
    highlighting or emoji codes beyond promptlint's own styles."""
    color = colors.wanted()
    return Console(file=buffer, force_terminal=color, no_color=not color, highlight=False, soft_wrap=True,
                   emoji=False)


def render_text(result: AnalysisResult, config: Config, summary: bool = True) -> str:
    buffer = io.StringIO()
    console = make_console(buffer)
    for finding in result.findings:
        render_finding(console, finding)
    for error in result.errors:
        label = "internal error" if error.internal else "error"  # a bug in promptlint, not in the file
        console.print(f"[bold red]{label}[/]: {escape(error.path)}: {escape(error.message)}")
    if summary:
        console.print(summary_line(result))
    return buffer.getvalue()


def render_finding(console: Console, finding: Finding) -> None:
    loc = finding.location
    console.print(
        f"[bold]{escape(loc.short())}[/]: [{STYLE[finding.severity]}]{finding.rule}[/] "
        f"[{STYLE[finding.severity]}]\\[{finding.severity.value}][/] {escape(finding.message)} "
        f"[dim]({finding.name})[/]"
    )
    code_frame(console, finding)
    source = finding.volatile_source
    if source is not None and (source.location.path, source.location.line) != (loc.path, loc.line):
        console.print(f"   [dim]born at[/]  {escape(source.location.short())}  {escape(source.quoted)}")
    sent = [related for related in finding.related if related.message.startswith(SENDS)]
    for related in finding.related:
        if related.is_origin or related.message.startswith(REACHES) or related in sent or related.note:
            continue
        console.print(f"   [dim]via[/]      {escape(related.location.short())}  {escape(related.message)}")
    call = finding.call_site
    model = f" model={call.model}" if call.model else ""
    if call.api:  # findings about comments (PC900) reach no call
        # A history cut (PC009) reaches the history at the cut itself: the place is already shown.
        where = "" if call.location == loc else f"{escape(call.location.short())}  "
        console.print(f"   [dim]reaches[/]  {where}{escape(call.api)}{escape(model)}")
    for related in sent:  # the LLM calls a wrapper sends it with
        console.print(f"   [dim]sends[/]    {escape(related.location.short())}  {escape(related.message)}")
    for related in finding.notes:  # not steps of the path: other places of the same cause, the option adding it
        console.print(f"   [dim]note[/]     {escape(related.location.short())}  {escape(related.message)}")
    if finding.estimate is not None:
        console.print(f"   [dim]cost[/]     {escape(estimate_line(finding))}")
    if finding.hint:
        console.print(f"   [dim]fix[/]      {escape(finding.hint)}")
    console.print("")


def estimate_line(finding: Finding) -> str:
    from promptlint.estimate import format_estimate  # a tenth of a second to import: only when a cost is shown

    return format_estimate(finding.estimate)


def code_frame(console: Console, finding: Finding) -> None:
    loc = finding.location
    if loc.cell is not None:
        from promptlint.notebooks import cell_lines

        lines = cell_lines(loc.path, loc.cell)
    else:
        lines = _lines(loc.path)
    if not lines or loc.line > len(lines):
        return
    first = max(1, loc.line - CONTEXT_LINES)
    width = len(str(loc.line + CONTEXT_LINES))
    for number in range(first, min(len(lines), loc.line + CONTEXT_LINES) + 1):
        marker = ">" if number == loc.line else " "
        console.print(f"  {marker} {number:>{width}} | {escape(lines[number - 1])}")
        if number == loc.line:  # under the value's range on this line; one caret for an empty or longer one
            carets = "^" * max(1, loc.end_column - loc.column) if loc.end_line == loc.line else "^"
            console.print(f"    {' ' * width} | {' ' * (loc.column - 1)}[{STYLE[finding.severity]}]{carets}[/]")


def summary_line(result: AnalysisResult) -> str:
    counts = {s: sum(1 for f in result.findings if f.severity is s) for s in Severity}
    if not result.findings:
        text = f"No cache-busting prompt layouts found in {result.files_analyzed} Python files."
    else:
        parts = [f"{counts[s]} {s.value}{'s' if counts[s] != 1 else ''}"
                 for s in (Severity.ERROR, Severity.WARNING, Severity.INFO) if counts[s]]
        text = (f"Found {len(result.findings)} finding{'s' if len(result.findings) != 1 else ''} "
                f"({', '.join(parts)}) in {result.files_analyzed} Python files.")
    if result.errors:
        text += f" {len(result.errors)} file{'s' if len(result.errors) != 1 else ''} could not be analyzed."
    skipped = int(result.stats.get("test_paths_skipped", 0))
    if skipped:
        text += f" Skipped test code: {skipped} folders and files (--check-tests to analyze it)."
    return text
