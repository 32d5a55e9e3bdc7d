"""Prompt templates filled by a regular expression: `PATTERN.sub(fill, template)`.

Projects that cannot use `str.format` (their prompts hold JSON, code, `{...}` of their own) write a
small template engine of their own: a compiled pattern for the placeholders and a callback that
looks each one up (AGiXT's `custom_format`, onyx's `PromptTemplate`):

    _FIELD = re.compile(r"(?<!{){([^{}\\n]+)}(?!})")
    def custom_format(string, **kwargs):
        def fill(match):
            return str(kwargs.get(match.group(1), match.group(0)))
        return _FIELD.sub(fill, string)

The pattern is matched against the fixed text the analysis sees (never against a value it does
not know), and the callback is evaluated like any project function, once per placeholder, with a
match that holds the placeholder's text: what it returns takes the placeholder's place. The
pattern is the analyzed code's data, not its code; one that could backtrack without end (a
quantified group holding a quantifier or alternatives) or that is long is not run, nor is any
pattern over a piece of text too large, and the result stays unknown.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Any

from promptlint.analysis import templates  # which imports this module: used at call time only
from promptlint.analysis.values import Obj, Ref, Seq, Text, Value, lit, literal_text
from promptlint.model import Literal

if TYPE_CHECKING:
    from promptlint.analysis.evaluator import Evaluator, Frame

PATTERN = "re.Pattern"
MATCH = "re.Match"
MAX_PATTERN_CHARS = 200
MAX_MATCHES = 200  # placeholders filled in one text; past it the text is left unknown
MAX_TEXT_CHARS = 200_000  # fixed text a pattern runs over, in one piece
# A quantified group holding a quantifier or alternatives (`(a+)+`, `(\w*\s?)*`, `(a|aa)+`): it
# can backtrack for longer than any analysis should wait.
_NESTED_QUANTIFIER = re.compile(r"\([^()]*[+*}|][^()]*\)[+*{]")
FLAGS = {"re.I": re.I, "re.IGNORECASE": re.I, "re.M": re.M, "re.MULTILINE": re.M, "re.S": re.S,
         "re.DOTALL": re.S, "re.X": re.X, "re.VERBOSE": re.X, "re.A": re.A, "re.ASCII": re.A}


def compiled(pattern: Value | None, flags: Value | None = None) -> re.Pattern[str] | None:
    """The pattern a value holds (a literal, or what `re.compile` gave), when it is safe to run."""
    if isinstance(pattern, Obj) and pattern.type == PATTERN:
        flags = pattern.field("flags")
        pattern = pattern.args[0] if pattern.args else None
    source = literal_text(pattern) if pattern is not None else None
    if source is None or len(source) > MAX_PATTERN_CHARS or _NESTED_QUANTIFIER.search(source):
        return None
    value = 0
    if isinstance(flags, Ref):
        value = FLAGS.get(flags.qualname, 0)
    try:
        return re.compile(source, value)
    except (re.error, RecursionError, OverflowError):
        return None


def pattern_object(args: list[Value], kwargs: dict[str, Value]) -> Value | None:
    """`re.compile(r"...")`: the pattern, kept for the `.sub` that uses it."""
    pattern = args[0] if args else kwargs.get("pattern")
    if pattern is None or literal_text(pattern) is None:
        return None
    flags = args[1] if len(args) > 1 else kwargs.get("flags")
    return Obj(PATTERN, (("flags", flags),) if flags is not None else (), (pattern,))


def substituted(ev: Evaluator, pattern: re.Pattern[str] | None, repl: Value | None, text: Value | None,
                frame: Frame, node: ast.Call | None) -> Value | None:
    """``text`` with each placeholder ``pattern`` finds in its fixed pieces replaced by ``repl``
    (a string, or a function called with the match); None when that cannot be told."""
    if pattern is None or repl is None or not isinstance(text, Text):
        return None
    where = frame.module.location(node) if node is not None else None
    template = literal_text(repl)
    pieces: list[Any] = []
    found = 0
    for segment in text.segs:
        if not isinstance(segment, Literal):
            pieces.append(segment)
            continue
        if len(segment.text) > MAX_TEXT_CHARS:
            return None
        done = 0
        for match in pattern.finditer(segment.text):
            found += 1
            if found > MAX_MATCHES:
                return None
            if template is not None:
                try:
                    filled: tuple[Any, ...] = (Literal(match.expand(template), segment.location),)
                except (re.error, IndexError):
                    return None
            else:  # the value sits where its placeholder was: a finding points at the template
                placeholder = templates.sub_location(segment, match.start(), match.end() - match.start()) or where
                name = match.group(1) if match.re.groups and match.group(1) else match.group(0)
                filled = templates.slot_value(ev.call(repl, [_match_object(match, segment)], {}, frame, node),
                                              placeholder, name)
            pieces.extend(_piece(segment, done, match.start()))
            pieces.extend(filled)
            done = match.end()
        pieces.extend(_piece(segment, done, len(segment.text)))
    return Text(tuple(pieces))


def match_method(owner: Obj, name: str, args: list[Value]) -> Value | None:
    """`match.group(1)`, `match.group()`, `match.groups()` on a match the callback was given."""
    if name == "group":
        keys = [literal_text(arg) for arg in args] or ["0"]
        values = [owner.field(key) if key is not None else None for key in keys]
        if any(value is None for value in values):
            return None
        return values[0] if len(values) == 1 else Seq(tuple(v for v in values if v is not None))
    if name == "groups":
        return Seq(tuple(value for key, value in owner.fields if key.isdigit() and key != "0"))
    return None


def _match_object(match: re.Match[str], segment: Literal) -> Obj:
    """The match handed to a callback: its groups by number and by name, each placed in the text."""
    def group_text(index: int | str) -> Value:
        text = match.group(index)
        if text is None:
            return lit("")
        return Text((_placed(segment, match.start(index), text),))

    fields = [(str(index), group_text(index)) for index in range(match.re.groups + 1)]
    fields += [(name, group_text(name)) for name in match.re.groupindex]
    return Obj(MATCH, tuple(fields))


def _piece(segment: Literal, start: int, end: int) -> tuple[Literal, ...]:
    return (_placed(segment, start, segment.text[start:end]),) if end > start else ()


def _placed(segment: Literal, offset: int, text: str) -> Literal:
    """``text``, found at ``offset`` in ``segment``, with the place it is written at."""
    return Literal(text, templates.sub_location(segment, offset, len(text)) or segment.location)
