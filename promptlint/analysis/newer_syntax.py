"""Python syntax newer than the interpreter running the analysis (issue 15).

The analysis reads modules with the running interpreter's ``ast`` (today Python 3.11). Code written
for 3.12 uses generics (PEP 695: ``type X = ...``, ``def f[T](...)``, ``class C[T]:``) and
f-strings (PEP 701: the same quotes or a backslash inside ``{...}``) that 3.11 cannot parse; code
for 3.14 template strings (PEP 750: ``t"..."``) and exceptions listed without parentheses (PEP
758: ``except A, B:``).
libcst's own parser reads them; this module rewrites them into the 3.11 shapes that mean the same
for a prompt-cache analysis, keeping every line where it was, so that locations in findings stay
right. It runs only for a file the running parser rejects, and never runs the code.
"""

from __future__ import annotations

import ast
import re

import libcst as cst

_POSITION = re.compile(r"(?:parser error: )?error at (\d+):\d+: (.+)", re.DOTALL)


class _Downgrade(cst.CSTTransformer):
    """A ``type X = v`` alias is ``X = v``; ``def f[T](...)`` and ``class C[T]:`` lose their type
    parameters (they name types, never prompt text); an f-string 3.11 cannot read (PEP 701: the
    same quotes, a backslash or a comment inside ``{...}``) becomes the concatenation it builds,
    ``("Label: " + str(index) + ...)``, innermost first, and so does a template string (PEP 750:
    its text as rendered); ``except A, B:`` (PEP 758) gets its parentheses."""

    def __init__(self) -> None:
        super().__init__()
        # Strings of an implicit concatenation (``"a" f"..."``): libcst allows only strings there,
        # so an f-string inside one is rewritten with the whole concatenation, at its outermost node.
        self._concatenated: set[int] = set()

    def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> None:
        self._concatenated.update((id(node.left), id(node.right)))

    def leave_ConcatenatedString(self, original: cst.ConcatenatedString,
                                 updated: cst.ConcatenatedString) -> cst.BaseExpression:
        if id(original) in self._concatenated:
            return updated
        strings, gaps = _flattened(updated)
        converted = [_as_concatenation(string) for string in strings]
        if all(new is old for new, old in zip(converted, strings)):
            return updated
        joined = converted[0]
        for gap, piece in zip(gaps, converted[1:]):
            joined = cst.BinaryOperation(joined, cst.Add(whitespace_after=gap), piece)
        return joined.with_changes(lpar=updated.lpar or [cst.LeftParen()],
                                   rpar=updated.rpar or [cst.RightParen()])

    def leave_FormattedString(self, original: cst.FormattedString,
                              updated: cst.FormattedString) -> cst.BaseExpression:
        return updated if id(original) in self._concatenated else _as_concatenation(updated)

    def leave_TemplatedString(self, original: cst.TemplatedString,
                              updated: cst.TemplatedString) -> cst.BaseExpression:
        return updated if id(original) in self._concatenated else _as_concatenation(updated)

    def leave_ExceptHandler(self, original: cst.ExceptHandler, updated: cst.ExceptHandler) -> cst.ExceptHandler:
        return updated.with_changes(type=_parenthesized(updated.type))

    def leave_ExceptStarHandler(self, original: cst.ExceptStarHandler,
                                updated: cst.ExceptStarHandler) -> cst.ExceptStarHandler:
        return updated.with_changes(type=_parenthesized(updated.type))

    def leave_TypeAlias(self, original: cst.TypeAlias, updated: cst.TypeAlias) -> cst.Assign:
        return cst.Assign(targets=[cst.AssignTarget(updated.name)], value=updated.value)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        return updated.with_changes(type_parameters=None)

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        return updated.with_changes(type_parameters=None)


def downgrade(source: str) -> str | None:
    """``source`` with the newer syntax rewritten, every statement on its own lines; None when
    nothing needed rewriting or the rewrite would move a line. A file libcst cannot read either
    has a real syntax error: raised as one, at the place libcst names (the running parser's
    error would point at the first newer construct instead)."""
    try:
        rewritten = cst.parse_module(source).visit(_Downgrade()).code
    except cst.ParserSyntaxError as exc:
        if exc.message.strip().startswith("tokenizer error"):
            return None  # it names no position (always 1:1): the running parser's error has one
        # "parser error: error at 9:22: expected one of ,, :, =" (its own position is the right one)
        found = _POSITION.match(exc.message.strip())
        line, message = (int(found[1]), found[2]) if found else (exc.raw_line, exc.message.strip() or "invalid syntax")
        lines = source.splitlines()
        raise SyntaxError(message, ("", line, 0, lines[line - 1] if 0 < line <= len(lines) else "")) from None
    except (RecursionError, ValueError, MemoryError):
        return None
    return rewritten if rewritten != source and rewritten.count("\n") == source.count("\n") else None


def _as_concatenation(string: cst.BaseString) -> cst.BaseExpression:
    """An f-string 3.11 cannot read, or a template string (PEP 750, read as the text it renders),
    as the ``+`` of its texts and ``str(...)`` of its values; any other string as it is."""
    if not isinstance(string, (cst.FormattedString, cst.TemplatedString)) \
            or isinstance(string, cst.FormattedString) and _parses(string):
        return string
    prefix = "".join(c for c in string.prefix if c.lower() not in "ft")
    quote = string.start[len(string.prefix):]
    pieces: list[cst.BaseExpression] = []
    for part in string.parts:
        if isinstance(part, (cst.FormattedStringText, cst.TemplatedStringText)):
            text = part.value.replace("{{", "{").replace("}}", "}")
            pieces.append(cst.SimpleString(f"{prefix}{quote}{text}{quote}"))
        else:
            convert = {"r": "repr", "a": "ascii"}.get(part.conversion or "", "str")
            pieces.append(cst.Call(cst.Name(convert), [cst.Arg(part.expression)]))
    if not pieces:
        return cst.SimpleString(f"{prefix}{quote}{quote}")
    joined = pieces[0]
    for piece in pieces[1:]:
        joined = cst.BinaryOperation(joined, cst.Add(), piece)
    return joined.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _parenthesized(caught: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """``except A, B:`` (PEP 758) as ``except (A, B):``."""
    if isinstance(caught, cst.Tuple) and not caught.lpar:
        return caught.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return caught


def _flattened(concatenation: cst.ConcatenatedString) -> tuple[list[cst.BaseString],
                                                                list[cst.BaseParenthesizableWhitespace]]:
    """The strings of an implicit concatenation in order, and the whitespace between them."""
    strings: list[cst.BaseString] = []
    gaps: list[cst.BaseParenthesizableWhitespace] = []
    node: cst.BaseString = concatenation
    while isinstance(node, cst.ConcatenatedString):
        left = node.left
        if isinstance(left, cst.ConcatenatedString):
            inner_strings, inner_gaps = _flattened(left)
            strings += inner_strings
            gaps += inner_gaps
        else:
            strings.append(left)
        gaps.append(node.whitespace_between)
        node = node.right
    strings.append(node)
    return strings, gaps


def _parses(node: cst.FormattedString) -> bool:
    """Whether the running interpreter reads this f-string as written."""
    try:
        ast.parse(cst.Module([]).code_for_node(node).strip(), mode="eval")
    except (SyntaxError, ValueError):
        return False
    return True
