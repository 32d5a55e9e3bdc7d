"""Fixes: libcst edits computed from findings, shown in SARIF, applied by ``--fix``.

| rule | fix | safety |
|---|---|---|
| PC004 | add `sort_keys=True` to the `json.dumps` call | safe: same data, one key order |
| PC002, PC003 (set order, directory listing) | iterate `sorted(...)` instead | safe: same items, one order |
| PC001 (simple f-string) | move the f-string's volatile line into the final user message | unsafe: changes the text |

A fix is a set of ``Edit``s (character offsets into the file as analyzed). Each replaces one
expression, rendered by libcst from the original tree, so formatting and comments elsewhere stay
byte for byte. Applying is atomic per file (temporary file + ``os.replace``), only inside the
project, only if the file did not change since the analysis, and only if the result parses with
both libcst and ``ast``; otherwise the file is left alone and the refusal reported. Fixes are
idempotent: a fixed expression no longer matches (``sort_keys`` present, iterable already
``sorted``), so a second run changes nothing.
"""

from __future__ import annotations

import ast
import difflib
import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Sequence

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, ParentNodeProvider, PositionProvider

from promptlint.model import AnalysisResult, Edit, Finding, Fix, Location

SORTABLE_CALLS = {"list": "sorted", "tuple": "tuple"}  # list(s) -> sorted(s); tuple(s) -> tuple(sorted(s))


# --- parsed sources ---------------------------------------------------------------------------

@dataclass
class Source:
    """One Python file parsed by libcst, with positions and parents of its nodes."""

    path: Path
    display: str
    text: str
    module: cst.Module
    positions: dict[cst.CSTNode, CodeRange]
    parents: dict[cst.CSTNode, cst.CSTNode]

    def node_at(self, location: Location, kinds: tuple[type, ...] = (cst.BaseExpression,)) -> cst.CSTNode | None:
        """The node of one of ``kinds`` spanning exactly ``location`` (outermost first)."""
        start, end = (location.line, location.column - 1), (location.end_line, location.end_column - 1)
        for node, where in self.positions.items():
            if isinstance(node, kinds) and (where.start.line, where.start.column) == start \
                    and (where.end.line, where.end.column) == end:
                return node
        return None

    def enclosing(self, node: cst.CSTNode, kinds: tuple[type, ...]) -> cst.CSTNode | None:
        current = self.parents.get(node)
        while current is not None and not isinstance(current, kinds):
            current = self.parents.get(current)
        return current


class Sources:
    """Parses each file once per run; a file that does not parse has no fixes."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._cache: dict[Path, Source | None] = {}

    def get(self, display: str) -> Source | None:
        path = (self.cwd / display).resolve()
        if path not in self._cache:
            self._cache[path] = _parse(path, display)
        return self._cache[path]


def read_exact(path: Path) -> str:
    """The file's text with its own line endings (offsets of edits count these characters)."""
    with path.open(encoding="utf-8", newline="") as stream:
        return stream.read()


def _parse(path: Path, display: str) -> Source | None:
    if path.suffix != ".py":
        return None
    try:
        text = read_exact(path)
        wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
        positions = dict(wrapper.resolve(PositionProvider))
        parents = dict(wrapper.resolve(ParentNodeProvider))
    except (OSError, UnicodeDecodeError, cst.ParserSyntaxError, RecursionError):
        return None
    return Source(path, display, text, wrapper.module, positions, parents)


# --- from replacements to edits --------------------------------------------------------------

def _edit(source: Source, old: cst.CSTNode, new: cst.CSTNode) -> Edit:
    """The smallest text edit that turns ``old`` into ``new`` (rendered from the whole module)."""
    changed = source.module.deep_replace(old, new)
    assert isinstance(changed, cst.Module)
    before, after = source.text, changed.code
    start = 0
    limit = min(len(before), len(after))
    while start < limit and before[start] == after[start]:
        start += 1
    end_before, end_after = len(before), len(after)
    while end_before > start and end_after > start and before[end_before - 1] == after[end_after - 1]:
        end_before -= 1
        end_after -= 1
    return Edit(source.display, start, end_before, after[start:end_after])


Replacement = tuple[Source, cst.CSTNode, cst.CSTNode]


def _fix(description: str, safe: bool, replacements: Sequence[Replacement]) -> Fix | None:
    if not replacements:
        return None
    return Fix(description, safe, tuple(_edit(src, old, new) for src, old, new in replacements))


# --- PC004: json.dumps(..., sort_keys=True) --------------------------------------------------

def _is_json_dumps(node: cst.CSTNode) -> bool:
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    return (isinstance(func, cst.Attribute) and func.attr.value == "dumps") or \
        (isinstance(func, cst.Name) and func.value == "dumps")


def fix_sort_keys(finding: Finding, sources: Sources) -> Fix | None:
    source = sources.get(finding.location.path)
    if source is None:
        return None
    call = source.node_at(finding.location, (cst.Call,))
    if call is None or not _is_json_dumps(call):
        return None
    assert isinstance(call, cst.Call)
    if not call.args or any(a.star == "**" or (a.keyword and a.keyword.value == "sort_keys") for a in call.args):
        return None  # already decided by the author, or hidden in **kwargs: leave it
    return _fix("pass `sort_keys=True` to json.dumps", True, [(source, call, _with_sort_keys(call))])


def _with_sort_keys(call: cst.Call) -> cst.Call:
    no_space = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                               whitespace_after=cst.SimpleWhitespace(""))
    args = list(call.args)
    last = args[-1]
    if isinstance(last.comma, cst.Comma):  # a trailing comma: keep the one-argument-per-line layout
        before_last = args[-2].comma.whitespace_after if len(args) > 1 and isinstance(args[-2].comma, cst.Comma) \
            else call.whitespace_before_args
        new_arg = cst.Arg(cst.Name("True"), keyword=cst.Name("sort_keys"), equal=no_space, comma=last.comma)
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=before_last))
        return call.with_changes(args=[*args, new_arg])
    new_arg = cst.Arg(cst.Name("True"), keyword=cst.Name("sort_keys"), equal=no_space)
    return call.with_changes(args=[*args, new_arg])


# --- PC002 / PC003: iterate sorted(...) instead of a set -------------------------------------

def fix_set_order(finding: Finding, sources: Sources) -> Fix | None:
    """A set's or a directory listing's items iterated in sorted order."""
    origin = finding.volatile_source
    if origin is None or origin.category not in ("set-order", "dir-order"):
        return None
    source = sources.get(origin.location.path)
    if source is None:
        return None
    node = source.node_at(origin.location)
    if node is None:
        return None
    what = f"iterate the {'set' if origin.category == 'set-order' else 'listing'} in sorted order"
    direct = _sorted_in_place(source, node)
    if direct is not None:
        return _fix(what, True, [direct])
    return _fix(what, True, _iterations_of_assigned_name(source, node))


def _sorted_call(node: cst.BaseExpression) -> cst.Call:
    return cst.Call(cst.Name("sorted"), args=[cst.Arg(node.with_changes(lpar=[], rpar=[]))])


def _is_call_to(node: cst.CSTNode | None, name: str) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == name


def _sorted_in_place(source: Source, node: cst.CSTNode) -> Replacement | None:
    """Wrap ``node`` in sorted() where it is iterated: a for loop, a comprehension, list(), join()."""
    assert isinstance(node, cst.BaseExpression)
    parent = source.parents.get(node)
    if isinstance(parent, cst.For) and parent.iter is node:
        return source, node, _sorted_call(node)
    if isinstance(parent, cst.CompFor) and parent.iter is node:
        comprehension = source.parents.get(parent)
        if isinstance(comprehension, cst.SetComp):
            return None  # the result is a set again: sorting here changes nothing
        return source, node, _sorted_call(node)
    if isinstance(parent, cst.Arg) and parent.keyword is None and not parent.star:
        call = source.parents.get(parent)
        if not isinstance(call, cst.Call) or len(call.args) != 1:
            return None
        if _is_call_to(call, "sorted"):
            return None
        if _is_call_to(call, "list"):
            return source, call.func, cst.Name("sorted")
        if _is_call_to(call, "tuple") or (isinstance(call.func, cst.Attribute) and call.func.attr.value == "join"):
            return source, node, _sorted_call(node)
    return None


def _iterations_of_assigned_name(source: Source, node: cst.CSTNode) -> list[Replacement]:
    """``names = set(...)`` assigned once in a scope: sort where ``names`` is iterated after it."""
    parent = source.parents.get(node)
    if not isinstance(parent, (cst.Assign, cst.AnnAssign)) or parent.value is not node:
        return []
    targets = parent.targets if isinstance(parent, cst.Assign) else [parent]
    if len(targets) != 1 or not isinstance(targets[0].target, cst.Name):
        return []
    name = targets[0].target.value
    scope = source.enclosing(parent, (cst.FunctionDef,)) or source.module
    assigned_at = source.positions[parent].end.line
    collector = _NameUses(name)
    scope.visit(collector)
    if collector.bindings != 1:
        return []  # rebound somewhere: the name may not hold the set any more
    uses = [use for use in collector.uses if source.positions[use].start.line > assigned_at]
    return [r for use in uses if (r := _sorted_in_place(source, use)) is not None]


class _NameUses(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.uses: list[cst.Name] = []
        self.bindings = 0

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.uses.append(node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.bindings += _binds(node.target, self.name)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.bindings += _binds(node.target, self.name) if node.value is not None else 0

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.bindings += _binds(node.target, self.name)

    def visit_For(self, node: cst.For) -> None:
        self.bindings += _binds(node.target, self.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.bindings += _binds(node.target, self.name)


def _binds(target: cst.CSTNode, name: str) -> int:
    if isinstance(target, cst.Name):
        return int(target.value == name)
    if isinstance(target, (cst.Tuple, cst.List)):
        return sum(_binds(element.value, name) for element in target.elements)
    return 0


# --- PC001 (unsafe): move the volatile line of an f-string into the final user message -------

def fix_move_to_user_turn(finding: Finding, sources: Sources) -> Fix | None:
    """The simple case: an f-string in the function that makes the call, a literal ``messages``
    list ending with ``{"role": "user", "content": <text>}``."""
    if finding.call_site.location.path != finding.location.path:
        return None
    source = sources.get(finding.location.path)
    if source is None:
        return None
    value = source.node_at(finding.location)
    expression = source.enclosing(value, (cst.FormattedStringExpression,)) if value is not None else None
    if isinstance(value, cst.FormattedStringExpression):
        expression = value
    fstring = source.parents.get(expression) if expression is not None else None
    call = source.node_at(finding.call_site.location, (cst.Call,))
    if not isinstance(fstring, cst.FormattedString) or not isinstance(call, cst.Call):
        return None
    function = source.enclosing(fstring, (cst.FunctionDef,))
    if function is None or function is not source.enclosing(call, (cst.FunctionDef,)):
        return None
    content = _final_user_content(call)
    if content is None or source.positions[fstring].start.line >= source.positions[call].start.line:
        return None
    assert isinstance(expression, cst.FormattedStringExpression)
    kept, moved = _split_line(fstring, expression)
    if not moved:
        return None
    old_string, new_string = _without(source, fstring, kept)
    new_content = cst.BinaryOperation(content, cst.Add(), fstring.with_changes(
        parts=[cst.FormattedStringText(_newline(fstring) * 2), *moved], lpar=[], rpar=[]))
    return _fix("move the volatile text into the final user message (changes the prompt text)", False,
                [(source, old_string, new_string), (source, content, new_content)])


def _final_user_content(call: cst.Call) -> cst.BaseExpression | None:
    messages = next((a.value for a in call.args if a.keyword and a.keyword.value == "messages"),
                    None)
    if not isinstance(messages, cst.List) or not messages.elements:
        return None
    last = messages.elements[-1].value
    if not isinstance(last, cst.Dict):
        return None
    fields = {_string_key(e): e.value for e in last.elements if isinstance(e, cst.DictElement)}
    content = fields.get("content")
    role = fields.get("role")
    if not (isinstance(role, cst.SimpleString) and role.evaluated_value == "user"):
        return None
    plain_text = (cst.Name, cst.Attribute, cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)
    return content if isinstance(content, plain_text) else None


def _string_key(element: cst.DictElement) -> str | None:
    key = element.key
    return key.evaluated_value if isinstance(key, cst.SimpleString) else None  # type: ignore[return-value]


def _newline(fstring: cst.FormattedString) -> str:
    """How a newline is written in this f-string: an escape, or a real one in a raw string."""
    return "\n" if "r" in fstring.prefix.lower() else "\\n"


def _split_line(fstring: cst.FormattedString, expression: cst.FormattedStringExpression
                ) -> tuple[list[cst.BaseFormattedStringContent], list[cst.BaseFormattedStringContent]]:
    """Split the f-string's parts into (kept, moved): moved is the line holding ``expression``,
    without its line break. Text parts are cut at newlines (escaped or real)."""
    pieces: list[tuple[cst.BaseFormattedStringContent, bool]] = []  # (piece, ends a line)
    for part in fstring.parts:
        if isinstance(part, cst.FormattedStringText):
            for text, breaks in _cut_lines(part.value, raw="r" in fstring.prefix.lower()):
                pieces.append((cst.FormattedStringText(text), breaks))
        else:
            pieces.append((part, False))
    index = next(i for i, (piece, _) in enumerate(pieces) if piece is expression)
    start = index
    while start > 0 and not pieces[start - 1][1]:
        start -= 1
    end = index
    while end < len(pieces) - 1 and not pieces[end][1]:
        end += 1
    line = pieces[start:end + 1]
    moved = [_strip_break(p) if breaks else p for p, breaks in line]
    kept = [p for p, _ in pieces[:start]] + [p for p, _ in pieces[end + 1:]]
    moved = [p for p in moved if not (isinstance(p, cst.FormattedStringText) and not p.value)]
    kept = [p for p in kept if not (isinstance(p, cst.FormattedStringText) and not p.value)]
    return _merge_text(kept), _merge_text(moved)


def _cut_lines(text: str, raw: bool) -> Iterable[tuple[str, bool]]:
    """Split f-string source text after each newline; yields (text, ends with a newline)."""
    current, i = "", 0
    while i < len(text):
        if not raw and text[i] == "\\" and i + 1 < len(text):
            current += text[i:i + 2]
            i += 2
            if current.endswith("\\n") and not current.endswith("\\\\n"):
                yield current, True
                current = ""
            continue
        current += text[i]
        i += 1
        if text[i - 1] == "\n":
            yield current, True
            current = ""
    if current:
        yield current, False


def _strip_break(piece: cst.BaseFormattedStringContent) -> cst.BaseFormattedStringContent:
    assert isinstance(piece, cst.FormattedStringText)
    value = piece.value
    value = value[:-2] if value.endswith("\\n") else value.rstrip("\n")
    return cst.FormattedStringText(value)


def _merge_text(parts: list[cst.BaseFormattedStringContent]) -> list[cst.BaseFormattedStringContent]:
    merged: list[cst.BaseFormattedStringContent] = []
    for part in parts:
        if merged and isinstance(part, cst.FormattedStringText) and isinstance(merged[-1], cst.FormattedStringText):
            merged[-1] = cst.FormattedStringText(merged[-1].value + part.value)
        else:
            merged.append(part)
    return merged


def _without(source: Source, fstring: cst.FormattedString, kept: list[cst.BaseFormattedStringContent]
             ) -> tuple[cst.CSTNode, cst.CSTNode]:
    """Replace the f-string by what is left of it; an emptied ``f"" + X`` becomes ``X``."""
    if kept:
        return fstring, fstring.with_changes(parts=kept)
    parent = source.parents.get(fstring)
    if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Add):
        other = parent.right if parent.left is fstring else parent.left
        return parent, other.with_changes(lpar=parent.lpar, rpar=parent.rpar)
    return fstring, fstring.with_changes(parts=[])


# --- attaching fixes to findings -------------------------------------------------------------

Fixer = Callable[[Finding, Sources], "Fix | None"]
FIXERS: dict[str, Fixer] = {
    "PC004": fix_sort_keys,
    "PC002": fix_set_order,
    "PC003": fix_set_order,
    "PC001": fix_move_to_user_turn,
}


def attach_fixes(result: AnalysisResult, cwd: Path) -> AnalysisResult:
    """Each finding with an automatic fix gets it in ``finding.fix`` (safe or unsafe)."""
    sources = Sources(cwd)
    findings = []
    for finding in result.findings:
        fixer = FIXERS.get(finding.rule)
        fix = None
        if fixer is not None and finding.fix is None:
            try:
                fix = fixer(finding, sources)
            except Exception:  # noqa: BLE001 - a fix is optional: an odd shape means none, never a crash
                fix = None
        findings.append(replace(finding, fix=fix) if fix is not None else finding)
    return replace(result, findings=tuple(findings))


# --- applying ---------------------------------------------------------------------------------

@dataclass
class FixReport:
    """What applying (or previewing) fixes did, per file."""

    changed: dict[str, tuple[str, str]] = field(default_factory=dict)  # display path -> (before, after)
    fixed: dict[str, list[Finding]] = field(default_factory=dict)  # display path -> findings fixed there
    refused: list[tuple[str, str]] = field(default_factory=list)  # (path, why)
    skipped_unsafe: int = 0  # findings with only an unsafe fix, not applied without --unsafe-fixes

    @property
    def fixed_count(self) -> int:
        return sum(len(found) for found in self.fixed.values())

    def drop(self, display: str, why: str) -> None:
        self.changed.pop(display, None)
        self.fixed.pop(display, None)
        self.refused.append((display, why))

    def diff(self) -> str:
        chunks: list[str] = []
        for path, (before, after) in sorted(self.changed.items()):
            chunks.extend(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                               fromfile=f"a/{path}", tofile=f"b/{path}"))
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                       for line in chunks)


def plan_fixes(result: AnalysisResult, root: Path, cwd: Path, unsafe: bool,
               targets: Sequence[Path] | None = None) -> FixReport:
    """Compute the new text of every file with applicable fixes; writes nothing.

    Only files inside the project ``root`` and, if given, under ``targets`` (the paths the user
    named: pre-commit's staged files) are changed."""
    report = FixReport()
    by_file: dict[str, list[Finding]] = {}
    for finding in result.findings:
        if finding.fix is None or not finding.fix.edits:
            continue
        if not finding.fix.safe and not unsafe:
            report.skipped_unsafe += 1
            continue
        for path in dict.fromkeys(edit.path for edit in finding.fix.edits):
            by_file.setdefault(path, []).append(finding)
    multi_file = {id(f) for f in result.findings if f.fix and len({e.path for e in f.fix.edits}) > 1}
    allowed = [(cwd / t).resolve() for t in targets] if targets is not None else None
    for path, findings in sorted(by_file.items()):
        absolute = (cwd / path).resolve()
        if allowed is not None and not any(absolute == a or a in absolute.parents for a in allowed):
            report.refused.append((path, "not among the paths given; not changed"))
            continue
        _plan_file(path, [f for f in findings if id(f) not in multi_file], root, cwd, report)
    return report


def _plan_file(display: str, findings: list[Finding], root: Path, cwd: Path, report: FixReport) -> None:
    path = (cwd / display).resolve()
    if root.resolve() not in path.parents:
        report.refused.append((display, "outside the project; not changed"))
        return
    try:
        before = read_exact(path)
    except (OSError, UnicodeDecodeError) as exc:
        report.refused.append((display, f"cannot read: {exc}"))
        return
    accepted: list[Edit] = []
    fixed: list[Finding] = []
    for finding in findings:
        assert finding.fix is not None
        edits = [e for e in finding.fix.edits if e.path == display and e not in accepted]
        if any(_overlaps(e, other) for e in edits for other in accepted):
            continue  # a later run fixes it, once the first edit is in place
        accepted.extend(edits)
        fixed.append(finding)
    after = apply_edits(before, accepted)
    problem = parse_problem(after, path)
    if problem:
        report.refused.append((display, f"the fixed file would not parse ({problem}); not changed"))
    elif after != before:
        report.changed[display] = (before, after)
        report.fixed[display] = fixed


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """``text`` with non-overlapping ``edits`` applied (from the end, so offsets stay valid)."""
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        text = text[:edit.start] + edit.replacement + text[edit.end:]
    return text


def _overlaps(a: Edit, b: Edit) -> bool:
    return a.start < b.end and b.start < a.end or (a.start == b.start)


def parse_problem(text: str, path: Path) -> str | None:
    """Why ``text`` is not valid Python (for libcst or ast), or None."""
    if path.suffix != ".py":
        return None
    try:
        cst.parse_module(text)
        ast.parse(text, filename=str(path))
    except (cst.ParserSyntaxError, SyntaxError, ValueError, RecursionError) as exc:
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return None


def write_fixes(report: FixReport, cwd: Path) -> None:
    """Write each changed file atomically, if it still holds the text the fixes were made for."""
    for display, (before, after) in list(report.changed.items()):
        path = (cwd / display).resolve()
        try:
            current = read_exact(path)
        except (OSError, UnicodeDecodeError) as exc:
            report.drop(display, f"cannot read: {exc}")
            continue
        if current != before:
            report.drop(display, "changed while promptlint was running; not changed")
            continue
        _atomic_write(path, after)


def _atomic_write(path: Path, text: str) -> None:
    mode = path.stat().st_mode
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".promptlint-fix", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
