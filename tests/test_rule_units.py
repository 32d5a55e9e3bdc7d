"""PC002 and PC004–PC007 on hand-built layouts: the whole finding a user reads (message, severity,
location, related locations) and the indexes the estimator reads (which layout, which segment).

The rule examples only show that a rule fires; these pin what it says and which value it blames
when several are volatile, so a rule that stops at the first value, names the wrong one or loses
the call's place fails here. PC008 reads files, not layouts: `test_pc008_*` below.
"""

from __future__ import annotations

import json
from dataclasses import replace

from promptlint.checks.base import (
    SEVERITY_BY_VOLATILITY,
    VOLATILITY_WORDS,
    RuleContext,
    StableAfter,
    sends_related,
    stable_after,
)
from promptlint.checks.pc001_volatile_before_stable import CONSEQUENCES, SCOPE_RANK, VolatileBeforeStable
from promptlint.checks.pc002_unstable_tool_order import UnstableToolOrder
from promptlint.checks.pc003_unordered_prompt_content import UnorderedPromptContent
from promptlint.checks.pc004_unstable_json import UnstableJsonSerialization as UnstableJson
from promptlint.checks.pc005_volatile_cache_key import VolatileCacheKey
from promptlint.checks.pc006_volatile_tool_definition import VolatileToolDefinition
from promptlint.checks.pc007_cache_control_after_volatile import CacheControlAfterVolatile
from promptlint.checks.pc008_chat_template_date import ChatTemplateDate
from promptlint.model import (
    MAX_REACHED,
    SENDS,
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


# --- PC003 -----------------------------------------------------------------------------------


def test_pc003_skips_json_order_and_judges_what_follows_it() -> None:
    rule = UnorderedPromptContent()
    value = layout(Part("system", (JSON_ORDER, SHUFFLED, LONG)))
    assert check(rule, value) == [expected(
        rule, SHUFFLED, 1, Severity.ERROR,
        "order-unstable shuffle `tools`: prompt content whose order changes between calls comes before "
        f"{len(LONG.text)} characters of stable text (system prompt) in the `openai.chat.completions` prompt")]


def test_pc003_set_order_in_a_notebook_is_one_order() -> None:
    rule = UnorderedPromptContent()
    value = layout(Part("system", (SET_ORDER, LONG)))
    words = ("order-unstable set-order `enabled`: prompt content whose order changes between calls comes before "
             f"{len(LONG.text)} characters of stable text (system prompt) in the `openai.chat.completions` "
             "prompt; a set of strings iterates in an order fixed per process by PYTHONHASHSEED, so each worker "
             "(and each restart) sends a different prefix")
    assert check(rule, value) == [expected(rule, SET_ORDER, 0, Severity.WARNING, words)]
    notebook = list(rule.check(value, LAYOUT_INDEX, RuleContext(min_stable_chars=100, one_process=True)))
    assert notebook == [expected(rule, SET_ORDER, 0, Severity.INFO, words + "; a notebook runs in one kernel "
                                 "process, so its calls share one order (info)")]
    shuffled = layout(Part("system", (SHUFFLED, LONG)))  # a shuffle changes within one process too
    assert [f.severity for f in rule.check(shuffled, 0, RuleContext(min_stable_chars=100, one_process=True))] == [
        Severity.ERROR]


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
    # Each value is judged on its own: one with too little after it does not end the search (the
    # tools come last here only to have a value that counts after one that does not).
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


def test_pc001_tables_cover_every_scope_it_reports() -> None:
    reported = {v for v in Volatility if v.is_volatile} - {Volatility.ORDER_UNSTABLE}  # PC003's
    assert set(CONSEQUENCES) == reported and set(SCOPE_RANK) == reported


# --- what follows a value (checks/base.py) ---------------------------------------------------


def test_stable_after_a_value_in_a_turn_counts_only_text_and_histories() -> None:
    reply = Hole(Volatility.STABLE, "reply", at(26))
    history = Hole(Volatility.UNKNOWN, "history", at(27), is_history=True)
    value = layout(Part("user", (CLOCK, Literal("so far"))), Part("assistant", (reply,)), Part("history", (history,)))
    # The first segment is in a turn: the reply of unknown length after it is this call's own.
    assert stable_after(value, 0) == StableAfter(6, True, False, ("user", "history"))
    system_first = layout(Part("system", (CLOCK,)), Part("assistant", (reply,)))
    assert stable_after(system_first, 0) == StableAfter(0, True, False, ("assistant",))  # an earlier turn
    assert stable_after(value, 4) == StableAfter(0, False, False, ())  # past the end: nothing follows
    # Before the first segment (a setting): every turn counts, the value's own included.
    assert stable_after(value, -1) == StableAfter(6, True, False, ("user", "user", "assistant", "history"))


def test_enough_text_needs_some_text_at_any_threshold() -> None:
    assert not StableAfter(0, False, False, ()).matters(RuleContext(min_stable_chars=0))
    assert StableAfter(1, False, False, ("system",)).matters(RuleContext(min_stable_chars=1))


def test_pc001_retrieved_content_on_an_uncached_anthropic_call_is_info() -> None:
    rule = VolatileBeforeStable()
    looked_up = Hole(Volatility.PER_REQUEST, "docs", at(28), Origin(at(28), "retriever.search", "retrieval",
                                                                     Volatility.PER_REQUEST))
    site = CallSite(CALL_AT, "anthropic.messages", "anthropic", None, "ask")
    value = PromptLayout(site, (Part("system", (looked_up, LONG)),))
    context = RuleContext(min_stable_chars=100, explicit_cache_providers=frozenset({"anthropic"}))
    [finding] = rule.check(value, 0, context)
    assert (finding.severity, finding.message) == (
        Severity.INFO, f"per-request retrieval `docs` comes before {len(LONG.text)} characters of stable text "
                       "(system prompt) in the `anthropic.messages` prompt; this call marks no cache breakpoint, "
                       "so nothing is cached as written and the order costs nothing today (info)")


def test_pc001_a_per_user_value_costs_only_what_an_explicit_cache_shares_before_its_last_breakpoint() -> None:
    """Anthropic caches nothing after the last breakpoint: a per-user value there, or one followed
    by stable text only after it, costs no text another user would read from the cache (khoj's user
    name, then the breakpoint, then content-block scaffolding of the final turn). A clock keeps its
    warning: a breakpoint added later would pay off only once it moves."""
    rule = VolatileBeforeStable()
    site = CallSite(CALL_AT, "anthropic.messages", "anthropic", None, "ask")
    mark = CacheBreakpoint(at(26))
    context = RuleContext(min_stable_chars=100, explicit_cache_providers=frozenset({"anthropic"}))
    after_mark = PromptLayout(site, (Part("system", (LONG, mark, USER, LONG)),))
    assert list(rule.check(after_mark, 0, context)) == []
    before_mark = PromptLayout(site, (Part("system", (USER, mark, LONG)),))
    assert list(rule.check(before_mark, 0, context)) == []
    [finding] = rule.check(PromptLayout(site, (Part("system", (USER, LONG, mark)),)), 0, context)
    assert finding.severity is Severity.WARNING
    # Where the provider caches every prefix, the same text after the breakpoint counts.
    assert len(list(rule.check(replace(before_mark, call=SITE), 0, context))) == 1
    [clock] = rule.check(PromptLayout(site, (Part("system", (CLOCK, mark, LONG)),)), 0, context)
    assert clock.severity is Severity.WARNING


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
    words = "{} comes before the cache breakpoint of the `openai.chat.completions` call: {}"
    value = layout(Part("system", (CLOCK, LONG, mark, USER, LONG, mark, DAY)), Part("final_user", (UNKNOWN,)))
    assert check(rule, value) == [
        expected(rule, CLOCK, 0, Severity.ERROR, words.format(
            "per-request clock `now`", "every call writes a new cache entry and none is read")),
        expected(rule, USER, 3, Severity.WARNING, words.format(
            "per-user user-id `user_id`", "each user writes a cache entry of their own, read only by that "
            "user's later calls, so the stable text after it is written again for every user")),
    ]
    assert check(rule, layout(Part("system", (CLOCK, LONG)))) == []  # no breakpoint: PC001's to judge


def test_pc007_a_per_user_value_followed_only_by_its_conversation_is_not_reported() -> None:
    """That user's later calls read the entry back (khoj's `User's Name:` before the history);
    the same value before stable text every user shares is a warning (above)."""
    rule = CacheControlAfterVolatile()
    mark = CacheBreakpoint(at(26))
    history = Hole(Volatility.STABLE, "messages", at(24), is_history=True)
    assert check(rule, layout(Part("system", (USER, Literal("."), mark)), Part("history", (history, mark)))) == []
    # Text after the last breakpoint is in no entry: it costs nothing more per user.
    assert check(rule, layout(Part("system", (USER, mark, LONG)))) == []
    [finding] = check(rule, layout(Part("system", (USER, LONG, mark))))
    assert finding.severity is Severity.WARNING


# --- PC008 -----------------------------------------------------------------------------------

STAMPS_TIME = ("chat template stamps the current time (`{}`) at the top of every prompt the engine renders, "
               "and the project never pins `date_string`")
STAMPS_DATE = STAMPS_TIME.replace("current time", "current date")
LOOP = "{% for m in messages %}{{ m.content }}{% endfor %}"


def pc008(files: dict[str, str]) -> list[tuple[str, int, str, str]]:
    findings = list(ChatTemplateDate().check_files(files))
    for finding in findings:  # one place: the line, at column 1; no call but the engine's template
        assert finding.location == Location(finding.location.path, finding.location.line, 1, finding.location.line, 1)
        assert finding.call_site == CallSite(finding.location, "chat-template", "vllm")
        assert (finding.rule, finding.name, finding.hint) == ("PC008", "chat-template-date", ChatTemplateDate.fix_hint)
    return [(f.location.path, f.location.line, f.severity.value, f.message) for f in findings]


def test_pc008_a_stamp_is_a_date_or_a_time_by_its_format() -> None:
    template = ("{{ bos_token }}\n{% set d = strftime_now('%d %b %Y') %}\n{% set t = strftime_now(\"%H\") %}\n"
                "{{ now() }}{{ utcnow( ) }}\n" + LOOP)
    assert pc008({"chat.jinja": template}) == [
        ("chat.jinja", 2, "warning", STAMPS_DATE.format("strftime_now('%d %b %Y'")),
        ("chat.jinja", 3, "error", STAMPS_TIME.format('strftime_now("%H"')),
        ("chat.jinja", 4, "error", STAMPS_TIME.format("now()")),  # no format: the engine's clock, to the minute
        ("chat.jinja", 4, "error", STAMPS_TIME.format("utcnow( )")),
    ]
    for directive in ("%I", "%M", "%S", "%f", "%p", "%X", "%c", "%T", "%R", "%s"):
        found = pc008({"t.j2": f"{{{{ strftime_now('%d {directive}') }}}}{LOOP}"})
        assert [severity for _, _, severity, _ in found] == ["error"], directive


def test_pc008_reads_template_files_and_tokenizer_configs_only() -> None:
    stamp = "{{ strftime_now('%d %b') }}" + LOOP
    for name in ("a.jinja", "a.j2", "a.jinja2", "model/tokenizer_config.json"):
        text = json.dumps({"chat_template": stamp}) if name.endswith(".json") else stamp
        assert [path for path, *_ in pc008({name: text})] == [name]
    for name in ("a.txt", "a.py", "config.json"):
        assert pc008({name: stamp}) == [], name


def test_pc008_tokenizer_config_shapes() -> None:
    listed = {"chat_template": [{"name": "default", "template": "{{ strftime_now('%d') }}" + LOOP}, "junk",
                                {"name": "tool_use"}]}
    assert [line for _, line, _, _ in pc008({"tokenizer_config.json": json.dumps(listed)})] == [1]
    escaped = json.dumps({"bos_token": "<s>", "chat_template": 'x {{ strftime_now("%d %b") }}' + LOOP}, indent=2)
    # The stamp is found in the raw file, where JSON escapes its quotes: line 3.
    assert [line for _, line, _, _ in pc008({"tokenizer_config.json": escaped})] == [3]
    for text in ("[1, 2]", "{not json", json.dumps({"chat_template": 3}), json.dumps({"other": "now()"})):
        assert pc008({"tokenizer_config.json": text}) == [], text


def test_pc008_a_chat_template_renders_the_messages() -> None:
    stamp = "{{ strftime_now('%d') }}"
    for loop in ("{% for m in messages | selectattr('role') %}x{% endfor %}",
                 "{% for m in messages[1:] %}x{% endfor %}", "{% for m in messages %}x{% endfor %}"):
        assert len(pc008({"t.jinja": stamp + loop})) == 1, loop
    for loop in ("{% for m in conversation.messages %}x{% endfor %}", "{% for m in turns %}messages{% endfor %}",
                 "{% for m in messages %}x", "messages {{ stamp }}"):
        assert pc008({"t.jinja": stamp + loop}) == [], loop
    # No sign of a chat template at all (no messages, bos_token, generation prompt or header ids).
    assert pc008({"t.jinja": stamp + "{% for m in rows %}x{% endfor %}"}) == []
    assert len(pc008({"t.jinja": "{{ bos_token }}" + stamp + "{% for m in messages %}{% endfor %}"})) == 1


def test_pc008_serve_scripts_of_date_stamping_models() -> None:
    llama = "#!/bin/sh\nset -e\nvllm serve meta-llama/Llama-3.1-8B-Instruct --enable-prefix-caching\n"
    assert pc008({"serve.sh": llama}) == [
        ("serve.sh", 3, "warning", "vLLM serves `Llama-3.1-8B-Instruct` with its stock chat template, which "
                                   "stamps today's date at the top of every prompt, and no `date_string` is pinned")]
    entry = "python -m vllm.entrypoints.openai.api_server \\\n  --model ibm/granite-3.1-8b-instruct\n"
    assert [line for _, line, _, _ in pc008({"run.sh": entry})] == [2]
    assert pc008({"serve.sh": llama.replace("Llama-3.1", "Llama-3.0")}) == []
    assert pc008({"serve.sh": llama.replace("--enable", "--chat-template ./t.jinja --enable")}) == []
    assert pc008({"notes.md": "We use meta-llama/Llama-3.1-8B-Instruct.\n"}) == []  # not served here
    oss = "\n\nvllm serve openai/gpt-oss-20b\n"
    assert pc008({"serve.sh": oss}) == [
        ("serve.sh", 3, "warning", "vLLM serves a gpt-oss model without VLLM_SYSTEM_START_DATE: the Harmony "
                                   "system message stamps today's date at the top of every prompt")]


def test_pc008_a_pinned_date_anywhere_in_the_project_silences_it() -> None:
    template = {"t.jinja": "{{ strftime_now('%d') }}" + LOOP}
    for pin in ("vllm serve m --default-chat-template-kwargs '{\"date_string\": \"1 Jan\"}'",
                'client.chat.completions.create(extra_body={"chat_template_kwargs": {"date_string": d}})',
                "export VLLM_SYSTEM_START_DATE=2025-01-01\nvllm serve openai/gpt-oss-20b"):
        assert pc008({**template, "serve.sh": pin}) == [], pin
    # Too far from the kwargs to be their value, or said inside a template itself: not a pin.
    far = "chat_template_kwargs = {}\n" + "#" * 300 + "\ndate_string = 1\n"
    assert len(pc008({**template, "app.py": far})) == 1
    assert len(pc008({"t.jinja": "{# chat_template_kwargs date_string #}{{ strftime_now('%d') }}" + LOOP})) == 1


def test_pc008_each_stamp_on_its_own_line_and_prose_around_code() -> None:
    twice = "{{ strftime_now('%d') }}\n" + LOOP + "\n{{ strftime_now('%d') }}\n"
    assert [line for _, line, _, _ in pc008({"t.jinja": twice})] == [1, 3]
    # Prose right after a tag, and prose before a real stamp, are not stamps and stop nothing.
    assert pc008({"t.jinja": "{{ bos_token }}now() is prose " + LOOP}) == []
    assert [line for _, line, _, _ in pc008({"t.jinja": "Never call now().\n{{ strftime_now('%d') }}" + LOOP})] == [2]


def test_pc008_finds_the_stamp_in_the_raw_json_past_other_mentions() -> None:
    escaped = json.dumps({"note": "strftime_now is used below",
                          "chat_template": '{{ strftime_now("%d %b") }}' + LOOP}, indent=2)
    assert [line for _, line, _, _ in pc008({"tokenizer_config.json": escaped})] == [3]
    unicode_quotes = escaped.replace('\\"%d %b\\"', "\\u0027%d %b\\u0027").replace("strftime_now is", "it is")
    assert "\\u0027" in unicode_quotes
    assert [line for _, line, _, _ in pc008({"tokenizer_config.json": unicode_quotes})] == [3]


def test_pc008_named_templates_that_are_not_text_are_skipped() -> None:
    listed = {"chat_template": [{"name": "broken", "template": 3}, {"template": "{{ now() }}" + LOOP}]}
    assert [severity for _, _, severity, _ in pc008({"tokenizer_config.json": json.dumps(listed)})] == ["error"]


def test_a_finding_judged_at_a_wrapper_call_names_the_llm_calls_after_the_call_it_reaches() -> None:
    sent = tuple((Location("llm.py", line, 9, line, 40), "anthropic.messages", "anthropic") for line in (12, 30))
    wrapper = CallSite(CALL_AT, "system message (system text passed to chat())", "any", None, "ask", via="chat",
                       reaches=sent)
    [finding] = check(VolatileBeforeStable(), PromptLayout(wrapper, (Part("system", (CLOCK, LONG)),)))
    assert [(r.location.path, r.location.line, r.message) for r in finding.related[-3:]] == [
        ("app.py", 30, "reaches the `system message (system text passed to chat())` call here"),
        ("llm.py", 12, f"{SENDS} `anthropic.messages` call here"),
        ("llm.py", 30, f"{SENDS} `anthropic.messages` call here")]


def test_a_finding_names_the_first_llm_calls_a_wrapper_reaches_and_how_many_more() -> None:
    def reaches(count: int) -> tuple:
        return tuple((Location("app/llm.py", line, 1, line, 9), f"api{line}", "openai") for line in range(1, count + 1))

    shown = sends_related(reaches(6))
    assert [r.location.line for r in shown] == [1, 2, 3, 4]
    assert [r.message for r in shown[-2:]] == [f"{SENDS} `api3` call here", f"{SENDS} `api4` call here (and 2 more)"]
    assert sends_related(reaches(5))[-1].message.endswith("`api4` call here (and 1 more)")
    assert sends_related(reaches(MAX_REACHED))[-1].message.endswith("(and more)")  # the kept ones are capped
    assert not sends_related(reaches(2))[-1].message.endswith(")")
