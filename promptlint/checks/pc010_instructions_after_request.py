r"""PC010 instructions-after-request.

## What it does
Finds long fixed text (instructions, rules, examples, an output format) written after the
request's own content in the final user message: the document to summarise, the retrieved
context, the episode to extract from, the question.

## Why is this bad?
The final user message is the request: whatever fills it changes on every call, so the prefix
cache stops at its first value. Fixed instructions written after that value are part of no prefix
two calls share: they are billed and prefilled again on every call, however often they are sent.
Placed before the request's content (at the end of the system prompt, or at the start of the
user message), they join the cached prefix. This holds for calls whose message follows the same
prefix every time (a fixed system prompt: extraction, summarising, reviewing, one call per
document); after a conversation history that grows, the newest message sits at a new place on
every call and nothing in it is cached whatever its order, so such calls are not reported.

## Example
```python
RULES = "1. Use only the entities listed. 2. ..."  # 40 lines of extraction rules
def extract(episode: str) -> list[dict]:
    return [{"role": "system", "content": "You extract facts."},
            {"role": "user", "content": f"<EPISODE>\n{episode}\n</EPISODE>\n\n{RULES}"}]
```

## Use instead
```python
def extract(episode: str) -> list[dict]:
    return [{"role": "system", "content": "You extract facts.\n\n" + RULES},
            {"role": "user", "content": f"<EPISODE>\n{episode}\n</EPISODE>"}]
```

A user message is judged where it is built (a `{"role": "user"}` dict, a `role="user"` message, a
user-message constructor of rules/prompt_sinks.yaml `user_messages`, the user text handed to a
project wrapper that puts it in a user message) as well as where a call sends it; nothing has to
be known about the rest of the prompt. The finding sits where the content is handed to the
message (where the fix reorders it), with the line that built its first value as a step.

## Known problems
Reported when at least about 500 tokens (2,000 characters) of literal text follow the first value
of the final user message; 200 to 500 tokens are `info` (little to gain), and shorter closing
instructions (`Answer:`, a one-line format reminder) are left alone. Only pieces of at least 32
characters count, and a piece written again from one place after a value (`The file '{path}' is
imported by:` once per item of a loop) is the formatting of those values, not instructions: it
counts neither in the size nor in the estimate, which is the prefix up to the first value plus the
instructions a fix would move ahead of it. A finding whose estimate
loses less than a cache block for every provider (the whole prompt is below the providers'
minimum cacheable prefix) is `info` too. Every value that is not known to be constant counts as
the request's content, except values named like a setting of the deployment (`language`,
`entity_types`, `schema`, `persona`: rules/prompt_sinks.yaml `setting_names`; add your own with
`setting-names = [...]`). Another value that is in fact the same on every call (a parameter always
given the same text) is a false alarm: give it a module-level name, add its name to
`setting-names`, or suppress the finding. A user message stored and replayed as history keeps its
text as written, so the loss is paid once per conversation, not once per turn; the rule cannot
tell such a message from the newest turn. A clock or an id before the fixed text is PC001's
finding, not this rule's, unless the request's content follows it closely (`Today is {now}.
Question: {question}` and the rules): PC001 sees nothing the clock alone loses there, and this
rule reports the rules from the clock on. A user message judged where it is built, with no call in sight, is
assumed to follow a fixed prefix (the finding says so); one built inside a loop that calls an LLM
is not judged there (an agent loop sends it after the history it grows). User messages are judged
in the functions promptlint evaluates: those that call an LLM, build a system message or call a
project wrapper; a function that builds only a user message is judged where its result is sent.

## Fix safety
No automatic fix: moving instructions changes what the model reads last, which can change its
answers; re-test the prompt after the move. Long-context advice (Anthropic's among others) puts
long documents first and the question last, and that still holds: move the long fixed block
(rules, examples, output format) into the system prompt, and keep the question, or a one-line
reminder of the format, at the end of the user message.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from promptlint.analysis.derived import is_request_content
from promptlint.analysis.layout import ONE_SHOT, USER_TURN_API, InputThenFixedText, input_then_fixed_text, may_change
from promptlint.analysis.templates import FILLS_SLOT
from promptlint.checks.base import LONG_STABLE_CHARS, NOTABLE_STABLE_CHARS, Rule, RuleContext
from promptlint.model import Finding, Hole, Literal, Location, PromptLayout, Segment, Severity, Step, Volatility

TEMPLATE_LINES = 200  # a prompt template longer than this is rare: beyond it, the text is not the value's
NAMED_VALUE_CHARS = 40  # a value built elsewhere is named in the message when its expression is this short


class InstructionsAfterRequest(Rule):
    code = "PC010"
    name = "instructions-after-request"
    summary = "Long fixed text follows the request's own content in the final user message"
    fix_hint = ("put the fixed instructions before the request's content: at the end of the system prompt, or "
                "at the start of the user message")

    VALID = [
        # The rules come first; only a one-line reminder follows the episode.
        """
RULES = "Extract every fact as a triple and cite the sentence it comes from. " * 40
def extract(episode: str) -> list[dict]:
    return [{"role": "system", "content": "You extract facts."},
            {"role": "user", "content": f"{RULES}\\n<EPISODE>\\n{episode}\\n</EPISODE>\\nAnswer in JSON."}]
""",
        # Only constants before the fixed text: the whole message is the same on every call.
        """
from openai import OpenAI
FORMAT = "Reply with a JSON object holding `answer` and `sources`. "
RULES = "Cite the document ids and never invent facts. " * 60
def answer(question: str):
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "user", "content": f"{FORMAT}\\n{RULES}"}, {"role": "user", "content": question}])
""",
        # After a conversation history: the newest message is new wherever its rules sit.
        """
from openai import OpenAI
RULES = "Answer from the documents and cite the fragment numbers you used. " * 40
def reply(question: str, history: list):
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": "You are the support assistant."}, *history,
        {"role": "user", "content": f"{question}\\n\\n{RULES}"}])
""",
        # The long text is in the system message; the user turn holds the document alone.
        """
from openai import OpenAI
RULES = "Summarise the document in five bullet points; keep every number exact. " * 40
def summarise(document: str):
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": RULES}, {"role": "user", "content": document}])
""",
    ]
    INVALID = [
        # Judged where the user message is built: the episode, then the extraction rules.
        """
RULES = "Extract every fact as a triple and cite the sentence it comes from. " * 40
def extract(episode: str) -> list[dict]:
    return [{"role": "system", "content": "You extract facts."},
            {"role": "user", "content": f"<EPISODE>\\n{episode}\\n</EPISODE>\\n\\n{RULES}"}]
""",
        # A message object with `role=`, its content a template filled from a context dict.
        """
from pydantic import BaseModel
class Message(BaseModel):
    role: str
    content: str
TASK = "# TASK\\nList the entities of the CURRENT MESSAGE with their types. " * 40
def extract_nodes(context: dict) -> list[Message]:
    return [Message(role="system", content="You are an entity extractor."),
            Message(role="user", content=f"<CURRENT MESSAGE>\\n{context['episode_content']}\\n"
                                         f"</CURRENT MESSAGE>\\n{TASK}")]
""",
        # The document first in the only message of a call, the long summarising rules after it.
        """
from openai import OpenAI
RULES = "Summarise the document above in five bullet points and keep every number exact. " * 80
def summarise(document: str):
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "user", "content": f"<document>\\n{document}\\n</document>\\n\\n{RULES}"}])
""",
    ]

    def quiet_when_nothing_lost(self, finding: Finding) -> bool:
        return True  # the whole point of the rule is the loss

    def check(self, layout: PromptLayout, layout_index: int, context: RuleContext) -> Iterable[Finding]:
        found = instructions_after_request(layout, context.setting_names)
        if found is None:
            return
        hole = _placed_in_message(found.hole, found.index, layout)
        # A value built elsewhere is named by where it is handed over; the step shows where it was built.
        start = f"`{hole.expression}`" if hole is found.hole else "the value passed here" + (
            f" (`{found.hole.expression}`)" if len(found.hole.expression) <= NAMED_VALUE_CHARS else "")
        message = (f"the final user message is filled per call from {start} on, and {found.fixed_chars:,} "
                   "characters of fixed text follow in that message: they are part of no prefix two calls share, "
                   "so every call sends them uncached")
        severity = Severity.WARNING
        if found.fixed_chars < LONG_STABLE_CHARS:
            severity = Severity.INFO
            message += f"; at about {found.fixed_chars // 4:,} tokens that is little to gain (info)"
        if layout.call.api.startswith(USER_TURN_API):  # judged alone: what comes before it is not seen
            hole = replace(hole, assumption=ONE_SHOT)
        yield self.finding(layout, layout_index, found.index, hole, severity, message)


def instructions_after_request(layout: PromptLayout, settings: frozenset[str] = frozenset(),
                               min_chars: int = NOTABLE_STABLE_CHARS) -> InputThenFixedText | None:
    """The request's first value in the final user turn when at least ``min_chars`` of fixed text
    follow it (what PC010 reports, the collector keeps and the verifier fixes). A closing line
    costs nothing worth saying; a volatile value there is PC001's finding, unless it is the
    request's own content (a graph node's state), or the request's content follows it closely
    (`Today is {now}. User asks: {question}` and the rules): then PC001 sees nothing the clock
    alone loses, and the rules are lost to both."""
    found = input_then_fixed_text(layout, settings)
    if found is None or found.fixed_chars < min_chars:
        return None
    if found.hole.volatility.is_volatile and not is_request_content(found.hole) and not (
            found.hole.volatility is Volatility.PER_REQUEST and _request_follows(layout.segments(), found.index,
                                                                               settings)):
        return None
    return found


def _request_follows(segments: tuple[tuple[str, Segment], ...], index: int, settings: frozenset[str]) -> bool:
    """The request's own content (or a value this rule takes for it) comes after segment
    ``index`` in the final user turn, with less fixed text between them than PC001 reports on
    its own."""
    between = 0
    for part, segment in segments[index + 1:]:
        if part != "final_user":
            continue
        if isinstance(segment, Literal):
            between += len(segment.text)
        elif may_change(segment, settings) and (is_request_content(segment) or not segment.volatility.is_volatile):
            return between < LONG_STABLE_CHARS
    return False


def _placed_in_message(hole: Hole, index: int, layout: PromptLayout) -> Hole:
    """The value, placed where the fix reorders it: where it is written next to the fixed text
    (an f-string's field, or the placeholder of a template filled with it, the instructions
    below), else where the message's content is put together (`content=joint_message + "\\n\\n"
    + PROMPT`); with the place the value was built (a helper that formats the snippets) as a step."""
    content = next((part.location for part in layout.parts if part.name == "final_user"), None)
    if content is None or hole.location is None or content.contains(hole.location):
        return hole
    text = _longest_text_after(layout.segments(), index)

    def rules_below(place: Location) -> bool:
        return _written_above(place, text) or _template_goes_on(layout, index, place)

    if rules_below(hole.location):
        return hole
    slot = next((step for step in reversed(hole.path) if step.description.startswith(FILLS_SLOT)), None)
    if slot is not None and rules_below(slot.location):
        content = slot.location  # the placeholder of a template filled with it, above its rules
    built = Step(hole.location, f"`{hole.expression}` is built here")
    return replace(hole, location=content, path=(built, *(s for s in hole.path if s is not slot)))


def _template_goes_on(layout: PromptLayout, index: int, value: Location) -> bool:
    """The template that holds the placeholder goes on with fixed text below it (the longest text
    may come from a file it includes: `{% include "partials/coding_rules.prompt" %}`)."""
    return any(position > index and part == "final_user" and isinstance(segment, Literal)
               and len(segment.text.strip()) >= 32 and _written_above(value, segment.location)
               for position, (part, segment) in enumerate(layout.segments()))


def _longest_text_after(segments: tuple[tuple[str, Segment], ...], index: int) -> Location | None:
    texts = [segment for position, (part, segment) in enumerate(segments)
             if position > index and part == "final_user" and isinstance(segment, Literal)]
    return max(texts, key=lambda text: len(text.text)).location if texts else None


def _written_above(value: Location, text: Location | None) -> bool:
    """The value sits in the same template as the fixed text, a little above it."""
    return text is not None and text.path == value.path and 0 <= text.line - value.line <= TEMPLATE_LINES


