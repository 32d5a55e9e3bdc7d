"""What a finding says, in full, for small programs run through the real analyzer: the message
(what changes, what follows it, in which parts), the related locations in order, the rule's name,
hint and source, and which values are judged at all (a value after the user's own text is not).

Messages are compared whole: a reader acts on "before 562 characters of stable text and the
conversation history (system prompt, conversation history)", so every piece of it is contract."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptlint.analysis.templates import format_text
from promptlint.analysis.values import Text, unknown
from promptlint.config import Config
from promptlint.engine import analyze
from promptlint.estimate import estimate
from promptlint.model import Finding, Hole, Literal, Location
from tests.conftest import write_tree

HEAD = '''
import os
from datetime import date, datetime
from openai import OpenAI
client = OpenAI()
RULES = "Follow the refund policy and cite the section you used. " * 10
'''
CALL = "openai.chat.completions"
PER_REQUEST = "every call misses the prefix cache from here on"
# Said after any error or warning whose estimate loses nothing (promptlint.estimate.agree_with_estimate).
ZERO_ESTIMATE = ("estimated loss: 0 tokens per call, since the stable text after it is below the providers' "
                 "minimum cacheable prefix; it matters once more stable text follows it (warning)")
MOVE = "move the volatile value after the stable parts (e.g. into the final user message)"


def findings(tmp_path: Path, body: str, **config: object) -> list[Finding]:
    root = write_tree(tmp_path, HEAD + body)
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True, **config), cwd=root)
    assert not result.errors, result.errors
    return list(result.findings)


def related(finding: Finding) -> list[tuple[int, int, str]]:
    return [(r.location.line, r.location.column, r.message) for r in finding.related]


def test_clock_before_rules_and_history(tmp_path: Path) -> None:
    [f] = findings(tmp_path, '''
def ask(question: str, history: list) -> str:
    system = f"Now: {datetime.now()}. " + RULES
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
''')
    assert (f.rule, f.name, f.severity.value, f.hint) == ("PC001", "volatile-before-stable", "error", MOVE)
    assert f.message == ("per-request clock `datetime.now()` comes before 562 characters of stable text and "
                         "the conversation history (system prompt, conversation history) in the "
                         f"`{CALL}` prompt; {PER_REQUEST}")
    assert (f.location.line, f.location.column) == (8, 22)
    assert f.volatile_source is not None and (f.volatile_source.source, f.volatile_source.category) == \
        ("datetime.datetime.now", "clock")
    assert related(f) == [(8, 5, "assigned to `system`"), (9, 12, f"reaches the `{CALL}` call here")]



def test_a_second_value_that_changes_as_often_is_listed_on_the_first(tmp_path: Path) -> None:
    """One finding per prompt, but moving only the clock would leave the request id ahead of the
    rules: the id is listed on the finding, at its origin."""
    [f] = findings(tmp_path, '''
import uuid
def ask(question: str, history: list) -> str:
    request_id = uuid.uuid4()
    system = f"Now: {datetime.now()}. Request {request_id}. " + RULES
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
''')
    assert (f.location.line, f.message.startswith("per-request clock `datetime.now()`")) == (10, True)
    assert (9, 18, "per-request uuid `uuid.uuid4()` also changes here: move it too") in related(f)

def test_estimate_follows_the_finding_to_its_layout(tmp_path: Path) -> None:
    """The estimate reads the layout and the position of the value the finding names."""
    [f] = findings(tmp_path, '''
def ask(question: str, history: list) -> str:
    system = "Be exact. " + RULES + f"Now: {datetime.now()}. " + RULES * 12
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
''')
    root = tmp_path
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    [priced] = estimate(result, Config(root=root, cache_dir=None)).findings
    # About 1,400 tokens of rules follow the clock, about 120 come before it (below gpt-4o's 1,024-token
    # minimum): moving the clock out caches more than a thousand tokens, plus the history.
    assert priced.location == f.location
    assert priced.estimate is not None and priced.estimate.unknown_length
    assert priced.estimate.lost_tokens_per_call is not None and priced.estimate.lost_tokens_per_call > 1024


def test_content_after_a_clock_is_a_finding_of_its_own(tmp_path: Path) -> None:
    """Found on bench/wild (agno): the memories an agent lists in its system prompt come after an
    optional clock. Each has its own fix and its own option, and suppressing the clock's finding
    must not hide the memories: a value of another kind (content after a made-up value) is reported
    on its own, at its own place, with what follows it."""
    clock, memories = findings(tmp_path, '''
TONE = "Answer in the language of the question, briefly and politely. " * 30
def ask(store, user_id: str, question: str, history: list) -> str:
    system = f"Now: {datetime.now()}. " + RULES
    system += "Known about the user: " + store.search_memories(user_id) + TONE
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
''')
    assert (clock.location.line, clock.volatile_source.category) == (9, "clock")
    assert (memories.location.line, memories.volatile_source.category) == (10, "memory")
    assert memories.severity.value == "error"
    assert memories.message.startswith("per-request memory `store.search_memories(user_id)` comes before 1,860 "
                                       "characters of stable text and the conversation history")
    assert not any("also changes here" in message for _, _, message in related(clock))


def test_source_called_in_another_function_is_related_first(tmp_path: Path) -> None:
    [f] = findings(tmp_path, '''
def stamp() -> str:
    return datetime.now().isoformat()

def ask(question: str, history: list) -> str:
    system = "Now: {now}. ".format(now=stamp()) + RULES
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
''')
    assert (f.location.line, f.location.column) == (11, 20)  # the `{now}` placeholder inside the string
    assert related(f) == [(8, 12, "`datetime.datetime.now` is called here"), (11, 40, "returned by `stamp()`"),
                          (11, 5, "assigned to `system`"), (12, 12, f"reaches the `{CALL}` call here")]


def test_a_loop_counter_is_said_to_change_where_it_advances(tmp_path: Path) -> None:
    """A counter is not called: its first step says where it changes, and reporters still show
    that step as `born at`, not as a `via` step."""
    [f] = findings(tmp_path, '''
TEMPLATE = "Step {n} of the task.\\n" + RULES
def run(history: list, task: str) -> None:
    step = 0
    while step < 10:
        system = TEMPLATE.format(n=step)
        history.append(client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": system}, *history, {"role": "user", "content": task}]))
        step += 1
''')
    assert related(f)[0] == (14, 9, "`step += 1` changes here")
    assert f.related[0].is_origin and not any(r.is_origin for r in f.related[1:])


def test_a_placeholder_after_line_continuations_is_placed_on_its_own_line(tmp_path: Path) -> None:
    """A triple-quoted template whose lines end in `\\` (the break is not in the value): the
    placeholder is found on the source line where it is written, not lines earlier."""
    [f] = findings(tmp_path, '''
TEMPLATE = """Rules: answer briefly, \\
cite the section, \\
never guess.
Time: {now}
""" + RULES
def ask(history: list, question: str) -> str:
    system = TEMPLATE.format(now=datetime.now())
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
''')
    assert (f.location.line, f.location.column) == (10, 7)  # `Time: {now}` (the file starts at `import os`)


def test_placeholders_after_interpolations_and_a_stripped_line_are_on_their_own_lines(tmp_path: Path) -> None:
    """Before Python 3.12 an f-string's text parts carry the whole string's position; a stripped
    leading line break moves the text up. Either way the finding is on the placeholder's line, and
    `.strip()` trims only the ends of the whole text."""
    [f, g] = findings(tmp_path, '''
NAME = "ledger"
TEMPLATE = f"""
You are the {NAME} assistant.
Use the {NAME} tools only.
Cycle {{step}} of the run.
""".strip() + RULES
HEADER = """
## Profile
Email: {email}
""".lstrip() + RULES
def run(history: list, task: str, user) -> None:
    for step in range(5):
        system = HEADER.format(email=user.email) + TEMPLATE.format(step=step)
        history.append(client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": system}, *history, {"role": "user", "content": task}]))
''')
    assert [(x.location.line, x.location.column) for x in (f, g)] == [(11, 7), (15, 8)]  # `Cycle {{step}}`, `Email: {email}`
    assert "counter `step`" in f.message and "user.email" in g.message


def test_assumed_scope_is_stated_after_the_message(tmp_path: Path) -> None:
    [f] = findings(tmp_path, '''
def ask(question: str, user_id: str, history: list) -> str:
    system = f"User: {user_id}. " + RULES
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
''')
    assert f.message == (
        "per-user user-id `user_id` comes before 562 characters of stable text and the conversation history "
        f"(system prompt, conversation history) in the `{CALL}` prompt; each user gets a prefix of their own "
        "from here on: text shared across users is not reused "
        "(assumption: `user_id` is taken to identify a user/request by its name)")


def test_stable_content_of_unknown_length(tmp_path: Path) -> None:
    [f] = findings(tmp_path, '''
def ask(question: str) -> str:
    system = f"Now: {datetime.now()}" + os.getenv("SYSTEM_POLICY")
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
''')
    assert f.message == (f"per-request clock `datetime.now()` comes before stable content of unknown length "
                         f"(system prompt) in the `{CALL}` prompt; {PER_REQUEST}")


def test_known_characters_are_counted_beside_unknown_content(tmp_path: Path) -> None:
    # Ten known characters alone would be too few to report: the configuration text of unknown
    # length is what makes it matter, and the message counts what is known.
    [f] = findings(tmp_path, '''
def ask(question: str) -> str:
    system = f"Now: {datetime.now()}\\n" + os.getenv("SYSTEM_POLICY") + "\\nBe brief."
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
''')
    assert f.message == (f"per-request clock `datetime.now()` comes before 10 characters of stable text "
                         f"(system prompt) in the `{CALL}` prompt; {PER_REQUEST}")


def test_value_in_an_earlier_turn_before_the_history(tmp_path: Path) -> None:
    [f] = findings(tmp_path, '''
def ask(question: str, history: list) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": RULES}, {"role": "user", "content": f"Now: {datetime.now()}"},
        *history, {"role": "user", "content": question}])
''')
    assert f.message == (f"per-request clock `datetime.now()` comes before the conversation history "
                         f"(conversation history) in the `{CALL}` prompt; {PER_REQUEST}")


def test_earlier_turns_passed_one_by_one_are_history(tmp_path: Path) -> None:
    [f] = findings(tmp_path, '''
def ask(question: str, earlier_question: str, earlier_answer: str) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"Now: {datetime.now()}."},
        {"role": "user", "content": earlier_question},
        {"role": "assistant", "content": earlier_answer},
        {"role": "user", "content": question}])
''')
    assert f.message == ("per-request clock `datetime.now()` comes before 1 character of stable text and the "
                         "conversation history (system prompt, earlier user message, assistant message) in the "
                         f"`{CALL}` prompt; {PER_REQUEST}")


def test_request_text_in_the_system_prompt_is_not_history(tmp_path: Path) -> None:
    [f] = findings(tmp_path, '''
def ask(question: str, topic: str) -> str:
    system = f"Now: {datetime.now()}. " + RULES + f"Topic: {topic}"
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
''')
    assert f.message == (f"per-request clock `datetime.now()` comes before 569 characters of stable text "
                         f"(system prompt) in the `{CALL}` prompt; {PER_REQUEST}")


def test_fixed_text_that_opens_the_final_user_message_counts(tmp_path: Path) -> None:
    [f] = findings(tmp_path, '''
def ask(question: str) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"Now: {datetime.now()}."},
        {"role": "user", "content": RULES + question}])
''')
    assert f.message == (f"per-request clock `datetime.now()` comes before 561 characters of stable text "
                         f"(system prompt, final user message) in the `{CALL}` prompt; {PER_REQUEST}; {ZERO_ESTIMATE}")


def test_value_before_the_users_text_in_the_final_message(tmp_path: Path) -> None:
    # The system prompt holds request text (a topic): the value in the user message is still judged.
    [f] = findings(tmp_path, '''
def ask(question: str, topic: str) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"Topic: {topic}."},
        {"role": "user", "content": f"Sent at {datetime.now()}\\n" + RULES + question}])
''')
    assert f.message == (f"per-request clock `datetime.now()` comes before 560 characters of stable text "
                         f"(final user message) in the `{CALL}` prompt; {PER_REQUEST}; {ZERO_ESTIMATE}")
    assert (f.location.line, f.location.column) == (10, 48)


def test_value_after_the_users_text_is_not_judged(tmp_path: Path) -> None:
    # Nothing after the user's own text was ever a shared prefix, however long it is.
    assert findings(tmp_path, '''
def ask(question: str) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": f"{question}\\nSent at {datetime.now()}\\n" + RULES}])
''') == []


def test_value_in_an_earlier_turn_with_little_after_it(tmp_path: Path) -> None:
    # A dated earlier turn is itself in the history slot, but only "Noted." follows it.
    assert findings(tmp_path, '''
def ask(question: str) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": RULES},
        {"role": "user", "content": f"Today is {date.today()}."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": question}])
''') == []


ONE_SHOT = '''
def ask(question: str) -> str:
    system = f"Now: {datetime.now()}. " + "Answer in one short paragraph."
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
'''


def test_min_stable_chars_is_inclusive(tmp_path: Path) -> None:
    # 32 characters follow the clock (". Answer in one short paragraph."): reported at 32, not at
    # 33. (Where the system dict is built, the history is only assumed: judged apart, as info.)
    def at_the_call(minimum: int) -> list[str]:
        return [f.message for f in findings(tmp_path, ONE_SHOT, min_stable_chars=minimum)
                if f"`{CALL}` prompt" in f.message]

    assert at_the_call(32) == [f"per-request clock `datetime.now()` comes before 32 characters of stable text "
                               f"(system prompt) in the `{CALL}` prompt; {PER_REQUEST}; {ZERO_ESTIMATE}"]
    assert at_the_call(33) == []


def test_shuffled_examples_before_a_short_text_and_the_history(tmp_path: Path) -> None:
    # 37 characters alone are below min-stable-chars: the history after them is what is lost.
    [f] = findings(tmp_path, '''
import random
EXAMPLES = ["Q: 2+2? A: 4", "Q: 3+3? A: 6", "Q: 5+5? A: 10"]
def ask(question: str, history: list) -> str:
    random.shuffle(EXAMPLES)
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": "Examples:\\n" + "\\n".join(EXAMPLES)}, *history,
        {"role": "user", "content": question}])
''')
    assert (f.rule, f.severity.value) == ("PC003", "error")
    assert f.message == ("order-unstable shuffle `random.shuffle(EXAMPLES)`: prompt content whose order changes "
                         "between calls comes before 37 characters of stable text and the conversation history "
                         f"(system prompt, conversation history) in the `{CALL}` prompt")
    assert related(f) == [(10, 5, "`random.shuffle` is called here"), (11, 12, f"reaches the `{CALL}` call here")]


def test_text_after_the_users_question_is_not_counted(tmp_path: Path) -> None:
    # Instructions appended after the question are no shared prefix: one character (".") follows
    # the clock in the prefix, too little to report at the call.
    found = findings(tmp_path, '''
def ask(question: str) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"Now: {datetime.now()}."},
        {"role": "user", "content": question + "\\n" + RULES}])
''')
    assert [f.message for f in found if f"`{CALL}` prompt" in f.message] == []


def test_once_per_process_value_is_named_so(tmp_path: Path) -> None:
    [f] = findings(tmp_path, '''
STARTED = datetime.now().isoformat()
def ask(question: str, history: list) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"Up since {STARTED}. " + RULES}, *history, {"role": "user", "content": question}])
''')
    assert f.message.startswith("once-per-process clock `datetime.now()` comes before 562 characters")
    assert f.message.endswith("(assumption: evaluated once at import time)")


def test_part_without_a_plain_name_keeps_its_own(tmp_path: Path) -> None:
    # The Responses API's `text.format` schema has no friendlier name: it is listed as itself.
    [f] = findings(tmp_path, '''
import json
def ask(question: str, data: dict) -> str:
    hints = {key: data.get(key) for key in {"name", "plan", "region"}}
    return client.responses.create(model="gpt-4o", input=question,
        tools=[{"type": "function", "name": "lookup", "description": "Known: " + json.dumps(hints)}],
        text={"format": {"type": "json_schema", "name": "answer", "schema": {"type": "object", "description": RULES}}},
        instructions=RULES)
''')
    assert f.message == ("`json.dumps(hints)` serializes a dict whose key order changes between calls, before "
                         "1,244 characters of stable text and the conversation history (tool definitions, "
                         "text_format, system prompt, conversation history) in the `openai.responses` prompt")


def test_history_joined_into_the_system_text_is_known_not_assumed(tmp_path: Path) -> None:
    # Judged where the system message is built: the notes appended on the object are a history
    # seen in the code, so the finding rests on no assumption about what follows.
    [f] = findings(tmp_path, '''
class Agent:
    def __init__(self) -> None:
        self.notes = []

    def remember(self, note: str) -> None:
        self.notes.append(note)

    def system_message(self) -> dict:
        return {"role": "system", "content": f"Now: {datetime.now()}\\nNotes so far:\\n" + "\\n".join(self.notes)}
''')
    assert f.severity.value == "error"
    assert f.message == ("per-request clock `datetime.now()` comes before 15 characters of stable text and the "
                         "conversation history (system prompt, conversation history) in the `system message "
                         f"(role dict)` prompt; {PER_REQUEST}")


def test_system_text_given_as_gemini_parts(tmp_path: Path) -> None:
    # `types.Part(text=...)` objects are read for their text like `{"text": ...}` blocks.
    [f] = findings(tmp_path, '''
from google import genai
from google.genai import types
gclient = genai.Client()
def answer(question: str, history: list):
    config = types.GenerateContentConfig(system_instruction=[types.Part(text=f"Now: {datetime.now()}. " + RULES)])
    return gclient.models.generate_content(model="gemini-2.5-flash", contents=[*history, question], config=config)
''')
    assert (f.severity.value, f.location.line, f.location.column) == ("error", 11, 86)
    assert f.message == ("per-request clock `datetime.now()` comes before 562 characters of stable text and the "
                         "conversation history (system prompt, conversation history, message of unknown role) in "
                         f"the `google.genai.generate_content` prompt; {PER_REQUEST}")



def test_a_positional_format_slot_is_named_by_its_braces() -> None:
    """`"ID: {}".format(value)` has no slot name: the step says `{}`, not an empty name."""
    where = Location("app.py", 3, 12, 3, 20)
    value = unknown("chunk_id", Location("app.py", 2, 5, 2, 13))
    text = format_text(Text((Literal("ID: {}", where),)), [value], {}, "format")
    [hole] = [seg for seg in text.segs if isinstance(seg, Hole)]
    assert [step.description for step in hole.path] == ["fills template slot `{}`"]
    assert hole.path[0].location == Location("app.py", 3, 16, 3, 18)


# A helper formats the documents a vector store returned; `{body}` is the helper's body.
RETRIEVED_CONTEXT_APP = '''
from collections import defaultdict
from langchain_community.vectorstores import FAISS
store = FAISS.load_local("index", None)
LABELS = ["first", "second", "third"]
def context(docs) -> str:
    {body}
def ask(question: str, history: list) -> str:
    system = context(store.similarity_search(question)) + RULES
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": system}}, *history, {{"role": "user", "content": question}}])
'''


def retrieved_context_finding(tmp_path: Path, body: str) -> Finding:
    [f] = findings(tmp_path, RETRIEVED_CONTEXT_APP.format(body=body))
    assert (f.rule, f.severity.value) == ("PC001", "error")
    assert f.message.startswith("per-request retrieval `store.similarity_search(question)` comes before")
    return f


@pytest.mark.parametrize(("loop", "line"), [
    ("for i, doc in enumerate(docs):\n        out.append(f'[{i}] ' + doc.page_content)", 14),
    ("for i, doc in enumerate(docs, start=1):\n        out.append('[{}] '.format(i) + doc.page_content)", 14),
    ("for label, doc in zip(LABELS, docs):\n        out.append(label + doc.page_content)", 15),
    ("for doc in filter(None, docs):\n        out.append(doc.page_content)", 15),
])
def test_retrieved_items_stay_retrieved_through_enumerate_zip_and_filter(tmp_path: Path, loop: str,
                                                                         line: int) -> None:
    """The items of a lookup's results are as volatile when the loop numbers, pairs or filters them;
    the finding points at the slot the index fills, or else at the join of the items."""
    body = f"out = []\n    {loop}\n    return \"\\n\".join(out)"
    assert retrieved_context_finding(tmp_path, body).location.line == line


def test_enumerate_over_a_known_list_keeps_its_items(tmp_path: Path) -> None:
    """`enumerate` over a list of known items unrolls to the items and their indexes: the clock in
    the second example is found where it is, with the known text around it counted."""
    [f] = findings(tmp_path, '''
def ask(question: str, history: list) -> str:
    examples = ["Q: 2+2? A: 4", f"Asked at {datetime.now()}"]
    shots = "".join(f"Example {n}: {text}\\n" for n, text in enumerate(examples, 1))
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": shots + RULES}, *history, {"role": "user", "content": question}])
''')
    assert f.message.startswith("per-request clock `datetime.now()` comes before 560 characters")
    assert (f.location.line, f.location.column) == (8, 45)


@pytest.mark.parametrize("grouping", [
    "groups = {}\n    for doc in docs:\n        groups.setdefault(doc.metadata['source'], []).append(doc.page_content)",
    "groups = defaultdict(list)\n    for doc in docs:\n        groups[doc.metadata['source']].append(doc.page_content)",
])
def test_retrieved_items_stay_retrieved_when_grouped_in_a_dict(tmp_path: Path, grouping: str) -> None:
    """Chunks grouped by their source, in a dict of lists grown in place, are still the lookup's."""
    retrieved_context_finding(tmp_path, grouping + "\n    return \"\\n\\n\".join(f\"## {source}\\n\" + \"\\n\".join(chunks) "
                                                   "for source, chunks in groups.items())")


@pytest.mark.parametrize(("safety_rule", "expected"), [
    # The clock grouped under the second key comes after both rules of the first, so only the
    # rules text follows it: known items stay known, in the dict's order.
    ('f"Checked at {datetime.now()}"', ["per-request clock `datetime.now()` comes before 560 characters"]),
    ('"Refuse harm."', []),  # fixed rules grouped by kind: fixed text
])
def test_a_dict_of_lists_keeps_known_items_in_group_order(tmp_path: Path, safety_rule: str,
                                                          expected: list[str]) -> None:
    found = findings(tmp_path, f'''
def ask(question: str, history: list) -> str:
    sections = [("style", "Be brief."), ("safety", {safety_rule}), ("style", "Use lists.")]
    groups = {{}}
    for kind, rule in sections:
        groups.setdefault(kind, []).append(rule)
    rules = "\\n".join(f"## {{kind}}\\n" + "\\n".join(texts) for kind, texts in groups.items())
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": rules + RULES}}, *history, {{"role": "user", "content": question}}])
''')
    assert len(found) == len(expected)
    assert all(f.message.startswith(start) for f, start in zip(found, expected))


def test_a_dict_the_loop_stores_each_step_s_result_in_is_loop_state(tmp_path: Path) -> None:
    """`state[key] = env.step(action)`: what the steps found, kept between them and written into
    the system message ahead of the rules and the history, differs on every request."""
    [f] = findings(tmp_path, '''
def run(task: str, env) -> None:
    state = {"url": "about:blank"}
    messages = [{"role": "system", "content": RULES}, {"role": "user", "content": task}]
    for _ in range(10):
        messages[0] = {"role": "system", "content": f"State: {state}\\n" + RULES}
        reply = client.chat.completions.create(model="gpt-4o", messages=messages)
        messages.append({"role": "assistant", "content": reply.choices[0].message.content})
        state[reply.id] = env.step(reply)
''')
    assert (f.rule, f.severity.value, f.location.line) == ("PC001", "error", 11)
    assert f.message.startswith("per-request loop-state `state` comes before 560 characters")


def test_a_request_s_own_arguments_changed_on_every_pass_keep_its_prompt(tmp_path: Path) -> None:
    """`kwargs["temperature"] = ...` in a loop that sends `**kwargs`: the request's own arguments,
    not state written into text, so the plan the loop grows is still seen in its system message."""
    [f] = findings(tmp_path, '''
def run(task: str) -> None:
    plan = []
    kwargs = {"model": "gpt-4o"}
    for attempt in range(5):
        kwargs["temperature"] = min(1.0, 0.2 * attempt)
        kwargs["messages"] = [{"role": "system", "content": f"Plan: {plan}\\n" + RULES},
                              {"role": "user", "content": task}]
        reply = client.chat.completions.create(**kwargs)
        plan.append(reply.choices[0].message.content)
''')
    assert f.message.startswith("per-request loop-state `plan` comes before 560 characters of stable text "
                                "(system prompt) in the `openai.chat.completions` prompt")


def test_a_dict_of_facts_kept_on_self_is_loop_state_whatever_its_name(tmp_path: Path) -> None:
    """`self.memory[key] = env.step(reply)`: a dict of what the steps found, though named like a
    conversation store, is state the loop carries into the system message (a list named so would
    be the conversation itself)."""
    [f] = findings(tmp_path, '''
class Agent:
    def __init__(self) -> None:
        self.memory = {}
        self.messages = [{"role": "system", "content": RULES}]
    def system(self) -> str:
        return "Known facts:\\n" + "\\n".join(f"{k}={v}" for k, v in self.memory.items()) + "\\n" + RULES
    def run(self, task: str, env) -> None:
        self.messages.append({"role": "user", "content": task})
        for _ in range(10):
            self.messages[0]["content"] = self.system()
            reply = client.chat.completions.create(model="gpt-4o", messages=self.messages)
            self.messages.append({"role": "assistant", "content": reply.choices[0].message.content})
            self.memory[reply.id] = env.step(reply)
''')
    assert f.message.startswith("per-request loop-state `self.memory` comes before 561 characters")
