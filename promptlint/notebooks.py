"""Jupyter notebooks (``.ipynb``): their code cells analyzed like a Python module, as ruff does.

A notebook is read with ``json`` (nbformat 4; no extra dependency). Its code cells, in order, form
one Python module: cells a kernel runs one after another share their names, so a value born in one
cell and used in a later one is followed. IPython lines that are not Python are blanked, keeping
every line number (a cell that is Python as written is kept whole): line magics and shell escapes
(``%time``, ``!pip``, indented ones under an ``if`` too, and the lines a trailing backslash
continues them on), the magics IPython runs without ``%`` (``pip install ...``), help lines
(``obj?``), and whole cells that start with a cell magic (``%%bash``).

Locations are reported like ruff: ``cell`` is the cell's 1-based position in the notebook (all
cells counted, Markdown too, as Jupyter shows them), ``line`` the 1-based line within that cell:
``notebook.ipynb:cell 3:2:5`` in text, ``"cell": 3, "line": 2`` in JSON.

Each notebook is analyzed on its own (through a temporary copy of its code as a ``.py`` file):
suppression comments work in cells; a value imported from the project's modules is not followed
into them. ``--fix`` does not write notebooks.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

from promptlint.config import Config
from promptlint.model import AnalysisResult, FileError, Location

SUFFIX = ".ipynb"
MAX_NOTEBOOK_BYTES = 20_000_000


# Line magics IPython runs without their `%` (automagic) that notebooks use that way:
# `pip install -U "autogen-ext[openai]"`. A package manager only with one of its commands, the
# others only with an argument that is not an operator or a keyword (`pip or default` is Python).
AUTOMAGIC = re.compile(r"(?:pip|conda|mamba|uv)\s+(?:install|uninstall|list|show|freeze|download|sync|add|"
                       r"remove|run|create|update|upgrade|pip)\b"
                       r"|(?:cd|load_ext|matplotlib)\s+(?!(?:and|or|if|else|in|is|not|for)\b)[\w\-\"'./~$]")


LINE_IN_MESSAGE = re.compile(r"\(line (\d+)\)")


# IPython's help lines: `obj?`, `obj.method??`, `?obj` (a name, not a sentence ending in `?`).
HELP = re.compile(r"\?{0,2}[A-Za-z_][\w.]*(?:\(\))?\?{1,2}$|\?{1,2}[A-Za-z_][\w.]*$")


class NotebookError(Exception):
    """Not a notebook promptlint can read: reported as a per-file error."""


@dataclass(frozen=True)
class NotebookSource:
    source: str  # the code cells as one module
    lines: tuple[tuple[int, int], ...]  # module line (index + 1) -> (cell, line in cell)

    def place(self, line: int) -> tuple[int, int] | None:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else None


def notebook_source(text: str) -> NotebookSource:
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise NotebookError(f"not a valid notebook (JSON): {exc}") from None
    except RecursionError:
        raise NotebookError("not a valid notebook: JSON nested too deeply") from None
    cells = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("not a notebook in nbformat 4 (no 'cells' list)")
    out: list[str] = []
    places: list[tuple[int, int]] = []
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(str(piece) for piece in source)
        if not isinstance(source, str):
            continue
        lines = source.splitlines()
        out += lines if _is_python(source) else _python_lines(lines)
        places += [(number, index) for index in range(1, len(lines) + 1)]
        out.append("")  # a separator line: a cell never continues the previous one's statement
        places.append((number, len(lines) + 1))
    return NotebookSource("\n".join(out) + "\n", tuple(places))


def _is_python(source: str) -> bool:
    """A cell that is Python as written (top-level `await` allowed, as in a kernel) is kept
    whole: a line of a prompt string that ends in `?` or starts with `!` is text, not IPython."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an invalid escape in the cell is not ours to report
            compile(source, "<cell>", "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _python_lines(lines: list[str]) -> list[str]:
    if lines and lines[0].lstrip().startswith("%%"):
        return [""] * len(lines)  # a cell magic: the whole cell is another language
    kept: list[str] = []
    continued = False  # the line before was IPython syntax ending in a backslash
    for line in lines:
        ipython = continued or _not_python(line)
        kept.append(("" if continued else _blanked(line)) if ipython else line)
        continued = ipython and line.rstrip().endswith("\\")
    return kept


def _not_python(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(("%", "!")) or HELP.match(stripped) is not None \
        or AUTOMAGIC.match(stripped) is not None


def _blanked(line: str) -> str:
    """An IPython line as nothing; indented (`    !git clone ...` under an `if`), as `pass`, so
    the block around it keeps a statement."""
    indent = line[:len(line) - len(line.lstrip())]
    return f"{indent}pass" if indent and line.strip() else ""


def cell_lines(path: str, cell: int) -> tuple[str, ...]:
    """The lines of one cell of a notebook (for code frames); empty when unreadable."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
        source = document["cells"][cell - 1].get("source", "")
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError):
        return ()
    return tuple(("".join(source) if isinstance(source, list) else str(source)).splitlines())


def analyze_notebooks(notebooks: list[Path], config: Config, cwd: Path) -> AnalysisResult:
    """Every notebook on its own, with the project's configuration; locations point into cells."""
    from promptlint.engine import _ignored_for_file, fingerprint
    from promptlint.pipeline import CheckOptions, run_check

    findings, errors, layouts, analyzed = [], [], [], 0
    for notebook in notebooks:
        shown = _display(notebook, cwd)
        try:
            if notebook.stat().st_size > min(config.max_file_bytes or MAX_NOTEBOOK_BYTES, MAX_NOTEBOOK_BYTES):
                raise NotebookError("file too large; skipped")
            converted = notebook_source(notebook.read_text(encoding="utf-8", errors="replace"))
        except (OSError, NotebookError) as exc:
            errors.append(FileError(shown, str(exc)))
            continue
        with tempfile.TemporaryDirectory(prefix="promptlint-notebook-") as folder:
            scratch = Path(folder).resolve()
            module = scratch / (notebook.stem + ".py")
            module.write_text(converted.source, encoding="utf-8")
            isolated = dataclasses.replace(config, root=scratch, config_file=None, cache_dir=None,
                                           respect_gitignore=False, force_exclude=False, per_file_ignores=(),
                                           exclude=(), extend_exclude=(), one_process=True)
            outcome = run_check([module], isolated, CheckOptions(attach_fixes=False), scratch)
        analyzed += outcome.result.files_analyzed
        mapper = _Mapper(module.name, str(module), shown, converted)
        offset = len(layouts)
        layouts += [mapper.value(layout) for layout in outcome.result.layouts]
        for finding in outcome.result.findings:
            mapped = mapper.value(finding)
            index = None if mapped.layout_index is None else mapped.layout_index + offset
            mapped = dataclasses.replace(mapped, fix=None, layout_index=index)
            if not _ignored_for_file(mapped, config):
                findings.append(dataclasses.replace(mapped, fingerprint=fingerprint(mapped)))
        errors += [dataclasses.replace(e, path=shown, message=_cell_line(e.message, converted))
                   for e in outcome.result.errors]
    return AnalysisResult(tuple(findings), tuple(errors), tuple(layouts), files_analyzed=analyzed)


def _cell_line(message: str, converted: NotebookSource) -> str:
    """``syntax error (line 710): ...`` in the converted module as ``(cell 72, line 5)``."""
    found = LINE_IN_MESSAGE.search(message)
    place = converted.place(int(found[1])) if found else None
    if found is None or place is None:
        return message
    return f"{message[:found.start()]}(cell {place[0]}, line {place[1]}){message[found.end():]}"


def _display(path: Path, cwd: Path) -> str:
    try:
        return os.path.relpath(path, cwd)
    except ValueError:
        return str(path)


class _Mapper:
    """Copies a finding with every location in the converted module moved into its cell."""

    def __init__(self, relative: str, absolute: str, shown: str, converted: NotebookSource) -> None:
        self.names = {relative, absolute}
        self.shown = shown
        self.converted = converted

    def value(self, value):  # type: ignore[no-untyped-def]
        if isinstance(value, Location):
            return self.location(value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes = {}
            for field in dataclasses.fields(value):
                current = getattr(value, field.name)
                if isinstance(current, (tuple, Location)) or dataclasses.is_dataclass(current):
                    new = self.value(current)
                    if new is not current:
                        changes[field.name] = new
            return dataclasses.replace(value, **changes) if changes else value
        if isinstance(value, tuple):
            items = tuple(self.value(item) for item in value)
            return items if any(a is not b for a, b in zip(items, value)) else value
        return value

    def location(self, location: Location) -> Location:
        if location.path not in self.names:
            return location
        start = self.converted.place(location.line)
        if start is None:
            return dataclasses.replace(location, path=self.shown)
        end = self.converted.place(location.end_line)
        cell, line = start
        end_line, end_column = (end[1], location.end_column) if end and end[0] == cell else (line, location.column)
        return Location(self.shown, line, location.column, end_line, end_column, cell=cell)
