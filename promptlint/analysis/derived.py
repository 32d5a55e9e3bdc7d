"""Request-derived content: text computed from the input that becomes the final user turn.

A value we cannot see is still provably per request when it is computed from the request's own
input: ``docs = retriever.search(question)`` and ``context = format_docs(docs)`` change with every
``question``; put into the system prompt ahead of the instructions and the history, they bust the
cache exactly like a clock. Where a prompt's final user turn is known (an LLM call, or a call to
an inferred wrapper with a user slot), the function that assembles it is read for the local names
computed from the names in that turn (any use counts: string building, a lookup keyed by it),
and the unknown holes earlier in the prompt that carry one of them become per-request holes.
A lookup with a constant argument is not derived, so it stays unknown (not reported).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from promptlint.analysis.index import nodes_of
from promptlint.analysis.summaries import positional_slot_applies, target_names, written_names
from promptlint.analysis.templates import FILLS_SLOT
from promptlint.analysis.values import BUILT_ON
from promptlint.model import Hole, Location, Origin, Part, PromptLayout, Volatility

# Statements and expressions that bind names: assignments, loop targets, `with ... as`, `:=`.
BINDINGS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)
WORD = re.compile(r"[A-Za-z_]\w*")
DOTTED = re.compile(r"[A-Za-z_][\w.]*\w")
ASSIGNED = re.compile(r"assigned to `([A-Za-z_][\w.]*)`")
RETURNED_BY = re.compile(r"returned by `([^`]+)`")
NOT_INPUTS = frozenset({"self", "cls", "None", "True", "False"})
DERIVED = "request-derived"  # the origin category of request-derived holes
RUN_STATE = "run-state"  # the origin category of a framework's run state read by a callback
CONVERSATION = "taken by its name to be the conversation so far, which grows with every turn"
CHOSEN_TOOLS = "tool-choice"  # the origin category of tools a request gets only when a per-call test holds
OBSERVED = "observation"  # the origin category of what an agent's step observed (a page, an environment)
LOOP_STATE = "loop-state"  # the origin category of what an agent loop keeps from one step for the next
REMEMBERED = "memory"  # the origin category of what a memory store holds about the user
REQUEST_INPUT = "request-input"  # the origin category of an attribute a follow-up request rewrites
CALLED_WITH = " called with a value "  # in the source of a result computed from the request's input
ONE_ITEM_METHODS = frozenset({"get", "pop", "index", "count"})  # on the conversation: not its text


def input_names(expressions: list[str]) -> set[str]:
    """The names whose own text forms the final user turn (``question`` in ``f"Q: {question}"``,
    ``"\\n".join([task, notes])``). Names only reached through an attribute or an index
    (``args.messages[-1]``, ``config["prompt"]``) are containers of many things, not the input."""
    names: set[str] = set()
    for text in expressions:
        try:
            tree = ast.parse(text.strip(), mode="eval").body
        except SyntaxError:
            continue
        names |= _text_names(tree)
    return names - NOT_INPUTS


def _text_names(expr: ast.AST) -> set[str]:
    if isinstance(expr, ast.Name):
        return {expr.id}
    if isinstance(expr, (ast.FormattedValue, ast.Starred, ast.Await)):
        return _text_names(expr.value)
    if isinstance(expr, ast.JoinedStr):
        return set().union(*(_text_names(v) for v in expr.values))
    if isinstance(expr, ast.BinOp):
        return _text_names(expr.left) | _text_names(expr.right)
    if isinstance(expr, (ast.List, ast.Tuple)):
        return set().union(*(_text_names(e) for e in expr.elts))
    if isinstance(expr, ast.Dict):
        return set().union(*(_text_names(v) for v in expr.values))
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in ("format", "join"):
        return set().union(*(_text_names(a) for a in [*expr.args, *(k.value for k in expr.keywords)]))
    return set()


def user_turn_names(function: ast.AST, user_roles: frozenset[str], content_keys: tuple[str, ...],
                    user_calls: dict[str, tuple[str, ...]], role_keys: tuple[str, ...] = ("role",)) -> set[str]:
    """The names whose text forms a user message built in this definition: ``{"role": "user",
    "content": query}``, ``Message(role="user", content=q)``, or a call in ``user_calls`` (a
    user-message constructor or a wrapper's user slot: last name -> ``#i`` / ``=name`` slots),
    ``HumanMessage(question)``, ``builder.add_user_message(query)``."""
    found: set[str] = set()
    for call in nodes_of(function, (ast.Dict, ast.Call)):  # one walk for both kinds
        if isinstance(call, ast.Dict):
            values = {k.value: v for k, v in zip(call.keys, call.values) if isinstance(k, ast.Constant)}
            role = values.get("role")
            if isinstance(role, ast.Constant) and isinstance(role.value, str) and role.value.lower() in user_roles:
                content = next((values[k] for k in content_keys if k in values), None)
                found |= _text_names(content) if content is not None else set()
            continue
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        role = next((keywords[k] for k in role_keys if k in keywords), None)
        name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
        if isinstance(role, ast.Constant) and isinstance(role.value, str) and role.value.lower() in user_roles:
            content = next((keywords[k] for k in content_keys if k in keywords), call.args[0] if call.args else None)
            found |= _text_names(content) if content is not None else set()
        slots = user_calls.get(name, ())
        written, known = (written_names(call.args), set(slots)) if slots else ("", set())
        for slot in slots:
            if slot.startswith("#"):
                index = int(slot[1:])
                applies = positional_slot_applies("", f"{index}{written}", known)
                content = call.args[index] if index < len(call.args) and applies else None
            else:
                content = keywords.get(slot[1:]) or next((keywords[k] for k in content_keys if k in keywords), None)
            found |= _text_names(content) if content is not None else set()
    return found - NOT_INPUTS - _typed_as_objects(function)


# Types whose values can be the text of a message (or hold it): a parameter annotated with none of
# them (`agent: Agent`, `run_response: Optional[RunOutput]`) is an object handed along, not text.
TEXT_TYPES = frozenset({"str", "Any", "Text", "LiteralString", "object", "bytes", "list", "List", "dict", "Dict",
                        "Sequence", "Mapping", "Iterable", "tuple", "Tuple"})


def _typed_as_objects(function: ast.AST) -> set[str]:
    """Parameters annotated with types none of which can be text: an object that a user-message
    helper reads from (`generate_followups(agent, run_response)`) is not the request's input."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set()
    arguments = function.args
    return {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            if a.annotation is not None and _names_an_object(a.annotation)}


def written_annotation(annotation: ast.expr) -> ast.expr | None:
    """The annotation as an expression: a string one (`agent: "Agent"`) parsed; None if it does
    not parse."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    return annotation


def _names_an_object(annotation: ast.expr) -> bool:
    """`Agent`, `Optional[RunOutput]`: only object types. `Union[str, Message]`, `Literal["a"]`
    (its strings), a container or no name at all: possibly text."""
    annotation = written_annotation(annotation)
    if annotation is None:
        return False
    names = {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(annotation)
             if isinstance(n, (ast.Name, ast.Attribute))}
    return bool(names) and not names & TEXT_TYPES and not any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) for n in ast.walk(annotation))


def derived_names(function: ast.AST, inputs: set[str], whole: bool = False) -> set[str]:
    """``inputs`` and every local name assigned from an expression that uses one of them, to a
    fixed point (flow-insensitive: any assignment in the function counts). ``whole``: only uses of
    the inputs whole count (for the conversation: not its first or last message, its length, or
    the system messages a loop picks out of it)."""
    kept = frozenset(inputs) if whole else frozenset()
    uses: list[tuple[set[str], set[str]]] = []  # (targets, names used by the value)
    counts: set[str] = set()  # `n = len(items)`: a size (the same few numbers on every request), not content
    for node in nodes_of(function, BINDINGS):  # one walk of the definition for every kind
        if isinstance(node, ast.Assign):
            # `messages[-1] = {"role": "user", "content": question}` replaces one item: the
            # others (the system message at `messages[0]`) are not made from the input.
            targets = {n for t in node.targets if not _replaces_list_item(t) for n in target_names(t)}
            uses.append((targets, _used(node.value, kept)))
            if isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) and node.value.func.id == "len":
                counts |= targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):  # `x: str` binds, uses nothing
            uses.append((set(target_names(node.target)), _used(node.value, kept) if node.value is not None else set()))
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            if not (whole and _picks_system_messages(node)):
                uses.append((set(target_names(_content_target(node))), _used(node.iter, kept)))
        else:
            uses.extend((set(target_names(item.optional_vars)), _used(item.context_expr, kept))
                        for item in node.items if item.optional_vars is not None)
    local = parameter_names(function) | {name for targets, _ in uses for name in targets}
    derived = (inputs & local) - counts  # module names and globals in the user turn are not its input
    if not derived:
        return set()
    changed = True
    while changed:
        changed = False
        for targets, used in uses:
            # `p = enhance(p, message)` updates `p`: what it held stays what it was (the holes the
            # update adds carry their own names), so `p` is not derived through it.
            if used & derived and not targets <= derived and not targets & used:
                derived |= targets
                changed = True
    return derived


def _replaces_list_item(target: ast.expr) -> bool:
    """``x[0] = ...``, ``x[-1] = ...``: a target that replaces one item of a list (a literal index)."""
    if not isinstance(target, ast.Subscript) or not _one_item(target.slice):
        return False
    index = target.slice.operand if isinstance(target.slice, ast.UnaryOp) else target.slice
    return isinstance(index, ast.Constant) and isinstance(index.value, int)


def _content_target(loop: ast.For | ast.AsyncFor) -> ast.expr:
    """What a loop binds to the iterated content: in ``for i, doc in enumerate(docs)`` the index
    ``i`` is a position (1, 2, 3 on every request), only ``doc`` is the content."""
    it, target = loop.iter, loop.target
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" \
            and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        return target.elts[1]
    return target


def local_names(function: ast.AST) -> set[str]:
    """Parameters and assigned names of a definition. Kept on the definition: every wrapper call
    with a derived argument asks for its caller's (agno: 864 walks of 17 functions)."""
    cached: frozenset[str] | None = function.__dict__.get("_local_names")
    if cached is None:
        names = parameter_names(function)
        for node in nodes_of(function, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n for target in targets for n in target_names(target))
        cached = function.__dict__["_local_names"] = frozenset(names)
    return set(cached)


def assigned_names(function: ast.AST) -> set[str]:
    """Local names the definition assigns from something that is not a literal (``user_question =
    extract_text(messages[-1])``): named like the request's input, they hold it as a parameter would.
    Kept on the definition: every assembly point of a function asks for them."""
    cached: set[str] | None = function.__dict__.get("_assigned_names")
    if cached is None:
        cached = function.__dict__["_assigned_names"] = {
            target.id for node in nodes_of(function, ast.Assign) if not isinstance(node.value, ast.Constant)
            for target in node.targets if isinstance(target, ast.Name)}
    return cached


def parameter_names(function: ast.AST) -> set[str]:
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return set()
    arguments = function.args
    return {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}


def mark_request_derived(layout: PromptLayout, derived: set[str], inputs: set[str],
                         computed_by: set[str] | None = None, named: frozenset[str] = frozenset(),
                         scope: Location | None = None, parts: frozenset[str] | None = None,
                         conversation: bool = False) -> PromptLayout:
    """The layout with the unknown holes before its final user turn that carry a derived name made
    per-request holes (the final user turn itself is left alone: that is where they belong).

    ``computed_by``: when the whole text was computed from a derived name in the caller (a wrapper's
    system argument), the caller's other local names; holes that carry none of them were computed
    inside the helpers it called (``context = build_context(query)``) and count as derived too.

    ``scope``: the definition the names belong to; a hole born in a helper it called carries the
    helper's own names (`tool` in `[tool.name for tool in tools]`), which say nothing here.

    Holes tagged where an entry handed a derived value to a helper (``tag_request_derived``) are
    per request wherever the helper puts them, except in the final user turn.

    ``parts``: the only parts to mark (by name), when the input is known less directly.

    ``conversation``: the inputs are the conversation so far (rules/prompt_sinks.yaml
    ``conversation_inputs``), and ``derived`` what is computed from it whole."""
    def mark(hole: Hole) -> Hole:
        return _mark_hole(hole, derived, inputs, computed_by, named, scope, conversation) if derived \
            else _from_tag(hole)

    marked = tuple(part if part.name == "final_user" or parts is not None and part.name not in parts
                   else _mark_part(part, mark) for part in layout.parts)
    return replace(layout, parts=marked) if marked != layout.parts else layout


def _mark_part(part: Part, mark: Callable[[Hole], Hole]) -> Part:
    segments = tuple(mark(seg) if isinstance(seg, Hole) else seg for seg in part.segments)
    return replace(part, segments=segments) if segments != part.segments else part


def mark_observed(layout: PromptLayout, names: frozenset[str]) -> PromptLayout:
    """The layout with the unknown holes read from a step's observation (an expression starting
    with a name in rules/prompt_sinks.yaml ``observation_inputs``: `current_state.url`) made
    per-step, where they are written into the text; the tools are left alone (a display size
    read from the state is not what changes)."""
    def observed(hole: Hole) -> Named | None:
        head = WORD.match(hole.expression.strip())
        if head is None or head.group(0) not in names:
            return None
        source = f"`{head.group(0)}`"
        return Named(OBSERVED, f"observed in {source}", (
            f"{source} is taken by its name to be what this step of the agent observed (the environment's or "
            f"the page's state, handed in anew on every step), so this text changes with every step"))

    return _mark_named(layout, observed)


def mark_remembered(layout: PromptLayout, names: frozenset[str]) -> PromptLayout:
    """The layout with the unknown holes built from what a memory store holds (an expression
    naming a value in rules/prompt_sinks.yaml ``memory_names``, whole or as its last ``_`` part:
    `ctx.memories`, `user_memories`) made per request: the conversation writes memories (a memory
    tool, an extractor after each turn), so text built from them changes between requests. The
    hole is said as the value named (`ctx.memories`), not as the expression around it."""
    # A dotted entry (`session.summary`) names an attribute of an object: it matches those
    # segments anywhere in a path (`session.summary.summary`) and is said as written there.
    dotted = tuple(name.split(".") for name in names if "." in name)

    def held(path: str) -> tuple[str, str] | None:
        """The path up to the value remembered, and the name to say it by."""
        segments = path.split(".")
        last = segments[-1].lower()
        if last in names or last.rpartition("_")[2] in names:
            return path, segments[-1]
        lowered = [segment.lower() for segment in segments]
        for wanted in dotted:
            for start in range(len(lowered) - len(wanted) + 1):
                if lowered[start:start + len(wanted)] == wanted:
                    end = start + len(wanted)
                    return ".".join(segments[:end]), ".".join(segments[start:end])
        return None

    def remembered(hole: Hole) -> Named | None:
        found = next((found for path in DOTTED.findall(hole.expression) if (found := held(path)) is not None), None)
        if found is None:
            return None
        path, name = found
        return Named(REMEMBERED, f"remembered in `{name}`", (
            f"`{name}` is taken by its name to be what a memory store holds about the user or the conversation; "
            "the conversation writes it, so this text changes between requests"), expression=path)

    return _mark_named(layout, remembered)


@dataclass(frozen=True)
class Named:
    """What a hole's names say it is: its category, its source and the assumption, for the message."""

    category: str
    source: str
    assumption: str
    expression: str | None = None  # said instead of the hole's own expression


def _mark_named(layout: PromptLayout, classify: Callable[[Hole], Named | None]) -> PromptLayout:
    """The layout with each unknown hole that ``classify`` names made per request, outside the
    tools and the final user message."""
    def mark(hole: Hole) -> Hole:
        if hole.volatility is not Volatility.UNKNOWN or hole.is_history or hole.origin is not None \
                or hole.location is None or (named := classify(hole)) is None:
            return hole
        origin = Origin(hole.location, named.source, named.category, Volatility.PER_REQUEST)
        return replace(hole, volatility=Volatility.PER_REQUEST, origin=origin, assumption=named.assumption,
                       expression=named.expression or hole.expression)

    marked = tuple(part if part.name in ("tools", "final_user") else _mark_part(part, mark) for part in layout.parts)
    return replace(layout, parts=marked) if marked != layout.parts else layout


def is_request_content(hole: Hole) -> bool:
    """A hole known to be request-derived (a graph node's state, read as this run's own content):
    volatile ahead of the history, but in the final user turn it is the request itself, judged as
    an unknown input would be (PC010), not as a value to move (PC001)."""
    return hole.origin is not None and hole.origin.category == DERIVED


def tag_conversation_read(hole: Hole, names: set[str], where: Location, expression: str) -> Hole:
    """A hole of what a method of the conversation so far returns (`history.build_context()`,
    ``names`` being the conversation's parameter names) tagged where it was read: still unknown,
    so a prompt built from it in another function knows it grows with every turn."""
    if hole.volatility is not Volatility.UNKNOWN or hole.is_history or hole.origin is not None:
        return hole
    source = ", ".join(f"`{name}`" for name in sorted(names))
    return replace(hole, location=where, expression=expression,
                   origin=Origin(where, f"derived from {source}", DERIVED, Volatility.UNKNOWN),
                   assumption=f"{source} is {CONVERSATION}, so this text changes with every request")


def tag_request_derived(hole: Hole, derived: set[str], inputs: set[str], named: frozenset[str],
                        scope: Location | None = None) -> Hole:
    """A hole of a value computed from the request's input, handed by an entry to a helper that
    builds the prompt: tagged (still unknown), so the layout built inside the helper can tell."""
    if hole.volatility is not Volatility.UNKNOWN or hole.is_history or hole.origin is not None:
        return hole
    marked = _mark_hole(hole, derived, inputs, set(), named, scope)  # an empty `computed_by`: the whole value is derived
    return replace(marked, volatility=Volatility.UNKNOWN, origin=replace(marked.origin, volatility=Volatility.UNKNOWN)) \
        if marked.origin is not None else hole


def called_with(method: str, source: str) -> str:
    """The source of what a call the analysis cannot see into returns when it is given a value
    derived from the request: `build_context()` called with a value derived from `input`."""
    return f"`{method}()`{CALLED_WITH}{source}"


def _from_tag(hole: Hole) -> Hole:
    if hole.volatility is Volatility.UNKNOWN and hole.origin is not None and hole.origin.category == DERIVED:
        return replace(_where_built_in(hole), volatility=Volatility.PER_REQUEST,
                       origin=replace(hole.origin, volatility=Volatility.PER_REQUEST))
    return hole


def _mark_hole(hole: Hole, derived: set[str], inputs: set[str], computed_by: set[str] | None,
               named: frozenset[str], scope: Location | None = None, conversation: bool = False) -> Hole:
    if hole.volatility is Volatility.UNKNOWN and hole.origin is not None:
        return _from_tag(hole)
    if hole.volatility is not Volatility.UNKNOWN or hole.is_history or hole.location is None:
        return hole
    found = _derived_from(hole, derived, inputs, computed_by, scope, conversation)
    if not found:
        return hole
    source = ", ".join(f"`{name}`" for name in sorted(inputs & derived))
    hole = _as_entered(hole, scope)
    origin = Origin(hole.location, f"derived from {source}", DERIVED, Volatility.PER_REQUEST)
    via = "" if found[0] in inputs else f" and `{found[0]}` is computed from it"
    what = CONVERSATION if conversation \
        else "taken by its name to be the request's own input" if inputs & derived <= named \
        else "the request's own input (the final user turn)"
    return replace(_where_built_in(hole), volatility=Volatility.PER_REQUEST, origin=origin,
                   assumption=f"{source} is {what}{via}, so this text changes with every request")


def _derived_from(hole: Hole, derived: set[str], inputs: set[str], computed_by: set[str] | None,
                  scope: Location | None, conversation: bool) -> list[str]:
    """The derived names ``hole`` was computed from (its expression's, or those it was assigned
    to on its way), as ``_mark_hole`` matches them."""
    born_here = scope is not None and hole.location is not None and scope.contains(hole.location)
    words = whole_names(hole.expression, frozenset(inputs)) if conversation else set(WORD.findall(hole.expression))
    carried = words if scope is None or born_here else set()
    for step in hole.path:
        # A value made here is what its own expression made: passing it on through a helper that
        # also takes the input (`p = enhance(p, message)`) does not make it derived.
        if scope is None or scope.contains(step.location) and not born_here:
            carried |= set(ASSIGNED.findall(step.description))
    found = sorted(carried & derived)
    if not found and computed_by is not None and not carried & computed_by:
        found = sorted(computed_by & derived - inputs) or sorted(inputs)
    return found


def mark_rendered_conversation(layout: PromptLayout, derived: set[str], inputs: set[str],
                               scope: Location | None) -> PromptLayout:
    """The layout with the final user turn's text computed from the whole conversation so far
    (``inputs``: parameters named like it) marked as that conversation, rendered (``is_history``):
    it grows at its end with every turn, so what is written before it decides whether it is ever
    a shared prefix (PC011). Elsewhere such text is per request (``mark_request_derived``)."""
    whole = frozenset(derived | inputs)

    def rendered(hole: Hole) -> Hole:
        if hole.volatility is not Volatility.UNKNOWN or hole.is_history or hole.origin is not None \
                or hole.location is None or not _derived_from(hole, derived, inputs, None, scope, True):
            return hole
        # One message picked from it (`turns[-1]`, `history[i].message`) is not the conversation.
        if not whole_names(hole.expression, whole, any_index=True) & whole:
            return hole
        return replace(hole, is_history=True)

    marked = tuple(_mark_part(part, rendered) if part.name == "final_user" else part for part in layout.parts)
    return replace(layout, parts=marked) if marked != layout.parts else layout


def _where_built_in(hole: Hole) -> Hole:
    """A value made in one function and built into the prompt in a callee it is handed to, and
    not handed back from there, is placed where it is built in: that line is the one to change;
    the origin still names where the value was made (``args.task`` in ``main``, the task text in
    the worker's prompt)."""
    for index, step in enumerate(hole.path):
        if step.description.startswith(BUILT_ON):
            # Already placed by a step of its own (a template slot it fills: sweep's `{text}`,
            # later joined with the other system messages in the provider class), or handed
            # back up from here: where it is, is where it is built in. Not when it filled a
            # template in the very call it was handed to, and came back as that text (khoj's
            # `messages = self._format_messages_for_api(instruction, state)`): the template is the place.
            filled = any(earlier.description.startswith(FILLS_SLOT) for earlier in hole.path[:index])
            if any(_same_line(earlier.location, hole.location) for earlier in hole.path[:index]) \
                    or any(RETURNED_BY.match(later.description)
                           and not (filled and _same_line(later.location, hole.location))
                           for later in hole.path[index + 1:]):
                return hole
            return replace(hole, location=step.location)
    return hole


def _as_entered(hole: Hole, scope: Location | None) -> Hole:
    """A derived value as the definition judged sees it: text a helper made (`"ID: {i}"` inside
    `kb_prompt`) is the helper's result, where it came back (`knowledges = kb_prompt(chunks)`)."""
    if scope is None or hole.location is None or scope.contains(hole.location):
        return hole
    # Judged in a callee of the function that called the helper (a provider's `chat`): the
    # helper's result is still the place, the first return on its way.
    step = next((step for step in hole.path if scope.contains(step.location)), None) or \
        next((step for step in hole.path if RETURNED_BY.match(step.description)), None)
    if step is None:
        return hole
    named = RETURNED_BY.match(step.description)
    return replace(hole, location=step.location, expression=named.group(1) if named else hole.expression)


def _same_line(one: Location | None, other: Location | None) -> bool:
    return one is not None and other is not None \
        and (one.path, one.line, one.cell) == (other.path, other.line, other.cell)


def _used(value: ast.AST, whole: frozenset[str] = frozenset(), any_index: bool = False) -> set[str]:
    """The names ``value`` uses; of the names in ``whole``, only uses of the whole value (not
    ``h[0]``, ``h[-1]`` or ``len(h)``, nor an attribute such as ``conversation.title``: an object
    named like the conversation holds more than its messages)."""
    if _selects_system_messages(value):
        return set()  # `[m for m in msg if m["role"] == "system"]`: the system part, not the user's turn
    names = nodes_of(value, ast.Name)
    if whole:
        parts = {id(node.value) for node in nodes_of(value, ast.Subscript)
                 if _one_item(node.slice) or any_index and not isinstance(node.slice, ast.Slice)}
        # `conversation.title` is not the conversation; `history.build_context()` reads all of it
        # (a method that picks one item, `history.get("system")`, does not).
        methods = {id(node.func) for node in nodes_of(value, ast.Call)
                   if isinstance(node.func, ast.Attribute) and node.func.attr not in ONE_ITEM_METHODS}
        parts |= {id(node.value) for node in nodes_of(value, ast.Attribute) if id(node) not in methods}
        parts |= {id(node.args[0]) for node in nodes_of(value, ast.Call)
                  if isinstance(node.func, ast.Name) and node.func.id == "len" and node.args}
        names = [node for node in names if node.id not in whole or id(node) not in parts]
    return {node.id for node in names}


def whole_names(expression: str, whole: frozenset[str], any_index: bool = False) -> set[str]:
    """The names an expression uses, those in ``whole`` only as a whole (``any_index``: an item
    picked by any index, `history[i]`, is not the whole either); none when it does not parse."""
    try:
        return _used(ast.parse(expression.strip(), mode="eval").body, whole, any_index)
    except SyntaxError:
        return set()


def _one_item(index: ast.expr) -> bool:
    """``[0]``, ``[-1]``, ``["content"]``: one item, not a run of them."""
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        index = index.operand
    return isinstance(index, ast.Constant)


def _selects_system_messages(value: ast.AST) -> bool:
    """A comprehension that keeps only the messages whose role is ``"system"``."""
    if not isinstance(value, (ast.ListComp, ast.GeneratorExp)) or len(value.generators) != 1:
        return False
    return any(_tests_system_role(test) for test in value.generators[0].ifs)


def _picks_system_messages(loop: ast.For | ast.AsyncFor) -> bool:
    """A loop over messages that tests for the system role (`if m["role"] == "system": system =
    m["content"]`): what it takes out is the fixed system prompt, not the conversation."""
    return any(_tests_system_role(test) for test in nodes_of(loop, ast.Compare))


def _tests_system_role(test: ast.expr) -> bool:
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        sides = (test.left, test.comparators[0])
        role = any(isinstance(side, ast.Subscript) and isinstance(side.slice, ast.Constant)
                   and side.slice.value == "role" or isinstance(side, ast.Attribute) and side.attr == "role"
                   for side in sides)
        return role and any(isinstance(side, ast.Constant) and side.value == "system" for side in sides)
    return False
