"""The project index: which module lives where, parsed lazily, with its imports and definitions.

Only modules that the analysis actually reaches are parsed: the entry files (those that mention
an LLM SDK) and whatever their values lead to through imports. Python's ``ast`` is used for
analysis because it parses about ten times faster than libcst; libcst does the fixes, where
keeping formatting matters.
"""

from __future__ import annotations

import ast
import gc
import hashlib
import os
import re
import sys
import symtable
import weakref
from array import array
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate
from pathlib import Path
from typing import TypeVar

from promptlint.model import Location


_PARSER_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_ODD_LINE_BREAK = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")  # str.splitlines' other breaks


SNIPPET_LIMIT = 60  # characters of code a value's description quotes


class ParseFailure(Exception):
    """A module could not be read or parsed; carries a user-facing message."""


@dataclass
class ClassInfo:
    name: str
    qualname: str
    node: ast.ClassDef
    module: "ModuleInfo"
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    class_attrs: dict[str, ast.expr] = field(default_factory=dict)
    bases: list[ast.expr] = field(default_factory=list)


@dataclass
class ModuleInfo:
    name: str
    path: Path  # absolute
    display: str  # path as shown to the user (relative to the working directory)
    source: str
    tree: ast.Module
    imports: dict[str, str] = field(default_factory=dict)  # local name -> qualified name
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    star_imports: list[str] = field(default_factory=list)  # modules of `from x import *`, in order

    @property
    def weight(self) -> int:
        """How much of the source this module holds as syntax trees, in characters: all of it
        once parsed, less the function bodies dropped by ``hollow`` and not used since."""
        return self._text.weight

    def hollow(self) -> int:
        """Drop the statements of every function and method defined outside a function (most of
        a module's tree, and the least of it that later entries use), keeping the definitions
        themselves: a body is parsed again from the source when it is used (``LazyBody``).
        Returns the characters of source freed."""
        text = self._text
        before = text.weight
        if before <= self._skeleton_weight:
            return 0  # already hollow, no body used since
        if text.used is None:  # the first time: every function
            text.used = self._hollowable
        for node, span in text.used:
            if type(node.body) is list:  # noqa: E721 - a LazyBody not yet used is already hollow
                _forget_memos(node)
                node.body = LazyBody(node, text, span)
                text.weight -= span
        text.used = []
        _forget_memos(self.tree)
        for klass in self.classes.values():
            _forget_memos(klass)
        return before - text.weight

    @cached_property
    def _text(self) -> SourceText:
        return SourceText(self.source, self.display)

    @cached_property
    def _skeleton_weight(self) -> int:
        return len(self.source) - sum(span for _, span in self._hollowable)

    @cached_property
    def _hollowable(self) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, int]]:
        """The functions ``hollow`` may empty, each with the characters its body spans: those
        defined outside any function and first on their line (their lines are parsed alone)."""
        text = self._text
        starts = text.starts
        found: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, int]] = []
        for node in _definitions_outside_functions(self.tree.body):
            start, end = node.lineno, node.end_lineno or node.lineno
            if start < end < len(starts) and not text.line(start).encode()[: node.col_offset].strip():
                found.append((node, starts[end] - starts[start]))
        return found

    def source_of(self, node: ast.AST) -> str:
        """The lines a node spans, whole (read from the source: its body need not be parsed)."""
        line = getattr(node, "lineno", 1)
        return self._text.lines(line, getattr(node, "end_lineno", None) or line)

    def location(self, node: ast.AST) -> Location:
        found: Location | None = getattr(node, "_location", None)
        if found is None:  # computed once, kept on the node: it goes when the node goes
            found = node._location = self._compute_location(node)  # type: ignore[attr-defined]
        return found

    def _compute_location(self, node: ast.AST) -> Location:
        line = getattr(node, "lineno", 1)
        end_line = getattr(node, "end_lineno", None) or line
        return Location(
            self.display,
            line,
            self._char_column(line, getattr(node, "col_offset", 0)) + 1,
            end_line,
            self._char_column(end_line, getattr(node, "end_col_offset", None) or 0) + 1,
        )

    def _char_column(self, line: int, byte_offset: int) -> int:
        # ast columns are UTF-8 byte offsets; users count characters.
        if self._text.ascii:
            return byte_offset
        text = self._text.line(line)
        if text.isascii():
            return byte_offset
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="replace"))

    def snippet(self, node: ast.AST, limit: int = SNIPPET_LIMIT) -> str:
        if limit == SNIPPET_LIMIT:  # the usual one is kept on the node, as its location is
            found: str | None = getattr(node, "_snippet", None)
            if found is None:
                found = node._snippet = self._snippet(node, limit)  # type: ignore[attr-defined]
            return found
        return self._snippet(node, limit)

    def _snippet(self, node: ast.AST, limit: int) -> str:
        text = self._segment(node, limit) or type(node).__name__
        text = " ".join(text.split())
        return text if len(text) <= limit else text[: limit - 1] + "…"

    @cached_property
    def bindings(self) -> dict[str, list[int]]:
        """For each module-level name, the top-level statements (indices into the body) that bind
        or change it (``X = …``, ``X += …``, ``X[k] = …``, ``X.append(…)``, also inside ``if``,
        ``try``, ``for`` and ``with``): what must run to know its value after import."""
        found: dict[str, list[int]] = {}
        for index, stmt in enumerate(self.tree.body):
            for name in _bound_names(stmt):
                indices = found.setdefault(name, [])
                if not indices or indices[-1] != index:
                    indices.append(index)
        return found

    def binding_digest(self, name: str) -> str | None:
        """A digest of what defines a module-level name as the evaluator looks it up: the target
        of its import, its function or class (decorators included) or the top-level statements
        that bind it, each with the line it starts on; None when the module does not define it.
        An entry that read only some names of this module (through an import) depends only on
        these: an edit elsewhere in the module leaves its stored result valid (engine.py)."""
        found = self._digests.get(name, self)
        if found is self:
            found = self._digests[name] = self._compute_digest(name)
        return found  # type: ignore[return-value]

    @cached_property
    def _digests(self) -> dict[str, str | None]:
        return {}  # only the names asked for: a digest of every name of every module cost 20 MB

    def _compute_digest(self, name: str) -> str | None:
        parts = []
        if name in self.imports:
            parts.append(f"import {self.imports[name]}")
        for node in (self.functions.get(name), getattr(self.classes.get(name), "node", None)):
            if node is not None:
                parts.append(self._statement_text(node))
        parts += [self._statement_text(self.tree.body[index]) for index in self.bindings.get(name, ())]
        if not parts:
            return None
        return hashlib.sha1("\x1e".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:16]

    def _statement_text(self, node: ast.stmt) -> str:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
        return f"{first}\x1f{self._text.lines(first, node.end_lineno or node.lineno)}"

    def source_segment(self, node: ast.AST) -> str | None:
        """The node's whole source text (ast.get_source_segment, reading only the node's lines)."""
        return self._segment(node, sys.maxsize)

    def _segment(self, node: ast.AST, limit: int) -> str | None:
        """ast.get_source_segment(self.source, node), stopping once ``limit`` visible
        characters are collected (a snippet never shows more)."""
        start, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        start_col, end_col = getattr(node, "col_offset", None), getattr(node, "end_col_offset", None)
        if start is None or end is None or start_col is None or end_col is None:
            return None
        text = self._text
        if not 0 < start <= end <= text.line_count:
            return None
        if start == end:
            return text.line(start).encode()[start_col:end_col].decode(errors="replace")
        pieces = [text.line(start).encode()[start_col:].decode(errors="replace")]
        visible = _visible_chars(pieces[0])  # a lower bound of the collapsed snippet's length
        for number in range(start + 1, end):
            if visible > limit:
                return "".join(pieces)
            pieces.append(text.line(number))
            visible += _visible_chars(pieces[-1])
        pieces.append(text.line(end).encode()[:end_col].decode(errors="replace"))
        return "".join(pieces)


def _definitions_outside_functions(body: list[ast.stmt]) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield stmt
        else:  # classes and compound statements: their blocks, never expressions
            for block in ("body", "orelse", "finalbody"):
                yield from _definitions_outside_functions(getattr(stmt, block, ()))
            for part in (*getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())):
                yield from _definitions_outside_functions(part.body)


class SourceText:
    """A module's source and its lines as the parser counts them, shared by the module and its
    hollow functions (it holds no tree, so a dropped module is still freed by reference counting)."""

    __slots__ = ("source", "display", "weight", "used", "ascii", "_starts")

    def __init__(self, source: str, display: str) -> None:
        self.source, self.display = source, display
        self.ascii = source.isascii()  # then columns in bytes are columns in characters
        self.weight = len(source)  # characters held as syntax trees (ModuleInfo.weight)
        # The functions whose body was parsed again since the module was last hollowed, and
        # that body's size (None: never hollowed).
        self.used: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, int]] | None = None
        self._starts: array[int] | None = None

    @property
    def starts(self) -> array[int]:
        """Where each line starts, and the source's length last. Offsets, not a list of lines:
        a kept module's lines would cost as much memory as its source again, and more."""
        if self._starts is None:
            # str.splitlines also breaks at form feeds and the like, which the parser does not:
            # then split as the parser does (rare; that way is slower).
            lines = _PARSER_LINE.findall(self.source) if _ODD_LINE_BREAK.search(self.source) \
                else self.source.splitlines(keepends=True)
            self._starts = array("L", accumulate(map(len, lines), initial=0))
        return self._starts

    @property
    def line_count(self) -> int:
        return len(self.starts) - 1

    def line(self, number: int) -> str:
        """Line ``number`` (from 1) with its line break; "" if there is no such line."""
        return self.lines(number, number)

    def lines(self, first: int, last: int) -> str:
        """Lines ``first`` to ``last`` (from 1, inclusive), as one text."""
        starts = self.starts
        if not 0 < first <= last < len(starts):
            return ""
        return self.source[starts[first - 1]:starts[last]]


# What the analysis keeps on a definition (`history_after`, `returned_messages`, a class's
# `_assignments`) points into its body, by node or by id(). A body parsed again is new nodes, and
# an id() may then name another node: such memos are dropped with the body, or a result would
# depend on which entries a worker ran before (seen on agno: a finding present or not by run).
_AST_KEYS: dict[type, frozenset[str]] = {}
# A class's memos that hold no syntax node (names, flags, locations: a pure function of its
# source text) outlive the hollowing: computing them again would parse every method body again.
DURABLE_CLASS_MEMOS = frozenset({"_appended", "_follow_up", "_assignment_places", "_front_cut"})
_CLASS_KEYS = frozenset(ClassInfo.__dataclass_fields__) | DURABLE_CLASS_MEMOS
# The same for a definition's memos that hold a flag or name statements by position, not by node.
FALLBACK_RETURNS_MEMO = "_promptlint_fallback_returns"  # evaluator._fallback_returns
GENERATOR_MEMO = "_promptlint_generator"  # evaluator._is_generator
SMALL_HELPER_MEMO = "_promptlint_small_helper"  # evaluator._small_helper
FLOWS_MEMO = "_promptlint_flows"  # Evaluator.own_slots: a definition's parameter flows
EXTRA_KEYWORDS_MEMO = "_promptlint_extra_stored"  # evaluator._extra_keywords_stored
DURABLE_NODE_MEMOS = frozenset({FALLBACK_RETURNS_MEMO, GENERATOR_MEMO, SMALL_HELPER_MEMO, FLOWS_MEMO,
                                EXTRA_KEYWORDS_MEMO})


def _forget_memos(holder: ast.AST | ClassInfo) -> None:
    if isinstance(holder, ClassInfo):
        kept = _CLASS_KEYS
    else:
        kept = _AST_KEYS.get(type(holder))
        if kept is None:
            kept = _AST_KEYS[type(holder)] = frozenset((*holder._fields, *holder._attributes, *DURABLE_NODE_MEMOS))
    for key in [key for key in holder.__dict__ if key not in kept]:
        del holder.__dict__[key]


class LazyBody(list):  # type: ignore[type-arg]
    """The statements of a function whose tree was dropped (ModuleInfo.hollow), parsed again
    from the module's lines on first use, then put back on the function. It is a list, so code
    that reads ``node.body`` needs no change."""

    __slots__ = ("_function", "_text", "_span", "_loaded")

    def __init__(self, function: ast.FunctionDef | ast.AsyncFunctionDef, text: SourceText, span: int) -> None:
        super().__init__()
        self._function = weakref.ref(function)  # the function holds its body: no cycle
        self._text, self._span, self._loaded = text, span, False

    def _load(self) -> list[ast.stmt]:
        if not self._loaded:
            self._loaded = True
            function = self._function()
            if function is not None:
                statements = _parse_body(function, self._text)
                list.extend(self, statements)
                if function.body is self:
                    function.body = statements
                    self._text.weight += self._span
                    self._text.used.append((function, self._span))  # type: ignore[union-attr]
        return self

    def __iter__(self) -> Iterator[ast.stmt]:
        return list.__iter__(self._load())

    def __len__(self) -> int:
        return list.__len__(self._load())

    def __getitem__(self, index):  # type: ignore[no-untyped-def, override]
        return list.__getitem__(self._load(), index)

    def __contains__(self, item: object) -> bool:
        return list.__contains__(self._load(), item)

    def __reversed__(self) -> Iterator[ast.stmt]:
        return list.__reversed__(self._load())


def _parse_body(function: ast.FunctionDef | ast.AsyncFunctionDef, text: SourceText) -> list[ast.stmt]:
    found = parse_own_lines(function, text)
    if found is not None:
        return found
    # Never expected (the lines parsed as part of the module): parse the whole module again.
    with _collection_paused():
        tree = ast.parse(text.source, filename=text.display)
    for node in nodes_of(tree, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if _same_definition(node, function):
            return node.body
    return []


def parse_own_lines(function: ast.FunctionDef | ast.AsyncFunctionDef, text: SourceText) -> list[ast.stmt] | None:
    """A function's statements, parsed from its own lines, padded so that every position is
    the one in the whole module (an indented method is parsed inside an ``if 1:``); None if
    what they parse to is not that function."""
    start, end, column = function.lineno, function.end_lineno or function.lineno, function.col_offset
    own = text.lines(start, end)
    source = "\n" * (start - 1) + own if column == 0 else "\n" * (start - 2) + "if 1:\n" + own
    try:
        with _collection_paused():
            tree = ast.parse(source, filename=text.display)
        found = tree.body[0] if column == 0 else tree.body[0].body[0]  # type: ignore[attr-defined]
    except (SyntaxError, ValueError, RecursionError, MemoryError, IndexError, AttributeError):
        return None
    return found.body if _same_definition(found, function) else None  # type: ignore[no-any-return, attr-defined]


def _same_definition(found: ast.AST, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return (type(found) is type(function) and found.name == function.name  # type: ignore[attr-defined]
            and (found.lineno, found.col_offset, found.end_lineno, found.end_col_offset)  # type: ignore[attr-defined]
            == (function.lineno, function.col_offset, function.end_lineno, function.end_col_offset))


def _visible_chars(text: str) -> int:
    return sum(len(word) for word in text.split())


# Fields that never hold a node worth finding (names, numbers, load/store contexts).
_LEAF_FIELDS = frozenset({"ctx", "id", "arg", "attr", "kind", "type_comment", "name", "module", "level", "asname",
                          "conversion", "is_async", "simple", "names"})
_NODE_FIELDS: dict[type, tuple[str, ...]] = {}

Node = TypeVar("Node", bound=ast.AST)


def nodes_of(tree: ast.AST, kind: type[Node] | tuple[type[Node], ...]) -> list[Node]:
    """The nodes of a kind in a tree, in ``ast.walk``'s order (breadth first), three to four
    times faster: no generators, and the fields that hold no such node skipped per node type."""
    found: list[Node] = []
    queue: list[ast.AST] = [tree]
    for current in queue:  # the queue grows while it is read: breadth first, as ast.walk
        node_type = type(current)
        if isinstance(current, kind):
            found.append(current)  # type: ignore[arg-type]
        fields = _NODE_FIELDS.get(node_type)
        if fields is None:
            fields = _NODE_FIELDS[node_type] = () if node_type is ast.Constant else \
                tuple(name for name in node_type._fields if name not in _LEAF_FIELDS)
        for name in fields:
            value = getattr(current, name, None)
            if type(value) is list or type(value) is LazyBody:
                queue.extend(item for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                queue.append(value)
    return found


def of_kind(nodes: list[ast.AST], kind: type[Node] | tuple[type[Node], ...]) -> list[Node]:
    """The nodes of a kind among nodes already walked: what ``nodes_of`` gives on the tree, when
    the walk was for these kinds and more (reading a list is far cheaper than walking again)."""
    return [node for node in nodes if isinstance(node, kind)]  # type: ignore[misc]


def decode_source(data: bytes) -> str:
    """Decode Python source honouring a BOM or a coding cookie, as the interpreter would."""
    import io
    import tokenize

    if b"\x00" in data:
        raise ParseFailure("file contains null bytes (binary file?)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise ParseFailure(f"cannot decode file: {exc}") from None


def parse_module(name: str, path: Path, display: str, source: str) -> ModuleInfo:
    with _collection_paused(), _parse_failures():
        try:
            tree = ast.parse(source, filename=display)
        except SyntaxError:
            source = downgraded_source(source) or source  # newer syntax, or the error again
            tree = ast.parse(source, filename=display)
        module = ModuleInfo(name, path, display, source, tree)
        _collect(module)
        return module


def check_syntax(source: str, display: str) -> None:
    """Raise ParseFailure where parse_module would, without building the syntax tree: the
    symbol-table pass works on the parser's own tree, a third faster. It also rejects the few
    errors found after parsing (a duplicate argument name), which the interpreter rejects too."""
    with _parse_failures():
        try:
            symtable.symtable(source, display, "exec")
        except SyntaxError:
            symtable.symtable(downgraded_source(source) or source, display, "exec")


def downgraded_source(source: str) -> str | None:
    """Source written for a newer Python than the one running the analysis, in syntax it parses
    (analysis/newer_syntax.py; libcst is imported only when a file needs it)."""
    from promptlint.analysis.newer_syntax import downgrade

    return downgrade(source)


@contextmanager
def _parse_failures() -> Iterator[None]:
    try:
        yield
    except SyntaxError as exc:
        where = f" (line {exc.lineno})" if exc.lineno else ""
        raise ParseFailure(f"syntax error{where}: {exc.msg}{_template_hint(exc.text)}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        detail = str(exc) or "nested too deeply for the parser"
        raise ParseFailure(f"cannot parse: {type(exc).__name__}: {detail}") from None


def _template_hint(line: str | None) -> str:
    """A file a project generates code from (cookiecutter's `class {{crew_name}}():`) is no
    Python until rendered: say so, and how to leave it out, rather than a bare syntax error."""
    if line is None or not ("{{" in line and "}}" in line or "{%" in line and "%}" in line):
        return ""
    return "; this looks like a template for generated code (`{{ … }}` or `{% … %}` on that line): " \
        "leave it out with `extend-exclude` in [tool.promptlint]"


# Set by a process that keeps parsed modules for long (the analysis workers): parsed trees are
# moved out of the collector's generations at once (``gc.freeze``), with whatever else is alive
# then, so the many young collections that follow never rescan them. Frozen objects are freed by
# reference counting only: whoever sets it keeps them free of cycles (Evaluator.release; the
# parse budget's eviction cuts a module's class back-references).
freeze_parsed_trees = False


@contextmanager
def _collection_paused() -> Iterator[None]:
    """Parse with the cyclic garbage collector paused: a syntax tree has no cycles, but its
    hundreds of thousands of new nodes trigger collection after collection that rescan the
    whole heap, and the first collection after the parse would scan the whole new tree (together
    about as long as the parse itself)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
        if freeze_parsed_trees:
            gc.freeze()
    finally:
        gc.enable()


def _collect(module: ModuleInfo) -> None:
    package = module.name if module.path.name == "__init__.py" else module.name.rpartition(".")[0]
    for stmt in module.tree.body:
        _collect_statement(module, stmt, package)


def _collect_statement(module: ModuleInfo, stmt: ast.stmt, package: str) -> None:
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if alias.asname:
                module.imports[alias.asname] = alias.name
            else:
                top = alias.name.split(".")[0]
                module.imports[top] = top
    elif isinstance(stmt, ast.ImportFrom):
        base = resolve_relative(package, stmt.module, stmt.level)
        for alias in stmt.names:
            if alias.name != "*":
                module.imports[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
            elif base:
                module.star_imports.append(base)
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        module.functions[stmt.name] = stmt
    elif isinstance(stmt, ast.ClassDef):
        module.classes[stmt.name] = _class_info(module, stmt)
    elif isinstance(stmt, (ast.If, ast.Try)):
        # `try: import x except ImportError: ...` and platform switches: collect both branches.
        for child in [*getattr(stmt, "body", []), *getattr(stmt, "orelse", []),
                      *getattr(stmt, "finalbody", [])]:
            _collect_statement(module, child, package)
        for handler in getattr(stmt, "handlers", []):
            for child in handler.body:
                _collect_statement(module, child, package)


def _bound_names(stmt: ast.stmt) -> Iterator[str]:
    """Module-level names a statement binds or changes, not looking into functions or classes."""
    if isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            yield from _changed_names(target)
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        yield from _changed_names(stmt.target)
    elif isinstance(stmt, ast.Expr):  # `X.append(…)`, `X.update(…)`
        call = stmt.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            yield from _changed_names(call.func.value)
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        yield from _changed_names(stmt.target)
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        for item in stmt.items:
            if item.optional_vars is not None:
                yield from _changed_names(item.optional_vars)
    for block in ("body", "orelse", "finalbody"):
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for child in getattr(stmt, block, ()):
                yield from _bound_names(child)
    for part in (*getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())):
        for child in part.body:
            yield from _bound_names(child)


def _changed_names(target: ast.expr) -> Iterator[str]:
    """The module-level name an assignment target binds or changes (``X``, ``X.a``, ``X[k]``)."""
    while isinstance(target, (ast.Attribute, ast.Subscript, ast.Starred)):
        target = target.value
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _changed_names(element)


def _class_info(module: ModuleInfo, node: ast.ClassDef) -> ClassInfo:
    info = ClassInfo(node.name, f"{module.name}.{node.name}", node, module, bases=list(node.bases))
    for stmt in node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            info.methods[stmt.name] = stmt
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    info.class_attrs[target.id] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value:
            info.class_attrs[stmt.target.id] = stmt.value
    return info


def _package_chain(folder: Path, chains: dict[Path, list[str]]) -> list[str]:
    """The packages enclosing ``folder`` (``__init__.py`` all the way up), outermost first."""
    found = chains.get(folder)
    if found is None:
        is_package = folder != folder.parent and (folder / "__init__.py").is_file()
        found = [*_package_chain(folder.parent, chains), folder.name] if is_package else []
        chains[folder] = found
    return found


def resolve_relative(package: str, module: str | None, level: int) -> str:
    if level == 0:
        return module or ""
    parts = package.split(".") if package else []
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    base = ".".join(parts)
    if module:
        return f"{base}.{module}" if base else module
    return base


def module_names_for(path: Path, root: Path, chains: dict[Path, list[str]] | None = None) -> list[str]:
    """Names a file is importable as: by its package chain, and relative to the project root.
    ``chains`` memoizes the package chain of each folder across the files of one run."""
    names: list[str] = []
    stem_parts = [] if path.name == "__init__.py" else [path.stem]
    chain = _package_chain(path.parent, {} if chains is None else chains)
    if chain:
        names.append(".".join([*chain, *stem_parts]))
    text, base = str(path), str(root)
    if text.startswith(base) and text[len(base):len(base) + 1] == os.sep:  # inside the root
        rel_parts = [p for p in os.path.splitext(text[len(base) + 1:])[0].split(os.sep) if p != "__init__"]
        # A `src/` layout imports below `src` (`pkg.module`); a project run from its root may
        # import through it too (devika's `from src.llm import LLM`, with no `src/__init__.py`).
        for parts in ([rel_parts[1:], rel_parts] if rel_parts and rel_parts[0] == "src" else [rel_parts]):
            dotted = ".".join(parts)
            if dotted and dotted not in names and all(p.isidentifier() for p in parts):
                names.append(dotted)  # a namespace package under the project root
    if stem_parts and ".".join(stem_parts) not in names:
        names.append(".".join(stem_parts))  # a script's sibling import (`import helpers`)
    return names


# --- the classes of the project by base (where to find the overrides of an abstract method) ---

# Starts with the literal `class` (no `^` with MULTILINE): the engine then finds candidates by a
# fast literal search, ten times faster over a large tree; the line start is checked after.
CLASS_BASES = re.compile(r"class[ \t]+(\w+)[ \t]*\(([^()]*(?:\([^()]*\)[^()]*)*)\)[ \t]*:")
BASE_NAME = re.compile(r"^([\w.]+)\[.*$", re.S)  # `Base[T]`: the base `Base`


def class_bases_in_text(text: str) -> tuple[str, ...]:
    """``"Class:Base,Other"`` for each class defined with bases (their last names; keywords such
    as ``metaclass=`` and subscripts dropped), read from the text: a superset is harmless, the
    evaluator checks each candidate's real bases."""
    if "class" not in text:
        return ()
    found = []
    for match in CLASS_BASES.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if text[line_start:match.start()].strip(" \t"):
            continue  # `class` inside a line (a word in a string or comment), not a definition
        name, bases = match.groups()
        last = [BASE_NAME.sub(r"\1", part.strip()).rsplit(".", 1)[-1] for part in bases.split(",")
                if part.strip() and "=" not in part]
        if last := [b for b in last if b.isidentifier() and b not in ("object", "ABC", "Protocol", "Generic")]:
            found.append(f"{name}:{','.join(last)}")
    return tuple(found)


def subclass_index(classes: dict[Path, tuple[str, ...]]) -> dict[str, tuple[tuple[Path, str], ...]]:
    """Base name (last part) -> the (file, class name) of each class that names it as a base."""
    index: dict[str, list[tuple[Path, str]]] = {}
    for path in sorted(classes):
        for entry in classes[path]:
            name, _, bases = entry.partition(":")
            for base in bases.split(","):
                index.setdefault(base, []).append((path, name))
    return {base: tuple(found) for base, found in index.items()}
