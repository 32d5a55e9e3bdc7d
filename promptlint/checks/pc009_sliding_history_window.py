r"""PC009 sliding-history-window.

## What it does
Finds conversation histories that are cut from the front or the middle one message at a time once
they reach a limit: `self.messages = self.messages[-max_messages:]` after a length check,
`messages.pop(1)` or `del history[i]` in a loop that counts messages or tokens, `messages[:1] +
messages[len(messages) - limit:]` (or `[messages[0], *messages[-limit:]]`, or the same through
locals and returned, with a head of the size the object is configured with: `head =
messages[:self.keep_first]`, `tail = messages[-tail_length:]`, `return head + tail`, or a list started with
the first message and extended with the latest ones, or every item but the latest few removed:
`for image in images[:-2]: messages.remove(image)`, or every item but the latest few replaced by a
placeholder or a shortened copy as the list grows: `if i < len(view) - window: masked`, or counted
from the newest, `if count > keep_latest: msg = shortened(msg)`), the latest `n` messages
after a loop that lowers `n` until they fit a limit (`messages[-n:]`, or a memory's
`to_messages(n)` that hands out its last `n` turns: griptape's autoprune), a `get_messages()` that
returns only the last `buffer_size` messages of what it holds, the conversation rendered as text
(`text = self.return_history_as_string()`) and cut from the front to fit a token limit, and the
oldest turns dropped or shortened until an excess over the limit is used up (`excess = total -
available`, then, oldest first, the turn kept once `excess <= 0`, else dropped and `excess -= size`:
Qwen-Agent's truncation), or the newest turns kept while they fit a budget (`for msg in
reversed(history): used += size; if used > limit: break; kept.insert(0, msg)`: onyx's history
truncation), or the oldest messages shortened in place, one more each time, while the conversation
is over a measured limit (`while count_tokens(hist) > limit: hist[i] = shortened(i); i += 1`:
langroid's context-overflow truncation, where the shortened messages stay so). Framework
settings that replay only the last turns (`Agent(add_history_to_context=True, num_history_runs=5)`
in agno, LangChain's `ConversationBufferWindowMemory` and `trim_messages`, tokentrim's `trim`:
`history_windows` in rules/prompt_sinks.yaml) are the same cut made by a library. So are the
latest items of a list that grows, sent as the history of a request, whatever the limit and
wherever the slice is made: a memory's `get(k)` that returns `self.storage[-k:]`, sent on every
step (the shape of MetaGPT's roles), and a list an object keeps, whatever its name, that one of
its methods cuts from the front once it is over a limit (`if len(self.context_list) > self.limit:
self.context_list.pop(0)`, `del self.x[0]`, `self.x = self.x[-n:]`) while another sends it, as
messages or joined into a message's text (bilingual_book_maker's context paragraphs).

## Why is this bad?
A history that only grows is the cheapest prompt there is: every request repeats the previous one
and adds a turn, so everything but the new turn is a cache hit. A window that slides by one
message changes the first message after the system prompt on every request once it is full: from
then on the whole history misses the cache on every call, and the longer the window the more each
call pays. Dropping a screenshot or a message from the middle does the same from that point on.

## Example
```python
def add_message(self, message: dict) -> None:
    self.messages.append(message)
    if len(self.messages) > self.max_messages:
        self.messages = self.messages[-self.max_messages:]
```

## Use instead
```python
def add_message(self, message: dict) -> None:
    self.messages.append(message)
    if len(self.messages) > self.max_messages:
        # Cut in one large block, so the next max_messages // 2 requests share a prefix again
        # (or replace the dropped turns by a summary kept fixed until the next cut).
        self.messages = self.messages[-(self.max_messages // 2):]
```

## Known problems
The rule mostly reads the code of the cut, not the request: it does not prove that the list is sent
to a model. A list with any other name is reported only where a request is seen sending it, and
only when the object's own method cuts its front under a test of its length against a limit (not
a drain, `while len(q) > 0`, nor a list emptied whole). Otherwise it looks only at lists named like a conversation (`messages`, `history`, `conversation`,
`convo`) in files that deal with chat messages for a model (a `role` or `role_...` key, an LLM
client or call), cut (either branch of a conditional expression counts:
`[] if size == 0 else messages[-size:]`)
under a length or budget check, stored back on an object, or returned by the method that hands the
history out; the start must move with the list's length (`h[-n:]`, `h[len(h) - n:]`), so dropping a
fixed head (`h[skip:]`) is not a window, and a fixed tail (`h[-20:]`) is one only when stored back
into the history itself. A local copy cut once for a one-off summary is left alone, and so is one
that is then only counted and looped over to write text (a log report), and so are memory stores
(searched, so what reaches the prompt is per request anyway) and capped logs of things that are not
messages (the function appends a hash, an id, a signal, a tuple holding one, or a record without a
role or content to the list). A prompt the function inserted itself and takes back by the position
it noted (`at = len(messages)`, later `messages.pop(at)` under `at < len(messages)`) is not an old
turn lost. A slice in the `else` of a limit test runs under the limit, so it is not a cut; code
after `if <size within limit>: return` runs over it, so a slice there is. The conversation as text
is recognized only when a local name holds the result of a history-named call
(`return_history_as_string()`, `get_history_text()`) and is sliced from a start that moves with its
length (`text[mid:]` in a search over `len(text)`, `text[-n:]`) under a limit test; text read from
elsewhere (a page, a tool output) is not a history. A window that drops half of the history at a
time is still reported (it misses once per half window instead of on every call): keep it if that
is the trade-off you chose, with a suppression comment saying so. Framework windows are found only
for the constructors listed in `history_windows`. A method that cuts where its caller says
(`def trim(self, index, count)` with no limit test of its own) is reported at the calls made under
a limit test (`if len(convo.messages) > 11: convo.trim(3, 2)`), found by the method's name called
on a history-named object; where no such call is found, at the method itself. A method that hands
out the last `n` items of its object's list (`self.runs[-last_n:]`, in a class named like a
conversation or on a history-named list) is reported only where a caller lowers `n` until the
result fits a limit: the count must be lowered (`n -= 1`) in a loop that tests a size or a budget.
A cut in a function that also asks a model for a summary (a name, attribute or text saying
"summary" or "compact", and a call such as `llm.ainvoke(...)` on a model or client) is a compaction
and is left alone: the dropped turns live on in the summary until the next compaction. A compaction
that runs again on every request once the history is full would slide like a window and is missed.
An excess used up item by item is recognized only when it is computed before the loop as a measure
minus something (a name for a limit on the left, such as `max_tokens - used`, is a budget left, not
an excess) and the loop runs oldest first over a history-named list or keeps into one. The newest
turns that fit are recognized only in a loop that runs newest first (`reversed(x)`, `x[::-1]`) over
a history-named list or keeps into one, adds to a running total, and stops with `break` on a
comparison that reads it; not in a function named for a summary (the newest turns kept verbatim and
the rest summarized: a compaction), nor over a parameter typed `list[str]` (lines of text to
chunk). Items replaced by their distance from the end are found only in a loop over the list itself
(`enumerate(view)` with a test against `len(view)` that holds for the older items, or
`reversed(memory)` with a count stepped by one that holds once the count is large; the newest turn
marked as a cache breakpoint is not a rewrite of the history) whose branch appends something else
where the `else` appends the item, binds the item's name to a new message, or writes over its
content; whatever the list is called, so a display list that collapses old entries the same way in
a file that deals with chat messages is reported too. The older indexes may come from a method of
the same module that returns a slice ending at a length less a count (SWE-agent's
`omit = self._get_omit_indices(history)`, then `if idx not in omit:` keeps the item); an omitted
set computed any other way is missed. Newest first, an item rewritten when a newer one already
showed its key (`if file in windows:` with `windows.add(file)` in the loop: an older file view
closed once a newer message shows the file) is reported too: each new view rewrites an earlier
message; its hint is to leave sent messages as they were (cutting in blocks would not help). Such a
loop that drops the older item instead of rewriting it is missed. The latest items sent in a
request are found where the slice itself (`x[-k:]`, `x[len(x) - k:]`, or a literal count of at
least four items: `x[-2:]` is the latest exchange) reaches the request's message list as a list,
through names, returns, fields, methods and conversions of each item (a comprehension,
`msg.to_dict()`, a converter loop appending a message per item, made by a message-constructor
helper or not, a loop over the list newest first that writes shorter messages for the older items).
A method whose count is its parameter (`def get(self, k=0): return self.storage[-k:]`) cuts where
its caller says: the window is reported at the call that chooses the count
(`self.rc.memory.get(self.memory_k)`, or further up while the count is passed on), with the slice
as its first step; a count known to be 0 there (`x[-0:]`: a caller passing 0, or leaving a default
of 0) is the whole list and not a window; so is a count left at None where the slice runs only
`if n is not None:`. The request need not be sent in sight: a window added to a list that opens
with a system message (agno's `run_messages.messages += history`, the list a model call gets later)
makes that list the request, judged as it stands. Items copied out one by one from the runs of a
window (`for run in runs[-n:]: for m in run.messages: out.append(m)`) keep the window.

## Fix safety
No automatic fix: what to keep when the history is too long is a product decision.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace
from typing import Any, Iterable, Iterator

from promptlint.analysis.index import nodes_of, of_kind
from promptlint.checks.base import Rule, RuleContext
from promptlint.model import CallSite, Finding, Hole, Location, PromptLayout, Severity

# One walk per node, kept while one of the rule's passes over a module runs: the cuts are looked
# for by a dozen readers, each walking the same functions for its own kinds (8 % of agno's time in
# a profile). A node's kinds come from the kept walk in the order a walk for them gives (see
# ``of_kind``). Forgotten at the start of every pass: between two passes the evaluator may drop a
# function's statements and parse them again, and a kept walk would hand out the old nodes.
_WALKS: dict[int, tuple[ast.AST, list[ast.AST]]] = {}


def _nodes(node: ast.AST, kind: Any) -> list[Any]:
    """``nodes_of(node, kind)``, read from the node's kept walk."""
    kept = _WALKS.get(id(node))
    if kept is None or kept[0] is not node:  # the node kept alive in the entry: an id is never reused
        kept = _WALKS[id(node)] = (node, nodes_of(node, ast.AST))
    return of_kind(kept[1], kind)


# Names of conversation containers (matched inside the last name: `short_memory`, `_messages`).
# Not `memory`: a memory store is searched, and what reaches a prompt is already per request.
HISTORY_WORDS = ("messages", "history", "conversation", "convo", "chat_log")
INDEX_NAMES = frozenset({"idx", "index", "pos", "position", "offset"})
# What a limit compares: a length, a token count, a budget (`len(x)`, `token_count`, `max_images`).
SIZE_NAME = re.compile(r"(?i)count|token|size|length|limit|max|budget|num|total|remain")
# Of those, a measured size (`total_tokens`) rather than the limit it is held to (`max_tokens`).
MEASURE_NAME = re.compile(r"(?i)count|token|size|len|total|num")
LIMIT_NAME = re.compile(r"(?i)max|limit|budget|context|window|allowed|threshold")
HISTORY_NAME = re.compile(r"(?i)(?:" + "|".join(HISTORY_WORDS) + r")")
# A cheap text test before parsing: a history-named list sliced from the front, popped at an index,
# deleted from, rebuilt around a kept head, or sliced up to its last few items (all but those removed).
CANDIDATE = re.compile(r"(?i)(?:" + "|".join(HISTORY_WORDS) + r")\w*\s*"
                       r"(?:\[\s*-|\[[^\]\n]{0,80}:\s*\]|\.pop\(\s*[^)\s]|\[:\s*[\w.]+\s*\]\s*\+"
                       r"|\[[^\]\n]{0,40}:\s*-\s*[\w.]+\s*\]\s*:)"
                       r"|\bdel\s+[\w.]*(?:" + "|".join(HISTORY_WORDS) + r")")


# Keys of a chat message dict, and names of things appended to a list that are not messages.
MESSAGE_KEYS = frozenset({"role", "sender", "speaker", "author", "content", "parts", "text"})
NOT_A_MESSAGE = re.compile(r"(?i)hash|signal|(?:^|_)ids?$|(?:^|_)keys?$|(?:^|_)scores?$")


# The conversation rendered by a history-named call and kept in a name, and a slice that could cut
# it from the front (`text = self.history_as_string()`, `text[mid:]`).
HISTORY_TEXT = re.compile(r"(?i)\w\s*=\s*[\w.]*(?:" + "|".join(HISTORY_WORDS) + r")\w*\(")
OPEN_SLICE = re.compile(r"\w\[[^\]\n:]{1,60}:\s*\]")


# A file that handles chat messages for a model: role-tagged messages, an LLM client or call.
_SUMMARY_WORD = re.compile(r"(?i)summar|compact")
_MODEL_RECEIVER = re.compile(r"(?i)llm|model|client")
MODEL_METHODS = frozenset({"invoke", "ainvoke", "completion", "acompletion", "create", "generate", "agenerate",
                           "chat", "achat", "complete", "acomplete"})
# (`role_at_backend`: camel's memory records keep the role under their own key.)
CHAT_CODE = re.compile(r"\brole(?:s|_\w+)?\b|(?i:\bllm\b|completion|chat_model|model_client|assistant)")


# The cheap anchors of a cut, found with str.find: CANDIDATE (case-insensitive, with alternations)
# runs only around them, since the first pass reads every file of the project (the regex alone
# took 1.3 s over a 12 MB tree).
ANCHORS = ("[-", "[ -", ".pop(", "del ", "[:", "len(", ".remove(")
CHAT_WORDS = ("role", "llm", "completion", "chat_model", "model_client", "assistant")
# A class named like a conversation that slices a list of its own from the end (griptape's
# `ConversationMemory.runs[-last_n:]`): its lists are the history whatever they are called.
HISTORY_CLASS = re.compile(r"\bclass\s+\w*(?i:" + "|".join(HISTORY_WORDS) + r")")
OWN_TAIL = re.compile(r"\bself\.\w+\[\s*-")
# A loop that may treat an item by its distance from the end (see _masking_cuts).
MASKING_LOOP = re.compile(r"\bfor\s+\w+\s*,\s*\w+\s+in\s+enumerate\(|\bfor\s+\w+\s+in\s+reversed\(")


# A counter tested against 0 or 1 (`if exceedance <= 0:`): an excess used up item by item (see _excess_drop_cuts).
EXCESS_TEST = re.compile(r"\bif\s+\w+\s*(?:<=|<|>|>=|==)\s*[01]\s*:")


# A loop held to a measured size (`while self.chat_num_tokens(hist) > limit`: see _shortening_loop_cuts).
SHORTENING_LOOP = re.compile(r"\bwhile\b[^:]{0,120}?(?:len|count|token|size|length)\w*\(")


def may_cut_history(text: str) -> bool:
    """Whether a file's text may hold a history cut (decides whether the file is parsed): a cut of
    a history-named list in a file that deals with chat messages for a model (a capped list of
    alerts or ids in a file that never builds a request is not a prompt's history)."""
    lowered = text.lower()
    if not any(word in lowered for word in CHAT_WORDS):
        return False
    if ("enumerate(" in text or "reversed(" in text) and MASKING_LOOP.search(text) is not None:
        return CHAT_CODE.search(text) is not None
    if not any(word in lowered for word in HISTORY_WORDS):
        return False
    if ("-=" in text or "- " in text) and EXCESS_TEST.search(text) is not None and CHAT_CODE.search(text) is not None:
        return True
    if "while " in text and "] = " in text and "+= 1" in text and SHORTENING_LOOP.search(text) is not None:
        return CHAT_CODE.search(text) is not None
    for anchor in ANCHORS:
        start = text.find(anchor)
        while start != -1:
            if CANDIDATE.search(text, max(0, start - 80), start + 120):
                return CHAT_CODE.search(text) is not None
            start = text.find(anchor, start + 1)
    if "[-" in text and OWN_TAIL.search(text) is not None and HISTORY_CLASS.search(text) is not None:
        return CHAT_CODE.search(text) is not None
    return HISTORY_TEXT.search(text) is not None and OPEN_SLICE.search(text) is not None \
        and CHAT_CODE.search(text) is not None


FULL_WINDOW = ("once it is full, every request changes an earlier part of the history, so everything after "
               "the cut misses the prefix cache on every call")
REWRITTEN = ("each such item changes an earlier part of the history, so everything after it misses the prefix "
             "cache on the next call")
REWRITE_HINT = "leave the messages already sent as they were; say in the newest message what has changed"


@dataclass(frozen=True)
class Cut:
    node: ast.AST
    history: str  # the list's source text
    how: str  # what the statement does, for the message
    effect: str = FULL_WINDOW  # what it does to the requests, for the message


@dataclass(frozen=True)
class HelperCut:
    """A method that cuts its object's history where its caller says (``trim(self, index, count)``
    with no limit test of its own): whether it slides is decided by the caller's test, so it is
    reported at the calls made under a limit (``if len(convo.messages) > 11: convo.trim(3, 2)``)."""

    method: str
    location: Location
    history: str
    how: str
    # False for a method that hands out the latest ``n`` items its caller asks for
    # (``self.runs[-last_n:]``): a window only where a caller lowers ``n`` to fit a limit.
    alone: bool = True


class SlidingHistoryWindow(Rule):
    code = "PC009"
    name = "sliding-history-window"
    summary = "The conversation history is cut from the front one message at a time"
    fix_hint = "cut the history in large blocks (or summarize) so the prefix stays fixed for many turns"

    VALID = [
        # Append-only history: every request extends the previous one.
        """
class Memory:
    def __init__(self):
        self.messages = []
    def add(self, message: dict) -> None:
        self.messages.append(message)
""",
        # A local copy cut once for a one-off summary prompt.
        """
import json
def summary_prompt(conversation_turns: list) -> str:
    messages = [t for t in conversation_turns if not t.get("tool_calls")]
    messages = messages[-3:]
    return "Summarize:\\n" + json.dumps(messages)
""",
        # A copy of a log cut to its latest messages only to print a report (gptme's subagent log):
        # counted and looped over to write text, never sent.
        """
from openai import OpenAI
def read_log(log, max_messages: int = 20) -> str:
    messages = [m for m in log.messages if m.role != "system"]
    if len(messages) > max_messages:
        messages = messages[-max_messages:]
    output = f"Total messages: {len(messages)}\\n"
    for msg in messages:
        output += f"{msg.role}: {msg.content[:500]}\\n"
    return output
""",
        # A capped list in a file that never builds a request, and a fixed head dropped.
        """
class AlertBuffer:
    def add(self, text: str) -> None:
        self.recent_messages.append(text)
        if len(self.recent_messages) > 20:
            del self.recent_messages[0]
def older_rounds(conversations: list, keep_start_rounds: int) -> list:
    return conversations[keep_start_rounds:]
""",
        # Capped logs of things that are not messages (tool-call hashes, counted alerts), and a
        # one-off slice for an API response in the else branch of a size test.
        """
class LoopDetector:
    def record(self, llm_call) -> None:
        history = self._history[llm_call.thread_id]
        history.append(llm_call.call_hash)
        if len(history) > self.window_size:
            history[:] = history[-self.window_size:]
    def note_dialog(self, kind: str, text: str) -> None:
        self.recent_dialog_messages.append({"type": kind, "message": text, "count": 1})
        if len(self.recent_dialog_messages) > 5:
            del self.recent_dialog_messages[0]
def task_view(messages: list, history_length: int, role: str) -> dict:
    if history_length <= 0:
        return {"history": []}
    else:
        history_messages = messages[-history_length:]
    return {"history": history_messages}
""",
        # A window setting with no history sent at all.
        """
from agno.agent import Agent
agent = Agent(instructions="Summarize the page.", num_history_runs=5)
""",
        # Skipping the system message is not a cut, nor is consuming a queue.
        """
def to_anthropic(messages: list) -> tuple:
    return messages[0]["content"], messages[1:]
def drain(pending_messages: list) -> None:
    while pending_messages:
        print(pending_messages.pop(0))
""",
        # Every message kept, a padding turn added after some: nothing is replaced.
        """
def pad(messages: list) -> list:
    padded = []
    for i, message in enumerate(messages):
        padded.append(message)
        if message["role"] == "tool" and i + 1 < len(messages):
            padded.append({"role": "model", "content": "..."})
    return padded
""",
        # Retrieved documents (not the conversation) shortened in place until they fit the prompt.
        """
def fit_documents(llm, documents: list, limit: int) -> list:
    # each becomes part of a {"role": "user", "content": ...} message
    i = 0
    while llm.count_tokens(documents) > limit and i < len(documents):
        documents[i] = documents[i][:500]
        i += 1
    return documents
""",
        # Text that is not the conversation (a page), cut to fit: not a history window.
        """
def page_excerpt(browser, llm, limit: int) -> str:
    text = browser.page_text()
    if len(text) > limit:
        text = text[len(text) - limit:]
    return llm.complete([{"role": "user", "content": text}])
""",
    ]
    INVALID = [
        # The latest items of a growing memory sent as the history of every request.
        """
from openai import OpenAI
class Memory:
    def __init__(self):
        self.storage = []
    def add(self, message: dict) -> None:
        self.storage.append(message)
    def get(self, k: int) -> list:
        return self.storage[-k:]
def step(client: OpenAI, memory: Memory, text: str):
    memory.add({"role": "user", "content": text})
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": "You are a careful engineer."}, *memory.get(50)])
""",
        # Older observations masked by their distance from the end, rebuilt before every request.
        """
def condense(view: list, window: int) -> list:
    results = []
    for i, event in enumerate(view):
        if i < len(view) - window:
            results.append({"role": "tool", "content": "<MASKED>"})
        else:
            results.append(event)
    return results
""",
        # A framework's windowed history (rules/prompt_sinks.yaml `history_windows`).
        """
from agno.agent import Agent
agent = Agent(instructions="You manage the user's Notion pages.", add_history_to_context=True,
              num_history_runs=5)
""",
        """
class Memory:
    def __init__(self, max_messages: int = 100):
        self.messages = []
        self.max_messages = max_messages
    def add_message(self, role: str, content: str) -> None:
        self.messages.append({"role": role, "content": content})
        if len(self.messages) > self.max_messages:
            self.messages = self.messages[-self.max_messages:]
""",
        """
class Worker:
    def flush(self) -> None:
        if len(self.agent.messages) > 2 * self.max_trajectory_length + 1:
            self.agent.messages.pop(1)
            self.agent.messages.pop(1)
    def step(self, llm):
        self.flush()
        return llm.chat(self.agent.messages)
""",
        # The same cut copy, converted message by message into the list a request sends.
        """
def reply(client, log, max_messages: int = 20):
    messages = [m for m in log.messages if m.role != "system"]
    if len(messages) > max_messages:
        messages = messages[-max_messages:]
    sent = []
    for msg in messages:
        sent.append({"role": msg.role, "content": msg.content})
    return client.chat.completions.create(model="gpt-4o", messages=sent)
""",
        """
class BufferedChatCompletionContext:
    async def get_messages(self) -> list:
        return self._messages[-self._buffer_size:]
""",
        """
import json
def save(messages: list, path: str, length: int) -> None:
    # messages: [{"role": ..., "content": ...}], replayed on the next run
    kept = messages[:1] + messages[1 + max(0, len(messages) - length):]
    json.dump(kept, open(path, "w"))
""",
        """
from core.llm.convo import Convo
class AgentConvo(Convo):
    def trim(self, trim_index: int, trim_count: int) -> "AgentConvo":
        # called as convo.trim(3, 2) once the chat is over its limit
        self.messages = self.messages[:trim_index] + self.messages[trim_index + trim_count:]
        return self
""",
        """
def fit(messages: list, model_client, limit: int) -> list:
    while model_client.count_tokens(messages) > limit and messages:
        messages.pop(len(messages) // 2)
    return messages
""",
        # The oldest messages shortened in place until the conversation fits (langroid's context
        # overflow): the shortened messages stay so, each request over the limit shortens one more.
        """
class ChatAgent:
    def prepare(self, llm):
        # {"role": ..., "content": ...} messages
        hist = self.message_history
        idx = 1  # the system message stays
        while self.num_tokens(hist) > llm.context_length():
            hist[idx] = self.truncated(idx, tokens=30)
            idx += 1
        return hist
""",
        # The latest messages that fit: a count lowered until the tail fits its token limit.
        """
def latest_that_fit(messages: list, llm, limit: int) -> list:
    n = len(messages)
    while n > 0 and llm.count_tokens(messages[-n:]) > limit:
        n -= 1
    return messages[-n:]
""",
        # The conversation as text, cut from the front until it fits (swarms' dynamic context window).
        """
class Conversation:
    def chunked(self) -> str:
        # {"role": ..., "content": ...} messages, sent to the llm as one text
        text = self.return_history_as_string()
        if count_tokens(text) <= self.context_length:
            return text
        left, right = 0, len(text)
        while left < right:
            mid = (left + right) // 2
            if count_tokens(text[mid:]) <= self.context_length:
                right = mid
            else:
                left = mid + 1
        tail = text[right:]
        return tail
""",
    ]

    def check(self, layout: PromptLayout, layout_index: int, context: RuleContext) -> Iterable[Finding]:
        """The latest items of a list that grows, sent as the request's conversation (the
        evaluator marks the slice: ``Hole.window``); the cut itself is found by ``check_module``."""
        seen: set[Location] = set()
        for index, (_, segment) in enumerate(layout.segments()):
            # A spliced list, or the latest items joined into a message's text.
            cut = segment.window if isinstance(segment, Hole) and segment.is_history else None
            if cut is not None and cut.location not in seen:
                seen.add(cut.location)
                message = (f"`{cut.description}` sends only the latest items of the conversation as the history "
                           f"of the `{layout.call.api}` request: once the conversation is longer, the first item "
                           "kept changes on every request, so the history misses the prefix cache on every call")
                # The loss is the window itself, of unknown length: no known text to count after it.
                yield replace(self.finding(layout, layout_index, index, replace(segment, location=cut.location),
                                           Severity.WARNING, message), bust_index=None)

    def check_module(self, path: str, tree: ast.Module,
                     windows: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] | None = None,
                     skip_helpers: bool = False) -> Iterator[Finding]:
        """``windows``: framework settings that replay only the last turns (rules/prompt_sinks.yaml
        ``history_windows``: qualified name -> (window keywords, keywords that turn history on)).
        ``skip_helpers``: leave helper cuts (``helper_cuts``) to be reported at their callers."""
        _WALKS.clear()  # a new pass: see _WALKS
        for node, name in framework_windows(tree, windows or {}):
            location = _location(path, node)
            message = (f"`{name.rsplit('.', 1)[-1]}` replays only the latest turns of the conversation: once it "
                       "is longer, the window slides on every request, so the replayed history misses the "
                       "prefix cache on every call")
            yield Finding(self.code, self.name, Severity.WARNING, location, message,
                          CallSite(location, "conversation history", "any"), hint=self.fix_hint)
        seen: set[tuple[int, str, str]] = set()
        helpers = {id(h.node) for h in _helper_cut_nodes(tree)} if skip_helpers else set()
        for scope, cut in history_cuts(tree):
            if (id(scope), cut.history) in seen or id(cut.node) in helpers:
                continue  # `pop(1)` twice under one guard: one root cause
            seen.add((id(scope), cut.history))
            yield self.cut_finding(_location(path, cut.node), f"`{cut.history}` {cut.how}", cut.effect)

    def cut_finding(self, location: Location, what: str, effect: str = FULL_WINDOW) -> Finding:
        message = f"{what}: {effect}"
        # An older item rewritten is not a window: cutting in blocks would not help, leaving it would.
        hint = REWRITE_HINT if effect is REWRITTEN else self.fix_hint
        return Finding(self.code, self.name, Severity.WARNING, location, message,
                       CallSite(location, "conversation history", "any"), hint=hint)

    def helper_cuts(self, path: str, tree: ast.Module) -> list[HelperCut]:
        _WALKS.clear()  # a new pass: see _WALKS
        return [HelperCut(cut.function, _location(path, cut.node), cut.history, cut.how, cut.alone)
                for cut in _helper_cut_nodes(tree)]

    def caller_findings(self, path: str, tree: ast.Module, helpers: dict[str, HelperCut]
                        ) -> Iterator[tuple[Finding, HelperCut]]:
        """Calls of a helper cut made under a limit test, or with a count lowered until the
        result fits one: the window is the caller's."""
        _WALKS.clear()  # a new pass: see _WALKS
        for call, helper in calls_under_limit(tree, helpers):
            where = helper.location
            receiver = ast.unparse(call.func.value)  # type: ignore[attr-defined]
            yield self.cut_finding(_location(path, call), (
                f"`{ast.unparse(call)}` cuts `{helper.history if receiver == 'self' else receiver}` each time it "
                f"is over its limit (`{helper.method}` at {where.path}:{where.line}: `{helper.history}` "
                f"{helper.how})")), helper


def _location(path: str, node: ast.AST) -> Location:
    line = getattr(node, "lineno", 1)
    return Location(path, line, getattr(node, "col_offset", 0) + 1, getattr(node, "end_lineno", line) or line,
                    (getattr(node, "end_col_offset", 0) or 0) + 1)


def window_words(windows: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]) -> tuple[str, ...]:
    """Text a file must hold to set a framework's window (rules/prompt_sinks.yaml
    ``history_windows``): a window size keyword, or the callable's own name where it takes none."""
    return tuple(sorted({word for name, (sizes, _) in windows.items() for word in sizes or (name.rsplit(".", 1)[-1],)}))


def framework_windows(tree: ast.Module, windows: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]
                      ) -> Iterator[tuple[ast.expr, str]]:
    """Calls to a framework's windowed history (located at the window's size where one is given) (``Agent(num_history_runs=5,
    add_history_to_context=True)``, ``trim_messages(...)``), resolved through the module's imports."""
    if not windows:
        return
    aliases = _import_aliases(tree)
    seen: set[tuple[int, str, str]] = set()
    named = [(call, name) for call in _nodes(tree, ast.Call) if (name := _qualified(call.func, aliases)) in windows]
    for call, name in sorted(named, key=lambda found: (found[0].lineno, found[0].col_offset)):
        sizes, switches = windows[name]
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        if switches and not any(_is_true(keywords.get(k)) for k in switches):
            continue  # no history is sent at all
        if call.args and isinstance(call.args[0], (ast.List, ast.Tuple)):
            continue  # `trim_messages([HumanMessage(text)], ...)`: trims a message built here, not a history
        if isinstance(keywords.get("strategy"), ast.Constant) and keywords["strategy"].value == "first":
            continue  # keeps the oldest turns: the start stays put
        size = next((keywords[k] for k in sizes if k in keywords and not _is_off(keywords[k])), None)
        # One finding per history a function trims (its branches calling `trim(messages, ...)` with
        # other budgets are one window); constructors (agents) are each their own.
        trimmed = (id(_enclosing_function(tree, call)), name, ast.unparse(call.args[0])) if call.args \
            else (id(call), name, "")
        if sizes and size is None or trimmed in seen:
            continue
        seen.add(trimmed)
        yield size or call, name


def _enclosing_function(tree: ast.Module, node: ast.AST) -> ast.AST:
    """The innermost function whose lines hold ``node`` (the module for top-level code)."""
    line = getattr(node, "lineno", 0)
    holders = [f for f in _nodes(tree, (ast.FunctionDef, ast.AsyncFunctionDef))
               if f.lineno <= line <= (f.end_lineno or f.lineno)]
    return max(holders, key=lambda f: f.lineno, default=tree)


def _import_aliases(tree: ast.Module) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for node in _nodes(tree, (ast.Import, ast.ImportFrom)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def _qualified(func: ast.expr, aliases: dict[str, str]) -> str | None:
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or func.id not in aliases:
        return None
    return ".".join([aliases[func.id], *reversed(parts)])


def _is_true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _is_off(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value in (None, 0, False)


@dataclass(frozen=True)
class _HelperNode:
    function: str
    node: ast.AST
    history: str
    how: str
    alone: bool = True


def _helper_cut_nodes(tree: ast.Module) -> list[_HelperNode]:
    """Cuts of ``self.<history>`` in a method, under no limit test of the method's own, whose bounds
    are the method's parameters: the caller chooses when and how much to cut. Kept on the tree:
    the engine asks twice per module (the findings without them, then the cuts themselves)."""
    kept: list[_HelperNode] | None = tree.__dict__.get("_promptlint_helper_cuts")
    if kept is not None:
        return kept
    found: list[_HelperNode] = []
    history_classes = {id(f) for c in _nodes(tree, ast.ClassDef) if HISTORY_NAME.search(c.name) for f in c.body}
    for function in _nodes(tree, (ast.FunctionDef, ast.AsyncFunctionDef)):
        params = [a.arg for a in _parameters(function)]
        if not params or params[0] != "self":
            continue
        for node, guards in _walk_with_guards(function.body, ()):
            if any(_is_budget_check(g) for g in guards):
                continue
            for cut in _cuts_at(function, node, guarded=False):
                names = {n.id for n in _nodes(node, ast.Name)}
                if cut.history.startswith("self.") and names & set(params[1:]):
                    found.append(_HelperNode(function.name, cut.node, cut.history, cut.how))
            tail = _latest_asked(node, set(params[1:]), id(function) in history_classes)
            if tail is not None:
                found.append(_HelperNode(function.name, node, *tail, alone=False))
    tree._promptlint_helper_cuts = found  # type: ignore[attr-defined]
    return found


def _latest_asked(node: ast.stmt, params: set[str], history_class: bool) -> tuple[str, str] | None:
    """``runs = self.runs[-last_n:] if last_n else self.runs`` (or returned): the latest items of
    the object's history, as many as a parameter says. The list counts as the history by its name,
    or because the class is named like one (``ConversationMemory``)."""
    value = node.value if isinstance(node, (ast.Assign, ast.Return)) else None
    for branch in (value.body, value.orelse) if isinstance(value, ast.IfExp) else (value,):
        if not (isinstance(branch, ast.Subscript) and isinstance(branch.slice, ast.Slice)
                and isinstance(branch.value, ast.Attribute) and isinstance(branch.value.value, ast.Name)
                and branch.value.value.id == "self"):
            continue
        lower = branch.slice.lower
        if branch.slice.upper is None and isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub) \
                and isinstance(lower.operand, ast.Name) and lower.operand.id in params \
                and (history_class or _history(branch.value) is not None):
            return ast.unparse(branch.value), f"is cut to its last `{lower.operand.id}` items"
    return None


def _countdowns(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[frozenset[str], set[int]]:
    """Counts a loop lowers until what it measures fits a limit (``while n > 0 and
    count_tokens(h[-n:]) > limit: n -= 1``), and the ids of the nodes inside such loops (where the
    count is tried, not used)."""
    counts: set[str] = set()
    inside: set[int] = set()
    for loop in _nodes(function, (ast.While, ast.For, ast.AsyncFor)):
        lowered = {n.target.id for n in _nodes(loop, ast.AugAssign)
                   if isinstance(n.op, ast.Sub) and isinstance(n.target, ast.Name)}
        if lowered and any(_is_budget_check(test.test) for test in _nodes(loop, (ast.If, ast.While))):
            counts |= lowered
            inside |= {id(n) for n in _nodes(loop, ast.AST)}
    return frozenset(counts), inside


def _countdown_cuts(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[Cut]:
    """``h[-n:]`` (or ``h[len(h) - n:]``) after a loop that lowers ``n`` until it fits a limit:
    the latest messages that fit, so the start moves on every request once the history is full."""
    counts, inside = _countdowns(function)
    if not counts:
        return
    for node in _nodes(function, ast.Subscript):
        if id(node) in inside or not isinstance(node.slice, ast.Slice) or node.slice.upper is not None:
            continue
        lower = node.slice.lower
        size = lower.operand if isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub) else \
            lower.right if isinstance(lower, ast.BinOp) and isinstance(lower.op, ast.Sub) and _uses_len(lower.left) \
            else None
        history = _history(node.value)
        if isinstance(size, ast.Name) and size.id in counts and history is not None:
            yield Cut(node, history, f"is cut to the latest `{size.id}` messages that fit its limit")


def _masking_cuts(function: ast.FunctionDef | ast.AsyncFunctionDef,
                  older: frozenset[str] = frozenset()) -> Iterator[Cut]:
    """A list rebuilt with its items older than the latest few replaced (masked, truncated): either
    ``for i, event in enumerate(view): if i < len(view) - window: out.append(Placeholder())``, or
    ``for msg in reversed(memory)`` with a count of the items seen so far, ``if count > keep:``
    and the item replaced. As the list grows, each new item turns one that the previous request
    sent in full into its placeholder, a few items from the end: an earlier part of the history
    changes on every request (OpenHands' observation masking, MetaGPT's editor results). The older
    indexes may also come from a method of ``older`` (``omit = self._get_omit_indices(history)``,
    then ``if idx not in omit:`` keeps the item)."""
    loops = _nodes(function, (ast.For, ast.AsyncFor))
    omitted = {a.targets[0].id: a.value for a in _nodes(function, ast.Assign) if len(a.targets) == 1
               and isinstance(a.targets[0], ast.Name) and isinstance(a.value, ast.Call)
               and isinstance(a.value.func, ast.Attribute) and a.value.func.attr in older} if older and loops else {}
    for loop in loops:
        found = _masking_loop(loop, frozenset(omitted))
        if found is None:
            continue
        history, test, replaced, repeated = found
        listed = test.comparators[0] if isinstance(test, ast.Compare) else None
        if repeated:
            yield Cut(replaced, history, f"rewrites an older item whenever a newer one shows it again "
                                         f"(`{ast.unparse(test)}`)", REWRITTEN)
        elif isinstance(listed, ast.Name) and listed.id in omitted:
            yield Cut(replaced, history, f"keeps only its latest items whole (the older ones, at the indexes "
                                         f"`{ast.unparse(omitted[listed.id])}` lists, are replaced)")
        else:
            yield Cut(replaced, history, f"keeps only its latest items whole (`{ast.unparse(test)}` replaces "
                                         "the older ones)")


def _masking_loop(loop: ast.For | ast.AsyncFor, omitted: frozenset[str] = frozenset()
                  ) -> tuple[str, ast.expr, ast.AST, bool] | None:
    """(the list, the test of an item's distance from the end, the statement replacing the item,
    whether the test is a newer item repeating the older one's key rather than a distance)."""
    iterated = loop.iter
    if not (isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and len(iterated.args) == 1):
        return None
    listed = ast.unparse(iterated.args[0])
    if iterated.func.id == "enumerate" and isinstance(loop.target, ast.Tuple) and len(loop.target.elts) == 2 \
            and all(isinstance(e, ast.Name) for e in loop.target.elts):
        # Older items have a small index measured against the length (`i < len(view) - window`).
        index, item = (e.id for e in loop.target.elts)  # type: ignore[attr-defined]
        probes, older_when_small, measured = {index}, True, listed
    elif iterated.func.id == "reversed" and isinstance(loop.target, ast.Name):
        # Older items have a large count of those seen from the newest (`count > keep_latest`): a
        # count steps by one (`cnt += 1`), a budget by a size (`total += len(m.content)`).
        item = loop.target.id
        probes = {n.target.id for n in _nodes(loop, ast.AugAssign) if isinstance(n.target, ast.Name)
                  and isinstance(n.op, ast.Add) and isinstance(n.value, ast.Constant) and n.value.value == 1}
        older_when_small, measured = False, None
    else:
        return None
    for branch in _nodes(loop, ast.If):
        compares = [c for c in _nodes(branch.test, ast.Compare)
                    if any(_bounds(c, probe, older_when_small) for probe in probes)
                    and (measured is None or _measures_length_of(c, measured))]
        replaced = _replacing(branch, item) if compares else None
        if replaced is not None:
            return listed, compares[0], replaced, False
        for test in _nodes(branch.test, ast.Compare) if not older_when_small else ():
            # Newest first, an item whose key a newer item already showed (`if file in windows:`,
            # `windows.add(file)` in the loop) is rewritten: each new view rewrites an older one.
            if _membership(test, {n.id for n in _nodes(test.left, ast.Name)}, _grown_sets(loop)):
                replaced = _replacing(branch, item, _copies_of(loop, item))
                if replaced is not None:
                    return listed, test, replaced, True
        for test in _nodes(branch.test, ast.Compare) if omitted and older_when_small else ():
            membership = _membership(test, probes, omitted)
            if membership is None:
                continue
            # `idx in omit`: the body replaces the item; `idx not in omit`: the `else` does.
            replacing = branch if membership else ast.If(test=branch.test, body=branch.orelse, orelse=branch.body)
            replaced = _replacing(replacing, item)
            if replaced is not None:
                return listed, test, replaced, False
    return None


def _grown_sets(loop: ast.For | ast.AsyncFor) -> frozenset[str]:
    """Names the loop body adds to (`seen.add(key)`)."""
    return frozenset(c.func.value.id for c in _nodes(loop, ast.Call) if isinstance(c.func, ast.Attribute)
                     and c.func.attr == "add" and isinstance(c.func.value, ast.Name))


def _copies_of(loop: ast.For | ast.AsyncFor, item: str) -> frozenset[str]:
    """Names the loop binds to a copy of its item (`data = entry.copy()`, `dict(entry)`)."""
    found = set()
    for assign in _nodes(loop, ast.Assign):
        value = assign.value
        copied = isinstance(value, ast.Call) and (
            isinstance(value.func, ast.Attribute) and value.func.attr == "copy" and not value.args
            and isinstance(value.func.value, ast.Name) and value.func.value.id == item
            or isinstance(value.func, ast.Name) and value.func.id == "dict" and len(value.args) == 1
            and isinstance(value.args[0], ast.Name) and value.args[0].id == item)
        if copied and len(assign.targets) == 1 and isinstance(assign.targets[0], ast.Name):
            found.add(assign.targets[0].id)
    return frozenset(found)


def _membership(test: ast.Compare, probes: set[str], sets: frozenset[str]) -> bool | None:
    """``i in omit`` (True) or ``i not in omit`` (False) for an index of ``probes`` and a set of
    ``sets``; None for any other test."""
    if len(test.ops) != 1 or not isinstance(test.ops[0], (ast.In, ast.NotIn)) \
            or not (isinstance(test.left, ast.Name) and test.left.id in probes) \
            or not (isinstance(test.comparators[0], ast.Name) and test.comparators[0].id in sets):
        return None
    return isinstance(test.ops[0], ast.In)


def _measures_length_of(test: ast.Compare, listed: str) -> bool:
    return any(isinstance(c.func, ast.Name) and c.func.id == "len" and c.args and ast.unparse(c.args[0]) == listed
               for c in _nodes(test, ast.Call))


def _bounds(test: ast.Compare, name: str, small: bool) -> bool:
    """Whether ``test`` is an ordering that holds for small values of ``name`` (``small``) or for
    large ones: ``i < n``, ``n > i`` and ``len(h) - i > n`` hold for small ``i``; ``count > keep``
    for a large count."""
    if len(test.ops) != 1 or not isinstance(test.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
        return False
    sides = (test.left, test.comparators[0])
    holder = [index for index, side in enumerate(sides) if _names_in(side, name)]
    if len(holder) != 1:
        return False
    side = sides[holder[0]]
    below = isinstance(test.ops[0], (ast.Lt, ast.LtE)) == (holder[0] == 0)
    if any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and _names_in(n.right, name)
           for n in _nodes(side, ast.BinOp)):
        below = not below  # `len(h) - i > n`: the larger `i`, the smaller the left side
    return below == small


def _names_in(node: ast.AST, name: str) -> bool:
    return any(n.id == name for n in _nodes(node, ast.Name))


def _replacing(branch: ast.If, item: str, copies: frozenset[str] = frozenset()) -> ast.stmt | None:
    """The statement of the branch that puts something else in the item's place: another value
    appended to the list the `else` appends the item to, the item's name bound to a new message,
    or the content of the item (or of a copy of it, ``copies``) written over (`msg["content"] = ...`,
    `msg.content = ...`)."""
    kept = {ast.unparse(c.func.value) for statement in branch.orelse for c in _nodes(statement, ast.Call)
            if isinstance(c.func, ast.Attribute) and c.func.attr == "append" and len(c.args) == 1
            and isinstance(c.args[0], ast.Name) and c.args[0].id == item}
    for stmt in (s for statement in branch.body for s in _nodes(statement, ast.stmt)):
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
                and len(call.args) == 1 and ast.unparse(call.func.value) in kept \
                and not (isinstance(call.args[0], ast.Name) and call.args[0].id == item):
            return stmt
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name) and target.id == item and isinstance(stmt.value, (ast.Call, ast.Dict)):
                return stmt  # `msg = UserMessage(content=shortened)`, appended after the `if`
            if any(_writes_content_of(target, name) for name in (item, *copies)):
                return stmt
    return None


def _writes_content_of(target: ast.expr, item: str) -> bool:
    """``item.content`` / ``item["content"]`` (or its text or parts)."""
    key = target.attr if isinstance(target, ast.Attribute) else \
        target.slice.value if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) else None
    base = target.value if isinstance(target, (ast.Attribute, ast.Subscript)) else None
    return key in ("content", "text", "parts") and isinstance(base, ast.Name) and base.id == item


def calls_under_limit(tree: ast.Module, helpers: dict[str, HelperCut]) -> Iterator[tuple[ast.Call, HelperCut]]:
    """``convo.trim(3, 2)`` under ``if len(convo.messages) > 11``: a helper cut called on a
    history-named object, under a limit test; and the calls of ``_counted_down_calls``. Each call
    once (a nested function's calls are also its enclosing function's)."""
    seen: set[int] = set()
    for function in _nodes(tree, (ast.FunctionDef, ast.AsyncFunctionDef)):
        found: list[tuple[ast.Call, HelperCut]] = []
        for node, guards in _walk_with_guards(function.body, ()):
            if not any(_is_budget_check(g) for g in guards) or not isinstance(node, (ast.Expr, ast.Assign)):
                continue
            call = node.value
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
                    and call.func.attr in helpers and _history(call.func.value) is not None:
                found.append((call, helpers[call.func.attr]))
        for call, helper in [*found, *_counted_down_calls(function, helpers)]:
            if id(call) not in seen:
                seen.add(id(call))
                yield call, helper


def _counted_down_calls(function: ast.FunctionDef | ast.AsyncFunctionDef, helpers: dict[str, HelperCut]
                        ) -> Iterator[tuple[ast.Call, HelperCut]]:
    """``self.to_prompt_stack(n)`` after a loop that lowers ``n`` until the result fits a limit
    (griptape's autoprune): the latest ``n`` turns that fit, a window that slides once full."""
    calls = [(call, helpers[call.func.attr]) for call in _nodes(function, ast.Call)
             if isinstance(call.func, ast.Attribute) and call.func.attr in helpers]
    counts, inside = _countdowns(function) if calls else (frozenset(), set())  # most functions call no helper
    for call, helper in calls:
        if id(call) in inside:
            continue
        receiver = call.func.value  # type: ignore[attr-defined]
        own = isinstance(receiver, ast.Name) and receiver.id == "self" and helper.history.startswith("self.")
        arguments = [*call.args, *(k.value for k in call.keywords)]
        if (own or _history(receiver) is not None) \
                and any(isinstance(a, ast.Name) and a.id in counts for a in arguments):
            yield call, helper


def history_cuts(tree: ast.Module) -> Iterator[tuple[ast.AST, Cut]]:
    """Statements that cut a history-named list from the front or the middle, each with its scope
    (the outermost limit test around it, else the innermost guard, else its function)."""
    older = _older_index_methods(tree)
    for function in _nodes(tree, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield from _cuts_in(function, older)


def _older_index_methods(tree: ast.Module) -> frozenset[str]:
    """Methods that return the indexes of a list's older items, all but the latest few: a slice
    that ends at a bound computed from a length less a count (SWE-agent's `_get_omit_indices`:
    `last = len(indices) - self.n; return indices[1:last]`)."""
    found = set()
    for function in _nodes(tree, (ast.FunctionDef, ast.AsyncFunctionDef)):
        returns = [r.value for r in _nodes(function, ast.Return) if isinstance(r.value, ast.Subscript)
                   and isinstance(r.value.slice, ast.Slice) and r.value.slice.upper is not None]
        if not returns:
            continue
        bounds = {a.targets[0].id: a.value for a in _nodes(function, ast.Assign)
                  if len(a.targets) == 1 and isinstance(a.targets[0], ast.Name)}
        for value in returns:
            upper = value.slice.upper  # type: ignore[union-attr]
            upper = bounds.get(upper.id, upper) if isinstance(upper, ast.Name) else upper
            if _length_less_count(upper):
                found.add(function.name)
    return frozenset(found)


def _length_less_count(expr: ast.expr) -> bool:
    """An expression of a length less something (`len(xs) - n`, `(len(xs) // p) * p - n`)."""
    return any(isinstance(n.op, ast.Sub) and any(isinstance(c.func, ast.Name) and c.func.id == "len"
                                                 for c in _nodes(n.left, ast.Call))
               for n in _nodes(expr, ast.BinOp))


def _cuts_in(function: ast.FunctionDef | ast.AsyncFunctionDef,
             older: frozenset[str] = frozenset()) -> Iterator[tuple[ast.AST, Cut]]:
    cuts = list(_candidate_cuts(function, older))
    if cuts and not _compacts(function):  # asked only of a function that cuts: it walks it whole
        yield from cuts


def _candidate_cuts(function: ast.FunctionDef | ast.AsyncFunctionDef,
                    older: frozenset[str] = frozenset()) -> Iterator[tuple[ast.AST, Cut]]:
    # What the function's other statements say, read at the first statement that needs it: most
    # functions cut nothing and test no limit, and reading it walks the whole function.
    not_messages: set[str] | None = None
    texts: dict[str, str] | None = None
    length_names: frozenset[str] = frozenset()
    for node, guards in _walk_with_guards(function.body, ()):
        # One window per limit: cuts of one history under the same budget test are one root cause,
        # also when one of them sits in a branch of its own (`if dropped is a tool call: pop its result`).
        scope = next((g for g in guards if _is_budget_check(g)), guards[-1] if guards else function)
        guarded = any(_is_budget_check(g) for g in guards)
        for cut in _cuts_at(function, node, guarded):
            not_messages = _lists_of_non_messages(function) if not_messages is None else not_messages
            if cut.history not in not_messages:
                yield scope, cut
        if guarded and texts is None and isinstance(node, ast.Assign):
            texts = _history_texts(function)
            length_names = _length_names(function) if texts else frozenset()
        if guarded and texts and isinstance(node, ast.Assign):
            cut = _text_cut(node, texts, length_names)
            if cut is not None:
                yield scope, cut
    for cut in (*_countdown_cuts(function), *_masking_cuts(function, older), *_excess_drop_cuts(function),
                *_newest_fit_cuts(function), *_shortening_loop_cuts(function)):
        not_messages = _lists_of_non_messages(function) if not_messages is None else not_messages
        if cut.history not in not_messages:
            yield function, cut


def _compacts(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The function asks a model for a summary and cuts the history (browser-use's
    `maybe_compact_messages`: `summary = await llm.ainvoke(...)`, then the first item and the last
    few kept): a compaction. The dropped turns live on in a summary kept until the next one, and
    the history grows again from a fixed prefix in between: the block cut PC009 recommends."""
    words = [function.name, *(node.id for node in _nodes(function, ast.Name)),
             *(node.attr for node in _nodes(function, ast.Attribute)),
             *(node.value for node in _nodes(function, ast.Constant) if isinstance(node.value, str))]
    if not any(_SUMMARY_WORD.search(word) for word in words):
        return False
    return any(isinstance(call.func, ast.Attribute) and call.func.attr in MODEL_METHODS
               and _MODEL_RECEIVER.search(ast.unparse(call.func.value)) is not None
               for call in _nodes(function, ast.Call))


def _history_texts(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """Local names holding the conversation rendered by a history-named call, with that call
    (``text = self.return_history_as_string()``): cutting the text from the front is the same
    window as cutting the list (swarms' dynamic context window)."""
    found: dict[str, str] = {}
    for node in _nodes(function, ast.Assign):
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call):
            callee = node.value.func
            name = callee.attr if isinstance(callee, ast.Attribute) else callee.id if isinstance(callee, ast.Name) else ""
            if HISTORY_NAME.search(name) and "summar" not in name.lower():
                found[node.targets[0].id] = ast.unparse(node.value)
    return found


def _length_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """Names computed from a length, directly or through other such names (``right = len(text)``,
    ``mid = (left + right) // 2``): a cut at one of them moves with the text's length."""
    pairs: list[tuple[str, ast.expr]] = []
    for node in _nodes(function, (ast.Assign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                    and len(target.elts) == len(node.value.elts):
                pairs += [(t.id, v) for t, v in zip(target.elts, node.value.elts) if isinstance(t, ast.Name)]
            elif isinstance(target, ast.Name):
                pairs.append((target.id, node.value))
    names: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, value in pairs:
            if name not in names and (_uses_len(value) or any(
                    n.id in names for n in _nodes(value, ast.Name))):
                names.add(name)
                changed = True
    return frozenset(names)


def _text_cut(node: ast.Assign, texts: dict[str, str], length_names: frozenset[str]) -> Cut | None:
    """``tail = text[mid:]`` over the history text, with a start that moves with its length (or a
    fixed number of characters from its end), under a limit test."""
    value = node.value
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id in texts
            and isinstance(value.slice, ast.Slice) and value.slice.upper is None and value.slice.step is None):
        return None
    lower = value.slice.lower
    moving = lower is not None and (
        isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub) or _uses_len(lower)
        or any(n.id in length_names for n in _nodes(lower, ast.Name)))
    if not moving:
        return None
    name = value.value.id
    return Cut(node, name, f"(the conversation as text, from `{texts[name]}`) is cut from the front to fit its "
                           "limit")


def _lists_of_non_messages(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Lists the function appends something to that is not a chat message: a record without a
    role or content (``{"type": ..., "count": 1}``), a hash, an id, a signal, a tuple holding one. A
    capped log of those is not a prompt's history (bench/wild: tool-call hashes, browser alerts,
    blocker signals, chatgpt-on-wechat's tool results)."""
    found: set[str] = set()
    for node in _nodes(function, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
                and len(node.args) == 1 and _not_a_message(node.args[0]):
            found.add(ast.unparse(node.func.value))
    return found


def _not_a_message(value: ast.expr) -> bool:
    if isinstance(value, ast.Tuple):  # a record: `(tool_name, args_hash, success)`
        return any(_not_a_message(item) for item in value.elts)
    if isinstance(value, ast.Dict):
        keys = {k.value for k in value.keys if isinstance(k, ast.Constant)}
        return bool(keys) and not keys & MESSAGE_KEYS and None not in value.keys
    name = value.attr if isinstance(value, ast.Attribute) else value.id if isinstance(value, ast.Name) else None
    return name is not None and NOT_A_MESSAGE.search(name) is not None


def _cuts_at(function: ast.FunctionDef | ast.AsyncFunctionDef, node: ast.stmt, guarded: bool) -> Iterator[Cut]:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and not _popped_value(node):
        target = node.targets[0]
        for cut in _slice_cut(node, target, node.value, guarded, _returns_window(function)):
            # Asked only of a cut found: it walks the whole function.
            if not (isinstance(target, ast.Name) and _only_rendered(function, node, target.id)):
                yield cut
    elif isinstance(node, ast.Return) and node.value is not None \
            and (history := _returned_kept_head(function, node.value)) is not None:
        yield Cut(node, history, "keeps its first messages and only the latest ones after it")
    elif isinstance(node, ast.Return) and node.value is not None and _returns_window(function):
        history = _front_slice(node.value, stored=False)
        if history is not None and history.startswith("self.") and _configured_size(node.value):
            yield Cut(node, history, f"is handed out as its last `{_slice_size(node.value)}` messages")
    elif isinstance(node, (ast.For, ast.AsyncFor)) and (history := _removes_all_but_latest(node)) is not None:
        yield Cut(node, history, "loses its older items, all but the latest few, each time there are more")
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
            and (history := _extends_a_kept_head(function, node.value)) is not None:
        yield Cut(node, history, "keeps its first message and only the latest ones after it")
    elif isinstance(node, (ast.Expr, ast.Assign)) and isinstance(node.value, ast.Call):
        history = _popped(node.value)  # `history.pop(1)`, or `dropped = history.pop(1)`
        if history is not None and guarded and not _takes_back_own_insertion(function, node.value):
            yield Cut(node, history, "loses an earlier message each time it is over its limit")
    elif isinstance(node, ast.Delete) and guarded:
        for target in node.targets:
            history = _deleted_from(target)
            if history is not None:
                yield Cut(node, history, "loses an earlier part each time it is over its limit")


def _popped_value(node: ast.Assign) -> bool:
    return isinstance(node.value, ast.Call) and _popped(node.value) is not None


def _only_rendered(function: ast.FunctionDef | ast.AsyncFunctionDef, cut: ast.Assign, name: str) -> bool:
    """A local list that, after the cut, is only counted (``len(messages)``) and looped over to
    write text (gptme's subagent log report: ``output += f"{msg.role}: ..."``): a one-off rendering
    of a copy, not the history a request sends. A loop that appends, yields or returns hands the
    messages on, and any other use (a call, a return, a store) keeps the cut."""
    after = cut.end_lineno or cut.lineno
    uses = [n for n in _nodes(function, ast.Name)
            if n.id == name and isinstance(n.ctx, ast.Load) and n.lineno > after]
    if not uses:
        return False
    counted = {id(call.args[0]) for call in _nodes(function, ast.Call)
               if isinstance(call.func, ast.Name) and call.func.id == "len" and len(call.args) == 1}
    looped = {id(loop.iter) for loop in _nodes(function, (ast.For, ast.AsyncFor))
              if not _hands_on(loop)}
    return all(id(use) in counted or id(use) in looped for use in uses)


def _hands_on(loop: ast.For | ast.AsyncFor) -> bool:
    """The loop passes its items on: appends or inserts them somewhere, yields or returns."""
    for node in _nodes(loop, (ast.Call, ast.Yield, ast.YieldFrom, ast.Return)):
        if not isinstance(node, ast.Call):
            return True
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "extend", "insert", "add", "put"):
            return True
    return False


def _slice_cut(node: ast.Assign, target: ast.expr, value: ast.expr, guarded: bool,
               hands_out: bool) -> Iterator[Cut]:
    if isinstance(value, ast.IfExp):  # `[] if size == 0 else messages[-size:]`: either branch
        for branch in (value.body, value.orelse):
            found = list(_slice_cut(node, target, branch, guarded, hands_out))
            if found:
                yield found[0]
                return
        return
    kept_head = _kept_head(value)
    if kept_head is not None:
        yield Cut(node, kept_head, "keeps its first message and only the latest ones after it")
        return
    middle = _middle_cut(value)
    if middle is not None and isinstance(target, ast.Attribute) and ast.unparse(target) == middle:
        yield Cut(node, middle, "has messages cut out of its middle and is stored back")
        return
    stored = isinstance(target, ast.Attribute) and isinstance(value, ast.Subscript) and \
        ast.unparse(target) == ast.unparse(value.value)  # `self.h = self.h[...]`: the history itself
    history = _front_slice(value, stored)
    if history is None:
        return
    if stored or guarded or (hands_out and history.startswith("self.") and _configured_size(value)):
        size = _slice_size(value)
        yield Cut(node, history, f"is cut to its last `{size}` {_unit_of(size)}")


def _walk_with_guards(body: list[ast.stmt], guards: tuple[ast.expr, ...]) -> Iterator[tuple[ast.stmt, tuple]]:
    """Statements of a function (not of nested definitions) with the tests of the ifs and whiles
    around them."""
    for stmt in body:
        yield stmt, guards
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if _returns_under_limit(stmt):
            # `if tokens <= limit: return text`: what follows runs only over the limit.
            guards = (*guards, stmt.test)  # type: ignore[attr-defined]
        inner = (*guards, stmt.test) if isinstance(stmt, (ast.If, ast.While)) else guards
        yield from _walk_with_guards(getattr(stmt, "body", []) or [], inner)
        # The else branch runs when the test is false: under the limit, not over it.
        for field in ("orelse", "finalbody"):
            yield from _walk_with_guards(getattr(stmt, field, []) or [], guards)
        for handler in getattr(stmt, "handlers", []) or []:
            yield from _walk_with_guards(handler.body, inner)


def _returns_under_limit(stmt: ast.stmt) -> bool:
    """``if len(x) <= limit: return x``: leaves early when the size is within its limit (not
    ``if len(x) > limit: raise``, after which the code runs under it)."""
    return isinstance(stmt, ast.If) and not stmt.orelse and bool(stmt.body) \
        and isinstance(stmt.body[-1], (ast.Return, ast.Raise)) and _is_within_limit(stmt.test)


def _is_within_limit(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and _is_budget_check(test)):
        return False
    left, right = test.left, test.comparators[0]
    if isinstance(test.ops[0], (ast.Lt, ast.LtE)):
        return _is_measure(left)
    return isinstance(test.ops[0], (ast.Gt, ast.GtE)) and _is_measure(right)


def _is_measure(node: ast.expr) -> bool:
    """A measured size (``len(x)``, ``count_tokens(x)``, ``total_tokens``), not a limit (``max_len``)."""
    if isinstance(node, ast.Call):
        return True
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return MEASURE_NAME.search(name) is not None and LIMIT_NAME.search(name) is None


def _is_budget_check(test: ast.expr) -> bool:
    """``len(x) > n``, ``tokens > limit``, ``removed_count < to_remove``: a size held to a limit. A
    bounds check on an index (``index < len(x)``) is not one. Kept on the test: every statement
    under it asks again."""
    known: bool | None = test.__dict__.get("_promptlint_budget_check")
    if known is None:
        known = test._promptlint_budget_check = _tests_a_budget(test)  # type: ignore[attr-defined]
    return known


def _tests_a_budget(test: ast.expr) -> bool:
    for node in _nodes(test, ast.Compare):
        if all(isinstance(op, (ast.Gt, ast.GtE, ast.Lt, ast.LtE)) for op in node.ops):
            operands = (node.left, *node.comparators)
            if not any(_is_index(o) for o in operands) and any(_is_size(o) for o in operands):
                return True
    return False


def _is_size(node: ast.expr) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
        return True
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
    return name is not None and SIZE_NAME.search(name) is not None


def _is_index(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and (node.id in INDEX_NAMES or len(node.id) == 1)


def _history(node: ast.expr) -> str | None:
    """The source text of a history-named list expression, else None."""
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
    return ast.unparse(node) if name is not None and HISTORY_NAME.search(name) else None


def _front_slice(value: ast.expr, stored: bool) -> str | None:
    """``h[-n:]`` or ``h[k:]`` with a computed ``k``: the history text, else None. ``h[1:]``
    (skipping the system message) and other constant starts are not a window; ``h[-20:]`` is one
    only when ``stored`` back into the history itself."""
    if not (isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice)):
        return None
    window = value.slice
    if window.upper is not None or window.step is not None or window.lower is None:
        return None
    lower = window.lower
    if isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub):
        if isinstance(lower.operand, ast.Constant) and not stored:
            return None  # h[-3:]: a fixed tail, taken for a one-off prompt rather than kept as the history
        return _history(value.value)
    # h[len(h) - n:] slides as the list grows; h[skip:] drops a fixed head and the start stays put.
    return _history(value.value) if _uses_len(lower) else None


def _uses_len(node: ast.expr) -> bool:
    return any(isinstance(n.func, ast.Name) and n.func.id == "len" for n in _nodes(node, ast.Call))


def _slice_size(value: ast.expr) -> str:
    assert isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice)
    lower = value.slice.lower
    if isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub):
        return ast.unparse(lower.operand)
    return f"len - ({ast.unparse(lower)})" if lower is not None else "?"


def _unit_of(size: str) -> str:
    """What a window's size counts, by its name: a conversation rendered as text is cut by
    characters (`conversation[-MAX_CHARS:]`), a message list by messages."""
    lowered = size.lower()
    return "characters" if "char" in lowered else "tokens" if "token" in lowered else "messages"


def _configured_size(value: ast.expr) -> bool:
    """The window's size is the object's own setting (``self._buffer_size``), not a caller's ``n``."""
    assert isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice)
    return any(isinstance(node.value, ast.Name) and node.value.id == "self" for node in _nodes(value.slice, ast.Attribute))


def _kept_head(value: ast.expr) -> str | None:
    """``h[:1] + h[k:]``, ``[h[0]] + h[k:]`` or ``[h[0], *h[k:]]`` with a computed or negative
    ``k``: the first message kept, the oldest others dropped."""
    if isinstance(value, ast.List) and len(value.elts) == 2 and isinstance(value.elts[1], ast.Starred):
        head, tail = value.elts[0], value.elts[1].value
    elif isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        head, tail = value.left, value.right
        if isinstance(head, ast.List) and len(head.elts) == 1:
            head = head.elts[0]
    else:
        return None
    history = _first_items_of(head)
    if history is None or not isinstance(tail, ast.Subscript) or not isinstance(tail.slice, ast.Slice):
        return None
    lower = tail.slice.lower
    if lower is None or isinstance(lower, ast.Constant) or ast.unparse(tail.value) != history:
        return None
    return history


def _removes_all_but_latest(loop: ast.For | ast.AsyncFor) -> str | None:
    """`for image in images[:-2]: messages.remove(image)`: every item but the latest few taken out
    of the history (open-interpreter keeps the last two screenshots). The history, else None."""
    window = loop.iter.slice if isinstance(loop.iter, ast.Subscript) else None
    if not isinstance(window, ast.Slice) or window.upper is None or window.step is not None \
            or not isinstance(loop.target, ast.Name):
        return None
    upper = window.upper
    if not (isinstance(upper, ast.UnaryOp) and isinstance(upper.op, ast.USub) or _uses_len(upper)):
        return None  # `items[:3]`: a fixed head, not all but the latest
    for call in _nodes(loop, ast.Call):
        if isinstance(call.func, ast.Attribute) and call.func.attr == "remove" and len(call.args) == 1 \
                and isinstance(call.args[0], ast.Name) and call.args[0].id == loop.target.id:
            history = _history(call.func.value)
            if history is not None:
                return history
    return None


def _extends_a_kept_head(function: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call) -> str | None:
    """`kept = [h[0].to_string(), note]` then `kept.extend(... for item in h[-n:])` (browser-use's
    history description once over `max_history_items`): ``_kept_head`` written in two statements.
    The history, else None."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "extend" and len(call.args) == 1
            and isinstance(call.func.value, ast.Name)):
        return None
    argument = call.args[0]
    tails = [argument] if isinstance(argument, ast.Subscript) else \
        [generator.iter for generator in getattr(argument, "generators", [])]
    tail = next((t for t in tails if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Slice)
                 and t.slice.lower is not None and not isinstance(t.slice.lower, ast.Constant)
                 and t.slice.upper is None), None)
    if tail is None:
        return None
    history, kept = ast.unparse(tail.value), call.func.value.id
    for stmt in _nodes(function, ast.Assign):
        if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == kept \
                and isinstance(stmt.value, ast.List) and stmt.value.elts \
                and any(_first_items_of(sub) == history for sub in _nodes(stmt.value.elts[0], ast.Subscript)):
            return _history(tail.value)
    return None


def _returned_kept_head(function: ast.FunctionDef | ast.AsyncFunctionDef, value: ast.expr) -> str | None:
    """A kept head and a moving tail returned (a condenser's ``head = messages[:self.keep_first]``,
    ``tail = messages[-tail_length:]``, ``return head + tail``; DB-GPT's first and last rounds),
    the locals read as what they were assigned once."""
    assigned: dict[str, list[ast.expr]] = {}
    for node in _nodes(function, ast.Assign):
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned.setdefault(node.targets[0].id, []).append(node.value)

    def inlined(node: ast.expr) -> ast.expr:
        values = assigned.get(node.id, []) if isinstance(node, ast.Name) else []
        return values[0] if len(values) == 1 else node

    for joined in _nodes(value, ast.BinOp):
        if isinstance(joined.op, ast.Add):
            history = _kept_head(ast.BinOp(left=inlined(joined.left), op=joined.op, right=inlined(joined.right)))
            if history is not None:
                return history
    return None


def _first_items_of(head: ast.expr) -> str | None:
    """The history whose first items ``head`` is: ``h[:1]`` (a constant end, or a count the object
    is configured with: ``h[:self.keep_first]``) or ``h[0]``."""
    if isinstance(head, ast.Subscript) and isinstance(head.slice, ast.Slice):
        end = head.slice.upper
        fixed_end = head.slice.lower is None and (
            isinstance(end, ast.Constant) or isinstance(end, ast.Attribute) and isinstance(end.value, ast.Name)
            and end.value.id == "self")
        return _history(head.value) if fixed_end else None
    if isinstance(head, ast.Subscript) and isinstance(head.slice, ast.Constant) and head.slice.value == 0:
        return _history(head.value)
    return None


def _middle_cut(value: ast.expr) -> str | None:
    """``h[:k] + h[k + n:]`` with a computed ``k``: messages dropped from the middle of the list."""
    if not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add)):
        return None
    head, tail = value.left, value.right
    if not (isinstance(head, ast.Subscript) and isinstance(head.slice, ast.Slice) and head.slice.lower is None
            and head.slice.upper is not None and not isinstance(head.slice.upper, ast.Constant)):
        return None
    if not (isinstance(tail, ast.Subscript) and isinstance(tail.slice, ast.Slice) and tail.slice.upper is None
            and tail.slice.lower is not None):
        return None
    history = _history(head.value)
    cut_from = ast.unparse(head.slice.upper)
    if history is None or ast.unparse(tail.value) != history or cut_from not in ast.unparse(tail.slice.lower):
        return None
    return history


def _popped(call: ast.Call) -> str | None:
    """``h.pop(i)`` with an index that is not the end: the history text, else None."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "pop" and len(call.args) == 1):
        return None
    index = call.args[0]
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        return None  # pop(-1): the newest message, as an undo
    return _history(call.func.value)


def _takes_back_own_insertion(function: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call) -> bool:
    """``h.pop(at)`` where the function took ``at = len(h)`` before adding a message: it removes a
    prompt it inserted itself (chatgpt-on-wechat's injected "answer now" turn), not an old turn."""
    index, listed = call.args[0], ast.unparse(call.func.value)  # type: ignore[attr-defined]
    return isinstance(index, ast.Name) and any(
        len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and node.targets[0].id == index.id
        and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "len" and len(node.value.args) == 1 and ast.unparse(node.value.args[0]) == listed
        for node in _nodes(function, ast.Assign))


def _deleted_from(target: ast.expr) -> str | None:
    """``del h[i]``, ``del h[a:b]``, ``del h[i]["content"][j]`` (a part of an earlier message)."""
    node = target
    while isinstance(node, ast.Subscript):
        inner = node.value
        if not isinstance(inner, ast.Subscript):
            index = node.slice
            if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
                return None
            return _history(inner)
        node = inner
    return None


def _returns_window(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A method that hands the history out (``get_messages``, ``get_history``)."""
    return function.name.startswith(("get_", "_get_", "load_")) and HISTORY_NAME.search(function.name) is not None


def _excess_drop_cuts(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[Cut]:
    """The oldest items dropped (or shortened) until an excess is used up, the rest kept:
    ``excess = total_tokens - limit`` before a loop over the conversation, oldest first, whose body
    keeps the item once ``excess <= 0`` and otherwise drops or shortens it, lowering ``excess``
    (``excess -= size``, or ``item, excess = shorten(item, excess)``). Qwen-Agent's
    ``_truncate_input_messages_roughly``. Once the conversation is over its limit, the excess grows
    with every turn, so the first items kept change on every request."""
    params = [a.arg for a in _parameters(function)]
    excesses: dict[str, ast.Assign] = {}
    for node in _nodes(function, ast.Assign):
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.BinOp) \
                and isinstance(node.value.op, ast.Sub) and _is_measure(node.value.left) \
                and not _names_limit(node.value.left):
            excesses[node.targets[0].id] = node
    if not excesses:
        return
    for loop in _nodes(function, (ast.For, ast.AsyncFor)):
        if _newest_first(loop.iter):
            continue  # the excess would drop the newest items
        items = {n.id for n in _nodes(loop.target, ast.Name)}
        lowered = _lowered_in(loop)
        for branch in _nodes(loop, ast.If):
            found = _exhausted_test(branch.test, excesses.keys() & lowered)
            if found is None:
                continue
            name, keep_in_body = found
            if excesses[name].lineno > loop.lineno:
                continue
            kept, other = (branch.body, branch.orelse) if keep_in_body else (branch.orelse, branch.body)
            if keep_in_body and branch.body and isinstance(branch.body[-1], ast.Continue):
                # `if excess <= 0: keep; continue`, then the rest of the body drops or shortens.
                following = loop.body[loop.body.index(branch) + 1:] if branch in loop.body else []
                other = [*branch.orelse, *following]
            target = _keeps_item(kept, items)
            if target is None or _keeps_item(other, items) == target:
                continue
            listed = ast.unparse(loop.iter)
            if not (HISTORY_NAME.search(target) or HISTORY_NAME.search(listed)
                    or any(HISTORY_NAME.search(p) for p in params)):
                continue
            yield Cut(branch, target, f"is the history without its oldest items, dropped or shortened until "
                                      f"the excess `{name}` is used up")
            break


def _shortening_loop_cuts(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[Cut]:
    """The oldest messages shortened in place, one at a time, while the conversation is over its
    limit: ``while count_tokens(hist) > limit: hist[i] = truncated(hist[i]); i += 1`` (langroid's
    context-overflow truncation, ``hist`` being ``self.message_history``). The shortened messages
    stay shortened, so once the conversation is over its limit each request shortens the next
    one: an earlier message changes on every call."""
    loops = [loop for loop in _nodes(function, ast.While) if any(
        len(test.ops) == 1 and isinstance(test.ops[0], (ast.Gt, ast.GtE)) and _is_measure(test.left)
        for test in _nodes(loop.test, ast.Compare))]
    if not loops:
        return
    aliases = {node.targets[0].id: ast.unparse(node.value) for node in _nodes(function, ast.Assign)
               if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
               and isinstance(node.value, (ast.Name, ast.Attribute)) and HISTORY_NAME.search(ast.unparse(node.value))}
    for loop in loops:
        stepped = {node.target.id for node in _nodes(loop, ast.AugAssign)
                   if isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add)}
        for node in _nodes(loop, ast.Assign):
            target = node.targets[0] if len(node.targets) == 1 else None
            if not (isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Name)
                    and target.slice.id in stepped):
                continue
            held = ast.unparse(target.value)
            history = aliases.get(held) or (held if HISTORY_NAME.search(held) else None)
            if history is not None and _names_in(loop.test, held.split(".")[0]):
                yield Cut(node, history, "has its oldest messages shortened in place, one more each time it is "
                                         "over its limit")
                break


def _names_limit(node: ast.expr) -> bool:
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return LIMIT_NAME.search(name) is not None


def _lowered_in(loop: ast.AST) -> set[str]:
    """Names the loop lowers (`n -= size`) or binds again from a call (`item, n = shorten(item, n)`)."""
    found = set()
    for node in _nodes(loop, (ast.AugAssign, ast.Assign)):
        if isinstance(node, ast.AugAssign):
            if isinstance(node.op, ast.Sub) and isinstance(node.target, ast.Name):
                found.add(node.target.id)
            continue
        if isinstance(node.value, ast.Call) or isinstance(node.value, ast.Constant) and node.value.value == 0:
            for target in node.targets:
                found |= {n.id for n in _nodes(target, ast.Name)}
    return found


def _exhausted_test(test: ast.expr, names: set[str]) -> tuple[str, bool] | None:
    """``excess <= 0`` (True: holds once the excess is used up) or ``excess > 0`` (False)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(left, ast.Constant):  # `0 >= excess`
        left, right = right, left
        op = {ast.Lt: ast.Gt(), ast.LtE: ast.GtE(), ast.Gt: ast.Lt(), ast.GtE: ast.LtE()}.get(type(op), op)
    if not (isinstance(left, ast.Name) and left.id in names and isinstance(right, ast.Constant)
            and right.value in (0, 1) and not isinstance(right.value, bool)):
        return None
    if isinstance(op, ast.LtE) and right.value == 0 or isinstance(op, ast.Lt) and right.value == 1:
        return left.id, True
    if isinstance(op, ast.Gt) and right.value == 0 or isinstance(op, ast.GtE) and right.value == 1:
        return left.id, False
    return None


def _keeps_item(body: list[ast.stmt], items: set[str]) -> str | None:
    """The list ``body`` adds the loop's item to, unchanged (``kept.append(item)``, ``kept +=
    [x for x in item]``, ``kept.extend(item)``, ``kept.insert(0, item)``), else None."""
    def is_item(value: ast.expr) -> bool:
        if isinstance(value, ast.Name):
            return value.id in items
        if isinstance(value, (ast.ListComp, ast.GeneratorExp)):
            return any(isinstance(g.iter, ast.Name) and g.iter.id in items for g in value.generators)
        if isinstance(value, ast.List):
            return bool(value.elts) and all(is_item(e) for e in value.elts)
        return False
    for statement in body:
        for node in _nodes(statement, (ast.Call, ast.AugAssign)):
            if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and is_item(node.value):
                return ast.unparse(node.target)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and (node.func.attr in ("append", "extend") and len(node.args) == 1 and is_item(node.args[0])
                         or node.func.attr == "insert" and len(node.args) == 2 and is_item(node.args[1])):
                return ast.unparse(node.func.value)
    return None


def _newest_fit_cuts(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[Cut]:
    """The newest items kept while they fit a budget: a loop over the conversation newest first
    (`for msg in reversed(history):`) that adds each item's size to a running total, keeps the
    item (`kept.insert(0, msg)`, or appends it) and stops (`break`) once the total would pass the
    limit. Once the conversation is over the limit, the oldest item kept moves on every turn.
    Not in a function that splits the conversation for a summary (`get_messages_to_summarize`:
    the newest turns kept verbatim, the rest summarized, until the next compaction), nor over a
    parameter typed as a list of strings (lines of text to chunk, not messages)."""
    if _SUMMARY_WORD.search(function.name):
        return
    strings = {a.arg for a in _parameters(function) if a.annotation is not None
               and re.fullmatch(r"(?:list|List|Sequence)\[str\]", ast.unparse(a.annotation))}
    for loop in _nodes(function, (ast.For, ast.AsyncFor)):
        if not _newest_first(loop.iter) or not _nodes(loop, ast.Break) \
                or {n.id for n in _nodes(loop.iter, ast.Name)} & strings:
            continue
        items = {n.id for n in _nodes(loop.target, ast.Name)}
        totals = {n.target.id for n in _nodes(loop, ast.AugAssign)
                  if isinstance(n.op, ast.Add) and isinstance(n.target, ast.Name)}
        kept = _keeps_item(loop.body, items) or next(
            (target for branch in _nodes(loop, ast.If) if (target := _keeps_item(branch.body, items))), None)
        listed = ast.unparse(loop.iter)
        if not totals or kept is None or not (HISTORY_NAME.search(listed) or HISTORY_NAME.search(kept)):
            continue
        test = next((branch for branch in _nodes(loop, ast.If) if _compares_total(branch.test, totals)
                     and any(_nodes(stmt, ast.Break) for stmt in (*branch.body, *branch.orelse))), None)
        if test is not None:
            yield Cut(test, kept, "keeps only the newest items that fit a budget (counted from the newest)")


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    return [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]


def _newest_first(iterated: ast.expr) -> bool:
    """`reversed(x)`, `reversed(list(x))` or `x[::-1]`."""
    if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id == "reversed":
        return True
    return isinstance(iterated, ast.Subscript) and isinstance(iterated.slice, ast.Slice) \
        and iterated.slice.lower is None and iterated.slice.upper is None \
        and isinstance(iterated.slice.step, ast.UnaryOp) and isinstance(iterated.slice.step.op, ast.USub) \
        and isinstance(iterated.slice.step.operand, ast.Constant) and iterated.slice.step.operand.value == 1


def _compares_total(test: ast.expr, totals: set[str]) -> bool:
    """An order comparison that reads a running total (`used + size > limit`, `total >= budget`),
    alone or in an `or`."""
    if isinstance(test, ast.BoolOp):
        return any(_compares_total(value, totals) for value in test.values)
    return isinstance(test, ast.Compare) and len(test.ops) == 1 \
        and isinstance(test.ops[0], (ast.Gt, ast.GtE, ast.Lt, ast.LtE)) \
        and any(isinstance(n, ast.Name) and n.id in totals for side in (test.left, test.comparators[0])
                for n in ast.walk(side))
