"""Retrieved messages spliced into a conversation after its first message (camel's long-term
memory: ``chat_history[:1] + retrieved + chat_history[1:]``; RAG code's
``messages = list(history); messages.insert(1, notes)``): every turn retrieves anew, and the whole
history after the splice misses the cache. The VALID forms keep the history whole and put the
retrieved text after it."""
from __future__ import annotations

from pathlib import Path

from promptlint.config import Config
from promptlint.engine import analyze
from tests.conftest import request_findings, write_tree

SLICES = '''
from openai import OpenAI

client = OpenAI()


class Memory:
    def __init__(self, store, history_block):
        self.store = store
        self.history_block = history_block
        self._topic = ""

    def write(self, text: str) -> None:
        self._topic = text

    def retrieve(self) -> list:
        chat_history = self.history_block.retrieve()
        hits = self.store.similarity_search(self._topic, k=3)
        return SPLICED


def step(memory: Memory, question: str):
    memory.write(question)
    messages = memory.retrieve() + [{"role": "user", "content": question}]
    return client.chat.completions.create(model="gpt-4o", messages=messages)
'''

INSERTED = '''
from openai import OpenAI

client = OpenAI()


def answer(history: list, retriever, question: str):
    docs = retriever.invoke(question)
    notes = {"role": "system", "content": "Notes:\\n" + "\\n".join(d.page_content for d in docs)}
    messages = list(history)
    messages.insert(WHERE, notes)
    messages.append({"role": "user", "content": question})
    return client.chat.completions.create(model="gpt-4o", messages=messages)
'''


def _findings(tmp_path: Path, name: str, program: str) -> list[tuple[int, str, str, str]]:
    return request_findings(write_tree(tmp_path / name, program))


def test_retrieved_list_between_slices_of_the_history_is_an_error(tmp_path: Path) -> None:
    spliced = _findings(tmp_path, "spliced", SLICES.replace("SPLICED", "chat_history[:1] + hits + chat_history[1:]"))
    assert [(line, rule, severity) for line, rule, severity, _ in spliced] == [(18, "PC001", "error")]
    after = _findings(tmp_path, "after", SLICES.replace("SPLICED", "chat_history[:1] + chat_history[1:] + hits"))
    assert after == []


TEXT_SLICE = '''
from openai import OpenAI

client = OpenAI()
RULES = "Answer from the notes only. " * 40


def answer(retriever, history: list, question: str, load_extra):
    context = retriever.invoke(question)
    extra = load_extra()
    system = RULES + "\\n" + (context[:2000] + extra)
    messages = [{"role": "system", "content": system}, *history, {"role": "user", "content": question}]
    return client.chat.completions.create(model="gpt-4o", messages=messages)
'''


def test_a_slice_of_text_added_to_a_lookup_stays_text(tmp_path: Path) -> None:
    """`context[:2000]` is text far more often than a list of messages: added to another unknown
    value it stays one piece of text, which ends the system prompt ahead of the history."""
    root = write_tree(tmp_path, TEXT_SLICE)
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert [(f.location.line, f.severity.value, f.message.split(" in the ")[0]) for f in result.findings] == [
        (10, "error", "per-request retrieval `retriever.invoke(question)` comes before the conversation history "
                      "(conversation history)")]


def test_a_message_inserted_at_one_lands_inside_a_copied_history(tmp_path: Path) -> None:
    inside = _findings(tmp_path, "inside", INSERTED.replace("WHERE", "1"))
    assert [(line, rule, severity) for line, rule, severity, _ in inside] == [(8, "PC001", "error")]
    # At the end of the copy (after the whole history) the notes precede only the new user turn.
    at_end = _findings(tmp_path, "at_end", INSERTED.replace("WHERE", "len(messages)"))
    assert [severity for _, _, severity, _ in at_end if severity != "info"] == []
