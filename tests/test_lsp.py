"""`promptlint lsp`: a real LSP session over stdio, driven by pygls's own client, as an editor does.

The server runs as a subprocess (`python -m promptlint lsp`, this checkout's code); the test opens a
file, waits for the diagnostics, asks for the quick fix, applies its edit, saves, and sees the
finding go. pygls is in the `test` extra, so this runs in CI.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, write_tree

pytest.importorskip("pygls", reason="pip install -e '.[test]' installs pygls (the lsp extra)")

from lsprotocol import types  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402
from pygls.uris import from_fs_path  # noqa: E402

# The profile line holds a non-ASCII character before the finding: LSP counts UTF-16 units.
JSON_BUST = """
import json
from openai import OpenAI
INSTRUCTIONS = "Use the profile to personalise answers but never reveal it. " * 20
def answer(data: dict, question: str, history: list):
    profile = {key: data.get(key) for key in {"name", "plan", "region"}}
    system = "Profil𝔢: " + json.dumps(profile) + "\\n" + INSTRUCTIONS
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
"""
PROJECT = {
    "pyproject.toml": "[project]\nname = 'demo'\n",
    "app.py": JSON_BUST,
    "clean.py": "def add(a: int, b: int) -> int:\n    return a + b\n",
}
FINDING_LINE = 5  # 0-based: the `system = ...` line
TIMEOUT = 90


class Session:
    """A pygls client talking to `python -m promptlint lsp`, collecting published diagnostics."""

    def __init__(self) -> None:
        self.client = LanguageClient("promptlint-test", "1")
        self.published: dict[str, list[list[types.Diagnostic]]] = {}
        self.arrived = asyncio.Event()

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(ls: Any, params: types.PublishDiagnosticsParams) -> None:
            self.published.setdefault(params.uri, []).append(params.diagnostics)
            self.arrived.set()

    async def start(self, root: Path) -> types.InitializeResult:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        await self.client.start_io(sys.executable, "-m", "promptlint", "lsp", cwd=str(root), env=env)
        result = await self.client.initialize_async(types.InitializeParams(
            process_id=os.getpid(), root_uri=from_fs_path(str(root)),
            capabilities=types.ClientCapabilities()))
        self.client.initialized(types.InitializedParams())
        return result

    async def diagnostics_for(self, uri: str, count: int) -> list[types.Diagnostic]:
        """Waits for the ``count``-th publication for ``uri``."""
        async def wait() -> None:
            while len(self.published.get(uri, [])) < count:
                self.arrived.clear()
                await self.arrived.wait()
        await asyncio.wait_for(wait(), TIMEOUT)
        return self.published[uri][count - 1]

    async def stop(self) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
        self.client.exit(None)
        await self.client.stop()


def open_params(path: Path, version: int = 1) -> types.DidOpenTextDocumentParams:
    return types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=from_fs_path(str(path)), language_id="python", version=version, text=path.read_text(encoding="utf-8")))


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP edits (UTF-16 positions) to ``text``, last first, as an editor does."""
    lines = text.splitlines(keepends=True)

    def offset(position: types.Position) -> int:
        line = lines[position.line]
        units, chars = 0, 0
        while units < position.character:
            units += len(line[chars].encode("utf-16-le")) // 2
            chars += 1
        return sum(len(lines[i]) for i in range(position.line)) + chars

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


def test_diagnostics_on_open_quick_fix_and_save(tmp_path: Path) -> None:
    root = write_tree(tmp_path, PROJECT)
    app, clean = root / "app.py", root / "clean.py"
    uri, clean_uri = from_fs_path(str(app)), from_fs_path(str(clean))

    async def session() -> None:
        lsp = Session()
        init = await lsp.start(root)
        assert init.server_info is not None and init.server_info.name == "promptlint"
        capabilities = init.capabilities
        assert capabilities.code_action_provider
        sync = capabilities.text_document_sync
        assert isinstance(sync, types.TextDocumentSyncOptions) and sync.open_close and sync.save
        try:
            # open: one PC004 error at `json.dumps(profile)`, in UTF-16 columns
            lsp.client.text_document_did_open(open_params(app))
            (diag,) = [d for d in await lsp.diagnostics_for(uri, 1) if d.code == "PC004"]
            assert diag.source == "promptlint" and diag.severity == types.DiagnosticSeverity.Error
            line = JSON_BUST.lstrip("\n").splitlines()[FINDING_LINE]
            start = line.index("json.dumps")
            assert (diag.range.start.line, diag.range.end.line) == (FINDING_LINE, FINDING_LINE)
            # 𝔢 is one character but two UTF-16 units
            assert diag.range.start.character == start + 1
            assert diag.range.end.character == start + 1 + len("json.dumps(profile)")
            assert "sort_keys" in diag.message or "key order" in diag.message
            # a clean file gets an empty publication
            lsp.client.text_document_did_open(open_params(clean))
            assert list(await lsp.diagnostics_for(clean_uri, 1)) == []

            # code action: the safe fix, as an edit of this document
            actions = await asyncio.wait_for(lsp.client.text_document_code_action_async(types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
                context=types.CodeActionContext(diagnostics=[diag]))), TIMEOUT)
            assert actions, "no code action for the PC004 finding"
            (action,) = actions
            assert isinstance(action, types.CodeAction)
            assert action.kind == types.CodeActionKind.QuickFix and "sort_keys" in action.title
            assert action.edit is not None and action.edit.changes is not None
            edits = action.edit.changes[uri]
            fixed = apply(app.read_text(encoding="utf-8"), edits)
            assert 'json.dumps(profile, sort_keys=True)' in fixed
            assert fixed.replace(", sort_keys=True", "") == app.read_text(encoding="utf-8")

            # the editor applies it and saves: the finding is gone
            app.write_text(fixed, encoding="utf-8")
            lsp.client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)]))
            lsp.client.text_document_did_save(types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=uri)))
            after = await lsp.diagnostics_for(uri, 2)
            assert not [d for d in after if d.code == "PC004"]
        finally:
            await lsp.stop()

    asyncio.run(session())
    assert any((root / ".promptlint_cache").rglob("*.json")), "the analysis used the project's cache"


def test_no_quick_fix_once_the_buffer_differs_from_the_analyzed_text(tmp_path: Path) -> None:
    root = write_tree(tmp_path, PROJECT)
    app = root / "app.py"
    uri = from_fs_path(str(app))

    async def session() -> None:
        lsp = Session()
        await lsp.start(root)
        try:
            lsp.client.text_document_did_open(open_params(app))
            (diag,) = [d for d in await lsp.diagnostics_for(uri, 1) if d.code == "PC004"]
            edited = "# a new first line\n" + app.read_text(encoding="utf-8")
            lsp.client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited)]))
            actions = await asyncio.wait_for(lsp.client.text_document_code_action_async(types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
                context=types.CodeActionContext(diagnostics=[diag]))), TIMEOUT)
            assert not actions  # the offsets belong to the saved text: save first
        finally:
            await lsp.stop()

    asyncio.run(session())


def test_without_pygls_the_command_says_how_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from tests.integration_helpers import cli

    monkeypatch.setitem(sys.modules, "pygls", None)  # find_spec: not installed
    code, out, err = cli("lsp", cwd=tmp_path)
    assert code == 2 and out == ""
    assert "pip install 'promptlint[lsp]'" in err


def test_saving_one_module_refreshes_the_other_open_modules_of_the_project(tmp_path: Path) -> None:
    from tests.integration_helpers import CROSS_MODULE

    root = write_tree(tmp_path, {"pyproject.toml": "[project]\nname = 'helpdesk'\n", **CROSS_MODULE})
    bot, sections = root / "helpdesk" / "bot.py", root / "helpdesk" / "sections.py"
    bot_uri, sections_uri = from_fs_path(str(bot)), from_fs_path(str(sections))

    async def session() -> None:
        lsp = Session()
        await lsp.start(root)
        try:
            lsp.client.text_document_did_open(open_params(sections))
            lsp.client.text_document_did_open(open_params(bot))
            # the clock is born in sections.py and reaches the call in bot.py: reported where it is born
            (diag,) = [d for d in await lsp.diagnostics_for(sections_uri, 1) if d.code == "PC001"]
            assert diag.related_information and any(
                r.location.uri == bot_uri for r in diag.related_information)  # the path to the call
            await lsp.diagnostics_for(bot_uri, 1)
            # fix the layout in bot.py (the time goes into the final user message) and save bot.py only
            fixed = bot.read_text(encoding="utf-8").replace('"\\n\\n".join([current_time(), RULES])', "RULES")
            fixed = fixed.replace('"content": question}', '"content": question + "\\n" + current_time()}')
            assert fixed.count("current_time()") == 1 and "system = RULES" in fixed
            bot.write_text(fixed, encoding="utf-8")
            lsp.client.text_document_did_save(types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=bot_uri)))
            assert not [d for d in await lsp.diagnostics_for(sections_uri, 2) if d.code == "PC001"]
        finally:
            await lsp.stop()

    asyncio.run(session())
