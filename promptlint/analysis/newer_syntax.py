"""Python syntax newer than the interpreter running the analysis (issue 15).

The analysis reads modules with the running interpreter's ``ast`` (today Python 3.11). Code written
for 3.12 uses generics (PEP 695: ``type X = ...``, ``def f[T](...)``, ``class C[T]:``) that 3.11
cannot parse. libcst's own parser reads them; this module rewrites them into the 3.11 shapes that
mean the same for a prompt-cache analysis, keeping every line where it was, so that locations in
findings stay right. It never runs the code.
"""

from __future__ import annotations

import re

import libcst as cst

_POSITION = re.compile(r"(?:parser error: )?error at (\d+):\d+: (.+)", re.DOTALL)


class _Downgrade(cst.CSTTransformer):
    """A ``type X = v`` alias is ``X = v``; ``def f[T](...)`` and ``class C[T]:`` lose their type
    parameters (they name types, never prompt text)."""

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
        # "parser error: error at 9:22: expected one of ,, :, =" (its own position is the right one)
        found = _POSITION.match(exc.message.strip())
        line, message = (int(found[1]), found[2]) if found else (exc.raw_line, exc.message.strip() or "invalid syntax")
        raise SyntaxError(message, ("", line, 0, "")) from None
    except (RecursionError, ValueError, MemoryError):
        return None
    return rewritten if rewritten != source and rewritten.count("\n") == source.count("\n") else None
