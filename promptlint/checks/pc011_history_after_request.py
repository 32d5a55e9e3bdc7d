r"""PC011 history-after-request.

## What it does
Finds the conversation so far, rendered as text (`"\n".join(f"{m['role']}: {m['content']}" for m
in history)`), written after the request's own content (the new question, the current user
message) in the final user message.

## Why is this bad?
A transcript of the conversation grows at its end: the one sent on the next turn starts with the
one sent on this turn. Written first, it is a prefix each turn shares with the next, and the
provider serves all but the newest exchange from its cache. Written after the new question, it
follows text that is new on every turn, so the whole transcript, longer every turn, is billed and
prefilled again on every call. Routers, answer-from-history checks, query rewriters and memory
extractors that show the model "the current message" and then "the history" all pay this.

## Example
```python
def route(question: str, history: list[dict]) -> str:
    transcript = "\n".join(f"{m['role']}: {m['content']}" for m in history)
    prompt = f"Current user message: {question}\n\nMessage history:\n{transcript}"
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": ROUTER_RULES}, {"role": "user", "content": prompt}])
```

## Use instead
```python
def route(question: str, history: list[dict]) -> str:
    transcript = "\n".join(f"{m['role']}: {m['content']}" for m in history)
    prompt = f"Message history:\n{transcript}\n\nCurrent user message: {question}"
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": ROUTER_RULES}, {"role": "user", "content": prompt}])
```

Or send the history as messages of their own, ahead of the new user message.

## Known problems
The transcript is recognized when it is computed item by item (a comprehension, a loop's join) from
a list that grows over the conversation: a list an object's own methods append to
(`self.messages`), or a parameter named like the conversation (rules/prompt_sinks.yaml
`conversation_inputs`: `history`, `chat_history`, ...). A transcript kept as a string the code
appends to, or one a framework renders, is not seen. The value before the transcript must be named like
the request's new input (rules/prompt_sinks.yaml `request_inputs`, whole or as the end of a name:
`question`, `user_message`, `context["current_user_message"]`): an agent's task or a role's name
before its growing notes is the same on every step that grows them, and costs nothing there,
unless a method of the object rewrites it from its parameter while it appends to the conversation
(browser-use's `add_new_task`: a follow-up request). A request input under another name is missed. A transcript that is cut to its last few messages slides and misses either way
(PC009 reports the cut); moving it first still keeps the fixed text before it cached. The size of
the transcript is not known, so the estimate is a lower bound.

## Fix safety
No automatic fix: the model reads the parts in a new order, which can change its answers; re-test
the prompt. Putting the history first and the new message last is also the order chat models are
trained on.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from promptlint.analysis.layout import ONE_SHOT, USER_TURN_API, request_then_history
from promptlint.checks.base import Rule, RuleContext
from promptlint.model import Finding, PromptLayout, Severity, Step

SHORT_EXPRESSION = 40  # a longer expression (a whole comprehension) is shown by the step, not the message


class HistoryAfterRequest(Rule):
    code = "PC011"
    name = "history-after-request"
    summary = "The conversation so far, rendered as text, follows the request's own content"
    fix_hint = "write the conversation history before the request's content, or send it as messages of its own"

    VALID = [
        # The transcript first, the new message last: every turn starts with the last turn's prompt.
        """
from openai import OpenAI
client = OpenAI()
def route(question: str, history: list[dict]) -> str:
    transcript = "\\n".join(f"{m['role']}: {m['content']}" for m in history)
    prompt = f"Message history:\\n{transcript}\\n\\nCurrent user message: {question}"
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": "Pick a route."}, {"role": "user", "content": prompt}])
""",
        # An agent's task opens the prompt and its notes follow: the task is the same on every
        # step of the loop that grows the notes, so each step's prompt starts with the last's.
        """
from openai import OpenAI
client = OpenAI()
class Agent:
    def __init__(self, task: str) -> None:
        self.task = task
        self.messages: list[dict] = []

    def step(self) -> str:
        notes = "\\n".join(m["content"] for m in self.messages)
        prompt = f"Task: {self.task}\\n\\nWhat happened so far:\\n{notes}\\n\\nWhat next?"
        reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": prompt}])
        self.messages.append({"role": "assistant", "content": reply.choices[0].message.content})
        return reply.choices[0].message.content
""",
        # Only the latest message is quoted after the question: that is not the conversation.
        """
from openai import OpenAI
client = OpenAI()
def follow_up(question: str, history: list[dict]) -> str:
    prompt = f"Question: {question}\\nPrevious answer: {history[-1]['content']}"
    return client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": prompt}])
""",
    ]
    INVALID = [
        # A parameter named like the conversation, rendered after the current message.
        """
from openai import OpenAI
client = OpenAI()
def route(question: str, history: list[dict]) -> str:
    transcript = "\\n".join(f"{m['role']}: {m['content']}" for m in history)
    prompt = f"Current user message: {question}\\n\\nMessage history:\\n{transcript}"
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": "Pick a route."}, {"role": "user", "content": prompt}])
""",
        # The object's own conversation list, which its methods append to, rendered by a helper.
        """
from openai import OpenAI
client = OpenAI()
class Chat:
    def __init__(self) -> None:
        self.turns: list[dict] = []

    def _transcript(self, turns: list[dict]) -> str:
        return "\\n".join(f"{t['role']}: {t['content']}" for t in turns)

    def ask(self, user_message: str) -> str:
        prompt = f"New message: {user_message}\\n\\nEarlier:\\n{self._transcript(self.turns)}"
        self.turns.append({"role": "user", "content": user_message})
        answer = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": prompt}])
        self.turns.append({"role": "assistant", "content": answer.choices[0].message.content})
        return answer.choices[0].message.content
""",
    ]

    def check(self, layout: PromptLayout, layout_index: int, context: RuleContext) -> Iterable[Finding]:
        found = request_then_history(layout, context.request_inputs, context.setting_names)
        if found is None:
            return
        history = found.history
        named = f" (`{history.expression}`)" if len(history.expression) <= SHORT_EXPRESSION else ""
        message = (f"the final user message is filled per call from `{found.hole.expression}` on, and the "
                   f"conversation so far, rendered as text{named}, follows it there: the "
                   "transcript grows at its end, so written first it would be a prefix each turn shares with "
                   "the next; after the request's content the whole transcript is sent uncached on every turn")
        hole = found.hole
        if history.location is not None:
            hole = replace(hole, path=(*hole.path, Step(history.location, "the conversation is rendered here")))
        if layout.call.api.startswith(USER_TURN_API):  # judged alone: what comes before it is not seen
            hole = replace(hole, assumption=ONE_SHOT)
        yield self.finding(layout, layout_index, found.index, hole, Severity.WARNING, message)
