"""PC001's judgement, branch by branch, on small programs through the real analyzer: which values
it reports (one per root cause, tools and shuffles left to their own rules), the severity at each
threshold (2,000 characters after the value; 1,000 where the history is only assumed), and the
consequence it states for each case."""

from __future__ import annotations

from pathlib import Path

from promptlint.config import Config
from promptlint.engine import analyze
from tests.conftest import write_tree

HEAD = '''
import os
from datetime import date, datetime
from openai import OpenAI
import anthropic
client = OpenAI()
RULES = "Follow the refund policy and cite the section you used. " * 10
'''
CALL = "openai.chat.completions"
ASSEMBLY = "system message (role dict)"
PER_REQUEST = "every call misses the prefix cache from here on"
ASSUMED = ("(assumed: the conversation history and the user's turn follow the system content, as every "
           "provider orders them)")
THEN_HISTORY = "and the conversation history (system prompt, conversation history)"
# An error whose estimate loses nothing is a warning that says why (promptlint.estimate.agree_with_estimate).
ZERO_ESTIMATE = ("estimated loss: 0 tokens per call, since the stable text after it is below the providers' "
                 "minimum cacheable prefix; it matters once more stable text follows it (warning)")


def pc001(tmp_path: Path, body: str) -> list[tuple[str, str]]:
    """(severity, message) of each PC001 finding, in source order."""
    root = write_tree(tmp_path, HEAD + body)
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    assert not result.errors, result.errors
    return [(f.severity.value, f.message) for f in result.findings if f.rule == "PC001"]


def clock_at_call(chars: int, history: bool = False) -> str:
    spliced = " *history," if history else ""
    return f'''
def ask(question: str, history: list) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": f"Now: {{datetime.now()}}" + "x" * {chars}}},{spliced}
        {{"role": "user", "content": question}}])
'''


def clock_assembled(chars: int) -> str:
    return f'''
def build() -> list:
    return [{{"role": "system", "content": f"Now: {{datetime.now()}}" + "x" * {chars}}}]
'''


# --- which values are reported --------------------------------------------------------------------

def test_a_clock_in_a_tool_is_left_to_pc006_and_the_system_clock_still_reported(tmp_path: Path) -> None:
    root = write_tree(tmp_path, HEAD + '''
def ask(question: str, history: list) -> str:
    tools = [{"type": "function", "function": {"name": "now", "description": f"Server time {datetime.now()}"}}]
    return client.chat.completions.create(model="gpt-4o", tools=tools, messages=[
        {"role": "system", "content": f"Now: {datetime.now()}. " + RULES}, *history, {"role": "user", "content": question}])
''')
    found = analyze([root], Config(root=root, cache_dir=None), cwd=root).findings
    assert [(f.rule, f.location.line) for f in found] == [("PC006", 9), ("PC001", 11)]


def test_a_shuffle_is_left_to_pc003_and_the_clock_after_it_still_reported(tmp_path: Path) -> None:
    assert pc001(tmp_path, '''
import random
EXAMPLES = ["Q: 2+2? A: 4", "Q: 3+3? A: 6"]
def ask(question: str, history: list) -> str:
    random.shuffle(EXAMPLES)
    system = "\\n".join(EXAMPLES) + f"\\nNow: {datetime.now()}. " + RULES
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
''') == [("error", "per-request clock `datetime.now()` comes before 562 characters of stable text "
                   f"{THEN_HISTORY} in the `{CALL}` prompt; {PER_REQUEST}")]


def test_second_value_of_the_same_scope_is_not_reported_again(tmp_path: Path) -> None:
    found = pc001(tmp_path, '''
def ask(question: str, history: list) -> str:
    system = f"Started {datetime.now()}. Deadline {datetime.now()}. " + RULES
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
''')
    assert [message.split(" comes before ")[1][:24] for _, message in found] == ["573 characters of stable"]


def test_a_value_that_changes_more_often_is_reported_after_a_repeated_one(tmp_path: Path) -> None:
    # Per day, per day again (skipped), then per user: the user's prefix costs more, so it is reported.
    found = pc001(tmp_path, '''
def ask(question: str, customer_id: str, history: list) -> str:
    today = date.today()
    system = f"Today is {today}. Week day {today:%A}. Customer {customer_id}. " + RULES
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
''')
    assert [(severity, message.split(" comes before ")[0]) for severity, message in found] == [
        ("info", "per-day date `date.today()`"), ("warning", "per-user user-id `customer_id`")]


def test_per_user_value_before_a_short_text_and_its_own_history_is_not_reported(tmp_path: Path) -> None:
    # The history after it belongs to that user's conversation anyway: only shared text is lost.
    assert pc001(tmp_path, '''
def ask(question: str, user_id: str, history: list) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"User {user_id}. Be brief."}, *history, {"role": "user", "content": question}])
''') == []


def test_a_clock_after_an_unreported_per_user_value_is_judged(tmp_path: Path) -> None:
    assert pc001(tmp_path, '''
def ask(question: str, user_id: str, history: list) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"User {user_id}. Now {datetime.now()}."}, *history,
        {"role": "user", "content": question}])
''') == [("error", "per-request clock `datetime.now()` comes before 1 character of stable text "
                   f"{THEN_HISTORY} in the `{CALL}` prompt; {PER_REQUEST}")]


# --- severity thresholds ---------------------------------------------------------------------------

def test_without_history_2000_characters_make_an_error(tmp_path: Path) -> None:
    assert pc001(tmp_path / "a", clock_at_call(2000)) == [
        ("error", f"per-request clock `datetime.now()` comes before 2,000 characters of stable text (system "
                  f"prompt) in the `{CALL}` prompt; {PER_REQUEST}")]
    assert [s for s, _ in pc001(tmp_path / "b", clock_at_call(1999))] == ["warning"]


def test_a_per_day_value_stays_info_without_history(tmp_path: Path) -> None:
    assert [s for s, _ in pc001(tmp_path, '''
def ask(question: str) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"Today: {date.today()}. " + RULES}, {"role": "user", "content": question}])
''')] == ["info"]


def test_assumed_history_needs_2000_known_characters_for_an_error(tmp_path: Path) -> None:
    assert pc001(tmp_path / "a", clock_assembled(2000)) == [
        ("error", f"per-request clock `datetime.now()` comes before 2,000 characters of stable text "
                  f"{THEN_HISTORY} in the `{ASSEMBLY}` prompt; {PER_REQUEST}")]


def test_assumed_history_below_2000_known_characters_is_info(tmp_path: Path) -> None:
    """A one-shot judge or extractor with 250-450 tokens after a clock is the look-alike: below
    about 500 tokens, what a call that may be sent once loses is not worth a warning (a
    framework's run state, whose framework sends the run's steps after it, needs 1,000:
    test_framework_callbacks)."""
    assert pc001(tmp_path / "a", clock_assembled(1999)) == [
        ("info", f"per-request clock `datetime.now()` comes before 1,999 characters of stable text {THEN_HISTORY} "
                 f"in the `{ASSEMBLY}` prompt; only 1,999 characters of known stable text follow, so the loss "
                 f"depends on a conversation history being sent after it (info) {ASSUMED}")]
    assert [s for s, _ in pc001(tmp_path / "b", clock_assembled(999))] == ["info"]


def test_assumed_history_with_no_known_text_after(tmp_path: Path) -> None:
    assert pc001(tmp_path, '''
def build() -> list:
    return [{"role": "system", "content": f"Now: {datetime.now()}" + os.getenv("POLICY")}]
''') == [("info", "per-request clock `datetime.now()` comes before stable content of unknown length and the "
                  "conversation history (system prompt, conversation history) in the "
                  f"`{ASSEMBLY}` prompt; no known stable text follows, so the loss depends on a conversation "
                  f"history being sent after it (info) {ASSUMED}")]


# --- looked-up content, explicit-cache providers --------------------------------------------------

RETRIEVAL = ("(assumption: `search()` is a retrieval lookup keyed by `question`: what it returns changes "
             "with what is asked)")


def test_retrieved_documents_followed_by_one_sentence_and_the_question(tmp_path: Path) -> None:
    # "\n", "Answer only from them. ", "Question: ": 34 characters before the next request content.
    assert pc001(tmp_path, '''
def ask(question: str, retriever) -> str:
    docs = retriever.search(question)
    system = f"Documents:\\n{docs}\\n" + "Answer only from them. " + f"Question: {question}\\n" + RULES
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": "Go."}])
''') == [("info", "per-request retrieval `retriever.search(question)` comes before 596 characters of stable "
                  f"text (system prompt, final user message) in the `{CALL}` prompt; {PER_REQUEST}; only 34 "
                  "characters of stable text follow it before other request content (info) " + RETRIEVAL)]


def test_a_value_the_analysis_knows_nothing_of_is_no_other_request_content(tmp_path: Path) -> None:
    # A catalog handed in (graphrag's community reports, devika's project code) may be the same on
    # every request: the rules after it still count as what the retrieved documents cost. A
    # value known to change (the question above) still ends the block.
    found = pc001(tmp_path, '''
def ask(question: str, retriever, catalog: str) -> str:
    docs = retriever.search(question)
    system = f"Documents:\\n{docs}\\n" + "Tools:\\n" + catalog + "\\n" + RULES * 3
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": "Go."}])
''')
    assert [severity for severity, _ in found] == ["warning"], found
    assert "other request content" not in found[0][1]


def test_each_retrieved_document_rendered_field_by_field_before_the_rules(tmp_path: Path) -> None:
    # The fields of each document with a bullet between them are one block of retrieved content:
    # the rules after the last field are what is lost, not the "] " between two fields.
    assert pc001(tmp_path, '''
def render(entries: list) -> str:
    lines = ["Documents:"]
    for entry in entries:
        lines.append(f"- [{entry.get('title')}] {entry['text']}")
    return "\\n".join(lines)

def ask(question: str, retriever) -> str:
    system = render(retriever.search(question)) + "\\n" + RULES * 12
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
''') == [("error", "per-request retrieval `retriever.search(question)` comes before 6,722 characters of "
                   f"stable text (system prompt) in the `{CALL}` prompt; {PER_REQUEST} " + RETRIEVAL)]


def test_retrieved_documents_where_the_history_is_assumed(tmp_path: Path) -> None:
    assert pc001(tmp_path, '''
def build(question: str, retriever) -> list:
    docs = retriever.search(question)
    return [{"role": "system", "content": f"Documents:\\n{docs}\\n" + RULES * 2}]
''') == [("info", "per-request retrieval `retriever.search(question)` comes before 1,120 characters of stable "
                  f"text {THEN_HISTORY} in the `{ASSEMBLY}` prompt; only 1,120 characters of known stable text "
                  f"follow, so the loss depends on a conversation history being sent after it (info) {ASSUMED} "
                  f"{RETRIEVAL}")]


def test_explicit_cache_provider_without_a_breakpoint(tmp_path: Path) -> None:
    assert pc001(tmp_path, '''
POLICY = "Follow the refund policy step by step and cite the relevant section. " * 40
def answer(history: list):
    return anthropic.Anthropic().messages.create(model="claude-sonnet-4-5", max_tokens=500, messages=history,
                                  system=f"Now: {datetime.now()}\\n" + POLICY)
''') == [("warning", "per-request clock `datetime.now()` comes before 2,760 characters of stable text "
                     f"{THEN_HISTORY} in the `anthropic.messages` prompt; this call marks no cache breakpoint, "
                     "so nothing is cached as written; a breakpoint pays off only once the value moves after "
                     "the stable part")]


def test_a_sample_drawn_once_at_import_is_skipped_and_the_clock_after_it_reported(tmp_path: Path) -> None:
    # The sample is the same for the whole process (capped at import): not PC001's to report, and
    # it must not hide the clock that follows it.
    assert pc001(tmp_path, '''
import random
POOL = ["Q: 2+2? A: 4", "Q: 3+3? A: 6", "Q: 5+5? A: 10"]
EXAMPLES = "\\n".join(random.sample(POOL, 2))
def ask(question: str, history: list) -> str:
    system = EXAMPLES + f"\\nNow: {datetime.now()}. " + RULES
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
''') == [("error", "per-request clock `datetime.now()` comes before 562 characters of stable text "
                   f"{THEN_HISTORY} in the `{CALL}` prompt; {PER_REQUEST}")]


def lookup_then(filler: int) -> str:
    return f'''
def ask(question: str, retriever) -> str:
    docs = retriever.search(question)
    system = RULES * 10 + f"Documents:\\n{{docs}}\\n" + "y" * {filler} + f"\\nQuestion: {{question}}"
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": system}}, {{"role": "user", "content": "Go."}}])
'''


def test_retrieved_documents_need_1000_characters_before_other_request_content(tmp_path: Path) -> None:
    # "\n" + filler + "\nQuestion: ": 1,000 characters are worth a warning, 999 only info (after
    # rules long enough to be cached, so that the filler's place loses tokens at all).
    assert [s for s, _ in pc001(tmp_path / "a", lookup_then(988))] == ["warning"]
    [(severity, message)] = pc001(tmp_path / "b", lookup_then(987))
    assert severity == "info" and "; only 999 characters of stable text follow it before other" in message


def test_a_cache_breakpoint_on_the_tools_counts_as_one(tmp_path: Path) -> None:
    # `cache_control` on the last tool is a breakpoint: not the "no breakpoint" wording. Only the
    # tools before it are cached (below the minimum), so the estimate loses nothing and the
    # severity says so (a warning with the reason, issue 16).
    assert pc001(tmp_path, '''
POLICY = "Follow the refund policy step by step and cite the relevant section. " * 40
TOOLS = [{"name": "lookup", "description": "Look up an order. " * 40, "input_schema": {"type": "object"},
          "cache_control": {"type": "ephemeral"}}]
def answer(history: list):
    return anthropic.Anthropic().messages.create(model="claude-sonnet-4-5", max_tokens=500, tools=TOOLS,
                                  messages=history, system=f"Now: {datetime.now()}\\n" + POLICY)
''') == [("warning", "per-request clock `datetime.now()` comes before 2,760 characters of stable text "
                     f"{THEN_HISTORY} in the `anthropic.messages` prompt; {PER_REQUEST}; {ZERO_ESTIMATE}")]


def test_a_bedrock_cache_point_is_a_breakpoint(tmp_path: Path) -> None:
    # The `cachePoint` block ends the cached prefix: the clock before it is PC007's (a new entry
    # written on every call), not PC001's "no breakpoint" warning.
    root = write_tree(tmp_path, HEAD + '''
import boto3
POLICY = "Follow the refund policy step by step and cite the relevant section. " * 40
runtime = boto3.client("bedrock-runtime")
def answer(history: list):
    return runtime.converse(modelId="anthropic.claude-sonnet-4-5-20250929-v1:0", messages=history,
                            system=[{"text": f"Now: {datetime.now()}\\n" + POLICY}, {"cachePoint": {"type": "default"}}])
''')
    found = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root).findings
    assert [(f.rule, f.severity.value, f.message) for f in found] == [
        ("PC007", "warning", "per-request clock `datetime.now()` comes before the cache breakpoint of the "
                             "`bedrock.converse` call: every call writes a new cache entry and none is read; "
                             f"{ZERO_ESTIMATE}")]


def test_request_content_that_loses_nothing_is_info_and_a_clock_there_a_warning(tmp_path: Path) -> None:
    # Issue 18's short-tail look-alike: the request's own content before a tail too short to be
    # cached at the call's provider loses nothing by its place, so it is `info` with the estimate's
    # words; a clock in the same place can always move and stays a warning that says the same.
    def ask(value: str) -> str:
        return f'''
def ask(question: str) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": f"Topic: {{{value}}}\\n" + RULES * 2}}, {{"role": "user", "content": question}}])
'''
    looked_up, clock = pc001(tmp_path / "derived", ask("question.title()")), pc001(tmp_path / "clock", ask("datetime.now()"))
    assert [severity for severity, _ in looked_up] == ["info"] and [severity for severity, _ in clock] == ["warning"]
    assert looked_up[0][1].startswith("per-request request-derived `question.title()` comes before 1,120 characters")
    assert looked_up[0][1].endswith(ZERO_ESTIMATE.replace("(warning)", "(info)"))
    assert clock[0][1].endswith(ZERO_ESTIMATE)



def loop_then_instructions(rules: str) -> str:
    """An orchestrator loop (maestro's shape): each step's request is built fresh, the results of
    the earlier steps first, then fixed instructions."""
    return f'''
def orchestrate(objective: str) -> list:
    results = []
    while len(results) < 5:
        done = "\\n".join(results)
        reply = client.chat.completions.create(model="gpt-4o", messages=[
            {{"role": "system", "content": f"Results so far:\\n{{done}}\\n" + {rules}}},
            {{"role": "user", "content": objective}}])
        results.append(reply.choices[0].message.content)
    return results
'''


def test_loop_state_before_a_tail_that_loses_nothing_is_info_and_before_a_long_one_reported(tmp_path: Path) -> None:
    # What earlier steps of an agent loop produced is content the request needs, like its
    # documents: before instructions too short to be cached it is issue 18's short tail (info),
    # before long ones the same value costs them on every step.
    short = pc001(tmp_path / "short", loop_then_instructions("RULES"))
    long = pc001(tmp_path / "long", loop_then_instructions("RULES * 12"))
    assert [severity for severity, _ in short] == ["info"]
    assert short[0][1].startswith("per-request loop-state `results` comes before 560 characters of stable text (system prompt)")
    assert short[0][1].endswith(ZERO_ESTIMATE.replace("(warning)", "(info)"))
    assert [severity for severity, _ in long] == ["error"]
    assert "estimated loss" not in long[0][1]


def test_each_id_generator_is_a_per_request_id(tmp_path: Path) -> None:
    # rules/sources.yaml: an id made per call (agentscope names each image a tool returns with
    # `shortuuid.uuid()` in the text it formats into the history) before the fixed rules.
    for module, call in (("uuid", "uuid.uuid4()"), ("shortuuid", "shortuuid.uuid()"), ("nanoid", "nanoid.generate()")):
        found = pc001(tmp_path / module, f'''
import {module}
def ask(question: str, history: list) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": f"Request {{{call}}}\\n" + RULES * 4}}, *history,
        {{"role": "user", "content": question}}])
''')
        assert [severity for severity, _ in found] == ["error"], module
        assert found[0][1].startswith(f"per-request uuid `{call}` comes before"), found[0][1]
