"""A minimal Language Server: promptlint's findings as diagnostics, its safe fixes as code actions.

Started by ``promptlint lsp`` (or ``promptlint-lsp``), it speaks LSP over stdio (pygls, the
``lsp`` extra). It analyzes what is on disk, like ``promptlint check``, so it publishes when a
document is opened and when it is saved, never on each keystroke; the analysis is the check
pipeline with the project's config, suppressions and cache (unchanged files are not parsed again,
so a save costs about what ``promptlint check FILE`` costs with a warm cache). On save every open
document of the same project is analyzed again: a volatile value born in one module is reported
at the call in another.

Code actions offer the *safe* fixes of ``promptlint check --fix`` (``sort_keys=True`` for PC004,
``sorted(...)`` for set order); fixes that change prompt text are left to the command line. A fix
is offered only while the editor's text is exactly the text that was analyzed: its edits are
offsets into that text.

Positions: promptlint counts characters (code points), LSP counts UTF-16 code units; the
conversion is below (``Lines``).
"""

from __future__ import annotations

import asyncio
import bisect
import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from promptlint import __version__
from promptlint.model import AnalysisResult, Edit, Finding, Location, Severity

SOURCE = "promptlint"
SEVERITIES = {Severity.ERROR: types.DiagnosticSeverity.Error, Severity.WARNING: types.DiagnosticSeverity.Warning,
              Severity.INFO: types.DiagnosticSeverity.Information}
LINE_BREAK = re.compile(r"\r\n|\r|\n")


class Lines:
    """Converts promptlint's positions (1-based lines, 1-based columns counted in characters;
    edits as character offsets) to LSP positions (0-based, UTF-16 code units)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in LINE_BREAK.finditer(text)]

    def line_text(self, line: int) -> str:
        if line >= len(self.starts):
            return ""
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        return LINE_BREAK.sub("", self.text[self.starts[line]:end])

    def position(self, line: int, column: int) -> types.Position:
        """``line`` 0-based, ``column`` 0-based in characters."""
        line = max(0, min(line, len(self.starts) - 1))
        prefix = self.line_text(line)[:max(0, column)]
        return types.Position(line=line, character=len(prefix.encode("utf-16-le")) // 2)

    def at_offset(self, offset: int) -> types.Position:
        line = bisect.bisect_right(self.starts, offset) - 1
        return self.position(line, offset - self.starts[line])

    def range_of(self, location: Location) -> types.Range:
        start = self.position(location.line - 1, location.column - 1)
        end = self.position(location.end_line - 1, location.end_column - 1)
        if (end.line, end.character) <= (start.line, start.character):  # a point: underline its line
            end = types.Position(line=start.line, character=max(start.character + 1,
                                                                len(self.line_text(start.line).encode("utf-16-le")) // 2))
        return types.Range(start=start, end=end)


@dataclass
class Analyzed:
    """One document's findings, with the text they were computed on."""

    text: str
    findings: list[Finding]
    cwd: Path
    diagnostics: list[types.Diagnostic] = field(default_factory=list)


class PromptlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("promptlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.analyzed: dict[str, Analyzed] = {}  # by document URI
        self.open_uris: set[str] = set()
        self.lock = threading.Lock()  # one analysis at a time: they share the project's cache


server = PromptlintServer()


def document_path(uri: str) -> Path | None:
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return Path(path) if path else None


def analyze_paths(paths: list[Path]) -> tuple[Path, AnalysisResult]:
    """The check pipeline on ``paths`` (one project), from the project's root, with its cache."""
    from promptlint.cli import resolve_config
    from promptlint.pipeline import CheckOptions, run_check

    config = resolve_config(paths, None, {})
    root = config.root.resolve()
    inside = [p for p in paths if _is_within(p, root)]
    cwd = root if len(inside) == len(paths) else paths[0].parent
    outcome = run_check(paths, config, CheckOptions(attach_fixes=True), cwd)
    return cwd, outcome.result


def _is_within(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
    except ValueError:
        return False
    return True


def diagnostic(finding: Finding, lines: Lines, number: int, cwd: Path) -> types.Diagnostic:
    from promptlint.reporters.common import format_usd, worst_loss

    message = finding.message
    worst = worst_loss(finding)
    if worst is not None and worst.usd_per_month > 0:
        message += f" (est. {format_usd(worst.usd_per_month)}/month, {worst.provider}/{worst.model})"
    if finding.hint:
        message += f"\nFix: {finding.hint}"
    if finding.fix is not None and finding.fix.safe:
        message += " (quick fix available)"
    related = []
    for item in finding.related:
        uri = from_fs_path(str((cwd / item.location.path).resolve()))
        if uri:
            point = types.Position(line=max(0, item.location.line - 1), character=max(0, item.location.column - 1))
            related.append(types.DiagnosticRelatedInformation(
                location=types.Location(uri=uri, range=types.Range(start=point, end=point)), message=item.message))
    return types.Diagnostic(range=lines.range_of(finding.location), message=message,
                            severity=SEVERITIES[finding.severity], code=finding.rule, source=SOURCE,
                            related_information=related or None, data={"finding": number})


def findings_by_file(result: AnalysisResult, cwd: Path) -> dict[Path, list[Finding]]:
    """By resolved path, not URI: editors spell URIs differently (percent-encoding, symlinks)."""
    grouped: dict[Path, list[Finding]] = {}
    for finding in result.findings:
        grouped.setdefault((cwd / finding.location.path).resolve(), []).append(finding)
    return grouped


def read_text(path: Path) -> str:
    from promptlint.fixes import read_exact

    try:
        return read_exact(path)
    except OSError:
        return ""


def run_analysis(uris: list[str]) -> dict[str, Analyzed]:
    """Analyze the documents (grouped by project); the result for each of them."""
    paths = {uri: path for uri in uris if (path := document_path(uri)) is not None and path.is_file()}
    if not paths:
        return {}
    with server.lock:
        cwd, result = analyze_paths(list(paths.values()))
    grouped = findings_by_file(result, cwd)
    analyzed = {}
    for uri, path in paths.items():
        text = read_text(path)
        lines = Lines(text)
        findings = grouped.get(path.resolve(), [])
        entry = Analyzed(text, findings, cwd)
        entry.diagnostics = [diagnostic(f, lines, n, cwd) for n, f in enumerate(findings)]
        analyzed[uri] = entry
    return analyzed


async def refresh(ls: PromptlintServer, uris: Iterable[str]) -> None:
    uris = list(dict.fromkeys(uris))
    try:
        analyzed = await asyncio.to_thread(run_analysis, uris)
    except Exception as exc:  # noqa: BLE001 - a bad config or an odd file must not end the session
        ls.window_log_message(types.LogMessageParams(type=types.MessageType.Error,
                                                     message=f"promptlint: {type(exc).__name__}: {exc}"))
        return
    for uri, entry in analyzed.items():
        if uri not in ls.open_uris:
            continue  # closed while it was being analyzed
        ls.analyzed[uri] = entry
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=entry.diagnostics))


def _project_of(uri: str) -> Path | None:
    from promptlint.config import load_config

    path = document_path(uri)
    if path is None:
        return None
    try:
        return load_config(path).root.resolve()
    except Exception:  # noqa: BLE001
        return None


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: PromptlintServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.open_uris.add(params.text_document.uri)
    await refresh(ls, [params.text_document.uri])


@server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
async def did_save(ls: PromptlintServer, params: types.DidSaveTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.open_uris.add(uri)
    project = _project_of(uri)
    same_project = [u for u in ls.open_uris if u != uri and project is not None and _project_of(u) == project]
    await refresh(ls, [uri, *same_project])


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: PromptlintServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.open_uris.discard(uri)
    ls.analyzed.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
def code_action(ls: PromptlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    entry = ls.analyzed.get(uri)
    if entry is None:
        return []
    try:
        current = ls.workspace.get_text_document(uri).source
    except Exception:  # noqa: BLE001
        return []
    if current != entry.text:
        return []  # edited since the analysis: the fixes' offsets no longer apply (save to refresh)
    wanted = params.range
    actions = []
    for number, (finding, diag) in enumerate(zip(entry.findings, entry.diagnostics)):
        if finding.fix is None or not finding.fix.safe or not _overlaps(diag.range, wanted):
            continue
        edit = workspace_edit(finding.fix.edits, uri, entry)
        if edit is None:
            continue
        actions.append(types.CodeAction(title=f"promptlint: {finding.fix.description}",
                                        kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                                        is_preferred=True, edit=edit))
    return actions


def workspace_edit(edits: Iterable[Edit], uri: str, entry: Analyzed) -> types.WorkspaceEdit | None:
    """The fix's edits as LSP text edits; None if one is in a file other than this document."""
    path = document_path(uri)
    lines = Lines(entry.text)
    changes: list[types.TextEdit] = []
    for edit in edits:
        if path is None or (entry.cwd / edit.path).resolve() != path.resolve():
            return None
        changes.append(types.TextEdit(range=types.Range(start=lines.at_offset(edit.start), end=lines.at_offset(edit.end)),
                                      new_text=edit.replacement))
    return types.WorkspaceEdit(changes={uri: changes}) if changes else None


def _overlaps(a: types.Range, b: types.Range) -> bool:
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and \
        (b.start.line, b.start.character) <= (a.end.line, a.end.character)


def main() -> None:
    """Serve over stdio. Anything printed by mistake goes to stderr, never into the protocol."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr
    server.start_io(stdin, stdout)


if __name__ == "__main__":
    main()
