"""What every rule shares: its identity, documentation, examples, and the layout queries rules use."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar, Iterable

from promptlint.model import (
    MAX_REACHED,
    ORIGIN_VERB,
    ORIGIN_VERBS,
    REACHES,
    SENDS,
    CacheBreakpoint,
    Finding,
    Hole,
    Literal,
    Location,
    PromptLayout,
    RelatedLocation,
    Segment,
    Severity,
    Volatility,
)

# Example sources: a string is the file "app.py"; a dict maps file names to contents.
Example = str | dict[str, str]

# Every volatile scope has one (rules index it; tests/test_rule_units.py checks the table is whole).
SEVERITY_BY_VOLATILITY = {
    Volatility.PER_REQUEST: Severity.ERROR,
    Volatility.ORDER_UNSTABLE: Severity.ERROR,
    Volatility.PER_USER: Severity.WARNING,
    Volatility.PER_SESSION: Severity.INFO,  # once per conversation, then reused: a look-alike
    Volatility.PER_DAY: Severity.INFO,
    Volatility.PER_PROCESS: Severity.INFO,
}
# Values that stay the same for a whole conversation: the history after them belongs to that
# conversation anyway, so only stable text shared across conversations is lost.
PER_CONVERSATION = (Volatility.PER_USER, Volatility.PER_SESSION)
VOLATILITY_WORDS = {
    Volatility.PER_REQUEST: "per-request",
    Volatility.ORDER_UNSTABLE: "order-unstable",
    Volatility.PER_USER: "per-user",
    Volatility.PER_SESSION: "per-session",
    Volatility.PER_DAY: "per-day",
    Volatility.PER_PROCESS: "once-per-process",
}
PART_WORDS = {"tools": "tool definitions", "system": "system prompt", "history": "conversation history",
              "message": "message of unknown role",
              "user": "earlier user message", "assistant": "assistant message", "tool": "tool result",
              "final_user": "final user message", "response_format": "response schema"}
EARLIER_TURNS = ("user", "assistant", "tool", "message", "history")
TURN_PARTS = ("user", "assistant", "tool", "message")  # single messages in the call's own list
MAX_REACHED_SHOWN = 4  # LLM calls named on a finding judged at a wrapper call (a shared name reaches many)
LONG_STABLE_CHARS = 2000  # about 500 tokens: the loss is large enough to be an error
# Said of an order taken from a directory listing (category dir-order, rules/sources.yaml).
DIR_ORDER_NOTE = ("a directory lists its entries in the file system's order, not sorted: one order on a machine "
                  "until files change, another on the next machine, replica or checkout")
NOTABLE_STABLE_CHARS = 800  # about 200 tokens: worth saying at info level, too little for a warning


def sends_related(reaches: tuple[tuple[Location, str, str], ...]) -> list[RelatedLocation]:
    """The LLM calls a wrapper sends the prompt with, the first few, the last saying how many more
    (``reached_calls`` keeps at most MAX_REACHED per wrapper name)."""
    shown = [RelatedLocation(where, f"{SENDS} `{api}` call here") for where, api, _ in reaches[:MAX_REACHED_SHOWN]]
    more = len(reaches) - len(shown)
    if more > 0:
        count = "more" if len(reaches) >= MAX_REACHED else f"{more} more"
        shown[-1] = replace(shown[-1], message=f"{shown[-1].message} (and {count})")
    return shown


@dataclass(frozen=True)
class RuleContext:
    min_stable_chars: int
    # Providers that cache only at breakpoints the caller marks (rules/prices.yaml `cache: explicit`)
    explicit_cache_providers: frozenset[str] = frozenset()
    one_process: bool = False  # a notebook: every call runs in one kernel process
    setting_names: frozenset[str] = frozenset()  # rules/prompt_sinks.yaml `setting_names` (PC010)
    request_inputs: frozenset[str] = frozenset()  # rules/prompt_sinks.yaml `request_inputs` (PC011)


@dataclass(frozen=True)
class StableAfter:
    """What stable content follows a point in the layout (and would be cached if it were first)."""

    chars: int
    history: bool
    unknown_length: bool
    parts: tuple[str, ...]
    assumed: str | None = None  # set when the only history after it is assumed (a partial layout)
    # Stable text before the conversation's own turns: what other conversations would share. The
    # turns a conversation replays (its earlier messages, template text included) are its own.
    shared_chars: int = 0
    shared_unknown_length: bool = False

    @property
    def only_assumed(self) -> bool:
        """Judged at an assembly point, where the history after it is assumed, with little known
        text: whether a one-shot call loses anything is not known."""
        return self.assumed is not None and self.chars < LONG_STABLE_CHARS

    def matters(self, context: RuleContext, shared_only: bool = False) -> bool:
        """Whether enough follows to lose; ``shared_only``: count only content shared across
        conversations (for a value that is itself the same for a whole conversation)."""
        # Nothing at all after it loses nothing, whatever `min-stable-chars` says.
        if shared_only:
            return self.shared_unknown_length or 0 < self.shared_chars and self.shared_chars >= context.min_stable_chars
        enough_text = self.chars > 0 and self.chars >= context.min_stable_chars
        return self.history or self.unknown_length or enough_text

    def describe(self) -> str:
        pieces = []
        if self.chars:
            pieces.append(f"{characters(self.chars)} of stable text")
        if self.unknown_length and not self.chars:
            pieces.append("stable content of unknown length")
        if self.history:
            pieces.append("the conversation history")
        where = ", ".join(dict.fromkeys(PART_WORDS.get(p, p) for p in self.parts))
        return " and ".join(pieces) + (f" ({where})" if where else "")


def characters(count: int) -> str:
    """`1 character`, `2,000 characters`."""
    return f"{count:,} character{'' if count == 1 else 's'}"


def stable_after(layout: PromptLayout, index: int, until: int | None = None) -> StableAfter:
    """What follows segment ``index`` (up to segment ``until``, excluded, when given)."""
    chars, history, unknown_length, parts = 0, False, False, []
    known_history, assumed = False, None
    shared_chars, shared_unknown, in_conversation = 0, False, False
    segments = layout.segments()
    # A value inside a conversation turn (not the system prompt) is replayed as written when that
    # turn becomes history; the messages written after it in the same list are this call's own
    # content, not a history shared with later calls: only a spliced history counts then.
    in_turn = 0 <= index < len(segments) and segments[index][0] in TURN_PARTS
    for position, (part, seg) in enumerate(segments):
        if position <= index:
            continue
        if until is not None and position >= until:
            break
        if part == "final_user" and not (isinstance(seg, Literal)):
            break  # the user's own text: what follows it was never a shared prefix
        in_conversation = in_conversation or part in EARLIER_TURNS or isinstance(seg, Hole) and seg.is_history
        if isinstance(seg, Literal) and seg.text.strip():
            chars += len(seg.text)
            shared_chars += 0 if in_conversation else len(seg.text)
            parts.append(part)
        elif isinstance(seg, Hole):
            if in_turn and part in TURN_PARTS:
                continue
            if seg.is_history or part in EARLIER_TURNS:
                history = True  # earlier turns are the same on every later call of a conversation
                parts.append(part)
                if seg.is_history and seg.assumption:
                    assumed = seg.assumption
                else:
                    known_history = True
            elif seg.volatility is Volatility.STABLE:
                unknown_length = True
                shared_unknown = shared_unknown or not in_conversation
                parts.append(part)
    return StableAfter(chars, history, unknown_length, tuple(parts), None if known_history else assumed,
                       shared_chars, shared_unknown)


def volatile_holes(layout: PromptLayout) -> Iterable[tuple[int, str, Hole]]:
    """Volatile holes that can spoil a cached prefix. In the final user message only those that
    come before any of the user's own (unknown) text: after it, nothing was cacheable anyway."""
    user_text_seen = False
    segments = layout.segments()
    for index, (part, seg) in enumerate(segments):
        if part == "final_user" and isinstance(seg, Hole) and not seg.volatility.is_volatile:
            user_text_seen = True
        if isinstance(seg, Hole) and seg.volatility.is_volatile:
            if part in TURN_PARTS and _written_again(segments, index, seg):
                continue
            if part != "final_user" or not user_text_seen:
                yield index, part, seg


def _written_again(segments: tuple[tuple[str, Segment], ...], index: int, hole: Hole) -> bool:
    """A value in an earlier turn that the same expression writes again in a later turn: a loop
    appends one turn per request (`messages.append({"role": "user", "content": f"[{now()}] {q}"})`),
    so the earlier turn is history, replayed as written. A turn rebuilt at the same place on every
    request holds its value once."""
    origin = hole.origin.location if hole.origin is not None else hole.location
    if origin is None:
        return False
    return any(isinstance(seg, Hole) and part in (*TURN_PARTS, "final_user") and seg.expression == hole.expression
               and (seg.origin.location if seg.origin is not None else seg.location) == origin
               for part, seg in segments[index + 1:])


def breakpoints(layout: PromptLayout) -> list[int]:
    return [i for i, (_, seg) in enumerate(layout.segments()) if isinstance(seg, CacheBreakpoint)]


def has_breakpoint(layout: PromptLayout) -> bool:
    return any(isinstance(seg, CacheBreakpoint) for _, seg in layout.segments())


class Rule:
    """Base class: subclasses set the class attributes and implement ``check``."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    fix_hint: ClassVar[str] = ""
    supersedes: ClassVar[tuple[str, ...]] = ()  # codes this rule replaces at the same location
    VALID: ClassVar[list[Example]] = []
    INVALID: ClassVar[list[Example]] = []

    def check(self, layout: PromptLayout, layout_index: int, context: RuleContext) -> Iterable[Finding]:
        raise NotImplementedError

    def quiet_when_nothing_lost(self, finding: Finding) -> bool:
        """Whether this finding is `info` when its estimate loses nothing at any provider the call
        may reach (else it stays at most a warning that says so): true for a rule about nothing
        but the cache loss."""
        return False

    def finding(self, layout: PromptLayout, layout_index: int, index: int, hole: Hole, severity: Severity,
                message: str) -> Finding:
        location = hole.location or layout.call.location
        related = [RelatedLocation(step.location, step.description) for step in hole.path]
        if hole.origin is not None and hole.origin.location != location:
            verb = ORIGIN_VERB.get(hole.origin.category, ORIGIN_VERBS[0])
            # A derived value's source is what it is derived from: name the value itself first.
            what = f"`{hole.expression}` ({hole.origin.source})" if hole.origin.category == "request-derived" \
                else f"`{hole.origin.source}`"
            related.insert(0, RelatedLocation(hole.origin.location, f"{what} {verb}"))
        related.append(RelatedLocation(layout.call.location, f"{REACHES} `{layout.call.api}` call here"))
        related += sends_related(layout.call.reaches)
        if hole.assumption:
            message += f" (assumption: {hole.assumption})"
        return Finding(
            rule=self.code,
            name=self.name,
            severity=severity,
            location=location,
            message=message,
            call_site=layout.call,
            volatile_source=hole.origin,
            related=tuple(related),
            hint=hole.origin.fix if hole.origin is not None and hole.origin.fix else self.fix_hint,
            layout_index=layout_index,
            bust_index=index,
        )


def describe_hole(hole: Hole) -> str:
    words = VOLATILITY_WORDS[hole.volatility]  # rules describe volatile values only
    what = hole.origin.category if hole.origin else "value"
    return f"{words} {what} `{hole.expression}`"


def segments_before(layout: PromptLayout, index: int) -> list[tuple[str, Segment]]:
    return list(layout.segments()[:index])
