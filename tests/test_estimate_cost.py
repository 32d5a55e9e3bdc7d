"""Lost tokens and dollars, checked against hand-computed examples for providers with different
cache rules. Layouts are built by hand: " word" * n is exactly n o200k_base tokens."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import date

import pytest

from promptlint.config import Config
from promptlint.estimate import estimate, format_estimate
from promptlint.estimate.cost import cached_automatic, furthest_breakpoint, money, warm_share
from promptlint.estimate.prices import PriceRow
from promptlint.estimate.profile import Mark
from promptlint.model import (
    AnalysisResult, CacheBreakpoint, CallSite, Finding, Hole, Literal, Location, Part, PromptLayout,
    Severity, Volatility,
)
from promptlint.estimate.traffic import traffic_for

TODAY = date(2026, 11, 30)
LOC = Location("app/agent.py", 10, 5, 10, 30)
BUSY = 100_000.0  # calls/day at which every TTL is warm: exp(-100000/1440*5) is ~1e-151


def words(n: int) -> Literal:
    return Literal(" word" * n)


def clock(volatility: Volatility = Volatility.PER_REQUEST) -> Hole:
    return Hole(volatility, "datetime.now()", LOC)


QUESTION = Part("final_user", (Hole(Volatility.UNKNOWN, "question", None),))
HISTORY = Part("history", (Hole(Volatility.UNKNOWN, "history", None, is_history=True),))


def run(parts: tuple[Part, ...], provider: str, model: str | None, bust_index: int,
        **config: object):
    call = CallSite(LOC, "test.api", provider, model, "agent.Agent.answer")
    layout = PromptLayout(call, parts)
    finding = Finding("PC001", "volatile-before-stable", Severity.WARNING, LOC, "m", call,
                      layout_index=0, bust_index=bust_index)
    result = estimate(AnalysisResult((finding,), (), (layout,)), Config(**config), today=TODAY)
    return result.findings[0].estimate


def test_word_literals_are_one_token_per_word():
    from promptlint.estimate.tokens import load_counter

    assert load_counter().count(" word" * 1234) == 1234


# --- OpenAI before GPT-5.6: automatic, 1,024 minimum, 128-token steps, free writes -------------

def test_openai_gpt4o_hand_computed():
    parts = (Part("system", (words(100), clock(), words(2000))), QUESTION)
    est = run(parts, "openai", "gpt-4o", bust_index=1, calls_per_day=BUSY)
    (loss,) = est.losses
    # As written: 100 tokens before the clock, below 1,024: nothing cached.
    # Fixed: 2,100 stable tokens -> 128 * floor(2100 / 128) = 2,048 cached.
    assert loss.lost_tokens_per_call == est.lost_tokens_per_call == 2048
    # A miss pays input ($2.50/M), a hit pays cache read ($1.25/M): 2048 * 1.25e-6 = $0.00256.
    assert loss.usd_per_1k_calls == pytest.approx(2.56)
    assert loss.usd_per_month == pytest.approx(0.00256 * BUSY * 30)
    assert (loss.provider, loss.model, loss.price_as_of) == ("openai", "gpt-4o", "2026-11-30")
    assert est.exact and est.tokenizer == "o200k_base" and not est.unknown_length


def test_openai_keeps_the_cached_steps_before_the_volatile_value():
    parts = (Part("system", (words(1100), clock(), words(2000))), QUESTION)
    est = run(parts, "openai", "gpt-4.1", bust_index=1, calls_per_day=BUSY)
    # As written: 128 * floor(1100 / 128) = 1,024; fixed: 128 * floor(3100 / 128) = 3,072.
    assert est.lost_tokens_per_call == 3072 - 1024
    # gpt-4.1: input $2.00, cached $0.50 -> 2048 * 1.5e-6 = $0.003072 per call.
    assert est.losses[0].usd_per_1k_calls == pytest.approx(3.072)


def test_openai_below_the_minimum_loses_nothing():
    parts = (Part("system", (clock(), words(900))), QUESTION)
    est = run(parts, "openai", "gpt-4o", bust_index=0)
    assert est.lost_tokens_per_call == 0
    assert est.losses[0].usd_per_month == 0
    assert "below gpt-4o's 1,024-token minimum" in est.losses[0].note
    assert format_estimate(est).startswith("no cached tokens lost per call: the stable prefix (900")


# --- Anthropic: explicit breakpoints, per-model minimum, 1.25x write premium ---------------------

def anthropic_parts() -> tuple[Part, ...]:
    return (
        Part("tools", (words(1500), CacheBreakpoint(None))),
        Part("system", (clock(), words(800), CacheBreakpoint(None))),
        QUESTION,
    )


def test_anthropic_sonnet_breakpoints_hand_computed():
    est = run(anthropic_parts(), "anthropic", "claude-sonnet-4-5-20250929", bust_index=2,
              calls_per_day=5000)
    (loss,) = est.losses
    # As written: the tools breakpoint (1,500 tokens, clean) still hits. Fixed: the system
    # breakpoint (2,300 tokens) would hit too, so 800 tokens are lost.
    assert loss.lost_tokens_per_call == 800
    # Each busted call writes them at the 5-minute price ($3.75/M) instead of reading ($0.30/M):
    # 800 * 3.45e-6 = $0.00276 per call.
    warm = 1 - math.exp(-5000 / 1440 * 5)
    assert loss.usd_per_1k_calls == pytest.approx(2.76 * warm)
    assert loss.usd_per_month == pytest.approx(0.00276 * warm * 5000 * 30, rel=1e-6)
    assert loss.model == "claude-sonnet-4.5" and loss.price_as_of == "2026-10-08"
    assert not est.exact  # o200k_base only approximates Claude's tokenizer
    assert "approximat" in est.note


def test_anthropic_minimum_is_per_model():
    # Haiku 4.5 caches nothing below 4,096 tokens: both breakpoints are too early.
    est = run(anthropic_parts(), "anthropic", "claude-haiku-4-5", bust_index=2)
    assert est.lost_tokens_per_call == 0
    assert "4,096-token minimum" in est.losses[0].note


def test_anthropic_without_breakpoints_assumes_the_fix_adds_one():
    parts = (Part("system", (clock(), words(3000))), QUESTION)
    est = run(parts, "anthropic", "claude-opus-4-1", bust_index=0, calls_per_day=BUSY)
    (loss,) = est.losses
    assert loss.lost_tokens_per_call == 3000
    assert "assume the fix adds one" in loss.note
    # Opus 4.1: write $18.75, read $1.50 -> 3000 * 17.25e-6 = $0.05175 per call.
    assert loss.usd_per_1k_calls == pytest.approx(51.75)


def test_breakpoint_after_the_volatile_value_does_not_help():
    parts = (Part("system", (words(2000), clock(), CacheBreakpoint(None), words(10))), QUESTION)
    est = run(parts, "bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0", bust_index=1,
              calls_per_day=BUSY)
    # Bedrock Claude: the only breakpoint follows the clock; as written nothing is read.
    # Fixed (clock moved out): the breakpoint at 2,000 tokens hits.
    assert est.losses[0].provider == "bedrock"
    assert est.lost_tokens_per_call == 2000


# --- Gemini implicit (2,048 minimum, any length), DeepSeek (64-token units) ---------------------

def test_gemini_implicit_hand_computed():
    parts = (Part("system", (words(500), clock(), words(3000))), QUESTION)
    est = run(parts, "gemini", "gemini-2.5-flash", bust_index=1, calls_per_day=1000)
    (loss,) = est.losses
    assert loss.lost_tokens_per_call == 3500  # 500 < 2,048 as written; all 3,500 when fixed
    warm = 1 - math.exp(-1000 / 1440 * 5)  # 0.9689: a few calls come after the TTL ran out
    per_call = 3500 * (0.30 - 0.03) / 1e6 * warm
    assert loss.usd_per_1k_calls == pytest.approx(per_call * 1000)
    assert loss.usd_per_month == pytest.approx(per_call * 1000 * 30, rel=1e-6)


def test_deepseek_granularity():
    parts = (Part("system", (words(100), clock(), words(900))), QUESTION)
    est = run(parts, "openai", "deepseek-flash", bust_index=1, calls_per_day=BUSY)
    # 64-token units: as written 64, fixed 64 * floor(1000 / 64) = 960.
    assert est.losses[0].provider == "deepseek"
    assert est.lost_tokens_per_call == 960 - 64
    assert est.losses[0].usd_per_1k_calls == pytest.approx(896 * (0.30 - 0.006) / 1000)


# --- OpenAI GPT-5.6+: a managed breakpoint, no 128 rounding, 1.25x writes ------------------------

def test_openai_56_implicit_breakpoint():
    parts = (Part("system", (clock(), words(2000))), QUESTION)
    est = run(parts, "openai", "gpt-5.6-sol", bust_index=0, calls_per_day=BUSY)
    assert est.lost_tokens_per_call == 2000  # no rounding to 128
    # write $6.25 (1.25x of $5.00), read $0.50 -> 2000 * 5.75e-6 = $0.0115 per call.
    assert est.losses[0].usd_per_1k_calls == pytest.approx(11.5)


# --- traffic, volatility, unknowns -------------------------------------------------------------

def test_per_day_values_miss_once_a_day():
    parts = (Part("system", (clock(Volatility.PER_DAY), words(2000))), QUESTION)
    est = run(parts, "openai", "gpt-4o", bust_index=0, calls_per_day=BUSY)
    (loss,) = est.losses
    assert loss.lost_tokens_per_call == 1920  # a busted call still loses 128 * 15 tokens
    assert loss.usd_per_month == pytest.approx(1920 * 1.25e-6 * 30)  # but only one call a day
    assert "once a day" in loss.note


def test_unknown_length_is_said_not_invented():
    parts = (Part("system", (clock(), words(40), Hole(Volatility.UNKNOWN, "policy_text", None))),
             QUESTION)
    est = run(parts, "openai", "gpt-4o", bust_index=0)
    assert est.lost_tokens_per_call is None
    assert est.unknown_length
    assert "system: policy_text" in est.note
    assert "unknown" in format_estimate(est)


def test_history_makes_the_count_a_lower_bound():
    parts = (Part("system", (clock(), words(2000))), HISTORY, QUESTION)
    est = run(parts, "openai", "gpt-4o", bust_index=0)
    assert est.lost_tokens_per_call == 1920
    assert est.unknown_length
    assert "conversation history" in est.note
    assert format_estimate(est).startswith("at least 1,920 cached tokens")


def test_short_known_prefix_before_a_history_says_the_loss_depends_on_it():
    parts = (Part("system", (clock(), words(600))), HISTORY, QUESTION)
    est = run(parts, "openai", "gpt-4o", bust_index=0)
    assert est.lost_tokens_per_call is None and est.unknown_length
    line = format_estimate(est)
    assert "the known stable prefix (600 tokens) is below gpt-4o's 1,024-token minimum" in line
    assert "depends on the conversation history" in line and "nothing is cached either way" not in line
    # Two histories after the value (khoj's operator prompt has four) are one part to wait on.
    est = run((Part("system", (clock(), words(600))), HISTORY, HISTORY, QUESTION), "openai", "gpt-4o", bust_index=0)
    assert format_estimate(est).count("conversation history") == 1


def test_history_after_the_last_breakpoint_is_not_counted_as_lost():
    parts = (Part("system", (clock(), words(2000), CacheBreakpoint(None))), HISTORY, QUESTION)
    est = run(parts, "anthropic", "claude-sonnet-4-5", bust_index=0)
    assert est.lost_tokens_per_call == 2000
    assert not est.unknown_length


def test_unknown_model_is_priced_on_every_provider():
    parts = (Part("system", (clock(), words(5000))), QUESTION)
    est = run(parts, "litellm", None, bust_index=0)
    providers = {loss.provider for loss in est.losses}
    assert {"openai", "anthropic", "gemini", "bedrock", "azure", "deepseek"} <= providers
    assert est.lost_tokens_per_call == max(loss.lost_tokens_per_call for loss in est.losses)
    assert all("model not known statically" in loss.note for loss in est.losses)
    only = run(parts, "litellm", None, bust_index=0, providers=("anthropic/claude-haiku-4.5",))
    assert [loss.model for loss in only.losses] == ["claude-haiku-4.5"]


def test_user_tokenizer_makes_counts_exact(tmp_path):
    from tokenizers import Tokenizer, models, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0, "word": 1}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    parts = (Part("system", (clock(), words(3000))), QUESTION)
    est = run(parts, "anthropic", "claude-sonnet-4-5", bust_index=0, tokenizer=str(tmp_path))
    assert est.exact and est.tokenizer == tmp_path.name
    assert est.lost_tokens_per_call == 3000


def test_finding_without_layout():
    call = CallSite(LOC, "x", "openai", "gpt-4o")
    finding = Finding("PC008", "chat-template-date", Severity.WARNING, LOC, "m", call)
    result = estimate(AnalysisResult((finding,), ()), Config(), today=TODAY)
    assert result.findings[0].estimate.lost_tokens_per_call is None
    assert "no prompt layout" in result.findings[0].estimate.note


def test_traffic_resolution():
    config = Config(calls_per_day=700.0, traffic=(("app/*.py", 300.0), ("app/agent.py:answer", 5000.0)))
    call = CallSite(LOC, "x", "openai", "gpt-4o", "agent.Agent.answer")
    assert traffic_for(call, config).calls_per_day == 5000
    assert traffic_for(replace(call, function="agent.other"), config).calls_per_day == 300
    elsewhere = replace(call, location=replace(LOC, path="lib/x.py"))
    assert traffic_for(elsewhere, config).calls_per_day == 700
    assert traffic_for(elsewhere, config).source == "default calls-per-day"


def test_traffic_changes_the_month():
    parts = (Part("system", (words(100), clock(), words(2000))), QUESTION)
    est = run(parts, "openai", "gpt-4o", bust_index=1, traffic=(("app/agent.py:answer", 5000.0),))
    assert est.losses[0].calls_per_day == 5000
    assert est.losses[0].usd_per_month == pytest.approx(0.00256 * 5000 * 30 * warm_share(5000, 5))


@pytest.mark.parametrize(("prefix", "total", "minimum", "granularity", "cached"), [
    (1023, 5000, 1024, 128, 0), (1024, 5000, 1024, 128, 1024), (1151, 5000, 1024, 128, 1024),
    (1152, 5000, 1024, 128, 1152), (1024, 1024, 1024, 128, 0),  # the last token is recomputed
    (127, 1000, 0, 128, 0), (255, 256, 0, 128, 128), (256, 256, 0, 128, 128),  # vLLM, B = 128
])
def test_cached_automatic(prefix, total, minimum, granularity, cached):
    assert cached_automatic(prefix, total, minimum, granularity) == cached


def test_warm_share():
    assert warm_share(0, 5) == 0
    assert warm_share(1440, 5) == pytest.approx(1 - math.exp(-5))
    assert warm_share(BUSY, 5) == pytest.approx(1.0)


def test_format_estimate_line():
    parts = (Part("system", (words(100), clock(), words(2000))), QUESTION)
    est = run(parts, "openai", "gpt-4o", bust_index=1, calls_per_day=5000)
    line = format_estimate(est)
    assert line.startswith("~2,048 cached tokens lost per call (o200k_base, exact); $")
    assert "openai/gpt-4o, 5,000 calls/day, prices as of 2026-11-30" in line
    assert line.endswith("[estimate]")
    assert format_estimate(None) == ""


def test_volatile_cache_key_loses_the_whole_prefix():
    parts = (Part("system", (words(1100), CacheBreakpoint(None))), QUESTION)
    est = run(parts, "openai", "gpt-4o", bust_index=-1, calls_per_day=BUSY)
    assert est.lost_tokens_per_call == 1024  # 128 * floor(1100 / 128): nothing survives
    assert "cold cache" in est.losses[0].note
    est = run(parts, "anthropic", "claude-sonnet-4-5", bust_index=-1, calls_per_day=BUSY)
    assert est.lost_tokens_per_call == 1100  # the clean-looking breakpoint does not help


def test_a_tiny_lower_bound_is_shown_as_unknown_not_priced() -> None:
    from promptlint.estimate import format_estimate
    from promptlint.model import Estimate, ProviderLoss

    loss = ProviderLoss("groq", "gpt-oss-120b", 1, 0.0001, 0.0022, 1000.0, "2025-09")
    line = format_estimate(Estimate(1, "o200k_base", exact=False, unknown_length=True, losses=(loss,)))
    assert line.startswith("lost cached tokens per call: unknown") and "only 1 known" in line and "$" not in line
    known = format_estimate(Estimate(1, "o200k_base", exact=False, unknown_length=False, losses=(loss,)))
    assert known.startswith("~1 cached tokens") and "$0.0022/month" in known


# --- boundaries of the cache arithmetic (each value on both sides of its limit) ------------------

@pytest.mark.parametrize("prefix,total,minimum,granularity,cached", [
    (2048, 2049, 1024, 128, 2048),  # all but the last token can be cached
    (2048, 2048, 1024, 128, 1920),  # the last token is always recomputed
    (1024, 1025, 1024, 128, 1024),  # exactly the minimum is enough
    (1023, 1025, 1024, 128, 0),  # one token short of the minimum
    (1, 2, 0, 1, 1),  # no minimum: one cached token counts
    (0, 2, 0, 1, 0),
    (5, 1, 0, 1, 0),  # a one-token prompt caches nothing
])
def test_cached_automatic_boundaries(prefix: int, total: int, minimum: int, granularity: int, cached: int) -> None:
    assert cached_automatic(prefix, total, minimum, granularity) == cached


def test_furthest_breakpoint_boundaries() -> None:
    marks = tuple(Mark(index, position) for index, position in enumerate((0, 1, 1024, 1500, 2000)))
    assert furthest_breakpoint(marks, 2001, 1024).position == 2000  # up to the last token but one
    assert furthest_breakpoint(marks, 2000, 1024).position == 1500  # not on the last token
    assert furthest_breakpoint(marks[:3], 2000, 1024).position == 1024  # exactly the minimum
    assert furthest_breakpoint(marks[:2], 2000, 1).position == 1  # position 0 caches nothing
    assert furthest_breakpoint(marks[:1], 2000, 0) is None


@pytest.mark.parametrize("calls,share", [(0.0, 0.0), (-1.0, 0.0), (1.0, 1.0 - math.exp(-5 / 1440))])
def test_warm_share_boundaries(calls: float, share: float) -> None:
    assert warm_share(calls, 5.0) == pytest.approx(share)


@pytest.mark.parametrize("calls,per_1k", [(0.0, 0.0), (1.0, None), (1000.0, None)])
def test_money_per_thousand_calls_at_low_traffic(calls: float, per_1k: float | None) -> None:
    row = PriceRow("openai", "gpt-4o", ("gpt-4o",), 2.5, 1.25, (("5m", 2.5),), 10.0, "automatic", 1024, 128, "5m",
                   "2025-06-01", "test")
    result = money(1000, row, calls, Volatility.PER_REQUEST, 30, 10.0)
    per_call = 1000 * (row.write_price - row.cache_read) / 1_000_000 * warm_share(calls, row.ttl_minutes)
    assert result.usd_per_1k_calls == pytest.approx(per_call * 1000 if per_1k is None else per_1k)
    assert result.usd_per_month == pytest.approx(per_call * calls * 30)


def test_a_per_session_value_is_priced_once_per_conversation():
    """A task or a session's start time before the fixed text: the conversation's later calls share
    it, so only its first call misses; the text report says so, and the figure scales with the
    configured conversation length."""
    parts = (Part("system", (words(100), clock(Volatility.PER_SESSION), words(2000))), QUESTION)
    per_request = run((Part("system", (words(100), clock(), words(2000))), QUESTION), "openai", "gpt-4o",
                      bust_index=1, calls_per_day=BUSY)
    per_session = run(parts, "openai", "gpt-4o", bust_index=1, calls_per_day=BUSY)
    longer = run(parts, "openai", "gpt-4o", bust_index=1, calls_per_day=BUSY, calls_per_conversation=40.0)
    assert per_session.lost_tokens_per_call == per_request.lost_tokens_per_call == 2048
    month = per_request.losses[0].usd_per_month
    assert per_session.losses[0].usd_per_month == pytest.approx(month / 10)  # the default: 10 calls
    assert longer.losses[0].usd_per_month == pytest.approx(month / 40)
    # A conversation of one call (or less, as configured) misses on every call.
    single = run(parts, "openai", "gpt-4o", bust_index=1, calls_per_day=BUSY, calls_per_conversation=1.0)
    assert single.losses[0].usd_per_month == pytest.approx(month)
    assert "misses on the first call of each conversation only (1 call in 10" in per_session.losses[0].note
    assert format_estimate(per_session).startswith("~2,048 cached tokens lost per conversation")
    assert format_estimate(per_request).startswith("~2,048 cached tokens lost per call")


# --- the notes of an estimate: what the reader is told besides the figures ---------------------

def test_a_fix_that_caches_carries_no_below_minimum_note():
    # The note explains a zero; where the fix caches 2,048 tokens there is nothing to explain.
    parts = (Part("system", (words(100), clock(), words(2000))), QUESTION)
    est = run(parts, "openai", "gpt-4o", bust_index=1, calls_per_day=BUSY)
    assert est.losses[0].note == ""
    assert format_estimate(est).startswith("~2,048 cached tokens lost per call")


def test_breakpoints_that_serve_the_fix_add_no_note():
    est = run(anthropic_parts(), "anthropic", "claude-sonnet-4-5-20250929", bust_index=2,
              calls_per_day=BUSY)
    assert est.losses[0].note == "tokens approximated with o200k_base"


def test_no_breakpoint_note_is_said_in_full():
    parts = (Part("system", (clock(), words(3000))), QUESTION)
    est = run(parts, "anthropic", "claude-opus-4-1", bust_index=0, calls_per_day=BUSY)
    assert est.losses[0].note == ("no cache breakpoint in this call: figures assume the fix adds one "
                                  "after the stable prefix; tokens approximated with o200k_base")


def test_below_the_minimum_with_breakpoints_says_nothing_is_cached():
    parts = (Part("system", (clock(), words(600))), QUESTION)
    est = run(parts, "anthropic", "claude-sonnet-4-5", bust_index=0, calls_per_day=BUSY)
    assert est.lost_tokens_per_call == 0
    assert est.losses[0].note.startswith(
        "the stable prefix (600 known tokens) is below claude-sonnet-4.5's 1,024-token minimum: "
        "nothing is cached either way")


def test_openai_56_needs_no_breakpoint_in_the_call():
    # The provider places its own breakpoint before the newest turn: no "assume the fix adds one".
    parts = (Part("system", (clock(), words(2000))), QUESTION)
    est = run(parts, "openai", "gpt-5.6-sol", bust_index=0, calls_per_day=BUSY)
    assert "no cache breakpoint" not in est.losses[0].note


def test_openai_56_implicit_breakpoint_reaches_past_an_early_explicit_one():
    # An explicit breakpoint at 1,500 tokens still hits as written; with the clock moved out the
    # provider's own breakpoint at the end of the stable prefix (3,500) would hit too.
    parts = (Part("system", (words(1500), CacheBreakpoint(None), clock(), words(2000))), QUESTION)
    est = run(parts, "openai", "gpt-5.6-sol", bust_index=2, calls_per_day=BUSY)
    assert est.lost_tokens_per_call == 2000
    # Anthropic has no such breakpoint: the same layout loses nothing there.
    assert run(parts, "anthropic", "claude-sonnet-4-5", bust_index=2).lost_tokens_per_call == 0


POLICY = Hole(Volatility.STABLE, "policy_text", None)  # stable text of unknown length


def test_below_the_minimum_before_a_history_on_a_breakpoint_provider():
    parts = (Part("system", (clock(), words(600))), HISTORY, QUESTION)
    est = run(parts, "anthropic", "claude-sonnet-4-5", bust_index=0, calls_per_day=BUSY)
    assert est.lost_tokens_per_call is None and est.unknown_length
    assert est.losses[0].note == ("the known stable prefix (600 tokens) is below claude-sonnet-4.5's 1,024-token "
                                  "minimum; the loss depends on the conversation history after it (unknown length); "
                                  "tokens approximated with o200k_base")


def test_every_unknown_part_the_loss_depends_on_is_named():
    parts = (Part("system", (clock(), words(600), POLICY)), HISTORY, QUESTION)
    est = run(parts, "openai", "gpt-4o", bust_index=0, calls_per_day=BUSY)
    assert est.losses[0].note == ("the known stable prefix (600 tokens) is below gpt-4o's 1,024-token minimum; the "
                                  "loss depends on the system: policy_text, conversation history after it "
                                  "(unknown length)")


def test_a_loss_depending_on_many_unknown_parts_names_the_first_few():
    pieces = tuple(Hole(Volatility.STABLE, f"section_{i}", None) for i in range(7))
    parts = (Part("system", (clock(), words(600), *pieces)), HISTORY, QUESTION)
    est = run(parts, "openai", "gpt-4o", bust_index=0, calls_per_day=BUSY)
    assert est.losses[0].note == ("the known stable prefix (600 tokens) is below gpt-4o's 1,024-token minimum; the "
                                  "loss depends on the system: section_0, system: section_1, system: section_2, "
                                  "system: section_3 and 4 more parts after it (unknown length)")


def test_unknown_text_before_the_breakpoint_makes_the_loss_a_lower_bound():
    parts = (Part("system", (clock(), words(2000), POLICY, CacheBreakpoint(None))), QUESTION)
    est = run(parts, "anthropic", "claude-sonnet-4-5", bust_index=0, calls_per_day=BUSY)
    assert est.lost_tokens_per_call == 2000 and est.unknown_length
    assert est.losses[0].note == "at least: plus system: policy_text (unknown length); tokens approximated with o200k_base"
    assert format_estimate(est).startswith("at least 2,000 cached tokens lost per call")


@pytest.mark.parametrize(("tokens", "said"), [(1, "(1 token)"), (2, "(2 tokens)"), (1, "(1 known token)")])
def test_the_below_minimum_note_counts_tokens_in_words_that_agree(tokens: int, said: str) -> None:
    from promptlint.estimate.cost import _below_minimum

    row = PriceRow("openai", "gpt-4o", ("gpt-4o",), 2.5, 1.25, (("5m", 2.5),), 10.0, "automatic", 1024, 128, "5m",
                   "2025-06-01", "test")
    unknown = () if "known" in said else ("conversation history",)
    assert said in _below_minimum(tokens, row, unknown)
