"""Inline suppressions: ``# promptlint: ignore[CODE]`` and ``# noqa: CODE``.

Where a comment applies: the first or last line of a finding's reported range, or the line where
its volatile value is born (so one comment at ``now = datetime.now()`` covers every prompt it
reaches). ``# promptlint: ignore`` without codes suppresses every rule on its line; a bare
``# noqa`` does not (it belongs to other tools, and hiding cache busts behind every old
``# noqa`` would be a surprise). In a ``noqa`` list only ``PC`` codes are ours; the rest belong to
other linters and are left alone.

Suppressions that suppress nothing are reported as findings of the rule PC900
(``unused-suppression``), like ruff's RUF100: a stale comment, or a code that is not a rule (an
unknown code suppresses nothing). As a finding it appears in every format (SARIF, annotations),
can be selected, ignored and suppressed itself, and fails the check like any warning.
"""

from __future__ import annotations

import fnmatch
import io
import os
import re
import tokenize
from dataclasses import dataclass, field, replace
from pathlib import Path

from promptlint.checks import RULES, RULES_BY_CODE, selected_rules
from promptlint.config import Config
from promptlint.engine import fingerprint
from promptlint.model import AnalysisResult, CallSite, Finding, Location, Severity

UNUSED_CODE = "PC900"
PROMPTLINT_DIRECTIVE = re.compile(r"promptlint\s*:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)
NOQA_DIRECTIVE = re.compile(r"\bnoqa\s*:\s*(?P<codes>[A-Za-z0-9_,\s-]+)", re.IGNORECASE)
# Cheap test on the whole file text: only files that may hold one of our directives are tokenized.
MAYBE_DIRECTIVE = re.compile(r"promptlint\s*:\s*ignore|noqa\s*:[^\n]*\bPC\d", re.IGNORECASE)
OUR_CODE = re.compile(r"^PC\d+$", re.IGNORECASE)
RULE_NAMES = {rule.name: rule.code for rule in RULES}


@dataclass
class Directive:
    """One suppression comment; ``codes`` empty means every rule (``# promptlint: ignore``)."""

    path: Path
    line: int
    column: int  # 1-based, where the directive text starts
    end_column: int
    codes: tuple[str, ...]
    used: set[str] = field(default_factory=set)  # codes (or "*" for a blanket) that hid a finding

    def covers(self, code: str) -> str | None:
        """The key under which this directive hides ``code``, or None."""
        if not self.codes:
            return "*"
        return code if code in self.codes else None


@dataclass(frozen=True)
class SuppressionStats:
    suppressed: int
    unused: int


def parse_directives(path: Path, text: str) -> list[Directive]:
    """All suppression directives of a file: Python comments by token, other files by line."""
    if not MAYBE_DIRECTIVE.search(text):
        return []
    if path.suffix in (".py", ".pyi"):
        return list(_python_directives(path, text))
    return [d for number, line in enumerate(text.splitlines(), 1)
            for d in _directives_in_comment(path, number, 1, line, noqa=False)]


def _python_directives(path: Path, text: str) -> list[Directive]:
    found: list[Directive] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                line, column = token.start
                found.extend(_directives_in_comment(path, line, column + 1, token.string, noqa=True))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass  # the engine reports the unparsable file; directives before the error still count
    return found


def _directives_in_comment(path: Path, line: int, column: int, comment: str, noqa: bool) -> list[Directive]:
    found = []
    for match in PROMPTLINT_DIRECTIVE.finditer(comment):
        raw = match.group("codes")
        codes = () if raw is None else tuple(_normalize(c) for c in re.split(r"[,\s]+", raw) if c)
        found.append(Directive(path, line, column + match.start(), column + match.end(), codes))
    if noqa:
        for match in NOQA_DIRECTIVE.finditer(comment):
            ours = tuple(c.upper() for c in re.split(r"[,\s]+", match.group("codes")) if OUR_CODE.match(c))
            if ours:
                found.append(Directive(path, line, column + match.start(), column + match.end(), ours))
    return found


def _normalize(code: str) -> str:
    return RULE_NAMES.get(code, code.upper())


def apply_suppressions(result: AnalysisResult, config: Config, cwd: Path,
                       scan_files: list[Path]) -> tuple[AnalysisResult, SuppressionStats]:
    """Hide suppressed findings; add a PC900 finding for each directive that hid nothing.

    ``scan_files`` are the requested files: only their directives can be reported as unused.
    """
    files = {(cwd / f.location.path).resolve() for f in result.findings}
    files |= {(cwd / f.volatile_source.location.path).resolve() for f in result.findings if f.volatile_source}
    requested = {p.resolve() for p in scan_files}
    by_line = _index_directives(files | requested)
    kept = [f for f in result.findings if not _suppress(f, by_line, cwd)]
    unused = [] if not _rule_selected(UNUSED_CODE, config) else [
        f for f in _unused_findings(by_line, requested, config, cwd) if not _names_pc900(f, by_line, cwd)]
    findings = sorted([*kept, *unused], key=lambda f: (f.location.path, f.location.line,
                                                       f.location.column, f.rule))
    stats = SuppressionStats(len(result.findings) - len(kept), len(unused))
    return replace(result, findings=tuple(findings)), stats


def _index_directives(files: set[Path]) -> dict[tuple[Path, int], list[Directive]]:
    index: dict[tuple[Path, int], list[Directive]] = {}
    for path in sorted(files):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for directive in parse_directives(path, text):
            index.setdefault((path, directive.line), []).append(directive)
    return index


def _suppress(finding: Finding, by_line: dict[tuple[Path, int], list[Directive]], cwd: Path) -> bool:
    """Whether a directive hides the finding; marks the directive as used."""
    for path, line in _suppression_lines(finding, cwd):
        for directive in by_line.get((path, line), []):
            key = directive.covers(finding.rule)
            if key is not None:
                directive.used.add(key)
                return True
    return False


def _names_pc900(finding: Finding, by_line: dict[tuple[Path, int], list[Directive]], cwd: Path) -> bool:
    """PC900 is hidden only by a directive that names it: a stale blanket must not hide itself."""
    key = ((cwd / finding.location.path).resolve(), finding.location.line)
    return any(UNUSED_CODE in d.codes for d in by_line.get(key, []))


def _suppression_lines(finding: Finding, cwd: Path) -> list[tuple[Path, int]]:
    where = (cwd / finding.location.path).resolve()
    lines = [(where, finding.location.line), (where, finding.location.end_line)]
    if finding.volatile_source is not None:
        origin = finding.volatile_source.location
        lines.append(((cwd / origin.path).resolve(), origin.line))
    return list(dict.fromkeys(lines))


def _unused_findings(by_line: dict[tuple[Path, int], list[Directive]], requested: set[Path],
                     config: Config, cwd: Path) -> list[Finding]:
    findings = []
    for (path, _), directives in sorted(by_line.items()):
        if path not in requested:
            continue
        for directive in directives:
            message = _unused_message(directive, config, _display(path, cwd))
            if message:
                findings.append(_unused_finding(directive, message, cwd))
    return findings


def _unused_message(directive: Directive, config: Config, display: str) -> str | None:
    if not directive.codes:
        return None if directive.used else "blanket suppression `promptlint: ignore` suppresses nothing on this line"
    unknown = [c for c in directive.codes if c not in RULES_BY_CODE]
    stale = [c for c in directive.codes if c in RULES_BY_CODE and c not in directive.used
             and c != UNUSED_CODE and _rule_selected(c, config, display)]
    parts = []
    if unknown:
        parts.append(f"unknown rule code{'s' if len(unknown) > 1 else ''} "
                     f"{', '.join(f'`{c}`' for c in unknown)} (suppresses nothing)")
    if stale:
        parts.append(f"unused suppression of {', '.join(f'`{c}`' for c in stale)} "
                     "(no such finding on this line)")
    return "; ".join(parts) or None


def _rule_selected(code: str, config: Config, display: str | None = None) -> bool:
    rule = RULES_BY_CODE[code]
    if rule not in selected_rules(config.select, config.ignore, config.extend_select):
        return False
    if display is None:
        return True
    posix = Path(display).as_posix()
    return not any(
        (fnmatch.fnmatch(posix, pattern) or fnmatch.fnmatch(posix, "*/" + pattern))
        and any(code.startswith(c) or c == "ALL" for c in codes)
        for pattern, codes in config.per_file_ignores)


def _unused_finding(directive: Directive, message: str, cwd: Path) -> Finding:
    rule = RULES_BY_CODE[UNUSED_CODE]
    location = Location(_display(directive.path, cwd), directive.line, directive.column,
                        directive.line, directive.end_column)
    finding = Finding(rule=rule.code, name=rule.name, severity=Severity.WARNING, location=location,
                      message=message, call_site=CallSite(location, api="", provider=""),
                      hint=rule.fix_hint)
    return replace(finding, fingerprint=fingerprint(finding))


def _display(path: Path, cwd: Path) -> str:
    try:
        return os.path.relpath(path, cwd)
    except ValueError:
        return str(path)
