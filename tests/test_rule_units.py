"""PC002 and PC004–PC007 on hand-built layouts: the whole finding a user reads (message, severity,
location, related locations) and the indexes the estimator reads (which layout, which segment).

The rule examples only show that a rule fires; these pin what it says and which value it blames
when several are volatile, so a rule that stops at the first value, names the wrong one or loses
the call's place fails here. PC008 reads files, not layouts: `test_pc008_*` below.
"""

from __future__ import annotations

from promptlint.checks.base import SEVERITY_BY_VOLATILITY, VOLATILITY_WORDS, RuleContext
from promptlint.checks.pc002_unstable_tool_order import UnstableToolOrder
from promptlint.checks.pc004_unstable_json import UnstableJsonSerialization as UnstableJson
from promptlint.checks.pc005_volatile_cache_key import VolatileCacheKey
from promptlint.checks.pc006_volatile_tool_definition import VolatileToolDefinition
from promptlint.checks.pc007_cache_control_after_volatile import CacheControlAfterVolatile
from promptlint.model import (
    CacheBreakpoint,
    CallSite,
    Finding,
    Hole,
    Literal,
    Location,
    Origin,
    Part,
    PromptLayout,
    RelatedLocation,
    Setting,
    Severity,
    Step,
    Volatility,
)

CALL_AT = Location("app.py", 30, 12, 30, 60)
SITE = CallSite(CALL_AT, "openai.chat.completions", "openai", "gpt-4o", "ask")
CONTEXT = RuleContext(min_stable_chars=100)
LONG = Literal("Follow the policy and cite the section you used. " * 10)
LAYOUT_INDEX = 3


def at(line: int) -> Location:
    return Location("app.py", line, 5, line, 25)


def origin_hole(volatility: Volatility, expression: str, line: int, category: str, source: str,
                origin_line: int | None = None) -> Hole:
    born = Origin(at(origin_line or line), source, category, volatility)
    return Hole(volatility, expression, at(line), born, (Step(at(line + 1), "assigned to `x`"),))


SET_ORDER = origin_hole(Volatility.ORDER_UNSTABLE, "enabled", 10, "set-order", "builtins.set", origin_line=8)
SHUFFLED = origin_hole(Volatility.ORDER_UNSTABLE, "tools", 12, "shuffle", "random.shuffle")
JSON_ORDER = origin_hole(Volatility.ORDER_UNSTABLE, "json.dumps(spec)", 14, "json-order", "json.dumps")
CLOCK = origin_hole(Volatility.PER_REQUEST, "now", 16, "clock", "datetime.datetime.now", origin_line=15)
USER = origin_hole(Volatility.PER_USER, "user_id", 18, "user-id", "request.user.id")
DAY = origin_hole(Volatility.PER_DAY, "today", 20, "clock", "datetime.date.today")
UNKNOWN = Hole(Volatility.UNKNOWN, "question", at(22))


def layout(*parts: Part, settings: tuple[Setting, ...] = ()) -> PromptLayout:
    return PromptLayout(SITE, parts, settings)


def related(hole: Hole) -> tuple[RelatedLocation, ...]:
    """What every rule attaches: where the value is born (when elsewhere), its steps, the call."""
    born = ((RelatedLocation(hole.origin.location, f"`{hole.origin.source}` is called here"),)
            if hole.origin is not None and hole.origin.location != hole.location else ())
    steps = tuple(RelatedLocation(step.location, step.description) for step in hole.path)
    return (*born, *steps, RelatedLocation(CALL_AT, "reaches the `openai.chat.completions` call here"))


def expected(rule: object, hole: Hole, index: int, severity: Severity, message: str) -> Finding:
    return Finding(rule.code, rule.name, severity, hole.location or CALL_AT, message, SITE,  # type: ignore[attr-defined]
                   hole.origin, related(hole), hint=rule.fix_hint,  # type: ignore[attr-defined]
                   layout_index=LAYOUT_INDEX, bust_index=index)


def check(rule: object, value: PromptLayout) -> list[Finding]:
    return list(rule.check(value, LAYOUT_INDEX, CONTEXT))  # type: ignore[attr-defined]


# --- PC002 -----------------------------------------------------------------------------------


def test_pc002_blames_each_unordered_tool_list_and_nothing_else() -> None:
    rule = UnstableToolOrder()
    value = layout(Part("tools", (CLOCK, JSON_ORDER, SET_ORDER, Literal("[...]"), SHUFFLED)),
                   Part("system", (SET_ORDER, LONG)))
    words = ("tool definitions of the `openai.chat.completions` call are sent in an order that changes "
             "between runs ({}); tools come first in the prompt, so the whole request misses the cache")
    assert check(rule, value) == [
        expected(rule, SET_ORDER, 2, Severity.ERROR, words.format("order-unstable set-order `enabled`")),
        expected(rule, SHUFFLED, 4, Severity.ERROR, words.format("order-unstable shuffle `tools`")),
    ]


# --- PC004 -----------------------------------------------------------------------------------


def test_pc004_blames_unordered_json_before_enough_stable_text_or_in_tools() -> None:
    rule = UnstableJson()
    value = layout(Part("tools", (JSON_ORDER,)), Part("system", (SET_ORDER, JSON_ORDER, LONG)),
                   Part("final_user", (JSON_ORDER,)))
    assert check(rule, value) == [
        expected(rule, JSON_ORDER, 0, Severity.ERROR,
                 "`json.dumps(spec)` serializes a dict whose key order changes between calls, before "
                 f"{len(LONG.text)} characters of stable text (system prompt) in the `openai.chat.completions` prompt"),
        expected(rule, JSON_ORDER, 2, Severity.ERROR,
                 "`json.dumps(spec)` serializes a dict whose key order changes between calls, before "
                 f"{len(LONG.text)} characters of stable text (system prompt) in the `openai.chat.completions` prompt"),
    ]


def test_pc004_in_tools_counts_even_with_nothing_after_it() -> None:
    rule = UnstableJson()
    assert check(rule, layout(Part("tools", (JSON_ORDER,)))) == [
        expected(rule, JSON_ORDER, 0, Severity.ERROR,
                 "`json.dumps(spec)` serializes a dict whose key order changes between calls, before the "
                 "rest of the prompt in the `openai.chat.completions` prompt")]
    assert check(rule, layout(Part("system", (JSON_ORDER, Literal("short"))))) == []
    # Each value is judged on its own: one with too little after it does not end the search.
    assert [f.bust_index for f in check(rule, layout(Part("system", (JSON_ORDER, Literal("short"))),
                                                     Part("tools", (JSON_ORDER,))))] == [2]


# --- PC005 -----------------------------------------------------------------------------------


def test_pc005_blames_a_per_request_cache_key_only() -> None:
    rule = VolatileCacheKey()
    value = layout(Part("system", (LONG,)), settings=(
        Setting("user", USER), Setting("prompt_cache_key", CLOCK), Setting("model", Literal("gpt-4o")),
        Setting("safety_identifier", UNKNOWN), Setting("cache_salt", SHUFFLED)))
    assert check(rule, value) == [expected(
        rule, CLOCK, -1, Severity.ERROR,
        "`prompt_cache_key` of the `openai.chat.completions` call is a per-request clock `now`: every request "
        "is routed to a cold cache")]


# --- PC006 -----------------------------------------------------------------------------------


def test_pc006_blames_volatile_values_inside_tools_at_their_volatility() -> None:
    rule = VolatileToolDefinition()
    words = ("{} inside a tool definition of the `openai.chat.completions` call: tools come first, so no part "
             "of the request can be cached")
    value = layout(Part("tools", (SET_ORDER, CLOCK, Literal("{"), USER, DAY)), Part("system", (CLOCK, LONG)))
    assert check(rule, value) == [
        expected(rule, CLOCK, 1, Severity.ERROR, words.format("per-request clock `now`")),
        expected(rule, USER, 3, Severity.WARNING, words.format("per-user user-id `user_id`")),
        expected(rule, DAY, 4, Severity.INFO, words.format("per-day clock `today`")),
    ]


def test_every_volatile_scope_has_a_severity_and_words() -> None:
    """The rules index these tables by the volatility of the values they blame."""
    volatile = {v for v in Volatility if v.is_volatile}
    assert set(SEVERITY_BY_VOLATILITY) == volatile
    assert set(VOLATILITY_WORDS) == volatile


def test_pc006_a_per_session_value_without_origin_is_info() -> None:
    rule = VolatileToolDefinition()
    session = Hole(Volatility.PER_SESSION, "session_id", at(24))
    assert check(rule, layout(Part("tools", (session,)))) == [expected(
        rule, session, 0, Severity.INFO,
        "per-session value `session_id` inside a tool definition of the `openai.chat.completions` call: tools "
        "come first, so no part of the request can be cached")]


# --- PC007 -----------------------------------------------------------------------------------


def test_pc007_blames_volatile_values_before_the_last_breakpoint() -> None:
    rule = CacheControlAfterVolatile()
    mark = CacheBreakpoint(at(26))
    words = ("{} comes before the cache breakpoint of the `openai.chat.completions` call: every call writes a "
             "new cache entry and none is read")
    value = layout(Part("system", (CLOCK, LONG, mark, USER, mark, DAY)), Part("final_user", (UNKNOWN,)))
    assert check(rule, value) == [
        expected(rule, CLOCK, 0, Severity.ERROR, words.format("per-request clock `now`")),
        expected(rule, USER, 3, Severity.WARNING, words.format("per-user user-id `user_id`")),
    ]
    assert check(rule, layout(Part("system", (CLOCK, LONG)))) == []  # no breakpoint: PC001's to judge
