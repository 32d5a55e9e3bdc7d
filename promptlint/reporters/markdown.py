"""``--format markdown``: a pull-request comment or job summary: findings and the money at stake.

GitHub-flavoured Markdown. Everything that comes from analyzed code (messages, expressions,
paths) is escaped: table pipes, HTML, emphasis and link characters; code spans keep their text
but cannot close early or break the table.
"""

from __future__ import annotations

import re

from promptlint.config import Config
from promptlint.model import AnalysisResult, Finding, Severity
from promptlint.reporters.common import (
    format_usd,
    money_at_stake,
    plural,
    provider_totals,
    severity_counts,
    traffic_assumption,
    worst_loss,
)

ICONS = {Severity.ERROR: "🔴 error", Severity.WARNING: "🟡 warning", Severity.INFO: "🔵 info"}
MAX_ROWS = 100  # a PR comment is limited to 65,536 characters
SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def escape_text(text: str) -> str:
    """Plain text in Markdown: no markup, no HTML, no table break, one line."""
    text = re.sub(r"\s+", " ", text)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return SPECIAL.sub(r"\\\1", text)


def code(text: str) -> str:
    """A code span that holds any text: a fence longer than any backtick run inside it."""
    text = " ".join(text.split()).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    padding = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def message(text: str) -> str:
    """A finding message: its `code` parts as code spans, the rest as escaped text."""
    pieces = text.split("`")
    if len(pieces) % 2 == 0:  # unbalanced backticks: no code spans at all
        return escape_text(text)
    return "".join(code(piece) if i % 2 else escape_text(piece) for i, piece in enumerate(pieces))


def render_markdown(result: AnalysisResult, config: Config) -> str:
    counts = severity_counts(result)
    lines = [f"## promptlint: {plural(len(result.findings), 'cache-busting prompt layout')}", ""]
    if not result.findings:
        lines.append(f"No prompt-cache busts found in {plural(result.files_analyzed, 'Python file')}. ✅")
    else:
        parts = [plural(counts[s], s.value) for s in (Severity.ERROR, Severity.WARNING, Severity.INFO) if counts[s]]
        lines.append(f"{', '.join(parts)} in {plural(result.files_analyzed, 'Python file')}.")
    lines += _money(result)
    if result.findings:
        lines += ["", "| | Rule | Where | What | Est. cost / month |", "|---|---|---|---|---|"]
        for finding in result.findings[:MAX_ROWS]:
            lines.append(_row(finding))
        if len(result.findings) > MAX_ROWS:
            lines.append(f"\n…and {len(result.findings) - MAX_ROWS} more (see the full report).")
        lines += _hints(result)
    if result.errors:
        lines += ["", f"<details><summary>{plural(len(result.errors), 'file')} could not be analyzed</summary>", ""]
        lines += [f"- {code(e.path)}: {escape_text(e.message)}" for e in result.errors]
        lines += ["", "</details>"]
    lines += ["", "<sub>Estimates are approximate: cached tokens lost per call × price × traffic. "
                  "Suppress a finding with <code># promptlint: ignore[CODE]</code>.</sub>"]
    return "\n".join(lines) + "\n"


def _money(result: AnalysisResult) -> list[str]:
    totals = [t for t in provider_totals(result) if t.usd_per_month > 0]
    if not totals:
        return []
    lines = ["", f"**Money at stake: about {format_usd(money_at_stake(result))} per month** "
                 f"(worst provider per call site; {escape_text(traffic_assumption(result))}).", "",
             "| Provider / model | Est. loss / month | Findings |", "|---|---:|---:|"]
    lines += [f"| {code(f'{t.provider}/{t.model}')} | {format_usd(t.usd_per_month)} | {t.findings} |"
              for t in totals]
    return lines


def _row(finding: Finding) -> str:
    loc = finding.location
    worst = worst_loss(finding)
    cost = f"{format_usd(worst.usd_per_month)} ({escape_text(worst.provider)})" \
        if worst is not None and worst.usd_per_month > 0 else "–"
    what = message(finding.message)
    if finding.fix is not None:
        what += " *(fix available" + ("" if finding.fix.safe else " with --unsafe-fixes") + ")*"
    return (f"| {ICONS[finding.severity]} | {code(finding.rule)} {escape_text(finding.name)} | "
            f"{code(f'{loc.path}:{loc.line}')} | {what} | {cost} |")


def _hints(result: AnalysisResult) -> list[str]:
    hints = dict.fromkeys((f.rule, f.hint) for f in result.findings if f.hint)
    if not hints:
        return []
    lines = ["", "<details><summary>How to fix</summary>", ""]
    lines += [f"- {code(rule)}: {message(hint)}" for rule, hint in hints]
    return lines + ["", "</details>"]
