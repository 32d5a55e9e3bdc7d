"""PC009 on small modules through the real analyzer: which cuts of a conversation history are
reported, where (the statement, or a framework window's size), and what the message says; and the
cuts that are left alone (the newest message, a fixed head, a bounds-checked index, a file that
never deals with chat messages for a model)."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptlint.config import Config
from promptlint.engine import analyze
from promptlint.reporters.json_report import finding_record
from tests.conftest import write_tree

CUT = ": once it is full, every request changes an earlier part of the history, so everything after the " \
      "cut misses the prefix cache on every call"
HINT = "cut the history in large blocks (or summarize) so the prefix stays fixed for many turns"
# For an older item rewritten (no window): cutting in blocks would not help.
REWRITE_HINT = "leave the messages already sent as they were; say in the newest message what has changed"
MASK = " keeps only its latest items whole (`{test}` replaces the older ones)"
WINDOW = (" replays only the latest turns of the conversation: once it is longer, the window slides on every "
          "request, so the replayed history misses the prefix cache on every call")


def project_cuts(root: Path) -> list[tuple[str, int, str]]:
    """(path, line, message) of each PC009 finding on a project, which must analyze cleanly."""
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert not result.errors, result.errors
    return [(f.location.path, f.location.line, f.message) for f in result.findings if f.rule == "PC009"]

# SWE-agent's LastNObservations: the older observations elided at indexes another method lists.
OMIT_BY_INDEXES = '''
class LastNObservations:
    def _get_omit_indices(self, history: list) -> list[int]:
        observations = [i for i, entry in enumerate(history) if entry["message_type"] == "observation"]
        last_removed = max(0, len(observations) - self.n)
        return observations[1:last_removed]

    def __call__(self, history: list) -> list:
        """The {"role": ...} messages for the llm, with old observations elided."""
        new_history = []
        omit = self._get_omit_indices(history)
        for idx, entry in enumerate(history):
            if idx not in omit:
                new_history.append(entry)
            else:
                data = entry.copy()
                data["content"] = "Old environment output omitted"
                new_history.append(data)
        return new_history
'''

# Qwen-Agent's truncation: the oldest turns dropped or shortened until the excess is used up; over
# retrieved documents, not a window.
EXCESS_USED_UP = '''
def fit_history(messages: list, available: int) -> list:
    # {"role": ...} messages for the llm
    kept = []
    exceedance = sum(count_tokens(m) for m in messages) - available
    for turn in messages:
        if exceedance <= 0:
            kept.append(turn)
            continue
        size = count_tokens(turn)
        if size <= exceedance:
            exceedance -= size
        else:
            kept.append(shorten(turn, size - exceedance))
            exceedance = 0
    return kept
'''
# The newest turns kept while they fit (onyx's history truncation); over search results, not a window.
NEWEST_THAT_FIT = '''
def latest_that_fit(history: list, limit: int) -> list:
    # {"role": ...} messages for the llm
    kept = []
    used = 0
    for msg in reversed(history):
        used += count_tokens(msg)
        if used > limit:
            break
        kept.insert(0, msg)
    return kept
'''

REPORTED = {
    "slice stored back under a length check": ('''
class Memory:
    def add_message(self, role: str, content: str) -> None:
        self.messages.append({"role": role, "content": content})
        if len(self.messages) > self.max_messages:
            self.messages = self.messages[-self.max_messages:]
''', [((5, 13, 5, 63), "`self.messages` is cut to its last `self.max_messages` messages" + CUT)]),
    "a configured head and the latest messages, returned through locals (a condenser)": ('''
class RecentMessages:
    def condense(self, messages: list) -> list:
        # the {"role": ...} messages the llm is sent
        head = messages[: self.keep_first]
        tail_length = max(0, self.max_messages - len(head))
        tail = messages[-tail_length:]
        return head + tail
''', [((7, 9, 7, 27), "`messages` keeps its first messages and only the latest ones after it" + CUT)]),
    "slice stored back without a check": ('''
class Memory:
    def add_message(self, role: str, content: str) -> None:
        self.messages.append({"role": role, "content": content})
        self.messages = self.messages[-self.max_messages:]
''', [((4, 9, 4, 59), "`self.messages` is cut to its last `self.max_messages` messages" + CUT)]),
    "local slice from a computed start under a length check": ('''
def trim(chat_history: list, limit: int) -> list:
    # {"role": ...} messages for the llm
    if len(chat_history) >= limit:
        chat_history = chat_history[len(chat_history) - limit:]
    return chat_history
''', [((4, 9, 4, 64), "`chat_history` is cut to its last `len - (len(chat_history) - limit)` messages" + CUT)]),
    "a conversation rendered as text, cut by characters (deer-flow)": ('''
MAX_CONVERSATION_CHARS = 12000
def format_conversation(messages: list) -> str:
    # the conversation for the evaluator's prompt
    conversation = "\\n\\n".join(f"{m.role}: {m.text}" for m in messages)
    if len(conversation) > MAX_CONVERSATION_CHARS:
        conversation = conversation[-MAX_CONVERSATION_CHARS:]
    return conversation
''', [((6, 9, 6, 62), "`conversation` is cut to its last `MAX_CONVERSATION_CHARS` characters" + CUT)]),
    "the oldest turns dropped or shortened until an excess is used up (Qwen-Agent)": (EXCESS_USED_UP, [(
        (6, 9, 8, 21), "`kept` is the history without its oldest items, dropped or shortened until the excess "
                       "`exceedance` is used up" + CUT)]),
    "the newest turns kept while they fit a budget (onyx)": (NEWEST_THAT_FIT, [(
        (7, 9, 8, 18), "`kept` keeps only the newest items that fit a budget (counted from the newest)" + CUT)]),
    "the newest messages that fit kept, the older ones dropped (flagged for caching or not)": ('''
def fit(history: list, budget: int) -> list:
    """What the llm sees of the history: the newest messages that fit."""
    kept, total = [], 0
    for msg in reversed(history):
        tokens = len(msg.content) // 4
        if total + tokens <= budget:
            msg.should_cache = True
            kept.insert(0, msg)
            total += tokens
        else:
            break
    return kept
''', [((6, 9, 11, 18), "`kept` keeps only the newest items that fit a budget (counted from the newest)"
                           + CUT)]),
    "two pops under one guard are one root cause": ('''
class Worker:
    def flush(self) -> None:
        if len(self.agent.messages) > 2 * self.max_trajectory_length + 1:
            self.agent.messages.pop(1)
            self.agent.messages.pop(1)
    def step(self, llm):
        self.flush()
        return llm.chat(self.agent.messages)
''', [((4, 13, 4, 39), "`self.agent.messages` loses an earlier message each time it is over its limit" + CUT)]),
    "a pop from the middle in a token loop": ('''
def fit(messages: list, model_client, limit: int) -> list:
    dropped = 0
    while model_client.count_tokens(messages) > limit and messages:
        messages.pop(len(messages) // 2)
        dropped += 1
    return messages
''', [((4, 9, 4, 41), "`messages` loses an earlier message each time it is over its limit" + CUT)]),
    "the history handed out as its last configured messages": ('''
class BufferedChatCompletionContext:
    async def get_messages(self) -> list:
        if not self._messages:
            return []
        return self._messages[-self._buffer_size:]
    def get_history_for(self, n: int) -> list:
        return self._messages[-n:]
    def recent_messages(self) -> list:
        return self._messages[-self._buffer_size:]
''', [((5, 9, 5, 51), "`self._messages` is handed out as its last `self._buffer_size` messages" + CUT)]),
    "a window kept in a local before it is handed out": ('''
class Context:
    # {"role": ...} messages for the llm
    def load_history(self) -> list:
        history = self._history[-self.window:]
        return history
''', [((4, 9, 4, 47), "`self._history` is cut to its last `self.window` messages" + CUT)]),
    "the first message kept, the oldest others dropped": ('''
import json
def save(messages: list, path: str, length: int) -> None:
    # messages: [{"role": ..., "content": ...}], replayed on the next run
    kept = messages[:1] + messages[1 + max(0, len(messages) - length):]
    json.dump(kept, open(path, "w"))
''', [((4, 5, 4, 72), "`messages` keeps its first message and only the latest ones after it" + CUT)]),
    "the system message kept as an item, the last turns after it, in an agent loop": ('''
def run(client, task: str) -> None:
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": task}]
    while True:
        if len(messages) > 20:
            messages = [messages[0]] + messages[-10:]
        reply = client.chat.completions.create(model="gpt-4o", messages=messages)
        messages.append({"role": "assistant", "content": reply.choices[0].message.content})
''', [((5, 13, 5, 54), "`messages` keeps its first message and only the latest ones after it" + CUT)]),
    "the system message kept and the last turns unpacked after it": ('''
def window(history: list, keep: int) -> list:
    # [{"role": ...}] for the llm
    return [history[0], *history[len(history) - keep:]]
def send(client, history: list) -> None:
    history = [history[0], *history[-8:]]
    client.chat.completions.create(model="gpt-4o", messages=history)
''', [((5, 5, 5, 42), "`history` keeps its first message and only the latest ones after it" + CUT)]),
    "the first item and the last few kept, with no summary of what is dropped": ('''
class MessageManager:
    def trim_messages(self, keep_last: int) -> None:
        history_items = self.state.agent_history_items  # {"role": ...} messages for the llm
        if len(history_items) > keep_last + 1:
            self.state.agent_history_items = [history_items[0]] + history_items[-keep_last:]
''', [((5, 13, 5, 93), "`history_items` keeps its first message and only the latest ones after it" + CUT)]),
    "the oldest message popped into a name while over a token limit, its tool result after it": ('''
def truncate_messages(messages: list, max_prompt_size: int) -> list:
    # [{"role": ...}] for the llm
    while count_tokens(messages) > max_prompt_size and len(messages) > 1:
        dropped_message = messages.pop(0)
        if dropped_message.get("tool_calls") and messages:
            messages.pop(0)  # its tool result: the same window
    return messages
''', [((4, 9, 4, 42), "`messages` loses an earlier message each time it is over its limit" + CUT)]),
    "the first item kept in a list, then extended with the latest ones, once over the limit": ('''
class MessageManager:
    def agent_history_description(self) -> str:
        # {"role": ...} messages for the llm
        total_items = len(self.state.agent_history_items)
        if total_items <= self.max_history_items:
            return "\\n".join(item.to_string() for item in self.state.agent_history_items)
        items_to_include = [self.state.agent_history_items[0].to_string(), f"[... {total_items} steps ...]"]
        items_to_include.extend([item.to_string() for item in self.state.agent_history_items[-self.recent:]])
        return "\\n".join(items_to_include)
''', [((8, 9, 8, 110), "`self.state.agent_history_items` keeps its first message and only the latest ones after it" + CUT)]),
    "every screenshot but the last two removed from the messages": ('''
def run(messages: list, llm):
    # {"role": ...} messages for the llm
    image_messages = [msg for msg in messages if msg["type"] == "image"]
    for img_msg in image_messages[:-2]:
        messages.remove(img_msg)
    return llm.completion(messages=messages)
''', [((4, 5, 5, 33), "`messages` loses its older items, all but the latest few, each time there are more" + CUT)]),
    "every screenshot but the first and the last two removed": ('''
def run(messages: list, llm):
    # {"role": ...} messages for the llm
    image_messages = [msg for msg in messages if msg["type"] == "image"]
    if len(image_messages) > 3:
        for img_msg in image_messages[1:-2]:
            messages.remove(img_msg)
    return llm.completion(messages=messages)
''', [((5, 9, 6, 37), "`messages` loses its older items, all but the latest few, each time there are more" + CUT)]),
    "part of an earlier message deleted under a budget": ('''
def drop_images(conversation: list, max_images: int) -> None:
    # {"role": "user", "content": [...]} for the llm
    while count_images(conversation) > max_images:
        del conversation[1]["content"][0]
''', [((4, 9, 4, 42), "`conversation` loses an earlier part each time it is over its limit" + CUT)]),
    "agno: history on, window size given": ('''
from agno.agent import Agent
agent = Agent(instructions="You manage the user's Notion pages.", add_history_to_context=True,
              num_history_runs=5)
quiet = Agent(instructions="Summarize.", num_history_runs=5)
off = Agent(instructions="x", add_history_to_context=True, num_history_runs=None)
''', [((3, 32, 3, 33), "`Agent`" + WINDOW)]),
    "agno: a window of one run, by the other window keyword, after calls that are no window": ('''
import agno.agent
from agno.agent import Agent
history = load_history()
quiet = Agent(instructions="Summarize.", num_history_runs=5)
off = Agent(instructions="x", add_history_to_context=True, num_history_runs=0)
default = Agent(instructions="x", add_history_to_context=True)
one = agno.agent.Agent(instructions="x", add_history_to_context=True, num_history_runs=1)
by_messages = Agent(instructions="x", add_history_to_messages=True, num_history_messages=10)
''', [((7, 88, 7, 89), "`Agent`" + WINDOW), ((8, 90, 8, 92), "`Agent`" + WINDOW)]),
    "the same history cut under two guards, and in two functions": ('''
class Chat:
    # {"role": ...} messages for the llm
    def trim(self) -> None:
        if len(self.messages) > self.max_messages:
            self.messages.pop(1)
            self.messages.pop(1)
        if self.token_count(self.messages) > self.token_limit:
            self.messages.pop(1)
    def trim_again(self) -> None:
        if len(self.messages) > self.max_messages:
            self.messages.pop(1)
''', [((5, 13, 5, 33), "`self.messages` loses an earlier message each time it is over its limit" + CUT),
      ((8, 13, 8, 33), "`self.messages` loses an earlier message each time it is over its limit" + CUT),
      ((11, 13, 11, 33), "`self.messages` loses an earlier message each time it is over its limit" + CUT)]),
    "a multi-line cut is located over all its lines": ('''
class Memory:
    # {"role": ...} messages for the llm
    def add(self, message: dict) -> None:
        if len(self.messages) > self.max_messages:
            self.messages = self.messages[
                -self.max_messages:]
''', [((5, 13, 6, 37), "`self.messages` is cut to its last `self.max_messages` messages" + CUT)]),
    "cuts inside else, except and finally blocks, after a nested helper": ('''
class Chat:
    # {"role": ...} messages for the llm
    def add(self, message: dict) -> None:
        def size(items: list) -> int:
            return len(items)
        if message.get("reset"):
            self.messages = []
        else:
            self.messages = self.messages[-self.keep:]
        try:
            self.save()
        except OSError:
            self.history = self.history[-self.keep:]
        finally:
            self.conversation = self.conversation[-self.keep:]
''', [((9, 13, 9, 55), "`self.messages` is cut to its last `self.keep` messages" + CUT),
      ((13, 13, 13, 53), "`self.history` is cut to its last `self.keep` messages" + CUT),
      ((15, 13, 15, 63), "`self.conversation` is cut to its last `self.keep` messages" + CUT)]),
    "a computed start through a call, and a window handed out by a private getter": ('''
class Chat:
    # {"role": ...} messages for the llm
    def add(self, message: dict) -> None:
        self.messages.append(message)
        self.messages = self.messages[max(0, len(self.messages) - self.n):]
    def _get_history(self) -> list:
        return self._history[-self._window:]
''', [((5, 9, 5, 76), "`self.messages` is cut to its last `len - (max(0, len(self.messages) - self.n))` messages" + CUT),
      ((7, 9, 7, 45), "`self._history` is handed out as its last `self._window` messages" + CUT)]),
    "the cut is found far from other slices of the file": ('''
# {"role": ...} messages for the llm
def last_char(text: str) -> str:
    return text[-1]
PADDING = "............................................................................................................"
class Chat:
    def add(self, message: dict) -> None:
        if self.token_count(self.messages) > self.token_budget:
            self.messages = self.messages[-self.keep:]
OTHER = "............................................................................................................"
def last_word(words: list) -> str:
    return words[-1]
''', [((8, 13, 8, 55), "`self.messages` is cut to its last `self.keep` messages" + CUT)]),
    "langchain: a window memory reached through its module": ('''
import langchain.memory
memory = langchain.memory.ConversationBufferWindowMemory(k=3)
''', [((2, 10, 2, 62), "`ConversationBufferWindowMemory`" + WINDOW)]),
    "a summary appended when the history is long is no cut; the cut beside it is": ('''
class Chat:
    # {"role": ...} messages for the llm
    def add(self, message: dict) -> None:
        if len(self.messages) > self.max_messages:
            self.messages.append({"role": "system", "content": "(earlier turns are summarized above)"})
    def trim(self) -> None:
        self.history = self.history[-self.keep:]
''', [((7, 9, 7, 49), "`self.history` is cut to its last `self.keep` messages" + CUT)]),
    "langchain: a window memory, trimming to the last turns": ('''
from langchain.memory import ConversationBufferWindowMemory
from langchain_core.messages import trim_messages, HumanMessage
import langchain_core.messages as lcm
memory = ConversationBufferWindowMemory(k=3)
def prompt(history: list, llm):
    first = trim_messages(history, strategy="first", max_tokens=100, token_counter=llm)
    built = trim_messages([HumanMessage("hi")], max_tokens=100, token_counter=llm)
    return lcm.trim_messages(history, strategy="last", max_tokens=100, token_counter=llm)
''', [((4, 10, 4, 45), "`ConversationBufferWindowMemory`" + WINDOW),
      ((8, 12, 8, 90), "`trim_messages`" + WINDOW)]),
    "tokentrim: the newest messages that fit a token budget, one window for both branches": ('''
import tokentrim as tt
def run(messages: list, system_message: str, context_window: int, max_tokens: int | None):
    # {"role": ...} messages for the llm
    if max_tokens:
        return tt.trim(messages, system_message=system_message, max_tokens=context_window - max_tokens)
    return tt.trim(messages, system_message=system_message, max_tokens=context_window)
''', [((5, 16, 5, 104), "`trim`" + WINDOW)]),
    "messages cut out of the middle and stored back": ('''
class AgentConvo:
    def trim(self, trim_index: int, trim_count: int) -> "AgentConvo":
        # {"role": ...} messages for the llm
        self.messages = self.messages[:trim_index] + self.messages[trim_index + trim_count:]
        return self
''', [((4, 9, 4, 93), "`self.messages` has messages cut out of its middle and is stored back" + CUT)]),
    "messages made by a helper, capped": ('''
class Memory:
    def add(self, role: str, content: str) -> None:
        # {"role": ...} messages for the llm
        self.messages.append(self._message(role, content))
        if len(self.messages) > 20:
            self.messages = self.messages[-20:]
''', [((6, 13, 6, 48), "`self.messages` is cut to its last `20` messages" + CUT)]),
    "the conversation as text, cut to its last characters after an early return": ('''
class Conversation:
    # {"role": ...} messages for the llm
    def history_for_prompt(self) -> str:
        text = self.get_history_text()
        if len(text) <= self.max_chars:
            return text
        recent = text[-self.max_chars:]
        return recent
''', [((7, 9, 7, 40), "`text` (the conversation as text, from `self.get_history_text()`) is cut "
                        "from the front to fit its limit" + CUT)]),
    # swarms' dynamic context window: a helper function renders it, a search over its length cuts it.
    "the conversation as text, cut where a search over its length lands": ('''
class Agent:
    # {"role": ...} messages for the llm
    def fit(self, count_tokens, limit: int) -> str:
        text = history_text(self.memory)
        if count_tokens(text) > limit:
            left, right = 0, len(text)
            mid = (left + right) // 2
            text = text[mid:]
        return text
''', [((8, 13, 8, 30), "`text` (the conversation as text, from `history_text(self.memory)`) is cut "
                        "from the front to fit its limit" + CUT)]),
    "a window after an early return under the limit": ('''
class ContextWindowFilter:
    # {"role": ...} messages for the llm
    async def filter_messages(self, messages: list) -> list:
        if len(messages) <= self.max_messages:
            return messages
        system_messages = [m for m in messages if m.role == "system"]
        other_messages = [m for m in messages if m.role != "system"]
        recent_messages = other_messages[-self.max_messages:]
        return system_messages + recent_messages
''', [((8, 9, 8, 62), "`other_messages` is cut to its last `self.max_messages` messages" + CUT)]),
    "older observations masked by their distance from the end (OpenHands)": ('''
class ObservationMasking:
    def condense(self, view: list) -> list:
        """Keep the latest observations for the llm; mask the older ones."""
        results = []
        for i, event in enumerate(view):
            if event.kind == "observation" and i < len(view) - self.attention_window:
                results.append({"role": "tool", "content": "<MASKED>"})
            else:
                results.append(event)
        return results
''', [((7, 17, 7, 72), "`view`" + MASK.format(test="i < len(view) - self.attention_window") + CUT)]),
    "older results truncated, counted from the newest (MetaGPT)": ('''
class Role:
    def parse_editor_result(self, memory: list, keep_latest_count=5) -> list:
        """Retain the latest editor results for the llm and shorten older ones."""
        new_memory = []
        i = 0
        for msg in reversed(memory):
            if "Command Editor" in msg.content:
                i += 1
                if i > keep_latest_count:
                    msg = {"role": "user", "content": msg.content[:80]}
            new_memory.append(msg)
        new_memory.reverse()
        return new_memory
''', [((10, 21, 10, 72), "`memory`" + MASK.format(test="i > keep_latest_count") + CUT)]),
    "older observations elided by indexes another method computes (SWE-agent)": (OMIT_BY_INDEXES, [
        ((17, 17, 17, 41), "`history` keeps only its latest items whole (the older ones, at the indexes "
                           "`self._get_omit_indices(history)` lists, are replaced)" + CUT)]),
    "an older file view closed once a newer message shows the file (SWE-agent)": ('''
class ClosedWindowHistoryProcessor:
    def __call__(self, history: list) -> list:
        """The {"role": ...} messages for the llm, with outdated file windows closed."""
        new_history = []
        windows = set()
        for entry in reversed(history):
            data = entry.copy()
            file = self.file_of(entry["content"])
            if file in windows:
                data["content"] = "Outdated window omitted"
            windows.add(file)
            new_history.append(data)
        return list(reversed(new_history))
''', [((10, 17, 10, 60), "`history` rewrites an older item whenever a newer one shows it again (`file in windows`): "
                         "each such item changes an earlier part of the history, so everything after it misses the "
                         "prefix cache on the next call")]),
    "the latest records kept by a window size, behind a conditional (camel)": ('''
class ChatHistoryBlock:
    def retrieve(self, window_size=None) -> list:
        record_dicts = self.storage.load()
        if window_size is not None and window_size >= 0:
            start_index = 1 if record_dicts and record_dicts[0]["role_at_backend"] == "system" else 0
            preserved_messages = record_dicts[:start_index]
            sliding_messages = record_dicts[start_index:]
            truncated_messages = [] if window_size == 0 else sliding_messages[-window_size:]
            final_records = preserved_messages + truncated_messages
        else:
            final_records = record_dicts
        return final_records
''', [((8, 13, 8, 93), "`sliding_messages` is cut to its last `window_size` messages" + CUT)]),
}

LEFT_ALONE = {
    "the first message and all the others, returned through locals": '''
def with_note(messages: list, note: dict) -> list:
    # the {"role": ...} messages for the llm, a note after the system message
    head = messages[:1]
    rest = messages[1:]
    return head + [note] + rest
''',
    "items elided by indexes of a fixed head, whatever the length": OMIT_BY_INDEXES.replace(
        "last_removed = max(0, len(observations) - self.n)\n        return observations[1:last_removed]",
        "return observations[1:3]"),
    "an excess used up over retrieved documents, not a conversation": EXCESS_USED_UP.replace("messages", "documents")
    .replace('{"role": ...} messages for the llm', 'documents for the llm\'s {"role": "user"} message, best first'),
    "the oldest turns that fit a budget kept (a fixed head)": '''
def fit_history(messages: list, max_tokens: int) -> list:
    # {"role": ...} messages for the llm
    kept = []
    remaining = max_tokens - count_tokens(messages[0])
    for turn in messages:
        if remaining <= 0:
            break
        kept.append(turn)
        remaining -= count_tokens(turn)
    return kept
''',
    "the newest search results kept while they fit a budget": NEWEST_THAT_FIT.replace("history", "results").replace(
        '{"role": ...} messages for the llm', 'results for the llm\'s {"role": "user"} message'),
    "repeated items counted, newest first, none rewritten": '''
def count_views(history: list) -> int:
    """How many {"role": ...} messages for the llm show a file already seen later."""
    seen = set()
    repeats = 0
    for entry in reversed(history):
        file = entry["content"].split()[0]
        if file in seen:
            repeats += 1
        seen.add(file)
    return repeats
''',
    "the first few items removed, or all but the latest only logged": '''
def run(messages: list, log):
    # {"role": ...} messages for the llm
    for old in messages[:3]:
        messages.remove(old)
    for img_msg in messages[:-2]:
        log(img_msg)
''',
    "a compaction: the dropped turns summarized by a model, the first and the last few kept": '''
class MessageManager:
    async def maybe_compact_messages(self, llm, keep_last: int) -> bool:
        history_items = self.state.agent_history_items
        if len(history_items) < self.compact_every_n_steps:
            return False
        messages = [{"role": "system", "content": "Summarize the agent run so far."},
                    {"role": "user", "content": "\\n".join(str(item) for item in history_items)}]
        response = await llm.ainvoke(messages)
        self.state.compacted_memory = response.completion
        if len(history_items) > keep_last + 1:
            self.state.agent_history_items = [history_items[0]] + history_items[-keep_last:]
        return True
''',
    "a middle cut into another list, a bounded tail, another list's tail, a local copy": '''
class AgentConvo:
    def views(self, k: int, n: int) -> None:
        # {"role": ...} messages for the llm
        self.kept = self.messages[:k] + self.messages[k + n:]
        self.messages = self.messages[:k] + self.messages[k + n:k + 2 * n]
        self.messages = self.messages[:k] + self.other[k + n:]
        self.messages = self.messages[:k] + self.messages[n:]
        messages = self.messages
        messages = messages[:k] + messages[k + n:]
''',
    "the first item kept before a fixed remainder or another message": '''
def reorder(messages: list) -> list:
    # [{"role": ...}] for the llm
    messages = [messages[0]] + messages[1:]
    messages = [messages[1]] + messages[-3:]
    return [messages[0], *messages[2:]]
''',
    "hashes of tool calls, capped": '''
class LoopDetector:
    def record(self, call_hash: str) -> None:
        # {"role": ...} messages for the llm
        self.recent_messages.append(call_hash)
        if len(self.recent_messages) > 10:
            self.recent_messages = self.recent_messages[-10:]
''',
    "records of tool results (a tuple holding a hash), capped": '''
class AgentStream:
    def _record_tool_result(self, tool_name: str, args: dict, success: bool) -> None:
        # {"role": ...} messages for the llm
        args_hash = self._hash_args(args)
        self.tool_failure_history.append((tool_name, args_hash, success))
        if len(self.tool_failure_history) > 50:
            self.tool_failure_history = self.tool_failure_history[-50:]
''',
    "a prompt it inserted itself, removed again by its remembered position": '''
class AgentLoop:
    def run(self) -> None:
        # {"role": ...} messages for the llm
        turn = 0
        while turn < self.max_turns:
            turn += 1
            if not self.call_llm():
                prompt_insert_idx = len(self.messages)
                self.messages.append({"role": "user", "content": "Please answer now."})
                self.call_llm()
                if prompt_insert_idx < len(self.messages) and self.messages[prompt_insert_idx]["role"] == "user":
                    self.messages.pop(prompt_insert_idx)
''',
    "a caller's tail, cut once": '''
def recent(messages: list, n: int) -> list:
    # {"role": ...} for the llm
    window = messages[-n:]
    return window
''',
    "the newest message popped, and an index loop": '''
def undo(messages: list, llm) -> None:
    while len(messages) > llm.max_messages:
        messages.pop(-1)
    i = 0
    while i < len(messages):
        messages.pop(i)
''',
    "a guarded pop of a list not named like a history": '''
def drain(queue: list, llm_limit: int) -> None:
    # role
    removed = 0
    while len(queue) > llm_limit:
        queue.pop(0)
        removed += 1
''',
    "a local rebound to its tail once, and a tail copied to another attribute": '''
class Chat:
    # {"role": ...} messages for the llm
    def snapshot(self, messages: list, n: int) -> list:
        messages = messages[-n:]
        self.recent = self.messages[-self.n:]
        return messages
''',
    "a whole copy, a fixed head kept in place, a loaded list's tail, a list not named like a history": '''
class Chat:
    # {"role": ...} messages for the llm
    def snapshot(self) -> None:
        self.messages = self.messages[:]
        self.messages = self.messages[self.offset:]
        self.messages = self.store.load()[-self.n:]
        self.alerts = self.alerts[-self.n:]
''',
    "the system message put before the history, or a summary after it": '''
def prompt(messages: list, system: dict, summary_messages: list) -> list:
    # {"role": ...} messages for the llm
    all_messages = [system] + messages
    kept = messages[:1] + summary_messages
    rest = messages[:1] + messages[2:]
    return all_messages + kept + rest
''',
    "a fixed head": '''
def head_and_rest(messages: list) -> list:
    # {"role": ...}
    return messages[:1] + messages[2:]
''',
    "the newest message deleted": '''
def drop_last(conversation: list, max_turns: int) -> None:
    # {"role": ...} for the llm
    if len(conversation) > max_turns:
        del conversation[-1]
''',
    "a list not named like a history": '''
def drop(alerts: list, llm_limit: int) -> None:
    # role
    if len(alerts) > llm_limit:
        del alerts[0]
''',
    "a file that never deals with chat messages for a model": '''
class Log:
    def add(self, line: str) -> None:
        self.messages.append(line)
        if len(self.messages) > 100:
            self.messages = self.messages[-self.limit:]
            del self.messages[0]
''',
    "a page text (not the conversation) cut to fit a limit": '''
def page_excerpt(browser, llm, limit: int) -> str:
    text = browser.page_text()
    if len(text) > limit:
        text = text[len(text) - limit:]
    return llm.complete([{"role": "user", "content": text}])
''',
    "a summary of the conversation, cut to its limit (not the history itself)": '''
class Agent:
    # {"role": ...} messages for the llm
    def digest(self, count_tokens, limit: int) -> str:
        text = self.summarize_history()
        if count_tokens(text) > limit:
            text = text[-limit:]
        return text
''',
    "the conversation as text cut to its start (the prefix stays)": '''
class Conversation:
    # {"role": ...} messages for the llm
    def opening(self) -> str:
        text = self.get_history_text()
        if len(text) <= self.limit:
            return text
        return text[:self.limit]
''',
    "the conversation as text, one fixed tail for a one-off summary (no limit test)": '''
def summarize(chat, llm) -> str:
    # {"role": ...} messages for the llm
    text = chat.history_as_text()
    excerpt = text[-4000:]
    return llm.complete([{"role": "user", "content": "Summarize: " + excerpt}])
''',
    "a slice after leaving when over the limit (it runs under it)": '''
class Chat:
    # {"role": ...} messages for the llm
    def recent(self, messages: list) -> list:
        if len(messages) > self.max_messages:
            raise ValueError("the conversation is too long")
        recent_messages = messages[-self.max_messages:]
        return recent_messages
''',
    "the last item told apart, every item kept": '''
def pad(messages: list) -> list:
    """Gemini wants a model turn between a tool result and a user message (llm)."""
    padded = []
    for i, message in enumerate(messages):
        padded.append(message)
        if message["role"] == "tool" and i + 1 < len(messages) and messages[i + 1]["role"] == "user":
            padded.append({"role": "model", "content": "..."})
    return padded
''',
    "the newest user turn marked as a cache breakpoint, older ones as they are": '''
class ConversationHistory:
    def get_turns(self) -> list:
        """The turns for the llm, the latest user turn with a cache breakpoint (Anthropic's cookbook)."""
        result = []
        user_turns_processed = 0
        for turn in reversed(self.turns):
            if turn["role"] == "user" and user_turns_processed < 1:
                result.append({"role": "user", "content": [{"type": "text", "text": turn["content"][0]["text"],
                                                            "cache_control": {"type": "ephemeral"}}]})
                user_turns_processed += 1
            else:
                result.append(turn)
        return list(reversed(result))
''',
    "an attachment shown only on the last message": '''
def render(messages: list) -> list:
    """Chat messages for the llm, the image only on the last one."""
    out = []
    for i, msg in enumerate(messages):
        if i == len(messages) - 1:
            out.append({"role": msg["role"], "content": msg["content"] + msg["image"]})
        else:
            out.append(msg)
    return out
''',
}


def pc009(tmp_path: Path, source: str) -> list[tuple[tuple[int, int, int, int], str]]:
    root = write_tree(tmp_path, source)
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    assert not result.errors, result.errors
    found = [f for f in result.findings if f.rule == "PC009"]
    for finding in found:  # what every PC009 finding carries in the JSON report
        record = finding_record(finding)
        hint = REWRITE_HINT if "rewrites an older item" in finding.message else HINT
        assert (record["severity"], record["name"], record["hint"]) == ("warning", "sliding-history-window", hint)
        assert record["call_site"] == {"path": "app.py", "line": finding.location.line, "api": "conversation history",
                                       "provider": "any", "model": None, "cell": None}
    return [((f.location.line, f.location.column, f.location.end_line, f.location.end_column), f.message)
            for f in found]


@pytest.mark.parametrize("name", REPORTED)
def test_reported(tmp_path: Path, name: str) -> None:
    source, expected = REPORTED[name]
    assert pc009(tmp_path, source) == expected


@pytest.mark.parametrize("name", LEFT_ALONE)
def test_left_alone(tmp_path: Path, name: str) -> None:
    assert pc009(tmp_path, LEFT_ALONE[name]) == []


def test_a_framework_file_is_read_for_windows_only_when_it_names_one() -> None:
    """What a file importing a framework must say to be parsed for its windows: the window's
    size keyword, or the windowing callable's own name (every agno file imports agno)."""
    from promptlint.checks.pc009_sliding_history_window import window_words
    from promptlint.knowledge import load_knowledge

    words = window_words(load_knowledge(Config()).history_windows)
    assert {"num_history_runs", "num_history_messages", "num_history_responses", "token_limit",
            "ConversationBufferWindowMemory", "trim_messages", "trim"} == set(words)


CONVO = '''
class AgentConvo:
    def __init__(self):
        self.messages = [{"role": "system", "content": "You are a developer."}]

    def trim(self, trim_index: int, trim_count: int) -> "AgentConvo":
        self.messages = self.messages[:trim_index] + self.messages[trim_index + trim_count:]
        return self
'''


# A caller that trims under a limit test (line 7): the window is the caller's.
TRIMMING_CALLER = '''
from convo import AgentConvo

async def chat(llm, ask):
    convo = AgentConvo()
    while True:
        if len(convo.messages) > 11:
            convo.trim(3, 2)
        convo.messages.append({"role": "user", "content": await ask()})
        convo.messages.append({"role": "assistant", "content": await llm(convo.messages)})
'''


def test_a_helper_cut_is_reported_where_a_caller_cuts_under_a_limit(tmp_path: Path) -> None:
    # gpt-pilot's shape: `trim` cuts where it is told; the caller's limit test makes it a window.
    root = write_tree(tmp_path, {"convo.py": CONVO, "agent.py": TRIMMING_CALLER + '''
def one_off(convo: AgentConvo) -> AgentConvo:
    return convo.trim(1, 1)
'''})
    assert project_cuts(root) == [("agent.py", 7, "`convo.trim(3, 2)` cuts `convo` each time it is over its limit (`trim` at "
                      "convo.py:6: `self.messages` has messages cut out of its middle and is stored back)" + CUT)]


def test_a_helper_cut_no_caller_limits_is_reported_at_the_helper(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"convo.py": CONVO, "agent.py": '''
from convo import AgentConvo

def one_off(convo: AgentConvo) -> AgentConvo:
    return convo.trim(1, 1)
'''})
    assert project_cuts(root) == [("convo.py", 6, "`self.messages` has messages cut out of its middle and is stored back" + CUT)]


def test_a_helper_cut_is_a_method_cutting_its_own_history_where_its_parameters_say() -> None:
    # What the engine asks of each module before it looks for callers (engine.history_window_findings).
    import ast

    from promptlint.checks import RULES_BY_CODE

    source = '''
def banner():
    return "chat"

def trim_all(messages, n):
    messages = messages[:1] + messages[n:]
    return messages

class Convo:
    def __init__(self):
        self.messages = []

    def forget(self):
        self.messages = self.messages[:1] + self.messages[3:]

    def window(self, n):
        messages = list(self.messages)
        messages = messages[:1] + messages[n:]
        return messages

    def drop(self, start):
        self.messages = self.messages[:start] + self.messages[start + 2:]

    def trim(self, trim_index, trim_count):
        self.messages = self.messages[:trim_index] + self.messages[trim_index + trim_count:]
'''
    cuts = RULES_BY_CODE["PC009"].helper_cuts("convo.py", ast.parse(source))  # type: ignore[attr-defined]
    # Not helpers: functions of no object, a cut of fixed bounds (`forget`), a cut of a local copy
    # (`window`). Helpers: the object's own list, cut where a parameter says (one or two of them).
    assert [(cut.method, cut.location.line, cut.history) for cut in cuts] == [
        ("drop", 22, "self.messages"), ("trim", 25, "self.messages")]
    assert {cut.how for cut in cuts} == {"has messages cut out of its middle and is stored back"}


def test_only_a_helper_cut_called_under_the_callers_limit_is_reported_there(tmp_path: Path) -> None:
    # Beside the cut, the limit test guards other statements (a builtin call, a constant, another
    # method of the same object); outside it, the helper called as a plain statement.
    root = write_tree(tmp_path, {"convo.py": CONVO + '''
    def save(self) -> None:
        pass
''', "agent.py": '''
from convo import AgentConvo

async def chat(llm, ask):
    convo = AgentConvo()
    convo.trim(1, 1)
    while True:
        if len(convo.messages) > 11:
            print(len(convo.messages))
            dropped = 2
            convo.save()
            convo.trim(3, dropped)
        convo.messages.append({"role": "user", "content": await ask()})
        convo.messages.append({"role": "assistant", "content": await llm(convo.messages)})
'''})
    assert [(path, line) for path, line, _ in project_cuts(root)] == [("agent.py", 11)]


COUNTDOWN_FIT = '''
from openai import OpenAI

client = OpenAI()


def fit(messages: list, limit: int) -> list:
    n = len(messages)
    while n > 0 and count_tokens(messages[-n:]) > limit:
        n -= 1
    return messages[-n:]


def batch(documents: list, limit: int) -> list:
    size = len(documents)
    while size > 0 and count_tokens(documents[:size]) > limit:
        size -= 1
    return documents[:size]


def chat(messages: list):
    return client.chat.completions.create(model="gpt-4o", messages=fit(messages, 3000))
'''


def test_the_latest_messages_that_fit_a_limit_are_a_window(tmp_path: Path) -> None:
    # A count lowered until the tail fits: the tail starts one message later as the history grows.
    # The documents cut to a batch that fits keep their start, so they are not a window.
    root = write_tree(tmp_path, {"app.py": COUNTDOWN_FIT})
    assert project_cuts(root) == [("app.py", 10, "`messages` is cut to the latest `n` messages that fit its limit" + CUT)]


MEMORY = '''
class ConversationMemory:
    """Runs of the conversation: what the user asked, what the assistant answered."""

    def __init__(self):
        self.runs = []

    def to_messages(self, last_n=None):
        runs = self.runs[-last_n:] if last_n else self.runs
        out = []
        for run in runs:
            out.append({"role": "user", "content": run.input})
            out.append({"role": "assistant", "content": run.output})
        return out
'''


def test_an_accessor_of_the_latest_turns_is_a_window_where_a_caller_lowers_its_count(tmp_path: Path) -> None:
    # griptape's autoprune: the memory hands out its last `n` runs; the caller lowers `n` until the
    # prompt fits. The list is the history because the class is named like one.
    root = write_tree(tmp_path, {"memory.py": MEMORY, "prune.py": '''
from memory import ConversationMemory


class PrunedMemory(ConversationMemory):
    def fitted(self, limit):
        n = len(self.runs)
        while n > 0:
            if count_tokens(self.to_messages(n)) <= limit:
                break
            n -= 1
        return self.to_messages(n)

    def recent(self):
        return self.to_messages(3)
'''})
    assert project_cuts(root) == [("prune.py", 11, "`self.to_messages(n)` cuts `self.runs` each time it is over its limit "
                      "(`to_messages` at memory.py:8: `self.runs` is cut to its last `last_n` items)" + CUT)]


def test_an_accessor_of_the_latest_turns_no_caller_counts_down_is_not_reported(tmp_path: Path) -> None:
    # Handing out the last `n` runs is not a window by itself: a fixed `n`, or none, keeps no limit.
    root = write_tree(tmp_path, {"memory.py": MEMORY, "agent.py": '''
from memory import ConversationMemory


def replay(memory: ConversationMemory, turns: int):
    return memory.to_messages(turns)
'''})
    assert project_cuts(root) == []


# MetaGPT's roles: the history sent each step is `memory.get(k)`, the memory's last `k` messages,
# read through pydantic fields made by default factories (`self.rc.memory`).
LATEST_ITEMS_APP = '''
from pydantic import BaseModel, Field
from openai import OpenAI

SYSTEM = "You are a careful engineer: plan, then act, then check your work. " * 30


class Memory(BaseModel):
    storage: list[dict] = []

    def add(self, message: dict) -> None:
        self.storage.append(message)

    def get(self, k: int = 0) -> list[dict]:
        return self.storage[-k:]


class RoleContext(BaseModel):
    memory: Memory = Field(default_factory=Memory)


class Role(BaseModel):
    rc: RoleContext = Field(default_factory=RoleContext)
    memory_k: int = 200

    def step(self, client: OpenAI, text: str):
        self.rc.memory.add({"role": "user", "content": text})
        history = self.rc.memory.get(self.memory_k)
        reply = client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}, *history])
        self.rc.memory.add({"role": "assistant", "content": reply.choices[0].message.content})
'''
LATEST = (" sends only the latest items of the conversation as the history of the `openai.chat.completions` "
          "request: once the conversation is longer, the first item kept changes on every request, so the "
          "history misses the prefix cache on every call")


def test_the_latest_items_of_a_growing_memory_sent_as_the_history_are_a_window(tmp_path: Path) -> None:
    """INVALID: the memory's method cuts where its caller says (`get(k)`), so the window is reported
    at the call that chose the count, with the slice as the first step, then the frame that handed
    it on and the call it reaches; no tokens are counted (the window itself is what is lost)."""
    root = write_tree(tmp_path, LATEST_ITEMS_APP)
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    [finding] = [f for f in result.findings if f.rule == "PC009"]
    assert (finding.location.line, finding.message) == (27, "`self.rc.memory.get(self.memory_k)`" + LATEST)
    assert [(r.location.line, r.message) for r in finding.related] == [
        (14, "cut by `self.storage[-k:]`"), (27, "returned by `get()`"), (27, "assigned to `history`"),
        (28, "reaches the `openai.chat.completions` call here")]
    assert finding.bust_index is None


WINDOW_HELPERS = (
    "    def latest(self) -> list[dict]:\n"
    "        return self.storage[-50:]\n\n"
    "    def recent(self, k: int = 0) -> list[dict]:\n"
    "        return self.get(k=k)\n\n"
)


@pytest.mark.parametrize(("call", "cut"), [
    # A helper that passes its own count on: the window is where that helper's caller sets it.
    ("self.rc.memory.recent(k=self.memory_k)", "self.rc.memory.recent(k=self.memory_k)"),
    # A count fixed inside the memory: the slice is the window.
    ("self.rc.memory.latest()", "self.storage[-50:]"),
])
def test_a_window_is_reported_where_its_count_is_chosen(tmp_path: Path, call: str, cut: str) -> None:
    source = LATEST_ITEMS_APP.replace("    def get(self, k: int", WINDOW_HELPERS + "    def get(self, k: int")
    source = source.replace("self.rc.memory.get(self.memory_k)", call)
    root = write_tree(tmp_path, source)
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    [finding] = [f for f in result.findings if f.rule == "PC009"]
    assert finding.message == f"`{cut}`" + LATEST
    assert cut in (root / "app.py").read_text().splitlines()[finding.location.line - 1]


@pytest.mark.parametrize("call", ["self.rc.memory.get()", "self.rc.memory.get(0)"])
def test_a_count_of_zero_is_the_whole_list(tmp_path: Path, call: str) -> None:
    """VALID: `get()` (`k = 0` by default) or `get(0)` returns `storage[-0:]`, the whole memory: it only grows."""
    source = LATEST_ITEMS_APP.replace("self.rc.memory.get(self.memory_k)", call)
    root = write_tree(tmp_path, source)
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    assert [f.rule for f in result.findings if f.rule == "PC009"] == []


@pytest.mark.parametrize("sent", [
    "[{'role': 'system', 'content': SYSTEM}, *self.rc.memory.storage]",  # the whole history: it only grows
    "[{'role': 'system', 'content': SYSTEM}, *self.rc.memory.storage[-2:]]",  # the latest exchange only
])
def test_a_history_sent_whole_or_the_latest_exchange_or_as_text_is_not_a_window(tmp_path: Path, sent: str) -> None:
    source = LATEST_ITEMS_APP.replace("[{\"role\": \"system\", \"content\": SYSTEM}, *history]", sent)
    assert source != LATEST_ITEMS_APP
    root = write_tree(tmp_path, source)
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    assert [f.rule for f in result.findings if f.rule == "PC009"] == []


def test_a_window_rendered_into_a_message_s_text_is_still_a_window(tmp_path: Path) -> None:
    """INVALID: the latest items written into the text of a message (here after the fixed system
    text) shift on every request as a spliced list would: what follows the fixed head misses."""
    sent = "[{'role': 'system', 'content': SYSTEM + str(self.rc.memory.get(self.memory_k))}]"
    root = write_tree(tmp_path, LATEST_ITEMS_APP.replace("[{\"role\": \"system\", \"content\": SYSTEM}, *history]", sent))
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    [finding] = [f for f in result.findings if f.rule == "PC009"]
    assert finding.message == "`self.rc.memory.get(self.memory_k)`" + LATEST


def test_a_window_converted_item_by_item_and_handed_to_a_provider_class_is_still_a_window(tmp_path: Path) -> None:
    """INVALID (MetaGPT's RoleZero): the memory's latest items go through a loop that converts each
    message, then to a provider class that puts the system messages first: what is read from the
    window's items is still the window, and the memory the role keeps holds what it appended."""
    root = write_tree(tmp_path, '''
from openai import OpenAI

class Memory:
    def __init__(self):
        self.storage = []
    def add(self, message) -> None:
        self.storage.append(message)
    def get(self, k: int = 0) -> list:
        return self.storage[-k:]

def to_dicts(messages):
    processed = []
    for msg in messages:
        if isinstance(msg, dict):
            processed.append(msg)
        else:
            processed.append(msg.to_dict())
    return processed

class LLM:
    def __init__(self):
        self.client = OpenAI()
    def aask(self, msg, system_msgs):
        message = [{"role": "system", "content": m} for m in system_msgs]
        message.extend(msg)
        return self.client.chat.completions.create(model="gpt-4o", messages=message)

class Role:
    def __init__(self):
        self.memory = Memory()
        self.llm = LLM()
    def think(self, prompt: str):
        req = to_dicts(self.memory.get(200) + [{"role": "user", "content": prompt}])
        return self.llm.aask(req, ["You are a careful engineer. " * 50])
''')
    assert [(path, line) for path, line, _ in project_cuts(root)] == [("app.py", 33)]


def test_a_window_through_a_message_constructor_and_a_rewrite_of_older_items_is_still_a_window(
        tmp_path: Path) -> None:
    """INVALID (MetaGPT's RoleZero, as written): the converter makes user messages with a helper
    (`self._user_msg(msg)`: a message constructor, not a call to a model, so its loop converts
    item by item), and before it the role walks the memory newest first (`reversed`), writing a
    shorter message for the older items, then turns the list back (`reverse()`)."""
    root = write_tree(tmp_path, '''
from openai import OpenAI
from pydantic import BaseModel

class Message(BaseModel):
    role: str = "user"
    content: str
    def to_dict(self) -> dict:
        return {"role": self.role, "content": self.content}

class Memory:
    def __init__(self):
        self.storage = []
    def add(self, message: Message) -> None:
        self.storage.append(message)
    def get(self, k: int = 0) -> list:
        return self.storage[-k:]

class LLM:
    def __init__(self):
        self.client = OpenAI()
    def _user_msg(self, msg):
        return {"role": "user", "content": msg}
    def format_msg(self, messages):
        processed = []
        for msg in messages:
            if isinstance(msg, str):
                processed.append(self._user_msg(msg))
            elif isinstance(msg, Message):
                images = msg.metadata.get("images")
                processed.append(self._user_msg(msg.content) if images else msg.to_dict())
        return processed
    def aask(self, msg, system_msgs):
        message = [{"role": "system", "content": m} for m in system_msgs]
        if isinstance(msg, str):
            message.append(self._user_msg(msg))
        else:
            message.extend(msg)
        return self.client.chat.completions.create(model="gpt-4o", messages=message)

class Role:
    def __init__(self):
        self.memory = Memory()
        self.llm = LLM()
    def parse_editor_result(self, memory: list[Message], keep_latest_count=5) -> list[Message]:
        new_memory = []
        i = 0
        for msg in reversed(memory):
            if "Command Editor" in msg.content:
                i += 1
                if i > keep_latest_count:
                    msg = Message(content=msg.content[:20])
            new_memory.append(msg)
        new_memory.reverse()
        return new_memory
    def think(self, prompt: str):
        memory = self.parse_editor_result(self.memory.get(200))
        req = self.llm.format_msg(memory + [prompt])
        return self.llm.aask(req, ["You are a careful engineer. " * 50])
''')
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    windows = [f for f in result.findings if f.rule == "PC009" and "sends only the latest items" in f.message]
    assert [(f.location.line, f.message.split("`")[1]) for f in windows] == [(56, "self.memory.get(200)")]


# agno's agent: the request is assembled in a container the model call gets later (`run_messages`),
# the system message first, then the session's last runs; no LLM call in sight of either.
ASSEMBLED_ELSEWHERE = '''
from dataclasses import dataclass, field

INSTRUCTIONS = "You are a careful assistant: answer from the tools' results only. " * 30


@dataclass
class Message:
    role: str
    content: str


@dataclass
class RunMessages:
    messages: list = field(default_factory=list)


class Session:
    def __init__(self, messages: list):
        self.messages = messages  # read from the session store

    def get_messages(self, last_n=None) -> list:
        messages = self.messages
        if last_n is not None:
            messages = messages[-last_n:]
        return messages


def get_run_messages(agent, session: Session, user_text: str) -> RunMessages:
    run_messages = RunMessages()
    run_messages.messages.append(Message(role="system", content=INSTRUCTIONS))
    history = session.get_messages(last_n=agent.history_size)
    run_messages.messages += [message for message in history]
    run_messages.messages.append(Message(role="user", content=user_text))
    return run_messages
'''


def test_a_window_added_to_a_list_that_opens_with_a_system_message_is_reported(tmp_path: Path) -> None:
    """INVALID, found on bench/wild (agno): the session's last `history_size` messages are added
    after the system message of the list the model call gets later: that list is the request, so
    the window is reported where its count is chosen, with no LLM call in sight."""
    root = write_tree(tmp_path, ASSEMBLED_ELSEWHERE)
    [finding] = [f for f in analyze([root], Config(root=root, cache_dir=None), cwd=root).findings if f.rule == "PC009"]
    assert finding.location.line == 31
    assert finding.message.startswith("`session.get_messages(last_n=agent.history_size)` sends only the "
                                      "latest items of the conversation as the history of the `message list "
                                      "(run_messages.messages with a window of its history added)` request")


def test_a_whole_history_added_after_a_system_message_is_not_a_window(tmp_path: Path) -> None:
    """VALID: the same assembly with every run of the session: the history only grows."""
    source = ASSEMBLED_ELSEWHERE.replace("session.get_messages(last_n=agent.history_size)",
                                         "session.get_messages()")
    root = write_tree(tmp_path, source)
    assert [f for f in analyze([root], Config(root=root, cache_dir=None), cwd=root).findings if f.rule == "PC009"] == []


def test_messages_copied_out_of_a_window_of_runs_are_still_the_window(tmp_path: Path) -> None:
    """INVALID, agno's own shape: the last `n` runs of the session, each run's messages copied out one
    by one into a new list; that list carries the window up to the call that chose `n`."""
    source = ASSEMBLED_ELSEWHERE.replace('''        messages = self.messages
        if last_n is not None:
            messages = messages[-last_n:]
        return messages''', '''        runs = self.messages  # the session's runs, each with its messages
        if last_n is not None:
            runs = runs[-last_n:]
        messages = []
        for run in runs:
            for message in run.messages:
                messages.append(message)
        return messages''')
    assert source != ASSEMBLED_ELSEWHERE
    root = write_tree(tmp_path, source)
    [finding] = [f for f in analyze([root], Config(root=root, cache_dir=None), cwd=root).findings if f.rule == "PC009"]
    assert finding.message.startswith("`session.get_messages(last_n=agent.history_size)` sends only the latest")
    assert [r.message for r in finding.related][0] == "cut by `runs[-last_n:]`"


# bilingual_book_maker's translators: the last paragraphs and their translations kept on the object,
# the oldest dropped by another method once over the limit, sent ahead of the new paragraph.
RECENT_PARAGRAPHS = '''
from anthropic import Anthropic

TEMPLATE = "Translate into {language}, keep the formatting, answer with the translation only:\\n{text}"


class Translator:
    def __init__(self, language: str, limit: int = 5):
        self.client = Anthropic()
        self.language = language
        self.limit = limit
        self.recent = []
        self.recent_translated = []

    def remember(self, text: str, translated: str) -> None:
        self.recent.append(text)
        self.recent_translated.append(translated)
        if len(self.recent) > self.limit:
            self.recent.pop(0)
            self.recent_translated.pop(0)

    def translate(self, text: str) -> str:
        messages = [
            {"role": "user", "content": TEMPLATE.format(text="\\n\\n".join(self.recent), language=self.language)},
            {"role": "assistant", "content": "\\n\\n".join(self.recent_translated)},
            {"role": "user", "content": TEMPLATE.format(text=text, language=self.language)},
        ]
        reply = self.client.messages.create(model="claude-sonnet-4-5", max_tokens=2048, messages=messages)
        translated = reply.content[0].text
        self.remember(text, translated)
        return translated
'''


@pytest.mark.parametrize("cut", [
    "self.recent.pop(0)",
    "oldest = self.recent.pop(0)",
    "del self.recent[0]",
    "del self.recent[:1]",
    "self.recent = self.recent[1:]",
    "self.recent = self.recent[-self.limit:]",
])
def test_a_list_the_object_cuts_from_the_front_past_a_limit_is_a_window_whatever_its_name(
        tmp_path: Path, cut: str) -> None:
    """INVALID: a list one method grows and cuts from the front once it is longer than a limit, and
    another joins into a message of the request: the oldest paragraph kept changes on every call, so
    everything from that message on misses the cache. Reported at the cut, named by the list."""
    source = RECENT_PARAGRAPHS.replace("self.recent.pop(0)", cut)
    root = write_tree(tmp_path, source)
    [finding] = [f for f in project_cuts(root) if "self.recent`" in f[2]]
    assert finding[:2] == ("app.py", source.lstrip("\n").splitlines().index(f"            {cut}") + 1)
    assert finding[2] == "`self.recent` sends only the latest items of the conversation as the history of the " \
                         "`anthropic.messages` request: once the conversation is longer, the first item kept " \
                         "changes on every request, so the history misses the prefix cache on every call"


@pytest.mark.parametrize(("before", "after"), [
    # No limit: a queue drained while it holds anything, or emptied whole (a block cut).
    ("if len(self.recent) > self.limit:", "while len(self.recent) > 0:"),
    ("if len(self.recent) > self.limit:", "if self.recent:"),
    ("            self.recent.pop(0)\n", "            self.recent.clear()\n"),
    # The newest item dropped, not the oldest: the kept items never shift.
    ("            self.recent.pop(0)\n", "            self.recent.pop()\n"),
    # Cut from the front but never sent: the request holds only the new paragraph.
    ('            {"role": "user", "content": TEMPLATE.format(text="\\n\\n".join(self.recent), '
     'language=self.language)},\n', ""),
])
def test_a_list_emptied_drained_cut_at_its_end_or_never_sent_is_not_a_window(
        tmp_path: Path, before: str, after: str) -> None:
    """VALID: each variant of the translator above that keeps the prefix of the requests it sends."""
    source = RECENT_PARAGRAPHS.replace(before, after)
    assert source != RECENT_PARAGRAPHS
    root = write_tree(tmp_path, source)
    assert [f for f in project_cuts(root) if "self.recent`" in f[2]] == []


# kotaemon's answer pipeline: the last `n` (question, answer) pairs written out as messages, sent
# through a model field typed as the project's base class, whose `stream` is a stub; the OpenAI
# subclass converts the list and hands it to `create(**params)` through a `**kwargs` helper.
TYPED_MODEL_LLMS = '''
from openai import OpenAI


class BaseLLM:
    def stream(self, *args, **kwargs):
        raise NotImplementedError


class ChatLLM(BaseLLM):
    pass


class BaseChatOpenAI(ChatLLM):
    model: str = "gpt-4o"

    def prepare_message(self, messages):
        return [{"role": m.role, "content": m.content} for m in messages]

    def prepare_params(self, **kwargs):
        params = {"model": self.model, "temperature": 0}
        params.update(kwargs)
        return params

    def openai_response(self, client, **kwargs):
        params = self.prepare_params(**kwargs)
        return client.chat.completions.create(**params)

    def stream(self, messages, *args, **kwargs):
        client = OpenAI()
        input_messages = self.prepare_message(messages)
        return self.openai_response(client, messages=input_messages, stream=True, **kwargs)
'''
TYPED_MODEL_PIPELINES = '''
from theflow import Node

from llms import ChatLLM
from registry import default_llm

SYSTEM = "You answer questions about the user's files; cite each file you use as [n]. " * 40


class Message:
    def __init__(self, role: str, content: str) -> None:
        self.role = role
        self.content = content


class AnswerPipeline:
    llm: ChatLLM = Node(default_callback=lambda _: default_llm())
    n_last_interactions: int = 5

    def stream(self, question: str, history: list):
        messages = [Message("system", SYSTEM)]
        for human, ai in history[-self.n_last_interactions:]:
            messages.append(Message("user", human))
            messages.append(Message("assistant", ai))
        messages.append(Message("user", question))
        for out in self.llm.stream(messages):
            yield out


class IndexPipeline:
    def stream(self, files: list, reindex: bool = False):
        yield from files


class ReportPipeline:
    def stream(self, rows: list):
        yield from rows


class UploadPipeline:
    def stream(self, urls: list, **kwargs):
        yield from urls
'''


def test_a_window_sent_through_a_model_field_typed_as_a_stub_base_class_is_reported(tmp_path: Path) -> None:
    """INVALID (kotaemon): `llm: ChatLLM = Node(...)` is a `ChatLLM` whatever the library's field
    factory returns; its `stream` is a stub, so the call takes the slots of the subclasses'
    overrides (one `stream` of five in the project is a model's: by name alone the call is no
    wrapper), and the OpenAI override hands the converted list on as `messages=`. The loop writing
    out the last `n` pairs makes that list a window."""
    root = write_tree(tmp_path, {"llms.py": TYPED_MODEL_LLMS, "pipelines.py": TYPED_MODEL_PIPELINES})
    [finding] = project_cuts(root)
    assert finding[:2] == ("pipelines.py", 21)
    assert finding[2].startswith("`history[-self.n_last_interactions:]` sends only the latest items of the "
                                 "conversation as the history of the `message list (messages passed to stream())`")


@pytest.mark.parametrize(("before", "after"), [
    # Every pair of the history, which only grows.
    ("history[-self.n_last_interactions:]", "history"),
    # No system message ahead of the latest pairs: a batch the model object may append to a history
    # it keeps (autogen's message filter), or a one-off request sharing no prefix (MetaGPT's `_end`).
    ('messages = [Message("system", SYSTEM)]', "messages = []"),
])
def test_the_whole_history_or_a_list_without_its_system_message_is_no_window(
        tmp_path: Path, before: str, after: str) -> None:
    """VALID twins of the typed model's window above."""
    pipelines = TYPED_MODEL_PIPELINES.replace(before, after)
    assert pipelines != TYPED_MODEL_PIPELINES
    root = write_tree(tmp_path, {"llms.py": TYPED_MODEL_LLMS, "pipelines.py": pipelines})
    assert project_cuts(root) == []
