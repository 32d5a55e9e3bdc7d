"""Render a call's layout into concrete requests, as the code lays them out today and as fixed.

The fixed layout is the same parts with every volatile hole moved to the end of the final user turn
(a final user turn is created when the call has none), carrying its label along ("Current time: ")
so the text still reads naturally. Two kinds of hole stay where they are: conversation history
(stable across the turns of one conversation) and order-unstable lists, whose fix is to sort them
in place (``sorted(tools)``), not to move them. Long fixed text after the request's content in the
final user turn (PC010) moves ahead of that content; in such a turn the unknown values are the
request's own content, so they get a different value in every replayed request, and the fixed
text after them is measured as the miss it is (only its instructions move: the formatting of a loop's
items stays with them).
"""

from __future__ import annotations

from dataclasses import dataclass

from promptlint.analysis.layout import instruction_pieces
from promptlint.checks.base import LONG_STABLE_CHARS
from promptlint.checks.pc010_instructions_after_request import instructions_after_request
from promptlint.model import Hole, Literal, Part, PromptLayout, Segment, Volatility
from verifier.records import ChatRequest, Message, SiteRequests
from verifier.values import LATEST_QUESTION, SYNTHETIC_HISTORY, HoleFiller, identifier

MAX_LABEL_CHARS = 60
PREAMBLE_PARTS = ("tools", "response_format")  # rendered at the start of the system message
ROLES = {"system": "system", "developer": "system", "assistant": "assistant", "tool": "tool"}


@dataclass(frozen=True)
class Slot:
    """A hole in a planned part; ``sort_items`` renders an order-unstable list in its fixed order,
    ``per_request`` an unknown value of the final user turn as new in every request."""

    hole: Hole
    sort_items: bool = False
    per_request: bool = False


Item = str | Slot


@dataclass(frozen=True)
class PlannedPart:
    name: str
    items: tuple[Item, ...]


Plan = tuple[PlannedPart, ...]


def is_movable(hole: Hole) -> bool:
    """Volatile holes that the fix moves to the final user turn."""
    return (
        not hole.is_history
        and hole.volatility.is_volatile
        and hole.volatility is not Volatility.ORDER_UNSTABLE
    )


def plan_items(segments: tuple[Segment, ...], final_user: bool = False) -> list[Item]:
    """The segments as plan items; ``final_user``: the unknown values are the request's content."""
    items: list[Item] = []
    for segment in segments:
        if isinstance(segment, Literal):
            items.append(segment.text)
        elif isinstance(segment, Hole):
            request = final_user and not segment.is_history and segment.volatility is Volatility.UNKNOWN
            items.append(Slot(segment, per_request=request))
        # A CacheBreakpoint carries no text.
    return items


def conversation_parts(layout: PromptLayout) -> tuple[Part, ...]:
    """The layout's parts; a conversation (history) without a final user turn gets the synthetic
    question as its last turn: the real history ends with the user's newest message."""
    names = {part.name for part in layout.parts}
    if "history" in names and "final_user" not in names:
        return (*layout.parts, Part("final_user", (Literal(LATEST_QUESTION),)))
    return layout.parts


def current_plan(layout: PromptLayout) -> Plan:
    request = _instructions_after_request(layout)
    return tuple(PlannedPart(p.name, tuple(plan_items(p.segments, request and p.name == "final_user")))
                 for p in conversation_parts(layout))


def pop_label(items: list[Item]) -> str:
    """Take the short label that introduces a moved hole ("Current time: ") off the text before it."""
    if not items or not isinstance(items[-1], str):
        return ""
    text = items[-1]
    tail = text[text.rfind("\n") + 1 :]
    if not tail.strip() or len(tail) > MAX_LABEL_CHARS:
        return ""
    items[-1] = text[: len(text) - len(tail)]
    return tail


def fixed_plan(layout: PromptLayout) -> Plan:
    parts: list[PlannedPart] = []
    moved: list[Item] = []
    instructions_first = _instructions_after_request(layout)
    for part in conversation_parts(layout):
        items: list[Item] = []
        if part.name == "final_user" and instructions_first:
            planned = _fixed_text_first(part.segments, _moved_instructions(layout))
        else:
            planned = plan_items(part.segments)
        for item in planned:
            if isinstance(item, Slot) and part.name != "final_user" and is_movable(item.hole):
                label = pop_label(items) or f"{identifier(item.hole.expression)}: "
                moved.extend(["\n" if moved else "", label, item])
            elif isinstance(item, Slot) and item.hole.volatility is Volatility.ORDER_UNSTABLE:
                items.append(Slot(item.hole, sort_items=True))
            else:
                items.append(item)
        parts.append(PlannedPart(part.name, tuple(items)))
    if not moved:
        return tuple(parts)
    finals = [i for i, p in enumerate(parts) if p.name == "final_user"]
    if not finals:
        return (*parts, PlannedPart("final_user", tuple(moved)))
    last = finals[-1]
    parts[last] = PlannedPart("final_user", (*parts[last].items, "\n\n", *moved))
    return tuple(parts)


def _instructions_after_request(layout: PromptLayout) -> bool:
    """Whether the final user turn holds long fixed text after its first value (a PC010 warning)."""
    return instructions_after_request(layout, min_chars=LONG_STABLE_CHARS) is not None


def _moved_instructions(layout: PromptLayout) -> set[int]:
    """The literal pieces of the final user turn that the fix moves ahead of its first value: its
    instructions, not the formatting of a loop's items (PC010's ``instruction_pieces``)."""
    found = instructions_after_request(layout, min_chars=LONG_STABLE_CHARS)
    return {id(piece) for piece in instruction_pieces(layout.segments(), found.index)} if found else set()


def _fixed_text_first(segments: tuple[Segment, ...], moved: set[int]) -> list[Item]:
    """The final user turn with the fixed instructions after its first request value moved ahead of it."""
    written = [segment for segment in segments if isinstance(segment, (Literal, Hole))]  # one item each
    items = plan_items(segments, final_user=True)
    first = next((i for i, item in enumerate(items) if isinstance(item, Slot) and item.per_request), None)
    if first is None:
        return items
    rest = list(zip(items[first:], written[first:]))
    fixed = [item for item, segment in rest if id(segment) in moved]
    values = [item for item, segment in rest if id(segment) not in moved]
    return [*items[:first], *fixed, "\n\n", *values]


def short(expression: str, limit: int = 48) -> str:
    return expression if len(expression) <= limit else expression[: limit - 3] + "..."


def fixed_layout_notes(layout: PromptLayout) -> tuple[str, ...]:
    """What the fixed layout changed, in words, for the report."""
    holes = [(p.name, s) for p in layout.parts for s in p.segments if isinstance(s, Hole)]
    moved = [f"{short(h.expression)} ({h.category})" for name, h in holes
             if name != "final_user" and is_movable(h)]
    ordered = [short(h.expression) for _, h in holes if h.volatility is Volatility.ORDER_UNSTABLE]
    notes = []
    if moved:
        notes.append("fix moves to the final user turn: " + ", ".join(moved))
    if ordered:
        notes.append("fix sorts in place: " + ", ".join(ordered))
    if _instructions_after_request(layout):
        notes.append("fix moves the final user message's fixed text before its first value")
    if any(h.is_history for _, h in holes):
        notes.append("history: a fixed synthetic 4-message exchange")
    if layout.settings:
        notes.append("request settings not replayed: " + ", ".join(s.name for s in layout.settings))
    return tuple(notes)


def render_text(items: tuple[Item, ...], filler: HoleFiller, index: int) -> str:
    out = []
    for item in items:
        if isinstance(item, str):
            out.append(item)
        elif item.sort_items:
            out.append(filler.sorted_items(item.hole))
        elif item.per_request:
            out.append(filler.request_content(item.hole, index))
        else:
            out.append(filler.value(item.hole, index))
    return "".join(out)


def render_messages(plan: Plan, filler: HoleFiller, index: int) -> tuple[Message, ...]:
    """OpenAI chat messages for request ``index``: tool and schema text opens the system message."""
    preamble: list[str] = []
    messages: list[Message] = []
    for part in plan:
        if part.name == "history" and any(isinstance(i, Slot) and i.hole.is_history for i in part.items):
            messages.extend(dict(m) for m in SYNTHETIC_HISTORY)
            continue
        text = render_text(part.items, filler, index)
        if not text.strip():
            continue
        if part.name in PREAMBLE_PARTS:
            preamble.append(text)
            continue
        role = ROLES.get(part.name, "user")
        message: Message = {"role": role, "content": text}
        if role == "tool":
            message["tool_call_id"] = "call_0"
        messages.append(message)
    if preamble:
        messages = attach_preamble("\n\n".join(preamble), messages)
    return tuple(messages)


def attach_preamble(preamble: str, messages: list[Message]) -> list[Message]:
    if messages and messages[0]["role"] == "system":
        first = {**messages[0], "content": preamble + "\n\n" + messages[0]["content"]}
        return [first, *messages[1:]]
    return [{"role": "system", "content": preamble}, *messages]


def render_requests(plan: Plan, count: int, seed: int = 0) -> tuple[ChatRequest, ...]:
    filler = HoleFiller(seed)
    return tuple(ChatRequest(render_messages(plan, filler, i)) for i in range(count))


def render_site(layout: PromptLayout, count: int, seed: int = 0) -> SiteRequests:
    """The ``count`` requests of one call site in both layouts."""
    location = layout.call.location
    return SiteRequests(
        path=location.path,
        line=location.line,
        api=layout.call.api,
        current=render_requests(current_plan(layout), count, seed),
        fixed=render_requests(fixed_plan(layout), count, seed),
        notes=fixed_layout_notes(layout),
    )
