"""PC011 history-after-request: the conversation so far, rendered as text, written after the
request's own content in the final user message (crewAI's answer-from-history check and router in
bench/wild put "Current user message: ..." ahead of the formatted history)."""

from __future__ import annotations

from pathlib import Path

from promptlint.config import Config
from promptlint.engine import analyze
from tests.conftest import write_tree

RULES = "Decide whether the earlier messages already answer the new one; reply yes or no. " * 120


def findings(tmp_path: Path, source: str) -> list[tuple[int, str, str, str]]:
    root = write_tree(tmp_path, {"app.py": source})
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert not result.errors, result.errors
    return [(f.location.line, f.rule, f.severity.value, f.message) for f in result.findings]


KEPT_CONVERSATION = '''
from openai import OpenAI
client = OpenAI()

class Conversation:
    def __init__(self) -> None:
        self.messages: list[dict] = []

    def _format(self, messages: list[dict]) -> str:
        lines = [f"{message['role']}: {message['content']}" for message in messages]
        return "\\n".join(lines)

    def can_answer(self, current_user_message: str) -> bool:
        feedback = (ORDER)
        reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": feedback}])
        self.messages.append({"role": "user", "content": current_user_message})
        self.messages.append({"role": "assistant", "content": reply.choices[0].message.content})
        return reply.choices[0].message.content == "yes"
'''
QUESTION_FIRST = ('f"Current user message: {current_user_message}\\n\\n"\n'
                  '                    f"Message history:\\n{self._format(self.messages)}"')
HISTORY_FIRST = ('f"Message history:\\n{self._format(self.messages)}\\n\\n"\n'
                 '                    f"Current user message: {current_user_message}"')


def test_the_current_message_before_the_objects_own_conversation(tmp_path: Path) -> None:
    """INVALID: the list the object's methods append to, rendered by a helper method after the
    new message: reported where the new message is written, the rendering as a step, the
    estimate a lower bound (the transcript's length is not known)."""
    root = write_tree(tmp_path, {"app.py": KEPT_CONVERSATION.replace("ORDER", QUESTION_FIRST)})
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert [(f.location.line, f.rule, f.severity.value) for f in result.findings] == [(13, "PC011", "warning")]
    finding = result.findings[0]
    assert finding.message.startswith("the final user message is filled per call from `current_user_message` on, and the "
                                      "conversation so far, rendered as text")
    assert (9, "the conversation is rendered here") in [(r.location.line, r.message) for r in finding.related]
    assert finding.estimate is not None and finding.estimate.unknown_length


def test_the_conversation_first_and_the_new_message_last_is_fine(tmp_path: Path) -> None:
    """VALID: the same check with the transcript first: each turn's prompt starts with the last's."""
    assert findings(tmp_path, KEPT_CONVERSATION.replace("ORDER", HISTORY_FIRST)) == []


def test_a_parameter_named_like_the_conversation(tmp_path: Path) -> None:
    """INVALID: `chat_history` (rules/prompt_sinks.yaml conversation_inputs) rendered after the
    question; VALID twin: its last message only is quoted, which is not the conversation."""
    source = '''
from openai import OpenAI
client = OpenAI()

def rewrite(question: str, chat_history: list[dict]) -> str:
    transcript = "\\n".join(f"{m['role']}: {m['content']}" for m in chat_history)
    prompt = f"Rewrite the question so it stands alone.\\nQuestion: {question}\\nConversation:\\n{transcript}"
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": "You rewrite questions."}, {"role": "user", "content": prompt}])
'''
    assert [(line, rule, severity) for line, rule, severity, _ in findings(tmp_path, source)] == [
        (6, "PC011", "warning")]
    last_only = source.replace('"\\n".join(f"{m[\'role\']}: {m[\'content\']}" for m in chat_history)',
                               "chat_history[-1]['content']")
    assert last_only != source
    assert findings(tmp_path / "last", last_only) == []


def test_after_a_history_sent_as_messages_nothing_is_shared_anyway(tmp_path: Path) -> None:
    """VALID: the request already follows a history sent as messages; the newest message sits at
    a new place on every call, whatever it holds (PC010's reasoning)."""
    source = '''
from openai import OpenAI
client = OpenAI()

def reply(question: str, history: list[dict]) -> str:
    transcript = "\\n".join(m["content"] for m in history)
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": "You are the support assistant."}, *history,
        {"role": "user", "content": f"{question}\\n\\nSo far:\\n{transcript}"}])
'''
    assert findings(tmp_path, source) == []


def test_a_setting_before_the_transcript_is_not_the_request(tmp_path: Path) -> None:
    """VALID: the value before the transcript is named like a deployment setting (`language`), the
    same on every call; the transcript after it is still a shared prefix."""
    source = '''
from openai import OpenAI
client = OpenAI()

def summarise(language: str, history: list[dict]) -> str:
    transcript = "\\n".join(m["content"] for m in history)
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "user", "content": f"Answer in {language}.\\n{transcript}\\nSummarise the conversation."}])
'''
    assert [rule for _, rule, _, _ in findings(tmp_path, source)] == []


def test_fixed_rules_after_the_transcript_stay_pc010(tmp_path: Path) -> None:
    """The transcript opens the message and long rules follow it: PC010's finding (the rules are
    re-sent after text that grows), not this rule's."""
    source = f'''
from openai import OpenAI
client = OpenAI()
RULES = {RULES!r}

def judge(history: list[dict]) -> str:
    transcript = "\\n".join(m["content"] for m in history)
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "user", "content": f"{{transcript}}\\n\\n{{RULES}}"}}])
'''
    assert [(rule, severity) for _, rule, severity, _ in findings(tmp_path, source)] == [("PC010", "warning")]


def test_a_kept_list_that_is_not_a_conversation(tmp_path: Path) -> None:
    """VALID (openai/swarm's triage): the object appends agents to a list it keeps and lists them
    after the message to route; a list of agents grows too, but it is not the conversation."""
    source = '''
from openai import OpenAI
client = OpenAI()

class Router:
    def __init__(self) -> None:
        self.assistants: list = []

    def register(self, assistant) -> None:
        self.assistants.append(assistant)

    def route(self, user_message: str) -> str:
        names = [(a.name, a.tools) for a in self.assistants]
        prompt = f"Given the message {user_message}, pick one of: {names}"
        return client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": prompt}])
'''
    assert findings(tmp_path, source) == []
    # The same list kept under a conversation's name is one: the check is not blind to the shape.
    renamed = source.replace("self.assistants", "self.chat_history")
    assert [rule for _, rule, _, _ in findings(tmp_path / "renamed", renamed)] == ["PC011"]
