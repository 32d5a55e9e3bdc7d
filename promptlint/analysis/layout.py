"""Turn the evaluated arguments of one LLM call into a PromptLayout in the provider's cache order."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace

from promptlint.analysis.derived import REQUEST_INPUT
from promptlint.analysis.templates import ROLE_NAMES, message_role
from promptlint.analysis.values import (
    NONE,
    Instance,
    Mapping,
    NoneVal,
    Obj,
    Seq,
    Splice,
    Text,
    Unknown,
    Value,
    as_text,
    literal_text,
    render_json,
)
from promptlint.knowledge import ApiSpec
from promptlint.model import (
    CacheBreakpoint,
    CallSite,
    Hole,
    Literal,
    Location,
    Part,
    PromptLayout,
    Segment,
    Setting,
    Via,
    Volatility,
)


def argument(spec_arg: str, args: list[Value], kwargs: dict[str, Value], owner: Obj | None) -> Value | None:
    """Find an argument by keyword, ``#N`` position, ``@field`` of the receiver, or dotted path."""
    if spec_arg.startswith("@"):
        return owner.field(spec_arg[1:]) if owner is not None else None
    if spec_arg.startswith("#"):
        index = int(spec_arg[1:])
        return args[index] if index < len(args) else None
    head, *rest = spec_arg.split(".")
    value: Value | None = kwargs.get(head)
    for name in rest:
        if isinstance(value, Mapping):
            value = value.get(name)
        elif isinstance(value, Obj):
            value = value.field(name)
        else:
            return None
    return value


def build_layout(spec: ApiSpec, call: CallSite, args: list[Value], kwargs: dict[str, Value],
                 owner: Obj | None) -> PromptLayout:
    parts: list[Part] = []
    for part_spec in spec.parts:
        value = argument(part_spec.arg, args, kwargs, owner)
        if value is None or isinstance(value, NoneVal):
            continue
        parts.extend(shape_parts(part_spec.part, part_spec.shape, value, call.location))
    parts = mark_final_user(parts)
    settings = []
    for name in spec.settings:
        value = argument(name, args, kwargs, owner)
        if value is not None and not isinstance(value, NoneVal):
            segs = as_text(value, call.location, name)
            hole = next((s for s in segs if isinstance(s, Hole) and s.volatility.is_volatile), None)
            settings.append(Setting(name, hole or (segs[0] if segs else Literal(""))))
    return PromptLayout(call, tuple(parts), tuple(settings))


def shape_parts(name: str, shape: str, value: Value, where: Location) -> list[Part]:
    if shape == "tools":
        return [Part("tools", tools_text(value, where), where)]
    if shape == "blocks":
        return [Part(name, blocks_text(value, where), where)]
    if shape in ("messages", "contents", "converse_messages"):
        if shape == "contents" and isinstance(value, Seq) and not any(map(is_turn, value.items)):
            # Gemini: a list of strings, images and parts is the parts of one user turn, not turns.
            return [Part("final_user", tuple(seg for item in value.items for seg in block_segments(item, where)),
                         where)]
        return message_parts(value, where)
    return [Part(name, as_text(value, where, name), where)]  # text, and json: structures render as JSON


def tools_text(value: Value, where: Location) -> tuple[Segment, ...]:
    if isinstance(value, Seq):
        segs: list[Segment] = []
        if value.order is not None:
            segs.append(replace(value.order, location=value.order.location or where))
        for item in value.items:
            segs.extend(render_json(item, where))  # a spliced run renders as its hole
            if isinstance(item, Mapping) and item.get("cache_control") is not None:
                segs.append(CacheBreakpoint(where))
        return tuple(segs)
    return as_text(value, where, "tools")


def blocks_text(value: Value, where: Location) -> tuple[Segment, ...]:
    """Anthropic ``system=`` / Bedrock ``system=[{"text"}, {"cachePoint"}]``: text or blocks."""
    if not isinstance(value, Seq):
        return as_text(value, where, "system")
    segs: list[Segment] = []
    for block in value.items:
        segs.extend(block_segments(block, where))
    return tuple(segs)


def block_segments(block: Value, where: Location) -> tuple[Segment, ...]:
    if isinstance(block, Mapping):
        if block.get("cachePoint") is not None:
            return (CacheBreakpoint(where),)
        text = block.get("text") or block.get("content")
        segs = as_text(text, where, "text") if text is not None else ()
        if block.get("cache_control") is not None:
            segs = (*segs, CacheBreakpoint(where))
        return segs
    if isinstance(block, Splice):
        return (block.hole,)
    if isinstance(block, Obj):
        text = block.field("text") or block.field("content")
        segs = as_text(text, where, "text") if text is not None else ()
        if block.field("cache_control") is not None:  # `TextBlockParam(text=..., cache_control=...)`
            segs = (*segs, CacheBreakpoint(where))
        return segs
    if isinstance(block, Instance):
        # A project's own content part (OpenHands' `TextContent(type="text", text=...)`, a
        # dataclass or pydantic model): its text field; an image part holds no text.
        fields = dict(block.attrs)
        text = fields.get("text")
        if text is not None:
            segs = as_text(text, where, "text")
            return (*segs, CacheBreakpoint(where)) if _flag_on(fields.get("cache_prompt")) else segs
        if any(name.startswith("image") for name in fields):
            return ()
    return as_text(block, where, "block")


def _flag_on(flag: Value | None) -> bool:
    return flag is not None and literal_text(flag) == "True"


def message_parts(value: Value, where: Location) -> list[Part]:
    if isinstance(value, Unknown):
        return [Part("history", (history_hole(value.hole),), where)]
    if not isinstance(value, Seq):  # a string or a template: the user's turn
        return [Part("final_user", as_text(value, where, "input"), where)]
    parts: list[Part] = []
    if value.order is not None:
        parts.append(Part("history", (value.order,), where))
    for item in value.items:
        if isinstance(item, Splice):
            parts.append(Part("history", (history_hole(item.hole),), where))
            continue
        role, content = message_role_content(item)
        if role is None:
            # One message we cannot see into (`messages.append(task)`): a turn of its own, not a
            # spliced list of earlier turns.
            hole = item.hole if isinstance(item, Unknown) else Hole(Volatility.UNKNOWN, "message", where)
            parts.append(Part("message", (history_hole(hole),), where))
            continue
        parts.append(Part(role, content_text(content, where), where))
    return parts


def is_turn(item: Value) -> bool:
    """A whole message (with a role) or a spliced list of them, rather than a part of one."""
    if isinstance(item, Mapping):
        return item.get("role") is not None
    if isinstance(item, Obj):
        return message_role(item) is not None or item.field("role") is not None or item.type.endswith("Content")
    return isinstance(item, Splice)


# Orders that hold for a whole process or machine (a set's hash order, a directory listing, a
# dict's insertion order), unlike a shuffle that changes on every call.
PER_PROCESS_ORDERS = frozenset({"set-order", "dir-order", "json-order"})


def history_hole(hole: Hole) -> Hole:
    """Spliced lists of messages are conversation history: stable across one conversation's turns.
    So is an order fixed per process inside them (a set joined into a turn): the turn is stored
    once and re-sent as written."""
    if hole.volatility.is_volatile and not (hole.volatility is Volatility.ORDER_UNSTABLE
                                            and hole.category in PER_PROCESS_ORDERS):
        return hole
    return replace(hole, is_history=True)


def message_role_content(item: Value) -> tuple[str | None, Value]:
    if isinstance(item, Mapping):
        role_value = item.get("role")
        role_text = literal_text(role_value)
        content = item.get("content")
        if content is None:
            content = item.get("parts") or item.get("text") or NONE
        if role_text is None:
            return ("user" if role_value is not None else None), content
        return ROLE_NAMES.get(role_text.lower(), "user"), content
    if isinstance(item, Obj):
        # An explicit `role=` wins over the class's name (llama_index's `ChatMessage(role="system")`).
        explicit = literal_text(item.field("role"))
        role = ROLE_NAMES.get(explicit.rpartition(".")[2].lower()) if explicit else message_role(item)
        if role is None and item.field("role") is not None:
            role = "user"  # a computed role, or a name we do not know
        if role is None and item.type.endswith("Content"):
            role = "user"
        if role is not None:
            content = item.field("content") or item.field("parts") or (item.args[0] if item.args else NONE)
            return role, content
    first = literal_text(item.items[0]) if isinstance(item, Seq) and len(item.items) == 2 else None
    if first is not None and first.lower() in ROLE_NAMES:  # a `("system", text)` pair
        return ROLE_NAMES[first.lower()], item.items[1]  # type: ignore[union-attr]
    if isinstance(item, Text):
        return "user", item
    return None, NONE


def content_text(content: Value, where: Location) -> tuple[Segment, ...]:
    """Message content: a string, or a list of content blocks (text, cache markers, images)."""
    if isinstance(content, Seq):
        segs: list[Segment] = []
        for block in content.items:
            segs.extend(block_segments(block, where))
        return tuple(segs)
    return as_text(content, where, "content")


def mark_final_user(parts: list[Part]) -> list[Part]:
    """The last user message is the final turn: volatile text there busts nothing. A literal
    assistant message after it is a prefill (`{"role": "assistant", "content": "{"}`), part of
    this call's own ending, so the user message before it is still the final turn."""
    last = len(parts) - 1
    if last > 0 and parts[last].name == "assistant" and all(isinstance(s, Literal) for s in parts[last].segments):
        last -= 1
    if last >= 0 and parts[last].name == "user":
        parts[last] = replace(parts[last], name="final_user")
    return parts


ASSEMBLY_API = "system message"  # the api of a layout judged at its assembly point
MESSAGE_LIST_API = "message list"  # ... and of a whole list handed to a wrapper
USER_TURN_API = "user message"  # ... and of a user message judged alone (PC010)
LAST_NAME = re.compile(r"[A-Za-z_]\w*")
EARLIER_TURN_PARTS = ("history", "user", "assistant", "tool", "message")
# Literal text shorter than this is a tag, a label or the punctuation of a rendered dict or list
# (`, "focus": `), not instructions: a data structure printed into a prompt is not fixed text.
MIN_INSTRUCTION_PIECE = 32
ONE_SHOT = "the message follows a prefix that is the same on every call: a fixed system prompt, no growing history"
ASSEMBLY_PROVIDER = "any"
ASSUMED_HISTORY = "the conversation history and the user's turn follow the system content, as every provider orders them"


def assembly_layout(what: str, text: Value, where: Location, function: str,
                    messages: Value | None = None, via: Via | None = None) -> PromptLayout:
    """A partial layout judged where system content is assembled (rules/prompt_sinks.yaml): the
    system text as known, then the history every provider puts after it: assumed, unless the same
    call hands over the message list that follows it (``provider.chat(system, history)``)."""
    site = _assembly_site(f"{ASSEMBLY_API} ({what})", where, function, via)
    system = Part("system", content_text(text, where), where)
    if messages is not None:
        return PromptLayout(site, (system, *mark_final_user(message_parts(messages, where))))
    history = Hole(Volatility.UNKNOWN, "conversation history", where, is_history=True, assumption=ASSUMED_HISTORY)
    return PromptLayout(site, (system, Part("history", (history,), where)))


def messages_layout(what: str, messages: Value, where: Location, function: str, via: Via | None = None,
                    tools: Value | None = None) -> PromptLayout:
    """The layout of a message list handed to an inferred wrapper whose parameter becomes an LLM
    call's messages: the order is the list's own, so nothing is assumed about a history. The
    `tools=` handed with it come first, as every provider sends them."""
    site = _assembly_site(f"{MESSAGE_LIST_API} ({what})", where, function, via)
    parts = mark_final_user(message_parts(messages, where))
    if tools is not None and not isinstance(tools, NoneVal):
        parts = [Part("tools", tools_text(tools, where), where), *parts]
    return PromptLayout(site, tuple(parts))


def user_turn_layout(what: str, text: Value, where: Location, function: str, via: Via | None = None
                     ) -> PromptLayout:
    """A user message judged where it is built, as the request's final turn: what comes before it
    (the system prompt, a history) is not known and not needed to see fixed text after its input."""
    site = _assembly_site(f"{USER_TURN_API} ({what})", where, function, via)
    return PromptLayout(site, (Part("final_user", content_text(text, where), where),))


def _assembly_site(api: str, where: Location, function: str, via: Via | None) -> CallSite:
    """Where a prompt is judged without its LLM call: handed to an inferred wrapper, the wrapper's
    name and the model the call names (the engine adds the LLM calls it reaches)."""
    if via is None:
        return CallSite(where, api, ASSEMBLY_PROVIDER, None, function)
    return CallSite(where, api, ASSEMBLY_PROVIDER, via.model, function, via=via.name)


@dataclass(frozen=True)
class InputThenFixedText:
    """The request's own content in the final user turn, and the fixed text after it there."""

    index: int  # of the first segment of the request's content in ``layout.segments()``
    hole: Hole
    fixed_chars: int  # literal text after it, up to the end of the turn


def input_then_fixed_text(layout: PromptLayout, settings: frozenset[str] = frozenset()) -> InputThenFixedText | None:
    """The first value of the final user turn that is not known to be constant, with the length
    of the fixed instructions after it in that turn (``instruction_pieces``). A user turn is the
    request: its values are filled per call, so literal text after them is never part of a prefix
    that two calls share. Values named like one of ``settings`` (``language``, ``entity_types``)
    are taken to be constant. None when a history or an earlier turn with values comes before the
    turn (nothing to gain there)."""
    segments = layout.segments()
    first: tuple[int, Hole] | None = None
    for index, (part, segment) in enumerate(segments):
        if part != "final_user":
            if isinstance(segment, Hole) and (segment.is_history or part in EARLIER_TURN_PARTS):
                # After a history that grows, the newest message sits at a new place on every call:
                # nothing in it was ever a shared prefix, whatever its order.
                return None
        elif first is None and may_change(segment, settings):
            first = (index, segment)
    if first is None:
        return None
    return InputThenFixedText(*first, sum(len(piece.text) for piece in instruction_pieces(segments, first[0])))


def may_change(segment: Segment, settings: frozenset[str] = frozenset()) -> bool:
    """A value of the final user turn not known to be constant, nor named like a setting of the
    deployment: what PC010 takes for the request's content."""
    return isinstance(segment, Hole) and segment.volatility is not Volatility.STABLE \
        and not named_like(segment.expression, settings)


@dataclass(frozen=True)
class RequestThenHistory:
    """The request's own content in the final user turn, and the conversation so far rendered as
    text after it there."""

    index: int  # of the request's first value in ``layout.segments()``
    hole: Hole
    history: Hole  # the rendered conversation


def request_then_history(layout: PromptLayout, request_names: frozenset[str],
                         settings: frozenset[str] = frozenset()) -> RequestThenHistory | None:
    """The first value of the final user turn (as ``input_then_fixed_text`` picks it), when it is
    named like the request's new input (``request_names``: `question`, `user_message`,
    `current_user_message`) and the conversation so far, rendered into text, follows it in that
    turn. The rendered history grows at its end, so written first it is a prefix each turn shares
    with the next; after the new input it is part of no shared prefix. A value not named so (an
    agent's task, the same on every step of its loop; a role's name) may well be the same on
    every call that shares the history: then the order costs nothing, unless a method rewrites it
    with a follow-up request while the conversation goes on (origin category ``REQUEST_INPUT``)."""
    found = input_then_fixed_text(layout, settings)
    if found is None or found.hole.is_history or not (_names_one_of(found.hole.expression, request_names)
                                                      or found.hole.category == REQUEST_INPUT):
        return None
    segments = layout.segments()
    history = next((segment for part, segment in segments[found.index + 1:]
                    if part == "final_user" and isinstance(segment, Hole) and segment.is_history), None)
    return RequestThenHistory(found.index, found.hole, history) if history is not None else None


def assembled_once(layout: PromptLayout, guard: str) -> PromptLayout:
    """System content assembled behind a first-call guard (``if self.turn_count == 0:``): what
    changes per request there is fixed for the rest of the object's run, a conversation."""
    assumption = f"assembled only under {guard}, on the object's first call: once per conversation"

    def cap(segment: Segment) -> Segment:
        if isinstance(segment, Hole) and segment.volatility in (Volatility.PER_REQUEST, Volatility.PER_USER):
            return replace(segment, volatility=Volatility.PER_SESSION, assumption=assumption)
        return segment

    return replace(layout, parts=tuple(replace(part, segments=tuple(map(cap, part.segments)))
                                       for part in layout.parts))


def next_per_request(segments: tuple[tuple[str, Segment], ...], index: int, end: int | None = None) -> int | None:
    """The first value (before ``end``) that changes on every request, after segment ``index``
    when that one changes less often (a user's id, the day's date, a set's order): the text after
    it is cached by no request, so it is that value's loss, not this one's, and moving this one
    caches the text up to it only. None for a per-request value itself. The history and the
    final user turn are no such value (their text is no prefix either way)."""
    first = segments[index][1]
    if not isinstance(first, Hole) or first.volatility is Volatility.PER_REQUEST:
        return None
    for position in range(index + 1, len(segments) if end is None else end):
        part, segment = segments[position]
        if isinstance(segment, Hole) and segment.volatility is Volatility.PER_REQUEST and not segment.is_history \
                and part != "final_user":
            return position
    return None


def instruction_pieces(segments: tuple[tuple[str, Segment], ...], start: int) -> list[Literal]:
    """The fixed instructions of the final user turn after segment ``start``: what a fix moves
    ahead of the request's content. Pieces shorter than ``MIN_INSTRUCTION_PIECE`` are labels and
    punctuation; a piece written again from one place after a value is the formatting of a loop's
    items (`' is imported by the following files:` once per file), which stays with its values
    (`"..." * 20` repeats a piece with no value between: that is one long text)."""
    pieces: list[Literal] = []
    values_before: dict[Location, int] = {}  # a piece's place -> how many values preceded it first
    looped: set[Location] = set()
    values = 0
    for part, segment in segments[start + 1:]:
        if part != "final_user":
            continue
        if isinstance(segment, Hole):
            values += 1
        elif isinstance(segment, Literal) and len(segment.text.strip()) >= MIN_INSTRUCTION_PIECE:
            pieces.append(segment)
            if segment.location is not None and values_before.setdefault(segment.location, values) != values:
                looped.add(segment.location)
    return [piece for piece in pieces if piece.location not in looped]


def _names_one_of(expression: str, names: frozenset[str]) -> bool:
    """Whether a name in ``expression``, or in a key it reads (`context.get("current_user_message")`),
    is one of ``names`` or ends with `_` and one of them."""
    return any(word in names or any(word.endswith(f"_{name}") for name in names)
               for word in (found.lower() for found in LAST_NAME.findall(expression)))


def named_like(expression: str, names: frozenset[str]) -> bool:
    """Whether the last name in ``expression`` (``context['entity_types']`` → ``entity_types``)
    is one of ``names``, whole or as its last ``_`` part."""
    words = LAST_NAME.findall(expression)
    if not words or not names:
        return False
    last = words[-1].lower()
    return last in names or last.rsplit("_", 1)[-1] in names


def is_assembly(call: CallSite) -> bool:
    return call.provider == ASSEMBLY_PROVIDER and call.api.startswith((ASSEMBLY_API, MESSAGE_LIST_API, USER_TURN_API))


def call_site(node: ast.Call, module: object, spec: ApiSpec, kwargs: dict[str, Value], owner: Obj | None,
              location: Location, function: str) -> CallSite:
    if not spec.model:
        return CallSite(location, spec.api, spec.provider, None, function)
    model_value = kwargs.get(spec.model)
    if model_value is None and owner is not None:  # a client object that holds its model
        model_value = owner.field(spec.model) or owner.field("model_name") or owner.field("model_id")
    return CallSite(location, spec.api, spec.provider, literal_text(model_value), function)
