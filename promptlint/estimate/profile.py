"""Measure a prompt layout in tokens around its first volatile segment.

Positions count known tokens in cache order. A volatile value counts as zero tokens: the fix moves
it after the cacheable content, so it never belongs to what a cache could serve. A stable value of
unknown length (a parameter, the conversation history) also counts as zero and is named instead,
so a figure that covers it is a lower bound.
"""

from __future__ import annotations

from dataclasses import dataclass

from promptlint.analysis.layout import instruction_pieces, next_per_request
from promptlint.estimate.tokens import TokenCounter
from promptlint.model import CacheBreakpoint, Hole, Literal, PromptLayout, Segment

FINAL_USER = "final_user"  # the newest user turn: never part of a reusable prefix


@dataclass(frozen=True)
class Mark:
    """A point of the layout: the segment index it sits before, and known tokens before it."""

    index: int
    position: int


@dataclass(frozen=True)
class Unknown:
    """Stable content of unknown length (a parameter, the conversation history)."""

    index: int
    description: str


@dataclass(frozen=True)
class PrefixProfile:
    bust: Mark  # the first volatile segment
    stable_end: Mark  # the start of the final user turn (the end of what a fixed layout caches)
    total: int  # known tokens of the whole prompt, each hole counted as one (its least length)
    breakpoints: tuple[Mark, ...] = ()  # explicit cache breakpoints before the final user turn
    unknowns: tuple[Unknown, ...] = ()  # before the final user turn

    @property
    def bust_at(self) -> int:
        return self.bust.position

    @property
    def stable_after_bust(self) -> int:
        """Known stable tokens between the volatile value and the final user turn."""
        return max(0, self.stable_end.position - self.bust.position)

    @property
    def clean_breakpoints(self) -> tuple[Mark, ...]:
        """Breakpoints whose prefix holds no volatile value."""
        return tuple(b for b in self.breakpoints if b.index < self.bust.index)

    def unknowns_between(self, start: Mark, end: Mark) -> tuple[str, ...]:
        return tuple(u.description for u in self.unknowns if start.index < u.index < end.index)


def measure(layout: PromptLayout, bust_index: int, counter: TokenCounter, own_share: bool = False) -> PrefixProfile:
    """Profile ``layout`` whose first volatile segment is ``layout.segments()[bust_index]``; a
    negative ``bust_index`` means a request setting (``prompt_cache_key``, ``cache_salt``) that
    changes per call, which loses the whole prefix. The loss counts every volatile value after it
    as moved too (the fix of the whole prompt), unless ``own_share``: then it ends at the next
    value that changes on every request (PC001's count for a value that changes less often)."""
    position = holes = 0
    stable_end: Mark | None = None
    breakpoints: list[Mark] = []
    unknowns: list[Unknown] = []
    segments = layout.segments()
    for index, (part, segment) in enumerate(segments):
        if part == FINAL_USER and stable_end is None:
            stable_end = Mark(index, position)
        in_prefix = stable_end is None
        if isinstance(segment, CacheBreakpoint) and in_prefix:
            breakpoints.append(Mark(index, position))
        elif isinstance(segment, Literal):
            position += counter.count(segment.text)
        elif isinstance(segment, Hole):
            holes += 1
            if in_prefix and not segment.volatility.is_volatile:
                unknowns.append(Unknown(index, _describe(part, segment)))
    end = stable_end or Mark(len(segments), position)
    if bust_index < 0:  # a request setting (cache key, salt): the whole prefix is affected
        bust = Mark(-1, 0)
    elif bust_index < end.index:
        bust = _mark_at(layout, counter, bust_index)
        cut = next_per_request(segments, bust_index, end.index) if own_share else None
        if cut is not None:  # what follows a value new on every request is cached by no fix of this one
            end = _mark_at(layout, counter, cut)
    else:
        # A value inside the final user turn, fixed instructions after it (PC010): the fix moves
        # them before the turn's values, so the prefix up to the value and they can be cached.
        bust = _mark_at(layout, counter, bust_index)
        moved = sum(counter.count(piece.text) for piece in instruction_pieces(segments, bust_index))
        end = Mark(len(segments), bust.position + moved)
        # A conversation rendered after it (PC011) moves ahead of it too: its length is not known.
        unknowns += [Unknown(index, _describe(part, segment)) for index, (part, segment) in enumerate(segments)
                     if index > bust_index and part == FINAL_USER and isinstance(segment, Hole) and segment.is_history]
    return PrefixProfile(
        bust=bust,
        stable_end=end,
        total=position + holes,
        breakpoints=tuple(breakpoints),
        unknowns=tuple(unknowns),
    )


def _mark_at(layout: PromptLayout, counter: TokenCounter, index: int) -> Mark:
    before = layout.segments()[:index]
    return Mark(index, sum(counter.count(s.text) for _, s in before if isinstance(s, Literal)))


def _describe(part: str, hole: Hole) -> str:
    if hole.is_history:
        return "conversation history"
    return f"{part}: {hole.expression}" if hole.expression else part


def bust_segment(layout: PromptLayout, bust_index: int) -> Segment | None:
    segments = layout.segments()
    return segments[bust_index][1] if 0 <= bust_index < len(segments) else None
