"""Provider cache rules and the arithmetic of a cache loss.

Tokens served from cache (P: tokens of the common prefix, N: tokens of the whole prompt):

- ``automatic`` (OpenAI before GPT-5.6, Azure, Gemini implicit, DeepSeek, xAI, Groq)::

      usable = min(P, N - 1)                  # the last prompt token is always computed
      cached = 0                              if usable < min_cacheable_tokens
             = g * floor(usable / g)          otherwise (g: granularity, 128 on OpenAI)

- ``explicit`` (Anthropic cache_control, Bedrock cachePoint): a cache entry exists only at a
  breakpoint, so ``cached`` is the furthest breakpoint at or below P that reaches the model's
  minimum. A call with no breakpoint caches nothing either way; its figures then assume the fix
  also adds one breakpoint at the end of the stable prefix (said in the note).
- ``implicit-breakpoint`` (OpenAI GPT-5.6 and later): like ``explicit``, plus one breakpoint the
  provider manages, taken to sit at the start of the newest user turn.

Lost tokens per call = cached(fixed layout: every stable token before the newest user turn) -
cached(as written: only what precedes the first volatile value).

Money, per token: a busted call pays the write price (which equals the input price where writes
are free) where the fixed layout pays the read price::

    usd_per_busted_call = lost * (write - read) / 1e6 * warm
    warm = 1 - exp(-calls_per_minute * ttl_minutes)   # share of calls that find a warm cache
    usd_per_month = usd_per_busted_call * busted_calls_per_day * month_days

``warm`` assumes calls arrive at random (Poisson) and is about 1 at a few hundred calls a day or
more. ``busted_calls_per_day`` is every call for per-request values, one a day for per-day and
per-process values (a date changes once a day; a worker restarts now and then), and one call per
conversation for per-session and per-user values (the first: the conversation's later calls share
its prefix), with ``calls-per-conversation`` calls in a conversation.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from promptlint.estimate.prices import PriceRow
from promptlint.estimate.profile import Mark, PrefixProfile
from promptlint.model import Volatility

MINUTES_PER_DAY = 1440.0
# Volatilities whose value changes about once a day rather than on every call.
ONCE_A_DAY = (Volatility.PER_DAY, Volatility.PER_PROCESS)
# ... and those whose value is set once per conversation: only its first call misses.
ONCE_A_CONVERSATION = (Volatility.PER_SESSION, Volatility.PER_USER)


@dataclass(frozen=True)
class TokenLoss:
    cached_as_written: int
    cached_fixed: int
    note: str = ""
    unknown: tuple[str, ...] = ()  # stable content of unknown length inside the lost span

    @property
    def lost(self) -> int:
        return max(0, self.cached_fixed - self.cached_as_written)


@dataclass(frozen=True)
class Money:
    usd_per_1k_calls: float
    usd_per_month: float
    warm: float  # share of calls that would find the fixed prefix still cached
    busted_calls_per_day: float


def cached_automatic(prefix: int, total: int, minimum: int, granularity: int) -> int:
    """Tokens an automatic prefix cache serves for a common prefix of ``prefix`` tokens."""
    usable = min(prefix, max(total - 1, 0))
    if usable < minimum or usable <= 0:
        return 0
    return granularity * (usable // granularity)


def furthest_breakpoint(marks: tuple[Mark, ...], total: int, minimum: int) -> Mark | None:
    """The breakpoint that serves the most tokens: entries exist only at breakpoints, and only
    those at or above the minimum (and before the last prompt token) are ever written."""
    usable = [m for m in marks if 0 < m.position <= total - 1 and m.position >= minimum]
    return max(usable, key=lambda m: (m.position, m.index), default=None)


def token_loss(profile: PrefixProfile, row: PriceRow) -> TokenLoss:
    """Cached tokens as written and with the volatile value moved out, under ``row``'s rules."""
    if row.cache == "automatic":
        return _automatic_loss(profile, row)
    return _breakpoint_loss(profile, row)


def _automatic_loss(profile: PrefixProfile, row: PriceRow) -> TokenLoss:
    as_written = cached_automatic(profile.bust.position, profile.total, row.min_cacheable_tokens,
                                  row.granularity)
    fixed = cached_automatic(profile.stable_end.position, profile.total, row.min_cacheable_tokens,
                             row.granularity)
    unknown = profile.unknowns_between(profile.bust, profile.stable_end)
    note = _below_minimum(profile.stable_end.position, row, unknown) if fixed == 0 else ""
    return TokenLoss(as_written, max(fixed, as_written), note, unknown)


def _breakpoint_loss(profile: PrefixProfile, row: PriceRow) -> TokenLoss:
    note = ""
    fixed_points = profile.breakpoints
    if row.cache == "implicit-breakpoint":  # the provider's own one, before the newest turn
        fixed_points = (*fixed_points, profile.stable_end)
    elif not fixed_points:
        fixed_points = (profile.stable_end,)
        note = "no cache breakpoint in this call: figures assume the fix adds one after the stable prefix"
    minimum = row.min_cacheable_tokens
    written = furthest_breakpoint(profile.clean_breakpoints, profile.total, minimum)
    fixed = furthest_breakpoint(fixed_points, profile.total, minimum)
    reach = fixed or max(fixed_points, key=lambda m: m.position)
    unknown = profile.unknowns_between(profile.bust, reach)
    if fixed is None:
        note = _below_minimum(reach.position, row, unknown)
    as_written = written.position if written else 0
    return TokenLoss(as_written, max(fixed.position if fixed else 0, as_written), note, unknown)


NAMED_PARTS = 4  # unknown parts a note names; the rest are counted (the estimate's JSON lists them all)


def named_parts(parts: Iterable[str]) -> str:
    """The parts of unknown length a loss depends on, each named once, the first few only: a
    request assembled from many unknown pieces would otherwise fill the cost line with them."""
    distinct = list(dict.fromkeys(parts))
    shown = ", ".join(distinct[:NAMED_PARTS])
    rest = len(distinct) - NAMED_PARTS
    return shown if rest <= 0 else f"{shown} and {rest} more part{'' if rest == 1 else 's'}"


def _below_minimum(tokens: int, row: PriceRow, unknown: tuple[str, ...] = ()) -> str:
    if unknown:  # the history after it may well carry the prefix past the minimum
        return (f"the known stable prefix ({tokens:,} token{'' if tokens == 1 else 's'}) is below {row.model}'s "
                f"{row.min_cacheable_tokens:,}-token minimum; the loss depends on the "
                f"{named_parts(unknown)} after it (unknown length)")
    return (f"the stable prefix ({tokens:,} known token{'' if tokens == 1 else 's'}) is below {row.model}'s "
            f"{row.min_cacheable_tokens:,}-token minimum: nothing is cached either way")


def warm_share(calls_per_day: float, ttl_minutes: float) -> float:
    """Share of calls that come within the TTL of the previous one (Poisson arrivals)."""
    if calls_per_day <= 0:
        return 0.0
    return 1.0 - math.exp(-calls_per_day / MINUTES_PER_DAY * ttl_minutes)


def busted_calls_per_day(volatility: Volatility | None, calls_per_day: float,
                         calls_per_conversation: float) -> float:
    if volatility in ONCE_A_DAY:
        return min(1.0, calls_per_day)
    if volatility in ONCE_A_CONVERSATION:
        return calls_per_day / max(1.0, calls_per_conversation)
    return calls_per_day


def money(lost_tokens: int, row: PriceRow, calls_per_day: float, volatility: Volatility | None,
          month_days: int, calls_per_conversation: float) -> Money:
    """What ``lost_tokens`` per busted call cost at ``row``'s prices and this traffic."""
    warm = warm_share(calls_per_day, row.ttl_minutes)
    busted = busted_calls_per_day(volatility, calls_per_day, calls_per_conversation)
    per_busted_call = lost_tokens * (row.write_price - row.cache_read) / 1_000_000 * warm
    per_month = per_busted_call * busted * month_days
    per_1k = per_busted_call * busted / calls_per_day * 1000 if calls_per_day > 0 else 0.0
    return Money(per_1k, per_month, warm, busted)
