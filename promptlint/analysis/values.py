"""Abstract values: what the evaluator knows about an expression without running it.

Text is a run of literal pieces and holes; lists and dicts keep their items and, separately,
whether their *order* can change between runs (a hole describing why).
"""

from __future__ import annotations

import json
import operator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Union

from promptlint.model import CacheBreakpoint, HashedOnce, Hole, Literal, Location, Segment, Step, Volatility

# Ranking used to pick "the most volatile" hole of a value: what changes most often first.
VOLATILITY_RANK = {
    Volatility.STABLE: 0,
    Volatility.UNKNOWN: 1,
    Volatility.PER_PROCESS: 2,
    Volatility.PER_DAY: 3,
    Volatility.PER_SESSION: 4,
    Volatility.PER_USER: 5,
    Volatility.ORDER_UNSTABLE: 6,
    Volatility.PER_REQUEST: 7,
}
MAX_STEPS = 8
MAX_UNROLL = 24  # items of a loop or a comprehension run one by one; beyond, one item stands for all
BUILT_ON = "becomes part of"  # a caller's value a callee builds on (add_step)


@dataclass(frozen=True)
class Text(HashedOnce):
    segs: tuple[Segment, ...]
    __hash__ = HashedOnce.__hash__


@dataclass(frozen=True)
class Number(Text):
    """A numeric literal: formats like text, but ``5 * 1024`` is arithmetic, not repetition."""

    __hash__ = HashedOnce.__hash__


@dataclass(frozen=True)
class Splice:
    """An unknown run of items inside a list (``*history``, ``+ history``)."""

    hole: Hole


@dataclass(frozen=True)
class Seq(HashedOnce):
    items: tuple["Value", ...]
    order: Hole | None = None  # set when the order of items can change between runs
    __hash__ = HashedOnce.__hash__


@dataclass(frozen=True)
class Mapping(HashedOnce):
    entries: tuple[tuple[str | None, "Value"], ...]
    order: Hole | None = None
    __hash__ = HashedOnce.__hash__

    def get(self, key: str) -> "Value | None":
        for name, value in reversed(self.entries):
            if name == key:
                return value
        return None


@dataclass(frozen=True)
class Obj:
    """An object of a known kind: an LLM client, a message class, a config object."""

    type: str
    fields: tuple[tuple[str, "Value"], ...] = ()
    args: tuple["Value", ...] = ()

    def field(self, name: str) -> "Value | None":
        for key, value in reversed(self.fields):
            if key == name:
                return value
        return None


@dataclass(frozen=True)
class Member:
    """``obj.a.b`` on an object of a known type, not yet called."""

    owner: Obj
    path: str


@dataclass(frozen=True)
class Ref:
    """A name that resolved to something outside the project (``datetime.datetime.now``)."""

    qualname: str


@dataclass(frozen=True, eq=False)
class FuncVal:
    module: Any  # ModuleInfo
    node: Any  # ast.FunctionDef | ast.Lambda
    qualname: str
    self_value: "Value | None" = None
    closure: dict[str, "Value"] | None = None


@dataclass(frozen=True, eq=False)
class ClassVal:
    info: Any  # ClassInfo


@dataclass(frozen=True, eq=False)
class Instance(HashedOnce):
    info: Any  # ClassInfo
    attrs: tuple[tuple[str, "Value"], ...] = ()
    # Only its type is known (a parameter annotated with the class): its declared fields hold what
    # the caller set, not the class's defaults.
    typed: bool = False
    # The other objects it may be at run time (a registry of providers read with a key the
    # analysis does not know): a method called on it runs on each (Evaluator.call_alternatives).
    alternatives: tuple["Instance", ...] = ()

    # Equal when of the same class with the same attributes: two entries of one class each make
    # their `self`, and a method called on either with the same arguments gives the same result
    # (the evaluator's memo, Evaluator.call_function). The class by identity: ClassInfo's
    # generated __eq__ compares every field.
    def __eq__(self, other: object) -> bool:
        return self is other or isinstance(other, Instance) and self.info is other.info \
            and self.typed == other.typed and self.attrs == other.attrs and self.alternatives == other.alternatives

    __hash__ = HashedOnce.__hash__

    def _hashed(self) -> tuple:
        return id(self.info), self.attrs, self.typed, self.alternatives


@dataclass(frozen=True)
class Unknown:
    hole: Hole


@dataclass(frozen=True)
class PathVal:
    path: Path | None


@dataclass(frozen=True)
class TemplateVal:
    """A template not yet rendered: jinja2, str.format text, string.Template, LangChain prompt."""

    kind: str  # "jinja" | "format" | "dollar" | "langchain"
    body: Any  # Text for format/dollar; (source, file Location) for jinja; Seq of messages for langchain
    filled: tuple[tuple[str, "Value"], ...] = ()


@dataclass(frozen=True)
class NoneVal:
    pass


@dataclass(frozen=True, eq=False)
class Partial:
    """`functools.partial(func, *args, **kwargs)`: calling it calls ``func`` with these first."""

    func: "Value"
    args: tuple["Value", ...]
    kwargs: tuple[tuple[str, "Value"], ...]


Value = Union[Text, Seq, Mapping, Obj, Member, Ref, FuncVal, ClassVal, Instance, Unknown, PathVal,
              TemplateVal, NoneVal, Splice, Partial]

NONE = NoneVal()


def unknown(expression: str, location: Location | None = None,
            volatility: Volatility = Volatility.UNKNOWN, **extra: Any) -> Unknown:
    return Unknown(Hole(volatility, expression, location, **extra))


def lit(text: str, location: Location | None = None) -> Text:
    return Text((Literal(text, location),))


# --- holes -----------------------------------------------------------------------------------


def holes_of(value: Value, depth: int = 0) -> list[Hole]:
    """Every hole inside a value, including order holes of lists and dicts."""
    if depth > 12:
        return []
    found: list[Hole] = []
    if isinstance(value, Text):
        found += [s for s in value.segs if isinstance(s, Hole)]
    elif isinstance(value, Unknown):
        found.append(value.hole)
    elif isinstance(value, Splice):
        found.append(value.hole)
    elif isinstance(value, (Seq, Mapping)):
        if value.order:
            found.append(value.order)
        children = value.items if isinstance(value, Seq) else [v for _, v in value.entries]
        for child in children:
            found += holes_of(child, depth + 1)
    elif isinstance(value, Obj):
        for _, child in value.fields:
            found += holes_of(child, depth + 1)
        for child in value.args:
            found += holes_of(child, depth + 1)
    elif isinstance(value, TemplateVal):
        for _, child in value.filled:
            found += holes_of(child, depth + 1)
    return found


def most_volatile(value: Value) -> Hole | None:
    best: Hole | None = None
    for hole in holes_of(value):
        if hole.volatility.is_volatile and (
            best is None or VOLATILITY_RANK[hole.volatility] > VOLATILITY_RANK[best.volatility]
        ):
            best = hole
    return best


def volatile_item(iterable: Value) -> Unknown | None:
    """What each item of ``iterable`` is when it is volatile: a volatile value's items are as
    volatile (its origin and path kept); so is every item of a list of unknown length whose run
    of items is volatile (a lookup's result list). Not the conversation history: its items are
    messages, judged as the history."""
    if isinstance(iterable, Unknown):
        return iterable if iterable.hole.volatility.is_volatile else None
    if isinstance(iterable, Seq):
        runs = [item.hole for item in iterable.items if isinstance(item, Splice)
                and item.hole.volatility.is_volatile and not item.hole.is_history]
        if runs:
            return Unknown(max(runs, key=lambda hole: VOLATILITY_RANK[hole.volatility]))
    return None


def is_structured(value: Value) -> bool:
    """A dict, an object, or a list of them (a list of messages): what an unknown call is handed
    is not text it edits, so its result does not carry their volatility (a model's reply does not
    carry the clock of the prompt it was sent)."""
    if isinstance(value, Seq):
        return any(isinstance(item, (Mapping, Obj, Instance)) for item in value.items)
    return isinstance(value, (Mapping, Obj, Instance))


def conversation(expression: str, where: Location | None = None) -> Seq:
    """A conversation known to follow (a history, not assumed): what a callee keeps, a framework
    replays or a request carries, as a list of unknown messages."""
    return Seq((Splice(Hole(Volatility.UNKNOWN, expression, where, is_history=True)),))


def map_holes(value: Value, change: Any, depth: int = 0) -> Value:
    """Apply ``change(hole) -> hole`` to every hole of a value (used for caps and sanitizers).
    A value none of whose holes change is returned as it is (the same object, its type and its
    cached hash kept): most assignments carry no volatile hole to record a step on."""
    if depth > 12:
        return value
    if isinstance(value, Text):
        segs = tuple(change(s) if isinstance(s, Hole) else s for s in value.segs)
        return value if _unchanged(segs, value.segs) else type(value)(segs)
    if isinstance(value, Unknown):
        hole = change(value.hole)
        return value if hole is value.hole else Unknown(hole)
    if isinstance(value, Splice):
        hole = change(value.hole)
        return value if hole is value.hole else Splice(hole)
    if isinstance(value, Seq):
        items = tuple(map_holes(i, change, depth + 1) for i in value.items)
        order = change(value.order) if value.order else None
        return value if _unchanged(items, value.items) and order is value.order else Seq(items, order)
    if isinstance(value, Mapping):
        entries = tuple((k, map_holes(v, change, depth + 1)) for k, v in value.entries)
        order = change(value.order) if value.order else None
        if order is value.order and _unchanged([v for _, v in entries], [v for _, v in value.entries]):
            return value
        return Mapping(entries, order)
    if isinstance(value, Obj):
        fields = tuple((k, map_holes(v, change, depth + 1)) for k, v in value.fields)
        args = tuple(map_holes(a, change, depth + 1) for a in value.args)
        if _unchanged([v for _, v in fields], [v for _, v in value.fields]) and _unchanged(args, value.args):
            return value
        return replace(value, fields=fields, args=args)
    return value


def _unchanged(new: Any, old: Any) -> bool:
    return all(map(operator.is_, new, old))  # map stops at the shorter, as zip did


def add_step(value: Value, step: Step, unknown_too: bool = False,
             built_on: tuple[Location, Step] | None = None) -> Value:
    """Record a hop (assignment, return, template slot) on every volatile hole of a value (and,
    with ``unknown_too``, on holes not known to be volatile yet: an entry's helper returns them,
    and the entry may find them request-derived).

    ``built_on``: the callee being run and the step to record on the unknown holes made outside
    it (a caller's argument) that it builds on, the first time only: should the value turn out to
    be request-derived, the finding points where it is built into the prompt."""

    def change(hole: Hole) -> Hole:
        if len(hole.path) >= MAX_STEPS:
            return hole
        if hole.volatility.is_volatile or hole.window is not None or unknown_too and not hole.is_history:
            hop = step
        elif built_on is not None and hole.volatility is Volatility.UNKNOWN and not hole.is_history \
                and hole.location is not None and not built_on[0].contains(hole.location) \
                and not any(s.description.startswith(BUILT_ON) for s in hole.path):
            hop = built_on[1]  # the first place only (derived._where_built_in reads no other)
        else:
            return hole
        if hole.path and hole.path[-1] == hop:
            return hole
        return replace(hole, path=(*hole.path, hop))

    return map_holes(value, change)


def cap_volatility(value: Value, cap: Volatility, assumption: str) -> Value:
    """Lower every volatile hole to at most ``cap`` (values computed once and stored)."""

    def change(hole: Hole) -> Hole:
        if hole.volatility.is_volatile and VOLATILITY_RANK[hole.volatility] > VOLATILITY_RANK[cap]:
            return replace(hole, volatility=cap, assumption=assumption)
        return hole

    return map_holes(value, change)


def drop_order(value: Value) -> Value:
    """``sorted()`` and friends: order no longer varies; order-unstable text becomes stable."""

    def change(hole: Hole) -> Hole:
        if hole.volatility is Volatility.ORDER_UNSTABLE:
            return replace(hole, volatility=Volatility.STABLE)
        return hole

    if isinstance(value, Seq):
        return Seq(tuple(drop_order(i) for i in value.items), None)
    if isinstance(value, Mapping):
        return Mapping(tuple((k, drop_order(v)) for k, v in value.entries), None)
    return map_holes(value, change)


# --- text ------------------------------------------------------------------------------------


def as_text(value: Value, where: Location | None, expression: str = "value") -> tuple[Segment, ...]:
    """The text a value turns into when formatted into a prompt."""
    if isinstance(value, Text):
        return value.segs
    if isinstance(value, Unknown):
        hole = value.hole if value.hole.location else replace(value.hole, location=where)
        return (hole,)
    if isinstance(value, Splice):
        return (value.hole,)
    if isinstance(value, NoneVal):
        return (Literal("None", where),)
    if isinstance(value, (Seq, Mapping)):
        return render_json(value, where)
    if isinstance(value, TemplateVal) and value.kind in ("format", "dollar"):
        return value.body.segs
    if isinstance(value, Obj):
        inner = value.field("content") or value.field("text")
        if inner is not None:
            return as_text(inner, where, expression)
    if isinstance(value, PathVal) and value.path is not None:
        # `f"{package_path}/prompts/{name}.txt"`: a path known to the analysis is its text, so
        # the file the app opens with it can be read.
        return (Literal(str(value.path), where),)
    return (Hole(Volatility.UNKNOWN, expression, where),)


def concat(*parts: tuple[Segment, ...]) -> Text:
    merged: list[Segment] = []
    for segs in parts:
        for seg in segs:
            if merged and isinstance(seg, Literal) and isinstance(merged[-1], Literal) and not seg.text:
                continue
            merged.append(seg)
    return Text(tuple(merged))


def literal_text(value: Value | None) -> str | None:
    """The exact text of a fully literal value, else None (also for no value at all)."""
    if isinstance(value, Text) and all(isinstance(s, Literal) for s in value.segs):
        return "".join(s.text for s in value.segs)  # type: ignore[union-attr]
    return None


def render_json(value: Value, where: Location | None) -> tuple[Segment, ...]:
    """Approximate JSON text of a structure, keeping holes where values are unknown."""
    out: list[Segment] = []
    if isinstance(value, (Seq, Mapping)) and value.order is not None:
        out.append(replace(value.order, location=value.order.location or where))
    _render_into(value, where, out, 0)
    return tuple(out)


def _render_into(value: Value, where: Location | None, out: list[Segment], depth: int) -> None:
    if depth > 10:
        out.append(Literal("…", where))
        return
    if isinstance(value, Seq):
        out.append(Literal("[", where))
        for index, item in enumerate(value.items):
            if index:
                out.append(Literal(", ", where))
            _render_into(item, where, out, depth + 1)
        out.append(Literal("]", where))
    elif isinstance(value, Mapping):
        out.append(Literal("{", where))
        for index, (key, item) in enumerate(value.entries):
            out.append(Literal((", " if index else "") + json.dumps(key or "?") + ": ", where))
            _render_into(item, where, out, depth + 1)
        out.append(Literal("}", where))
    elif isinstance(value, Text):
        text = literal_text(value)
        if text is not None:
            out.append(Literal(json.dumps(text), value.segs[0].location if value.segs else where))  # type: ignore[union-attr]
        else:
            out.append(Literal('"', where))
            out.extend(s for s in value.segs if not isinstance(s, CacheBreakpoint))
            out.append(Literal('"', where))
    elif isinstance(value, NoneVal):
        out.append(Literal("null", where))
    elif isinstance(value, Obj) and value.fields:
        # SDK objects (genai types.Tool, FunctionDeclaration, ...) serialize their fields.
        _render_into(Mapping(value.fields), where, out, depth)
    else:
        out.extend(as_text(value, where))


@dataclass
class ValueBox:
    """Mutable holder used while a function body is evaluated (lists grow by ``append``)."""

    value: Value
    extra: dict[str, Any] = field(default_factory=dict)


def spread_volatile(value: "Value") -> bool:
    """A value spread into a dict display (`{**record, ...}`) whose keys are not known and whose
    content changes between calls (a retrieved record)."""
    return isinstance(value, Unknown) and value.hole.volatility.is_volatile and not value.hole.is_history


def spread_of(mapping: Mapping) -> "Value | None":
    """What a key the dict does not name reads when the dict spreads a volatile record
    (`{**result, "query": q}["raw_content"]`): that record."""
    return next((v for k, v in reversed(mapping.entries) if k is None and spread_volatile(v)), None)
