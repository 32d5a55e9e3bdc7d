"""Rendering layouts into concrete requests: the current layout as the code builds it, the fixed
layout with volatile values moved to the end of the final user turn."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from promptlint.model import CallSite, Hole, Literal, Location, Origin, Part, PromptLayout, Volatility
from verifier.chat import default_tokenizer
from verifier.prompts_file import PromptsFileError, load_prompts
from verifier.render import render_site
from verifier.samples import agent_with_tools, support_bot
from verifier.values import SYNTHETIC_HISTORY, HoleFiller

LOC = Location("app.py", 3, 1, 3, 10)


def hole(expression: str, volatility: Volatility, category: str = "unknown") -> Hole:
    origin = Origin(LOC, expression, category, volatility) if category != "unknown" else None
    return Hole(volatility, expression, LOC, origin)


def layout(*parts: Part) -> PromptLayout:
    return PromptLayout(CallSite(LOC, "openai.chat.completions", "openai"), parts)


def contents(requests, role: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [next(m["content"] for m in r.messages if m["role"] == role) for r in requests]


def test_current_layout_changes_the_system_prompt_every_request() -> None:
    site = render_site(support_bot(), 5)
    systems = contents(site.current, "system")
    assert len(set(systems)) == 5
    assert systems[0].startswith("Current time: 2025-06-02 09:0")
    assert "Follow these rules" in systems[0]


def test_fixed_layout_keeps_the_system_prompt_identical_and_moves_the_clock_last() -> None:
    site = render_site(support_bot(), 5)
    assert site.fixed is not None
    systems = contents(site.fixed, "system")
    assert len(set(systems)) == 1 and "Current time" not in systems[0]
    users = contents(site.fixed, "user")
    assert users[0].startswith("Can you help me")
    assert users[0].endswith(contents(site.current, "system")[0].splitlines()[0])  # label and value
    assert len(set(users)) == 5


def test_clock_values_are_minutes_apart() -> None:
    clock = hole("time.time()", Volatility.PER_REQUEST, "clock")
    filler = HoleFiller()
    assert filler.value(clock, 0)[:16] == "2025-06-02 09:00"
    assert filler.value(clock, 1)[:16] == "2025-06-02 09:07"


@pytest.mark.parametrize(
    ("volatility", "category", "changes"),
    [
        (Volatility.PER_REQUEST, "uuid", True),
        (Volatility.PER_REQUEST, "counter", True),
        (Volatility.PER_REQUEST, "random", True),
        (Volatility.PER_USER, "user-id", True),
        (Volatility.PER_SESSION, "session", True),
        (Volatility.ORDER_UNSTABLE, "set-order", True),
        (Volatility.PER_DAY, "date", False),
        (Volatility.PER_PROCESS, "hostname", False),
        (Volatility.UNKNOWN, "unknown", False),
        (Volatility.STABLE, "unknown", False),
    ],
)
def test_only_volatile_holes_change_between_requests(volatility: Volatility, category: str, changes: bool) -> None:
    filler = HoleFiller()
    value = hole("x", volatility, category)
    values = {filler.value(value, i) for i in range(6)}
    assert (len(values) > 1) is changes


def test_values_are_deterministic_per_seed() -> None:
    uid = hole("uuid.uuid4()", Volatility.PER_REQUEST, "uuid")
    assert HoleFiller(1).value(uid, 3) == HoleFiller(1).value(uid, 3)
    assert HoleFiller(1).value(uid, 3) != HoleFiller(2).value(uid, 3)


def test_order_unstable_is_sorted_in_place_and_history_is_a_fixed_exchange() -> None:
    site = render_site(agent_with_tools(), 4)
    assert site.fixed is not None
    current_systems = contents(site.current, "system")
    assert all(s.startswith("Available tools: ") for s in current_systems)
    assert len({s.split("\n")[0] for s in current_systems}) > 1  # set order changes
    fixed_systems = contents(site.fixed, "system")
    assert len(set(fixed_systems)) == 1
    assert fixed_systems[0].startswith("Available tools: calendar_events, create_ticket, get_weather")
    assert "User id" not in fixed_systems[0]
    messages = site.fixed[0].messages
    assert list(messages[1:5]) == list(SYNTHETIC_HISTORY)
    assert messages[-1]["role"] == "user" and "\n\nUser id: user-" in messages[-1]["content"]
    assert any("sorts in place" in n for n in site.notes)


def test_a_final_user_turn_is_created_when_the_call_has_none() -> None:
    lay = layout(Part("system", (Literal("Request "), hole("uuid4()", Volatility.PER_REQUEST, "uuid"),
                                 Literal("\nYou are terse."))))
    site = render_site(lay, 2)
    assert [m["role"] for m in site.current[0].messages] == ["system"]
    assert site.fixed is not None
    assert [m["role"] for m in site.fixed[0].messages] == ["system", "user"]
    assert site.fixed[0].messages[0]["content"] == "\nYou are terse."
    assert site.fixed[0].messages[1]["content"].startswith("Request ")


def test_a_conversation_without_a_final_user_turn_ends_with_the_users_question() -> None:
    history = Hole(Volatility.STABLE, "self.history", LOC, is_history=True)
    lay = layout(Part("system", (Literal("Sent at "), hole("now()", Volatility.PER_REQUEST, "clock"),
                                 Literal(".\nWrite hand-off notes."))),
                 Part("history", (history,)))
    site = render_site(lay, 2)
    assert site.fixed is not None
    current, fixed = site.current[0].messages, site.fixed[0].messages
    assert [m["role"] for m in current] == ["system", *[m["role"] for m in SYNTHETIC_HISTORY], "user"]
    assert [m["role"] for m in fixed] == [m["role"] for m in current]
    assert fixed[-1]["content"].startswith(current[-1]["content"] + "\n\nSent at 2025-06-02")


def test_holes_already_in_the_final_user_turn_stay_where_they_are() -> None:
    stamp = hole("now()", Volatility.PER_REQUEST, "clock")
    lay = layout(Part("system", (Literal("Be brief."),)),
                 Part("final_user", (Literal("["), stamp, Literal("] hello"))))
    site = render_site(lay, 2)
    assert site.fixed is not None
    assert [r.messages for r in site.fixed] == [r.messages for r in site.current]


def test_tools_text_opens_the_system_message() -> None:
    lay = layout(Part("tools", (Literal("search(q): find documents"),)),
                 Part("system", (Literal("You help."),)),
                 Part("final_user", (Literal("hi"),)))
    messages = render_site(lay, 1).current[0].messages
    assert messages[0] == {"role": "system", "content": "search(q): find documents\n\nYou help."}


def test_default_tokenizer_renders_chatml() -> None:
    tokenizer = default_tokenizer()
    site = render_site(support_bot(), 2)
    ids = tokenizer.encode(site.current[0])
    assert 300 < len(ids) < 2000
    text = tokenizer.tokenizer.decode(ids)
    assert text.startswith("<|im_start|>system\nCurrent time: ")
    assert text.endswith("<|im_end|>\n<|im_start|>assistant\n")


def test_prompts_file_groups_sites_and_layouts(tmp_path: Path) -> None:
    lines = [
        {"site": "bot", "messages": [{"role": "system", "content": "a"}, {"role": "user", "content": "q"}]},
        {"site": "bot", "layout": "fixed", "body": {"model": "m", "messages": [
            {"role": "user", "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}]}]}},
        {"prompt": "raw text"},
    ]
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n", encoding="utf-8")
    bot, raw = load_prompts(path)
    assert (bot.path, bot.line, len(bot.current)) == ("bot", 1, 1)
    assert bot.fixed is not None and bot.fixed[0].messages[0]["content"] == "xy"
    assert (raw.path, raw.fixed, raw.current[0].prompt) == ("p.jsonl", None, "raw text")


@pytest.mark.parametrize(
    ("line", "message"),
    [("not json", "not JSON"), ("[1]", "JSON object"), ('{"messages": []}', "non-empty"),
     ('{"messages": [{"content": "x"}]}', "role"), ('{"prompt": "x", "layout": "new"}', "layout")],
)
def test_prompts_file_errors_name_the_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(PromptsFileError, match=message) as error:
        load_prompts(path)
    assert "p.jsonl:1" in str(error.value)


def test_fixed_text_after_the_request_content_moves_ahead_of_it_and_the_content_varies() -> None:
    # PC010's shape: the document opens the only user message, the long rules follow it.
    rules = "Summarise the document in five bullet points and keep every number exact. " * 40
    site = render_site(layout(Part("system", (Literal("You summarise documents."),)),
                              Part("final_user", (Literal("<document>\n"), hole("document", Volatility.UNKNOWN),
                                                  Literal("\n</document>\n\n" + rules)))), 3)
    assert site.fixed is not None
    current, fixed = contents(site.current, "user"), contents(site.fixed, "user")
    assert len(set(current)) == 3 and len(set(fixed)) == 3  # the document is new in every request

    def shared(texts: list[str]) -> int:
        return len(os.path.commonprefix(texts))

    assert shared(current) < 40  # "<document>\n[request " only
    assert shared(fixed) >= len(rules)  # the rules now open the message
    assert "fix moves the final user message's fixed text before its first value" in site.notes


def test_the_formatting_of_a_loop_s_items_stays_with_them_when_the_rules_move() -> None:
    # sweep's shape: one line per snippet written from one place, then the rules.
    rules = "List every file to change, one per line, with the reason it has to change. " * 40
    line = Location("app.py", 7, 20, 7, 80)
    per_file = Literal("' is imported by the following files, in this order:\n", line)
    site = render_site(layout(Part("system", (Literal("You plan code changes."),)), Part("final_user", (
        Literal("The file '"), hole("first", Volatility.UNKNOWN), per_file,
        Literal("The file '"), hole("second", Volatility.UNKNOWN), per_file,
        Literal("\n\n" + rules, Location("app.py", 2, 1, 2, 90))))), 2)
    assert site.fixed is not None
    fixed = contents(site.fixed, "user")
    assert all(text.index(rules) < text.index("[request") for text in fixed)  # the rules come first
    # ... and each file keeps its own line after it, not gathered before the values.
    assert all(text.count("' is imported by the following files, in this order:\n") == 2 for text in fixed)
    assert all(text.index("[request") < text.index("' is imported by") for text in fixed)
