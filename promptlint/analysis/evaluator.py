"""Abstract evaluation of Python code: follows values through assignments, string building,
containers, helper functions, methods, modules and templates without running anything.

The evaluator is deliberately simple and flow-insensitive inside a block: statements are
visited in order, both branches of an ``if`` are taken, loops run once (or once per known item,
for short literal lists). When it cannot know a value it says so (an UNKNOWN hole): unknown is
never reported as volatile.
"""

from __future__ import annotations

import ast
import operator
import re
import sys
import time
from collections.abc import Mapping as Mapping_
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

from promptlint.analysis import templates
from promptlint.analysis.derived import (
    CHOSEN_TOOLS,
    DERIVED,
    LOOP_STATE,
    OBSERVED,
    ONE_ITEM_METHODS,
    REQUEST_INPUT,
    RUN_STATE,
    assigned_names,
    called_with,
    derived_names,
    input_names,
    local_names,
    parameter_names,
    tag_conversation_read,
    tag_request_derived,
    user_turn_names,
    written_annotation,
)
from promptlint.analysis.index import (
    EXTRA_KEYWORDS_MEMO,
    FALLBACK_RETURNS_MEMO,
    FLOWS_MEMO,
    GENERATOR_MEMO,
    SMALL_HELPER_MEMO,
    ClassInfo,
    ModuleInfo,
    nodes_of,
    resolve_relative,
)
from promptlint.analysis.layout import argument, is_turn, message_role_content, named_like
from promptlint.analysis.message_lists import history_after, returned_messages, system_heads
from promptlint.analysis.project import Project
from promptlint.analysis.reach import annotation_name, called_names
from promptlint.analysis.summaries import (Flow, SinkShapes, first_call_test, flow_slots, parameter_flows,
                                          positional_slot_applies, sink_shapes, written_names)
from promptlint.analysis.values import (
    MAX_UNROLL,
    BUILT_ON,
    NONE,
    ClassVal,
    FuncVal,
    Instance,
    Mapping,
    Member,
    NoneVal,
    Number,
    Obj,
    Partial,
    PathVal,
    Ref,
    Seq,
    Splice,
    TemplateVal,
    Text,
    Unknown,
    Value,
    add_step,
    as_text,
    cap_volatility,
    concat,
    conversation,
    drop_order,
    holes_of,
    is_structured,
    lit,
    literal_text,
    map_holes,
    most_volatile,
    render_json,
    spread_of,
    spread_volatile,
    unknown,
    volatile_item,
)
from promptlint.knowledge import SYSTEM_ROLE_SETTING, Knowledge, registering_methods
from promptlint.model import CacheBreakpoint, Hole, Literal, Location, Origin, Segment, Step, Via, Volatility

MAX_DEPTH = 4
# Past MAX_DEPTH, small helpers still run, this many frames further: a path or text helper
# (`f_join(*parts)` → `f_expand(path)`) at the bottom of a loader four frames down decides which
# file is the prompt, and costs next to nothing.
HELPER_DEPTH = 2
SMALL_HELPER_NODES = 60  # syntax nodes in the whole definition
STORED_DEPTH = 1  # where a stored attribute's value is evaluated (stored_attribute)
MAX_STORED_LOCALS = 8  # locals a stored attribute's value is evaluated with (bind_locals_used)
PASSED_TO = "system text passed to "  # what an inferred wrapper's system slot is judged as (see engine)
COVERING_DEPTH = 2  # MAX_DEPTH minus reach.MAX_HOPS: from here, every reaching callee is still run
STEP_BUDGET = 20_000  # evaluation steps per entry point: a guard against pathological code
TIME_DIRECTIVES = ("%H", "%I", "%M", "%S", "%f", "%p", "%X", "%c", "%T", "%R", "%s", "%r")

SinkHandler = Callable[["Frame", ast.Call, str, list[Value], dict[str, Value], Value | None], None]
# An assembly point: (frame, node, what assembles it, the system content) – see rules/prompt_sinks.yaml.
AssemblyHandler = Callable[..., None]  # (frame, node, what, text, derived names, request inputs)


class BudgetExceeded(Exception):
    pass


class DeadlineExceeded(BaseException):
    """The per-file time budget (``Evaluator.deadline``) ran out. A BaseException, so no
    ``except Exception`` on the way swallows it: the engine abandons the module and reports it."""


CLOCK_EVERY = 256  # steps between two looks at the clock when a deadline is set


@dataclass
class Frame:
    module: ModuleInfo
    locals: dict[str, Value] = field(default_factory=dict)
    depth: int = 0
    import_time: bool = False  # module-level code: runs once per process
    self_value: Value | None = None
    qualname: str = "<module>"
    returns: list[Value] = field(default_factory=list)
    fallbacks: set[int] = field(default_factory=set)  # indexes in `returns` of placeholders (`_fallback_returns`)
    order_taint: Hole | None = None  # inside a loop over an unordered collection
    in_llm_loop: bool = False  # inside a loop that calls an LLM: its counters change per call
    stack: tuple[int, ...] = ()
    function: ast.AST | None = None  # the definition being run (request-derived content reads it)
    first_turn: str | None = None  # inside a first-call branch (`if self.turn_count == 0:`): its description
    # The function and call that called this one (a system message it returns may be followed
    # by a conversation there: `system = get_system_message(); messages.append(system)`).
    call_site: tuple[ast.AST, ast.Call] | None = None


BUILTIN_KINDS = {Mapping: "dict", Text: "str"}
# What the evaluator learns of a syntax node once, for every entry of a worker (the node's
# own attributes: the fastest lookup, and gone when its module's tree is freed).
VALUE_ATTRIBUTE = "_promptlint_value"  # a constant's value; an f-string's text parts
GUARD_ATTRIBUTE = "_promptlint_guard"  # an `if`'s change guard and first-call test (see run_branches)
USER_INPUTS_ATTRIBUTE = "_promptlint_user_inputs"  # a definition's user-turn names (user_turn_inputs)
BUILTIN_TYPES = frozenset({"dict", "str", "list", "tuple", "set", "int", "float", "bool", "bytes"})


def _content_start(where: Location | None, source: str) -> Location | None:
    """Where a string literal's text starts: after its prefix and opening quotes (three for a
    triple-quoted string), so positions inside it (a template's placeholders) count from the text."""
    quote = next((i for i, char in enumerate(source[:4]) if char in "'\""), None)
    if where is None or quote is None:
        return where
    opening = 3 if source[quote:quote + 3] in ('"""', "'''") else 1
    return replace(where, column=where.column + quote + opening)


def _fstring_literals(node: ast.JoinedStr, module: ModuleInfo) -> tuple[Literal | None, ...]:
    """The text parts of an f-string with their places (None for a ``{...}``): the same on every
    evaluation. Before Python 3.12 the parser gives every text part the position of the whole
    string (its expressions keep their own): each part starts where the previous `{...}` closes,
    so a placeholder after several interpolated lines is found on its line."""
    found: list[Literal | None] = []
    text_at = _content_start(module.location(node), module.snippet(node, 8))
    for value in node.values:
        if isinstance(value, ast.Constant):
            found.append(Literal(str(value.value), text_at if OLD_FSTRING_POSITIONS else module.location(value)))
            continue
        found.append(None)
        if isinstance(value, ast.FormattedValue):
            where = module.location(value.value)
            closing = where.end_column + (2 if value.conversion != -1 else 0)  # `!r`, then `}`
            text_at = replace(where, line=where.end_line, column=closing + 1, end_column=closing + 2)
    return tuple(found)


def _string_body(source: str | None) -> tuple[str, str] | None:
    """A string literal's source as (its quotes, the text between them); None for a raw or bytes
    literal (its escapes are not read the same way) or a source this does not read."""
    quote = next((i for i, char in enumerate(source[:4]) if char in "'\""), None) if source else None
    if source is None or quote is None or any(prefix in source[:quote].lower() for prefix in "rb"):
        return None
    delimiter = source[quote:quote + 3] if source[quote:quote + 3] in ('"""', "'''") else source[quote]
    return delimiter, source[quote + len(delimiter):len(source) - len(delimiter)]


def _continued_lines(node: ast.Constant, module: ModuleInfo, first_column: int) -> list[tuple[str, int, int]] | None:
    """A multi-line string literal whose source lines end in ``\\`` (the line break is not part
    of the value): its value line by line, each piece with the source line and column it starts
    at, so a placeholder's position is counted from its own line. None when the pieces do not
    give back the value (a quoting form this does not read)."""
    quoted = _string_body(module.source_segment(node))
    if quoted is None:
        return None
    delimiter, body = quoted
    pieces: list[tuple[str, int, int]] = []
    lines = body.split("\n")
    for offset, raw in enumerate(lines):
        continued = raw.endswith("\\") and (len(raw) - len(raw.rstrip("\\"))) % 2 == 1
        text = raw[:-1] if continued else raw + ("" if offset == len(lines) - 1 else "\n")
        try:
            value = ast.literal_eval(f"{delimiter}{text}{delimiter}") if "\\" in text else text
        except (SyntaxError, ValueError):
            return None
        pieces.append((value, node.lineno + offset, first_column if offset == 0 else 1))
    return pieces if "".join(text for text, _, _ in pieces) == node.value else None


def _escaped_breaks(node: ast.Constant, module: ModuleInfo, first_column: int) -> list[tuple[str, int]] | None:
    """A one-line string literal with ``\\n`` escapes (``"Context:\\n{context}"``): its value cut
    after each escaped line break, each piece with the column it starts at in the source, so a
    placeholder after a break is found on this line, not counted onto the next ones. None when
    the pieces do not give back the value (a quoting form this does not read)."""
    quoted = _string_body(module.source_segment(node))
    if quoted is None:
        return None
    delimiter, body = quoted
    chunks: list[tuple[str, int]] = []
    start = index = 0
    while index < len(body):
        if body[index] == "\\":
            if body[index + 1:index + 2] == "n":
                chunks.append((body[start:index + 2], start))
                start = index + 2
            index += 2
            continue
        index += 1
    chunks.append((body[start:], start))
    try:
        decoded = [(ast.literal_eval(f"{delimiter}{chunk}{delimiter}"), first_column + offset)
                   for chunk, offset in chunks if chunk]
    except (SyntaxError, ValueError):
        return None
    # A piece of blank text counts as no stable text (checks.base.stable_after): kept with the
    # piece before it (or, first, the one after), the characters counted stay the same.
    pieces: list[tuple[str, int]] = []
    for text, column in decoded:
        if pieces and (not text.strip() or not pieces[-1][0].strip()):
            pieces[-1] = (pieces[-1][0] + text, pieces[-1][1])
        else:
            pieces.append((text, column))
    return pieces if "".join(text for text, _ in pieces) == node.value else None


OLD_FSTRING_POSITIONS = sys.version_info < (3, 12)


def _is_role_test(test: ast.expr) -> bool:
    """A message's role compared with a role name: `m["role"] == "system"`, `m.role != "user"`,
    `m.get("role") == "system"`."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq))):
        return False
    sides = (test.left, test.comparators[0])
    return any(isinstance(side, ast.Constant) and isinstance(side.value, str) for side in sides) \
        and any(_is_role_access(side) for side in sides)


def _is_role_access(node: ast.expr) -> bool:
    """`m.role`, `m["role"]` or `m.get("role")`."""
    if isinstance(node, ast.Attribute):
        return node.attr == "role"
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "role"
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
        and bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value == "role"


def _bool_literal(value: Value | None) -> bool | None:
    """``True`` or ``False`` written out (held as their text), else None."""
    text = literal_text(value) if isinstance(value, Text) else None
    return text == "True" if text in ("True", "False") else None


def _known_truth(value: Value) -> bool | None:
    """The truth of a value known enough: None, a bool literal, a number, text with some fixed
    characters, a list with a written-out item; else None."""
    if isinstance(value, NoneVal):
        return False
    if isinstance(value, Number):
        text = literal_text(value)
        return None if text is None else text not in ("0", "0.0")
    if isinstance(value, Text):
        flag = _bool_literal(value)
        if flag is not None:
            return flag
        return True if any(isinstance(seg, Literal) and seg.text for seg in value.segs) else None
    if isinstance(value, Seq) and any(not isinstance(item, Splice) for item in value.items):
        return True
    return None


def _flags_set(stmt: ast.stmt) -> tuple[str, ...]:
    """Names a statement's body sets to ``True`` or ``False`` (kept on the node: asked on every run)."""
    cached = stmt.__dict__.get("_flags_set")
    if cached is None:
        cached = stmt.__dict__["_flags_set"] = tuple(dict.fromkeys(
            target.id for node in nodes_of(stmt, ast.Assign)
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, bool)
            for target in node.targets if isinstance(target, ast.Name)))
    return cached


T = TypeVar("T")


def _slot_value(slot: str, args: Sequence[T], kwargs: Mapping_[str, T]) -> T | None:
    """The argument of a wrapper slot (``s#0``, ``m=messages``): by position or by keyword (the
    values of a call, or its syntax). For a slot read from an attribute of an argument
    (``s#0.system``: the callee sends ``request.system``), the object handed over."""
    place = slot[2:].partition(".")[0]
    if slot[1] == "#":
        index = int(place)
        return args[index] if index < len(args) else None
    return kwargs.get(place)


def _slot_attribute(slot: str) -> str:
    """``system`` for ``s#0.system``: the attribute of the argument the callee reads ("" for none)."""
    return slot[2:].partition(".")[2]


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _fallback_returns(function: ast.AST) -> frozenset[tuple[int, int]]:
    """The `return`s of a definition that give a short placeholder written there (`return f"<no
    messages for {ticker}>"`): in an exception handler, or under a test that the data is missing
    (`if not messages:`, `if rows is None:`, `if len(hits) == 0:`). By position (line, column),
    kept on the definition when its body is dropped (index.DURABLE_NODE_MEMOS)."""
    found = function.__dict__.get(FALLBACK_RETURNS_MEMO)
    if found is None:
        places: set[tuple[int, int]] = set()
        for node in nodes_of(function, (ast.ExceptHandler, ast.If)):
            if isinstance(node, ast.If) and not _tests_missing(node.test):
                continue
            places.update((r.lineno, r.col_offset) for stmt in node.body for r in nodes_of(stmt, ast.Return)
                          if _is_placeholder_text(r.value))
        found = function.__dict__[FALLBACK_RETURNS_MEMO] = frozenset(places)
    return found  # type: ignore[no-any-return]


PLACEHOLDER_CHARS = 200  # a message that stands for missing data is a line, not a prompt


def _is_placeholder_text(value: ast.expr | None) -> bool:
    """A string or f-string written at the `return`, short: not a value handed through."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return len(value.value) <= PLACEHOLDER_CHARS
    if isinstance(value, ast.JoinedStr):
        return sum(len(part.value) for part in value.values
                   if isinstance(part, ast.Constant) and isinstance(part.value, str)) <= PLACEHOLDER_CHARS
    return False


def _tests_missing(test: ast.expr) -> bool:
    """`not x`, `x is None` (`_emptiness_test`) or `len(x) == 0` of a value, not a type test (`not
    isinstance(x, str)`). An object's first turn (`if self.turn_count == 0:`) is a decision, not
    missing data."""
    if first_call_test(test):
        return False
    tested = _emptiness_test(test)
    if tested is not None:
        return isinstance(tested[0], (ast.Name, ast.Attribute, ast.Subscript))
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) \
        and isinstance(test.left, ast.Call) and isinstance(test.left.func, ast.Name) and test.left.func.id == "len" \
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == 0


def _is_placeholder(node: ast.expr) -> bool:
    """`self.x = None` or `self.topic = ""` in a constructor: no value yet, one is set later."""
    return isinstance(node, ast.Constant) and (node.value is None or node.value == "")


def _type_filtered_out(generator: ast.comprehension, item: Value) -> bool:
    """``for m in messages if isinstance(m, dict)`` over a known item that provably is not of that
    type (an object of a class, a str): the filter drops it. A comprehension that keeps nothing is
    empty, whatever order its source had (bench: a set of dicts filtered from pydantic messages)."""
    if not isinstance(generator.target, ast.Name):
        return False
    for test in generator.ifs:
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
                and len(test.args) == 2 and isinstance(test.args[0], ast.Name)
                and test.args[0].id == generator.target.id):
            continue
        wanted = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        names = {w.id for w in wanted if isinstance(w, ast.Name)}
        if len(names) != len(wanted) or not names <= BUILTIN_TYPES:
            continue  # a class of the project's, or an expression: not decided here
        kind = next((k for t, k in BUILTIN_KINDS.items() if isinstance(item, t)), None)
        if kind is None and isinstance(item, (Obj, Instance)):
            kind = "object"  # an instance of a class (a pydantic message): none of the builtins
        if kind is not None and kind not in names:
            return True
    return False


class Evaluator:
    def __init__(self, project: Project, knowledge: Knowledge, on_sink: SinkHandler,
                 on_assembly: AssemblyHandler | None = None, on_messages: Callable[..., None] | None = None,
                 on_user_turn: Callable[..., None] | None = None) -> None:
        self.project = project
        self._names_read = project.names_read
        self.knowledge = knowledge
        self.on_sink = on_sink
        self.on_assembly = on_assembly
        self.on_messages = on_messages  # (frame, node, what, message list): a wrapper's messages slot
        self.on_user_turn = on_user_turn  # (frame, node, what, text): a user message built here
        self.steps = 0
        self._module_globals: dict[str, dict[str, Value]] = {}  # modules run whole (the entry)
        self._imported: dict[str, Frame] = {}  # modules run a statement at a time (module_global)
        self._ran: set[tuple[str, int]] = set()  # (module, top-level statement) already run there
        self._closures: list[dict[str, Value]] = []  # scopes that functions close over (see release)
        self._running_modules: set[str] = set()
        self._stored: dict[tuple[int, str], Value] = {}
        self._constructing: dict[int, Frame | None] = {}  # see constructing_run
        self._handed: dict[tuple[int, str], Obj | None] = {}  # see client_handed_in
        self._own_slots: dict[int, frozenset[str] | None] = {}  # a definition's own wrapper slots
        self._dispatched: dict[int, frozenset[str] | None] = {}  # a stub method's overrides' slots
        self._shapes: SinkShapes | None = None
        self._slot_sets: dict[str, set[str]] = {}
        self._mro: dict[int, tuple[ClassInfo, list[ClassInfo]]] = {}
        self._mixed_in: dict[tuple[str, str], FuncVal | None] = {}
        self._discarded = 0  # id of the call whose statement drops its result
        self._llm_loops: dict[int, bool] = {}
        # The attributes a model callback writes system text to (rules/prompt_sinks.yaml
        # request_system), plus the `text` of that attribute's parts.
        self._callback_targets = frozenset(path.rsplit(".", 1)[-1] for paths in knowledge.request_system.values()
                                           for path in paths) | {"text"}
        # ... and the attributes holding a request's message list (request_messages).
        self._message_targets = frozenset(a for attrs in knowledge.request_messages.values() for a in attrs)
        # A call's result and updates to `self`, with the depth it was computed at when the depth ran
        # out below it (None: it did not), so a caller with more depth left computes it again.
        self._calls: dict[CallKey, tuple[tuple[Value, dict[str, Value]], int | None]] = {}
        self._cuts = 0  # calls not run because the depth ran out
        # Names of functions that can reach an LLM call (set by the engine); None: evaluate all.
        self.reaching_names: frozenset[str] | None = None
        # Inferred wrappers (set by the engine, see analysis/summaries.py): name -> slots whose
        # value becomes system content further down.
        self.wrappers: dict[str, frozenset[str]] = {}
        self._user_inputs: dict[int, frozenset[str]] = {}  # definition -> names forming its user messages
        self._user_makers: dict[str, tuple[str, ...]] | None = None  # callee -> slots forming user messages
        self._sent: set[int] = set()  # calls judged as a known LLM request (report_sink)
        self._graph_nodes: dict[str, frozenset[str]] = {}  # module -> its functions registered as graph nodes
        # Names of the functions whose results a module of the project registers as graph nodes
        # (set by the engine: engine.node_factories); each returned function run as an entry, with
        # the name of the factory that made it.
        self.node_factories: frozenset[str] = frozenset()
        self._made_by: dict[int, str] = {}
        self.deadline: float | None = None  # time.monotonic() after which evaluation is abandoned
        self._resolving: set[str] = set()  # re-exports being followed (cycle guard)
        # Functions whose whole body ran inside a caller, shallow enough that their own calls
        # could still reach an LLM call: evaluating them again as entry points adds nothing.
        self.covered: set[int] = set()
        self._clock = CLOCK_EVERY
        self.jinja_including: set[Path] = set()  # templates being rendered by `{% include %}`: a cycle guard

    def release(self) -> None:
        """Break the reference cycles of the values computed (a function's scope holds the
        function that closes over it), so they, and the syntax trees they point into, are freed
        as soon as the entry is done rather than by the cyclic collector."""
        for scope in self._closures:
            scope.clear()
        self._closures.clear()
        self._module_globals.clear()
        self._imported.clear()
        self._calls.clear()
        self._made_by.clear()
        self._stored.clear()
        self._constructing.clear()
        self._handed.clear()
        self._own_slots.clear()
        self._mro.clear()
        self._mixed_in.clear()

    # --- entry points ------------------------------------------------------------------------

    def run_module(self, module: ModuleInfo) -> dict[str, Value]:
        """Evaluate a module's top-level code once (import time) and return its globals."""
        if module.name in self._module_globals:
            return self._module_globals[module.name]
        if module.name in self._running_modules:
            return {}
        self._running_modules.add(module.name)
        frame = Frame(module, import_time=True)
        try:
            self.run_block(module.tree.body, frame)
        except (BudgetExceeded, RecursionError):
            pass
        finally:
            self._running_modules.discard(module.name)
        self._module_globals[module.name] = frame.locals
        return frame.locals

    def module_global(self, module: ModuleInfo, name: str) -> Value | None:
        """A module-level name's value once the module is imported. Unless the module was run
        whole (the entry), only the top-level statements that bind or change the name run, each
        once per evaluator: an entry that reads one constant from a module of hundreds does not
        evaluate them all."""
        if self._names_read is not None:
            self._names_read[module.path].add(name)
        if module.name in self._module_globals:
            return self._module_globals[module.name].get(name)
        if module.name in self._running_modules:
            return None  # being run whole: a name not bound yet is a forward reference
        frame = self._imported.get(module.name)
        if frame is None:
            frame = self._imported[module.name] = Frame(module, import_time=True)
        for index in module.bindings.get(name, ()):
            if (module.name, index) not in self._ran:
                self._ran.add((module.name, index))
                try:
                    self.run_stmt(module.tree.body[index], frame)
                except (BudgetExceeded, RecursionError):
                    pass
        return frame.locals.get(name)

    def run_function_entry(self, module: ModuleInfo, node: ast.FunctionDef | ast.AsyncFunctionDef,
                           owner: ClassInfo | None) -> None:
        """Analyze one function as an entry point: its parameters are unknown."""
        self.steps = 0
        self_value = Instance(owner) if owner else None
        qualname = f"{module.name}.{owner.name + '.' if owner else ''}{node.name}"
        frame = Frame(module, self_value=self_value, qualname=qualname, stack=(id(node),), function=node)
        self.bind_params(node, frame, [], {}, self_value)
        self.bind_turn_state(node, frame)
        try:
            self.run_block(node.body, frame)
        except (BudgetExceeded, RecursionError):
            return
        for closure in self.returned_closures(node, frame):
            self.run_closure_entry(closure, frame)

    def returned_closures(self, node: ast.FunctionDef | ast.AsyncFunctionDef, frame: Frame) -> list[FuncVal]:
        """The functions an entry defines and returns without calling them: a factory's product
        (`def create_analyst(llm): def analyst_node(state): ...; return analyst_node`, a graph
        framework's node) runs later, as often as the framework calls it."""
        returned = {stmt.value.id for stmt in nodes_of(node, ast.Return) if isinstance(stmt.value, ast.Name)}
        found = []
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name in returned \
                    and id(stmt) not in self.covered:
                value = frame.locals.get(stmt.name)
                if isinstance(value, FuncVal) and value.node is stmt:
                    found.append(value)
        return found

    def run_closure_entry(self, closure: FuncVal, outer: Frame) -> None:
        """Analyze a returned function as an entry of its own: its parameters are unknown, the
        names it closes over hold what the factory bound them to."""
        self.steps = 0
        node = closure.node
        if isinstance(outer.function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._made_by[id(node)] = outer.function.name
        frame = Frame(closure.module, dict(closure.closure or {}), self_value=outer.self_value,
                      qualname=closure.qualname, stack=(*outer.stack, id(node)), function=node)
        self.bind_params(node, frame, [], {}, None)
        try:
            self.run_block(node.body, frame)
        except (BudgetExceeded, RecursionError):
            pass

    def step_observation(self, stmt: ast.Assign, value: Value, frame: Frame) -> Value:
        """`observation = self._call_tool(action, args)` inside an agent loop: what a step's tool
        or environment returned, named like an observation (rules/prompt_sinks.yaml
        ``observation_inputs``), differs on every request the loop sends after it."""
        if not frame.in_llm_loop or len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name) \
                or stmt.targets[0].id not in self.knowledge.observation_inputs \
                or not nodes_of(stmt.value, ast.Call):
            return value
        # A tool run the analysis could follow returns text too: an error message of one branch
        # (`f"Tool {name} does not exist."`) stands for whatever the tool returned.
        if isinstance(value, Unknown) and (value.hole.volatility.is_volatile or value.hole.is_history) \
                or isinstance(value, Text) and most_volatile(value) is not None \
                or not isinstance(value, (Unknown, Text)):
            return value
        name = stmt.targets[0].id
        if name in frame.locals:
            # Bound before: a name the loop carries from pass to pass, its state (read where the
            # text is written, `_read_then_reassigned`), or one this pass already marked.
            return value
        where = frame.module.location(stmt.value)
        origin = Origin(where, f"observed in `{name}`", OBSERVED, Volatility.PER_REQUEST)
        return Unknown(Hole(Volatility.PER_REQUEST, frame.module.snippet(stmt.value), where, origin=origin,
                            assumption=f"`{name}` is taken by its name to be what this step of the agent observed "
                                       "(a tool's or the environment's result), so it changes with every step"))

    def bind_turn_state(self, method: ast.AST, frame: Frame) -> None:
        """A method that sends a request runs once per turn: what it carries on `self` to its next
        call (the attributes an agent loop's body would carry: `self.notes.append(answer)`, or
        `self.previous = reply` after the prompt wrote `self.previous` in) differs on every
        request, as an agent loop's state does. A conversation kept on `self` only grows."""
        if not isinstance(frame.self_value, Instance) \
                or not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not self.loop_calls_llm(method):
            return
        for name, mutation in self.loop_carried(method.body, frame).items():
            if not name.startswith("self.") or name.count(".") != 1 or name in frame.locals:
                continue
            value = self.instance_attribute(frame.self_value, name[5:], frame, None)
            if isinstance(value, NoneVal) and isinstance(mutation, ast.Assign):
                # `self._previous_speaker = None` until the first turn sets it: not a constant.
                value = Unknown(Hole(Volatility.UNKNOWN, name, None))
            if not self.is_conversation(name, value, frame) and _carries(name, value, mutation, method.body):
                frame.locals[name] = self.loop_state(name, mutation, frame)

    # --- statements --------------------------------------------------------------------------

    def run_block(self, body: list[ast.stmt], frame: Frame) -> None:
        for stmt in body:
            self.run_stmt(stmt, frame)

    def run_stmt(self, stmt: ast.stmt, frame: Frame) -> None:
        self.tick()
        if isinstance(stmt, ast.Assign):
            value = self.step_observation(stmt, self.kept_conversation(stmt, self.eval(stmt.value, frame), frame),
                                          frame)
            for target in stmt.targets:
                self.bind(target, value, frame)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                value = self.eval(stmt.value, frame)
                # `client: OpenAI = make_client()` with the factory out of reach: the annotation says what it is.
                typed = self.annotated_type(stmt.annotation, frame) if _plainly_unknown(value) else None
                self.bind(stmt.target, typed if isinstance(typed, Obj) else value, frame)
        elif isinstance(stmt, ast.AugAssign):
            self.run_augassign(stmt, frame)
        elif isinstance(stmt, ast.Expr):
            if not self.skippable_statement_call(stmt.value, frame):
                called = stmt.value.value if isinstance(stmt.value, ast.Await) else stmt.value
                self._discarded = id(called)  # its result is not used (call_function)
                self.eval(stmt.value, frame)
        elif isinstance(stmt, ast.Return):
            if frame.function is not None and (stmt.lineno, stmt.col_offset) in _fallback_returns(frame.function):
                frame.fallbacks.add(len(frame.returns))
            frame.returns.append(self.eval(stmt.value, frame) if stmt.value else NONE)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)) and frame.function is not None:
            self.run_import(stmt, frame)
        elif isinstance(stmt, ast.If) and frame.import_time and _is_main_guard(stmt.test):
            frame.import_time = False  # a script's main block runs per invocation, not at import
            self.run_block(stmt.body, frame)
            frame.import_time = True
        elif isinstance(stmt, ast.If) and _is_role_test(stmt.test):
            # `if message.role == "system":` of a message whose role is known: a message is what
            # it is (not a setting at its default), so only its branch runs.
            role_test = self.known_role_test(stmt.test, frame)
            if role_test is None:
                self.run_branches(stmt, frame)
            else:
                self.run_block(stmt.body if role_test else stmt.orelse, frame)
        elif isinstance(stmt, ast.If) and (known := self.known_type_test(stmt.test, frame)) is not None:
            # `if not isinstance(messages, list): messages = [messages]` of a list: a value is
            # of the type it is, so only the branch its type takes runs.
            self.run_block(stmt.body if known else stmt.orelse, frame)
        elif isinstance(stmt, ast.If):
            if isinstance(self.eval(stmt.test, frame), NoneVal):
                self.run_block(stmt.orelse, frame)  # `if name:` with the parameter left at None
            elif (is_none := self.none_test(stmt.test, frame)) is not None:
                # `if last_n is not None:` with the parameter left at None: only its branch runs
                self.run_block(stmt.body if is_none else stmt.orelse, frame)
            else:
                self.run_branches(stmt, frame)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            self.run_for(stmt, frame)
        elif isinstance(stmt, ast.While):
            saved = frame.in_llm_loop
            frame.in_llm_loop = saved or self.loop_calls_llm(stmt)
            if frame.in_llm_loop:
                self.run_twice(stmt.body, frame)
            else:
                self.run_block(stmt.body, frame)
            frame.in_llm_loop = saved
            self.run_block(stmt.orelse, frame)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                value = self.eval(item.context_expr, frame)
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, value, frame)
            self.run_block(stmt.body, frame)
        elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            self.run_block(stmt.body, frame)  # type: ignore[attr-defined]
            self.run_handlers(stmt.handlers, frame)  # type: ignore[attr-defined]
            self.run_block(stmt.orelse, frame)  # type: ignore[attr-defined]
            self.run_block(stmt.finalbody, frame)  # type: ignore[attr-defined]
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            frame.locals[stmt.name] = FuncVal(frame.module, stmt, f"{frame.qualname}.{stmt.name}",
                                              closure=self._closure(frame))
            if frame.depth < MAX_DEPTH and self.is_model_callback(stmt):
                # A callback built here (`def modifier(ctx, llm_request)` returned by a factory): the
                # framework runs it before every model call, so it is judged as if called now, never
                # as import-time code even when defined at module level.
                self.call_function(frame.locals[stmt.name], [], {}, replace(frame, import_time=False), None)
        elif isinstance(stmt, ast.ClassDef) and frame.import_time:
            info = frame.module.classes.get(stmt.name)
            if info is not None:
                frame.locals[stmt.name] = ClassVal(info)
        elif isinstance(stmt, ast.Match):
            subject = self.eval(stmt.subject, frame)
            for case in stmt.cases:
                self.bind_pattern(case.pattern, subject, frame)
                self.run_block(case.body, frame)

    def run_import(self, stmt: ast.Import | ast.ImportFrom, frame: Frame) -> None:
        """An import inside a function binds a local name: `from datetime import datetime` in the
        branch that needs the clock, a lazy `import litellm` (module-level imports are indexed)."""
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                name = alias.asname or alias.name.split(".")[0]
                frame.locals[name] = self.resolve_import(alias.name if alias.asname else name, name, frame)
            return
        module = frame.module
        package = module.name if module.path.name == "__init__.py" else module.name.rpartition(".")[0]
        base = resolve_relative(package, stmt.module, stmt.level)
        for alias in stmt.names:
            if alias.name != "*":
                target = f"{base}.{alias.name}" if base else alias.name
                frame.locals[alias.asname or alias.name] = self.resolve_import(target, target, frame)

    def known_type_test(self, test: ast.expr, frame: Frame) -> bool | None:
        """``isinstance(x, list)`` (or its negation) of a value whose type is known: a list, a dict,
        a str, or a library object (none of the builtins), or a test against project classes
        (``project_instance_test``); None when it is not such a test."""
        negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        call = test.operand if negated else test  # type: ignore[attr-defined]
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "isinstance"
                and len(call.args) == 2 and isinstance(call.args[0], ast.Name)):
            return None
        wanted = call.args[1].elts if isinstance(call.args[1], ast.Tuple) else [call.args[1]]
        names = {w.id for w in wanted if isinstance(w, ast.Name)}
        if len(names) != len(wanted):
            return None
        value = frame.locals.get(call.args[0].id)
        if not names <= BUILTIN_TYPES:
            is_one = None if names & BUILTIN_TYPES else self.project_instance_test(value, names, frame, call)
            return None if is_one is None else is_one != negated
        kinds = {"list", "tuple"} if isinstance(value, Seq) else \
            {"dict"} if isinstance(value, Mapping) else {"str"} if type(value) is Text else \
            set() if isinstance(value, Obj) else None
        if kinds is None:
            return None
        return bool(kinds & names) != negated

    def project_instance_test(self, value: Value | None, names: set[str], frame: Frame, node: ast.AST) -> bool | None:
        """``isinstance(messages, Message)`` with project classes: a list, a dict or a text handed
        over is none of them (OpenHands' formatter wraps a lone `Message` in a list, not a list of
        them); an object is one when such a class is among its classes; None when unsure."""
        if not (isinstance(value, (Seq, Mapping, Instance)) or type(value) is Text):
            return None
        classes = [self.lookup_name(name, frame, node) for name in names]
        if not all(isinstance(c, ClassVal) for c in classes) \
                or any(_base_names(self.mro(c.info)) & BUILTIN_BASES for c in classes):  # type: ignore[union-attr]
            return None
        if isinstance(value, Instance):
            # Not being one of them is not known: the object may be of a subclass made elsewhere.
            return True if any(c.info is k for c in classes for k in self.mro(value.info)) else None  # type: ignore[union-attr]
        return False

    def none_test(self, test: ast.expr, frame: Frame) -> bool | None:
        """The outcome of ``x is None`` / ``x is not None`` for a name left at None (a parameter at
        its default); None when it is not such a test or ``x`` may hold something. An attribute
        left at None (`if self._memory is None: return`) is an optional part not configured where
        the analysis reads it, not a decision: both branches run."""
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot))
                and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
                and isinstance(test.left, ast.Name)):
            return None
        if not isinstance(self.eval(test.left, frame), NoneVal):
            return None
        return isinstance(test.ops[0], ast.Is)

    def known_role_test(self, test: ast.expr, frame: Frame) -> bool | None:
        """The outcome of a role test (``_is_role_test``) when the message's role is a known
        literal; None otherwise."""
        if not isinstance(test, ast.Compare):
            return None
        sides = (test.left, test.comparators[0])
        name = next(side.value for side in sides if isinstance(side, ast.Constant))
        role = literal_text(self.eval(next(side for side in sides if _is_role_access(side)), frame))
        return None if role is None else (role == name) == isinstance(test.ops[0], ast.Eq)

    def run_handlers(self, handlers: list[ast.ExceptHandler], frame: Frame) -> None:
        """Exception handlers run after the body, and a name a handler sets is joined to the
        body's value (`try: stamp = datetime.now() except ...: stamp = None`): either may be sent,
        as with the branches of an `if`."""
        after_body = dict(frame.locals)
        for handler in handlers:
            self.run_block(handler.body, frame)
            for name, value in list(frame.locals.items()):
                kept = after_body.get(name)
                if kept is not None and kept is not value:
                    frame.locals[name] = _joined(kept, value)

    def run_branches(self, stmt: ast.If, frame: Frame) -> None:
        # Both branches run, each from the state before the `if`: an `if/elif` chain over a
        # message's role builds one message per branch, and text one branch made must not leak
        # into the next (a converter's first-user-message example into its tool results).
        # A value assigned only behind a change-detection guard
        # (`if self._x is None:` / `if key != self._key:`) is stored state, not per-call.
        # A first-call test (`if self.turn_count == 0:`) is such a guard too: what the body
        # assembles is set once per conversation (`Frame.first_turn` carries its words).
        known = stmt.__dict__.get(GUARD_ATTRIBUTE)
        if known is None:
            guard = _guarded_attribute(stmt.test)
            known = (guard, f"`{ast.unparse(stmt.test)}`" if guard and first_call_test(stmt.test) else None)
            setattr(stmt, GUARD_ATTRIBUTE, known)
        guard, first_call = known
        if _never_taken(stmt.test, frame):
            # `if not system: system = DEFAULT` with the caller's text known: the default is
            # never used, and running the body would replace the real prompt with it.
            self.run_block(stmt.orelse, frame)
            return
        before = dict(frame.locals) if guard or stmt.orelse else None
        optional = None if stmt.orelse or not _tests_a_flag(stmt.test) else \
            before if before is not None else dict(frame.locals)
        # `if not knowledge: knowledge = retrieve(...)`: a default filled in when the value is
        # empty; otherwise the value stays what it was, and that may be the volatile one.
        defaulted = _defaulted_name(stmt)
        kept = frame.locals.get(defaulted) if defaulted is not None else None
        outer_turn = frame.first_turn
        frame.first_turn = outer_turn or first_call
        chosen_tools = self.tool_lists_before(stmt, frame)
        self.run_block(stmt.body, frame)
        frame.first_turn = outer_turn
        if chosen_tools:
            self.mark_chosen_tools(chosen_tools, stmt, frame)
        if kept is not None and most_volatile(kept) is not None and frame.locals.get(defaulted) is not kept:
            frame.locals[defaulted] = _joined(frame.locals[defaulted], kept)
        if optional is not None:
            _mark_optional(optional, frame, frame.module.location(stmt.test))
        if guard and before is not None and _rebound(before, frame.locals):
            for name, value in list(frame.locals.items()):
                if name.startswith("self.") and before.get(name) is not value:
                    frame.locals[name] = cap_volatility(
                        value, Volatility.PER_SESSION,
                        f"rebuilt only when `{guard}` changes (assumed rare)")
        if not stmt.orelse or before is None:
            return
        after_body = dict(frame.locals)
        frame.locals.clear()
        frame.locals.update(before)
        self.run_block(stmt.orelse, frame)
        for name, value in after_body.items():
            other = frame.locals.get(name)
            if other is None or other is before.get(name):
                frame.locals[name] = value  # left as it was by the other branch
            elif other is not value:
                frame.locals[name] = _joined(value, other)

    def tool_lists_before(self, stmt: ast.If, frame: Frame) -> dict[str, Seq]:
        """The tool lists an `if` with no `else` may grow when its test is a threshold on what this
        call measured (`if viewport["pageTop"] > 5: tools.append(TOOL_SCROLL_UP)`): their values
        before it."""
        if stmt.orelse or not self.knowledge.tool_list_names or not _measures(stmt.test, frame):
            return {}
        return {name: value for name, value in frame.locals.items()
                if isinstance(value, Seq) and named_like(name, self.knowledge.tool_list_names)}

    def mark_chosen_tools(self, before: dict[str, Seq], stmt: ast.If, frame: Frame) -> None:
        """Tools added only when a per-call test holds: the list ends with a mark saying so, which
        the tools part of a request renders as a value that changes between calls (PC006)."""
        test = frame.module.snippet(stmt.test)
        where = frame.module.location(stmt.body[0])
        for name, old in before.items():
            new = frame.locals.get(name)
            if not isinstance(new, Seq) or len(new.items) <= len(old.items) \
                    or any(a is not b for a, b in zip(old.items, new.items)):
                continue
            origin = Origin(frame.module.location(stmt.test), f"tools added when `{test}`", CHOSEN_TOOLS,
                            Volatility.PER_REQUEST)
            hole = Hole(Volatility.PER_REQUEST, f"the tools added when `{test}`", where, origin=origin)
            frame.locals[name] = Seq((*new.items, Splice(hole)), new.order)

    def run_augassign(self, stmt: ast.AugAssign, frame: Frame) -> None:
        if _is_counter_step(stmt) and (isinstance(stmt.target, ast.Attribute) or frame.in_llm_loop):
            self.bind(stmt.target, self.counter(stmt, frame), frame, step=False)
            return
        current = self.eval(stmt.target, frame)
        addition = self.eval(stmt.value, frame)
        if frame.order_taint is not None:
            addition = self.with_order_taint(addition, frame.order_taint)
        if isinstance(stmt.op, ast.Add):
            result = self.add(current, addition, frame, stmt)
            self.windowed_history_added(stmt, current, addition, result, frame)
        else:
            result = self.join_unknown(stmt, frame, current, addition)
        self.bind(stmt.target, result, frame, step=False)

    def windowed_history_added(self, stmt: ast.AugAssign, current: Value, addition: Value, result: Value,
                               frame: Frame) -> None:
        """The latest items of a conversation added to a list that opens with a system message
        (agno's `run_messages.messages += history`, `history` being the session's last runs): that
        list is the request being assembled, whoever sends it, so it is judged as it stands; the
        window then shows where its count is chosen (PC009)."""
        if self.on_messages is None or not isinstance(current, Seq) or not current.items \
                or not any(hole.window is not None for hole in holes_of(addition)) \
                or not self.opens_with_system(current.items[0], frame):
            return
        what = f"{frame.module.snippet(stmt.target)} with a window of its history added"  # said inside backticks
        self.on_messages(frame, stmt, what, result)

    def opens_with_system(self, message: Value, frame: Frame) -> bool:
        """Whether a message (a role dict, a message object, a project message instance) has a
        system role."""
        if isinstance(message, Instance):
            role: Value | None = self.instance_attribute(message, "role", frame, None)
        else:
            field = message.get if isinstance(message, Mapping) else message.field if isinstance(message, Obj) else None
            if field is None:
                return False
            role = next((field(key) for key in self.knowledge.role_keys if field(key) is not None), None)
        return role is not None and self.is_system_role(role)

    def counter(self, node: ast.AST, frame: Frame) -> Unknown:
        """State that advances on every call (a turn number, steps left): per-request."""
        where = frame.module.location(node)
        origin = Origin(where, frame.module.snippet(node), "counter", Volatility.PER_REQUEST)
        return Unknown(Hole(Volatility.PER_REQUEST, frame.module.snippet(node), None, origin=origin))

    def run_for(self, stmt: ast.For | ast.AsyncFor, frame: Frame) -> None:
        calls_llm = self.loop_calls_llm(stmt)
        if calls_llm and _is_counting_loop(stmt):
            saved = frame.in_llm_loop
            frame.in_llm_loop = True
            target = stmt.target.elts[0] if isinstance(stmt.target, ast.Tuple) else stmt.target
            self.bind(target, self.counter(stmt.target, frame), frame, step=False)
            self.run_twice(stmt.body, frame)
            frame.in_llm_loop = saved
            return
        if calls_llm:
            saved = frame.in_llm_loop
            frame.in_llm_loop = True
            self.run_for_items(stmt, frame, sends_requests=True)
            frame.in_llm_loop = saved
            return
        self.run_for_items(stmt, frame)

    def run_twice(self, body: list[ast.stmt], frame: Frame) -> None:
        """An agent loop: the second pass sees what the first appended (the growing history), and
        the state it carried from one request to the next (a plan, a log) as per-step values."""
        self.run_block(body, frame)
        after_one_pass: dict[str, Value] = {}
        for name, mutation in self.loop_carried(body, frame).items():
            value = frame.locals.get(name)
            if value is not None and not self.is_conversation(name, value, frame) \
                    and _carries(name, value, mutation, body):
                after_one_pass[name] = value
                frame.locals[name] = self.loop_state(name, mutation, frame)
        self.run_block(body, frame)
        # Per-step only for the requests the loop sends: after it, what it built (the results it
        # collected, the final summary) is the loop's output, as after one pass.
        frame.locals.update(after_one_pass)

    def loop_carried(self, body: list[ast.stmt], frame: Frame) -> dict[str, ast.stmt]:
        """What an agent loop carries to its next pass (`_loop_carried`), and the attributes of
        `self` it reassigns after a method it calls wrote them into text (`self.observation =
        env.step(action)` after `self.system_prompt()` put the last one in the prompt)."""
        carried = _loop_carried(body)
        if not isinstance(frame.self_value, Instance) or not body:
            return carried
        by_class = body[0].__dict__.setdefault("_carried_by_methods", {})
        # By name: a class parsed again (its module evicted) may get the id of another's node.
        key = frame.self_value.info.qualname
        if key not in by_class:
            classes = self.mro(frame.self_value.info)

            def written_by_calls(stmt: ast.stmt) -> set[str]:
                names: set[str] = set()
                for call in nodes_of(stmt, ast.Call):
                    func = call.func
                    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
                        method = next((k.methods[func.attr] for k in classes if func.attr in k.methods), None)
                        if method is not None:
                            names |= {n for n in _method_text_names(method) if n.startswith("self.")}
                return names

            fed = self.fed_into_text(body)

            def written_or_fed(stmt: ast.stmt) -> set[str]:
                # What a statement writes into text itself, through a method or a wrapper it calls,
                # or through a local it assigns that text is later made of.
                assigned = {name for a in nodes_of(stmt, ast.Assign) if len(a.targets) == 1
                            and _text_name(a.targets[0]) in fed for name in _loaded_text_names(a.value)}
                return written_by_calls(stmt) | self.wrapper_text_arguments(stmt) | assigned

            by_class[key] = _read_then_reassigned(body, written_or_fed)
        return {**by_class[key], **carried}

    def fed_into_text(self, body: list[ast.stmt]) -> set[str]:
        """The names a loop body writes into prompt text, directly or handed to an inferred
        wrapper's text slot, and, to a fixed point, the names the locals holding them are
        computed from: `participants = [p for p in names if p != self._previous]` handed to
        `self._select(roles, participants)`, whose system prompt lists them, feeds
        `self._previous` into the text."""
        fed: set[str] = set()
        for stmt in body:
            fed |= _names_written_into_text(stmt) | self.wrapper_text_arguments(stmt)
        assigns = [a for stmt in body for a in nodes_of(stmt, ast.Assign) if len(a.targets) == 1]
        changed = True
        while changed:
            changed = False
            for assign in assigns:
                if _text_name(assign.targets[0]) in fed and (new := _loaded_text_names(assign.value) - fed):
                    fed |= new
                    changed = True
        return fed

    def wrapper_text_arguments(self, stmt: ast.AST) -> set[str]:
        """Names handed to an inferred wrapper's system or user text slot (`self._ask(roles,
        participants)` where `_ask` formats `participants` into its system prompt)."""
        names: set[str] = set()
        for call in nodes_of(stmt, ast.Call):
            func = call.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            slots = self.wrappers.get(called or "")
            if not slots:
                continue
            keywords = {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg}
            for slot in slots:
                expr = _slot_value(slot, call.args, keywords) if slot[0] in "su" and not _slot_attribute(slot) \
                    else None
                if expr is not None and (name := _text_name(expr)) is not None:
                    names.add(name)
        return names

    def is_conversation(self, name: str, value: Value, frame: Frame) -> bool:
        """Whether a list a loop grows is the conversation (its growth is what the cache is for).
        A list the object keeps is one when named like one or given written-out messages
        (`_appended_attributes`): a plan or a log kept on `self` reads like a history, messages
        written earlier, but is not one."""
        if name.startswith("self.") and name.count(".") == 1 and isinstance(frame.self_value, Instance):
            if _named_like_a_conversation(name[5:]) and not isinstance(value, Mapping):
                return True  # `self.history += [HumanMessage(...)]`; a dict of facts is not one
            kept = [found[name[5:]] for klass in self.mro(frame.self_value.info)
                    if name[5:] in (found := _appended_attributes(klass))]
            if kept and not any(kept):
                return _is_message_list(value, runs_count=False)  # unless messages were put into it
        return _is_message_list(value)

    def loop_state(self, name: str, mutation: ast.stmt, frame: Frame) -> Unknown:
        """What an agent loop carries to its next request (`plan.append(step)`, `log += line`):
        different on every request the loop sends."""
        where = frame.module.location(mutation)
        origin = Origin(where, frame.module.snippet(mutation), LOOP_STATE, Volatility.PER_REQUEST)
        return Unknown(Hole(Volatility.PER_REQUEST, name, None, origin=origin))

    def skippable_statement_call(self, value: ast.expr, frame: Frame) -> bool:
        """``log(...)`` / ``await self.emit(...)`` as a statement: its result is dropped, so only
        calls that can reach an LLM call, or that change `self`/arguments we track, matter."""
        call = value.value if isinstance(value, ast.Await) else value
        if not isinstance(call, ast.Call) or self.reaching_names is None:
            return False
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name is None or name in _MUTATORS or self.nested_call_names(call) & self.reaching_names:
            return False  # (nested calls count: `print(run_turn(...))`)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                (func.value.id == "self" or isinstance(frame.locals.get(func.value.id), Instance)):
            return False  # a method may set attributes the caller reads next (a builder object)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) \
                and isinstance(func.value.func, ast.Name) and func.value.func.id == "super":
            # The base constructor sets what the object starts with (`self.messages = []`); a base
            # method whose result is dropped is a framework's plumbing (pipecat's every processor
            # ends `process_frame` with `await super().process_frame(...)`: a third more time).
            return func.attr != "__init__"
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) \
                and isinstance(func.value.value, ast.Name) and func.value.value.id == "self" \
                and isinstance(frame.self_value, Instance) \
                and isinstance(self.eval(func.value, frame), Instance):
            return False  # so may a method of an object `self` holds (`self.manager.build_state()`)
        return not any(isinstance(a, (ast.Name, ast.Attribute)) and _dotted(a) in frame.locals
                       and isinstance(frame.locals[_dotted(a) or ""], (Seq, Mapping)) for a in call.args)

    @staticmethod
    def nested_call_names(node: ast.AST) -> frozenset[str]:
        """Kept on the node: every evaluation of the project asks again for the same call."""
        cached = node.__dict__.get("_call_names")
        if cached is None:
            cached = node.__dict__["_call_names"] = frozenset(called_names(node))
        return cached

    def loop_calls_llm(self, loop: ast.AST) -> bool:
        """A loop whose body calls an LLM API method, or a project function that hands a prompt on to
        one (an inferred wrapper: `run_llm_step(history=...)`): its counters change between calls."""
        key = id(loop)
        if key not in self._llm_loops:
            names = self.nested_call_names(loop)
            self._llm_loops[key] = bool(names & self.knowledge.api_method_names) or \
                any(self.wrapper_sends(name.rsplit(".", 1)[-1]) for name in names)
        return self._llm_loops[key]

    def wrapper_sends(self, name: str) -> bool:
        """An inferred wrapper that reaches an LLM call. A message constructor (`_user_msg(msg)`
        returning `{"role": "user", "content": msg}`) is a wrapper with a user slot too, but a loop
        calling it converts messages; it sends nothing."""
        return name in self.wrappers and (self.reaching_names is None or name in self.reaching_names)

    def run_for_items(self, stmt: ast.For | ast.AsyncFor, frame: Frame, sends_requests: bool = False) -> None:
        """``sends_requests``: the body sends an LLM request for each item; over items the
        analysis cannot list, it runs twice, so what one request leaves for the next (a running
        summary, a log) is per-step on the second pass, as in an agent loop."""
        iterable = self.eval(stmt.iter, frame)
        if isinstance(iterable, Unknown) and iterable.hole.window is not None:
            # `for human, ai in history[-n:]`: the latest items of a list, a run whose messages
            # the body writes out are that window too (`run_over_runs`).
            iterable = Seq((Splice(iterable.hole),))
        items, order = self.iteration(iterable, stmt.iter, frame)
        saved_taint = frame.order_taint
        if order is not None:
            order = replace(order, location=frame.module.location(stmt.iter))
            frame.order_taint = order
        if items is not None and len(items) <= MAX_UNROLL:
            for item in items:
                self.bind(stmt.target, item, frame, step=False)
                self.run_block(stmt.body, frame)
        elif not sends_requests and isinstance(iterable, Seq) and len(iterable.items) <= MAX_UNROLL \
                and any(isinstance(item, Splice) for item in iterable.items):
            self.run_over_runs(stmt, iterable, frame)
        else:
            element = self.element_of(iterable, stmt.iter, frame)
            self.bind(stmt.target, element, frame, step=False)
            flags = {name: value for name in _flags_set(stmt)
                     if _bool_literal(value := frame.locals.get(name)) is not None}
            if sends_requests:
                self.run_twice(stmt.body, frame)
            else:
                self.run_block(stmt.body, frame)
            for name, before in flags.items():
                # Over items it cannot list, the body runs once, yet the loop may run zero times:
                # a flag it sets (`if other == item: duplicate = True`) is either value after it,
                # so a later `if not duplicate: kept.append(item)` still runs.
                if frame.locals.get(name) is not before:
                    frame.locals[name] = unknown(name, frame.module.location(stmt))
        frame.order_taint = saved_taint
        self.run_block(stmt.orelse, frame)

    def run_over_runs(self, stmt: ast.For | ast.AsyncFor, iterable: Seq, frame: Frame) -> None:
        """A loop over a list with known items and runs of unknown length (`[system, *history,
        question]`), item by item: a known item is bound as it is; a run once, to an item standing
        for all of it, and the messages the body appends for it (a converter: `out.append({"role":
        m.role, "content": m.content})`) become a run of their own, not one message."""
        for item in iterable.items:
            if not isinstance(item, Splice):
                self.bind(stmt.target, item, frame, step=False)
                self.run_block(stmt.body, frame)
                continue
            run = Seq((item,))
            volatile = volatile_item(run)
            element = volatile or self.element_of(run, stmt.iter, frame)
            before = {name: value for name, value in frame.locals.items() if isinstance(value, Seq)}
            self.bind(stmt.target, element, frame, step=False)
            self.run_block(stmt.body, frame)
            if volatile is None:
                self.appended_runs(before, item.hole, stmt, frame)

    def appended_runs(self, before: dict[str, Value], copied: Hole, stmt: ast.For | ast.AsyncFor,
                      frame: Frame) -> None:
        """The messages the body appended to a list for one item standing for a run, none of them
        volatile, become a run copied from it (its window kept)."""
        for name, old in before.items():
            new = frame.locals.get(name)
            if not isinstance(old, Seq) or not isinstance(new, Seq) or len(new.items) <= len(old.items) \
                    or any(a is not b for a, b in zip(old.items, new.items)):
                continue
            added = new.items[len(old.items):]
            # A project's message object made for the item (`msg = UserMessage(content=short)`
            # for the older ones) is a message of the run too.
            if any(most_volatile(item) is not None or not (is_turn(item) or isinstance(item, (Unknown, Instance)))
                   for item in added):
                continue
            hole = Hole(Volatility.UNKNOWN, f"`{copied.expression}` copied into `{name}`",
                        frame.module.location(stmt.iter), path=copied.path, window=copied.window)
            frame.locals[name] = Seq((*old.items, Splice(hole)), new.order)

    def iteration(self, iterable: Value, node: ast.AST, frame: Frame) -> tuple[list[Value] | None, Hole | None]:
        """Known items of an iterable (if any) and a hole when their order can vary."""
        if isinstance(iterable, Seq):
            if any(isinstance(i, Splice) for i in iterable.items) or not iterable.items:
                return None, iterable.order
            return list(iterable.items), iterable.order
        if isinstance(iterable, Mapping):
            keys: list[Value] = [lit(k) if k is not None else unknown("key") for k, _ in iterable.entries]
            return keys, iterable.order
        if isinstance(iterable, Unknown) and iterable.hole.volatility is Volatility.ORDER_UNSTABLE:
            return None, iterable.hole
        return None, None

    def element_of(self, iterable: Value, node: ast.AST, frame: Frame) -> Value:
        volatile = volatile_item(iterable)
        if volatile is not None:
            return volatile
        return _in_window_of(iterable, unknown(frame.module.snippet(node) + " item", frame.module.location(node)))

    # --- binding -----------------------------------------------------------------------------

    def kept_conversation(self, stmt: ast.Assign, value: Value, frame: Frame) -> Value:
        """`messages = await f.filter_messages(messages)`: a list handed to a call the analysis
        cannot follow and assigned back to its own name is that list, filtered or enhanced, so
        the messages a request sends after its system text stay known. Only a list with nothing
        volatile in it is kept: an unknown call never makes a value volatile."""
        call = stmt.value.value if isinstance(stmt.value, ast.Await) else stmt.value
        if not isinstance(value, Unknown) or not isinstance(call, ast.Call) or len(stmt.targets) != 1 \
                or not isinstance(target := stmt.targets[0], ast.Name) \
                or not any(isinstance(a, ast.Name) and a.id == target.id for a in call.args):
            return value
        kept = frame.locals.get(target.id)
        return kept if isinstance(kept, Seq) and kept.items and most_volatile(kept) is None else value

    def bind(self, target: ast.expr, value: Value, frame: Frame, step: bool = True) -> None:
        if isinstance(target, (ast.Subscript, ast.Attribute)) and frame.function is not None:
            self.rewritten_system_head(target, value, frame)
        if isinstance(target, ast.Name):
            if step and frame.depth <= MAX_DEPTH:
                where = frame.module.location(target)
                # In a callee, a value made outside it (a caller's argument) is marked where the
                # callee builds on it. Not in the entry itself: there the values made elsewhere
                # are mostly its object's attributes, and marking them cost skyvern 30 % more time.
                built_on = (frame.module.location(frame.function), Step(where, f"{BUILT_ON} `{target.id}`")) \
                    if frame.depth > 0 and frame.function is not None else None
                value = add_step(value, Step(where, f"assigned to `{target.id}`"), built_on=built_on)
            frame.locals[target.id] = value
        elif isinstance(target, ast.Attribute):
            path = _dotted(target)
            if path:
                frame.locals[path] = value
            self.callback_system_text(target, value, frame)
            if target.attr in self._message_targets \
                    and isinstance(base := frame.locals.get(_dotted(target.value) or ""), Obj) \
                    and target.attr in self.knowledge.request_messages.get(base.type, ()):
                self.callback_messages(frame, target, f"{ast.unparse(target)} = ...", value)
        elif isinstance(target, ast.Subscript):
            self.bind_subscript(target, value, frame)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value.items if isinstance(value, Seq) else None
            # A part of a volatile value is as volatile (`for doc, score in hits`, retrieved per
            # request): each name takes the value itself, its origin and path kept.
            whole = value if items is None and isinstance(value, Unknown) \
                and (value.hole.volatility.is_volatile or _carries_tag(value)) else None
            for index, elt in enumerate(target.elts):
                if isinstance(elt, ast.Starred):
                    continue
                if items is not None and index < len(items):
                    self.bind(elt, items[index], frame, step)
                else:
                    self.bind(elt, whole or unknown(frame.module.snippet(elt), frame.module.location(elt)),
                              frame, step)

    def bind_pattern(self, pattern: ast.pattern, subject: Value, frame: Frame) -> None:
        """The names a ``case`` pattern captures, bound to the parts of the subject they match:
        ``case View(events=events)`` binds the subject's ``events`` (OpenHands' condensed history),
        ``case {"messages": turns}`` its ``"messages"`` entry, ``case [first, *rest]`` its items."""
        if isinstance(pattern, ast.MatchAs):
            if pattern.pattern is not None:
                self.bind_pattern(pattern.pattern, subject, frame)
            if pattern.name is not None:
                self.bind(ast.copy_location(ast.Name(id=pattern.name, ctx=ast.Store()), pattern), subject, frame)
        elif isinstance(pattern, ast.MatchOr) and pattern.patterns:
            self.bind_pattern(pattern.patterns[0], subject, frame)  # every alternative binds the same names
        elif isinstance(pattern, ast.MatchClass):
            for attr, part in zip(pattern.kwd_attrs, pattern.kwd_patterns):
                self.bind_pattern(part, self.attribute(subject, attr, frame, part), frame)
            for part in pattern.patterns:  # by position: `__match_args__` is the class's to say
                self.bind_pattern(part, self.unmatched(part, frame), frame)
        elif isinstance(pattern, ast.MatchMapping):
            for key, part in zip(pattern.keys, pattern.patterns):
                name = literal_text(self.eval(key, frame))
                found = None
                if isinstance(subject, Mapping):
                    found = (subject.get(name) if name is not None else None) or spread_of(subject)
                self.bind_pattern(part, found or self.unmatched(part, frame), frame)
            if pattern.rest is not None:
                self.bind_pattern(ast.copy_location(ast.MatchAs(name=pattern.rest), pattern),
                                  self.unmatched(pattern, frame), frame)
        elif isinstance(pattern, ast.MatchSequence):
            for index, part in enumerate(pattern.patterns):
                item = _item(subject, index) if isinstance(subject, Seq) and not isinstance(part, ast.MatchStar) \
                    and not any(isinstance(p, ast.MatchStar) for p in pattern.patterns[:index]) else None
                self.bind_pattern(part, item or self.unmatched(part, frame), frame)
        elif isinstance(pattern, ast.MatchStar) and pattern.name is not None:
            self.bind(ast.copy_location(ast.Name(id=pattern.name, ctx=ast.Store()), pattern),
                      self.unmatched(pattern, frame), frame)

    @staticmethod
    def unmatched(pattern: ast.pattern, frame: Frame) -> Value:
        return unknown(frame.module.snippet(pattern), frame.module.location(pattern))

    def rewritten_system_head(self, target: ast.Subscript | ast.Attribute, value: Value, frame: Frame) -> None:
        """``messages[0]["content"] += memory`` under ``if messages[0]["role"] == "system":``: the
        list's system text, rewritten in place, with the rest of the list (the conversation it
        heads) after it (analysis/message_lists.py ``system_heads``)."""
        assert frame.function is not None
        head = system_heads(frame.function).rewrites.get(id(target))
        if head is not None and holes_of(value):  # a fixed suffix (a schema) changes nothing
            self.assembled(frame, target, f"rewritten in place: {ast.unparse(target)}", value,
                           messages=conversation(f"the rest of `{head}`"))

    def is_model_callback(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        types = self.knowledge.callback_types
        return bool(types) and any(annotation_name(arg.annotation) in types for arg in function.args.args)

    def callback_system_text(self, target: ast.Attribute, value: Value, frame: Frame) -> None:
        """Text a model callback puts into the request's system prompt (rules/prompt_sinks.yaml
        request_system): ``llm_request.config.system_instruction = text`` or, on the instruction
        object read from there, ``instruction.parts[0].text = prefix + instruction.parts[0].text``."""
        if target.attr not in self._callback_targets or isinstance(value, (Obj, Instance, NoneVal)) \
                or most_volatile(value) is None:
            return
        written = ast.unparse(target)
        if (target.attr != "text" or ".parts[" in written) and any(
                isinstance(v, Obj) and v.type in self.knowledge.request_system for v in frame.locals.values()):
            # The framework sends the run's history after the system instruction: known, not assumed.
            self.assembled(frame, target, f"set by a model callback: `{written}`", value,
                           messages=conversation("the agent's session history"))

    def bind_subscript(self, target: ast.Subscript, value: Value, frame: Frame) -> None:
        """``d[key] = v``, ``messages[0] = message``, ``messages[0]["content"] = text``: the item is
        replaced where it is, so an agent loop that rewrites its system message sends the new one."""
        keys: list[str | None] = []
        node: ast.expr = target
        while isinstance(node, ast.Subscript):
            keys.insert(0, literal_text(self.eval(node.slice, frame)))
            node = node.value
        path = _dotted(node)
        if not path:
            return
        container = self.held_container(path, node, frame)
        if (len(keys) > 1 or isinstance(container, Seq)) and isinstance(value, Unknown) \
                and not value.hole.volatility.is_volatile:
            # A message rewritten by a call the analysis cannot follow (`msg[0]["content"] =
            # trim(msg[0]["content"], limit)`) most likely keeps its text, trimmed or escaped.
            return
        updated = replaced_item(container, keys, value, frame.order_taint)
        if updated is not None:
            frame.locals[path] = updated

    def grouped_slot(self, target: ast.expr, frame: Frame) -> ast.Subscript | None:
        """The list a dict holds at a key, grown in place: ``groups[key].append(x)`` on a
        ``defaultdict(list)`` or ``groups.setdefault(key, []).append(x)``, as the ``groups[key]``
        it is bound back to; None when ``target`` is not such a slot of a known dict. Grouping
        retrieved chunks by their source this way keeps them what they are."""
        if isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute) \
                and target.func.attr == "setdefault" and len(target.args) == 2 \
                and isinstance(target.args[1], ast.List) and not target.args[1].elts:
            slot = ast.copy_location(ast.Subscript(target.func.value, target.args[0], ast.Store()), target)
        elif isinstance(target, ast.Subscript):
            slot = target
        else:
            return None
        path = _dotted(slot.value)
        return slot if path and isinstance(self.held_container(path, slot.value, frame), Mapping) else None

    def held_container(self, path: str, node: ast.expr, frame: Frame) -> Value:
        """The list or dict an item assignment changes, named by ``path`` (``node``'s dotted
        name): a local, a global, or what the object keeps (`self.messages[0] = ...`), as this
        function reads it."""
        container = frame.locals.get(path)
        if container is not None:
            return container
        return self.lookup_name(path, frame, node) if "." not in path else self.eval(node, frame)

    # --- expressions -------------------------------------------------------------------------

    def tick(self) -> None:
        self.steps += 1
        if self.steps > STEP_BUDGET:
            raise BudgetExceeded
        self._clock -= 1
        if not self._clock:
            self._look_at_clock()

    def _look_at_clock(self) -> None:
        self._clock = CLOCK_EVERY
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise DeadlineExceeded

    def eval(self, node: ast.expr | None, frame: Frame) -> Value:
        if node is None:
            return NONE
        self.tick()
        kind = type(node)
        method = _EVALUATORS.get(kind)
        if method is None:
            method = _EVALUATORS[kind] = getattr(Evaluator, "eval_" + kind.__name__, _eval_unknown)
        return method(self, node, frame)

    def eval_Constant(self, node: ast.Constant, frame: Frame) -> Value:
        if node.value is None:
            return NONE
        # The same literal is read again by every call and every entry that reaches it; its value
        # (with the place of its text) never changes, so it is kept on the node, freed with its tree.
        value = node.__dict__.get(VALUE_ATTRIBUTE)
        if value is None:
            value = self._constant(node, frame)
            setattr(node, VALUE_ATTRIBUTE, value)
        return value  # type: ignore[no-any-return]

    def _constant(self, node: ast.Constant, frame: Frame) -> Value:
        if isinstance(node.value, bytes):
            return lit(node.value.decode("utf-8", "replace"), frame.module.location(node))
        if isinstance(node.value, (int, float, complex)) and not isinstance(node.value, bool):
            return Number((Literal(str(node.value), frame.module.location(node)),))
        if isinstance(node.value, str):
            start = frame.module.location(node)
            if start is not None and node.end_lineno is not None and node.end_lineno > node.lineno and \
                    node.value.count("\n") != node.end_lineno - node.lineno:
                opening = _content_start(start, frame.module.snippet(node, 8)) or start
                lines = _continued_lines(node, frame.module, opening.column)  # `\` continuations in the string
                if lines is not None:
                    return concat(*((Literal(text, replace(start, line=line, column=column)),)
                                    for text, line, column in lines if text))
            # Eight characters hold any prefix and opening quotes; a short snippet is not kept on the node.
            opening = _content_start(start, frame.module.snippet(node, 8))
            if opening is not None and node.end_lineno == node.lineno and "\n" in node.value:
                pieces = _escaped_breaks(node, frame.module, opening.column)
                if pieces is not None:
                    return concat(*((Literal(text, replace(opening, column=column)),) for text, column in pieces))
            return lit(node.value, opening)
        return lit(str(node.value), frame.module.location(node))

    def eval_JoinedStr(self, node: ast.JoinedStr, frame: Frame) -> Value:
        literals = node.__dict__.get(VALUE_ATTRIBUTE)
        if literals is None:
            literals = _fstring_literals(node, frame.module)
            setattr(node, VALUE_ATTRIBUTE, literals)
        pieces: list[tuple] = []
        for value, literal in zip(node.values, literals):
            if literal is not None:
                pieces.append((literal,))
            elif isinstance(value, ast.FormattedValue):
                inner = self.eval(value.value, frame)
                inner = self.apply_format_spec(inner, value, frame)
                pieces.append(self.text_of(inner, frame.module.location(value.value), frame.module.snippet(value.value)))
        return concat(*pieces)

    def apply_format_spec(self, value: Value, node: ast.FormattedValue, frame: Frame) -> Value:
        if node.format_spec is None or not isinstance(value, Unknown):
            return value
        spec = literal_text(self.eval(node.format_spec, frame)) or ""
        return self.refine_clock(value, spec)

    def text_of(self, value: Value, where: Any, expression: str) -> tuple:
        if isinstance(value, TemplateVal):
            value = self.render_template(value, {}, None)
        return as_text(value, where, expression)

    def eval_Name(self, node: ast.Name, frame: Frame) -> Value:
        return self.lookup_name(node.id, frame, node)

    def lookup_name(self, name: str, frame: Frame, node: ast.AST) -> Value:
        if name in frame.locals:
            value = frame.locals[name]
            if isinstance(value, Instance) and name != "self":
                # `child = Convo(); child.messages = copy(...)`: what was set on the object since
                # goes with it where it is handed on or returned. (Written through to the object
                # where it is set instead, a gpt-researcher finding was lost: kept as a read.)
                prefix = name + "."
                later = {k[len(prefix):]: v for k, v in frame.locals.items()
                         if k.startswith(prefix) and "." not in k[len(prefix):]}
                if later:
                    kept = tuple((k, v) for k, v in value.attrs if k not in later)
                    value = replace(value, attrs=(*kept, *later.items()))
            return value
        module = frame.module
        if self._names_read is not None:
            self._names_read[module.path].add(name)
        if name in module.imports:
            return self.resolve_qualname(module.imports[name], frame)
        if name in module.functions:
            return FuncVal(module, module.functions[name], f"{module.name}.{name}")
        if name in module.classes:
            return ClassVal(module.classes[name])
        if name in module.bindings:
            value = self.module_global(module, name)
            if value is not None:
                return module_constant(value)
        if module.star_imports:
            starred = self.star_imported(module, name, frame)
            if starred is not None:
                return starred
        if name in ("True", "False"):
            return lit(name)
        if name == "__file__":
            return PathVal(module.path)
        return Ref(f"builtins.{name}") if name in _BUILTINS else self.unknown_name(name, frame, node)

    def unknown_name(self, name: str, frame: Frame, node: ast.AST) -> Value:
        volatility = self.knowledge.identifier_names.get(name.lower())
        where = frame.module.location(node)
        if volatility is not None and not self.knowledge.is_stable_name(name):
            return self.identifier(name, volatility, where)
        return unknown(name, where)

    def identifier(self, name: str, volatility: Volatility, where: Any) -> Unknown:
        origin = Origin(where, name, "request-id" if volatility is Volatility.PER_REQUEST else "user-id",
                        volatility)
        return Unknown(Hole(volatility, name, None, origin=origin,
                            assumption=f"`{name}` is taken to identify a user/request by its name"))

    def resolve_qualname(self, qualname: str, frame: Frame) -> Value:
        found = self.project.split_module(qualname)
        if found is None:
            return Ref(qualname)
        module, rest = found
        if not rest:
            return Ref(f"module:{module.name}")
        head, tail = rest[0], rest[1:]
        if self._names_read is not None:
            self._names_read[module.path].add(head)
        value: Value
        if head in module.functions:
            value = FuncVal(module, module.functions[head], f"{module.name}.{head}")
        elif head in module.classes:
            value = ClassVal(module.classes[head])
        elif head in module.imports:
            value = self.resolve_import(module.imports[head], qualname, frame)
        else:
            found = self.module_global(module, head)
            starred = self.star_imported(module, head, frame) if found is None else None
            value = module_constant(found) if found is not None else starred or Ref(qualname)
        for attr in tail:
            value = self.attribute(value, attr, frame, None)
        return value

    def star_imported(self, module: ModuleInfo, name: str, frame: Frame) -> Value | None:
        """A public function a project module brings in with `from .file_utils import *` (a
        package's `__init__` re-exporting its helpers: `import pkg.utils as U; U.load_text(...)`).
        Functions only: classes re-exported that way (`from swarms.structs import *`, then `from
        swarms import Agent` in 581 examples) ran every example's agent, 18 → 48 s on
        kyegomez/swarms, with no finding gained."""
        if name.startswith("_"):
            return None
        for base in module.star_imports:
            found = self.project.split_module(base)
            if found is not None and not found[1] and name in found[0].functions:
                if self._names_read is not None:  # a dependency of the entry's cached result
                    self._names_read[found[0].path].add(name)
                return FuncVal(found[0], found[0].functions[name], f"{found[0].name}.{name}")
        return None

    def resolve_import(self, target: str, qualname: str, frame: Frame) -> Value:
        """Follow a re-export; a chain that comes back to itself (``from .x import y`` inside
        ``x``) stays a reference instead of recursing until Python's limit."""
        if target in self._resolving:
            return Ref(qualname)
        self._resolving.add(target)
        try:
            return self.resolve_qualname(target, frame)
        finally:
            self._resolving.discard(target)

    def eval_Attribute(self, node: ast.Attribute, frame: Frame) -> Value:
        path = _dotted(node)
        if path and path in frame.locals:
            return frame.locals[path]
        if path and self.knowledge.is_stable_name(path):
            return unknown(path, frame.module.location(node), Volatility.STABLE)
        read = self.graph_state_read(node.value, node, node.attr, frame)
        if read is not None:
            return read
        base = self.eval(node.value, frame)
        value = self.attribute(base, node.attr, frame, node)
        if path and isinstance(value, Unknown) and value.hole.volatility is Volatility.UNKNOWN:
            # Named by its source path (`result.chunks`, not `chunks`): what it was read from tells
            # whether it is request-derived (analysis/derived.py).
            return self.attribute_identifier(path, node, frame) or replace(value, hole=replace(value.hole, expression=path))
        if isinstance(node.value, ast.Subscript) and isinstance(value, Unknown) and value.hole.expression == node.attr:
            # `messages[0].content`, not `content`: an item's attribute is not a local of that name.
            return replace(value, hole=replace(value.hole, expression=ast.unparse(node)))
        return value

    def attribute_identifier(self, path: str, node: ast.AST, frame: Frame) -> Value | None:
        tail = path.split(".")
        for size in (2, 1):
            key = ".".join(tail[-size:])
            volatility = self.knowledge.identifier_attributes.get(key) if size == 2 else \
                self.knowledge.identifier_names.get(tail[-1].lower())
            if volatility is not None:
                return self.identifier(path, volatility, frame.module.location(node))
        return None

    def attribute(self, base: Value, attr: str, frame: Frame, node: ast.AST | None) -> Value:
        return _in_window_of(base, self.attribute_of(base, attr, frame, node))

    def attribute_of(self, base: Value, attr: str, frame: Frame, node: ast.AST | None) -> Value:
        where = frame.module.location(node) if node is not None else None
        if isinstance(base, Ref):
            if base.qualname.startswith("module:"):
                return self.resolve_qualname(f"{base.qualname[7:]}.{attr}", frame)
            return Ref(f"{base.qualname}.{attr}")
        if isinstance(base, Obj):
            field_value = base.field(attr) or self.run_state(base, attr, node, frame) \
                or self.request_conversation(base, attr, node, frame)
            if field_value is not None:
                return field_value
            return Member(base, attr)
        if isinstance(base, Member):
            return Member(base.owner, f"{base.path}.{attr}")
        if isinstance(base, Mapping):
            return base.get(attr) or unknown(attr, where)
        if isinstance(base, Instance):
            if base.typed and not any(name == attr for name, _ in base.attrs) \
                    and any(name == attr for klass in self.mro(base.info) for name, _ in _declared_fields(klass)):
                # `current_state.url` of `current_state: EnvState`: the caller's value, not the default.
                return unknown(frame.module.snippet(node) if node is not None else attr, where)
            return self.instance_attribute(base, attr, frame, where)
        if isinstance(base, ClassVal):
            if self.is_library_model(f"{base.info.qualname}.{attr}"):
                return Ref(f"{base.info.qualname}.{attr}")  # `SystemPromptTemplate.from_template`
            return self.class_attribute(base.info, attr, frame, None) or unknown(attr, where)
        if isinstance(base, PathVal):
            if attr == "parent" and base.path is not None:
                return PathVal(base.path.parent)
            return unknown(attr, where)
        if isinstance(base, Unknown) and base.hole.volatility.is_volatile:
            return self.refine_clock_attribute(base, attr)
        return unknown(attr, where)

    def instance_attribute(self, inst: Instance, attr: str, frame: Frame, where: Any) -> Value:
        # A counter its own class steps, whatever the constructor set (one its bases step is found
        # by class_attribute, when the object holds no value of its own).
        advanced = self.advanced_attribute(inst.info, attr)
        if advanced is not None:
            return advanced
        follow_up = next((found[attr] for klass in self.mro(inst.info)
                          if attr in (found := _follow_up_attributes(klass))), None)
        if follow_up is not None:
            value = self._instance_attribute(inst, attr, frame, where)
            if isinstance(value, Unknown) and not value.hole.volatility.is_volatile and value.hole.origin is None:
                method, where = follow_up
                origin = Origin(where, f"`self.{attr}` extended with a new request by `{method}()`",
                                REQUEST_INPUT, Volatility.UNKNOWN)
                return Unknown(replace(value.hole, origin=origin))
            return value
        return self._instance_attribute(inst, attr, frame, where)

    def _instance_attribute(self, inst: Instance, attr: str, frame: Frame, where: Any) -> Value:
        for name, value in inst.attrs:
            if name == attr:
                if not _cut_short(value):
                    return value
                stored = self.class_attribute(inst.info, attr, frame, inst)
                return stored if stored is not None and not _cut_short(stored) else value
        found = self.class_attribute(inst.info, attr, frame, inst)
        if found is None or _plainly_unknown(found) \
                or isinstance(found, Obj) and found.type not in self.knowledge.client_types:
            # `client: OpenAI` declared in the class body and set where the analysis cannot see;
            # `llm: ChatLLM = Node(default_callback=...)`: a project object a library's field
            # factory makes, of the project class the annotation names.
            typed = next((self.annotated_type(annotation, Frame(klass.module, depth=frame.depth))
                          for klass in self.mro(inst.info) if (annotation := _annotations(klass).get(attr))), None)
            if isinstance(typed, Obj) and found is None or isinstance(typed, Instance) and found is not None:
                found = typed
        return found if found is not None else unknown(f"self.{attr}", where)

    def advanced_attribute(self, klass: ClassInfo, attr: str) -> Value | None:
        """An attribute a method of the class steps by a constant (`self.turn_number += 1`,
        `self.remaining_turns -= 1`): a counter of the object's calls, read anywhere (a planner's
        `resource.remaining_units`), whatever value it was created with."""
        stmt = _advanced_attributes(klass).get(attr)
        return self.counter(stmt, Frame(klass.module)) if stmt is not None else None

    def class_attribute(self, info: ClassInfo, attr: str, frame: Frame, inst: Instance | None) -> Value | None:
        for klass in self.mro(info):
            advanced = self.advanced_attribute(klass, attr) if inst is not None else None
            if advanced is not None:
                return advanced
            method = klass.methods.get(attr)
            if method is not None:
                if _is_property(method):
                    return self.call_function(FuncVal(klass.module, method, f"{klass.qualname}.{attr}", inst),
                                              [], {}, frame, None)
                if inst is None and _is_classmethod(method):
                    # `Builder.fill(template, task)`: `cls` is the class, not the first argument.
                    return FuncVal(klass.module, method, f"{klass.qualname}.{attr}", ClassVal(info))
                return FuncVal(klass.module, method, f"{klass.qualname}.{attr}", inst)
            if attr in klass.class_attrs:
                if _is_none(klass.class_attrs[attr]):
                    stored = self.stored_attribute(klass, attr, frame, inst)
                    if stored is not None and not isinstance(stored, NoneVal):
                        return stored
                return self.declared_attribute(klass, attr, frame, inst)
            stored = self.stored_attribute(klass, attr, frame, inst)
            if stored is not None:
                return stored
        return None

    def declared_attribute(self, klass: ClassInfo, attr: str, frame: Frame, inst: Instance | None) -> Value:
        """A value the class body gives: a field's default (``Field(default_factory=Memory)`` is a
        ``Memory``); on an object, a list its methods append to holds what earlier calls appended."""
        declared = klass.class_attrs[attr]
        if _is_field_call(declared):
            value = self.field_default(declared, klass, frame)
        else:
            value = module_constant(self.eval(declared, Frame(klass.module, import_time=True, depth=frame.depth + 1)))
        return self.as_kept(klass, attr, value, klass.module.location(declared)) if inst is not None else value

    def as_kept(self, info: ClassInfo, attr: str, value: Value, where: Location | None, depth: int = 0) -> Value:
        """An object's state as earlier calls left it, not as it was made: a list its methods
        append to holds what they appended after its first items (a memory's ``storage``, a
        conversation's ``messages``), and so do the lists of the objects it holds (``self.rc.memory``
        made by a field's default factory)."""
        if isinstance(value, Instance) and depth < 2:
            # A list of the held object that the holder's methods append to
            # (`self.state.items.append(x)`, the object a plain data class with no methods): kept too.
            outer = {path.split(".", 1)[1] for klass in self.mro(info) for path in _appended_attributes(klass)
                     if path.startswith(attr + ".")}
            return replace(value, attrs=tuple(
                (name, _grown(item, f"self.{attr}.{name}", where) if name in outer and isinstance(item, Seq)
                 else self.as_kept(value.info, name, item, where, depth + 1)) for name, item in value.attrs))
        if not any(attr in _appended_attributes(klass) for klass in self.mro(info)):
            return value
        cut = next((found[attr] for klass in self.mro(info) if attr in (found := _front_cuts(klass))), None)
        window = Step(cut, f"self.{attr}") if cut is not None else None
        return _grown(value, f"self.{attr}", where, window)

    def stored_attribute(self, klass: ClassInfo, attr: str, frame: Frame, inst: Instance | None) -> Value | None:
        """A ``self.attr = ...`` made in some method: state kept on the object; when that is a
        parameter the analysis cannot type there, the type the object's own class gives it."""
        value = self.stored_in_class(klass, attr, frame, inst)
        if isinstance(value, Unknown) and not value.hole.volatility.is_volatile and inst is not None \
                and inst.info is not klass:
            value = self.typed_by_subclass(klass, attr, inst) or value
        if _plainly_unknown(value) and inst is not None and not inst.attrs:
            return self.client_handed_in(klass, attr, frame) or value
        return value

    def client_handed_in(self, klass: ClassInfo, attr: str, frame: Frame) -> Obj | None:
        """`self._chat = chat` in the constructor of an object whose module builds it around an
        LLM client (`def make_llm(): chat = ChatAnthropic(...); return ChatLLM(model, chat)`): the
        attribute is that client, so the object's calls on it are LLM calls. Only clients are taken
        from the module's own constructor calls (memoized per class), not what else they pass."""
        key = (id(klass.node), attr)
        if key in self._handed:
            return self._handed[key]
        self._handed[key] = None  # guards recursion through the constructor calls themselves
        parameter = _stored_parameter(klass, attr)
        found: Obj | None = None
        if parameter is not None and self.builds_clients(klass.module):
            for function, owner, argument in _constructor_arguments(klass, *parameter):
                ran = self.constructing_run(function, owner, klass.module, frame)
                value = self.eval(argument, ran) if ran is not None else None
                if isinstance(value, Obj) and value.type in self.knowledge.client_types:
                    found = value
                    break
        self._handed[key] = found
        return found

    def builds_clients(self, module: ModuleInfo) -> bool:
        """Whether the module's text calls an LLM client's constructor (computed once per module)."""
        cached = module.__dict__.get("_builds_clients")
        if cached is None:
            cached = module.__dict__["_builds_clients"] = \
                self.knowledge.client_constructor_call.search(module.source) is not None
        return cached

    def constructing_run(self, function: ast.FunctionDef | ast.AsyncFunctionDef, owner: ClassInfo | None,
                         module: ModuleInfo, frame: Frame) -> Frame | None:
        """A function that constructs an object run once with unknown parameters (memoized per
        entry): its locals where it hands the object its arguments. None: it could not be run."""
        if id(function) in self._constructing:
            return self._constructing[id(function)]
        self._constructing[id(function)] = None
        if id(function) in frame.stack:
            return None
        sub = Frame(module, depth=STORED_DEPTH, self_value=Instance(owner) if owner else None,
                    qualname=f"{module.name}.{function.name}", stack=(*frame.stack, id(function)), function=function)
        self.bind_params(function, sub, [], {}, sub.self_value, placeholders=True)
        try:
            self.run_block(function.body, sub)
        except BudgetExceeded:
            return None
        self._constructing[id(function)] = sub
        return sub

    def typed_by_subclass(self, klass: ClassInfo, attr: str, inst: Instance) -> Value | None:
        """`self.context_builder = context_builder` in a generic base's constructor (annotated
        `T`): the subclass constructor that hands it on says its type (`context_builder:
        GlobalContextBuilder`), so a call on it reaches that class's implementations."""
        assignment = _attribute_assignment(klass, attr)
        if assignment is None or not isinstance(assignment[2].value, ast.Name):
            return None
        name = assignment[2].value.id
        for subclass in self.mro(inst.info):
            if subclass is klass:
                break
            init = subclass.methods.get("__init__")
            annotation = _parameter_annotation(init, name) if init is not None else None
            found = self.annotated_type(annotation, Frame(subclass.module)) if annotation is not None else None
            if found is not None:
                return found
        return None

    def stored_in_class(self, klass: ClassInfo, attr: str, frame: Frame, inst: Instance | None) -> Value | None:
        """The value a method of ``klass`` stores in ``self.attr`` (memoized per class)."""
        key = (id(klass.node), attr)
        if key in self._stored:
            return self._stored[key]
        assignment = _attribute_assignment(klass, attr)
        if assignment is None:
            return None
        method_name, method, stmt = assignment
        if id(method) in frame.stack:
            return unknown(f"self.{attr}", None)
        self._stored[key] = unknown(f"self.{attr}", None)  # guards recursion through the value itself
        # Memoized per class, so evaluated with a depth budget of its own: a value cut short by
        # the depth of whichever caller asked first would be kept for every later one.
        sub = Frame(klass.module, depth=STORED_DEPTH, self_value=inst,
                    qualname=f"{klass.qualname}.{method_name}", stack=(*frame.stack, id(method)))
        self.bind_params(method, sub, [], {}, inst, placeholders=True)
        self.bind_locals_used(method, stmt, sub)
        value = self.eval(stmt.value, sub)
        where = klass.module.location(stmt)
        # A list kept on the object and appended to: what earlier calls appended follows the items
        # it was made with (the system message a conversation starts with); so for the lists of an
        # object it keeps (`self.memory = Memory()`).
        value = self.as_kept(klass, attr, value, where)
        value = add_step(value, Step(where, f"stored in `self.{attr}`"))
        value = cap_volatility(value, Volatility.PER_SESSION,
                               f"stored on the object in `{method_name}`; assuming one object per conversation")
        self._stored[key] = value
        return value

    def bind_locals_used(self, method: ast.AST, stmt: ast.Assign | ast.AnnAssign, frame: Frame) -> None:
        """Bind the locals ``stmt`` reads (and those they read), from their last plain assignment
        before it: ``prompt = build(...); self.agent = make(prompt)`` stores what ``build`` made."""
        for assignment in _locals_used(method, stmt):
            frame.locals[assignment.targets[0].id] = self.eval(assignment.value, frame)  # type: ignore[attr-defined]

    def mro(self, info: ClassInfo) -> list[ClassInfo]:
        """The class and its project bases, depth first (at most 8). Kept for the entry: a class's
        bases do not change while it runs, and the walk resolves names through imports."""
        kept = self._mro.get(id(info))
        if kept is not None and kept[0] is info:
            return kept[1]
        order = [info]
        for base in info.bases:
            path = _dotted(base.value if isinstance(base, ast.Subscript) else base)  # `Base[T]`: Base
            if not path:
                continue
            value = self.lookup_name(path.split(".")[0], Frame(info.module), base)
            for attr in path.split(".")[1:]:
                value = self.attribute(value, attr, Frame(info.module), None)
            # Identity, not ==: ClassInfo's generated __eq__ compares every field, methods included.
            if isinstance(value, ClassVal) and all(c is not value.info for c in order) and len(order) < 8:
                order += [c for c in self.mro(value.info) if all(c is not o for o in order)]
        self._mro[id(info)] = (info, order)
        return order

    def counts_zero(self, bounds: ast.Slice, frame: Frame) -> bool:
        """``x[-k:]`` with ``k`` known to be 0 (a caller left ``get(k=0)`` at its default, or passed
        0): ``x[-0:]`` is the whole list, not its latest items."""
        start = bounds.lower
        count = start.operand if isinstance(start, ast.UnaryOp) else None
        # A name or an attribute only: a call there is not evaluated a second time.
        return isinstance(count, (ast.Name, ast.Attribute)) and literal_text(self.eval(count, frame)) == "0"

    def eval_Subscript(self, node: ast.Subscript, frame: Frame) -> Value:
        base = self.eval(node.value, frame)
        key_value = self.eval(node.slice, frame)
        key = literal_text(key_value)
        read = self.graph_state_read(node.value, node, key, frame)
        if read is not None:
            return read
        if isinstance(base, Mapping):
            if key is not None:
                found = base.get(key)
                if found is not None:
                    return found
            chosen = spread_of(base) or self.registry_choice(base)
            if chosen is not None:
                return chosen
            return unknown(frame.module.snippet(node), frame.module.location(node))
        if isinstance(node.slice, ast.Slice) and _from_the_end(node.slice) and not self.counts_zero(node.slice, frame):
            latest = _latest_items(base, Step(frame.module.location(node), frame.module.snippet(node)))
            if latest is not None:
                return latest
        if isinstance(base, Seq) and isinstance(node.slice, ast.Slice):
            return _sliced(base, node.slice)
        if isinstance(base, Text) and isinstance(node.slice, ast.Slice) and node.slice.step is None \
                and node.slice.upper is None:
            return base  # `line[indent:]`: what is left of a text after its first characters (its indent)
        if isinstance(base, Seq) and key is not None and key.lstrip("-").isdigit():
            found = _item(base, int(key))
            if found is not None:
                return found
        if isinstance(base, Unknown) and base.hole.volatility.is_volatile:
            return base
        path = _dotted(node.value)
        if key and path:
            found_id = self.knowledge.identifier_names.get(key.lower())
            if found_id is not None:
                return self.identifier(f"{path}[{key!r}]", found_id, frame.module.location(node))
        return unknown(frame.module.snippet(node), frame.module.location(node))

    def eval_BinOp(self, node: ast.BinOp, frame: Frame) -> Value:
        left = self.eval(node.left, frame)
        right = self.eval(node.right, frame)
        if isinstance(node.op, ast.Add):
            return self.add(left, right, frame, node)
        if isinstance(node.op, ast.Mod) and isinstance(left, Text):
            return templates.percent_format(left, right, self, frame, node)
        if isinstance(node.op, ast.Mult):
            repeated = _repeat(left, right) or _repeat(right, left)
            if repeated is not None:
                return repeated
        if isinstance(node.op, ast.Div) and isinstance(left, PathVal):
            part = literal_text(right)
            return PathVal(left.path / part if left.path is not None and part else None)
        if isinstance(node.op, ast.BitOr):
            if isinstance(left, Seq) and isinstance(right, Seq) and (left.order or right.order):
                return Seq(left.items + right.items, left.order or right.order)
            if isinstance(left, Obj) and left.type == "langchain.chain":
                return left  # `prompt | model | parser`: the parser does not change the prompt
            if isinstance(left, TemplateVal) and (left.kind == "langchain" or isinstance(right, Obj)):
                # `prompt | model`: with a model we cannot see (`self.llm`), the chain still renders it.
                return Obj("langchain.chain", (("prompt", left), ("model", right)))
        return self.join_unknown(node, frame, left, right)

    def join_unknown(self, node: ast.AST, frame: Frame, *values: Value) -> Value:
        """An operation we do not model: unknown, but volatile if an operand is."""
        hole = None
        for value in values:
            candidate = most_volatile(value)
            if candidate and (hole is None or candidate.volatility is Volatility.PER_REQUEST):
                hole = candidate
        if hole is not None:
            return Unknown(replace(hole, location=None))
        return unknown(frame.module.snippet(node), frame.module.location(node))

    def add(self, left: Value, right: Value, frame: Frame, node: ast.AST) -> Value:
        if isinstance(left, Seq) and isinstance(right, Seq):
            return Seq(left.items + right.items, left.order or right.order)
        if isinstance(left, Seq) and isinstance(right, Unknown):
            return Seq((*left.items, Splice(right.hole)), left.order)
        if isinstance(right, Seq) and isinstance(left, Unknown) and not left.hole.volatility.is_volatile:
            return Seq((Splice(left.hole), *right.items), right.order)
        if isinstance(left, Unknown) and isinstance(right, Unknown) and isinstance(node, ast.BinOp) \
                and (_a_conversation_slice(node.left) or _a_conversation_slice(node.right)):
            # `history[:1] + retrieved + history[1:]`: lists of messages, the retrieved run spliced in.
            return Seq(tuple(Splice(hole if hole.location else replace(hole, location=frame.module.location(part)))
                             for hole, part in ((left.hole, node.left), (right.hole, node.right))))
        if isinstance(left, (Text, TemplateVal)) or isinstance(right, (Text, TemplateVal)):
            where = frame.module.location(node)
            left_node = getattr(node, "left", getattr(node, "target", node))
            right_node = getattr(node, "right", getattr(node, "value", node))
            return concat(self.text_of(left, frame.module.location(left_node), frame.module.snippet(left_node)),
                          self.text_of(right, frame.module.location(right_node), frame.module.snippet(right_node)))
        return self.join_unknown(node, frame, left, right)

    def eval_List(self, node: ast.List | ast.Tuple, frame: Frame) -> Value:
        items: list[Value] = []
        for elt in node.elts:
            if isinstance(elt, ast.Starred):
                inner = self.eval(elt.value, frame)
                if isinstance(inner, Seq):
                    items.extend(inner.items)
                else:
                    hole = inner.hole if isinstance(inner, Unknown) else \
                        Hole(Volatility.UNKNOWN, frame.module.snippet(elt.value), frame.module.location(elt))
                    items.append(Splice(hole))
            else:
                items.append(self.eval(elt, frame))
        return Seq(tuple(items))

    eval_Tuple = eval_List

    def eval_Set(self, node: ast.Set, frame: Frame) -> Value:
        items = self.eval_List(node, frame)  # type: ignore[arg-type]
        assert isinstance(items, Seq)
        return Seq(items.items, self.set_order_hole(node, frame, "set literal"))

    def set_order_hole(self, node: ast.AST, frame: Frame, what: str) -> Hole:
        # Iterating a set of strings gives another order in every process (hash randomization),
        # even when the set itself is built once at import.
        where = frame.module.location(node)
        origin = Origin(where, what, "set-order", Volatility.ORDER_UNSTABLE)
        return Hole(Volatility.ORDER_UNSTABLE, frame.module.snippet(node), where, origin=origin)

    def eval_Dict(self, node: ast.Dict, frame: Frame) -> Value:
        entries: list[tuple[str | None, Value]] = []
        order = None
        for key_node, value_node in zip(node.keys, node.values):
            value = self.eval(value_node, frame)
            if key_node is None:
                if isinstance(value, Mapping):
                    entries.extend(value.entries)
                    order = order or value.order
                elif spread_volatile(value):
                    # `{**hit, "query": q}` of a retrieved record: the keys it spreads are not
                    # known, and each is as volatile as the record (read back by `spread_of`).
                    entries.append((None, value))
                continue
            entries.append((literal_text(self.eval(key_node, frame)), value))
        mapping = Mapping(tuple(entries), order)
        role = mapping.get("role")
        if role is not None and self.is_system_role(role):
            self.assembled(frame, node, "role dict", self.message_text(mapping.get, []),
                           messages=self.history_written_after(frame, node))
        elif role is not None and self.is_user_role(role):
            content = next((v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)
                            and k.value in self.knowledge.content_keys), node)
            self.user_turn(frame, content, "role dict", self.message_text(mapping.get, []))
        return mapping

    def eval_IfExp(self, node: ast.IfExp, frame: Frame) -> Value:
        known = _known_truth(self.eval(node.test, frame)) if isinstance(node.test, (ast.Name, ast.Constant)) else None
        if known is not None:  # `fmt_a if include_hour_min else fmt_b` with the flag at its default
            return self.eval(node.body if known else node.orelse, frame)
        body = self.eval(node.body, frame)
        orelse = self.eval(node.orelse, frame)
        # Prefer the branch that shows something: a volatile one, else the richer one.
        if most_volatile(orelse) and not most_volatile(body):
            return orelse
        if most_volatile(body):
            return body
        if isinstance(body, (NoneVal, Unknown)) and not isinstance(orelse, (NoneVal, Unknown)):
            return orelse
        return body

    def eval_BoolOp(self, node: ast.BoolOp, frame: Frame) -> Value:
        values = [self.eval(v, frame) for v in node.values]
        for value in values:
            if most_volatile(value):
                return value
        return values[-1] if isinstance(node.op, ast.Or) and isinstance(values[0], (NoneVal, Unknown)) else values[0]

    def eval_Await(self, node: ast.Await, frame: Frame) -> Value:
        return self.eval(node.value, frame)

    def stand_in_call(self, qualname: str, args: list[Value], kwargs: dict[str, Value],
                    frame: Frame) -> Value | None:
        """Calls that only say what a value is: `functools.partial(create, model=...)` (called
        later with the rest), `typing.cast(T, value)` (a list, dict or text itself; a value the
        caller leaves unknown typed as a library client: `cast(OpenAI, client)`) and
        `importlib.import_module("openai")` (a lazy import); None for other calls."""
        if qualname == "functools.partial" and args:
            return Partial(args[0], tuple(args[1:]), tuple(kwargs.items()))
        if qualname == "typing.cast" and len(args) == 2:
            # A value the caller leaves unknown is typed only as a library client: as a project
            # class it would follow every override of its methods (agno's `team.model =
            # cast(Model, team.model)`), deeper than the depth left. A list, dict or text is
            # itself (`cast(list[dict], messages)`). A project object stays unknown: joined after
            # a branch, two objects tie (their contents are not weighed), and DB-GPT's skill
            # template then replaced the agent's own, clock and all.
            if isinstance(args[1], (Seq, Mapping, Text)):
                return args[1]
            typed = self.type_instance(args[0], frame) if _plainly_unknown(args[1]) else None
            return typed if isinstance(typed, Obj) else None
        if qualname == "importlib.import_module" and len(args) == 1 and not kwargs:
            name = literal_text(args[0])
            if name and all(part.isidentifier() for part in name.split(".")):
                return self.resolve_import(name, name, frame)
        return None

    def getattr_read(self, node: ast.Call, frame: Frame) -> Value | None:
        """`getattr(self, "send")` or `getattr(obj, "prompt", "")` with a literal name: read as
        `self.send` / `obj.prompt` (the default where that is plainly unknown); None otherwise."""
        if not 2 <= len(node.args) <= 3 or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            return None
        name = node.args[1]
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value.isidentifier()):
            return None
        read = ast.copy_location(ast.Attribute(value=node.args[0], attr=name.value, ctx=ast.Load()), node)
        read.end_lineno, read.end_col_offset = node.end_lineno, node.end_col_offset
        value = self.eval(read, frame)
        absent = _plainly_unknown(value) or isinstance(value, Ref) and value.qualname in ONLY_WHEN_FROZEN
        return self.eval(node.args[2], frame) if len(node.args) == 3 and absent else value

    def eval_Yield(self, node: ast.Yield, frame: Frame) -> Value:
        """`yield message`: the item joins what the generator gives its caller, in order (as if
        appended to a list it returns); what a caller sends back in is not known."""
        self.add_yielded((NONE if node.value is None else self.yielded_value(node.value, frame),), frame)
        return unknown(frame.module.snippet(node), frame.module.location(node))

    def yielded_value(self, value: ast.expr, frame: Frame) -> Value:
        """What `yield` / `yield from` hands out. Not run for a project function's result that
        cannot reach an LLM call (`yield handle_event(create_run_started_event(...))`): streaming
        runs yield hundreds of events (agno), and running them spent the step budget before the
        request. A class (a message object) or a library call still runs."""
        if isinstance(value, ast.Call) and self.reaching_names is not None \
                and not self.nested_call_names(value) & self.reaching_names \
                and isinstance(self.eval(value.func, frame), FuncVal):
            return unknown(frame.module.snippet(value), frame.module.location(value))
        return self.eval(value, frame)

    def eval_YieldFrom(self, node: ast.YieldFrom, frame: Frame) -> Value:
        """`yield from self.send(messages)`: the inner generator runs (aider sends its request
        there) and its items join this generator's; its return value is not known."""
        value = self.yielded_value(node.value, frame)
        if isinstance(value, Seq):
            self.add_yielded(value.items, frame, value.order)
        else:
            hole = value.hole if isinstance(value, Unknown) else Hole(Volatility.UNKNOWN, "items", None)
            self.add_yielded((Splice(hole),), frame)
        return unknown(frame.module.snippet(node), frame.module.location(node))

    def add_yielded(self, items: tuple[Value, ...], frame: Frame, order: Hole | None = None) -> None:
        # A local no Python name can be: branches and loops join it as they join the locals.
        before = frame.locals.get(YIELDED)
        before = before if isinstance(before, Seq) else Seq(())
        frame.locals[YIELDED] = Seq((*before.items, *items), before.order or order or frame.order_taint)

    def eval_NamedExpr(self, node: ast.NamedExpr, frame: Frame) -> Value:
        value = self.eval(node.value, frame)
        self.bind(node.target, value, frame)
        return value

    def eval_Lambda(self, node: ast.Lambda, frame: Frame) -> Value:
        return FuncVal(frame.module, node, f"{frame.qualname}.<lambda>", closure=self._closure(frame))

    def _closure(self, frame: Frame) -> dict[str, Value]:
        """The scope a function defined in ``frame`` closes over – usually holding that very
        function, a cycle that ``release`` breaks."""
        self._closures.append(frame.locals)
        return frame.locals

    def eval_Starred(self, node: ast.Starred, frame: Frame) -> Value:
        return self.eval(node.value, frame)

    def eval_ListComp(self, node: ast.ListComp | ast.GeneratorExp | ast.SetComp, frame: Frame) -> Value:
        return self.comprehension(node, frame, lambda sub: [self.eval(node.elt, sub)])

    eval_GeneratorExp = eval_ListComp

    def eval_SetComp(self, node: ast.SetComp, frame: Frame) -> Value:
        result = self.eval_ListComp(node, frame)
        assert isinstance(result, Seq)
        if not result.items:
            return result  # provably empty (every known item filtered out): one order only
        return Seq(result.items, result.order or self.set_order_hole(node, frame, "set comprehension"))

    def eval_DictComp(self, node: ast.DictComp, frame: Frame) -> Value:
        picked = self.picked_entries(node, frame)
        if picked is not None:
            return picked

        def entry(sub: Frame) -> list[Value]:
            return [Seq((self.eval(node.key, sub), self.eval(node.value, sub)))]

        pairs = self.comprehension(node, frame, entry)
        assert isinstance(pairs, Seq)
        entries = []
        for pair in pairs.items:
            if isinstance(pair, Seq) and len(pair.items) == 2:
                entries.append((literal_text(pair.items[0]), pair.items[1]))
        return Mapping(tuple(entries), pairs.order)

    def picked_entries(self, node: ast.DictComp, frame: Frame) -> Value | None:
        """``{k: data[k] for k in names if k in data}`` over names the analysis cannot list (the
        variables a template declares, DB-GPT's `find_undeclared_variables`): the entries of
        ``data`` that are picked keep their values, so ``data`` stands for the result."""
        if len(node.generators) != 1 or not isinstance(node.generators[0].target, ast.Name):
            return None
        generator = node.generators[0]
        name = generator.target.id  # type: ignore[attr-defined]
        value = node.value
        if not (isinstance(node.key, ast.Name) and node.key.id == name and isinstance(value, ast.Subscript)
                and isinstance(value.slice, ast.Name) and value.slice.id == name):
            return None
        source_text = ast.unparse(value.value)
        if not any(isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.In)
                   and ast.unparse(test.left) == name and ast.unparse(test.comparators[0]) == source_text
                   for test in generator.ifs):
            return None  # not a pick: every name is looked up, whatever the dict holds
        items, order = self.iteration(self.eval(generator.iter, frame), generator.iter, frame)
        if items is not None:
            return None  # the names are known: the comprehension itself says which entries, in which order
        source = self.eval(value.value, frame)
        return Mapping(source.entries, order or source.order) if isinstance(source, Mapping) and source.entries \
            else None

    def comprehension(self, node: Any, frame: Frame, produce: Callable[[Frame], list[Value]]) -> Value:
        generator = node.generators[0]
        iterable = self.eval(generator.iter, frame)
        items, order = self.iteration(iterable, generator.iter, frame)
        if order is not None:
            order = replace(order, location=frame.module.location(generator.iter))
        sub = Frame(frame.module, dict(frame.locals), frame.depth, frame.import_time, frame.self_value,
                    frame.qualname, order_taint=order or frame.order_taint, stack=frame.stack,
                    in_llm_loop=frame.in_llm_loop)
        results: list[Value] = []
        if items is not None and len(items) <= MAX_UNROLL and len(node.generators) == 1:
            items = [item for item in items if not _type_filtered_out(generator, item)]
            for item in items:
                self.bind(generator.target, item, sub, step=False)
                results += produce(sub)
            return Seq(tuple(results), order if items else None)
        self.bind(generator.target, self.element_of(iterable, generator.iter, frame), sub, step=False)
        for extra in node.generators[1:]:
            self.bind(extra.target, unknown("item"), sub, step=False)
        produced = produce(sub)
        windowed = _window_hole(iterable)  # a copy of a window keeps its cut and the path to it
        hole = Hole(Volatility.UNKNOWN, frame.module.snippet(node), frame.module.location(node),
                    is_history=self.holds_conversation(iterable, frame),
                    path=windowed.path if windowed is not None else (),
                    window=windowed.window if windowed is not None else None)
        # Messages copied from a list of unknown length, each keeping its own role (`[{"role":
        # m["role"], "content": clean(m["content"])} for m in messages]`): the conversation, not
        # one message that stands for all.
        volatile = [v for v in produced if (most_volatile(v) or _carries_tag(v)) and not self.copied_message(v)]
        if not volatile:
            filtered = self.filtered_by(node, sub)
            if filtered is not None:
                return Seq((Splice(replace(filtered, expression=hole.expression, location=hole.location,
                                           window=hole.window)),), order)
        items_out: tuple[Value, ...] = tuple(volatile) if volatile else (Splice(hole),)
        return Seq(items_out, order)

    def filtered_by(self, node: Any, frame: Frame) -> Hole | None:
        """The volatile value a comprehension's filter reads (`[p for p in names if p !=
        self._previous_speaker]`), if any: which items are kept changes with it. Not the order of a
        collection it tests membership in (`if t.name in set(names)`): the same items pass, in the
        order of the list iterated."""
        for test in (test for generator in node.generators for test in generator.ifs):
            for operand in ast.walk(test):
                if isinstance(operand, (ast.Name, ast.Attribute)) and isinstance(operand.ctx, ast.Load) \
                        and _text_name(operand) not in (None, "self"):
                    found = most_volatile(self.eval(operand, frame))
                    if found is not None and found.volatility is not Volatility.ORDER_UNSTABLE:
                        return found
        return None

    def holds_conversation(self, value: Value, frame: Frame) -> bool:
        """Whether this list holds a conversation so far (a run of it whose length is not known):
        what is computed item by item from it (`"\\n".join(f"{m['role']}: {m['content']}" for m in
        history)`) is that conversation, rendered. A list an object keeps and appends to is one when
        named like one or given written-out messages (`is_conversation`): a kept list of agents or
        tasks is not."""
        if not isinstance(value, Seq):
            return False
        for item in value.items:
            if not isinstance(item, Splice) or not item.hole.is_history:
                continue
            attribute = item.hole.expression[5:] if item.hole.expression.startswith("self.") else ""
            if not attribute:
                return True  # a conversation a caller hands over, a framework replays or a request carries
            if "." in attribute:  # a list of an object it holds (`self.state.agent_history_items`)
                if _named_like_a_conversation(attribute.rsplit(".", 1)[-1]):
                    return True
                continue
            if _named_like_a_conversation(attribute) or isinstance(frame.self_value, Instance) and any(
                    _appended_attributes(klass).get(attribute) for klass in self.mro(frame.self_value.info)):
                return True
        return False

    def copied_message(self, value: Value) -> bool:
        if not isinstance(value, Mapping):
            return False
        role = next((value.get(key) for key in self.knowledge.role_keys if value.get(key) is not None), None)
        return role is not None and literal_text(role) is None

    # --- calls -------------------------------------------------------------------------------

    def eval_Call(self, node: ast.Call, frame: Frame) -> Value:
        func = node.func
        receiver: Value | None = None
        parent = self.super_method(func, frame)
        if parent is not None:
            args, kwargs = self.eval_arguments(node, frame)
            return self.call(parent, args, kwargs, frame, node)
        if isinstance(func, ast.Attribute):
            path = _dotted(func)
            if path and path in frame.locals:
                callee = frame.locals[path]
            else:
                receiver = self.eval(func.value, frame)
                callee = None  # type: ignore[assignment]
        else:
            callee = self.eval(func, frame)
            if isinstance(callee, Ref) and callee.qualname == "builtins.getattr":
                read = self.getattr_read(node, frame)
                if read is not None:
                    return read
        args, kwargs = self.eval_arguments(node, frame)
        if isinstance(receiver, Instance):  # a project object's method: its own slots, if it is a wrapper
            assert isinstance(func, ast.Attribute)
            callee = self.attribute(receiver, func.attr, frame, func)
        if self.on_assembly is not None:
            self.assembly_by_shape(node, args, kwargs, frame, callee)
        if receiver is not None:
            assert isinstance(func, ast.Attribute)
            read = self.graph_state_read(func.value, node, literal_text(args[0]), frame) \
                if func.attr == "get" and args else None
            if read is not None:
                return read
            if isinstance(receiver, _PLAIN_VALUES) and self.forwarded(func, receiver, args, kwargs, frame) is None:
                method_result = templates.call_method(self, receiver, func.attr, args, kwargs, frame, node)
                result = self.conversation_read(node, _in_window_of(receiver, method_result), frame)
                if self.on_messages is not None and "messages" in kwargs and isinstance(receiver, Unknown):
                    self.handed_messages(node, kwargs["messages"], frame, kwargs.get("tools"))
                return self.lookup_result(node, result, args, kwargs, frame)
            if func.attr == "override" and isinstance(receiver, Obj):
                for attr in self.knowledge.request_messages.get(receiver.type, ()):
                    if attr in kwargs:
                        self.callback_messages(frame, node, f"{frame.module.snippet(func)}({attr}=...)", kwargs[attr])
            if func.attr in DUMP_METHODS and isinstance(receiver, Instance) and not args \
                    and (dumped := self.dumped(receiver)) is not None:
                return dumped
            if callee is None:
                callee = self.attribute(receiver, func.attr, frame, func)
            if self.undefined_on_self(receiver, func, callee, frame):
                callee = self.mixed_in_method(receiver, func.attr) or callee
        forwarded = self.forwarded(func, callee, args, kwargs, frame)
        if forwarded is not None:
            callee, args, kwargs = forwarded
        result = self.conversation_read(node, self.call(callee, args, kwargs, frame, node), frame)
        if self.on_messages is not None and "messages" in kwargs and id(node) not in self._sent \
                and not self.sends_nothing(callee):
            self.handed_messages(node, kwargs["messages"], frame, kwargs.get("tools"))
        elif self.on_messages is not None and args and "messages" not in kwargs and id(node) not in self._sent \
                and isinstance(callee, Instance):
            # An object called directly with a message list (`self.model(messages)`, a model
            # object's `__call__`, LangChain's `chat(messages)`): that list is the request.
            self.handed_messages(node, args[0], frame)
        return self.lookup_result(node, result, args, kwargs, frame, receiver)

    def forwarded(self, func: ast.expr, callee: Value, args: list[Value], kwargs: dict[str, Value], frame: Frame
                  ) -> tuple[Value, list[Value], dict[str, Value]] | None:
        """`asyncio.to_thread(create, model=..., messages=...)`, `loop.run_in_executor(None, lambda:
        send(prompt))`: the function such a call runs, with the arguments it gets (rules/llm_calls.yaml
        forwarders); None for any other call. A bare method name counts only on a receiver the
        analysis does not know: a project object's own `submit` is that method."""
        spec = self.knowledge.forwarders.get(callee.qualname) if isinstance(callee, Ref) else None
        if spec is None and isinstance(func, ast.Attribute) and not isinstance(callee, (FuncVal, ClassVal, Instance)):
            spec = self.knowledge.forwarders.get(func.attr)
        if spec is None:
            return None
        position, keywords = spec
        if len(args) <= position or not isinstance(args[position], (FuncVal, Member, Partial, Ref)):
            return None
        handed = args[position]
        if isinstance(handed, FuncVal) and handed.self_value is not None and handed.self_value is frame.self_value:
            # The object's own synchronous twin (`kickoff_async` runs `self.kickoff` in a thread):
            # an entry of its own already; run again one frame deeper it only repeats itself.
            return None
        return handed, args[position + 1:], kwargs if keywords else {}

    def dumped(self, inst: Instance, depth: int = 0) -> Mapping | None:
        """`message.model_dump()` of a project data model (pydantic): a dict of its declared
        fields, in declaration order (bases first), each as the object holds it, a model in a
        field dumped the same way. None when the class defines a method of that name itself or
        is not a data model."""
        classes = self.mro(inst.info)
        if depth > 3 or any(name in klass.methods for klass in classes for name in DUMP_METHODS) \
                or not _base_names(classes) & DATA_MODEL_BASES:
            return None
        held = dict(inst.attrs)
        entries: list[tuple[str | None, Value]] = []
        for klass in reversed(classes):
            for name, _ in _declared_fields(klass):
                if name in held and all(key != name for key, _ in entries):
                    entries.append((name, self.dumped_value(held[name], depth)))
        return Mapping(tuple(entries))

    def dumped_value(self, value: Value, depth: int) -> Value:
        if isinstance(value, Instance):
            return self.dumped(value, depth + 1) or value
        if isinstance(value, Seq):
            return replace(value, items=tuple(self.dumped_value(item, depth) for item in value.items))
        return value

    def super_method(self, func: ast.expr, frame: Frame) -> FuncVal | None:
        """`super().name(...)` in a method: the next definition of `name` along the object's
        classes after the one whose method runs, on the same object (what it sets on `self`, the
        caller sees)."""
        if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Call) \
                or not isinstance(func.value.func, ast.Name) or func.value.func.id != "super" \
                or not isinstance(frame.self_value, Instance):
            return None
        classes = self.mro(frame.self_value.info)
        # The class whose method runs: by the function (a method run as an entry or a call), or by
        # the frame's name (a constructor run for `Class(...)` has no function on its frame).
        index = next((i for i, klass in enumerate(classes)
                      if any(m is frame.function or f"{klass.qualname}.{name}" == frame.qualname
                             for name, m in klass.methods.items())), None)
        if index is None:
            return None
        for klass in classes[index + 1:]:
            method = klass.methods.get(func.attr)
            if method is not None:
                return FuncVal(klass.module, method, f"{klass.qualname}.{func.attr}", frame.self_value)
        return None

    def sends_nothing(self, callee: Value) -> bool:
        """A project function with a body of its own whose name reaches no LLM call (SuperAGI's
        `TokenCounter.count_message_tokens(messages=...)`): it is no request, however its argument
        is named. A stub (a protocol's method) may be any provider's, and stays a request."""
        if not isinstance(callee, FuncVal) or self.reaching_names is None \
                or not isinstance(callee.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        name = callee.qualname.rsplit(".", 1)[-1]
        return name not in self.reaching_names and name not in self.wrappers and not _is_stub(callee.node)

    def handed_messages(self, node: ast.Call, messages: Value, frame: Frame, tools: Value | None = None) -> None:
        """A message list that opens with a system message, handed as ``messages=`` to a call that
        is not a request we know (a provider object behind a protocol, a client made by a factory
        the analysis cannot follow): every provider sends such a list in its own order, so it is
        judged as it is (graphrag's ``self.model.completion_async(messages=builder.build())``)."""
        if self.on_messages is not None and isinstance(messages, Seq) and messages.items \
                and self.opens_with_system(messages.items[0], frame):
            # Judged like a request, also with nothing volatile in sight: what the user's turn
            # derives is marked per request with the layout.
            self.on_messages(frame, node, f"messages passed to {frame.module.snippet(node.func)}()", messages,
                             None, tools)

    def lookup_result(self, node: ast.Call, result: Value, args: list[Value], kwargs: dict[str, Value],
                      frame: Frame, client: Value | None = None) -> Value:
        """A lookup keyed by something that is not a constant (``retriever.search(question)``)
        returns new content on every request, whatever the store is (rules/sources.yaml
        ``lookups``). A result whose text is known, or a lookup with only constant keys, is kept."""
        func = node.func
        method = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if method is None or not (args or kwargs):
            return result
        # Every call passes here: the name test first, the walk over the result only for lookups.
        receiver = _last_name(func.value) if isinstance(func, ast.Attribute) else None
        category = self.knowledge.lookup_category(method, receiver)
        if category is None and isinstance(client, Obj):
            # A web search client's `search()` (rules/sources.yaml `lookup_types`), however it is named.
            category = self.knowledge.lookup_types.get(f"{client.type}.{method}")
        if category is None:
            return _computed_from_tagged(result, method, [*args, *kwargs.values()], frame.module.location(node))
        # Memories are written as the conversation goes: what a memory lookup named so returns
        # changes also for a constant key (`get_user_memories(user_id="default")`); a generic
        # `get` with a constant key on a memory (`memory.get("memory", "")`) reads one field.
        if category is None or not self.memory_lookup_by_name(method, category) and all(
                literal_text(v) is not None or isinstance(v, NoneVal) for v in _asked(args, kwargs)):
            return result
        unknowns = [h for h in holes_of(result) if h.volatility is Volatility.UNKNOWN and not h.is_history]
        # No results is what the store returns where the analysis left it unconfigured
        # (`if self.db:` of a db at its default None): not what a request finds.
        if not unknowns and not isinstance(result, (Obj, Instance)) and not _no_results(result):
            return result
        where = frame.module.location(node)
        key = next((frame.module.snippet(a) for a in [*node.args, *(k.value for k in node.keywords)]
                    if not isinstance(a, ast.Constant)), "its arguments")
        what = ("a memory lookup: the conversation writes the memories it returns, so they change between "
                "requests" if category == "memory" else
                f"a {category} lookup keyed by `{key}`: what it returns changes with what is asked")
        hole = Hole(Volatility.PER_REQUEST, frame.module.snippet(node), None,
                    origin=Origin(where, f"{method}()", category, Volatility.PER_REQUEST),
                    assumption=f"`{method}()` is {what}")
        if not unknowns:
            return Unknown(hole)  # an object we model (a response, a result list): its text is the lookup's
        return map_holes(result, lambda h: hole if h.volatility is Volatility.UNKNOWN and not h.is_history else h)

    def memory_lookup_by_name(self, method: str, category: str) -> bool:
        """A memory lookup by its method's own name (`get_user_memories`), not a generic method on
        an object named like a memory (`memory.get`)."""
        return category == "memory" and self.knowledge.lookup_category(method, None) == "memory"

    def eval_arguments(self, node: ast.Call, frame: Frame) -> tuple[list[Value], dict[str, Value]]:
        args: list[Value] = []
        for arg in node.args:
            value = self.eval(arg.value if isinstance(arg, ast.Starred) else arg, frame)
            if isinstance(arg, ast.Starred) and isinstance(value, Seq):
                args.extend(value.items)
            else:
                args.append(value)
        kwargs: dict[str, Value] = {}
        for keyword in node.keywords:
            value = self.eval(keyword.value, frame)
            if keyword.arg is None:
                if isinstance(value, Mapping):
                    kwargs.update({k: v for k, v in value.entries if k})
            else:
                kwargs[keyword.arg] = value
        return args, kwargs

    def call(self, callee: Value, args: list[Value], kwargs: dict[str, Value], frame: Frame,
             node: ast.Call | None) -> Value:
        if isinstance(callee, ClassVal) and self.is_library_model(callee.info.qualname):
            # The project's own copy of a chat template class we model (DB-GPT's `dbgpt.core` in its
            # tree): the model knows what it builds; running its code would lose the message roles.
            return self.call_external(callee.info.qualname, args, kwargs, frame, node)
        if isinstance(callee, FuncVal):
            if callee.qualname in self.knowledge.client_wrappers:
                # instructor's own `from_openai` in its repository: the knowledge says what it gives back
                return self.call_external(callee.qualname, args, kwargs, frame, node)
            if callee.qualname in self.knowledge.apis:  # a project function declared as a wrapper
                self.report_sink(frame, node, callee.qualname, args, kwargs, None)
            return self.call_function(callee, args, kwargs, frame, node)
        if isinstance(callee, ClassVal):
            public = _public_name(callee.info.qualname)
            if public != callee.info.qualname and \
                    (public in self.knowledge.system_messages or public in self.knowledge.user_messages):
                # The project's own copy of a message class the rules model (autogen's tree holds
                # `autogen_core.models._types.SystemMessage`, exported as `autogen_core.models.SystemMessage`).
                return self.call_external(public, args, kwargs, frame, node)
            if self.on_assembly is not None and node is not None:
                self.message_by_default_role(callee.info, args, kwargs, frame, node)
            return self.instantiate(callee.info, args, kwargs, frame, node)
        if isinstance(callee, Member):
            return self.call_member(callee, args, kwargs, frame, node)
        if isinstance(callee, Partial):
            return self.call(callee.func, [*callee.args, *args], {**dict(callee.kwargs), **kwargs}, frame, node)
        if isinstance(callee, Ref):
            return self.call_external(callee.qualname, args, kwargs, frame, node)
        if isinstance(callee, Instance):
            # `obj(...)` runs `type(obj).__call__` (a client or template object used as a function)
            method = self.class_attribute(callee.info, "__call__", frame, callee)
            if isinstance(method, FuncVal):
                return self.call_function(method, args, kwargs, frame, node)
        if isinstance(callee, Obj) and f"{callee.type}.__call__" in self.knowledge.apis:
            # A client called as a function (a legacy LangChain chat model's `llm(messages)`)
            return self.call_external(f"{callee.type}.__call__", args, kwargs, frame, node)
        return _in_window_of(callee, unknown(frame.module.snippet(node) if node else "call",
                                             frame.module.location(node) if node else None))

    def call_function(self, func: FuncVal, args: list[Value], kwargs: dict[str, Value], frame: Frame,
                      node: ast.Call | None) -> Value:
        where = frame.module.location(node) if node is not None else None
        if frame.depth >= MAX_DEPTH and not (frame.depth < MAX_DEPTH + HELPER_DEPTH and _small_helper(func.node)) \
                or id(func.node) in frame.stack:
            self._cuts += frame.depth >= MAX_DEPTH
            return unknown(f"{func.qualname}()", where)
        if isinstance(func.node, ast.Lambda):
            sub = Frame(func.module, dict(func.closure or {}), frame.depth + 1, frame.import_time,
                        func.self_value, func.qualname, stack=(*frame.stack, id(func.node)), function=func.node)
            self.bind_params(func.node, sub, args, kwargs, None)
            return self.eval(func.node.body, sub)
        if isinstance(func.self_value, Instance) and func.self_value.alternatives:
            return self.call_alternatives(func, args, kwargs, frame, node)
        if frame.depth == 0 and node is not None and self.on_assembly is not None and frame.function is not None:
            args, kwargs = self.derived_arguments(node, args, kwargs, frame.function, frame)
        # Overrides run only for a result that is used, a few frames down at most: most abstract
        # methods called are a framework's plumbing (`runtime.add_subscription(...)`), and each
        # run is a whole implementation (autogen: 1,767 calls, 10 % of the time, before the limits).
        if isinstance(func.self_value, Instance) and _is_stub(func.node) and node is not None \
                and id(node) != self._discarded and frame.depth <= OVERRIDE_DEPTH and not self.sends_requests(func):
            overridden = self.call_overrides(func, args, kwargs, frame, node)
            if overridden is not None:
                return overridden
        shares_self = func.self_value is not None and func.self_value is frame.self_value
        inherited = {k: v for k, v in frame.locals.items() if k.startswith("self.")} if shares_self else {}
        key = _call_key(func, frame, args, kwargs, inherited)
        stored = self._calls.get(key) if key is not None else None
        # A result computed deeper down, where the depth ran out below it, is not the answer for a
        # caller with more depth left (swarms renders its history four frames below one entry
        # and at the entry itself): computed again, and kept, for it.
        if stored is None or stored[1] is not None and stored[1] > frame.depth:
            cuts = self._cuts
            stored = (self.evaluate_call(func, frame, args, kwargs, inherited, node),
                      frame.depth if self._cuts != cuts else None)
            if key is not None:
                self._calls[key] = stored
        result, self_updates = stored[0]
        if where is not None:
            assert node is not None
            result = _window_at_call(result, func, Step(where, frame.module.snippet(node)),
                                     func.module.location(func.node))
            # In an entry, text a helper made is also marked where it came back (`knowledges =
            # kb_prompt(chunks)`): should the entry find it request-derived, that is its origin.
            result = add_step(result, Step(where, f"returned by `{func.qualname.rsplit('.', 1)[-1]}()`"),
                              unknown_too=self.on_assembly is not None)
        if shares_self:
            frame.locals.update(self_updates)  # what a method sets on `self` the caller sees afterwards
        elif isinstance(func.self_value, Instance) and self_updates and node is not None:
            result = self.updated_receiver(func.self_value, self_updates, result, node, frame)
        return result

    def registry_choice(self, registry: Mapping) -> Value | None:
        """`{"OLLAMA": Ollama(), "CLAUDE": Claude()}[model_enum]`: a registry of project objects
        read with a key the analysis does not know is any of them: the first, holding the others
        as alternatives that a method call runs too (`call_alternatives`). None for anything
        else (a registry of classes stays unknown: the calls on what it makes are judged where
        the prompt is handed over, as an inferred wrapper's, for every provider at once)."""
        choices = [value for key, value in registry.entries if key is not None]
        if not choices or not all(isinstance(value, Instance) for value in choices):
            return None
        first, *others = choices
        return replace(first, alternatives=tuple(others)) if others else first

    def call_alternatives(self, func: FuncVal, args: list[Value], kwargs: dict[str, Value], frame: Frame,
                          node: ast.Call | None) -> Value:
        """A method called on an object picked from a registry runs on whichever object it is:
        on each (a few at most), as an abstract method's overrides are, so that the provider
        that sends the prompt is among them; the result carrying volatile or request-derived
        content is kept, else the first that is known."""
        chosen = func.self_value
        assert isinstance(chosen, Instance)
        name = func.qualname.rsplit(".", 1)[-1]
        results = []
        for inst in (replace(chosen, alternatives=()), *chosen.alternatives)[:MAX_OVERRIDES]:
            method = self.class_attribute(inst.info, name, frame, inst)
            if isinstance(method, FuncVal):
                results.append(self.call_function(method, args, kwargs, frame, node))
        return _most_telling(results) if results else unknown(f"{func.qualname}()")

    def call_overrides(self, func: FuncVal, args: list[Value], kwargs: dict[str, Value], frame: Frame,
                       node: ast.Call | None) -> Value | None:
        """An abstract method called on an object typed as its class (`self.context_builder:
        ContextBuilder`, a provider base class) runs whichever project subclass the object is:
        each override is evaluated (a few at most), and the result that carries volatile or
        request-derived content is the one kept, else the first. None: no override found."""
        results = [self.call_function(override, args, kwargs, frame, node)
                   for override in self.overrides(func)[:MAX_OVERRIDES]]
        return _most_telling(results) if results else None

    def sends_requests(self, func: FuncVal) -> bool:
        """A method named like one that reaches an LLM call (a model client's `create`): its
        implementations are not run. The prompt handed to them is judged where it is handed over
        (inferred wrappers), what they return is a reply, and running each client, recorder and
        replayer of a framework costs a lot (autogen: 6 s to 20 s) for no finding of its own."""
        name = func.qualname.rsplit(".", 1)[-1]
        return name in self.knowledge.api_method_names or name in self.wrappers or \
            self.reaching_names is not None and name in self.reaching_names

    def overrides(self, func: FuncVal) -> list[FuncVal]:
        """The project's implementations of an abstract method, in the subclasses (and their
        subclasses, a few levels down) of the class that declares it."""
        owner_name, _, method = func.qualname.rpartition(".")
        found: list[FuncVal] = []
        for info, _ in self.subclasses_below(owner_name.rpartition(".")[2], owner_name):
            body = info.methods.get(method)
            if body is not None and not _is_stub(body):
                found.append(FuncVal(info.module, body, f"{info.qualname}.{method}",
                                     Instance(info, func.self_value.attrs)))
        return found

    def subclasses_below(self, name: str, qualname: str) -> Iterator[tuple[ClassInfo, list[ClassInfo]]]:
        """The project's subclasses of a class (its last name and qualified name), and theirs,
        OVERRIDE_LEVELS down, each with its classes in method resolution order; found anywhere in
        the project by the names of their bases, each checked to inherit from the class."""
        seen = {qualname}
        level = [name]
        for _ in range(OVERRIDE_LEVELS):
            below: list[str] = []
            for base in level:
                for path, class_name in self.project.subclass_candidates(base):
                    module = self.project.module_at(path)
                    info = module.classes.get(class_name) if module is not None else None
                    if self._names_read is not None:
                        self._names_read[path].add(class_name)
                    if info is None or info.qualname in seen:
                        continue
                    order = self.mro(info)
                    if not any(klass.qualname == qualname for klass in order[1:]):
                        continue
                    seen.add(info.qualname)
                    below.append(class_name)
                    yield info, order
            level = below

    def undefined_on_self(self, receiver: Value, func: ast.Attribute, callee: Value, frame: Frame) -> bool:
        """`self.name(...)`, a few frames down at most, where neither the object nor its classes
        define `name` (an attribute they set, `self.complete = complete`, would win at run time)."""
        return isinstance(receiver, Instance) and _plainly_unknown(callee) and frame.depth <= OVERRIDE_DEPTH \
            and isinstance(func.value, ast.Name) and func.value.id == "self" \
            and all(name != func.attr for name, _ in receiver.attrs) \
            and self.class_attribute(receiver.info, func.attr, frame, receiver) is None

    def mixed_in_method(self, inst: Instance, name: str) -> FuncVal | None:
        """A method a mixin calls on `self` and does not define (declared at most under `if
        TYPE_CHECKING:`, which defines nothing at run time): the one a project class that mixes
        it in gets from its other bases (`class Flow(ConversationalMixin, RuntimeFlow)`), run on
        an object of that class. The first such class found, a few levels of subclasses down."""
        key = (inst.info.qualname, name)
        if key not in self._mixed_in:
            self._mixed_in[key] = None
            for info, order in self.subclasses_below(inst.info.name, inst.info.qualname):
                provider = next((klass for klass in order
                                 if name in klass.methods and not _is_stub(klass.methods[name])), None)
                if provider is not None:
                    self._mixed_in[key] = FuncVal(provider.module, provider.methods[name],
                                                  f"{provider.qualname}.{name}", Instance(info, inst.attrs))
                    break
        return self._mixed_in[key]

    def conversation_read(self, node: ast.Call | None, result: Value, frame: Frame) -> Value:
        """What a method of the whole conversation so far returns (`history.build_context()`, the
        receiver a parameter named like it: rules/prompt_sinks.yaml conversation_inputs) grows with
        every turn: its holes are tagged, so a prompt built from it in another function (a context
        builder's result, formatted into the system prompt by the search method that called it)
        is per request there too. One item (`history.get(...)`, `history.pop()`) is not."""
        if node is None or frame.function is None or not isinstance(node.func, ast.Attribute) \
                or not isinstance(node.func.value, ast.Name) or node.func.attr in ONE_ITEM_METHODS:
            return result
        name = node.func.value.id
        if name not in self.knowledge.conversation_inputs or name not in parameter_names(frame.function) \
                or not holes_of(result):
            return result
        where, expression = frame.module.location(node), frame.module.snippet(node)
        return map_holes(result, lambda hole: tag_conversation_read(hole, {name}, where, expression))

    def updated_receiver(self, receiver: Instance, updates: dict[str, Value], result: Value, node: ast.Call,
                         frame: Frame) -> Value:
        """A method of another object that changes it (a builder's ``add_system_message(p)``
        appending to its list): the object the caller holds is that object from now on, and a
        method returning ``self`` returns it (``Builder().add_system(p).add_user(q).build()``)."""
        changed = {name[5:]: value for name, value in updates.items() if "." not in name[5:]}
        if not changed:
            return result
        attrs = tuple((name, changed.pop(name, value)) for name, value in receiver.attrs)
        updated = Instance(receiver.info, (*attrs, *changed.items()))
        held = node.func.value if isinstance(node.func, ast.Attribute) else None
        if isinstance(held, ast.Name) and frame.locals.get(held.id) is receiver:
            frame.locals[held.id] = updated  # `builder.add_user_message(q)` as a statement
        # (Equal, not only the same: a result remembered from a call on an equal object is that object.)
        return updated if isinstance(result, Instance) and result == receiver else result

    def derived_arguments(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value], function: ast.AST,
                          frame: Frame) -> tuple[list[Value], dict[str, Value]]:
        """An entry's arguments computed from the request's input (`sufficiency_select(question,
        evidence)` with `evidence = fit(question, docs)`): their unknown parts are tagged, so a
        prompt the helper builds from them knows they are per request (analysis/derived.py)."""
        inputs = self.user_turn_inputs(function)
        derived = self.derived(function, inputs) if inputs else set()
        if not derived:
            return args, kwargs
        named = frozenset(parameter_names(function) & self.knowledge.request_inputs)
        scope = frame.module.location(function)
        where = frame.module.location(node)

        def tagged(value: Value, expr: ast.expr) -> Value:
            # Text only: an object or a list handed over (`self`, the rounds of a chat) also holds
            # what the helper reads from it unchanged (a template loaded at start-up).
            if not isinstance(value, (Text, Unknown)) or \
                    not {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)} & derived:
                return value
            # A parameter that is the request's input (by its name, `plan(question)`, or by the
            # user turn it fills, agno's `input`) handed on as it is has no place of its own: it
            # is placed at the call that hands it over (where an inferred wrapper's slot view
            # places it too). Not the conversation (`messages`, `history`): its history is the
            # stable part.
            handed_as_is = isinstance(expr, ast.Name) and (expr.id in named or expr.id in inputs and not (
                expr.id in self.knowledge.conversation_inputs or _named_like_a_message_list(expr.id)))

            def tag(hole: Hole) -> Hole:
                placed = replace(hole, location=where) if hole.location is None and handed_as_is else hole
                marked = tag_request_derived(placed, derived, inputs, named, scope)
                return marked if marked is not placed else hole

            return map_holes(value, tag)

        positional = args if any(isinstance(expr, ast.Starred) for expr in node.args) else \
            [tagged(value, expr) for value, expr in zip(args, node.args)] + args[len(node.args):]
        by_name = {k.arg: k.value for k in node.keywords if k.arg}
        return positional, {name: tagged(value, by_name[name]) if name in by_name else value
                            for name, value in kwargs.items()}

    def evaluate_call(self, func: FuncVal, frame: Frame, args: list[Value], kwargs: dict[str, Value],
                      inherited: dict[str, Value], node: ast.Call | None = None) -> tuple[Value, dict[str, Value]]:
        """Evaluate a function body with bound arguments (memoized by the caller on its inputs)."""
        call_site = (frame.function, node) if frame.function is not None and node is not None else None
        sub = Frame(func.module, dict(func.closure or {}), frame.depth + 1, frame.import_time,
                    func.self_value, func.qualname, stack=(*frame.stack, id(func.node)), function=func.node,
                    first_turn=frame.first_turn, call_site=call_site)
        sub.locals.update(inherited)  # the same object: what the caller set on `self` is read here
        self.bind_params(func.node, sub, args, kwargs, func.self_value)
        self.bind_turn_state(func.node, sub)
        self.run_block(func.node.body, sub)
        if sub.depth <= COVERING_DEPTH:
            self.covered.add(id(func.node))
        yielded = sub.locals.get(YIELDED) if _is_generator(func.node) else None
        if isinstance(yielded, Seq) and any(is_turn(item) for item in yielded.items):
            result: Value = yielded  # a message builder: its messages, in order
        else:
            # A stream of events or chunks: not a list the analysis can count (a loop over it
            # runs its body once, for an unknown item).
            result = self.pick_return(sub.returns, func, sub.fallbacks)
        if self.is_memoized(func):
            result = cap_volatility(result, Volatility.PER_PROCESS,
                                    f"`{func.qualname}` is memoized: computed once per process")
        return result, {k: v for k, v in sub.locals.items() if k.startswith("self.")}

    def pick_return(self, returns: list[Value], func: FuncVal, fallbacks: set[int] | frozenset[int] = frozenset()
                    ) -> Value:
        """The value a call stands for: the first that holds volatile content, else the last. A
        placeholder for no data or a failure (`if not rows: return f"No rows for {q}"`) is not
        what a request gets when the function's main path returns content it computed."""
        if fallbacks and all(isinstance(returns[index], Text) for index in fallbacks):
            main = [value for index, value in enumerate(returns) if index not in fallbacks]
            if any(holes_of(value) for value in main):
                returns = main
        if not returns:
            return NONE
        for value in returns:
            if most_volatile(value):
                return value
        for value in reversed(returns):
            if not isinstance(value, NoneVal):
                return value
        return returns[-1]

    def is_memoized(self, func: FuncVal) -> bool:
        for decorator in getattr(func.node, "decorator_list", []):
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            path = _dotted(target)
            if not path:
                continue
            head = path.split(".")[0]
            if self._names_read is not None:
                self._names_read[func.module.path].add(head)
            full = func.module.imports.get(head, head) + path[len(head):]
            if full in self.knowledge.memoizers or path in ("cache", "lru_cache", "cached_property"):
                return True
        return False

    def bind_params(self, node: Any, frame: Frame, args: list[Value], kwargs: dict[str, Value],
                    self_value: Value | None, placeholders: bool = False) -> None:
        """``placeholders``: the arguments are not known (a constructor whose attributes are read,
        not a call): a parameter annotated with a type whose default is None takes its type, as a
        real caller passes the object (`store: Optional[Store] = None`)."""
        params = node.args
        positional = [*params.posonlyargs, *params.args]
        bound_args = list(args)
        if self_value is not None and positional and positional[0].arg in ("self", "cls"):
            frame.locals[positional[0].arg] = self_value
            positional = positional[1:]
        defaults = list(params.defaults)
        first_default = len(positional) - len(defaults)
        for index, param in enumerate(positional):
            if index < len(bound_args):
                frame.locals[param.arg] = bound_args[index]
            elif param.arg in kwargs:
                frame.locals[param.arg] = kwargs[param.arg]
            elif index >= first_default and frame.depth > 0 and not (
                    placeholders and _is_none(defaults[index - first_default]) and param.annotation is not None):
                frame.locals[param.arg] = self.eval(defaults[index - first_default], frame)
            else:
                frame.locals[param.arg] = self.param_value(param, frame)
        for param, default in zip(params.kwonlyargs, params.kw_defaults):
            if param.arg in kwargs:
                frame.locals[param.arg] = kwargs[param.arg]
            elif default is not None and frame.depth > 0 and not (
                    placeholders and _is_none(default) and param.annotation is not None):
                frame.locals[param.arg] = self.eval(default, frame)
            else:
                frame.locals[param.arg] = self.param_value(param, frame)
        if params.vararg:
            rest = bound_args[len(positional):]
            frame.locals[params.vararg.arg] = Seq(tuple(rest)) if frame.depth > 0 else \
                unknown(params.vararg.arg, frame.module.location(params.vararg))
        if params.kwarg:
            names = {p.arg for p in [*positional, *params.kwonlyargs]}
            extra = tuple((k, v) for k, v in kwargs.items() if k not in names)
            frame.locals[params.kwarg.arg] = Mapping(extra) if frame.depth > 0 else \
                unknown(params.kwarg.arg, frame.module.location(params.kwarg))

    def param_value(self, param: ast.arg, frame: Frame) -> Value:
        where = frame.module.location(param)
        if param.annotation is not None:
            annotated = self.annotated_type(param.annotation, frame)
            if annotated is not None:
                return annotated
        volatility = self.knowledge.identifier_names.get(param.arg.lower())
        if volatility is not None and not self.knowledge.is_stable_name(param.arg):
            return self.identifier(param.arg, volatility, where)
        # No location: an unknown parameter is placed where it enters the prompt text (should it
        # turn out to be request-derived, that is where the finding points).
        return unknown(param.arg, None)

    def annotated_type(self, annotation: ast.expr, frame: Frame) -> Value | None:
        """A parameter annotated with an LLM client class is such a client; one annotated with a
        framework's run context carries the run's state (rules/sources.yaml run_state)."""
        annotation = written_annotation(annotation)
        if annotation is None:
            return None
        if isinstance(annotation, ast.BinOp):  # X | None
            return self.annotated_type(annotation.left, frame)
        if isinstance(annotation, ast.Subscript):
            wrapper = annotation.value.attr if isinstance(annotation.value, ast.Attribute) else \
                getattr(annotation.value, "id", None)
            if wrapper in ("Optional", "Union"):  # Optional[Client], Union[Client, None]: the type
                options = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
                if any(isinstance(option, ast.Name) and option.id == "str" for option in options):
                    return None  # `Union[str, Message, ...]`: text as likely as any object (agno's run input)
                return next((found for option in options if not (isinstance(option, ast.Constant)
                                                                  and option.value is None)
                             if (found := self.annotated_type(option, frame)) is not None), None)
            return self.annotated_type(annotation.value, frame)  # Wrapper[Context]
        if not isinstance(annotation, (ast.Name, ast.Attribute)):
            return None
        return self.type_instance(self.eval(annotation, frame), frame)

    def type_instance(self, value: Value, frame: Frame) -> Value | None:
        """What a value of the evaluated type ``value`` is: a client, a run context, a project object."""
        if isinstance(value, Ref):
            kind = self.knowledge.types.get(value.qualname)
            if kind is not None:
                return Obj(kind)
            if value.qualname in self.knowledge.run_state or value.qualname in self.knowledge.request_system \
                    or value.qualname in self.knowledge.request_messages:
                # A framework's run context (see run_state), or the request a model callback rewrites (bind).
                return Obj(value.qualname)
        if isinstance(value, ClassVal) and value.info.qualname in self.knowledge.types:
            return Obj(self.knowledge.types[value.info.qualname])  # the library's own tree (semantic-kernel's)
        if isinstance(value, ClassVal) and value.info.qualname in self.knowledge.run_state:
            return Obj(value.info.qualname)  # a framework's run context, in the framework's own tree (agno's)
        if isinstance(value, ClassVal) and frame.depth < MAX_DEPTH:
            return Instance(value.info, typed=True)
        return None

    def request_conversation(self, base: Obj, attr: str, node: ast.AST | None, frame: Frame) -> Value | None:
        """The message list of a request a model callback receives (rules/prompt_sinks.yaml
        request_messages): the run's conversation so far, the same on every later call."""
        if attr not in self.knowledge.request_messages.get(base.type, ()) or node is None:
            return None
        return conversation(frame.module.snippet(node), frame.module.location(node))

    def callback_messages(self, frame: Frame, node: ast.AST, what: str, messages: Value) -> None:
        """A new message list a model callback gives the request: the framework sends it as it is,
        so it is judged in its own order."""
        self.message_list(frame, node, f"messages set by a model callback: `{what}`", messages)

    def run_state(self, base: Obj, attr: str, node: ast.AST | None, frame: Frame) -> Value | None:
        """An attribute of a framework's run context that holds the run's state: it changes between
        the model calls of one run (tools write it), and the callback reading it runs before every
        call, so it is born where it is read."""
        if attr not in self.knowledge.run_state.get(base.type, ()) or node is None:
            return None
        expression = frame.module.snippet(node)
        where = frame.module.location(node)
        return Unknown(Hole(Volatility.PER_REQUEST, expression, None,
                            origin=Origin(where, expression, RUN_STATE, Volatility.PER_REQUEST),
                            assumption=f"`{expression}` is the agent run's state: tools change it while the agent "
                                       f"runs, and the framework builds this text again for later model calls"))

    def graph_state(self, base: ast.expr, frame: Frame) -> str | None:
        """The name of ``base`` when it is the state a graph framework hands the node being run:
        the first parameter of a function, or the first after `self` of a method, registered as
        a node in its own module (rules/sources.yaml graph_nodes)."""
        function = frame.function
        if type(base) is not ast.Name or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        if self._made_by.get(id(function)) in self.node_factories:
            # A function a factory returned, the factory's result registered as a node elsewhere
            # (`workflow.add_node("Market Analyst", create_market_analyst(llm))`).
            first = function.args.posonlyargs or function.args.args
            return base.id if first and first[0].arg == base.id else None
        nodes = self.graph_nodes_of(frame.module)
        if not nodes:  # nearly every module
            return None
        arguments = function.args
        params = arguments.posonlyargs + arguments.args if arguments.posonlyargs else arguments.args
        if params and params[0].arg == base.id:
            node = function.name if frame.module.functions.get(function.name) is function else None
        elif len(params) > 1 and params[0].arg == "self" and params[1].arg == base.id:
            node = next((f"{name}.{function.name}" for name, klass in frame.module.classes.items()
                         if klass.methods.get(function.name) is function), None)
        else:
            return None
        return base.id if node is not None and node in nodes else None

    def graph_nodes_of(self, module: ModuleInfo) -> frozenset[str]:
        found = self._graph_nodes.get(module.name)
        if found is None:
            found = self._graph_nodes[module.name] = registered_nodes(module, self.knowledge.graph_nodes)
        return found

    def graph_state_read(self, base: ast.expr, node: ast.AST, key: str | None, frame: Frame) -> Value | None:
        """What ``node`` reads under ``key`` when ``base`` is the state a graph hands the node being
        run (`state.topic`, `state["section"]`, `state.get("brief")`): this run's own content, born
        where it is read. None otherwise, and for the message lists the state carries: they are the
        conversation, read as any other value."""
        if not key or key == "messages" or key.endswith("_messages") or key in self.knowledge.conversation_inputs:
            return None
        state = self.graph_state(base, frame)
        if state is None:
            return None
        expression = frame.module.snippet(node)
        where = frame.module.location(node)
        return Unknown(Hole(Volatility.PER_SESSION, expression, None,
                            origin=Origin(where, f"read from the graph's state `{state}`", DERIVED,
                                          Volatility.PER_SESSION),
                            assumption=f"`{expression}` is read from the state the graph hands this node: "
                                       f"it is this run's own content (the request, or what earlier nodes wrote), "
                                       f"different in every run"))

    def instantiate(self, info: ClassInfo, args: list[Value], kwargs: dict[str, Value], frame: Frame,
                    node: ast.Call | None) -> Value:
        if _subclasses_dict(info) and "__init__" not in info.methods:
            return templates.call_function(self, "dict", args, kwargs, frame, node) or Mapping(())
        instance = Instance(info)
        # The constructor may be inherited: it runs in the module of the class that defines it,
        # whose names it uses and where its lines are.
        owner = next((klass for klass in self.mro(info) if "__init__" in klass.methods), None)
        if owner is None:
            return self.instantiate_fields(info, args, kwargs, frame)
        init = owner.methods["__init__"]
        if frame.depth >= MAX_DEPTH or id(init) in frame.stack:
            self._cuts += frame.depth >= MAX_DEPTH
            return instance
        sub = Frame(owner.module, depth=frame.depth + 1, import_time=frame.import_time,
                    self_value=instance, qualname=f"{owner.qualname}.__init__", stack=(*frame.stack, id(init)))
        self.bind_params(init, sub, args, kwargs, instance)
        self.run_block(init.body, sub)
        attrs = tuple((name[5:], value) for name, value in sub.locals.items()
                      if name.startswith("self.") and "." not in name[5:])
        extra = _extra_keywords_stored(init)
        held = sub.locals.get(extra) if extra is not None else None
        if isinstance(held, Mapping):  # `for key, value in kwargs.items(): setattr(self, key, value)`
            attrs += tuple((key, value) for key, value in held.entries
                           if isinstance(key, str) and key.isidentifier() and all(key != name for name, _ in attrs))
        return Instance(info, attrs)

    def instantiate_fields(self, info: ClassInfo, args: list[Value], kwargs: dict[str, Value],
                           frame: Frame) -> Instance:
        """Dataclasses, pydantic models, NamedTuples: fields in declaration order, defaults and
        ``default_factory`` (called per instance, like the library does)."""
        attrs: list[tuple[str, Value]] = []
        fields = [(name, default, klass) for klass in reversed(self.mro(info))
                  for name, default in _declared_fields(klass)]
        positional = list(args)
        for index, (name, default, declared_in) in enumerate(fields):
            if index < len(positional):
                attrs.append((name, positional[index]))
            elif name in kwargs:
                attrs.append((name, kwargs[name]))
            elif default is not None:
                attrs.append((name, self.field_default(default, declared_in, frame)))
        return Instance(info, tuple(attrs))

    def field_default(self, default: ast.expr, info: ClassInfo, frame: Frame) -> Value:
        class_frame = Frame(info.module, depth=frame.depth + 1, import_time=frame.import_time,
                            stack=frame.stack)
        if isinstance(default, ast.Call):
            factory = next((k.value for k in default.keywords if k.arg == "default_factory"), None)
            if factory is not None:
                synthetic = ast.Call(func=factory, args=[], keywords=[])
                ast.copy_location(synthetic, factory)
                synthetic.end_lineno, synthetic.end_col_offset = factory.end_lineno, factory.end_col_offset
                return self.eval(synthetic, class_frame)
            explicit = next((k.value for k in default.keywords if k.arg == "default"), None)
            if explicit is not None:
                return self.eval(explicit, class_frame)
        return module_constant(self.eval(default, Frame(info.module, import_time=True, depth=frame.depth + 1)))

    def is_library_model(self, qualname: str) -> bool:
        """A chat template class (rules/prompt_sinks.yaml `chat_templates`), one of its message
        classes' ``from_template``, its ``MessagesPlaceholder``, or a client class the knowledge
        types (rules/llm_calls.yaml `types`, a Semantic Kernel `Kernel`), also where the project
        holds the library's code: the model says what they build (roles, placeholders, requests)."""
        owner = qualname.rsplit(".", 1)[0]
        module = owner.rsplit(".", 1)[0]
        return qualname in self.knowledge.chat_templates or qualname in self.knowledge.types or \
            qualname.endswith(".from_template") and owner.endswith(templates.ROLE_TEMPLATES) \
            and module + ".ChatPromptTemplate" in self.knowledge.chat_templates or \
            qualname.endswith(".MessagesPlaceholder") and owner + ".ChatPromptTemplate" in self.knowledge.chat_templates

    def call_member(self, member: Member, args: list[Value], kwargs: dict[str, Value], frame: Frame,
                    node: ast.Call | None) -> Value:
        owner = member.owner
        name = f"{owner.type}.{member.path}"
        self.assembly_call(name, args, kwargs, frame, node)
        if owner.type in (templates.KERNEL, templates.PROMPT_FUNCTION):
            return templates.semantic_kernel_method(self, owner, member.path, args, kwargs, frame, node)
        if name in self.knowledge.apis:
            self.report_sink(frame, node, name, args, kwargs, owner)
            return unknown(f"{name}() response", frame.module.location(node) if node else None)
        response = self.http_response(name, args, kwargs, frame, node)  # `httpx.AsyncClient().post(url, json=body)`
        if response is not None:
            return response
        if member.path in self.knowledge.chaining.get(owner.type, ()):
            if member.path == "bind_tools" and args:
                if name in self.knowledge.apis:
                    self.report_sink(frame, node, name, args, kwargs, owner)
                return Obj(owner.type, (*owner.fields, ("bound_tools", args[0])), owner.args)
            return owner
        if owner.type in ("langchain.prompt", "langchain.chain"):
            return templates.langchain_method(self, owner, member.path, args, kwargs, frame, node)
        return templates.object_method(self, owner, member.path, args, kwargs, frame, node)

    def call_external(self, qualname: str, args: list[Value], kwargs: dict[str, Value], frame: Frame,
                      node: ast.Call | None) -> Value:
        knowledge = self.knowledge
        where = frame.module.location(node) if node is not None else None
        if qualname.startswith("builtins."):
            qualname = qualname[9:]
        stand_in = self.stand_in_call(qualname, args, kwargs, frame)
        if stand_in is not None:
            return stand_in
        if qualname in knowledge.apis:
            self.report_sink(frame, node, qualname, args, kwargs, None)
            return unknown(f"{qualname}() response", where)
        response = self.http_response(qualname, args, kwargs, frame, node)
        if response is not None:
            return response
        fetched = self.fetched(qualname, args, kwargs, frame, node)
        if fetched is not None:
            return fetched
        self.assembly_call(qualname, args, kwargs, frame, node)
        source = knowledge.sources.get(qualname)
        if source is not None:
            return self.source_value(qualname, source, args, frame, node)
        type_name = self.client_type(qualname, args)
        if type_name is not None:
            return Obj(type_name, tuple(kwargs.items()), tuple(args))
        wrapped = self.wrapped_client(qualname, args, kwargs)
        if wrapped is not None:
            return wrapped
        if qualname in knowledge.sanitizers:
            return self.sanitize(qualname, args, frame, node)
        module_client = self.module_client_call(qualname)
        if module_client is not None:
            self.report_sink(frame, node, module_client, args, kwargs, None)
            return unknown(f"{qualname}() response", where)
        handled = templates.call_function(self, qualname, args, kwargs, frame, node)
        if handled is not None:
            return handled
        if qualname.rsplit(".", 1)[-1][:1].isupper():
            return Obj(qualname, tuple(kwargs.items()), tuple(args))  # a class: keep its fields
        if args or kwargs:
            # An unknown function of volatile text is volatile text (`textwrap.shorten(stamp)`); a
            # list of messages or a dict handed to an unknown call (a model, a token counter) does
            # not make what it returns carry their clock.
            volatile = [v for v in [*args, *kwargs.values()] if not is_structured(v) and most_volatile(v)]
            if volatile and qualname.split(".")[-1] not in ("print", "log", "info", "debug", "hash"):
                return self.join_unknown(node or ast.Pass(), frame, *volatile)
        return unknown(frame.module.snippet(node) if node is not None else qualname, where)

    def http_response(self, qualname: str, args: list[Value], kwargs: dict[str, Value], frame: Frame,
                      node: ast.Call | None) -> Value | None:
        """A POST to a provider's chat endpoint by a plain HTTP client (rules/llm_calls.yaml
        http_posts, http_requests, http_paths), reported as a request of the API the endpoint
        names, with the `json=` body's entries (or those of a dict sent as
        `data=json.dumps(body)`) as its keyword arguments: its response; None for any other call."""
        knowledge = self.knowledge
        if qualname in knowledge.http_posts:
            url = args[0] if args else kwargs.get("url")
        elif qualname in knowledge.http_requests:
            method = literal_text(args[0] if args else kwargs.get("method"))
            url = args[1] if len(args) > 1 else kwargs.get("url")
            if method is None or method.upper() != "POST":
                return None
        else:
            return None
        body = kwargs.get("json") if "json" in kwargs else self.dumped_body(node, frame)
        path = _url_path(url)
        callable_ = next((c for ending, c in knowledge.http_paths.items() if path and path.endswith(ending)), None)
        if callable_ is None or not isinstance(body, Mapping) or any(key is None for key, _ in body.entries):
            return None
        request = dict(body.entries)
        model_key = knowledge.apis[callable_].model
        if model_key and model_key not in request and (model := _url_model(url)) is not None:
            request[model_key] = model  # named in the URL (Gemini), not in the body
        self.report_sink(frame, node, callable_, [], request, None)
        return unknown(f"{qualname}() response", frame.module.location(node) if node is not None else None)

    def fetched(self, qualname: str, args: list[Value], kwargs: dict[str, Value], frame: Frame,
                node: ast.Call | None) -> Unknown | None:
        """A web request by a plain HTTP client (rules/sources.yaml `lookup_types`: `requests.get(url)`,
        `urlopen(Request(url))`) whose URL, query or body is not a constant: a page, a feed or an
        API's answer for what this request asks, new content on every request. How it is sent
        (headers, timeouts, credentials: `TRANSPORT_KEYS`) is no part of what is asked."""
        category = self.knowledge.lookup_types.get(qualname)
        if category is None:
            return None
        keys = [part for value in _asked(args, kwargs) for part in (  # a `Request(url, data=...)` object's own
            [*value.args, *(v for k, v in value.fields if k not in TRANSPORT_KEYS)] if isinstance(value, Obj) else [value])]
        if not any(holes_of(key) for key in keys):
            return None
        where = frame.module.location(node) if node is not None else None
        name = qualname.rsplit(".", 1)[-1]
        snippet = frame.module.snippet(node) if node is not None else qualname
        return Unknown(Hole(Volatility.PER_REQUEST, snippet, None,
                            origin=Origin(where, f"{name}()", category, Volatility.PER_REQUEST),
                            assumption=f"`{name}()` is a web request for what this request asks: what it "
                                       "returns changes with what is asked"))

    def dumped_body(self, node: ast.Call | None, frame: Frame) -> Value | None:
        """The dict a request body is serialized from: `data=json.dumps(body)`,
        `content=json.dumps(body).encode()`, a name or an attribute read again (the call's
        evaluated argument is already text)."""
        keyword = next((k.value for k in node.keywords if k.arg in ("data", "content")), None) if node else None
        if isinstance(keyword, ast.Call) and isinstance(keyword.func, ast.Attribute) and keyword.func.attr == "encode":
            keyword = keyword.func.value
        if not isinstance(keyword, ast.Call) or _dotted(keyword.func) != "json.dumps" or not keyword.args \
                or not isinstance(keyword.args[0], (ast.Name, ast.Attribute)):
            return None
        return self.eval(keyword.args[0], frame)

    def module_client_call(self, qualname: str) -> str | None:
        # `import openai; openai.chat.completions.create(...)`: the module acts as a client (also
        # a drop-in replacement module: `from langfuse.openai import openai`).
        dot = qualname.find(".")
        while dot > 0:
            kind = self.knowledge.types.get(qualname[:dot])
            if kind and f"{kind}{qualname[dot:]}" in self.knowledge.apis:
                return f"{kind}{qualname[dot:]}"
            dot = qualname.find(".", dot + 1)
        return None

    def wrapped_client(self, qualname: str, args: list[Value], kwargs: dict[str, Value]) -> Obj | None:
        """The client a wrapper gives back (rules/llm_calls.yaml client_wrappers): instructor's
        ``from_openai(OpenAI())`` sends the same requests as the client it wraps."""
        for spec in self.knowledge.client_wrappers.get(qualname, ()):
            client = argument(spec, args, kwargs, None)
            if isinstance(client, Obj) and client.type in self.knowledge.client_types:
                return client
        return None

    def client_type(self, qualname: str, args: list[Value]) -> str | None:
        types = self.knowledge.types
        if args:
            first = literal_text(args[0])
            if first is not None and f"{qualname}({first})" in types:
                return types[f"{qualname}({first})"]
        kind = types.get(qualname)
        if kind is not None and "." in qualname:
            return kind
        return None

    def source_value(self, qualname: str, source: Any, args: list[Value], frame: Frame,
                     node: ast.Call | None) -> Value:
        where = frame.module.location(node) if node is not None else None
        volatility = source.volatility
        assumption = None
        if volatility is Volatility.UNKNOWN:
            return unknown(qualname, where)
        if frame.import_time and volatility is not Volatility.PER_PROCESS and not source.via_next \
                and source.category != "dir-order":  # a listing's order is the machine's, not the process's
            # (a counter object made at import still yields a new value on every next())
            volatility = Volatility.PER_PROCESS
            assumption = "evaluated once at import time"
        if qualname == "time.strftime" and args:
            fmt = literal_text(args[0]) or ""
            if fmt and not any(d in fmt for d in TIME_DIRECTIVES) and not frame.import_time:
                volatility = Volatility.PER_DAY
        origin = Origin(where, qualname, source.category, volatility) if where else None
        snippet = frame.module.snippet(node) if node is not None else qualname
        hole = Hole(volatility, snippet, None, origin=origin, assumption=assumption)
        if source.mutates is not None and node is not None and len(node.args) > source.mutates:
            target = node.args[source.mutates]
            current = self.eval(target, frame)
            if isinstance(current, Seq):
                self.bind(target, Seq(current.items, hole), frame, step=False)
            else:
                self.bind(target, Unknown(hole), frame, step=False)
            return NONE
        if source.category in ("sample", "shuffle") and args and isinstance(args[0], Seq):
            return Seq(args[0].items, hole)
        if source.via_next:
            return Obj("counter", (("value", Unknown(hole)),))
        return Unknown(hole)

    def sanitize(self, qualname: str, args: list[Value], frame: Frame, node: ast.Call | None) -> Value:
        if not args:
            return unknown(qualname)
        value = args[0]
        removes = self.knowledge.sanitizers[qualname]
        if Volatility.ORDER_UNSTABLE in removes:
            value = drop_order(value)
            if isinstance(value, Seq) and all(literal_text(i) is not None for i in value.items):
                value = Seq(tuple(sorted(value.items, key=lambda i: literal_text(i) or "")))
        if qualname in ("len", "min", "max", "sum"):
            hole = most_volatile(value)
            return Unknown(hole) if hole else unknown(qualname, frame.module.location(node) if node else None)
        return value

    # --- assembly points (rules/prompt_sinks.yaml) ---------------------------------------------

    def inserted_message(self, frame: Frame, node: ast.Call, target: ast.expr, receiver: Value,
                         message: Value) -> None:
        """``messages.insert(1, {"role": "system", "content": memories})``: a system message put
        into a message list ahead of what it already holds. The messages after it are there, not
        assumed: they are the history the insert shifts. An insert at the end (``len(messages)``)
        or into an empty list adds the last message, and a literal list's own order is judged
        where it is sent. The message may be a dict or a framework's message object built with a
        role (``llm.ChatMessage(role="system", content=[docs])``)."""
        if not isinstance(message, (Mapping, Obj)):
            return
        get = message.get if isinstance(message, Mapping) else message.field
        role = next((value for key in self.knowledge.role_keys if (value := get(key)) is not None), None)
        if role is None or not self.is_system_role(role):
            return
        index = node.args[0] if node.args else None
        if isinstance(receiver, Seq) or index is None or any(
                isinstance(n, ast.Call) and getattr(n.func, "id", None) == "len" for n in ast.walk(index)):
            return
        rest = frame.module.snippet(target)
        after = Hole(Volatility.UNKNOWN, f"the messages already in `{rest}`", frame.module.location(target),
                     is_history=True)
        self.assembled(frame, node, f"inserted into `{rest}`", self.message_text(get, []),
                       messages=Seq((Splice(after),)))

    def message_by_default_role(self, info: ClassInfo, args: list[Value], kwargs: dict[str, Value], frame: Frame,
                                node: ast.Call) -> None:
        """A project message class whose role is a field default (onyx's ``class
        UserMessage(BaseModel): role: Literal["user"] = "user"``): each instance is a message of
        that role, judged where it is built, like a ``role=`` keyword."""
        if any(key in kwargs for key in self.knowledge.role_keys):
            return  # `role=` given: judged by its shape (assembly_by_shape)
        role = self.default_role(info)
        if role is None:
            return
        text = self.message_text(kwargs.get, args)
        what = f"{info.name}() (role {role!r} by default)"
        if role in self.knowledge.system_roles:
            self.assembled(frame, node, what, text, messages=self.history_written_after(frame, node))
        elif role in self.knowledge.user_roles:
            self.user_turn(frame, self.content_node(node), what, text)

    def default_role(self, info: ClassInfo) -> str | None:
        for klass in self.mro(info):
            for name, default in _declared_fields(klass):
                if name in self.knowledge.role_keys and isinstance(default, ast.Constant) \
                        and isinstance(default.value, str):
                    return default.value.lower()
        return None

    def is_system_role(self, role: Value) -> bool:
        """``"system"``, ``"developer"``, an enum member ending in one (``MessageRole.SYSTEM``), or
        a setting we cannot read named for the system role (``agent.system_message_role``:
        knowledge.SYSTEM_ROLE_SETTING)."""
        word = _role_word(role)
        return word in self.knowledge.system_roles or isinstance(role, Unknown) and word is not None \
            and SYSTEM_ROLE_SETTING.fullmatch(word) is not None

    def is_user_role(self, role: Value) -> bool:
        return _role_word(role) in self.knowledge.user_roles

    def content_node(self, call: ast.Call) -> ast.AST:
        """The argument holding a message constructor's text (``content=``, else the first
        positional one), where its finding points; the call itself when there is none."""
        return next((n for key in self.knowledge.content_keys if (n := _slot_node(call, "=" + key)) is not None),
                    _slot_node(call, "#0") or call)

    def user_turn(self, frame: Frame, node: ast.AST, what: str, text: Value | None, via: Via | None = None) -> None:
        """A user message built here, ``node`` its content: judged on its own as the final turn
        (PC010), since a user message written in code is the request's new turn."""
        if self.on_user_turn is not None and text is not None and not isinstance(text, NoneVal):
            self.on_user_turn(frame, node, what, text, via)

    def message_text(self, get: Callable[[str], Value | None], args: list[Value]) -> Value | None:
        for key in self.knowledge.content_keys:
            value = get(key)
            if value is not None:
                return value
        return args[0] if args else None

    def assembly_by_shape(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value], frame: Frame,
                          callee: Value | None = None) -> None:
        """Assembly points recognised at any call, resolved or not: a `role=` system message, a
        call to an inferred wrapper, or a call passing a `system_prompt=`-like keyword. A wrapper
        call whose callee is known (a project object's method) keeps only the name's slots at the
        arguments that definition itself passes on: the name's slots are those of every
        definition of that name."""
        # Every call passes here, most without keywords: those skip the keyword scans.
        role_key = next((k for k in self.knowledge.role_keys if k in kwargs), None) if kwargs else None
        if role_key is not None and self.is_system_role(kwargs[role_key]):
            self.assembled(frame, node, f"{role_key}= keyword", self.message_text(kwargs.get, args),
                           messages=self.history_written_after(frame, node))
        elif role_key is not None and self.is_user_role(kwargs[role_key]):
            self.user_turn(frame, self.content_node(node), f"{role_key}= keyword", self.message_text(kwargs.get, args))
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if called is None:
            return
        dispatched = self.dispatched_slots(callee) if isinstance(callee, FuncVal) else None
        if dispatched is not None:
            self.wrapper_arguments(called, dispatched, args, kwargs, frame, node)
            return
        if called in self.wrappers and any(slot[0] in "smuo" for slot in self.wrappers[called]):
            slots = self.wrappers[called]
            own = self.own_slots(callee) if isinstance(callee, FuncVal) else None
            if own is not None:  # only the arguments this definition passes on
                slots = frozenset(slot for slot in slots if slot[1:] in {mine[1:] for mine in own}) or slots
            self.wrapper_arguments(called, slots, args, kwargs, frame, node)
            return
        named = [k for k in self.knowledge.system_keywords if k in kwargs] if kwargs else None
        if named:  # `model_func(query, system_prompt=...)`: a model function chosen at runtime
            slots = {f"s={k}" for k in named} | {("u" + (a if a[0] == "#" else f"={a}"))
                                                 for a in self.knowledge.user_arguments}
            if "messages" in kwargs:
                # `LlmRequest(messages=..., system_prompt=...)`: one request, with its history.
                slots.add("m=messages")
            elif called[:1].isupper():  # `SessionParams(system_prompt=...)`: built once for a session
                kwargs = {k: cap_volatility(v, Volatility.PER_SESSION, f"`{called}` is built once for a session")
                          if k in named else v for k, v in kwargs.items()}
            self.wrapper_arguments(called, frozenset(slots), args, kwargs, frame, node)

    def assembly_call(self, qualname: str, args: list[Value], kwargs: dict[str, Value], frame: Frame,
                      node: ast.Call | None) -> None:
        """A system-message constructor or an agent constructor taking instructions."""
        if self.on_assembly is None or node is None:
            return
        short = qualname.rsplit(".", 1)[-1]
        if qualname in self.knowledge.system_messages:
            found = [argument(a, args, kwargs, None) for a in self.knowledge.system_messages[qualname]]
            text = next((v for v in found if v is not None), None)
            self.assembled(frame, node, f"{short}()", text, messages=self.history_written_after(frame, node))
        elif qualname in self.knowledge.user_messages:
            found = [(a, v) for a in self.knowledge.user_messages[qualname]
                     if (v := argument(a, args, kwargs, None)) is not None]
            if found:
                slot = found[0][0] if found[0][0].startswith("#") else "=" + found[0][0]
                self.user_turn(frame, _slot_node(node, slot) or node, f"{short}()", found[0][1])
        elif qualname in self.knowledge.agent_instructions or qualname in self.knowledge.agent_settings:
            given = [v for a in self.knowledge.agent_instructions.get(qualname, ())
                     if (v := argument(a, args, kwargs, None)) is not None and not isinstance(v, NoneVal)]
            pieces = [self.instructions_piece(v, short, frame) for v in given]
            pieces += self.agent_setting_content(qualname, short, frame, node)
            if pieces:
                text = pieces[0] if len(pieces) == 1 else Seq(tuple(pieces))
                # A function given as the instructions is asked again before every model call of a
                # run, with the run's steps (tool calls and their results) sent after what it returns.
                replayed = self.replayed_history(qualname, short, node) or (
                    conversation(f"the run's steps, which `{short}` sends after the instructions it asks for")
                    if any(isinstance(v, FuncVal) for v in given) else None)
                self.assembled(frame, node, f"{short}() instructions", text, messages=replayed)

    @staticmethod
    def history_written_after(frame: Frame, node: ast.AST) -> Value | None:
        """The conversation the function copies after this system message in its list
        (`formatted.append(system)`, then each of `messages` with its own role): known to follow."""
        if frame.function is None:
            return None
        source = history_after(frame.function, node)
        if source is None and frame.call_site is not None and id(node) in returned_messages(frame.function):
            caller, call = frame.call_site
            source = history_after(caller, call)
            if source is not None:
                name = getattr(caller, "name", "the caller")
                return conversation(f"the messages `{name}` copies after it from `{source}`")
        return None if source is None else conversation(f"the messages copied after it from `{source}`")

    def agent_setting_content(self, qualname: str, agent: str, frame: Frame, node: ast.Call) -> list[Value]:
        """What a framework writes after the instructions when a setting is on (agno's
        `add_datetime_to_context=True`), born at the keyword: the agent builds its system prompt
        again before every run, so the content has the setting's own volatility, uncapped."""
        settings = self.knowledge.agent_settings.get(qualname, {})
        content: list[Value] = []
        for keyword in node.keywords:
            setting = settings.get(keyword.arg or "")
            if setting is None or _flag(keyword.value) is not True \
                    or (setting.unless is not None and _literal_flag(node, setting.unless) is False):
                continue
            where = frame.module.location(keyword.value)
            expression = f"{keyword.arg}=True"
            origin = Origin(where, f"{agent}({expression})", setting.category, setting.volatility, setting.fix)
            content.append(Unknown(Hole(setting.volatility, expression, where, origin=origin,
                                        assumption=f"`{agent}` writes {setting.text} into the system prompt "
                                                   f"it builds before every run")))
        return content

    def replayed_history(self, qualname: str, agent: str, node: ast.Call) -> Value | None:
        """The conversation an agent replays after its system prompt, when one of the settings
        that turn history on is a literal True (`add_history_to_context=True`)."""
        _, when = self.knowledge.history_windows.get(qualname, ((), ()))
        if not any(_literal_flag(node, keyword) is True for keyword in when):
            return None
        return conversation(f"the conversation `{agent}` replays after it")

    def instructions_piece(self, value: Value, agent: str, frame: Frame) -> Value:
        """One argument of an agent constructor, as the system text it becomes. A function passed
        as the instructions (an ADK instruction provider, a dynamic-instructions callable) is
        called by the framework before every model call, so what it returns is judged as it is,
        never as import-time code even where the agent is built at module level; text given
        directly is built once with the agent and serves a whole conversation."""
        if isinstance(value, FuncVal) and frame.depth < MAX_DEPTH:
            return self.call_function(value, [], {}, replace(frame, import_time=False), None)
        return cap_volatility(value, Volatility.PER_SESSION,
                              f"`{agent}` is built once and keeps its instructions for a conversation")

    def dispatched_slots(self, func: FuncVal) -> frozenset[str] | None:
        """A stub method called on an object typed as its project base class (`llm: ChatLLM`,
        `self.llm.stream(messages)`): the slots of the overrides project subclasses give it, any
        of which may run, whatever the name's other definitions say (kotaemon has twenty-one
        `stream` methods, three of them models'). None when the callee is no such stub or no
        override judges anything."""
        if not isinstance(func.self_value, Instance) or not _is_stub(func.node):
            return None
        key = id(func.node)  # the overrides depend on the declaring class, not on the object
        if key not in self._dispatched:
            found: set[str] = set()
            for override in self.overrides(func)[:MAX_OVERRIDES]:
                found |= self.own_slots(override) or set()
            self._dispatched[key] = frozenset(found) if any(slot[0] in "smuo" for slot in found) else None
        return self._dispatched[key]

    def own_slots(self, func: FuncVal) -> frozenset[str] | None:
        """The wrapper slots of this one definition (a method the call resolves to), from its own
        parameter flows and the slots the names it calls have; None when it has none that judge
        anything (its name's slots come from other definitions, or it reaches the call another way)."""
        node = func.node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        if id(node) not in self._own_slots:
            if self._shapes is None:
                self._shapes = sink_shapes(self.knowledge)
                self._slot_sets = {name: set(slots) for name, slots in self.wrappers.items()}
            own = frozenset(flow_slots(self.parameter_flows(node, func.self_value is not None), self._slot_sets))
            self._own_slots[id(node)] = own if any(slot[0] in "smuo" for slot in own) else None
        return self._own_slots[id(node)]

    def parameter_flows(self, node: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> tuple[Flow, ...]:
        """summaries.parameter_flows of a definition, kept on it for the worker's later entries
        (strings only: it outlives the body, index.DURABLE_NODE_MEMOS) under the knowledge it
        was computed with."""
        kept = node.__dict__.get(FLOWS_MEMO)
        if kept is None or kept[0] is not self.knowledge or kept[1] != method:
            assert self._shapes is not None
            kept = node.__dict__[FLOWS_MEMO] = (self.knowledge, method, parameter_flows(node, method, self._shapes))
        return kept[2]  # type: ignore[no-any-return]

    def slot_value(self, slot: str, args: list[Value], kwargs: dict[str, Value], frame: Frame) -> Value | None:
        """The value a wrapper call hands over in a slot; for a slot the callee reads from an
        attribute of its argument (``s#0.system``), that attribute of the object given."""
        value = _slot_value(slot, args, kwargs)
        attribute = _slot_attribute(slot)
        return self.attribute(value, attribute, frame, None) if value is not None and attribute else value

    def wrapper_arguments(self, name: str, wrapper_slots: frozenset[str], args: list[Value], kwargs: dict[str, Value],
                          frame: Frame, node: ast.Call) -> None:
        """A call to an inferred wrapper: the value in a slot that becomes system content further
        down is judged here, where it is known (the callee may be chosen at runtime); what the
        call passes as the user's turn tells which of its unknown parts are request-derived."""
        # A callee reading attributes of an argument (`s#0.system`) is judged for those, not for the
        # whole object (`s#0`, kept in the table so that callers handing the object on are wrappers).
        slots = sorted(slot for slot in wrapper_slots
                       if not any(other.startswith(f"{slot}.") for other in wrapper_slots))
        system_slots = {slot[1:] for slot in slots if slot[0] in "so"}
        written, known = written_names(node.args), set(slots)
        user_slots = {slot for slot in slots if slot[0] == "u" and _slot_node(node, slot[1:]) is not None
                      and (slot[1] != "#" or positional_slot_applies("u", f"{slot[2:]}{written}", known))}
        # A slot that is system text in some implementations and the user's turn in others (a
        # provider without system messages makes `_system_msg(text)` a user message) is system
        # text when the call hands the user's turn or the messages in another argument:
        # `aask(req, system_msgs=[p])` sends `p` ahead of `req` either way.
        if any(slot[0] in "um" and slot[1:] not in system_slots and _slot_node(node, slot[1:]) is not None
               for slot in slots):
            user_slots = {slot for slot in user_slots if slot[1:] not in system_slots}
        user_expressions = [expr for slot in sorted(user_slots) if (expr := _slot_node(node, slot[1:])) is not None]
        inputs = input_names([ast.unparse(expr) for expr in user_expressions])
        if not user_expressions and frame.function is not None:
            inputs = self.user_turn_inputs(frame.function)  # `.add_system_message(p).add_user_message(q)`
        derived = self.derived(frame.function, inputs) if inputs and frame.function is not None else set()
        # The message list the same call hands over (`provider.chat(system, history)`): it follows
        # the system text, so the history after it is known rather than assumed.
        # Only a list built here counts: a slot inferred from `messages=[{"role": "user", "content": q}]`
        # in the callee takes a message's text, not the list.
        messages = next((value for slot in slots if slot[0] == "m" and slot[1:] not in system_slots
                         and isinstance(value := self.slot_value(slot, args, kwargs, frame), Seq)), None)
        if messages is None and any(slot[0] == "h" for slot in slots):
            # The callee writes the text over the head of the list it keeps (`self.messages[0] =
            # {"role": "system", ...}`): the conversation in that list follows it.
            messages = conversation(f"the messages `{name}()` keeps after it")
        # The model the call names for the LLM call further down (an "n" slot), for the estimate.
        via = Via(name, next((model for slot in slots if slot[0] == "n"
                              and (model := literal_text(self.slot_value(slot, args, kwargs, frame))) is not None
                              and _names_a_model(model)), None))
        for slot in slots:
            if slot[0] == "m":
                if slot[1:] not in system_slots or _is_message_list(self.slot_value(slot, args, kwargs, frame)):
                    # Else a list of system texts (`aask(req, system_msgs=[prompt])`), each made a
                    # system message further down: judged as system content, not as the request.
                    self.wrapper_messages(name, slot, args, kwargs, frame, node, via)
                continue
            if slot[0] == "u":
                if slot not in user_slots:
                    continue
                text = self.slot_value(slot, args, kwargs, frame)
                if text is not None and not is_structured(text):  # a whole message list is not the turn's text
                    self.user_turn(frame, _slot_node(node, slot[1:]) or node, f"user text passed to {name}()", text,
                                   via)
                continue
            if slot[0] not in "so" or slot[0] == "o" and f"s{slot[1:]}" in wrapper_slots:
                continue
            if _slot_node(node, slot[1:]) in user_expressions:
                continue  # the same argument is the user's turn too: no earlier-than-its-input to judge
            value = self.slot_value(slot, args, kwargs, frame)
            if value is not None and (derived or most_volatile(value) is not None):
                argument = _slot_node(node, slot[1:])
                computed = argument is not None and frame.function is not None and \
                    bool(input_names([ast.unparse(argument)]) & derived)
                others = (local_names(frame.function) - derived) if computed and frame.function is not None else None
                outer_turn = frame.first_turn
                if slot[0] == "o" and outer_turn is None:  # set only by the callee's first-call branch
                    frame.first_turn = f"`{name}()`'s first-call branch"
                self.assembled(frame, node, f"{PASSED_TO}{name}()", value, derived, inputs, others,
                               messages, via)
                frame.first_turn = outer_turn

    def message_list(self, frame: Frame, node: ast.AST, what: str, messages: Value | None,
                     via: Via | None = None, tools: Value | None = None) -> None:
        """A whole message list judged in its own order where it is built: handed to a wrapper that
        sends it, or rendered from a chat template (LangChain's ``format_prompt``)."""
        if self.on_messages is not None and isinstance(messages, Seq) and messages.items \
                and (most_volatile(messages) is not None or tools is not None and most_volatile(tools) is not None
                     or self.sent_with_a_window(messages, frame)):
            self.on_messages(frame, node, what, messages, via, tools)

    def sent_with_a_window(self, messages: Seq, frame: Frame) -> bool:
        """A list that opens with its system message, so it is the whole request in its order, and
        holds a window of the conversation (the latest items of a list). A list of new messages
        alone, or a window with no system message before it, may be a batch the callee appends to
        a history it keeps, or a one-off request that shares no prefix with the others."""
        first = messages.items[0]
        # A message object's role by its class's name too (kotaemon's `SystemMessage(content=...)`).
        named = Obj(first.info.qualname) if isinstance(first, Instance) else first if isinstance(first, Obj) else None
        system = self.opens_with_system(first, frame) \
            or named is not None and templates.message_role(named) == "system"
        return system and any(hole.window is not None for hole in holes_of(messages))

    def wrapper_messages(self, name: str, slot: str, args: list[Value], kwargs: dict[str, Value],
                         frame: Frame, node: ast.Call, via: Via | None = None) -> None:
        """A message list handed to a wrapper whose parameter becomes an LLM call's messages
        (``provider.chat_completion(messages)``): judged here, where the list is built."""
        self.message_list(frame, node, f"messages passed to {name}()", self.slot_value(slot, args, kwargs, frame), via,
                          kwargs.get("tools"))

    def assembled(self, frame: Frame, node: ast.AST, what: str, text: Value | None,
                  derived: set[str] | None = None, inputs: set[str] | None = None,
                  computed_by: set[str] | None = None, messages: Value | None = None,
                  via: Via | None = None) -> None:
        if self.on_assembly is None or text is None or isinstance(text, NoneVal):
            return
        if inputs is None and frame.function is not None:
            # A system message built next to the user's message: what that message is made of is
            # the request's input here (`[{"role": "system", ...}, {"role": "user", "content": q}]`).
            inputs = self.user_turn_inputs(frame.function)
            derived = self.derived(frame.function, inputs) if inputs else set()
        self.on_assembly(frame, node, what, text, derived or set(), inputs or set(), computed_by, messages, via)

    @staticmethod
    def derived(function: ast.AST, inputs: set[str]) -> set[str]:
        """Kept on the definition, per set of inputs: a pure function of its syntax."""
        memo = function.__dict__.setdefault("_derived_names", {})
        key = frozenset(inputs)
        if key not in memo:
            memo[key] = frozenset(derived_names(function, inputs))
        return set(memo[key])

    def user_turn_inputs(self, function: ast.AST) -> frozenset[str]:
        key = id(function)
        if key not in self._user_inputs:
            if self._user_makers is None:
                self._user_makers = {name.rsplit(".", 1)[-1]: ("#0",) for name in self.knowledge.user_messages}
                self._user_makers.update((name, tuple(slot[1:] for slot in slots if slot[0] == "u"))
                                         for name, slots in self.wrappers.items()
                                         if any(slot[0] == "u" for slot in slots))
            # Kept on the definition for the next entry, which mostly has the same wrappers.
            known = function.__dict__.get(USER_INPUTS_ATTRIBUTE)
            if known is None or known[0] is not self.knowledge or known[1] != self._user_makers:
                # `def answer(question)`, or `user_question = text_of(messages[-1])` in the body
                named = (parameter_names(function) | assigned_names(function)) & self.knowledge.request_inputs
                known = (self.knowledge, self._user_makers, frozenset(named | user_turn_names(
                    function, self.knowledge.user_roles, self.knowledge.content_keys, self._user_makers,
                    self.knowledge.role_keys)))
                setattr(function, USER_INPUTS_ATTRIBUTE, known)
            self._user_inputs[key] = known[2]
        return self._user_inputs[key]

    def report_sink(self, frame: Frame, node: ast.Call | None, name: str, args: list[Value],
                    kwargs: dict[str, Value], owner: Obj | None) -> None:
        if node is not None:
            self._sent.add(id(node))
            self.on_sink(frame, node, name, args, kwargs, owner)

    # --- templates and clocks ----------------------------------------------------------------

    def render_template(self, template: TemplateVal, kwargs: dict[str, Value], node: ast.AST | None) -> Value:
        return templates.render(self, template, kwargs, node)

    def refine_clock(self, value: Unknown, spec: str) -> Value:
        """``f"{now:%Y-%m-%d}"``: a date without time changes once a day."""
        hole = value.hole
        if hole.category == "clock" and spec and "%" in spec and not any(d in spec for d in TIME_DIRECTIVES):
            return Unknown(replace(hole, volatility=Volatility.PER_DAY))
        return value

    def refine_clock_attribute(self, value: Unknown, attr: str) -> Value:
        """``now.date`` / ``now.year`` change at most once a day; other attributes as often as ``now``."""
        hole = value.hole
        if hole.category in ("clock", "date") and hole.volatility is Volatility.PER_REQUEST and \
                attr in ("date", "year", "month", "day", "weekday", "isoweekday", "isocalendar"):
            return Unknown(replace(hole, volatility=Volatility.PER_DAY))
        return value

    def with_order_taint(self, value: Value, taint: Hole) -> Value:
        if isinstance(value, Text):
            return Text((taint, *value.segs))
        return value


def _role_word(role: Value) -> str | None:
    """A message role as written: ``"user"``, or the last name of an enum member (``MessageRole.USER``)."""
    text = literal_text(role)
    if text is None and isinstance(role, Ref):
        text = role.qualname.rsplit(".", 1)[-1]
    elif text is None and isinstance(role, Unknown):
        text = role.hole.expression.rsplit(".", 1)[-1]
    return text.lower() if text is not None else None


def module_constant(value: Value) -> Value:
    """A module-level (or class-level) value is computed once: what we cannot read is stable."""

    def change(hole: Hole) -> Hole:
        if hole.volatility is Volatility.UNKNOWN and not hole.is_history:
            return replace(hole, volatility=Volatility.STABLE)
        return hole

    return map_holes(value, change)


MAX_REPEAT_SEGMENTS = 10_000


def _repeat(value: Value, count: Value) -> Value | None:
    """``"text" * 3`` / ``[x] * 3``; numbers multiply, and huge repetitions stay unknown."""
    times = literal_text(count) if isinstance(count, Number) else None
    if times is None or not times.isdigit() or isinstance(value, Number):
        return None
    if isinstance(value, Text) and len(value.segs) * int(times) <= MAX_REPEAT_SEGMENTS:
        return Text(value.segs * int(times))
    if isinstance(value, Seq) and len(value.items) * int(times) <= MAX_REPEAT_SEGMENTS:
        return Seq(value.items * int(times), value.order)
    return None


def _literal_flag(call: ast.Call, keyword: str) -> bool | None:
    """The literal `True`/`False` a call passes for a keyword; None when it passes anything else."""
    return _flag(next((k.value for k in call.keywords if k.arg == keyword), None))


def _flag(value: ast.expr | None) -> bool | None:
    return value.value if isinstance(value, ast.Constant) and isinstance(value.value, bool) else None


def _slot_node(call: ast.Call, slot: str) -> ast.expr | None:
    """The argument expression of a call in a slot (``#0`` position or ``=name`` keyword)."""
    place = slot[1:].partition(".")[0]  # `#0.system`: the object the attribute is read from
    if slot.startswith("#"):
        index = int(place)
        positional = call.args[index] if index < len(call.args) else None
        return None if isinstance(positional, ast.Starred) else positional
    return next((k.value for k in call.keywords if k.arg == place), None)


def _parameter_annotation(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> ast.expr | None:
    arguments = function.args
    return next((a.annotation for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
                 if a.arg == name), None)


MAX_OVERRIDES = 4  # implementations of one abstract method evaluated for a call
OVERRIDE_DEPTH = 2  # the deepest frame whose calls of an abstract method run its implementations
OVERRIDE_LEVELS = 3  # subclasses of subclasses searched for them


def _carries_tag(value: Value) -> bool:
    """A value with a hole tagged as request-derived (still unknown where it was made)."""
    return _request_tag(value) is not None


def _request_tag(value: Value) -> Hole | None:
    return next((hole for hole in holes_of(value) if hole.volatility is Volatility.UNKNOWN
                 and hole.origin is not None and hole.origin.category == DERIVED), None)


def _computed_from_tagged(result: Value, method: str, arguments: list[Value], where: Location) -> Value:
    """What a call the analysis cannot see into returns, computed from an argument tagged as the
    request's input (`learning.build_context(message=str(input))` in the helper an entry handed
    its input to): tagged too, as the same computation written in the entry would be derived."""
    if not isinstance(result, Unknown) or result.hole.origin is not None or result.hole.is_history \
            or result.hole.volatility is not Volatility.UNKNOWN or result.hole.location != where:
        return result
    tag = next((found for value in arguments if (found := _request_tag(value)) is not None), None)
    if tag is None or tag.origin is None:
        return result
    origin = replace(tag.origin, location=where, source=called_with(method, tag.origin.source))
    return Unknown(replace(result.hole, origin=origin, assumption=tag.assumption))


def _last_name(node: ast.AST) -> str | None:
    """``chunks_vdb`` for ``self.chunks_vdb``, ``retriever`` for ``retriever`` or ``get_retriever()``."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def registered_nodes(module: ModuleInfo, frameworks: dict[str, tuple[str, ...]]) -> frozenset[str]:
    """The functions of a module (`name`) and the methods of its classes (`Class.name`) it
    registers by name as nodes of a graph framework it imports (`builder.add_node("reflect",
    reflect_on_summary)`, `graph.add_node("plan", self.plan)`; rules/sources.yaml graph_nodes)."""
    methods = registering_methods(frameworks, module.imports.values())
    if not any(f".{method}(" in module.source for method in methods):
        return frozenset()

    def handed(tree: ast.AST) -> Iterator[ast.expr]:
        for call in nodes_of(tree, ast.Call):
            if isinstance(call.func, ast.Attribute) and call.func.attr in methods:
                for arg in call.args[:2]:  # (name, node), (node,), or a list of nodes (`add_sequence`)
                    yield from arg.elts if isinstance(arg, (ast.List, ast.Tuple)) else (arg,)

    functions = {arg.id for arg in handed(module.tree) if isinstance(arg, ast.Name) and arg.id in module.functions}
    bound = {f"{name}.{arg.attr}" for name, klass in module.classes.items() for arg in handed(klass.node)
             if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id == "self"
             and arg.attr in klass.methods}
    return frozenset(functions | bound)


def _dotted(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.insert(0, node.id)
        return ".".join(parts)
    return None


def _url_path(url: Value | None) -> str | None:
    """The written-out end of a URL, without its query, whose values may be unknown
    (`f"{base}/v1/messages?beta=true"` -> `/v1/messages`, `f"{base}/models/{m}:generateContent?key={key}"`
    -> `:generateContent`); None when its end is not known."""
    if not isinstance(url, Text):
        return None
    before_query: list[Segment] = []
    for seg in url.segs:
        if isinstance(seg, Literal) and ("?" in seg.text or "#" in seg.text):
            before_query.append(Literal(re.split(r"[?#]", seg.text, maxsplit=1)[0]))
            break
        before_query.append(seg)
    tail: list[str] = []
    for seg in reversed(before_query):
        if not isinstance(seg, Literal):
            break
        tail.append(seg.text)
    text = "".join(reversed(tail)).rstrip("/")
    return text or None


def _url_model(url: Value | None) -> Value | None:
    """The model a URL names (Gemini's `.../models/gemini-2.5-flash:generateContent`): its text, or
    the unknown value written there; None when the URL names none."""
    if not isinstance(url, Text):
        return None
    for index, seg in enumerate(url.segs):
        if not isinstance(seg, Literal) or "/models/" not in seg.text:
            continue
        named = seg.text.rsplit("/models/", 1)[1]
        if ":" in named:
            return Text((Literal(named.split(":", 1)[0]),))
        following = url.segs[index + 1] if index + 1 < len(url.segs) else None
        return Unknown(following) if not named and isinstance(following, Hole) else None
    return None


def _subclasses_dict(info: ClassInfo) -> bool:
    return any(_dotted(base) in ("dict", "collections.UserDict", "UserDict", "OrderedDict",
                                 "collections.OrderedDict", "defaultdict") for base in info.bases)


def _is_field_call(node: ast.expr) -> bool:
    """``Field(...)``, ``dataclasses.field(...)``, ``PrivateAttr(...)``: a field's declaration,
    whose default is in its keywords."""
    return isinstance(node, ast.Call) and (_dotted(node.func) or "").rsplit(".", 1)[-1] in _FIELD_DECLARATIONS


_FIELD_DECLARATIONS = frozenset({"Field", "field", "PrivateAttr"})


def _declared_fields(klass: ClassInfo) -> list[tuple[str, ast.expr | None]]:
    cached = klass.__dict__.get("_fields")
    if cached is not None:
        return cached
    fields: list[tuple[str, ast.expr | None]] = []
    klass.__dict__["_fields"] = fields
    for stmt in klass.node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if "ClassVar" not in ast.dump(stmt.annotation):
                fields.append((stmt.target.id, stmt.value))
    return fields


def _annotations(klass: ClassInfo) -> dict[str, ast.expr]:
    """The attributes a class body declares with a type, with a value or not (`client: OpenAI`,
    `llm: ChatLLM = Node(...)`)."""
    cached = klass.__dict__.get("_annotations")
    if cached is None:
        cached = klass.__dict__["_annotations"] = {
            stmt.target.id: stmt.annotation for stmt in klass.node.body
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)}
    return cached


class CallKey:
    """A memo key hashed once: its values are deep frozen dataclasses, whose hash walks them whole
    every time (hashing the same key for the check, the lookup and the store took a quarter of
    a run on kyegomez/swarms)."""

    __slots__ = ("parts", "digest")

    def __init__(self, parts: tuple, digest: int) -> None:
        # The receiver is in the parts itself, not its id: an object equal by identity only (a
        # library object) is kept alive by the key, so its id is not reused by another object
        # while the memo lives (a reused id returned another object's result).
        self.parts = parts
        self.digest = digest

    def __hash__(self) -> int:
        return self.digest

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CallKey) and self.digest == other.digest and self.parts == other.parts


def _plainly_unknown(value: Value) -> bool:
    return isinstance(value, Unknown) and value.hole.plainly_unknown


# PyInstaller's bundle folder is set only in a frozen app: run from source, `getattr(sys, "_MEIPASS",
# here)` is the default (the folder of the settings files qodo-cover loads).
ONLY_WHEN_FROZEN = frozenset({"sys._MEIPASS"})
YIELDED = "<yielded>"  # a generator's items so far, kept among its frame's locals
DUMP_METHODS = ("model_dump", "dict")  # pydantic's dict of an object's fields (`dict()` in pydantic 1)
DATA_MODEL_BASES = frozenset({"BaseModel"})
# A class built on a builtin container holds its items as one (isinstance of a project class is not decided)
BUILTIN_BASES = frozenset({"list", "dict", "str", "tuple", "UserList", "UserDict", "UserString", "List", "Dict"})


def _base_names(classes: list[ClassInfo]) -> set[str]:
    """The last names of the classes' written bases, parameters dropped (`BaseModel`, `list`
    of `typing.List[str]`)."""
    return {(_dotted(base.value if isinstance(base, ast.Subscript) else base) or "").rsplit(".", 1)[-1]
            for klass in classes for base in klass.bases}


def _small_helper(function: ast.AST) -> bool:
    """A definition of at most SMALL_HELPER_NODES syntax nodes that does something: an interface's
    stub (`...`) is left to what the knowledge says of its name (`search_memories()` is a lookup).
    Computed once per definition (kept when its body is dropped: index.DURABLE_NODE_MEMOS)."""
    cached = function.__dict__.get(SMALL_HELPER_MEMO)
    if cached is None:
        count = 0
        for _ in ast.walk(function):
            count += 1
            if count > SMALL_HELPER_NODES:
                break
        cached = count <= SMALL_HELPER_NODES and not (
            isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_stub(function))
        function.__dict__[SMALL_HELPER_MEMO] = cached
    return cached


def _is_generator(function: ast.AST) -> bool:
    """A function whose own body (not a nested definition's) yields; computed once per definition
    (kept when its body is dropped: index.DURABLE_NODE_MEMOS)."""
    cached = function.__dict__.get(GENERATOR_MEMO)
    if cached is None:
        pending = list(ast.iter_child_nodes(function))
        cached = False
        while pending and not cached:
            node = pending.pop()
            cached = isinstance(node, (ast.Yield, ast.YieldFrom))
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                pending.extend(ast.iter_child_nodes(node))
        function.__dict__[GENERATOR_MEMO] = cached
    return cached


def _call_key(func: FuncVal, frame: Frame, args: list[Value], kwargs: dict[str, Value],
              inherited: dict[str, Value]) -> CallKey | None:
    """Identity of a call's inputs; None when a value cannot be hashed (then it is not memoized)."""
    parts = (id(func.node), func.self_value, frame.import_time, frame.first_turn, tuple(args),
             tuple(sorted(kwargs.items())), tuple(sorted(inherited.items())))
    try:
        return CallKey(parts, hash(parts))
    except (TypeError, RecursionError):
        return None


# Expression type -> Evaluator.eval_<Type>, filled on first use (the hottest lookup of a run).
_EVALUATORS: dict[type, Callable[[Evaluator, Any, Frame], Value]] = {}


def _eval_unknown(_evaluator: Evaluator, node: ast.expr, frame: Frame) -> Value:
    return unknown(frame.module.snippet(node), frame.module.location(node))


def _cut_short(value: Value) -> bool:
    """A value the constructor run left plainly unknown, or an object whose constructor it could
    not run (its depth ran out): the stored attribute, evaluated on a budget of its own, may know more."""
    if isinstance(value, Instance):
        return not value.attrs
    return _plainly_unknown(value)


def _locals_used(method: ast.AST, stmt: ast.Assign | ast.AnnAssign) -> list[ast.Assign]:
    """The plain assignments of the locals ``stmt`` reads (and those they read), in source order;
    computed once per statement."""
    cached = stmt.__dict__.get("_locals_used")
    if cached is not None:
        return cached
    assignments = [a for a in nodes_of(method, ast.Assign) if a.lineno < stmt.lineno
                   and len(a.targets) == 1 and isinstance(a.targets[0], ast.Name)]
    assignments.sort(key=lambda a: a.lineno)
    needed = {n.id for n in nodes_of(stmt.value, ast.Name)} if stmt.value is not None else set()
    chosen: list[ast.Assign] = []
    for assignment in reversed(assignments):
        name = assignment.targets[0].id  # type: ignore[attr-defined]
        if name in needed and len(chosen) < MAX_STORED_LOCALS:
            needed.discard(name)
            needed |= {n.id for n in nodes_of(assignment.value, ast.Name)}
            chosen.append(assignment)
    chosen.reverse()
    stmt.__dict__["_locals_used"] = chosen
    return chosen


# Words in the name of a list kept on an object that say it is the conversation (matched inside
# the name: `_messages`, `chat_history`, `short_memory`, `turns`).
CONVERSATION_WORDS = ("message", "msg", "history", "conversation", "convo", "chat", "memory", "dialog", "turn",
                      "context", "buffer", "transcript")


# Names of lists of messages, narrower than CONVERSATION_WORDS: `context[:2000]` or `msg[:80]` is
# a slice of text far more often than of a list.
MESSAGE_LIST_WORDS = ("messages", "history", "conversation")


def _a_conversation_slice(node: ast.expr) -> bool:
    """A run cut from a list named like a conversation (`chat_history[1:]`): a list of messages."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)):
        return False
    return _named_like_a_message_list(_last_name(node.value) or "")


def _named_like_a_message_list(name: str) -> bool:
    return any(word in name.lower() for word in MESSAGE_LIST_WORDS)


def _named_like_a_conversation(attribute: str) -> bool:
    return any(word in attribute.lower() for word in CONVERSATION_WORDS)


def _names_a_model(text: str) -> bool:
    """Text that can be a model's name (`gpt-4o`, `anthropic/claude-sonnet-4.5`): short, one word.
    A model slot inferred from another definition of the same name may hold the prompt."""
    return 0 < len(text) <= 100 and not any(character.isspace() for character in text)


def _stored_parameter(klass: ClassInfo, attr: str) -> tuple[int, str] | None:
    """(position after `self`, name) of the constructor parameter stored as-is in ``self.attr``."""
    assignment = _attribute_assignment(klass, attr)
    if assignment is None or assignment[0] != "__init__" or not isinstance(assignment[2].value, ast.Name):
        return None
    name = assignment[2].value.id
    positional = [a.arg for a in [*assignment[1].args.posonlyargs, *assignment[1].args.args]][1:]
    if name in positional:
        return positional.index(name), name
    return (-1, name) if any(a.arg == name for a in assignment[1].args.kwonlyargs) else None


def _constructor_arguments(klass: ClassInfo, position: int, name: str
                           ) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ClassInfo | None, ast.expr]]:
    """The functions of the class's own module that construct it (`ChatLLM(model, chat)`), each
    with the argument given for the parameter (by position or keyword) and the class it is a
    method of."""
    for function, owner in _constructing_functions(klass):
        for call in nodes_of(function, ast.Call):
            if not isinstance(call.func, ast.Name) or call.func.id != klass.name:
                continue
            given = call.args[position] if 0 <= position < len(call.args) \
                and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1]) else \
                next((k.value for k in call.keywords if k.arg == name), None)
            if given is not None:
                yield function, owner, given


def _constructing_functions(klass: ClassInfo) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ClassInfo | None]]:
    """The functions (and methods, with their class) of the class's own module whose lines call
    it by name, found in the text: the other functions' bodies are not even parsed. Computed once
    per class."""
    cached = klass.__dict__.get("_constructing")
    if cached is not None:
        return cached
    source = klass.module.source
    lines: set[int] = set()
    line, counted = 1, 0
    for match in re.finditer(rf"(?<![\w.]){re.escape(klass.name)}\(", source):
        line += source.count("\n", counted, match.start())
        counted = match.start()
        if not source[max(0, counted - 6):counted].endswith("class "):
            lines.add(line)
    module = klass.module
    definitions = [(f, None) for f in module.functions.values()] + \
        [(m, info) for info in module.classes.values() for m in info.methods.values()]
    found = [(function, owner) for function, owner in definitions if lines and any(
        function.lineno <= number <= (function.end_lineno or function.lineno) for number in lines)]
    klass.__dict__["_constructing"] = found
    return found


def _attribute_assignment(klass: ClassInfo, attr: str) -> tuple[str, Any, ast.stmt] | None:
    """The ``self.attr = ...`` assignment of a class that gives the attribute its value (the
    method's name, the method, the statement), if any."""
    place = _assignment_places(klass).get(attr)
    if place is None:
        return None
    found = klass.__dict__.setdefault("_assignments", {})  # nodes: forgotten with the bodies
    if attr not in found:
        method_name, line, column = place
        method = klass.methods[method_name]
        found[attr] = next(((method_name, method, stmt) for stmt in nodes_of(method, (ast.Assign, ast.AnnAssign))
                            if (stmt.lineno, stmt.col_offset) == (line, column)), None)
    return found[attr]  # type: ignore[no-any-return]


def _assignment_places(klass: ClassInfo) -> dict[str, tuple[str, int, int]]:
    """Where each ``self.x = ...`` of a class is (method, line, column), first one per attribute (a
    `self.x = None` placeholder gives way to the first value set after it); computed once per
    class, and kept when the method bodies are dropped (index.DURABLE_CLASS_MEMOS)."""
    cached = klass.__dict__.get("_assignment_places")
    if cached is not None:
        return cached
    found: dict[str, tuple[str, ast.stmt]] = {}
    for method_name, method in klass.methods.items():
        receivers = ("self.", "cls.") if _is_classmethod(method) else ("self.",)  # `cls.loader = ...` sets it too
        for stmt in nodes_of(method, (ast.Assign, ast.AnnAssign)):
            if stmt.value is not None:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for target in targets:
                    path = _dotted(target)
                    if path and path.startswith(receivers) and path.count(".") == 1:
                        path = "self." + path.split(".", 1)[1]
                        kept = found.get(path[5:])
                        if kept is None or _is_placeholder(kept[1].value) and not _is_placeholder(stmt.value):
                            found[path[5:]] = (method_name, stmt)
    places = {attr: (method_name, stmt.lineno, stmt.col_offset) for attr, (method_name, stmt) in found.items()}
    klass.__dict__["_assignment_places"] = places
    return places


def _advanced_attributes(klass: ClassInfo) -> dict[str, ast.stmt]:
    """The ``self.x`` a method other than the constructor steps by a constant, with the first such
    statement; computed once per class. Only the methods whose lines hold such a step (found in
    the module's text) are walked: the others' bodies may not even be parsed (LazyBody)."""
    cached = klass.__dict__.get("_advanced")
    if cached is not None:
        return cached
    found: dict[str, ast.stmt] = {}
    lines = [line for line in _step_lines(klass.module)
             if klass.node.lineno <= line <= (klass.node.end_lineno or klass.node.lineno)]
    for method_name, method in klass.methods.items() if lines else ():
        if method_name in ("__init__", "__post_init__", "__new__") or \
                not any(method.lineno <= line <= (method.end_lineno or method.lineno) for line in lines):
            continue
        for stmt in nodes_of(method, (ast.AugAssign, ast.Assign)):
            step = stmt if isinstance(stmt, ast.AugAssign) else _as_step(stmt)
            path = _dotted(step.target) if step is not None else None
            if step is not None and path and path.startswith("self.") and path.count(".") == 1 \
                    and _is_counter_step(step):
                found.setdefault(path[5:], stmt)
    klass.__dict__["_advanced"] = found
    return found


_STEP_TEXT = re.compile(r"^[ \t]*self\.(\w+)[ \t]*(?:[-+]=[ \t]*[\d.]|=[ \t]*self\.\1[ \t]*[-+][ \t]*[\d.])", re.M)


def _step_lines(module: ModuleInfo) -> list[int]:
    """Lines of a module that look like `self.x += 1` (or `self.x = self.x - 1`): kept on it."""
    cached = module.__dict__.get("_step_lines")
    if cached is None:
        source, line, offset, cached = module.source, 1, 0, []
        for match in _STEP_TEXT.finditer(source):
            line, offset = line + source.count("\n", offset, match.start()), match.start()
            cached.append(line)
        module.__dict__["_step_lines"] = cached
    return cached


def _as_step(stmt: ast.Assign) -> ast.AugAssign | None:
    """`self.turn = self.turn + 1` as the step it is (`self.turn += 1`)."""
    value = stmt.value
    if len(stmt.targets) != 1 or not isinstance(value, ast.BinOp) or not isinstance(value.op, (ast.Add, ast.Sub)) \
            or _dotted(value.left) is None or _dotted(value.left) != _dotted(stmt.targets[0]):
        return None
    return ast.AugAssign(target=stmt.targets[0], op=value.op, value=value.right)


def _appended_attributes(klass: ClassInfo) -> dict[str, bool]:
    """The ``self.x`` lists a class appends to, each with whether a written-out message is appended
    to it somewhere (then it holds the conversation, whatever its name); and, as `x.y`, the lists
    of an object it holds (`self.state.items.append(...)`)."""
    cached = klass.__dict__.get("_appended")
    if cached is not None:
        return cached
    found: dict[str, bool] = {}
    for method in klass.methods.values() if _may_grow_a_list(klass) else ():
        for node in nodes_of(method, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "extend", "insert"):
                path = _dotted(node.func.value)
                if path and path.startswith("self.") and path.count(".") in (1, 2):
                    found[path[5:]] = found.get(path[5:], False) or any(_is_message_node(a) for a in node.args)
    klass.__dict__["_appended"] = found
    return found


def _extra_keywords_stored(init: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The ``**kwargs`` parameter of a constructor that stores each extra keyword as an attribute
    (``for key, value in kwargs.items(): setattr(self, key, value)``, ``self.__dict__.update(kwargs)``):
    a request object taking any field (chatgpt-on-wechat's ``LLMRequest(..., system=...)``)."""
    if EXTRA_KEYWORDS_MEMO not in init.__dict__:  # kept on the definition: a constructor runs often
        init.__dict__[EXTRA_KEYWORDS_MEMO] = _stores_extra_keywords(init)
    return init.__dict__[EXTRA_KEYWORDS_MEMO]  # type: ignore[no-any-return]


def _stores_extra_keywords(init: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    extra = init.args.kwarg.arg if init.args.kwarg is not None else None
    if extra is None:
        return None
    for loop in nodes_of(init, ast.For):
        items = loop.iter
        if isinstance(items, ast.Call) and isinstance(items.func, ast.Attribute) and items.func.attr == "items" \
                and isinstance(items.func.value, ast.Name) and items.func.value.id == extra \
                and isinstance(loop.target, ast.Tuple) and len(loop.target.elts) == 2:
            key, value = (_dotted(element) for element in loop.target.elts)
            if any(isinstance(call.func, ast.Name) and call.func.id == "setattr" and len(call.args) == 3
                   and [_dotted(arg) for arg in call.args] == ["self", key, value] for call in nodes_of(loop, ast.Call)):
                return extra
    stored = any(_dotted(call.func) == "self.__dict__.update" and len(call.args) == 1
                 and _dotted(call.args[0]) == extra for call in nodes_of(init, ast.Call))
    return extra if stored else None


def _front_cuts(klass: ClassInfo) -> dict[str, Location]:
    """The ``self.x`` lists a method of the class cuts from the front while they are longer than a
    limit (`if len(self.x) > limit: self.x.pop(0)`, `while len(self.x) > n: del self.x[0]`,
    `self.x = self.x[-n:]` under such a test), each with where it is cut: a window of the
    latest items, whatever the list's name. A drain (`while len(q) > 0`) is not a limit. Kept
    when the method bodies are dropped (index.DURABLE_CLASS_MEMOS)."""
    cached = klass.__dict__.get("_front_cut")
    if cached is not None:
        return cached
    found: dict[str, Location] = {}
    for method in klass.methods.values():
        for guard in nodes_of(method, (ast.If, ast.While)):
            limited = _lengths_over_a_limit(guard.test)
            for stmt in guard.body:
                path = _front_cut_of(stmt)
                if path in limited and path.startswith("self.") and path.count(".") == 1:
                    found.setdefault(path[5:], klass.module.location(stmt))
    klass.__dict__["_front_cut"] = found
    return found


def _lengths_over_a_limit(test: ast.expr) -> set[str]:
    """The lists whose length ``test`` compares with a limit (`len(self.x) > self.max_items`)."""
    limited: set[str] = set()
    for compare in nodes_of(test, ast.Compare):
        sides = [compare.left, *compare.comparators]
        if any(isinstance(side, ast.Constant) and side.value == 0 for side in sides):
            continue
        limited.update(path for side in sides if isinstance(side, ast.Call) and isinstance(side.func, ast.Name)
                       and side.func.id == "len" and len(side.args) == 1 and (path := _dotted(side.args[0])))
    return limited


def _front_cut_of(stmt: ast.stmt) -> str | None:
    """The list a statement drops its first items from: `x.pop(0)` (its result kept or not),
    `del x[0]`, `del x[:k]`, `x = x[k:]`, `x = x[-k:]`."""
    value = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign)) else None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "pop" \
            and len(value.args) == 1 and isinstance(value.args[0], ast.Constant) and value.args[0].value == 0:
        return _dotted(value.func.value)
    if isinstance(stmt, ast.Delete) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript):
        index = stmt.targets[0].slice
        if isinstance(index, ast.Constant) and index.value == 0 \
                or isinstance(index, ast.Slice) and index.lower is None and index.upper is not None:
            return _dotted(stmt.targets[0].value)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(value, ast.Subscript) \
            and isinstance(value.slice, ast.Slice) and value.slice.upper is None and value.slice.lower is not None \
            and not (isinstance(value.slice.lower, ast.Constant) and value.slice.lower.value == 0):
        path = _dotted(stmt.targets[0])
        return path if path is not None and path == _dotted(value.value) else None
    return None


def _follow_up_attributes(klass: ClassInfo) -> dict[str, tuple[str, Location]]:
    """``self.x`` a method other than the constructor rewrites from its own parameter while it
    appends to a list the object keeps under a conversation's name (browser-use's
    `add_new_task(new_task)`: `self.task += new_task`, `self.state.agent_history_items.append(...)`):
    the conversation goes on with a new request in `x`. With the method and where it rewrites it."""
    cached = klass.__dict__.get("_follow_up")
    if cached is not None:
        return cached
    found: dict[str, tuple[str, Location]] = {}
    source = klass.module.source_of(klass.node)
    lowered = source.lower() if _GROWING_CALL.search(source) else ""
    methods = klass.methods.items() if any(word in lowered for word in CONVERSATION_WORDS) else ()
    for name, method in methods:
        if name.startswith("__") or not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = {a.arg for a in (*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs)} - {"self", "cls"}
        appends = any(isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend", "insert")
                      and (path := _dotted(n.func.value) or "").startswith("self.")
                      and _named_like_a_conversation(path.rsplit(".", 1)[-1]) for n in nodes_of(method, ast.Call))
        if not params or not appends:
            continue
        for stmt in nodes_of(method, (ast.Assign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                path = _dotted(target)
                if path and path.startswith("self.") and path.count(".") == 1 and any(
                        isinstance(n, ast.Name) and n.id in params for n in ast.walk(stmt.value)):
                    found.setdefault(path[5:], (name, klass.module.location(stmt)))
    klass.__dict__["_follow_up"] = found
    return found


_GROWING_CALL = re.compile(r"\.\s*(?:append|extend|insert)\s*\(")


def _may_grow_a_list(klass: ClassInfo) -> bool:
    """Whether the class's text calls `append`, `extend` or `insert` at all: read from its lines,
    so that a class that cannot grow a list has none of its method bodies parsed to find out."""
    return _GROWING_CALL.search(klass.module.source_of(klass.node)) is not None


def _is_stub(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A body of only a docstring, `...`, `pass` or `raise NotImplementedError`: an interface."""
    for stmt in node.body:
        if isinstance(stmt, ast.Pass) or isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        if isinstance(stmt, ast.Raise) and stmt.exc is not None and "NotImplementedError" in ast.unparse(stmt.exc):
            continue
        return False
    return True


def _loop_carried(body: list[ast.stmt]) -> dict[str, ast.stmt]:
    """Names a loop body changes from their own value (`plan.append(x)`, `log += line`, `notes =
    notes + x`), with the first statement that does: what the loop carries to its next pass. Kept
    on the body's first statement (a pure function of the syntax)."""
    if not body:
        return {}
    cached = body[0].__dict__.get("_loop_carried")
    if cached is not None:
        return cached
    found: dict[str, ast.stmt] = {}
    for stmt in body:
        for node in nodes_of(stmt, (ast.Expr, ast.AugAssign, ast.Assign)):
            name = _grown_name(node)
            if name is not None:
                found.setdefault(name, node)
    for name, node in _read_then_reassigned(body).items():
        found.setdefault(name, node)
    body[0].__dict__["_loop_carried"] = found
    return found


ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _measures(test: ast.expr, frame: Frame) -> bool:
    """A threshold on something this call measured (`viewport["pageTop"] > 5`, `len(history) >=
    limit`): an ordering comparison that reads a local or a parameter, other than against 0 or 1
    (`len(tools) > 0` asks whether there are any). An equality with a constant (`environment ==
    "browser"`), a None or type test or a flag is a setting of the deployment: the same choice on
    every call of one configuration."""
    conjuncts = test.values if isinstance(test, ast.BoolOp) else [test]
    return any(isinstance(c, ast.Compare) and any(isinstance(op, ORDERING) for op in c.ops)
               and not any(isinstance(side, ast.Constant) and side.value in (0, 1)
                           for side in (c.left, *c.comparators))
               and any(isinstance(n, ast.Name) and n.id in frame.locals for n in nodes_of(c, ast.Name))
               for c in conjuncts)


def _tests_a_flag(test: ast.expr) -> bool:
    """A test that is, or has among its `and` terms, a plain name or attribute (`if
    agent.add_memories:`, `if use_summary and summary is not None:`, `if docs:`): an option of the
    program, or content present only sometimes. Not a computed condition (`if count(text) <
    budget:`, `if len(docs) > 0:`), whose body is a step of the same assembly."""
    conjuncts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    return any(isinstance(c.operand if isinstance(c, ast.UnaryOp) and isinstance(c.op, ast.Not) else c,
                          (ast.Name, ast.Attribute)) for c in conjuncts)


def _mark_optional(before: dict[str, Value], frame: Frame, test: Location) -> None:
    """Text an `if` with no `else` that tests a flag added to a local (`prompt += memories` under
    `if add_memories:`): its new holes carry the test, so a rule tells values added under different
    options apart (each is a cause of its own; one option may be off)."""
    for name, value in frame.locals.items():
        old = before.get(name)
        if not isinstance(value, Text) or value is old or not isinstance(old, Text):
            continue
        kept = {id(segment) for segment in old.segs if isinstance(segment, Hole)}
        frame.locals[name] = map_holes(value, lambda hole: hole if id(hole) in kept or hole.guard is not None
                                       else replace(hole, guard=test))


def _read_then_reassigned(body: list[ast.stmt], written_by_calls: Callable[[ast.stmt], set[str]] | None = None
                          ) -> dict[str, ast.Assign]:
    """`observation = run(action)` after the prompt wrote `observation` into text: a name the body
    puts into text before it assigns it a computed value (a call's result, or a value made in the
    body) carries the last pass's value into the next request; so does an attribute of `self`
    (`self.observation = env.step(action)`), also where a method the body calls writes it into
    text (``written_by_calls``: the names each statement's calls of `self` methods write). A
    constant assigned again is the same every pass; an object handed on (`agent =
    response.agent`, changed by a hand-off only) is not text the pass rewrites."""
    written: set[str] = set()
    made: set[str] = set()
    found: dict[str, ast.Assign] = {}
    for stmt in body:
        for node in nodes_of(stmt, ast.Assign):
            name = _text_name(node.targets[0]) if len(node.targets) == 1 else None
            if name is not None and name in written and name not in made:
                loaded = {n.id for n in nodes_of(node.value, ast.Name)}
                if nodes_of(node.value, ast.Call) or not loaded.isdisjoint(made):
                    found.setdefault(name, node)
        written |= _names_written_into_text(stmt)
        if written_by_calls is not None:
            written |= written_by_calls(stmt)
        made |= {name for n in nodes_of(stmt, (ast.Name, ast.Attribute))
                 if isinstance(n.ctx, ast.Store) and (name := _text_name(n)) is not None}
    return found


def _names_written_into_text(node: ast.AST) -> set[str]:
    """Names (and `self.x` attributes) placed into text: `f"{x}"`, `"..." + x`,
    `template.format(x)`, `"\\n".join(x)`."""
    exprs: list[ast.expr] = [part.value for part in nodes_of(node, ast.FormattedValue)]
    for operation in nodes_of(node, ast.BinOp):
        if isinstance(operation.op, (ast.Add, ast.Mod)):
            exprs += (operation.left, operation.right)
    for call in nodes_of(node, ast.Call):
        if isinstance(call.func, ast.Attribute) and call.func.attr in ("format", "join"):
            exprs += (*call.args, *(k.value for k in call.keywords))
    return {name for expr in exprs if (name := _text_name(expr)) is not None}


def _public_name(qualname: str) -> str:
    """A class's name as its package exports it: private module segments dropped
    (`pkg.models._types.SystemMessage` -> `pkg.models.SystemMessage`)."""
    parts = qualname.split(".")
    return ".".join([p for p in parts[:-1] if not p.startswith("_")] + parts[-1:])


def _loaded_text_names(node: ast.AST) -> set[str]:
    """The local names and `self.x` attributes an expression reads."""
    return {name for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute))
            and isinstance(n.ctx, ast.Load) and (name := _text_name(n)) is not None and name != "self"}


def _method_text_names(method: ast.AST) -> set[str]:
    cached = method.__dict__.get("_text_names")
    if cached is None:
        cached = method.__dict__["_text_names"] = _names_written_into_text(method)
    return cached


def _text_name(node: ast.expr) -> str | None:
    """A local name, or an attribute of `self` (`self.observation`), as a loop carries it."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return f"self.{node.attr}"
    return None


def _grown_name(node: ast.stmt) -> str | None:
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) \
            and node.value.func.attr in ("append", "extend", "insert"):
        if any(_is_message_node(arg) for arg in node.value.args):
            return None  # `messages.append(Message(role="user", ...))`: the conversation growing
        return _dotted(node.value.func.value)
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and not _is_counter_step(node):
        return _dotted(node.target)
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if isinstance(target, ast.Subscript) and not isinstance(target.value, ast.Subscript):
            # `state[key] = env.step(action)`: a dict (or list) of what the steps found, kept
            # between them. A constant stored again, or a message put in place, changes nothing.
            return _dotted(target.value) if nodes_of(node.value, ast.Call) and not _is_message_node(node.value) \
                else None
        name = _dotted(target)
        if name and isinstance(node.value, (ast.BinOp, ast.JoinedStr)) \
                and any(_dotted(n) == name for n in ast.walk(node.value) if isinstance(n, (ast.Name, ast.Attribute))):
            return name
    return None


def _carries(name: str, value: Value, mutation: ast.stmt, body: list[ast.stmt]) -> bool:
    """Whether a value a loop body changes is state it carries as text: a list, a text, an unknown
    (a call's result), or a dict it stores items in (not the request's `**kwargs`); not what is
    already volatile, which keeps its own origin."""
    if isinstance(value, Unknown):
        return not value.hole.volatility.is_volatile
    return isinstance(value, (Seq, Text)) or \
        isinstance(value, Mapping) and _stored_into(mutation) and name not in _splatted(body)


def _splatted(body: list[ast.stmt]) -> set[str]:
    """Dicts a loop body passes as `**kwargs`: a request's own arguments, not state it writes into text."""
    return {name for stmt in body for keyword in nodes_of(stmt, ast.keyword)
            if keyword.arg is None and (name := _dotted(keyword.value))}


def _stored_into(mutation: ast.stmt) -> bool:
    """`state[key] = value`: the mutation stores an item (a dict carried this way is loop state)."""
    return isinstance(mutation, ast.Assign) and isinstance(mutation.targets[0], ast.Subscript)


def _is_message_node(node: ast.expr) -> bool:
    """A chat message written out: a dict with a "role" key, or a call with a `role=` keyword."""
    if isinstance(node, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value == "role" for k in node.keys)
    return isinstance(node, ast.Call) and any(k.arg == "role" for k in node.keywords)


def _is_message_list(value: Value, runs_count: bool = True) -> bool:
    """A list of chat messages (role dicts or message objects) or a history: appending to it is
    how a conversation grows, which is what the cache is for. ``runs_count`` False: a run of
    earlier items does not make it one (what a list kept on an object held before this call)."""
    if not isinstance(value, Seq):
        return False
    for item in value.items:
        if runs_count and isinstance(item, Splice) and item.hole.is_history:
            return True
        if isinstance(item, Mapping) and item.get("role") is not None or isinstance(item, (Obj, Instance)):
            return True
    return False


def replaced_item(container: Value | None, keys: list[str | None], value: Value,
                  order_taint: Hole | None) -> Value | None:
    """``container`` with the item at ``keys`` (dict keys, list indexes) set to ``value``; None
    when the place is not known. A dict keeps a key's place (a new key goes last; under a loop over
    an unordered collection, the dict's order is that loop's). A list index counts known items
    only: behind an unknown-length run, the index could be anywhere."""
    if not keys:
        return value
    key, rest = keys[0], keys[1:]
    if isinstance(container, Mapping):
        present = key is not None and any(k == key for k, _ in container.entries)
        if rest and not present:
            return None
        item = replaced_item(container.get(key), rest, value, order_taint) if rest and key is not None else value
        if item is None:
            return None
        entries = tuple((k, item if k == key else v) for k, v in container.entries) if present \
            else (*container.entries, (key, item))
        return Mapping(entries, container.order or order_taint)
    if isinstance(container, Seq) and key is not None and key.lstrip("-").isdigit():
        items = container.items
        index = int(key)
        position = index if index >= 0 else len(items) + index
        if not 0 <= position < len(items) or \
                any(isinstance(i, Splice) for i in (items[:position + 1] if index >= 0 else items[position:])):
            return None
        item = replaced_item(items[position], rest, value, order_taint)
        return None if item is None else Seq((*items[:position], item, *items[position + 1:]), container.order)
    return None


# Arguments of a lookup or a web request that say how it is sent, not what it asks (a token in a
# header is the same on every request, and no key of what comes back).
TRANSPORT_KEYS = frozenset({"headers", "timeout", "auth", "cookies", "proxies", "verify", "cert",
                            "allow_redirects", "follow_redirects", "stream"})


def _most_telling(results: list[Value]) -> Value:
    """Of the results of the methods an object may run (overrides, a registry's providers): the
    one carrying volatile or request-derived content, else the first that is known."""
    return next((r for r in results if most_volatile(r) or _carries_tag(r)), None) or \
        next((r for r in results if not isinstance(r, (NoneVal, Unknown))), results[0])


def _asked(args: list[Value], kwargs: dict[str, Value]) -> list[Value]:
    """The arguments that say what a lookup or a web request asks for."""
    return [*args, *(value for key, value in kwargs.items() if key not in TRANSPORT_KEYS)]


def _joined(body: Value, other: Value) -> Value:
    """What a name holds after an `if` whose branches both set it: the more telling of the two
    (volatile over unknown content over known text, the `else` branch's on a tie), key by key for
    two dicts (`kwargs["knowledge"] = retrieved` in one branch, `kwargs.setdefault("knowledge", "")`
    in the other keeps the retrieved text). A request may send either; the worse one is judged."""
    if isinstance(body, Mapping) and isinstance(other, Mapping):
        theirs = {key for key, _ in other.entries}
        entries = [(key, value if key is None or (mine := body.get(key)) is None or mine is value
                    else _joined(mine, value)) for key, value in other.entries]
        entries += [(key, value) for key, value in body.entries if key is not None and key not in theirs]
        return Mapping(tuple(entries), other.order or body.order)
    return body if _telling(body) > _telling(other) else other


def _no_results(value: Value) -> bool:
    """An empty list or dict: what a store's method returns where the analysis left the store
    unconfigured. An empty string is not: a retriever returning its `EXAMPLE = ""` default
    returns a setting (MetaGPT's `DummyExpRetriever`)."""
    return isinstance(value, Seq) and not value.items or isinstance(value, Mapping) and not value.entries


def _telling(value: Value) -> tuple[int, int, int, int]:
    # Between two volatile values, the one with more volatile parts: both branches carry the
    # clock written before the `if`, only one the memories it adds. Then the one that sends it
    # as a system message; then the one that carries a conversation (`if history: for m in
    # history: messages.append(...)` against the `else` that sends the first turn alone): what
    # comes after a volatile part is what a request pays again.
    holes = holes_of(value)
    volatile = sum(hole.volatility.is_volatile for hole in holes)
    return (2 if volatile else 1 if holes else 0), volatile, \
        _opens_with_volatile_system(value) if volatile else 0, _runs(value)


def _runs(value: Value) -> int:
    """Runs of unknown length in a message list (a copied conversation), top level only."""
    return sum(isinstance(item, Splice) for item in value.items) if isinstance(value, Seq) else 0


def _opens_with_volatile_system(value: Value) -> int:
    """A message list whose first message is a system message with volatile text: of two
    branches that send the same text as a system or as a user message (`[SystemMessage(p)]` for
    one provider family, `[UserMessage(p)]` for the others), the system one is the worse."""
    if not isinstance(value, Seq) or not value.items:
        return 0
    first = value.items[0]
    if not isinstance(first, (Mapping, Obj)):
        return 0
    role, content = message_role_content(first)
    return int(role == "system" and most_volatile(content) is not None)


def _is_counter_step(stmt: ast.AugAssign) -> bool:
    return isinstance(stmt.op, (ast.Add, ast.Sub)) and isinstance(stmt.value, ast.Constant) \
        and isinstance(stmt.value.value, (int, float)) and not isinstance(stmt.value.value, bool)


def _is_counting_loop(stmt: ast.For | ast.AsyncFor) -> bool:
    """``for step in range(n)``: the counter is the loop's state. An ``enumerate`` index goes with
    its item (the same items give the same indexes), so it is judged as the item is."""
    call = stmt.iter
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range"


def _is_main_guard(test: ast.expr) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators))


def _grown(value: Value, expression: str, where: Location | None, window: Step | None = None) -> Value:
    """A list as earlier calls left it: its first items, then a run of what they appended (only
    the latest of them, where a method cuts its front: ``window``)."""
    if not isinstance(value, Seq) or any(isinstance(item, Splice) for item in value.items):
        return value
    grown = Hole(Volatility.UNKNOWN, expression, where, is_history=True, window=window)
    return Seq((*value.items, Splice(grown)), value.order)


def _is_classmethod(node: ast.AST) -> bool:
    return any((path := _dotted(decorator)) is not None and path.split(".")[-1] == "classmethod"
               for decorator in getattr(node, "decorator_list", []))


def _is_property(node: ast.AST) -> bool:
    for decorator in getattr(node, "decorator_list", []):
        path = _dotted(decorator)
        if path and path.split(".")[-1] in ("property", "cached_property"):
            return True
    return False


def _rebound(before: dict[str, Value], after: dict[str, Value]) -> bool:
    """Whether a name was bound again or added (identity, as run_branches compares): mostly
    not, and then this answers in C instead of a loop over every local."""
    return before.keys() != after.keys() or any(map(operator.is_not, before.values(), after.values()))


def _never_taken(test: ast.expr, frame: Frame) -> bool:
    """A test that is false for the values at hand: `not x` where `x` is known to be true, `x is
    None` where `x` is known to be something, and an `and` holding such a test. Read without
    evaluating (a test's calls are not run twice)."""
    if isinstance(test, ast.BoolOp):
        tests = [_never_taken(value, frame) for value in test.values]
        return any(tests) if isinstance(test.op, ast.And) else all(tests)
    tested = _emptiness_test(test)
    if tested is None:
        return False
    operand, is_none = tested
    name = operand.id if isinstance(operand, ast.Name) else _dotted(operand) if isinstance(operand, ast.Attribute) \
        else None
    value = frame.locals.get(name) if name else None
    if value is None:
        return False
    if is_none:
        return isinstance(value, (Text, Seq, Mapping, Instance))
    return _known_truth(value) is True


def _emptiness_test(test: ast.expr) -> tuple[ast.expr, bool] | None:
    """`not x` (x, False) or `x is None` (x, True)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand, False
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        return test.left, True
    return None


def _defaulted_name(stmt: ast.If) -> str | None:
    """The local an `if` without `else` fills in only when it is empty (`if not x: x = ...`,
    `if x is None: x = ...`)."""
    tested = _emptiness_test(stmt.test) if not stmt.orelse else None
    if tested is None or not isinstance(tested[0], ast.Name):
        return None
    name = tested[0].id
    assigns = any(isinstance(target, ast.Name) and target.id == name
                  for stmt_ in stmt.body if isinstance(stmt_, ast.Assign) for target in stmt_.targets)
    return name if assigns else None


def _guarded_attribute(test: ast.expr) -> str | None:
    """``if self._x is None`` / ``if not self._x`` / ``if key != self._key`` / ``if
    len(self.steps) == 0``: a change guard, or a first-call test, on an attribute of the object
    (any term of an ``and``/``or``). Not a flag (``if self.use_memory:``) nor a test of what the
    attribute holds (``self._messages[0]["role"] == "system"``): the body runs on every call the
    flag is on or the content matches."""
    if isinstance(test, ast.BoolOp):
        return next((found for value in test.values if (found := _guarded_attribute(value))), None)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _own_path(test.operand)
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    sides = (test.left, test.comparators[0])
    for side, other in (sides, sides[::-1]):
        path = _own_path(side.args[0] if isinstance(side, ast.Call) and _dotted(side.func) == "len"
                         and len(side.args) == 1 else side)
        if path is not None and not (isinstance(other, ast.Constant) and isinstance(other.value, str)):
            return path
    return None


def _own_path(node: ast.expr) -> str | None:
    """``self._x`` (dotted): an attribute of the object itself."""
    path = _dotted(node) if isinstance(node, ast.Attribute) else None
    return path if path and path.startswith("self.") else None


_BUILTINS = {
    "sorted", "len", "min", "max", "sum", "str", "repr", "list", "tuple", "set", "frozenset", "dict",
    "open", "next", "iter", "enumerate", "zip", "map", "filter", "reversed", "format", "print",
    "int", "float", "bool", "hash", "id", "getattr", "isinstance", "range", "any", "all", "type",
    "super", "input",
}


# Calls made for their side effect on a container or template we track.
def _item(seq: Seq, index: int) -> Value | None:
    """``msg[0]`` of ``[system, *history]``: an item before the first list of unknown length (or,
    counted from the end, after the last one) is known."""
    items = seq.items
    splices = [i for i, item in enumerate(items) if isinstance(item, Splice)]
    if index >= 0:
        return items[index] if index < (splices[0] if splices else len(items)) else None
    return items[index] if -index <= (len(items) - 1 - splices[-1] if splices else len(items)) else None


# Below this many items a literal tail (`history[-2:]`) is the latest exchange, not a window.
SHORTEST_WINDOW = 4


def _from_the_end(bounds: ast.Slice) -> bool:
    """``x[-k:]``, ``x[-10:]``, ``x[len(x) - k:]``: a start that moves with the list's length, to
    its end (a literal count of at least SHORTEST_WINDOW items)."""
    start = bounds.lower
    if start is None or bounds.upper is not None or bounds.step is not None:
        return False
    if isinstance(start, ast.UnaryOp) and isinstance(start.op, ast.USub):
        count = start.operand
        return not isinstance(count, ast.Constant) or isinstance(count.value, int) and count.value >= SHORTEST_WINDOW
    return isinstance(start, ast.BinOp) and isinstance(start.op, ast.Sub) and isinstance(start.left, ast.Call) \
        and isinstance(start.left.func, ast.Name) and start.left.func.id == "len"


def _latest_items(listed: Value, cut: Step) -> Value | None:
    """The latest items of a list of unknown length that is not volatile itself (a growing
    history, an object's stored list): the list as it is (what it holds, in its order), its
    unknown runs marked with the cut; None for any other value."""
    if isinstance(listed, Unknown) and not listed.hole.volatility.is_volatile:
        return Unknown(replace(listed.hole, window=cut))
    if isinstance(listed, Seq):
        splices = [item.hole for item in listed.items if isinstance(item, Splice)]
        if splices and not any(hole.volatility.is_volatile for hole in splices):
            return Seq(tuple(Splice(replace(item.hole, window=cut)) if isinstance(item, Splice) else item
                             for item in listed.items), listed.order)
    return None


def _window_of(value: Value) -> Step | None:
    """The cut that keeps only the latest items of this list (or of the list this value is an item
    of), if any."""
    hole = _window_hole(value)
    return hole.window if hole is not None else None


def _window_hole(value: Value) -> Hole | None:
    """The part of a list that is a window (``_window_of``), with the path it came by."""
    if isinstance(value, Unknown):
        return value.hole if value.hole.window is not None else None
    if isinstance(value, Seq):  # a run of the window, or an item copied out of it in a loop
        return next((item.hole for item in value.items
                     if isinstance(item, (Splice, Unknown)) and item.hole.window is not None), None)
    return None


def _window_at_call(result: Value, func: FuncVal, call: Step, body: Location) -> Value:
    """A method that hands out the latest ``k`` items of its list, ``k`` being its parameter
    (MetaGPT's ``Memory.get(k)``: ``return self.storage[-k:]``), cuts where its caller says: the
    window is the call that chose the count, with the slice as the first step of its path. (A count
    the caller leaves at 0, "all when k=0", is no window: ``Evaluator.counts_zero``.)"""
    cut = _window_of(result)
    if cut is None or not body.contains(cut.location) or not _counted_by(cut.description, func.node):
        return result

    def moved(hole: Hole) -> Hole:
        if hole.window != cut:
            return hole
        return replace(hole, window=call, path=(Step(cut.location, f"cut by `{cut.description}`"), *hole.path))

    if isinstance(result, Unknown):
        return Unknown(moved(result.hole))
    assert isinstance(result, Seq)
    return Seq(tuple(Splice(moved(item.hole)) if isinstance(item, Splice) else
                     Unknown(moved(item.hole)) if isinstance(item, Unknown) else item for item in result.items),
               result.order)


def _counted_by(cut_text: str, function: ast.AST) -> set[str]:
    """The parameters of ``function`` the count of the cut ``cut_text`` is computed from: the
    start of a slice (``self.storage[-k:]``), or the arguments of a call that was itself moved
    to its caller (``self.rc.memory.get(k=k)`` in ``get_memories(self, k)``). Asked only of a
    result that carries a window cut inside the callee: rare, so the cut's text is parsed again
    rather than kept on every hole."""
    try:
        expr = ast.parse(cut_text, mode="eval").body
    except SyntaxError:
        return set()
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Slice) and expr.slice.lower is not None:
        counts: list[ast.expr] = [expr.slice.lower]
    elif isinstance(expr, ast.Call):
        counts = [*expr.args, *(k.value for k in expr.keywords)]
    else:
        return set()
    used = {n.id for count in counts for n in ast.walk(count) if isinstance(n, ast.Name)}
    return used & (parameter_names(function) - {"self", "cls"})


def _in_window_of(source: Value, result: Value) -> Value:
    """What is read from a window's items (an item, its attribute, a method's result: a message
    converted to a dict) is still the window, when the analysis knows nothing else of it."""
    cut = _window_of(source)
    if cut is None or not isinstance(result, Unknown) or result.hole.window is not None \
            or result.hole.volatility.is_volatile:
        return result
    return Unknown(replace(result.hole, window=cut))


def _sliced(seq: Seq, bounds: ast.Slice) -> Seq:
    """``msg[1:]``: the items after a literal start, when they all come before any list of unknown
    length; other slices keep the whole list (what it holds, in its order)."""
    start = bounds.lower
    if bounds.upper is not None or bounds.step is not None or not isinstance(start, ast.Constant) \
            or not isinstance(start.value, int) or isinstance(start.value, bool) or start.value < 0:
        return seq
    first_splice = next((i for i, item in enumerate(seq.items) if isinstance(item, Splice)), len(seq.items))
    return Seq(seq.items[start.value:], seq.order) if start.value <= first_splice else seq


_MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "shuffle", "sort",
                       "reverse", "pop", "remove", "discard", "clear", "__setitem__"})
_PLAIN_VALUES = (Text, Seq, Mapping, PathVal, TemplateVal, Unknown, NoneVal, Splice)
