"""Parameter summaries, inferred wrappers, assembly points and request-derived content.

Small realistic programs in the shapes real applications use (bench/wild): a provider chosen at
runtime from a registry, several project frames, a model function handed in as a parameter, a
`partial` over a method fetched with `getattr`, a builder with no LLM call in sight.
"""

from __future__ import annotations

import ast
import json
from dataclasses import replace
from pathlib import Path

import pytest

from promptlint.analysis.derived import derived_names, input_names, mark_request_derived
from promptlint.analysis.index import subclass_index
from promptlint.analysis.project import Project
from promptlint.analysis.reach import UNTRACEABLE
from promptlint.analysis.summaries import (
    HEAD,
    SYSTEM,
    first_call_test,
    infer_wrappers,
    parameter_flows,
    reached_calls,
    sink_shapes,
    system_wrappers,
)
from promptlint.config import Config, load_config
from promptlint.engine import analyze
from promptlint.facts import file_facts
from promptlint.knowledge import load_knowledge
from promptlint.model import SENDS, CallSite, Finding, Hole, Literal, Location, Part, PromptLayout, Severity, Step, Volatility
from tests.conftest import run_cli, write_tree

SHAPES = sink_shapes(load_knowledge(Config()))


def flows_of(source: str, method: bool = False) -> tuple:
    node = ast.parse(source).body[0]
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    return parameter_flows(node, method, SHAPES)


def findings(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str, str]]:
    root = write_tree(tmp_path, files)
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert not result.errors, result.errors
    return [(f.location.path, f.location.line, f.severity.value, f.message) for f in result.findings]


def only_finding(found: list[tuple[str, int, str, str]], path: str, line: int, severity: str) -> str:
    """The message of the one finding expected, after checking its place and severity."""
    assert [(p, n, s) for p, n, s, _ in found] == [(path, line, severity)]
    return found[0][3]


def test_a_parameter_in_a_system_dict_flows_to_system_content_through_locals() -> None:
    flows = flows_of('''
def chat(self, system, history, conf):
    prompt = system.strip() + "\\n"
    if prompt:
        history.insert(0, {"role": "system", "content": prompt})
    return self.client.chat.completions.create(model="m", messages=history)
''', method=True)
    assert (0, "system", SYSTEM) in flows
    # Put in front of the list the caller hands over, which may be one user message: not a head.
    assert (0, "system", HEAD) not in flows
    assert not any(param == "conf" and target == SYSTEM for _, param, target in flows)


def test_a_value_looked_up_by_a_parameter_is_not_the_parameter() -> None:
    # `load(conversation_id)` returns a new value: the id itself never reaches the system text.
    flows = flows_of('''
def step(conversation_id, workspace):
    log = LogManager.load(conversation_id)
    return {"role": "system", "content": log.render(workspace)}
''')
    assert (1, "workspace", SYSTEM) in flows
    assert not any(param == "conversation_id" and target == SYSTEM for _, param, target in flows)


def test_wrappers_are_inferred_at_any_depth_and_through_partial_and_getattr() -> None:
    definitions = [
        ("chat", flows_of('def chat(self, system, history):\n    history.insert(0, {"role": "system", "content": system})', True)),
        ("stream", flows_of('''
def stream(self, system, history, **kwargs):
    fn = getattr(self.mdl, "chat", None)
    call = partial(fn, system, history)
    return call(**kwargs)
''', True)),
        ("delta", flows_of("def delta(self, sys_text, msgs):\n    return self.bundle.stream(sys_text, msgs)", True)),
        ("answer", flows_of("def answer(self, text, msgs):\n    return self.bundle.delta(text, msgs)", True)),
        ("unrelated", flows_of("def unrelated(self, text):\n    return self.other(text)", True)),
    ]
    wrappers = infer_wrappers([(name, flows, True) for name, flows in definitions], UNTRACEABLE)
    assert {"s#0", "s=system"} <= wrappers["chat"]
    assert "s#0" in wrappers["stream"] and "s#0" in wrappers["delta"] and "s#0" in wrappers["answer"]
    assert "unrelated" not in wrappers


def test_a_parameter_stored_on_the_object_and_read_back_reaches_the_system_message() -> None:
    """Agent-S's `add_system_prompt`: the parameter is kept as `self.system_prompt` and the system
    message is built from the attribute, in the same method."""
    stored = flows_of('''
def add_system_prompt(self, system_prompt):
    self.system_prompt = system_prompt
    self.messages[0] = {"role": "system", "content": [{"type": "text", "text": self.system_prompt}]}
''', True)
    assert (0, "system_prompt", "system") in stored
    other = flows_of('''
def remember(self, system_prompt):
    self.system_prompt = system_prompt
    self.messages[0] = {"role": "system", "content": self.fixed_prompt}
''', True)
    assert not any(target == "system" for _, _, target in other)


def test_keyword_slots_pass_through_a_function_that_forwards_its_kwargs() -> None:
    # sweep: `continuous_llm_calls(chat_gpt, content=..., model=...)` hands its keywords on.
    definitions = [
        ("chat_anthropic", flows_of('''
def chat_anthropic(self, content, model="claude"):
    self.messages.append({"role": "user", "content": content})
    return self.client.messages.create(model=model, messages=self.messages)
''', True)),
        ("continuous_llm_calls", flows_of('''
def continuous_llm_calls(chat_gpt, *args, stop_sequences=("</plan>",), **kwargs):
    return chat_gpt.chat_anthropic(*args, **kwargs)
''')),
        ("keeps_its_own", flows_of('''
def keeps_its_own(chat_gpt, **options):
    return chat_gpt.chat_anthropic(content="fixed", **{"model": "m"})
''')),
    ]
    wrappers = infer_wrappers([(name, flows, True) for name, flows in definitions], UNTRACEABLE)
    # By keyword only (positions shift); the model it hands on too.
    assert wrappers["continuous_llm_calls"] == {"u=content", "n=model"}
    assert "keeps_its_own" not in wrappers  # its `**options` go nowhere


def test_keyword_arguments_read_by_name_from_kwargs_are_slots_of_their_own() -> None:
    # chatgpt-on-wechat's providers: `call_with_tools(messages, **kwargs)` takes the system prompt
    # as `kwargs.get("system")`; `.pop`, `kwargs["..."]` the same. A key read only to pass on
    # (`timeout`) makes no slot, and neither does a dict that is not the function's `**kwargs`.
    flows = flows_of('''
def call_with_tools(self, messages, tools=None, **kwargs):
    system = kwargs.get("system")
    extra = kwargs["notes"]
    options = {"user": "fixed"}
    if system:
        messages = [{"role": "system", "content": f"{system}\\n{extra}"}] + messages
    return self.client.chat.completions.create(model="m", messages=messages, timeout=kwargs.pop("timeout", 5),
                                               user=options["user"])
''', True)
    wrappers = infer_wrappers([("call_with_tools", flows, True)], UNTRACEABLE)
    assert {"s=system", "s=notes"} <= wrappers["call_with_tools"]
    assert not any(slot.endswith(("=timeout", "=user", "=kwargs")) for slot in wrappers["call_with_tools"])


KWARGS_PROVIDER_APP = {"app.py": '''
import datetime

from openai import OpenAI

RULES = "Answer in full sentences, cite the file you read, and never guess a path. " * 60


class Provider:
    def __init__(self) -> None:
        self.client = OpenAI()

    def chat(self, messages: list, **kwargs) -> str:
        system = kwargs.pop("system", None)
        if system:
            messages = [{"role": "system", "content": system}] + messages
        return self.client.chat.completions.create(model="gpt-4o", messages=messages, **kwargs)


def answer(provider: Provider, history: list, question: str) -> str:
    now = datetime.datetime.now().isoformat()
    return provider.chat(history + [{"role": "user", "content": QUESTION}], system=SYSTEM)
'''}


@pytest.mark.parametrize(("system", "question", "reported"), [
    ('f"Time: {now}\\n{RULES}"', "question", True), ("RULES", 'f"Time: {now}\\n{question}"', False)])
def test_a_system_prompt_handed_to_a_provider_through_its_kwargs_is_judged(
        tmp_path: Path, system: str, question: str, reported: bool) -> None:
    """INVALID: the clock opens the system prompt a provider method takes from `**kwargs`
    (`kwargs.pop("system")`) and sends ahead of the history: PC001 where the caller hands it
    over. VALID twin: the clock in the user's turn, after the history."""
    assert_clock_judged(tmp_path, KWARGS_PROVIDER_APP["app.py"], system, question, 21 if reported else None)


def assert_clock_judged(tmp_path: Path, source: str, system: str, question: str, line: int | None) -> None:
    """The app with SYSTEM and QUESTION filled in: one PC001 error for a per-request clock on
    ``line``, or (None) no finding at all."""
    found = findings(tmp_path, {"app.py": source.replace("SYSTEM", system).replace("QUESTION", question)})
    if line is not None:
        assert "per-request clock" in only_finding(found, "app.py", line, "error")
    else:
        assert found == []


def test_an_attribute_read_of_a_parameter_is_a_slot_of_its_own() -> None:
    """`request.system` / `getattr(request, "system", None)` handed on in a dict built here and
    passed as `**kwargs` to a method reading `kwargs.get("system")`: slot `s#0.system`, the
    object's attribute (`request.messages` makes `m#0.messages`). The whole object's slots stay in
    the table, so that a caller handing the object on is a wrapper too; a call is judged for the
    attributes (the request-object test below)."""
    bot = flows_of('''
def call_with_tools(self, messages, **kwargs):
    system = kwargs.get("system")
    return self.client.chat.completions.create(model="m", messages=[{"role": "system", "content": system}] + messages)
''', True)
    model = flows_of('''
def call_stream(self, request):
    kwargs = {"messages": request.messages, "stream": True}
    system_prompt = getattr(request, "system", None)
    if system_prompt:
        kwargs["system"] = system_prompt
    return self.bot.call_with_tools(**kwargs)
''', True)
    wrappers = infer_wrappers([("call_with_tools", bot, True), ("call_stream", model, True)], UNTRACEABLE)
    assert {"s#0.system", "m#0.messages", "s#0"} <= wrappers["call_stream"]
    handing_on = flows_of("def reply(self, request):\n    return self.model.call_stream(request)", True)
    wrappers = infer_wrappers([("call_with_tools", bot, True), ("call_stream", model, True),
                               ("reply", handing_on, True)], UNTRACEABLE)
    assert "s#0" in wrappers["reply"]


REQUEST_OBJECT_APP = {"app.py": '''
import datetime

from openai import OpenAI

RULES = "Answer in full sentences, cite the file you read, and never guess a path. " * 60


class LLMRequest:
    def __init__(self, messages=None, temperature: float = 0.7, **kwargs):
        self.messages = messages or []
        self.temperature = temperature
        for key, value in kwargs.items():
            setattr(self, key, value)


class OpenAIBot:
    def __init__(self) -> None:
        self.client = OpenAI()

    def call_with_tools(self, messages: list, **kwargs):
        system = kwargs.get("system")
        if system:
            messages = [{"role": "system", "content": system}] + messages
        return self.client.chat.completions.create(model="gpt-4o", messages=messages)


class BotModel:
    def __init__(self, bot) -> None:
        self.bot = bot

    def call_stream(self, request: LLMRequest):
        kwargs = {"messages": request.messages, "temperature": request.temperature}
        system_prompt = getattr(request, "system", None)
        if system_prompt:
            kwargs["system"] = system_prompt
        return self.bot.call_with_tools(**kwargs)


class Agent:
    def __init__(self, model) -> None:
        self.model = model
        self.messages = []

    def reply(self, question: str):
        now = datetime.datetime.now().isoformat()
        self.messages.append({"role": "user", "content": QUESTION})
        request = LLMRequest(messages=self.messages, system=SYSTEM)
        return self.model.call_stream(request)
'''}


@pytest.mark.parametrize(("system", "question", "reported"), [
    ('f"Time: {now}\\n{RULES}"', "question", True), ("RULES", 'f"Time: {now}\\n{question}"', False)])
def test_a_system_prompt_carried_by_a_request_object_is_judged_where_it_is_built(
        tmp_path: Path, system: str, question: str, reported: bool) -> None:
    """INVALID (chatgpt-on-wechat's shape): the agent puts its system prompt on a request object
    (a constructor storing any keyword with `setattr`), a model adapter reads it with `getattr`
    into a kwargs dict, a bot takes it from `**kwargs` and sends it ahead of the conversation: the
    clock opening it is judged where the request is built, before the history it is sent with.
    VALID twin: the clock in the user's turn, at the end."""
    assert_clock_judged(tmp_path, REQUEST_OBJECT_APP["app.py"], system, question, 47 if reported else None)


def test_only_names_with_a_system_slot_are_wrappers_but_user_slots_are_kept() -> None:
    """``system_wrappers`` keeps the wrappers proper; user-only names say where a user turn is built."""
    send = flows_of('''
def send(prompt, system_prompt=None):
    messages = [{"role": "system", "content": system_prompt}] if system_prompt else []
    messages.append({"role": "user", "content": prompt})
    return client.chat.completions.create(model="m", messages=messages)
''')
    ask = flows_of('def ask(prompt):\n    return [{"role": "user", "content": prompt}]')
    wrappers = infer_wrappers([("send", send, True), ("ask", ask, True)], UNTRACEABLE)
    assert {"s#1", "s=system_prompt", "u#0", "u=prompt"} <= wrappers["send"]
    assert wrappers["ask"] == {"u#0", "u=prompt"}
    assert set(system_wrappers(wrappers)) == {"send"}


def test_a_name_needs_the_agreement_of_its_definitions_and_tests_do_not_vote() -> None:
    wrapper = flows_of('def create(self, system):\n    return {"role": "system", "content": system}', True)
    crud = flows_of("def create(self, row):\n    return self.session.add(row)", True)
    many = [("create", wrapper, True)] + [("create", crud, True)] * 4
    assert "create" not in infer_wrappers(many, UNTRACEABLE)
    assert "create" in infer_wrappers(many[:4], UNTRACEABLE)
    assert "create" in infer_wrappers([("create", wrapper, True)] + [("create", crud, False)] * 9, UNTRACEABLE)


def test_agreement_reached_late_through_a_chain_is_found() -> None:
    """Two of eight `send` definitions reach the system message (one in four: enough), the second
    only through `relay` -> `post`, found after `send` was first read: the fixed point must read
    `send`'s definitions again when a name they call gains a slot, whatever the order."""
    direct = flows_of('def send(self, system):\n    return {"role": "system", "content": system}', True)
    relayed = flows_of("def send(self, text):\n    return self.link.relay(text)", True)
    crud = flows_of("def send(self, row):\n    return self.session.add(row)", True)
    relay = flows_of("def relay(self, text):\n    return self.http.post(text)", True)
    post = flows_of('def post(self, body):\n    return {"role": "system", "content": body}', True)
    definitions = [("send", direct, True), ("send", relayed, True)] + [("send", crud, True)] * 6 + \
        [("relay", relay, True), ("post", post, True)]
    for order in (definitions, definitions[::-1]):
        wrappers = infer_wrappers(order, UNTRACEABLE)
        assert "s#0" in wrappers["send"] and "s#0" in wrappers["relay"]
    without_chain = [d for d in definitions if d[0] != "post"]
    assert "send" not in infer_wrappers(without_chain, UNTRACEABLE)  # one in eight: no agreement


def test_request_derived_names_follow_lookups_but_not_globals_or_constants() -> None:
    function = ast.parse('''
def answer(question, retriever):
    hits = retriever.search(question)
    context = "\\n".join(h.text for h in hits)
    handbook = retriever.search("handbook")
    stamp = json.dumps(handbook)
    return context, stamp
''').body[0]
    derived = derived_names(function, input_names(["f'Q: {question}'", "json.dumps(question)"]))
    assert {"question", "hits", "context"} <= derived
    assert not derived & {"handbook", "stamp", "json"}


def test_a_count_in_the_user_turn_is_a_size_not_the_requests_content() -> None:
    # Agent-S: "Please evaluate the {num_trajectories} trajectories" repeats a count the system
    # prompt also holds; the number is the same few values on every request.
    function = ast.parse('''
def judge(task_description, result_dirs):
    num_trajectories = len(result_dirs)
    summary = describe(result_dirs)
    return num_trajectories, summary
''').body[0]
    derived = derived_names(function, input_names(["f'Evaluate the {num_trajectories} runs of {summary}'"]))
    assert "num_trajectories" not in derived and "summary" in derived


def test_the_conversation_counts_whole_not_by_its_first_or_last_message_or_size() -> None:
    function = ast.parse('''
def step(history, rules):
    transcript = "\\n".join(f"{m['role']}: {m['content']}" for m in history)
    system = history[0]["content"]
    latest = history[-1]["content"]
    turns = f"{len(history)} turns"
    recent = history[-6:]
    title = history.title
    table = history.build_context(max_turns=5)
    first = history.get("system")
    for m in history:
        if m["role"] == "system":
            picked = m["content"]
    return transcript, system, latest, turns, recent, title, table, first, picked
''').body[0]
    # A method of the conversation reads all of it; one that picks an item (`get`, `pop`) does not.
    assert derived_names(function, {"history"}, whole=True) == {"history", "transcript", "recent", "table"}
    # Read as the request's input (not whole), every use counts.
    assert {"system", "latest", "turns", "title", "first", "picked"} <= derived_names(function, {"history"})


CONVERSATION_APP = {"agent.py": f'''
from openai import OpenAI

client = OpenAI()
TOOLS_AND_RULES = "Use the tools below. Think step by step and answer in JSON. " * 80


def next_action(history: list[dict]) -> str:
    transcript = "\\n".join(f"{{m['role']}}: {{m['content']}}" for m in history)
    prompt = f"Conversation so far:\\n{{transcript}}\\n\\n{{TOOLS_AND_RULES}}"
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": prompt}}, {{"role": "user", "content": "Next action?"}}])


def summarize(chat_history: list[dict]) -> str:
    text = "\\n".join(m["content"] for m in chat_history)
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": TOOLS_AND_RULES}}, {{"role": "user", "content": "Summarize:\\n" + text}}])


def with_system(history: list[dict], question: str) -> str:
    system = history[0]["content"]
    note = f"The conversation has {{len(history)}} turns."
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": system + TOOLS_AND_RULES + note}}, *history[1:],
        {{"role": "user", "content": question}}])
'''}


def test_the_conversation_rendered_ahead_of_the_instructions_is_per_request(tmp_path: Path) -> None:
    """INVALID: a transcript of the conversation opens the system prompt of a ReAct-style step; it
    grows with every turn, so the tools and rules after it are never a cached prefix. VALID: the
    transcript in the final user turn, the conversation's first message and its size."""
    message = only_finding(findings(tmp_path, CONVERSATION_APP), "agent.py", 8, "error")
    assert message.startswith("per-request request-derived `(f\"{m['role']}: {m['content']}\" for m in history)` "
                              "comes before 4,812 characters of stable text")
    assert "`history` is taken by its name to be the conversation so far, which grows with every turn" in message


CONVERSATION_CONTEXT_APP = {"search.py": '''
from openai import OpenAI

MAP_PROMPT = """---Data tables---
{context_data}
---Goal---
""" + "Generate a list of key points that answer the question from the data tables above. " * 60


class ConversationHistory:
    def __init__(self) -> None:
        self.turns: list[str] = []

    def build_context(self, max_turns: int = 5) -> str:
        return "\\n".join(f"user: {turn}" for turn in self.turns[-max_turns:])


class ContextBuilder:
    def build(self, query: str, conversation_history: ConversationHistory | None = None) -> list[str]:
        history_table = conversation_history.build_context(max_turns=5) if conversation_history else ""
        title = conversation_history.get("title") if conversation_history else ""
        return [f"{title}Previous turns:\\n{history_table}\\n" for _ in range(3)]


class GlobalSearch:
    def __init__(self) -> None:
        self.client = OpenAI()
        self.builder = ContextBuilder()

    def search(self, query: str, conversation_history: ConversationHistory | None = None) -> list[str]:
        return [self.map_batch(data, query) for data in self.builder.build(query, conversation_history)]

    def map_batch(self, context_data: str, query: str) -> str:
        return self.client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": MAP_PROMPT.format(context_data=context_data)},
            {"role": "user", "content": query}])

    def answer(self, query: str, conversation_history: ConversationHistory | None = None) -> str:
        context = "".join(self.builder.build(query, conversation_history))
        return self.client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": MAP_PROMPT.format(context_data="")},
            {"role": "user", "content": f"{context}\\n\\n{query}"}])
'''}


def test_a_table_of_the_conversation_made_by_its_method_is_per_request_in_another_function(tmp_path: Path) -> None:
    """INVALID: a context builder asks the conversation for its recent turns
    (`conversation_history.build_context()`) and the search method formats the result into the
    system prompt of another method, ahead of the fixed goal: every turn re-bills the goal (graphrag's
    global search with a conversation history). VALID: the same table in the final user turn, and an
    item picked out of the conversation (`get("title")`)."""
    message = only_finding(findings(tmp_path, CONVERSATION_CONTEXT_APP), "search.py", 19, "error")
    assert message.startswith("per-request request-derived `conversation_history.build_context(max_turns=5)` "
                              "comes before")
    assert "`conversation_history` is taken by its name to be the conversation so far" in message


ABSTRACT_CONTEXT_APP = {
    "app/context.py": '''
from abc import ABC, abstractmethod
from typing import Generic, TypeVar


class ContextBuilder(ABC):
    @abstractmethod
    def build(self, question: str) -> str:
        """The context block for one question."""


T = TypeVar("T")


class BaseSearch(ABC, Generic[T]):
    def __init__(self, builder: T) -> None:
        self.builder = builder
''',
    # Neither imported by the search module nor named there: found as a subclass of the base.
    "app/builders/clock.py": '''
from datetime import datetime

from app.context import ContextBuilder


class ClockContext(ContextBuilder):
    def build(self, question: str) -> str:
        return f"Now: {datetime.now().isoformat()}\\n"
''',
    "app/search.py": '''
from openai import OpenAI

from app.context import BaseSearch, ContextBuilder

RULES = "Answer from the context above, cite each source, keep to the facts. " * 80


class Search(BaseSearch[ContextBuilder]):
    def __init__(self, builder: ContextBuilder) -> None:
        super().__init__(builder)
        self.client = OpenAI()

    def ask(self, question: str) -> str:
        system = self.builder.build(question) + RULES
        return self.client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": system}, {"role": "user", "content": question}])

    def ask_later(self, question: str) -> str:
        context = self.builder.build(question)
        return self.client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": RULES}, {"role": "user", "content": context + question}])
'''}


def test_an_abstract_method_runs_the_project_subclass_that_implements_it(tmp_path: Path) -> None:
    """INVALID: the search object holds its context builder typed as the abstract base (through a
    generic base class, `BaseSearch[ContextBuilder]`); the only implementation, in a module the
    search never imports, opens the context with a clock, which `ask` puts ahead of the rules.
    VALID: `ask_later` puts the same context in the final user turn."""
    found = findings(tmp_path, ABSTRACT_CONTEXT_APP)
    assert [(path, line, severity) for path, line, severity, _ in found] == [("app/builders/clock.py", 8, "error")]
    assert found[0][3].startswith("per-request clock `datetime.now()` comes before 5,440 characters of stable text")


INHERITED_CONSTRUCTOR_APP = {"app/base.py": '''
from dataclasses import dataclass, field
from datetime import datetime


class Agent:
    def __init__(self, task: str) -> None:
        self.system_prompt = f"Started at {datetime.now()}.\\n" + "Follow the operating rules below. " * 80


@dataclass
class Settings:
    preamble: str = field(default_factory=lambda: f"Session opened {datetime.now()}.\\n")
''',
    "app/agents.py": '''
from openai import OpenAI

from app.base import Agent, Settings

RULES = "Answer in JSON and cite the tool output you relied on. " * 60


class OpenAIAgent(Agent):
    def act(self, history: list):
        return OpenAI().chat.completions.create(
            model="gpt-4.1", messages=[{"role": "system", "content": self.system_prompt}, *history])


class Reporter(Settings):
    def report(self, history: list):
        return OpenAI().chat.completions.create(
            model="gpt-4.1", messages=[{"role": "system", "content": self.preamble + RULES}, *history])


def run(task: str, history: list):
    return OpenAIAgent(task).act(history), Reporter().report(history)
'''}


def test_an_inherited_constructor_runs_in_the_module_that_defines_it(tmp_path: Path) -> None:
    """INVALID, twice: the subclass inherits a constructor (and a dataclass field default) from a
    base class in another module, which puts a clock ahead of the rules. Its names (`datetime`)
    are those of the base's module, and the finding points at the base's line, not at the same
    line number in the subclass's file."""
    found = findings(tmp_path, INHERITED_CONSTRUCTOR_APP)
    assert [(path, line, severity) for path, line, severity, _ in found] == \
        [("app/base.py", 7, "error"), ("app/base.py", 12, "error")]


REPLAYING_CLIENT_APP = {"app/clients.py": '''
from abc import ABC, abstractmethod

from openai import OpenAI


class ModelClient(ABC):
    @abstractmethod
    def create(self, messages: list) -> str:
        """Send the messages, return the reply."""


class OpenAIClient(ModelClient):
    def __init__(self) -> None:
        self.client = OpenAI()

    def create(self, messages: list) -> str:
        return self.client.chat.completions.create(model="gpt-4o", messages=messages).choices[0].message.content


class RecordingClient(ModelClient):
    def __init__(self, inner: ModelClient, mode: str) -> None:
        self.inner = inner
        self.mode = mode
        self.records: list[dict] = []
        self.index = 0

    def create(self, messages: list) -> str:
        if self.mode == "record":
            reply = self.inner.create(messages)
            self.records.append({"messages": messages, "reply": reply})
            return reply
        record = self.records[self.index]
        self.index += 1
        return record.get("reply")
''',
    "app/agent.py": '''
from app.clients import ModelClient

RULES = "Follow the plan step by step and report each result in JSON. " * 80


class Agent:
    def __init__(self, client: ModelClient) -> None:
        self.client = client

    def step(self, task: str) -> str:
        plan = self.client.create([{"role": "user", "content": task}])
        return self.client.create([{"role": "system", "content": plan + RULES}, {"role": "user", "content": task}])
'''}


def test_a_worker_without_the_first_pass_index_finds_the_same_subclasses(tmp_path: Path) -> None:
    """A worker the first pass started has no index from it and reads the files itself: it must
    find what the first pass's facts give the others (the engine's digest of the list is a cached
    result's dependency)."""
    root = write_tree(tmp_path, ABSTRACT_CONTEXT_APP)
    files = sorted(root.rglob("*.py"))
    from_facts = subclass_index({path: file_facts(path, "", None).classes for path in files})
    project = Project(root, files, root, 10**6)
    assert project.subclass_candidates("ContextBuilder") == from_facts["ContextBuilder"] \
        == ((root / "app/builders/clock.py", "ClockContext"),)
    assert project.subclass_candidates("ABC") == ()  # a marker base is not indexed


def test_the_implementations_of_a_request_method_are_not_run_for_their_reply(tmp_path: Path) -> None:
    """VALID: `create` sends requests (a model client's method): what a recording client replays
    from the records it appends to is a reply like any other, not loop state in the next prompt
    (autogen's ChatCompletionClientRecorder)."""
    assert findings(tmp_path, REPLAYING_CLIENT_APP) == []


def test_a_new_implementation_of_an_abstract_method_is_seen_by_a_warm_run(tmp_path: Path) -> None:
    """The subclasses of a base are a dependency of the stored result: a class added in a new
    file (which the search module does not import) is found on the next run with the cache."""
    files = {path: text for path, text in ABSTRACT_CONTEXT_APP.items() if path != "app/builders/clock.py"}
    root = write_tree(tmp_path, files)
    config = Config(root=root, cache_dir=".promptlint_cache")
    assert analyze([root], config, cwd=root).findings == ()
    write_tree(tmp_path, {"app/builders/clock.py": ABSTRACT_CONTEXT_APP["app/builders/clock.py"]})
    result = analyze([root], config, cwd=root)
    assert [(f.location.path, f.location.line) for f in result.findings] == [("app/builders/clock.py", 8)]


def test_provider_chosen_at_runtime_from_a_registry(tmp_path: Path) -> None:
    """INVALID: a clock in the system text handed to a provider picked from a registry dict; the
    SDK call is two frames down, in whichever subclass the config names."""
    found = findings(tmp_path, {
        "app/providers.py": '''
from openai import AsyncOpenAI
from anthropic import AsyncAnthropic

class BaseProvider:
    async def complete(self, system: str, messages: list) -> str:
        raise NotImplementedError

class OpenAIProvider(BaseProvider):
    def __init__(self):
        self.client = AsyncOpenAI()
    async def complete(self, system, messages):
        full = [{"role": "system", "content": system}, *messages]
        return await self.client.chat.completions.create(model="gpt-4o", messages=full)

class AnthropicProvider(BaseProvider):
    def __init__(self):
        self.client = AsyncAnthropic()
    async def complete(self, system, messages):
        return await self.client.messages.create(model="claude-sonnet-4-5", max_tokens=800,
                                                 system=system, messages=messages)

PROVIDERS = {"openai": OpenAIProvider, "anthropic": AnthropicProvider}
''',
        "app/agent.py": '''
import time
from app.providers import PROVIDERS

INSTRUCTIONS = "You are the release assistant. Follow the checklist in order. " * 50

class Agent:
    def __init__(self, config):
        self.llm = PROVIDERS[config["provider"]]()
    async def step(self, history):
        system = f"Unix time: {time.time()}\\n{INSTRUCTIONS}"
        return await self.llm.complete(system, history)
''',
    })
    assert [(path, line, severity) for path, line, severity, _ in found] == [("app/agent.py", 10, "error")]
    assert "complete()" in found[0][3]


def test_a_wrapper_reaches_the_llm_calls_of_its_definitions_at_any_depth() -> None:
    """Each LLM call a wrapper name leads to, through other wrappers' slots; a same-named
    definition whose parameters go nowhere is not where the slots came from."""
    definitions = [
        ("send", "app/llm.py", flows_of('''
def send(self, system, model):
    return self.client.messages.create(model=model, system=system, messages=[])
''', True)),
        ("send", "app/fake.py", flows_of('''
def send(self, system, model):
    return self.client.messages.create(model="m", system="fixed", messages=[])
''', True)),
        ("ask", "app/agent.py", flows_of('''
def ask(llm, instructions, model_name):
    return llm.send(instructions, model=model_name)
''')),
    ]
    wrappers = infer_wrappers([(name, flows, True) for name, _, flows in definitions], UNTRACEABLE)
    assert wrappers["ask"] == {"s#1", "s=instructions", "n#2", "n=model_name"}
    reached = reached_calls(definitions, wrappers)
    assert reached["send"] == (("app/llm.py", 3),)
    assert reached["ask"] == (("app/llm.py", 3),)


def test_a_prompt_handed_to_a_wrapper_names_its_llm_call_and_the_model_passed(tmp_path: Path) -> None:
    """INVALID (judged at the wrapper call, the provider object is handed in): the finding names
    the LLM call the wrapper sends it with; the model the call names prices it, and without one it
    is priced as that call's provider alone."""
    files = {
        "app/llm.py": '''
from anthropic import Anthropic

class Claude:
    def __init__(self):
        self.client = Anthropic()

    def chat_anthropic(self, content: str, system: str, model: str = "claude-haiku-4-5"):
        reply = self.client.messages.create(model=model, max_tokens=1024, system=system,
                                            messages=[{"role": "user", "content": content}])
        return reply.content[0].text
''',
        "app/review.py": '''
from datetime import datetime

RULES = "Review the pull request and list every bug with its file and line. " * 40

class Reviewer:
    def __init__(self, llm):
        self.llm = llm

    def review(self, diff: str) -> str:
        system = f"Today is {datetime.now()}.\\n{RULES}"
        return self.llm.chat_anthropic(diff, system, model="claude-opus-4-5")

    def summarize(self, diff: str) -> str:
        system = f"Today is {datetime.now()}.\\n{RULES}"
        return self.llm.chat_anthropic(diff, system)
''',
    }
    root = write_tree(tmp_path, files)
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    by_line = {f.location.line: f for f in result.findings}
    assert sorted(by_line) == [10, 14]
    for finding in by_line.values():
        assert finding.call_site.via == "chat_anthropic"
        assert [(r.location.path, r.location.line) for r in finding.related if r.message.startswith(SENDS)] \
            == [("app/llm.py", 8)]
        assert "`anthropic.messages`" in finding.related[-1].message
    assert by_line[10].call_site.model == "claude-opus-4-5"
    assert [(loss.provider, loss.model) for loss in by_line[10].estimate.losses] == [("anthropic", "claude-opus-4.5")]
    assert by_line[14].call_site.model is None
    assert {loss.provider for loss in by_line[14].estimate.losses} == {"anthropic"}

def test_the_same_registry_with_the_clock_in_the_final_turn_is_quiet(tmp_path: Path) -> None:
    """VALID: the look-alike a careless tool flags: the clock travels in the user's message."""
    assert findings(tmp_path, {
        "app/providers.py": '''
class OpenAIProvider:
    async def complete(self, system, messages):
        full = [{"role": "system", "content": system}, *messages]
        return await self.client.chat.completions.create(model="gpt-4o", messages=full)
''',
        "app/agent.py": '''
import time
INSTRUCTIONS = "You are the release assistant. Follow the checklist in order. " * 50
async def step(llm, history, text):
    history.append({"role": "user", "content": f"{text} (sent at {time.time()})"})
    return await llm.complete(INSTRUCTIONS, history)
''',
    }) == []


def test_a_builder_object_assembling_sections(tmp_path: Path) -> None:
    """INVALID: a prompt builder collects its sections from section methods (one overridden in a
    subclass); the clock section comes before the long fixed policy, and the message is
    returned, not sent, by this code."""
    found = findings(tmp_path, {"app/context.py": '''
from datetime import datetime

POLICY = "Escalate refunds over 500 dollars. Quote the policy section you relied on. " * 30

class PromptBuilder:
    def _header(self):
        return "You are the support agent."
    def _policy(self):
        return POLICY
    def build(self):
        parts = [self._header()]
        parts.append(self._policy())
        return {"role": "system", "content": "\\n\\n".join(parts)}

class TimedPromptBuilder(PromptBuilder):
    def _header(self):
        return f"You are the support agent. Current time: {datetime.now().isoformat()}"
'''})
    assert [(path, severity) for path, _, severity, _ in found] == [("app/context.py", "error")]
    assert "per-request clock" in found[0][3]


def test_an_assembly_point_seen_through_a_known_call_is_reported_once(tmp_path: Path) -> None:
    found = findings(tmp_path, {"app.py": '''
from datetime import datetime
from openai import OpenAI
client = OpenAI()
RULES = "Answer support questions about the router firmware. " * 60
def answer(question):
    system = {"role": "system", "content": f"Now: {datetime.now()}\\n{RULES}"}
    return client.chat.completions.create(model="gpt-4o", messages=[system, {"role": "user", "content": question}])
'''})
    assert len(found) == 1 and "openai.chat.completions" in found[0][3]


def test_retrieved_context_in_a_system_message_next_to_the_question(tmp_path: Path) -> None:
    """INVALID: a search class formats the context built for the query into its system prompt and
    sends it through a model object of its own (no SDK call in sight); the question is the user
    message of the same list, so the context is per request."""
    found = findings(tmp_path, {"search.py": '''
SYSTEM = "---Data tables---\\n{context_data}\\n---Goal---\\n" + "Answer from the tables, citing rows. " * 80

class LocalSearch:
    def __init__(self, model, context_builder):
        self.model = model
        self.context_builder = context_builder

    async def search(self, query):
        result = self.context_builder.build_context(query=query)
        prompt = SYSTEM.format(context_data=result.context_chunks)
        messages = [{"role": "system", "content": prompt}, {"role": "user", "content": query}]
        return await self.model.completion_async(messages=messages)
'''})
    # Located where the context is put into the prompt: the `.format` call.
    assert [(path, line, severity) for path, line, severity, _ in found] == [("search.py", 10, "error")]
    assert "request-derived `result.context_chunks`" in found[0][3]


def test_context_from_a_constant_lookup_next_to_the_question_is_quiet(tmp_path: Path) -> None:
    """VALID: the look-alike: the lookup does not depend on the question."""
    assert findings(tmp_path, {"search.py": '''
SYSTEM = "---Data tables---\\n{context_data}\\n---Goal---\\n" + "Answer from the tables, citing rows. " * 80

class LocalSearch:
    async def search(self, query):
        result = self.context_builder.build_context(query="company overview")
        prompt = SYSTEM.format(context_data=result.context_chunks)
        messages = [{"role": "system", "content": prompt}, {"role": "user", "content": query}]
        return await self.model.completion_async(messages=messages)
'''}) == []


def test_loading_an_empty_string_is_not_a_crash(tmp_path: Path) -> None:
    """Found on bench/wild (skyvern): `json.loads` of an empty joined string in code the evaluator runs stopped the
    analysis of five files with an IndexError."""
    assert findings(tmp_path, {"app.py": '''
import json
from openai import OpenAI

def answer(question):
    defaults = json.loads("".join([]))
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": question}])
'''}) == []


def test_a_framework_system_message_declared_in_config(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"app.py": '''
from datetime import datetime
from myframework.messages import SystemPrompt
RULES = "Answer questions about invoices; quote the invoice number. " * 60
def build():
    return SystemPrompt(text=f"Now: {datetime.now()}\\n{RULES}")
'''})
    plain = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    declared = analyze([root], Config(root=root, cache_dir=None,
                                      system_messages={"myframework.messages.SystemPrompt": ["text", "#0"]}), cwd=root)
    assert plain.findings == ()
    assert [(f.location.line, f.severity.value) for f in declared.findings] == [(5, "error")]


def test_assembly_declarations_in_config_are_checked() -> None:
    import pytest

    from promptlint.config import ConfigError, apply_settings

    config = apply_settings(Config(), {"agent-instructions": {"myframework.Agent": ["persona", "#0"]}}, "pyproject.toml")
    assert load_knowledge(config).agent_instructions["myframework.Agent"] == ("persona", "#0")
    with pytest.raises(ConfigError, match="'system-messages' must be a table of qualified name"):
        apply_settings(Config(), {"system-messages": {"myframework.Prompt": "text"}}, "pyproject.toml")


MESSAGE_LIST_APP = {
    "app/llms.py": '''
import openai
from llama_cpp import Llama

class OpenAi:
    def chat_completion(self, messages, max_tokens=100):
        return openai.ChatCompletion.create(model=self.model, messages=messages, max_tokens=max_tokens)

class LocalLlm:
    def __init__(self, path):
        self.llm_model = Llama(path)
    def chat_completion(self, messages, max_tokens=100):
        response = self.llm_model.create_chat_completion(messages=messages, max_tokens=max_tokens)
        return {"content": response["choices"][0]["message"]["content"]}
''',
    "app/agent.py": '''
import time
RULES = "Follow the workflow. Use the tools listed. Reply in JSON. " * 30

def build(prompt: str, feeds: list, completion: str) -> list:
    messages = [{"role": "system", "content": prompt}]
    messages.append({"role": "system", "content": f"The current time and date is {time.strftime('%c')}"})
    for feed in feeds:
        messages.append({"role": feed.role, "content": feed.text})
    messages.append({"role": "user", "content": completion})
    return messages

def step(llm, feeds):
    reply = llm.chat_completion(build(RULES, feeds, "Next step?"), 500)
    return [{"role": "system", "content": "Tool said: " + reply["content"] + ". " + RULES}]
''',
}


def test_a_message_list_handed_to_a_provider_method_is_judged_where_it_is_built(tmp_path: Path) -> None:
    """INVALID: the agent builds the whole list (a second system message with the time, then the
    feed history) and hands it to `llm.chat_completion`, whose implementations send it as an LLM
    call's `messages`; the list's own order is judged, no history assumed. The model's reply built
    into the next prompt does not carry the prompt's clock."""
    local = MESSAGE_LIST_APP["app/llms.py"].split("class LocalLlm:")[1].split("    def chat_completion")[1]
    assert (0, "messages", "messages") in flows_of("def chat_completion" + local.replace("\n    ", "\n"), method=True)
    found = findings(tmp_path, MESSAGE_LIST_APP)
    assert [(path, line, severity) for path, line, severity, _ in found] == [("app/agent.py", 6, "error")]
    assert "messages passed to chat_completion()" in found[0][3] and "assumed" not in found[0][3]


def test_a_message_list_converted_by_a_project_helper_is_still_the_callers_list() -> None:
    """``messages = _prompt_to_dicts(prompt)`` in a nested retry helper, ``llm_history =
    translate(history, config)`` one frame up: the caller's list reaches the SDK call through the
    project's format converters, so each frame gets a message-list slot (and only that)."""
    completion = flows_of('''
def _completion(self, prompt, tools):
    messages = _prompt_to_dicts(prompt)
    def _call(opts):
        return litellm.completion(model="m", messages=messages, tools=tools, **opts)
    return _call({})
''', method=True)
    step = flows_of('''
def run_step(history, llm, config):
    llm_history = translate(history, config)
    for packet in llm.stream(prompt=llm_history):
        yield packet
''')
    assert (0, "prompt", "messages") in completion
    assert (0, "history", "~stream=prompt") in step
    # a converter's other arguments are options, not the list
    assert not any(param == "config" and "stream" in target for _, param, target in step)
    stream = flows_of("def stream(self, prompt):\n    return self._completion(prompt=prompt, tools=None)", True)
    wrappers = infer_wrappers([("_completion", completion, True), ("stream", stream, True),
                               ("run_step", step, True)], UNTRACEABLE)
    assert wrappers["run_step"] == {"m#0", "m=history"}
    assert not system_wrappers(wrappers)  # a converted list is never taken for system text


def test_text_inside_a_message_is_not_the_message_list_of_the_next_frame() -> None:
    """`examples` is rendered into the system message of a list handed to a message-list slot:
    it is message content, so its caller's argument is not judged as a message list."""
    tagging = flows_of('''
async def tagging(chat_mdl, content, examples):
    prompt = TEMPLATE.render(examples=examples, content=content)
    msg = [{"role": "system", "content": prompt}, {"role": "user", "content": "Output: "}]
    _, msg = fit_in(msg, chat_mdl.max_length)
    return await chat_mdl.async_chat(prompt, msg[1:])
''')
    assert (2, "examples", "^async_chat#1|prompt,") in tagging  # with the names the arguments are written as
    chat = flows_of('''
async def async_chat(self, system, history):
    history.insert(0, {"role": "system", "content": system})
    return await self.client.chat.completions.create(model="m", messages=clean(history))
''', method=True)
    wrappers = infer_wrappers([("async_chat", chat, True), ("tagging", tagging, True)], UNTRACEABLE)
    assert "m#1" in wrappers["async_chat"] and "s#0" in wrappers["async_chat"]
    assert "m#2" not in wrappers["tagging"] and "s#2" in wrappers["tagging"]


AGENT_LOOP_APP = {
    "app/llm.py": """
import litellm
class LitellmLLM:
    def _completion(self, prompt, tools):
        messages = [_to_dict(m) for m in prompt] if isinstance(prompt, list) else _to_dict(prompt)
        def _call():
            return litellm.completion(model=self.model, messages=messages, tools=tools)
        return _call()
    def stream(self, prompt, tools=None):
        yield from self._completion(prompt=prompt, tools=tools)
""",
    "app/step.py": """
from app.llm import LitellmLLM
def run_llm_step(history, llm: LitellmLLM, tools):
    llm_history = translate_history(history, llm.config)
    return list(llm.stream(prompt=llm_history, tools=tools))
""",
    "app/loop.py": """
from app.step import run_llm_step
PROMPT = "You are the orchestrator.\\nYou have used {used} of {limit} research cycles.\\n" + \\
    "Delegate one high level research task at a time and cite every source you rely on. " * 30
def research(llm, history, limit):
    for cycle in range(limit):
        system = ChatMessage(message=PROMPT.format(used=cycle, limit=limit), message_type=MessageType.SYSTEM)
        messages = construct_history(system_prompt=system, history=history)
        history.append(run_llm_step(messages, llm, tools=[]))
""",
}


def test_an_agent_loop_counter_in_the_system_prompt_through_a_provider_class(tmp_path: Path) -> None:
    """INVALID: the loop sends a request each cycle through two project frames and a format
    converter (`run_llm_step` -> `LitellmLLM.stream` -> `_completion`), and rewrites the system
    prompt with the cycle number ahead of the fixed instructions and the growing history."""
    found = findings(tmp_path, AGENT_LOOP_APP)
    # At the `{used}` slot, on the string's own line (its `\n` escapes are not source lines).
    assert [(path, line, severity) for path, line, severity, _ in found] == [("app/loop.py", 2, "error")]
    assert "counter `cycle`" in found[0][3] and "system message (message_type= keyword)" in found[0][3]


def test_the_same_loop_with_the_counter_in_the_final_turn_is_quiet(tmp_path: Path) -> None:
    """VALID: the cycle count goes after the history, in the turn that is new anyway."""
    loop = AGENT_LOOP_APP["app/loop.py"].replace(
        "PROMPT.format(used=cycle, limit=limit)", "PROMPT.format(used='some', limit='a few')").replace(
        "history=history)", "history=[*history, {'role': 'user', 'content': f'Cycle {cycle} of {limit}.'}])")
    assert findings(tmp_path, {**AGENT_LOOP_APP, "app/loop.py": loop}) == []


def test_a_helpers_own_names_do_not_make_its_result_request_derived(tmp_path: Path) -> None:
    # onyx: `tool` is computed from the research topic in the agent loop, and the tools helper
    # also names its loop variable `tool`; the helper's list of tool names is not derived from it.
    found = findings(tmp_path, {
        "app/tools.py": '''
def describe(tools: list) -> str:
    names = [tool.name for tool in tools[:-1]]
    return ", ".join(names) + f", and {tools[-1].name}"
''',
        "app/agent.py": '''
from app.tools import describe
RULES = "Use one tool per step and cite every source you open. " * 60
def research(research_topic: str, tools: list, pick) -> list:
    chosen = []
    for tool in pick(research_topic):
        chosen.append(tool)
    system = f"Tools: {describe(tools)}\\n" + RULES
    return [{"role": "system", "content": system}, {"role": "user", "content": research_topic}]
''',
    })
    assert found == []


SUFFICIENCY_PROMPTS = '''
RULES = "Judge whether the evidence answers the question and cite the chunk ids you used. " * 40
def sufficiency_select(ask: str, evidence: str, chat_mdl) -> str:
    system = f"Evidence:\\n{evidence}\\n\\n" + RULES
    return chat_mdl.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": ask}])
'''


def test_a_value_an_entry_derives_from_the_request_stays_per_request_inside_the_helper_that_builds_the_prompt(
        tmp_path: Path) -> None:
    # ragflow: `judge_sufficiency(question, docs)` trims the evidence for the question and hands it
    # to `sufficiency_select`, whose template puts it before ~3,000 characters of fixed rules.
    found = findings(tmp_path, {
        "app/prompts.py": SUFFICIENCY_PROMPTS,
        "app/agent.py": '''
from app.prompts import sufficiency_select
def fit(question, docs):
    return docs[: 1000 - len(question)]
class Tools:
    def judge(self, question: str, docs: str):
        evidence = fit(question, docs)
        return sufficiency_select(question, evidence, self.chat_mdl)
''',
    })
    errors = [(path, line, message) for path, line, severity, message in found if severity == "error"]
    assert len(errors) == 1
    assert "request-derived" in errors[0][2] and "3,2" in errors[0][2]  # before the helper's rules


EVIDENCE_HELPER_APP = {
    "app/prompts.py": SUFFICIENCY_PROMPTS,
    "app/agent.py": '''
from app.prompts import sufficiency_select
class Tools:
    def judge(self, question: str):
        evidence = self.store.search(question)
        return sufficiency_select(question, evidence, self.chat_mdl)
''',
}


def test_a_value_an_entry_derives_is_reported_where_the_callee_builds_it_into_the_prompt(tmp_path: Path) -> None:
    """Agent-S: the task read in `main` replaces a placeholder of the worker's system prompt. The
    line to change is the callee's, where the value becomes prompt text; the origin stays named."""
    root = write_tree(tmp_path, EVIDENCE_HELPER_APP)
    [finding] = analyze([root], Config(root=root, cache_dir=None), cwd=root).findings
    assert (finding.location.path, finding.location.line, finding.severity.value) == ("app/prompts.py", 3, "error")
    assert "request-derived `self.store.search(question)`" in finding.message
    assert finding.volatile_source is not None
    assert (finding.volatile_source.location.path, finding.volatile_source.location.line) == ("app/agent.py", 4)
    assert [r.message for r in finding.related][:2] == [
        "`self.store.search(question)` (derived from `question`) is derived here", "becomes part of `system`"]
    shown = run_cli("check", ".", "--no-cache", cwd=root).stdout
    assert "app/prompts.py:3:" in shown and "born at  app/agent.py:4:20  derived from `question`\n" in shown


PLANNER = '''
RULES = "Plan the work in numbered steps, name the tool of each step and stop after ten steps. " * 40
def plan(task: str, history: list, client) -> str:
    system = f"Here is your task: {task}\\n" + RULES
    return client.chat.completions.create(model="gpt-4o", messages=[{"role": "system", "content": system}, *history])
'''


@pytest.mark.parametrize("handed", ["question", "question.strip()"])
def test_the_request_handed_on_as_it_is_is_per_request_inside_the_helper(tmp_path: Path, handed: str) -> None:
    """smolagents: `run(task)` hands the task to the planning step, whose system prompt opens with
    it ahead of fixed rules and the history. A value computed from the input was tagged; the input
    itself, handed on as it is, was not (a parameter's value has no place of its own to tag), so
    only the derived form was an error. INVALID both ways; the helper's own name `task` says
    nothing, the entry's `question` does. The hand-off is placed at the call, where the slot view
    of the inferred wrapper `plan` places it, so that view folds into the finding."""
    found = findings(tmp_path, {"app/prompts.py": PLANNER, "app/agent.py": f'''
from app.prompts import plan
def answer(question: str, history: list, client):
    return plan({handed}, history, client)
'''})
    # One finding: the hand-off judged at `plan`'s system slot alone is listed on it.
    assert [(path, line, severity) for path, line, severity, _ in found] == [("app/prompts.py", 3, "error")]
    assert "request-derived `question" in found[0][3]


RUN_MESSAGES_APP = '''
from dataclasses import dataclass, field
from typing import Any, Optional, Union
from openai import OpenAI

client = OpenAI()
RULES = "Follow the house style guide. Cite every source you use. " * 40


@dataclass
class Message:
    role: str
    content: Any


@dataclass
class Agent:
    system_message_role: str = "system"
    user_message_role: str = "user"
    learning: Any = None
    history: list = field(default_factory=list)


def get_system_message(agent: Agent, input: Optional[Any] = None) -> Message:
    content = "You are a helpful assistant.\\n"
    if agent.learning is not None:
        recalled = agent.learning.build_context(message={argument})
        content += recalled + "\\n"
    content += RULES
    return Message(role=agent.system_message_role, content=content)


def get_user_message(agent: Agent, input: Any) -> Message:
    return Message(role=agent.user_message_role or "user", content=input)


def get_run_messages(agent: Agent, input: {input_type}) -> list:
    messages = [get_system_message(agent, input=input)]
    messages.extend(agent.history)
    messages.append(get_user_message(agent, input=input))
    return messages


def run(agent: Agent, run_input: Any) -> str:
    messages = get_run_messages(agent, run_input.input_content)
    response = client.chat.completions.create(
        model="gpt-4o", messages=[{{"role": m.role, "content": m.content}} for m in messages])
    return response.choices[0].message.content
'''


@pytest.mark.parametrize("input_type", ["Any", "Union[str, Message]"])
def test_what_an_unseen_call_computes_from_the_handed_request_is_per_request(tmp_path: Path, input_type: str) -> None:
    """agno: `get_run_messages` sends `input` as the user's turn (through `get_user_message`, whose
    role is a setting with the default "user") and hands the same `input` to the system-message
    builder, where a learning store recalls what matches it, ahead of fixed rules and the history.
    An input typed `Union[str, Message, ...]` is text as likely as the object. INVALID: the recall
    is keyed by the request's input; VALID: keyed by a setting."""
    app = RUN_MESSAGES_APP.replace("{input_type}", input_type)
    found = findings(tmp_path, {"app/agent.py": app.format(argument="str(input)")})
    message = only_finding(found, "app/agent.py", 26, "error")
    assert message.startswith("per-request request-derived `agent.learning.build_context(message=str(input))`")
    assert "`input`" in message and "the request's own input (the final user turn)" in message
    assert findings(tmp_path / "valid", {"app/agent.py": app.format(argument="agent.user_message_role")}) == []


def test_a_recall_keyed_by_the_request_is_its_own_finding_next_to_a_clock(tmp_path: Path) -> None:
    """agno: the system message opens with the current time and, under an option of its own, the
    learnings recalled for this input. The recall is computed from the request, not a copy of the
    clock's prompt seen through a helper, so it keeps its own finding."""
    app = RUN_MESSAGES_APP.replace("{input_type}", "Any").replace(
        'content = "You are a helpful assistant.\\n"',
        'content = f"You are a helpful assistant. It is {{datetime.now()}}.\\n"').replace(
        "from openai import OpenAI", "from datetime import datetime\nfrom openai import OpenAI")
    found = findings(tmp_path, {"app/agent.py": app.format(argument="str(input)")})
    assert [(path, line, severity) for path, line, severity, _ in found] == [
        ("app/agent.py", 25, "error"), ("app/agent.py", 27, "error")]
    assert "clock `datetime.now()`" in found[0][3] and "request-derived `agent.learning" in found[1][3]


def test_a_role_setting_with_a_default_names_the_role() -> None:
    flows = flows_of('''
def get_user_message(agent, input, note, plan):
    first = Message(role=agent.user_message_role or agent.default_role or "user", content=input)
    second = Message(role=MessageRole.USER, content=note)
    third = Message(role=agent.user_message_role or "system", content=plan)
    return [first, second, third]
''')
    assert {flow for flow in flows if flow[0] >= 0} >= {(1, "input", "user"), (2, "note", "user"), (3, "plan", "system")}
    assert not any(param in ("input", "note") and target == "system" for _, param, target in flows)


def test_a_parameter_typed_as_an_object_is_not_the_text_of_the_users_turn() -> None:
    """agno: `generate_followups(agent, run_response)` reads the user's turn from the objects it is
    given; `agent: Agent` is not the request's input because a user-message helper takes it."""
    from promptlint.analysis.derived import user_turn_names

    function = ast.parse('''
def run(agent: "Agent", run_response: Optional[RunOutput], question: str, extra, items: List[Part]):
    generate_followups(agent, run_response, question, extra, items)
''').body[0]
    makers = {"generate_followups": ("#0", "#1", "#2", "#3", "#4")}
    assert user_turn_names(function, frozenset({"user"}), ("content",), makers) == {"question", "extra", "items"}


def test_the_bare_hand_off_of_a_value_built_into_a_prompt_below_is_listed_on_that_finding(tmp_path: Path) -> None:
    """Agent-S: the task is also handed to `_generate_reflection(instruction)`, an inferred wrapper
    judged by its slot alone (the task, then the history). That view sees none of the text around
    the slot; the same value's finding where the worker builds it into its prompt is the one kept."""
    from dataclasses import replace

    from promptlint.engine import finalize

    root = write_tree(tmp_path, EVIDENCE_HELPER_APP)
    config = Config(root=root, cache_dir=None)
    [built] = analyze([root], config, cwd=root).findings
    assert built.volatile_source is not None
    site = replace(built.call_site, api="system message (system text passed to reflect())",
                   location=replace(built.call_site.location, path="app/agent.py", line=5))
    bare = replace(built, location=built.volatile_source.location, call_site=site, related=())
    kept = finalize([bare, built], config, [root], root)
    assert [(f.location.path, f.location.line) for f in kept] == [("app/prompts.py", 3)]
    assert kept[0].related[-1].message == "also reaches the `system message (system text passed to reflect())` call here"
    # A hand-off with an origin of its own stays a finding.
    elsewhere = replace(bare, volatile_source=replace(built.volatile_source, location=site.location), location=site.location)
    assert len(finalize([elsewhere, built], config, [root], root)) == 2
    # ... unless the same prompt's call already has a finding on the request's input, made by
    # another entry (Agent-S: the task typed at the command line, and the task handed to the worker).
    worker = replace(site, location=replace(site.location, path="app/worker.py", line=9))
    elsewhere = replace(elsewhere, call_site=worker)
    typed = replace(built, call_site=worker, volatile_source=replace(built.volatile_source, category="user-input"))
    [kept_one] = finalize([elsewhere, typed], config, [root], root)
    assert (kept_one.location.path, kept_one.location.line) == ("app/prompts.py", 3)
    assert [(r.location.path, r.location.line) for r in kept_one.related
            if r.message == "the request's input is also handed to this prompt here"] == [("app/agent.py", 5)]
    # Another kind of value at that call (a retrieval) is a root cause of its own.
    retrieved = replace(typed, volatile_source=replace(built.volatile_source, category="retrieval"))
    assert len(finalize([elsewhere, retrieved], config, [root], root)) == 2


def test_a_derived_value_already_placed_in_a_template_slot_stays_there() -> None:
    """sweep: `{text}` is filled into the bot's template, and the provider class later joins the
    system messages into one text. The slot is where the value was built in; the join is not."""
    slot = Location("app/bot.py", 5, 1, 5, 7)
    join = Location("app/chat.py", 16, 9, 16, 23)
    made = Location("app/bot.py", 12, 50, 12, 54)
    call = CallSite(Location("app/chat.py", 17, 16, 18, 60), "anthropic.messages", "anthropic")

    def placed(hole: Hole) -> Location | None:
        layout = PromptLayout(call, (Part("system", (hole, Literal("Follow the house style. " * 80))),))
        [marked, _] = mark_request_derived(layout, {"text"}, {"text"}).parts[0].segments
        assert isinstance(marked, Hole) and marked.volatility is Volatility.PER_REQUEST
        return marked.location

    into_system = Step(join, "becomes part of `system_message`")
    assert placed(Hole(Volatility.UNKNOWN, "text", slot, path=(Step(slot, "fills template slot `text`"), into_system))) == slot
    # Made elsewhere as a value (an argument, an attribute read), first built into text in the callee.
    assert placed(Hole(Volatility.UNKNOWN, "text", made, path=(into_system,))) == join


def test_a_value_a_callee_passes_back_stays_where_the_entry_made_it(tmp_path: Path) -> None:
    """The helper only hands the value back (after logging); the entry puts it into the prompt, so
    the finding stays in the entry, where the value is made."""
    helper = EVIDENCE_HELPER_APP["app/prompts.py"].replace(
        '    system = f"Evidence:\\n{evidence}\\n\\n" + RULES\n', "").replace(
        '"content": system}', '"content": evidence + RULES}') + '''
def pick(evidence: str) -> str:
    chosen = evidence
    print("evidence chosen")
    return chosen
'''
    agent = EVIDENCE_HELPER_APP["app/agent.py"].replace("evidence = self.store.search(question)",
                                                   'evidence = pick(self.store.search(question))')
    agent = agent.replace("import sufficiency_select", "import pick, sufficiency_select")
    found = findings(tmp_path, {"app/prompts.py": helper, "app/agent.py": agent})
    assert [(path, line, severity) for path, line, severity, _ in found] == [("app/agent.py", 4, "error")]


def test_a_message_list_in_a_wrappers_user_slot_is_not_judged_as_the_users_text(tmp_path: Path) -> None:
    # TaskWeaver: the planner composes the whole chat (its instruction template read once from a
    # YAML file) and hands it to the LLM wrapper, which also takes a bare string as the user turn:
    # the list is the request, not the text of its user message (PC010 judged it as one).
    found = findings(tmp_path, {
        "app/llm.py": '''
from openai import OpenAI
class LLMApi:
    def __init__(self):
        self.client = OpenAI()
    def chat_completion(self, chat_history):
        if isinstance(chat_history, str):
            chat_history = [{"role": "user", "content": chat_history}]
        return self.client.chat.completions.create(model="gpt-4o", messages=chat_history)
''',
        "app/planner.py": '''
from app.llm import LLMApi
RULES = "Plan the next step and name the worker that should run it. " * 50
class Planner:
    def __init__(self, prompt_data: dict):
        self.llm_api = LLMApi()
        self.instruction_template = prompt_data["instruction_template"]
    def compose_prompt(self, rounds: list) -> list:
        return [{"role": "system", "content": self.instruction_template + RULES},
                {"role": "user", "content": rounds[-1]}]
    def reply(self, rounds: list):
        chat_history = self.compose_prompt(rounds)
        return self.llm_api.chat_completion(chat_history)
''',
    })
    assert [f for f in found if f[2] != "info"] == []


HEAD_REWRITE_APP = {
    "app/mllm.py": """
from openai import OpenAI
class LMMAgent:
    def __init__(self):
        self.client = OpenAI()
        self.messages = []
    def add_system_prompt(self, system_prompt):
        self.system_prompt = system_prompt
        if len(self.messages) > 0:
            self.messages[0] = {"role": "system", "content": self.system_prompt}
        else:
            self.messages.append({"role": "system", "content": self.system_prompt})
    def get_response(self):
        return self.client.chat.completions.create(model="gpt-4o", messages=self.messages)
""",
    "app/manager.py": """
from app.mllm import LMMAgent
RULES = "Plan the subtasks in order, one action per line, and never repeat a finished step. " * 30
class Manager:
    def __init__(self, knowledge_base):
        self.knowledge_base = knowledge_base
        self.agent = LMMAgent()
    def plan(self, instruction: str):
        experience = self.knowledge_base.retrieve_narrative_experience(instruction)
        self.agent.add_system_prompt(f"Similar task: {experience}\\n" + RULES)
        return self.agent.get_response()
""",
}


def test_system_text_written_over_the_head_of_a_kept_list_has_that_conversation_after_it(tmp_path: Path) -> None:
    """INVALID (Agent-S's manager): `add_system_prompt` writes its text over `self.messages[0]`
    of the list the agent keeps, so the conversation in it follows: known, not assumed."""
    wrappers = infer_wrappers([("add_system_prompt", flows_of('''
def add_system_prompt(self, system_prompt):
    self.system_prompt = system_prompt
    self.messages[0] = {"role": "system", "content": self.system_prompt}
''', True), True)], UNTRACEABLE)
    assert {"s#0", "h#0"} <= wrappers["add_system_prompt"]
    found = findings(tmp_path, HEAD_REWRITE_APP)
    assert [(path, severity) for path, _, severity, _ in found] == [("app/manager.py", "error")]
    assert "retrieval" in found[0][3] and "assumed:" not in found[0][3]


def test_the_retrieved_experience_in_the_user_turn_is_quiet(tmp_path: Path) -> None:
    """VALID: the same agent with the fixed rules as its system prompt and the experience in the
    user's turn at the end of the kept list."""
    manager = HEAD_REWRITE_APP["app/manager.py"].replace(
        'self.agent.add_system_prompt(f"Similar task: {experience}\\n" + RULES)',
        'self.agent.add_system_prompt(RULES)\n'
        '        self.agent.messages.append({"role": "user", "content": f"Similar task: {experience}"})')
    assert "Similar task: {experience}\"})" in manager
    assert findings(tmp_path, {**HEAD_REWRITE_APP, "app/manager.py": manager}) == []


def _planned_once(test: str) -> str:
    """Agent-S's manager: the experience is retrieved and the system prompt set behind ``test``."""
    return HEAD_REWRITE_APP["app/manager.py"].replace(
        "        experience = self.knowledge_base.retrieve_narrative_experience(instruction)\n"
        '        self.agent.add_system_prompt(f"Similar task: {experience}\\n" + RULES)\n',
        f"        if {test}:\n"
        "            experience = self.knowledge_base.retrieve_narrative_experience(instruction)\n"
        '            self.agent.add_system_prompt(f"Similar task: {experience}\\n" + RULES)\n'
        "        self.turn_count += 1\n")


def test_system_text_set_on_the_first_call_only_is_per_conversation(tmp_path: Path) -> None:
    """Agent-S's manager (`if self.turn_count == 0:`): the retrieval and the system prompt happen
    on the agent's first step only; every later step of the task sends the same system text with
    its own history after it. What is lost is the fixed text after it, once per task: a warning
    when that text is long (~600 tokens here), info when it is short."""
    manager = _planned_once("self.turn_count == 0")
    assert "if self.turn_count == 0:" in manager
    found = findings(tmp_path / "long", {**HEAD_REWRITE_APP, "app/manager.py": manager})
    message = only_finding(found, "app/manager.py", 10, "warning")
    assert message.startswith("per-session retrieval `self.knowledge_base.retrieve_narrative")
    assert "prefilled again by every new conversation" in message
    assert "assembled only under `self.turn_count == 0`, on the object's first call" in message
    short = manager.replace("never repeat a finished step. \" * 30", "never repeat a finished step. \" * 10")
    assert short != manager
    root = write_tree(tmp_path / "short", {**HEAD_REWRITE_APP, "app/manager.py": short})
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    assert [(f.location.path, f.severity.value) for f in result.findings] == [("app/manager.py", "info")]


def test_a_parameter_loaded_into_the_system_prompt_on_the_first_call_only_is_a_once_slot(tmp_path: Path) -> None:
    """Agent-S's worker: `predict(instruction)` puts the task into the system prompt under
    `if self.turn_count == 0:`. Its callers hand over a value that is set once per task: an `o`
    slot, judged per conversation in the caller (a clock there is not a per-request error)."""
    predict = '''
def predict(self, instruction, observation):
    if self.turn_count == 0:
        self.agent.add_system_prompt(self.agent.system_prompt.replace("TASK_DESCRIPTION", instruction))
    self.turn_count += 1
'''
    wrappers = infer_wrappers([
        ("add_system_prompt", flows_of('''
def add_system_prompt(self, system_prompt):
    self.messages[0] = {"role": "system", "content": system_prompt}
''', True), True),
        ("predict", flows_of(predict, True), True),
        ("run", flows_of("def run(agent, task):\n    agent.predict(task, {})\n"), True)], UNTRACEABLE)
    assert {"o#0", "o=instruction"} <= wrappers["predict"] and "s#0" not in wrappers["predict"]
    assert "o#1" in wrappers["run"]  # once through a caller too
    once = _planned_once("self.turn_count == 0")
    caller = """
import time
from app.manager import Manager
def run(manager: Manager):
    return manager.plan(time.ctime())
"""
    found = findings(tmp_path, {**HEAD_REWRITE_APP, "app/manager.py": once.replace(
        "experience = self.knowledge_base.retrieve_narrative_experience(instruction)", "experience = instruction"),
        "app/run.py": caller})
    assert [(path, severity) for path, _, severity, _ in found] == [("app/manager.py", "warning")]
    assert found[0][3].startswith("per-session clock `time.ctime()`")


@pytest.mark.parametrize("test,first", [
    ("self.turn_count == 0", True), ("self._plan is None", True), ("len(self.steps) == 0", True),
    ("self.turn_count < 1", True), ("self.turn_count <= 0", True),
    ("self.turn_count == 1", False), ("self.turn_count < 2", False), ("self.turn_count <= 1", False),
    ("self.turn_count > 0", False), ("self.turn_count != 0", False), ("self._plan is not None", False),
    ("self._plan is False", False), ("self.use_memory == False", False), ("self.mode == 'first'", False),
    ("turn_count == 0", False), ("self.agent.turn_count == 0", False), ("count(self.steps) == 0", False),
    ("len(self.steps, 1) == 0", False), ("0 < self.turn_count < 3", False), ("self.use_memory", False),
    ("self.turn_count == limit", False),
])
def test_a_first_call_test_compares_an_own_attribute_with_its_starting_value(test: str, first: bool) -> None:
    assert first_call_test(ast.parse(test, mode="eval").body) is first


def test_system_text_written_directly_in_a_first_call_branch_is_a_once_flow() -> None:
    """The branch writes the system message itself; the user's message in it stays the user's."""
    flows = flows_of('''
def start(self, task, question):
    if self.turn_count == 0:
        self.messages = [{"role": "system", "content": task}, {"role": "user", "content": question}]
    self.turn_count += 1
''', True)
    assert {(0, "task", "once"), (1, "question", "user")} <= set(flows)
    assert not any(target == "system" for _, _, target in flows)


def test_a_flag_in_the_test_is_not_a_first_call_guard(tmp_path: Path) -> None:
    """INVALID: behind `if self.use_experience:` the experience is retrieved on every step."""
    found = findings(tmp_path, {**HEAD_REWRITE_APP, "app/manager.py": _planned_once("self.use_experience")})
    assert [(path, severity) for path, _, severity, _ in found] == [("app/manager.py", "error")]


def test_a_value_handed_whole_to_a_wrapper_is_reported_once_where_the_wrapper_assembles_it(tmp_path: Path) -> None:
    """One finding per root cause: the clock passed to `plan()` is judged inside `plan`, where the
    system prompt is put together; the caller handing it over is not a second finding."""
    planner = HEAD_REWRITE_APP["app/manager.py"].replace(
        "experience = self.knowledge_base.retrieve_narrative_experience(instruction)", "experience = instruction")
    run = """
import time
from app.manager import Manager
def run(manager: Manager):
    return manager.plan(time.ctime())
"""
    found = findings(tmp_path, {**HEAD_REWRITE_APP, "app/manager.py": planner, "app/run.py": run})
    assert [(path, severity) for path, _, severity, _ in found] == [("app/manager.py", "error")]
    assert "clock `time.ctime()`" in found[0][3]


def test_one_value_entering_one_prompt_at_two_lines_is_one_finding(tmp_path: Path) -> None:
    """One root cause, one finding: the same value (one origin) reaching one call through two lines
    (two helpers rendering parts of one block, seen from two evaluation contexts) is reported at the
    first, with the other listed on it; another value at the same call stays a finding of its own."""
    from dataclasses import replace

    from promptlint.engine import finalize
    from promptlint.model import Origin

    source = '''
import time
from openai import OpenAI
client = OpenAI()
RULES = "Answer from the ledger only. " * 80
def chat(history: list):
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"{time.time()}" + RULES}, *history])
'''
    root = write_tree(tmp_path, {"app.py": source})
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    [first] = result.findings
    second = replace(first, location=replace(first.location, line=first.location.line + 1))
    other_origin = replace(first.volatile_source, location=replace(first.volatile_source.location, line=2))
    other = replace(first, location=replace(first.location, line=3), volatile_source=other_origin)
    assert isinstance(other_origin, Origin)
    kept = finalize([second, first, other], Config(root=root, cache_dir=None), [root], root)
    assert [f.location.line for f in kept] == [3, first.location.line]
    assert [r.message for r in kept[1].related if r.location == second.location] == ["also enters the prompt here"]


def test_two_values_filling_one_place_are_one_finding(tmp_path: Path) -> None:
    """Agent-S's task comes from the command line or is typed at a prompt, and both reach the same
    line of the same prompt: one place, one fix, one finding listing the other value. Of two
    severities both are kept (a value that changes more often is reported too)."""
    from dataclasses import replace

    from promptlint.engine import finalize

    root = write_tree(tmp_path, {"app.py": '''
import time
from openai import OpenAI
client = OpenAI()
RULES = "Answer from the ledger only. " * 80
def chat(history: list):
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"{time.time()}" + RULES}, *history])
'''})
    config = Config(root=root, cache_dir=None)
    [first] = analyze([root], config, cwd=root).findings
    typed_origin = replace(first.volatile_source, location=replace(first.volatile_source.location, line=2),
                           source="input")
    typed = replace(first, location=replace(first.location, column=first.location.column + 5),
                    volatile_source=typed_origin)
    [kept] = finalize([typed, first], config, [root], root)
    assert kept.location == first.location
    assert [(r.location.line, r.message) for r in kept.related if r.location.line == 2] == [
        (2, "`input` also fills this place")]
    milder = replace(typed, severity=Severity.WARNING)
    assert len(finalize([milder, first], config, [root], root)) == 2


def test_a_template_placeholder_seen_from_its_helper_and_its_caller_is_one_finding(tmp_path: Path) -> None:
    """ragflow's sufficiency prompt: the helper rendering the template is an entry, and so is the
    agent method calling it with its own (derived) question. Both see the question fill the same
    placeholder of the same prompt: one finding, at the placeholder, listing the caller's value."""
    found = analyze_tree(tmp_path, {"prompts.py": '''
import jinja2
from openai import OpenAI

ENV = jinja2.Environment()
SELECT = """You judge whether the documents answer the question.
Question: {{ question }}
""" + "Judge only by the documents; answer in JSON with the keys is_sufficient and useful_ids. " * 50 + """
Documents:
{{ documents }}
"""


def form_message(system_prompt, user_prompt):
    return [{"role": "system", "content": system_prompt}, {"role": "user", "content": user_prompt}]


def gen_json(system_prompt, user_prompt, history):
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[*form_message(system_prompt, user_prompt),
                                                                      *history])


def select(question: str, documents: str, history: list):
    return gen_json(ENV.from_string(SELECT).render(question=question, documents=documents), "Output:", history)
''', "agent.py": '''
from prompts import select


class Agent:
    def judge(self, question: str, evidence: str, history: list):
        evidence = evidence[:4000]
        return select(question, evidence, history)
'''})
    [kept] = [f for f in found if f.rule == "PC001"]
    placeholder = (tmp_path / "prompts.py").read_text().splitlines().index("Question: {{ question }}") + 1
    assert (kept.location.path, kept.location.line) == ("prompts.py", placeholder)
    assert [(r.location.path, r.message) for r in kept.related if r.location.path == "agent.py"] == [
        ("agent.py", "derived from `question` also fills this place")]


def analyze_tree(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    root = write_tree(tmp_path, files)
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert not result.errors, result.errors
    return result.findings


FILTERED_CONVERSATION_APP = {"app/agent.py": '''
from dataclasses import dataclass

RULES = "Answer with SQL only. Use the schema given. " * 60


@dataclass
class LlmRequest:
    messages: list
    system_prompt: str | None = None


class Agent:
    def __init__(self, memory, service, filters=None):
        self.memory = memory
        self.service = service
        self.filters = filters or []

    async def build(self, conversation, user_message: str) -> LlmRequest:
        memories = await self.memory.search_text_memories(query=user_message)
        system_prompt = RULES + "\\nRelevant memories:\\n" + "\\n".join(m.text for m in memories)
        messages = [{"role": m.role, "content": m.content} for m in conversation.messages]
        for f in self.filters:
            messages = await f.filter_messages(messages)
        return LlmRequest(messages=messages, system_prompt=system_prompt)
'''}


def test_a_conversation_passed_through_unknown_filters_still_follows_the_system_text(tmp_path: Path) -> None:
    """INVALID: the messages go through filters the analysis cannot follow (`messages = await
    f.filter_messages(messages)`); they are still the conversation the request sends after the
    system text, so memories looked up for this message ahead of it are an error, not an
    assumed-history info."""
    found = findings(tmp_path, FILTERED_CONVERSATION_APP)
    assert [(path, line, severity) for path, line, severity, _ in found] == [("app/agent.py", 20, "error")]
    assert "memory `self.memory.search_text_memories(query=user_message)`" in found[0][3]


def test_a_filtered_conversation_with_the_memories_in_the_last_turn_is_quiet(tmp_path: Path) -> None:
    """VALID: the memories go in a last user turn after the filtered conversation."""
    source = FILTERED_CONVERSATION_APP["app/agent.py"].replace(
        'system_prompt = RULES + "\\nRelevant memories:\\n" + "\\n".join(m.text for m in memories)',
        'system_prompt = RULES')
    source = source.replace("return LlmRequest(messages=messages, system_prompt=system_prompt)",
                            'notes = "\\n".join(m.text for m in memories)\n'
                            '        return LlmRequest(messages=[*messages, {"role": "user", "content": notes}], '
                            'system_prompt=system_prompt)')
    assert "system_prompt = RULES\n" in source and "notes =" in source
    assert findings(tmp_path, {"app/agent.py": source}) == []


CHAINED_REPLACE_APP = {"app/worker.py": '''
class Worker:
    def __init__(self, agent, knowledge_base):
        self.agent = agent
        self.knowledge_base = knowledge_base

    def start_subtask(self, subtask: str, instruction: str):
        experience = self.knowledge_base.retrieve_episodic_experience(subtask)
        instruction += "\\nSimilar subtask experience: " + experience
        self.agent.add_system_prompt(
            self.agent.system_prompt.replace("SUBTASK_DESCRIPTION", subtask)
            .replace("TASK_DESCRIPTION", instruction))
''', "app/agent.py": '''
class Agent:
    def __init__(self, client, system_prompt):
        self.client = client
        self.system_prompt = system_prompt
        self.messages = [{"role": "system", "content": system_prompt}]

    def add_system_prompt(self, system_prompt):
        self.system_prompt = system_prompt
        self.messages[0] = {"role": "system", "content": system_prompt}

    def get_response(self):
        return self.client.chat.completions.create(model="gpt-4o", messages=self.messages)
'''}


def test_a_value_replaced_into_a_template_the_analysis_cannot_see_after_an_earlier_one(tmp_path: Path) -> None:
    """INVALID: `unknown.replace("SUBTASK_DESCRIPTION", s).replace("TASK_DESCRIPTION", t)`: the
    second placeholder is in the template text we cannot see too, so the retrieved experience in
    `t` sits ahead of the rest of that (fixed) prompt and of the agent's kept conversation."""
    found = findings(tmp_path, CHAINED_REPLACE_APP)
    assert [(path, line, severity) for path, line, severity, _ in found] == [("app/worker.py", 8, "error")]
    assert "retrieval `self.knowledge_base.retrieve_episodic_experience(subtask)`" in found[0][3]


def test_values_replaced_into_an_unseen_template_without_a_lookup_are_quiet(tmp_path: Path) -> None:
    """VALID: the same chain filling in the subtask's own names only."""
    worker = CHAINED_REPLACE_APP["app/worker.py"].replace(
        "self.knowledge_base.retrieve_episodic_experience(subtask)", '"none recorded"')
    assert findings(tmp_path, {**CHAINED_REPLACE_APP, "app/worker.py": worker}) == []


# instructor's patched client: `client.chat.completions.create(response_model=...)` is an OpenAI
# request (bench/wild: 567-labs/instructor's examples).
INSTRUCTOR_APP = {"app/summarize.py": '''
import instructor
from openai import OpenAI

client = instructor.from_openai(OpenAI())

GUIDELINES = """
You are going to generate an increasingly concise, entity-dense summary of the article.
- Identify 1-3 informative entities from the article which are missing from the summary.
- Write a new denser summary of identical length which covers every entity and detail.
- Make every word count: rewrite the previous summary to improve flow and make space.
- Make space with fusion, compression, and removal of uninformative phrases.
- The summaries should become highly dense and concise yet self-contained.
- Missing entities can appear anywhere in the new summary.
- Never drop entities from the previous summary.
""" * 10  # above the 1,024-token minimum: a short tail would lose nothing (info)


def summarize(article: str, previous: str):
    first = client.chat.completions.create(
        model="gpt-4o",
        response_model=Summary,
        messages=[{"role": "system", "content": "Summarize the article."},
                  {"role": "user", "content": f"Here is the article: {article}"}],
    )
    return client.chat.completions.create(
        model="gpt-4o",
        response_model=Summary,
        messages=[{"role": "system", "content": f"Article: {article}\\n{GUIDELINES}"},
                  {"role": "user", "content": f"Here is the previous summary: {previous}"}],
    )
'''}


def test_a_client_wrapped_by_instructor_is_still_an_openai_client(tmp_path: Path) -> None:
    """INVALID: the article (the user's turn of the first request) opens the system text of the
    second, ahead of the fixed guidelines."""
    found = findings(tmp_path, INSTRUCTOR_APP)
    assert [(path, line) for path, line, _, _ in found] == [("app/summarize.py", 28)]
    assert "`article`" in found[0][3] and "openai.chat.completions" in found[0][3]


def test_a_client_wrapped_by_instructor_with_the_article_last_is_quiet(tmp_path: Path) -> None:
    """VALID: the same request with the guidelines first and the article in the user's turn."""
    fixed = INSTRUCTOR_APP["app/summarize.py"].replace(
        'f"Article: {article}\\n{GUIDELINES}"', "GUIDELINES").replace(
        'f"Here is the previous summary: {previous}"', 'f"Article: {article}\\nPrevious summary: {previous}"')
    assert fixed != INSTRUCTOR_APP["app/summarize.py"]
    assert findings(tmp_path, {"app/summarize.py": fixed}) == []


def test_a_client_from_an_unknown_wrapper_is_judged_by_the_messages_it_sends(tmp_path: Path) -> None:
    """A call the knowledge does not list (`make_tracer(OpenAI())`) gives back an object we know
    nothing about: its request is judged by the shape of the message list it is handed (a system
    message first), without claiming which API it is."""
    source = INSTRUCTOR_APP["app/summarize.py"].replace("instructor.from_openai(OpenAI())",
                                                        "instructor.make_tracer(OpenAI())")
    found = findings(tmp_path, {"app/summarize.py": source})
    assert [(path, line) for path, line, _, _ in found] == [("app/summarize.py", 28)]
    assert "messages passed to client.chat.completions.create()" in found[0][3]
    assert "openai.chat.completions" not in found[0][3]


def test_project_client_wrappers_are_declared_in_config(tmp_path: Path) -> None:
    """A project's own tracing wrapper gives back the client it wraps once config says so."""
    source = INSTRUCTOR_APP["app/summarize.py"].replace(
        "import instructor\n", "from app.tracing import traced\n").replace(
        "instructor.from_openai(OpenAI())", "traced(OpenAI())")
    files = {"app/summarize.py": source,
             "app/tracing.py": "def traced(client):\n    return Tracer(client)\n"}
    assert all("openai.chat.completions" not in message for _, _, _, message in findings(tmp_path, files))
    write_tree(tmp_path, {**files, "pyproject.toml": '[tool.promptlint]\nclient-wrappers = {"app.tracing.traced" = ["#0"]}\n'})
    result = run_cli("check", ".", "--format", "json", cwd=tmp_path)
    found = json.loads(result.stdout)["findings"]
    assert [(f["path"], f["line"], f["call_site"]["api"]) for f in found] == [
        ("app/summarize.py", 28, "openai.chat.completions")]


def test_a_malformed_client_wrappers_table_is_a_clear_config_error(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app.py": "x = 1\n", "pyproject.toml": '[tool.promptlint]\nclient-wrappers = {"a.wrap" = 0}\n'})
    result = run_cli("check", ".", cwd=tmp_path)
    assert result.returncode == 2
    assert "client-wrappers" in result.stderr and "Traceback" not in result.stderr


# ragflow's chat: the retrieved knowledge is formatted by a helper into the system message, the
# conversation is copied after it, a trimming helper hands the list back, and the system text is
# taken out again (`msg[0]`) to be sent apart from the rest (`msg[1:]`).
KNOWLEDGE_CHAT_APP = {"app/chat.py": '''
from openai import OpenAI

client = OpenAI()
CITATIONS = "Cite every claim with [ID:n] markers taken from the knowledge above. " * 30


def kb_prompt(chunks):
    lines = []
    for i, chunk in enumerate(chunks):
        lines.append(f"ID: {i}\\n{chunk.content}")
    return lines


def fit(msg, limit):
    total = sum(len(m["content"]) for m in msg)
    return total, msg


class Bundle:
    def chat(self, system, history):
        return client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": system}, *history])


def chat(bundle: Bundle, question, messages, store):
    chunks = store.search(question)
    knowledges = kb_prompt(chunks)
    system = "You are a helpful assistant.\\n" + "\\n".join(knowledges)
    msg = [{"role": "system", "content": system}]
    msg.extend([{"role": m["role"], "content": m["content"].strip()} for m in messages if m["role"] != "system"])
    used, msg = fit(msg, 8000)
    prompt = msg[0]["content"]
    return bundle.chat(prompt + CITATIONS, msg[1:])
'''}


def test_knowledge_a_helper_formats_is_reported_where_it_comes_back(tmp_path: Path) -> None:
    """INVALID: the knowledge goes ahead of the citation rules and the conversation. The finding
    stands where the helper's text comes back into the function that sends it, not inside the
    helper; the copied conversation is the history after it, not content to move."""
    found = findings(tmp_path, KNOWLEDGE_CHAT_APP)
    assert [(path, line, severity) for path, line, severity, _ in found] == [("app/chat.py", 27, "error")]
    message = found[0][3]
    assert "conversation history" in message
    assert "earlier user message" not in message


def test_knowledge_after_the_citation_rules_in_the_last_turn_is_quiet(tmp_path: Path) -> None:
    """VALID: the system text holds only the fixed rules; the knowledge goes with the question."""
    source = KNOWLEDGE_CHAT_APP["app/chat.py"].replace(
        'system = "You are a helpful assistant.\\n" + "\\n".join(knowledges)',
        'system = "You are a helpful assistant."').replace(
        'm["content"].strip()}', 'm["content"].strip() + "\\n".join(knowledges)}')
    assert source != KNOWLEDGE_CHAT_APP["app/chat.py"]
    assert findings(tmp_path, {"app/chat.py": source}) == []


# graphrag's query engines: a messages builder object grows its list method by method, and the
# list goes to a model object typed by a protocol (its implementations are made by a factory the
# analysis cannot follow).
BUILDER_SEARCH_APP = {"app/builder.py": '''
class MessagesBuilder:
    def __init__(self):
        self._messages = []

    def add_system_message(self, content, name=None):
        if name:
            self._messages.append({"role": "system", "content": content, "name": name})
        else:
            self._messages.append({"role": "system", "content": content})
        return self

    def add_user_message(self, content):
        self._messages.append({"role": "user", "content": content})
        return self

    def build(self):
        return self._messages
''', "app/search.py": '''
from app.builder import MessagesBuilder

SYSTEM_PROMPT = """---Role---
You answer questions about the data tables below.

---Data tables---
{context_data}

---Goal---
""" + "Answer from the tables only, cite the rows you used, and say when the tables do not hold the answer. " * 12


class LocalSearch:
    def __init__(self, model, context_builder):
        self.model = model
        self.context_builder = context_builder

    async def search(self, query: str):
        context = self.context_builder.build_context(query=query)
        prompt = SYSTEM_PROMPT.format(context_data=context.chunks)
        builder = MessagesBuilder().add_system_message(prompt)
        builder.add_user_message(query)
        return await self.model.completion_async(messages=builder.build(), stream=True)
'''}


def test_a_builder_object_sent_to_an_unknown_model_is_judged_as_a_request(tmp_path: Path) -> None:
    """INVALID: the context built for the question sits in the middle of the system text, ahead of
    the fixed goal; the builder's list (one system message, then the question) is the request."""
    found = findings(tmp_path, BUILDER_SEARCH_APP)
    assert [(path, line) for path, line, _, _ in found] == [("app/search.py", 20)]
    message = found[0][3]
    assert "`context.chunks`" in message and "messages passed to self.model.completion_async()" in message
    assert "system prompt" in message and "earlier user message" not in message


def test_a_builder_object_with_the_context_in_the_users_turn_is_quiet(tmp_path: Path) -> None:
    """VALID: the fixed prompt alone in the system message, the context with the question."""
    search = BUILDER_SEARCH_APP["app/search.py"].replace(
        "prompt = SYSTEM_PROMPT.format(context_data=context.chunks)",
        'prompt = SYSTEM_PROMPT.format(context_data="(below)")').replace(
        "builder.add_user_message(query)", 'builder.add_user_message(f"{context.chunks}\\\\n{query}")')
    assert search != BUILDER_SEARCH_APP["app/search.py"]
    assert findings(tmp_path, {**BUILDER_SEARCH_APP, "app/search.py": search}) == []


def test_documents_in_a_sandwich_of_repeated_instructions_are_info(tmp_path: Path) -> None:
    """VALID (info): the goal is stated before the data tables and again after them, on purpose
    (the model reads it next to its task): moving the tables after it would only drop the repeat."""
    goal = "\n".join(f"- Answer from the tables only and cite the rows you used (rule {n})." for n in range(20))
    search = BUILDER_SEARCH_APP["app/search.py"].replace(
        '---Data tables---\n{context_data}\n\n---Goal---\n""" + "Answer from the tables only, cite the rows you '
        'used, and say when the tables do not hold the answer. " * 12',
        f'---Goal---\n{goal}\n\n---Data tables---\n{{context_data}}\n\n---Goal, again---\n{goal}\n"""')
    assert search.count("(rule 19)") == 2
    assert findings(tmp_path, {**BUILDER_SEARCH_APP, "app/search.py": search}) == []
    root = write_tree(tmp_path, {**BUILDER_SEARCH_APP, "app/search.py": search})
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    assert [f.severity.value for f in result.findings] == ["info"]
    assert "repeat instructions given before it" in result.findings[0].message


TOKEN_COUNTED_APP = {
    "app/tokens.py": '''
import tiktoken


class TokenCounter:
    @staticmethod
    def count_message_tokens(messages, model="gpt-4o"):
        encoding = tiktoken.encoding_for_model(model)
        return sum(len(encoding.encode(message["content"])) for message in messages)
''', "app/llms.py": '''
from openai import OpenAI


class OpenAiLlm:
    def __init__(self):
        self.client = OpenAI()

    def chat_completion(self, messages, max_tokens):
        return self.client.chat.completions.create(model="gpt-4o", messages=messages, max_tokens=max_tokens)
''', "app/step.py": '''
import time
from app.llms import OpenAiLlm
from app.tokens import TokenCounter

RULES = "Pick the next tool and answer in JSON with the keys tool and args. " * 30


def run_step(history, goal):
    messages = [{"role": "system", "content": f"Now: {time.strftime('%c')}\\n{RULES}"}, *history]
    messages.append({"role": "user", "content": goal})
    used = TokenCounter.count_message_tokens(messages=messages)
    return OpenAiLlm().chat_completion(messages, 4096 - used)
'''}


def judged_calls(root: Path) -> list[str]:
    """The calls a prompt layout was judged at, by the name the findings give them."""
    return [layout.call.api for layout in analyze([root], Config(root=root, cache_dir=None), cwd=root).layouts]


def test_a_project_function_that_only_counts_the_messages_is_not_the_request(tmp_path: Path) -> None:
    """INVALID, reported at the call that sends the list: the token counter takes `messages=` too,
    but its body reaches no LLM call (SuperAGI's `TokenCounter.count_message_tokens`)."""
    found = findings(tmp_path, TOKEN_COUNTED_APP)
    assert [(path, line) for path, line, _, _ in found] == [("app/step.py", 9)]
    assert "`openai.chat.completions` prompt" in found[0][3]
    assert [call for call in judged_calls(tmp_path) if "count_message_tokens" in call] == []


def test_messages_handed_to_a_protocols_stub_method_are_still_a_request(tmp_path: Path) -> None:
    """INVALID: a method with no body of its own (a protocol's) stands for whatever provider runs."""
    step = TOKEN_COUNTED_APP["app/step.py"].replace("from app.llms import OpenAiLlm\n", '''from typing import Protocol


class ChatModel(Protocol):
    def complete(self, messages, max_tokens):
        """Send the messages."""
        ...
''').replace("return OpenAiLlm().chat_completion(messages, 4096 - used)",
              "return model.complete(messages=messages, max_tokens=4096 - used)").replace(
        "def run_step(history, goal):", "def run_step(model: ChatModel, history, goal):")
    assert "model.complete(messages=" in step
    found = findings(tmp_path, {"app/tokens.py": TOKEN_COUNTED_APP["app/tokens.py"], "app/step.py": step})
    assert [(path, line) for path, line, _, _ in found] == [("app/step.py", 15)]
    assert "message list (messages passed to model.complete())" in judged_calls(tmp_path)


AGENT_STACK = {
    "agents/llm.py": '''
from openai import OpenAI

class LMMAgent:
    def __init__(self, engine_params=None, system_prompt=None):
        self.client = OpenAI(**(engine_params or {}))
        self.messages = []
        self.add_system_prompt(system_prompt or "You are a helpful assistant.")

    def add_system_prompt(self, system_prompt):
        self.system_prompt = system_prompt
        if self.messages:
            self.messages[0] = {"role": "system", "content": self.system_prompt}
        else:
            self.messages.append({"role": "system", "content": self.system_prompt})

    def add_message(self, text):
        self.messages.append({"role": "user", "content": text})

    def get_response(self):
        return self.client.chat.completions.create(model="gpt-4o", messages=self.messages)
''',
    "agents/memory.py": '''
GUIDE = """You are operating a computer. Current time: CURRENT_TIME. Platform: CURRENT_OS.
""" + "Use the mouse and keyboard actions exactly as documented below.\\n" * 60
''',
    "agents/worker.py": '''
from datetime import datetime
from agents.llm import LMMAgent
from agents.memory import GUIDE

class Module:
    def __init__(self, engine_params, platform):
        self.engine_params = engine_params
        self.platform = platform

    def _create_agent(self, system_prompt=None):
        agent = LMMAgent(self.engine_params)
        if system_prompt:
            agent.add_system_prompt(system_prompt)
        return agent

class Worker(Module):
    def __init__(self, engine_params, platform="linux"):
        super().__init__(engine_params, platform)
        self.reset()

    def reset(self):
        skipped = []
        sys_prompt = GUIDE.replace("CURRENT_OS", self.platform)
        self.generator_agent = self._create_agent(sys_prompt)

    def step(self, observation):
        prompt = self.generator_agent.system_prompt.replace("CURRENT_TIME", datetime.now().isoformat())
        self.generator_agent.add_system_prompt(prompt)
        self.generator_agent.add_message(observation)
        return self.generator_agent.get_response()
''',
    "agents/runner.py": '''
from agents.worker import Worker

class Manager:
    def __init__(self, params):
        self.executor = Worker(params)

class Runner:
    def __init__(self, params):
        self.manager = Manager(params)

    def run(self, observations):
        for observation in observations:
            self.manager.executor.step(observation)
''',
}


def test_a_prompt_built_from_locals_in_a_reset_method_is_followed_through_a_deep_constructor(
        tmp_path: Path) -> None:
    # Agent-S's shape: `reset()` builds the system prompt in a local, stores an agent made from it
    # on `self`, and the object is constructed several frames deep, where the constructor's own run
    # stops short. The stored agent still carries the prompt, so the clock is judged against it.
    found = findings(tmp_path, AGENT_STACK)
    clock = [f for f in found if f[0] == "agents/worker.py" and "datetime.now" in f[3]]
    assert clock and clock[0][2] in ("error", "warning"), found
    assert "characters of stable text" in clock[0][3], clock


def test_a_prompt_passed_through_an_enhancer_with_the_question_is_not_derived_itself(tmp_path: Path) -> None:
    # vanna's shape: the system prompt is built without the message, then handed with the message
    # to an enhancer that appends memories searched by it. The memories are the per-request part;
    # the built prompt (instructions made from a list of parts) is not derived from the message.
    found = findings(tmp_path, {"agent.py": '''
from openai import OpenAI

class PromptBuilder:
    def build(self, tools: list) -> str:
        parts = ["You are a data analyst. " * 40, "Use the tools you are given."]
        parts += [f"Tool: {name}" for name in tools]
        return "\\n".join([p for p in parts if p])

class Enhancer:
    def __init__(self, memory):
        self.memory = memory

    def enhance(self, system_prompt: str, user_message: str) -> str:
        found = self.memory.search_text_memories(query=user_message, limit=5)
        if not found:
            return system_prompt
        return system_prompt + "\\n## Relevant memories\\n" + "\\n".join(m.content for m in found)

class Agent:
    def __init__(self, memory):
        self.client = OpenAI()
        self.builder = PromptBuilder()
        self.enhancer = Enhancer(memory)

    def send(self, message: str, history: list, tools: list):
        system_prompt = self.builder.build(tools)
        system_prompt = self.enhancer.enhance(system_prompt, message)
        return self.client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": system_prompt}, *history, {"role": "user", "content": message}])
'''})
    per_request = [f for f in found if f[2] in ("error", "warning")]
    assert len(per_request) == 1 and "search_text_memories" in per_request[0][3], found


def test_variables_picked_from_a_known_dict_for_a_template_keep_their_values(tmp_path: Path) -> None:
    # DB-GPT's profile: `{k: pass_vars[k] for k in find_undeclared_variables(...) if k in pass_vars}`.
    # The names the template declares are unknown, but each value picked is the dict's own.
    found = findings(tmp_path, {"agent.py": '''
from datetime import datetime
from jinja2 import Environment
from jinja2.meta import find_undeclared_variables
from openai import OpenAI

TEMPLATE = """You are a {{ role }}. The current time is: {{ now_time }}.
""" + "Follow every constraint below carefully and answer in JSON.\\n" * 40

class Agent:
    def __init__(self):
        self.client = OpenAI()

    def format_prompt(self, template: str, **kwargs) -> str:
        env = Environment()
        pass_vars = {"role": "planner"}
        pass_vars.update(kwargs)
        declared = find_undeclared_variables(env.parse(template))
        data = {key: pass_vars[key] for key in declared if key in pass_vars}
        return env.from_string(template).render(**data)

    def think(self, question: str, history: list):
        system = self.format_prompt(TEMPLATE, now_time=datetime.now().strftime("%Y-%m-%d %H:%M:%S"))
        return self.client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
'''})
    assert [(f[0], f[1]) for f in found if "datetime.now()" in f[3] and f[2] in ("error", "warning")] == \
        [("agent.py", 6)], found


def test_a_log_an_agent_loop_extends_on_self_is_per_step_where_the_system_text_reads_it(tmp_path: Path) -> None:
    # Issue 18's agent-loop state: the log grows on every pass and opens the system text, so the
    # rules and the history after it miss on every request. The history the loop appends to is not.
    found = findings(tmp_path, {"agent.py": '''
from anthropic import Anthropic

RULES = "You control a browser. Use exactly one action per reply. " * 60


class Agent:
    def __init__(self):
        self.client = Anthropic()
        self.history = []
        self.log = ""

    def run(self, goal: str):
        while True:
            system = f"Actions so far:\\n{self.log}\\n\\n{RULES}"
            reply = self.client.messages.create(model="claude-sonnet-4-5", max_tokens=500, system=system,
                                                messages=[*self.history, {"role": "user", "content": goal}])
            self.log += f"- {reply.content[0].text}\\n"
            self.history.append({"role": "assistant", "content": reply.content[0].text})
'''})
    assert [(f[1], f[2]) for f in found] == [(14, "warning")], found
    assert "loop-state `self.log`" in found[0][3]


def test_a_retry_loop_appending_a_message_object_to_its_messages_is_not_loop_state(tmp_path: Path) -> None:
    # graphiti's retry: the error goes back as one more user message, the conversation growing.
    found = findings(tmp_path, {"client.py": '''
from anthropic import AsyncAnthropic
from pydantic import BaseModel

class Message(BaseModel):
    role: str
    content: str

class Client:
    def __init__(self):
        self.client = AsyncAnthropic()

    async def generate(self, messages: list[Message], retries: int = 2):
        attempt = 0
        while attempt <= retries:
            try:
                return await self.client.messages.create(
                    model="claude-sonnet-4-5", max_tokens=500, system=messages[0].content,
                    messages=[{"role": m.role, "content": m.content} for m in messages[1:]])
            except ValueError as error:
                attempt += 1
                messages.append(Message(role="user", content=f"The previous response was invalid: {error}"))
'''})
    assert not [f for f in found if "loop-state" in f[3]], found


REFINE_RULES = '''RULES = "Keep every number exactly as written; cite the section names you used. " * 100
'''


def test_notes_a_loop_over_unknown_items_carries_are_per_step(tmp_path: Path) -> None:
    # Each page's request opens with the notes the previous requests wrote, so the rules after
    # them miss on every page (the loop's items are not known: it runs twice).
    found = findings(tmp_path, {"refine.py": '''
from openai import OpenAI
''' + REFINE_RULES + '''
client = OpenAI()


class Reader:
    def read(self, pages) -> list:
        notes = []
        for page in pages:
            context = "\\n".join(notes)
            response = client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": f"Notes so far:\\n{context}\\n\\n{RULES}"},
                {"role": "user", "content": page}])
            notes.append(response.choices[0].message.content)
        return notes
'''})
    assert [(f[1], f[2]) for f in found] == [(11, "error")], found  # where the notes enter the text
    assert "loop-state `notes`" in found[0][3]


def test_results_a_loop_over_unknown_items_collects_but_never_sends_are_not_loop_state(tmp_path: Path) -> None:
    found = findings(tmp_path, {"batch.py": '''
from openai import OpenAI
''' + REFINE_RULES + '''
client = OpenAI()


def tag_all(texts: list[str]) -> list[str]:
    tags = []
    for text in texts:
        response = client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": RULES}, {"role": "user", "content": text}])
        tags.append(response.choices[0].message.content)
    return tags
'''})
    assert found == [], found


def test_what_a_loop_collects_is_its_output_after_it_not_loop_state(tmp_path: Path) -> None:
    # sweep's format_snippets: each snippet is annotated by a model, and the collected list is
    # sent once after the loop; the request after the loop is judged on its own (PC010 here).
    found = findings(tmp_path, {"fix.py": '''
from openai import OpenAI
''' + REFINE_RULES + '''
client = OpenAI()


def annotate(code: str) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": code}])


def fix(snippets: list[str], issue: str):
    formatted = []
    for snippet in snippets:
        formatted.append(annotate(snippet))
    joined = "\\n".join(formatted)
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": "You fix GitHub issues."},
        {"role": "user", "content": f"{joined}\\n\\n{issue}\\n\\n{RULES}"}])
'''})
    assert not [f for f in found if "loop-state" in f[3]], found
    assert [f[1] for f in found if f[0] == "fix.py" and "fixed text follow" in f[3]] == [16], found


EXPERIENCE_PLANNER = '''
from typing import Optional
from openai import OpenAI

SYSTEM = "You are the planner. Follow the rules below carefully and completely. " * 60


class ExperienceStore:
    def retrieve_experience(self, user_query: str):
        return [(item, 1.0) for item in self.items]

    @staticmethod
    def format_in_prompt(template: str, selected=None):
        if selected:
            return template.format(experiences="\\n".join([exp.text for exp in selected]))
        return ""


class Planner:
    def __init__(self, config, store: Optional[ExperienceStore] = None):
        self.config = config
        self.store = store
        self.experiences = []
        self.client = OpenAI()

    def load_experience(self, query: str) -> None:
        if self.store is None:
            raise ValueError("no experience store")
        found = self.store.retrieve_experience(query)
        self.experiences = [exp for exp, _ in found]

    def compose_prompt(self, rounds):
        experiences = self.store.format_in_prompt("Past experiences:\\n{experiences}", self.experiences) \\
            if self.config.use_experience else ""
        history = [{"role": "system", "content": f"{SYSTEM}\\n{experiences}"}]
        for r in rounds:
            history.append({"role": "user", "content": r.user_query})
            history.append({"role": "assistant", "content": r.answer})
        return history

    def reply(self, memory):
        rounds = memory.get_rounds()
        self.load_experience(query=rounds[-1].user_query)
        return self.client.chat.completions.create(model="gpt-4o", messages=self.compose_prompt(rounds))
'''


def test_experiences_retrieved_for_the_query_and_kept_on_the_object_reach_the_system_message(tmp_path: Path) -> None:
    """TaskWeaver's planner: the experiences retrieved for the user's query are unpacked from
    (experience, score) pairs, kept on the object, and formatted into the system message by a
    helper of the store, which the constructor takes as `Optional[Store] = None`."""
    found = findings(tmp_path, {"planner.py": EXPERIENCE_PLANNER})
    assert [(severity, message.split(" comes before")[0]) for _, _, severity, message in found] == [
        ("error", "per-request retrieval `self.store.retrieve_experience(query)`")]


def test_unpacking_keeps_what_is_known_and_an_index_is_not_the_lookup(tmp_path: Path) -> None:
    # Each step's number is the same on every request; pairs from a constant list stay constant.
    quiet = EXPERIENCE_PLANNER.replace(
        "self.experiences = [exp for exp, _ in found]",
        "self.experiences = [f'step {i}' for i, _ in enumerate(found)] + [a for a, _ in [('fixed', 1)]]")
    assert findings(tmp_path, {"planner.py": quiet}) == []



def test_only_the_llm_calls_that_send_a_parameters_value_are_reached() -> None:
    """A wrapper that also makes an unrelated call (a moderation check on fixed text) reaches only
    the call its prompt goes into; a positional prompt counts too."""
    definitions = [
        ("ask", "app/llm.py", flows_of('''
def ask(self, system, question):
    self.client.moderations.create(model="omni-moderation-latest", input="fixed probe")
    reply = self.client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
    return self.model.generate_content(question)
''', True)),
    ]
    wrappers = infer_wrappers([(name, flows, True) for name, _, flows in definitions], UNTRACEABLE)
    assert reached_calls(definitions, wrappers) == {"ask": (("app/llm.py", 4), ("app/llm.py", 6))}
    # State the prompt went into first: no call is seen taking it, so every call of the definition.
    stored = [("chat", "app/chat.py", flows_of('''
def chat(self, content):
    self.messages.append(Message(role="user", content=content))
    return self.client.messages.create(model="claude-sonnet-4-5", max_tokens=500,
                                       messages=[m.to_dict() for m in self.history()])
''', True))]
    wrappers = infer_wrappers([(name, flows, True) for name, _, flows in stored], UNTRACEABLE)
    assert reached_calls(stored, wrappers) == {"chat": (("app/chat.py", 4),)}



def test_known_llm_calls_are_reached_before_calls_named_by_their_messages_keyword_alone() -> None:
    """crewAI's `LLM.call` sends through `litellm.completion(**params)` (the params built from its
    `messages` by a helper) and records the messages on an event (`Event(messages=...)`). The
    event is taken for a request by its keyword alone; the wrapper reaches the litellm call."""
    definitions = [
        ("call", "llm.py", flows_of('''
def call(self, messages):
    params = self._prepare_params(messages)
    response = litellm.completion(**params)
    self._emit_completed(messages=params["messages"], response=response)
    return response
''', True)),
        ("_emit_completed", "llm.py", flows_of('''
def _emit_completed(self, messages, response):
    self.bus.emit(self, event=CallCompletedEvent(messages=messages, response=response))
''', True)),
    ]
    wrappers = infer_wrappers([(name, flows, True) for name, _, flows in definitions], UNTRACEABLE)
    assert {"call", "_emit_completed"} <= wrappers.keys()
    reached = reached_calls(definitions, wrappers)
    assert reached["call"] == (("llm.py", 4),)  # litellm's line, not the emitter's (5) nor the event's
    assert reached["_emit_completed"] == (("llm.py", 3),)  # only a guess there: still listed



EMITTING_LLM = {"llm.py": '''
import litellm


class CallCompletedEvent:
    def __init__(self, messages, response):
        self.messages = messages
        self.response = response


class LLM:
    def __init__(self, model: str, bus):
        self.model = model
        self.bus = bus

    def _prepare_params(self, messages):
        return {"model": self.model, "messages": messages, "temperature": 0.2}

    def call(self, messages):
        params = self._prepare_params(messages)
        response = litellm.completion(**params)
        self._emit_completed(messages=params["messages"], response=response)
        return response

    def _emit_completed(self, messages, response):
        self.bus.emit(self, event=CallCompletedEvent(messages=messages, response=response))
''', "agent.py": '''
from datetime import datetime

RULES = "Follow the rules. " * 300


def step(llm, history: list, text: str):
    system = {"role": "system", "content": f"Now: {datetime.now()}\\n" + RULES}
    return llm.call(messages=[system, *history, {"role": "user", "content": text}])
'''}


def test_a_finding_at_a_wrapper_names_the_llm_call_it_reaches(tmp_path: Path) -> None:
    """The request judged where it is handed to `llm.call(messages=...)` (an object the analysis
    cannot type) says it is sent by `litellm.completion`, not by the event recording it."""
    root = write_tree(tmp_path, EMITTING_LLM)
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    [finding] = result.findings
    assert (finding.location.path, finding.location.line, finding.severity.value) == ("agent.py", 7, "error")
    sends = [(r.location.path, r.location.line) for r in finding.related if "sends it" in r.message]
    assert sends == [("llm.py", 20)]


REWRITTEN_SYSTEM = '''
from openai import OpenAI

RULES = "You control a browser. Use exactly one action per reply. " * 60
client = OpenAI()


def run(task: str, browser) -> None:
    messages = [{"role": "system", "content": RULES}, {"role": "user", "content": task}]
    observation = ""
    for step in range(20):
        %s
        reply = client.chat.completions.create(model="gpt-4o", messages=messages)
        action = reply.choices[0].message.content
        messages.append({"role": "assistant", "content": action})
        observation = browser.do(action)
        messages.append({"role": "user", "content": observation})
'''


def test_an_agent_loop_rewriting_messages_0_sends_the_new_system_message(tmp_path: Path) -> None:
    # Issue 18: `messages[0] = ...` on every pass, the step counter first, the history after it.
    found = findings(tmp_path, {"agent.py": REWRITTEN_SYSTEM % (
        'messages[0] = {"role": "system", "content": f"Step {step} of 20.\\\\n" + RULES}')})
    assert [(f[1], f[2]) for f in found] == [(11, "error")], found
    assert found[0][3].startswith("per-request counter `step` comes before 3,429 characters of stable text and the "
                                  "conversation history (system prompt, earlier user message, assistant message) "
                                  "in the `openai.chat.completions` prompt")


def test_the_last_observation_written_into_the_system_message_is_loop_state(tmp_path: Path) -> None:
    # `observation` is read by the prompt before the pass assigns it: it carries the last reply.
    found = findings(tmp_path, {"agent.py": REWRITTEN_SYSTEM % (
        'messages[0]["content"] = f"Last observation: {observation}\\\\n" + RULES')})
    assert [(f[1], f[2]) for f in found] == [(11, "error")], found
    assert found[0][3].startswith("per-request loop-state `observation` comes before 3,422 characters")


def test_look_alikes_of_a_rewritten_system_message_are_quiet(tmp_path: Path) -> None:
    # The same constant written again, the observation in the last user turn, a dict key kept in
    # place, the system text trimmed by a call the analysis cannot follow (its text is kept).
    for number, line in enumerate((
            'messages[0]["content"] = RULES',
            'messages[-1] = {"role": "user", "content": f"Observation: {observation}"}',
            'messages[0]["role"] = "system"',
            'messages[0]["content"] = shorten(messages[0]["content"], 4000)')):
        found = findings(tmp_path / str(number), {"agent.py": REWRITTEN_SYSTEM % line})
        assert found == [], (line, found)


def test_an_item_is_replaced_where_it_is() -> None:
    from promptlint.analysis.evaluator import replaced_item
    from promptlint.analysis.values import Mapping, Seq, Splice, lit, unknown

    system = Mapping((("role", lit("system")), ("content", lit("Be brief."))))
    history = Splice(unknown("history").hole)
    messages = Seq((system, lit("user turn")))
    new = lit("Step 2. Be brief.")
    # A dict keeps a key's place; a new key goes last.
    assert replaced_item(system, ["role"], lit("developer"), None) == \
        Mapping((("role", lit("developer")), ("content", lit("Be brief."))))
    assert replaced_item(system, ["name"], lit("bot"), None) == Mapping((*system.entries, ("name", lit("bot"))))
    # `messages[0]["content"] = ...` and `messages[-1] = ...` on known items.
    assert replaced_item(messages, ["0", "content"], new, None) == \
        Seq((Mapping((("role", lit("system")), ("content", new))), lit("user turn")))
    assert replaced_item(messages, ["-1"], new, None) == Seq((system, new))
    # Behind (or, from the end, before) a run of unknown length, an index could be anywhere.
    assert replaced_item(Seq((history, system)), ["1"], new, None) is None
    assert replaced_item(Seq((system, history)), ["-1"], new, None) is None
    assert replaced_item(Seq((system, history)), ["0"], new, None) == Seq((new, history))
    # Unknown keys, a missing nested key, an index out of range: not known.
    assert replaced_item(messages, [None], new, None) is None
    assert replaced_item(system, ["missing", "x"], new, None) is None
    assert replaced_item(messages, ["5"], new, None) is None


def test_what_a_loop_carries_to_its_next_pass() -> None:
    from promptlint.analysis.evaluator import _loop_carried

    loop = ast.parse('''
for step in range(9):
    prompt = f"{observation} {note} {mode} {total}" + RULES
    reply = send(prompt, agent=agent)
    observation = reply.text
    agent = reply.agent
    note = summarize(note, reply)
    mode = "act"
    total = total + 1
    fresh = make()
    print(fresh)
''').body[0]
    assert isinstance(loop, ast.For)
    # Written into text before the pass assigns it a computed value: carried. A constant, a name
    # made and used within one pass, an object handed on (swarm's `agent = response.agent`): not.
    assert set(_loop_carried(loop.body)) == {"observation", "note", "total"}


PLAN_AGENT_APP = {"app/agent.py": '''
from openai import OpenAI
RULES = "Plan the subtasks in order, one action per line, and never repeat a finished step. " * 30
class PlanningAgent:
    def __init__(self):
        self.client = OpenAI()
        self.plan = []
        self.messages = [{"role": "system", "content": RULES}]

    def system_prompt(self) -> str:
        return "Steps done so far:\\n" + "\\n".join(self.plan) + "\\n" + RULES

    def run(self, task: str):
        self.messages.append({"role": "user", "content": task})
        for _ in range(10):
            self.messages[0] = {"role": "system", "content": self.system_prompt()}
            reply = self.client.chat.completions.create(model="gpt-4o", messages=self.messages)
            self.plan.append(reply.choices[0].message.content)
            self.messages.append({"role": "assistant", "content": reply.choices[0].message.content})
'''}


def test_a_plan_kept_on_the_object_and_written_over_the_system_message_is_loop_state(tmp_path: Path) -> None:
    """INVALID: the loop grows `self.plan` and writes it into `self.messages[0]` before each
    request: the system message differs on every request, with the rules and the kept
    conversation after it. The list the object keeps starts with the message it was made with,
    so `self.messages[0]` is that message, replaced."""
    found = findings(tmp_path, PLAN_AGENT_APP)
    assert [(path, line, severity) for path, line, severity, _ in found] == [("app/agent.py", 10, "error")]
    assert found[0][3].startswith("per-request loop-state `self.plan` comes before 2,490 characters of stable text "
                                  "and the conversation history")


def test_a_plan_kept_on_the_object_and_sent_after_the_conversation_is_quiet(tmp_path: Path) -> None:
    """VALID: the same loop sends the plan in a user turn at the end; the conversation the object
    keeps only grows."""
    agent = PLAN_AGENT_APP["app/agent.py"].replace(
        'self.messages[0] = {"role": "system", "content": self.system_prompt()}\n'
        '            reply = self.client.chat.completions.create(model="gpt-4o", messages=self.messages)',
        'steps = {"role": "user", "content": "Steps done so far:\\\\n" + "\\\\n".join(self.plan)}\n'
        '            reply = self.client.chat.completions.create(model="gpt-4o", messages=[*self.messages, steps])')
    assert "messages=[*self.messages, steps]" in agent
    assert findings(tmp_path, {"app/agent.py": agent}) == []


OBSERVING_AGENT_APP = {"app/agent.py": '''
from openai import OpenAI
RULES = "Answer with one browser action per line, and never repeat a finished step. " * 30
class BrowserAgent:
    def __init__(self, browser):
        self.client = OpenAI()
        self.browser = browser
        self.observation = ""
        self.messages = []

    def system_prompt(self) -> str:
        return f"Current page:\\n{self.observation}\\n" + RULES

    def run(self, task: str):
        self.messages.append({"role": "user", "content": task})
        while True:
            reply = self.client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": self.system_prompt()}, *self.messages])
            action = reply.choices[0].message.content
            self.messages.append({"role": "assistant", "content": action})
            self.observation = self.browser.do(action)
'''}


def test_an_observation_kept_on_the_object_and_written_by_a_method_is_loop_state(tmp_path: Path) -> None:
    """INVALID: `system_prompt()` writes `self.observation` into the system text, and the loop
    then stores the next step's observation there: every request's system message differs, with
    the rules and the conversation after it."""
    found = findings(tmp_path, OBSERVING_AGENT_APP)
    assert [(path, line, severity) for path, line, severity, _ in found] == [("app/agent.py", 11, "error")]
    assert found[0][3].startswith("per-request loop-state `self.observation` comes before 2,250 characters")


def test_an_observation_kept_on_the_object_and_sent_last_is_quiet(tmp_path: Path) -> None:
    """VALID: the same agent sends the observation in a user turn after its conversation."""
    agent = OBSERVING_AGENT_APP["app/agent.py"].replace(
        'return f"Current page:\\n{self.observation}\\n" + RULES', "return RULES").replace(
        "*self.messages])", '*self.messages, {"role": "user", "content": f"Current page: {self.observation}"}])')
    assert "return RULES" in agent and "Current page: {self.observation}" in agent
    assert findings(tmp_path, {"app/agent.py": agent}) == []


SELECTOR_APP = {"app/selector.py": '''
from openai import OpenAI
RULES = "Pick the next speaker from the roles below; answer with the name only. " * 30
class SpeakerSelector:
    def __init__(self, names: list):
        self.client = OpenAI()
        self.names = names
        self.previous = ""

    def select(self, transcript: list) -> str:
        prompt = f"Previous speaker: {self.previous}\\n" + RULES
        reply = self.client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": prompt}, *transcript])
        self.previous = reply.choices[0].message.content
        return self.previous
'''}


def test_state_a_method_carries_on_self_to_its_next_call_is_per_request(tmp_path: Path) -> None:
    """INVALID: each call writes the previous speaker into the system text, then stores the new
    one for the next call: a method that sends a request runs once per turn, so the rules and the
    transcript after it miss on every turn."""
    found = findings(tmp_path, SELECTOR_APP)
    assert [(path, line, severity) for path, line, severity, _ in found] == [("app/selector.py", 10, "error")]
    assert found[0][3].startswith("per-request loop-state `self.previous` comes before 2,130 characters")


def test_state_a_method_carries_on_self_into_the_final_turn_is_quiet(tmp_path: Path) -> None:
    """VALID: the same state sent in a user turn after the transcript, and a conversation the
    object keeps and only appends to."""
    selector = SELECTOR_APP["app/selector.py"].replace(
        'prompt = f"Previous speaker: {self.previous}\\n" + RULES', "prompt = RULES").replace(
        "*transcript])", '*transcript, {"role": "user", "content": f"Previous speaker: {self.previous}"}])')
    assert "prompt = RULES" in selector
    kept = '''
from openai import OpenAI
RULES = "Answer from the policy below; cite the section. " * 30
class Bot:
    def __init__(self):
        self.client = OpenAI()
        self.history = [{"role": "system", "content": RULES}]

    def chat(self, question: str):
        self.history.append({"role": "user", "content": question})
        reply = self.client.chat.completions.create(model="gpt-4o", messages=self.history)
        self.history.append({"role": "assistant", "content": reply.choices[0].message.content})
        return reply
'''
    assert findings(tmp_path, {"app/selector.py": selector, "app/bot.py": kept}) == []


COPIED_HISTORY_APP = {"app/chat.py": '''
from datetime import datetime

from langchain_core.messages import SystemMessage

RULES = "Answer from the report and cite it. "


class ReportChat:
    def __init__(self, report: str, provider) -> None:
        self.report = report
        self.provider = provider

    async def chat(self, messages: list):
        system_prompt = f"Assume the current time is: {datetime.now()}.\\\\n{RULES}Report: {self.report}"
        formatted = []
        formatted.append({"role": "system", "content": system_prompt})
        for msg in messages:
            formatted.append({"role": msg["role"], "content": msg["content"]})
        return await self.provider.complete(formatted)

    def unpacked(self, chat_history: list):
        return [{"role": "system", "content": f"Now: {datetime.now()}. {RULES}"}, *chat_history]

    def extended(self, history: list):
        messages = [SystemMessage(content=f"Now: {datetime.now()}. {RULES}")]
        messages.extend(history)
        return self.provider.complete(messages)

    def one_question(self, question: str, examples: list):
        messages = [{"role": "system", "content": f"Now: {datetime.now()}. {RULES}"}]
        for example in examples:
            messages.append({"role": "user", "content": example["question"]})
        messages.append({"role": "user", "content": question})
        return self.provider.complete(messages)

    def retried(self, question: str):
        messages = [{"role": "user", "content": question}]
        return self.provider.complete([{"role": "system", "content": f"Now: {datetime.now()}. {RULES}"}, *messages])
'''}


def test_a_conversation_copied_after_a_system_message_is_known_to_follow(tmp_path: Path) -> None:
    """INVALID: a clock in a system message written into a list that the same function then fills
    with a conversation (each message copied with its own role, `*chat_history`, `.extend(history)`):
    the history is known to follow, not assumed, so the clock is an error though the list goes on
    to a project helper promptlint cannot follow (gpt-researcher's report chat).
    VALID (info): a list followed by fixed-role examples and the question has no history in sight,
    and so has one followed by a list the function wrote out itself (`messages = [user]`, named
    like a conversation but holding this call's message: private-gpt's SQL retry prompt)."""
    root = write_tree(tmp_path, COPIED_HISTORY_APP)
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    assert not result.errors, result.errors
    found = [(f.location.line, f.severity.value, "assumed" in f.message) for f in result.findings]
    assert found == [(14, "error", False), (22, "error", False), (25, "error", False), (30, "info", True),
                     (38, "info", True)]


OBSERVED_STATE_APP = {"app/operator.py": '''
from dataclasses import dataclass

from openai import OpenAI

RULES = "Click only what the task needs and describe each action before taking it. " * 20


@dataclass
class EnvState:
    url: str | None = None
    screenshot: str | None = None
    width: int = 1024


class BrowserAgent:
    def __init__(self) -> None:
        self.client = OpenAI()
        self.messages: list = []

    def instructions(self, current_state: EnvState) -> str:
        return f"You operate a browser.\\\\nThe current URL is {current_state.url}.\\\\n" + RULES

    def tools(self, current_state: EnvState) -> list:
        return [{"type": "function", "function": {"name": "click", "description": f"Click in {current_state.width} px"}}]

    def act(self, current_state: EnvState):
        self.messages.append({"role": "user", "content": current_state.screenshot})
        reply = self.client.chat.completions.create(
            model="gpt-4.1", tools=self.tools(current_state),
            messages=[{"role": "system", "content": self.instructions(current_state)}, *self.messages])
        self.messages.append({"role": "assistant", "content": reply.choices[0].message.content})

    def act_quietly(self, current_state: EnvState):
        self.messages.append({"role": "user", "content": f"The current URL is {current_state.url}."})
        reply = self.client.chat.completions.create(
            model="gpt-4.1", messages=[{"role": "system", "content": RULES}, *self.messages])
        self.messages.append({"role": "assistant", "content": reply.choices[0].message.content})
'''}


def test_what_an_agent_step_observed_in_its_system_prompt_changes_every_step(tmp_path: Path) -> None:
    """INVALID: a browser agent writes the page it is on (`current_state.url`, a parameter named
    like an observation: rules/prompt_sinks.yaml observation_inputs) into the instructions it
    builds on every step, ahead of the steps it re-sends (khoj's operator). Reported where the URL
    is written, not read as the field's default (`url: str | None = None` is what the caller sets).
    VALID: the display size read from the same state for the tool, and the URL in the step's own
    user message (`act_quietly`)."""
    found = findings(tmp_path, OBSERVED_STATE_APP)
    assert [(path, line, severity) for path, line, severity, _ in found] == [("app/operator.py", 21, "error")]
    assert found[0][3].startswith("per-request observation `current_state.url` comes before ")


def test_a_parameter_typed_by_a_project_class_holds_the_callers_fields(tmp_path: Path) -> None:
    """`opts: Options` says what `opts` is, not what its fields hold: the policy read from it is
    the caller's (of unknown length), not the class's 3,000-character default."""
    found = findings(tmp_path, {"app/answer.py": '''
from dataclasses import dataclass
from datetime import datetime

from openai import OpenAI


@dataclass
class Options:
    policy: str = "Follow the refund policy. " * 120


def answer(opts: Options, history: list):
    system = f"Now: {datetime.now()}\\\\n{opts.policy}"
    return OpenAI().chat.completions.create(model="gpt-4.1", messages=[{"role": "system", "content": system},
                                                                        *history])
'''})
    assert [(path, line) for path, line, _, _ in found] == [("app/answer.py", 13)]
    # Only the line break is known text; the default would have made it 3,000 characters.
    assert found[0][3].startswith("per-request clock `datetime.now()` comes before 2 characters of stable text")


LIST_OF_SYSTEM_TEXTS = {
    "app/llm.py": '''
from openai import AsyncOpenAI


class BaseLLM:
    def __init__(self, config):
        self.client = AsyncOpenAI(api_key=config.api_key)

    def _system_msg(self, msg: str) -> dict:
        return {"role": "system", "content": msg}

    def _system_msgs(self, msgs: list[str]) -> list[dict]:
        return [self._system_msg(msg) for msg in msgs]

    async def aask(self, msg, system_msgs: list[str] | None = None) -> str:
        message = self._system_msgs(system_msgs or ["You are a helpful assistant."])
        message.extend(msg)
        rsp = await self.client.chat.completions.create(model="gpt-4o", messages=message)
        return rsp.choices[0].message.content


class GeminiLLM(BaseLLM):
    def _system_msg(self, msg: str) -> dict:
        return {"role": "user", "parts": [msg]}  # no system role in this API: sent as a user turn
''',
    "app/registry.py": '''
LLM_REGISTRY = {}


def register(api_type):
    def wrap(cls):
        LLM_REGISTRY[api_type] = cls
        return cls
    return wrap


def create_llm(config):
    return LLM_REGISTRY[config.api_type](config)
''',
    "app/role.py": '''
from datetime import datetime

from app.registry import create_llm

SYSTEM_PROMPT = """{role_info}

# Instructions
""" + "Follow the rules of the house carefully and answer with one command at a time.\\n" * 60


class Role:
    def __init__(self, config):
        self.llm = create_llm(config)
        self.memory: list[dict] = []

    def _get_prefix(self) -> str:
        return f"You are Mike. The current time is {datetime.now():%Y-%m-%d %H:%M:%S}."

    async def think(self, question: str) -> str:
        self.memory.append({"role": "user", "content": question})
        system_prompt = SYSTEM_PROMPT.format(role_info=self._get_prefix())
        answer = await self.llm.aask(self.memory, system_msgs=[system_prompt])
        self.memory.append({"role": "assistant", "content": answer})
        return answer
''',
}


def test_a_list_of_system_texts_made_into_system_messages_is_a_system_slot() -> None:
    """`[self._system_msg(m) for m in msgs]`: each item of the parameter becomes a system message
    (a comprehension carries the list into its items), so `system_msgs` is a system slot."""
    flows = flows_of('''
def _system_msgs(self, msgs):
    return [{"role": "system", "content": msg} for msg in msgs]
''', method=True)
    assert (0, "msgs", SYSTEM) in flows


def test_a_clock_in_a_list_of_system_texts_is_judged_as_system_content_before_the_history(tmp_path: Path) -> None:
    """MetaGPT's shape: `llm.aask(memory, system_msgs=[prompt])` on a provider made by a registry.
    The list of system texts is not the request's message list, and though one provider sends
    each text as a user turn (a `_system_msg` of the same name), the call hands the messages in
    another argument, after which they go either way: the clock is system content ahead of the
    conversation, an error."""
    message = only_finding(findings(tmp_path, LIST_OF_SYSTEM_TEXTS), "app/role.py", 5, "error")
    assert "`datetime.now()`" in message and "conversation history" in message


def test_branches_of_an_if_start_from_the_state_before_it(tmp_path: Path) -> None:
    """Each branch of an `if` builds its own request from the state before it: the clock the
    first branch prepends is not in the long prompt the other branch sends (a converter's
    `if role == "user": ... elif role == "tool": ...` in OpenHands leaked the same way)."""
    source = '''
import time

from openai import OpenAI

RULES = "Answer in the house style, cite the policy section, and never speculate.\\n" * 80


def answer(question, mode):
    prompt = "You are a support agent."
    if mode == "timed":
        prompt = f"[{time.time()}] " + prompt
        messages = [{"role": "system", "content": prompt}, {"role": "user", "content": question}]
    else:
        prompt = prompt + "\\n" + RULES
        messages = [{"role": "system", "content": prompt}, {"role": "user", "content": question}]
    return OpenAI().chat.completions.create(model="gpt-4o", messages=messages)
'''
    assert findings(tmp_path, {"app/answer.py": source}) == []


def test_a_volatile_value_from_either_branch_is_kept(tmp_path: Path) -> None:
    """Branches run from the same state, and where both set a name, the one that makes it volatile
    wins: what either branch sends may be sent."""
    source = '''
import time
from openai import OpenAI

RULES = "Answer in the house style, cite the policy section, and never speculate.\\n" * 80


def answer(question, verbose):
    if verbose:
        header = f"Request received at {time.time()}."
    else:
        header = "Request received."
    system = header + "\\n" + RULES
    return OpenAI().chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "system", "content": system}, {"role": "user", "content": question}],
    )
'''
    found = findings(tmp_path, {"app/answer.py": source})
    assert [(path, line) for path, line, _, _ in found] == [("app/answer.py", 9)]
    assert "`time.time()`" in found[0][3]


KNOWLEDGE_IN_THE_SYSTEM_MESSAGE = '''
import copy

from openai import OpenAI

SYSTEM = "system"
ROLE = "role"
CONTENT = "content"
KNOWLEDGE_TEMPLATE = "# Knowledge Base\\n\\n{knowledge}"


class Message(dict):
    def __init__(self, role, content):
        super().__init__(role=role, content=content)


class Assistant:
    def __init__(self, mem):
        self.mem = mem
        self.client = OpenAI()

    def run(self, messages: list[Message]) -> str:
        messages = self._prepend_knowledge_prompt(messages)
        return self.client.chat.completions.create(model="gpt-4o", messages=messages)

    def _prepend_knowledge_prompt(self, messages: list[Message]) -> list[Message]:
        messages = copy.deepcopy(messages)
        *_, last = self.mem.run(messages=messages)
        snippets = []
        for k in last[-1][CONTENT]:
            snippets.append(f"## {k['source']}\\n{k['content']}")
        knowledge_prompt = KNOWLEDGE_TEMPLATE.format(knowledge="\\n\\n".join(snippets))
        if messages and messages[0][ROLE] == SYSTEM:
            messages[0][CONTENT] += "\\n\\n" + knowledge_prompt
        else:
            messages = [Message(role=SYSTEM, content=knowledge_prompt)] + messages
        return messages
'''


def test_knowledge_retrieved_for_the_conversation_and_written_into_its_system_message(tmp_path: Path) -> None:
    """Qwen-Agent's shape: snippets retrieved for the whole conversation are appended to the
    system message at its head (`messages[0][CONTENT] += ...` under a test that it is a system
    message). The rest of the list is the conversation: the retrieved text, new on every turn, sits
    ahead of it. No LLM call in sight, no parameter named like a conversation: the list is the
    conversation because the function heads it with system text."""
    found = findings(tmp_path, {"app/assistant.py": KNOWLEDGE_IN_THE_SYSTEM_MESSAGE})
    assert [(path, severity) for path, _, severity, _ in found] == [("app/assistant.py", "error")]
    assert "request-derived" in found[0][3] and "conversation history" in found[0][3]


def test_memories_recalled_into_the_first_message_of_a_kept_list(tmp_path: Path) -> None:
    """crewAI's shape: memories recalled per kickoff appended to `self._messages[0]["content"]`
    when that first message is the system one; the messages the agent keeps follow it."""
    source = '''
import litellm

PROMPT = "You are a research agent. Think step by step and use the tools."


class LiteAgent:
    def __init__(self, memory):
        self._memory = memory
        self._messages = []

    def kickoff(self, messages):
        self._messages = [{"role": "system", "content": PROMPT}, *messages]
        self._inject_memory_context(messages[-1]["content"])
        return litellm.completion(model="gpt-4o", messages=self._messages)

    def _inject_memory_context(self, query):
        matches = self._memory.recall(query, limit=10)
        block = "Relevant memories:\\n" + "\\n".join(f"- {m.content}" for m in matches)
        if self._messages and self._messages[0].get("role") == "system":
            existing = self._messages[0].get("content", "")
            self._messages[0]["content"] = existing + "\\n\\n" + block
'''
    message = only_finding(findings(tmp_path, {"app/agent.py": source}), "app/agent.py", 18, "error")
    assert "`self._memory.recall(query, limit=10)`" in message and "conversation history" in message


@pytest.mark.parametrize("rewrite", [
    'messages[0]["content"] += "\\nAnswer in JSON matching the schema."',  # a fixed suffix
    'messages[0]["content"] = trim(messages[0]["content"], 4000)',  # the same text, trimmed
])
def test_a_system_message_rewritten_with_fixed_or_its_own_text_is_left_alone(tmp_path: Path, rewrite: str) -> None:
    source = f'''
import litellm


def trim(text, limit):
    return text[:limit]


def prepare(messages, memory_store):
    memories = memory_store.search_memories(messages[-1]["content"])
    if messages[0]["role"] == "system":
        {rewrite}
    return messages


def reply(messages, memory_store):
    return litellm.completion(model="gpt-4o", messages=prepare(messages, memory_store))
'''
    assert findings(tmp_path, {"app/prepare.py": source}) == []


def test_the_system_text_read_back_from_the_head_is_not_the_conversation(tmp_path: Path) -> None:
    """browser-use's providers append a JSON-schema instruction to the system message they are
    handed (`messages[0].content += schema`); the same function has a local `content` made from
    the conversation (the reply to it). The head's own text is the system prompt, not that local."""
    source = '''
import json
import litellm


def ask(messages, output_schema):
    modified_messages = [m.model_copy(deep=True) for m in messages]
    if modified_messages and modified_messages[0].role == "system":
        modified_messages[0].content += "\\n\\nRespond with JSON:\\n" + json.dumps(output_schema)
    response = litellm.completion(model="gpt-4o", messages=[m.model_dump() for m in modified_messages])
    content = response.choices[0].message.content
    return content
'''
    assert findings(tmp_path, {"app/provider.py": source}) == []


def test_the_first_message_rewritten_without_a_system_test_is_not_taken_for_system_text(tmp_path: Path) -> None:
    """With no test that the first message is a system one, `messages[0]` may be the user's turn:
    the rewrite is not judged as system content."""
    source = '''
import litellm


def prepare(messages, memory_store):
    memories = memory_store.search_memories(messages[-1]["content"])
    messages[0]["content"] += "\\n" + "\\n".join(memories)
    return messages


def reply(messages, memory_store):
    return litellm.completion(model="gpt-4o", messages=prepare(messages, memory_store))
'''
    assert findings(tmp_path, {"app/prepare.py": source}) == []


@pytest.mark.parametrize("imported, clock", [
    ("from datetime import datetime", "datetime.now()"),
    ("import datetime as dt", "dt.datetime.now()"),
    ("import datetime", "datetime.datetime.now()"),
])
def test_an_import_inside_a_function_binds_its_name(tmp_path: Path, imported: str, clock: str) -> None:
    """agno imports the clock in the branch that needs it (`if agent.add_datetime_to_context:
    from datetime import datetime`): the local name is the module's, and the clock is found."""
    source = f'''
from openai import OpenAI

RULES = "Follow the house rules and answer with one command at a time.\\n" * 90


def system_message(agent):
    if agent.add_datetime_to_context:
        {imported}

        return {{"role": "system", "content": f"The current time is {{{clock}}}." + RULES}}
    return {{"role": "system", "content": RULES}}


def run(agent, history):
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[system_message(agent), *history])
'''
    message = only_finding(findings(tmp_path, {"app/agent.py": source}), "app/agent.py", 10, "error")
    assert f"clock `{clock}`" in message


MESSAGE_CLASS = """
class Message:
    def __init__(self, role, content):
        self.role = role
        self.content = content
"""


def test_a_message_whose_role_is_a_setting_named_for_the_system_role_is_system_content(tmp_path: Path) -> None:
    """`Message(role=agent.system_message_role, content=...)`: the role is a setting, named for
    the system role (agno), and the message is judged as system content with the history after
    it assumed, in a file with no SDK call and no known message class."""
    source = '''
import time

RULES = "Follow the house rules and answer with one command at a time.\\n" * 90

''' + MESSAGE_CLASS + '''

def get_system_message(agent):
    return Message(role=agent.system_message_role, content=f"Request {time.time()}.\\n" + RULES)
'''
    message = only_finding(findings(tmp_path, {"app/messages.py": source}), "app/messages.py", 13, "error")
    assert "`time.time()`" in message and "role= keyword" in message


RUN_MESSAGES = '''
from datetime import datetime

RULES = "Follow the house rules and answer with one command at a time.\\n" * 8

''' + MESSAGE_CLASS + '''

def get_system_message(agent):
    content = f"<time>{datetime.now()}</time>\\n" + RULES
    return Message(role="system", content=content) if content else None


class RunMessages:
    def __init__(self):
        self.messages = []


def get_run_messages(agent, session, question):
    run_messages = RunMessages()
    system_message = get_system_message(agent)
    if system_message is not None:
        run_messages.messages.append(system_message)
    history = session.get_messages(last_n_runs=3)
    history_copy = [Message(role=m.role, content=m.content) for m in history]
    run_messages.messages += FOLLOWED
    run_messages.messages.append(Message(role="user", content=question))
    return run_messages
'''


def test_a_returned_system_message_the_caller_follows_with_the_conversation(tmp_path: Path) -> None:
    """agno builds the system message in one function and returns it; the caller appends it to
    the run's list (an attribute of a local object) and then a copy of the session's history. The
    history is known to follow, so a clock ahead of only ~500 characters of rules is an error,
    not an info on an assumed history."""
    source = RUN_MESSAGES.replace("FOLLOWED", "history_copy")
    message = only_finding(findings(tmp_path, {"app/messages.py": source}), "app/messages.py", 13, "error")
    assert "assumed" not in message and "the conversation history" in message


def test_a_returned_system_message_the_caller_follows_with_other_messages_keeps_its_history_assumed(
        tmp_path: Path) -> None:
    source = RUN_MESSAGES.replace("FOLLOWED", "[Message(role='assistant', content='Ready.')]")
    assert "error" not in [severity for _, line, severity, _ in findings(tmp_path, {"app/messages.py": source})
                           if line == 13]


def test_a_value_a_try_body_sets_is_not_hidden_by_its_handlers_fallback(tmp_path: Path) -> None:
    """INVALID: the handler's fallback (`stamp = "unknown"`) runs only when the clock fails; the prompt
    usually carries the clock, so it is reported, as with the branches of an `if`."""
    found = findings(tmp_path, {"app.py": '''
from datetime import datetime
from openai import OpenAI
client = OpenAI()
POLICY = "Follow the refund policy step by step and cite the relevant section. " * 40
def answer(question: str) -> str:
    try:
        stamp = datetime.now().isoformat()
    except ValueError:
        stamp = "unknown"
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"Now: {stamp}\\n" + POLICY}, {"role": "user", "content": question}])
'''})
    assert [(path, line) for path, line, _, _ in found] == [("app.py", 11)]


# MetaGPT's provider base class: a converter that first wraps a lone message in a list, then copies
# each message into a dict by its type; the role keeps the history it was handed in a memory.
CONVERTER_APP = {"app/llm.py": '''
from datetime import datetime
from openai import OpenAI


class Message:
    def __init__(self, content: str, role: str = "user"):
        self.content = content
        self.role = role

    def to_dict(self) -> dict:
        return {"role": self.role, "content": self.content}


class LLM:
    def __init__(self):
        self.client = OpenAI()

    def format_msg(self, messages):
        if not isinstance(messages, list):
            messages = [messages]
        processed = []
        for msg in messages:
            if isinstance(msg, str):
                processed.append({"role": "user", "content": msg})
            elif isinstance(msg, dict):
                processed.append(msg)
            else:
                processed.append(msg.to_dict())
        return processed

    def ask(self, messages: list, system: str):
        return self.client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": system}] + messages)
''', "app/role.py": '''
from datetime import datetime
from app.llm import LLM

GUIDE = "Answer the team's question directly; do not delegate it to another member. " * 30


class Role:
    def __init__(self):
        self.llm = LLM()
        self.history = []

    def reply(self, question: str):
        self.history.append({"role": "user", "content": question})
        system = f"You are the team lead. The current time is {datetime.now()}.\\n" + GUIDE
        return self.llm.ask(self.llm.format_msg(self.history), system)
'''}


def test_a_converter_copying_each_message_keeps_the_history_a_run(tmp_path: Path) -> None:
    """INVALID: the history goes through a converter that tests each message's type; what it
    appends for the history it is handed is a run of messages (not one user message), so the clock
    in the system text is ahead of the whole conversation."""
    found = findings(tmp_path, CONVERTER_APP)
    message = only_finding(found, "app/role.py", 14, "error")
    assert "before 2,252 characters of stable text and the conversation history (system prompt, " \
           "conversation history)" in message


def test_a_type_test_of_a_known_list_runs_only_its_branch(tmp_path: Path) -> None:
    """`if not isinstance(messages, list): messages = [messages]` handed a list keeps the list: the
    system message and the question it holds are still seen as such after the converter."""
    source = CONVERTER_APP["app/role.py"].replace(
        "return self.llm.ask(self.llm.format_msg(self.history), system)",
        'return self.llm.client.chat.completions.create(model="gpt-4o", messages=self.llm.format_msg(\n'
        '            [{"role": "system", "content": system}, {"role": "user", "content": question}]))')
    assert source != CONVERTER_APP["app/role.py"]
    message = only_finding(findings(tmp_path, {**CONVERTER_APP, "app/role.py": source}), "app/role.py", 14, "warning")
    assert "before 2,252 characters of stable text (system prompt)" in message


def test_a_list_walked_newest_first_and_turned_back_keeps_its_order(tmp_path: Path) -> None:
    """`reversed(messages)` yields the items last to first, and `kept.reverse()` turns the copy
    back: the request sends the system message first, as written."""
    root = write_tree(tmp_path, '''
from openai import OpenAI

SYSTEM = "You answer questions about the manual. " * 40

def ask(client: OpenAI, history: list, question: str):
    messages = [{"role": "system", "content": SYSTEM}, *history, {"role": "user", "content": question}]
    kept = []
    for message in reversed(messages):
        kept.append(message)
    kept.reverse()
    return client.chat.completions.create(model="gpt-4o", messages=kept)
''')
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    [layout] = [layout for layout in result.layouts if layout.call.api == "openai.chat.completions"]
    assert [part.name for part in layout.parts] == ["system", "history", "final_user"]


# Qwen-Agent's ParallelDocQA: the question is read out of the last message into a local named like
# the request's input, knowledge is retrieved for it and handed to a summary agent that appends it
# to the system message of the conversation it was given.
LOCAL_QUESTION_APP = '''
from openai import OpenAI

RULES = "Answer only from the knowledge base below and cite the passages you used. " * 30

class Summary:
    def __init__(self):
        self.client = OpenAI()

    def run(self, messages: list, knowledge: str):
        messages = list(messages)
        system_prompt = "# Knowledge base\\n" + knowledge + "\\n" + RULES
        if messages and messages[0]["role"] == "system":
            messages[0]["content"] += "\\n\\n" + system_prompt
        else:
            messages.insert(0, {"role": "system", "content": system_prompt})
        user_question = messages[-1]["content"]
        messages[-1] = {"role": "user", "content": "Question: {question}".format(question=user_question)}
        return self.client.chat.completions.create(model="gpt-4o", messages=messages)

class DocQA:
    def __init__(self, store):
        self.store = store
        self.summary = Summary()

    def run(self, messages: list):
        user_question = messages[-1]["content"]
        passages = self.store.search(user_question)
        return self.summary.run(messages=messages, knowledge="\\n".join(passages))
'''


def test_a_local_named_like_the_request_input_makes_what_is_retrieved_for_it_per_request(
        tmp_path: Path) -> None:
    """INVALID: `user_question` is the request's input even as a local; the passages retrieved for
    it, put in the system message ahead of the conversation, change on every question (reported
    where the summary builds them into its system prompt)."""
    message = only_finding(findings(tmp_path, {"app.py": LOCAL_QUESTION_APP}), "app.py", 11, "error")
    assert message.startswith("per-request request-derived `\"\\n\".join(passages)` comes before")
    assert "`user_question`" in message and "is the request's own input" in message


def test_replacing_the_last_message_with_the_question_leaves_the_others_as_they_were(tmp_path: Path) -> None:
    """VALID: `messages[-1] = {... question ...}` rewrites the user's turn only; the system message
    at `messages[0]` is not made from the question."""
    source = LOCAL_QUESTION_APP.replace('"# Knowledge base\\n" + knowledge + "\\n" + RULES', "RULES")
    assert source != LOCAL_QUESTION_APP
    assert findings(tmp_path, {"app.py": source}) == []


MEMORY_AGENT = '''
from datetime import datetime
from openai import OpenAI

class MemoryManager:
    def __init__(self, db=None):
        self.db = db

    def get_user_memories(self, user_id=None):
        if self.db:
            memories = self.db.read_memories(user_id)
            if memories is None:
                return []
            return memories.get(user_id, [])
        return []

RULES = "Answer from the user's documents only and cite the file you used. " * 40

class Agent:
    def __init__(self, memory_manager=None, add_datetime=False):
        self.memory_manager = memory_manager
        self.add_datetime = add_datetime

    def system_message(self, user_id=None):
        content = "You are a careful assistant.\\n"
        if self.add_datetime:
            content += f"Now: {datetime.now()}\\n"
        if not user_id:
            user_id = "default"
        if self.memory_manager is None:
            self.memory_manager = MemoryManager()
        user_memories = self.memory_manager.get_user_memories(user_id=user_id)
        if user_memories and len(user_memories) > 0:
            content += "<memories>"
            for memory in user_memories:
                content += f"\\n- {memory.text}"
            content += "</memories>\\n"
        else:
            content += "No memories of this user yet.\\n"
        return content + %s

    def run(self, history, question):
        messages = [{"role": "system", "content": self.system_message()}, *history,
                    {"role": "user", "content": question}]
        return OpenAI().chat.completions.create(model="gpt-4o", messages=messages)
'''


def test_memories_a_store_returns_are_new_also_for_a_constant_user(tmp_path: Path) -> None:
    """INVALID, found on bench/wild (agno): the memories listed in the system prompt are written
    by the conversation, so they change between requests even for the default user; the store's
    `return []` when no database is configured (the analysis sees its default, None) is not what a
    request finds; and the memory branch is the one judged although the optional clock before it
    makes both branches volatile."""
    found = findings(tmp_path, {"agent.py": MEMORY_AGENT % "RULES"})
    memory = [(line, message) for _, line, severity, message in found if "memory" in message]
    assert [line for line, _ in memory] == [35]
    assert memory[0][1].startswith("per-request memory `self.memory_manager.get_user_memories(user_id=user_id)` "
                                   "comes before 2,652 characters of stable text")
    assert "the conversation writes the memories it returns" in memory[0][1]


def test_memories_in_the_users_turn_are_quiet(tmp_path: Path) -> None:
    """VALID: the same memories sent in the final user message, after the fixed system prompt and
    the history: nothing that is cached comes after them."""
    program = (MEMORY_AGENT % "RULES").replace(
        '''[{"role": "system", "content": self.system_message()}, *history,
                    {"role": "user", "content": question}]''',
        '''[{"role": "system", "content": RULES}, *history,
                    {"role": "user", "content": self.system_message() + question}]''')
    assert "self.system_message() + question" in program
    assert [message for _, _, _, message in findings(tmp_path, {"agent.py": program}) if "memory" in message] == []


USER_CONTEXT_PROMPT = '''
from dataclasses import dataclass, field
from openai import OpenAI

CITATIONS = "Cite every document you use as [n] and never invent a source. " * 40

@dataclass
class UserMemoryContext:
    memories: list = field(default_factory=list)
    %s

def build_system_prompt(base: str, user_memory_context: UserMemoryContext | None = None) -> str:
    prompt = base
    if user_memory_context and user_memory_context.%s:
        formatted = "\\n".join(f"- {item}" for item in user_memory_context.%s)
        prompt += "\\n# What you know about the user\\n" + formatted
    return prompt + CITATIONS

def chat(base, ctx, history, question):
    messages = [{"role": "system", "content": build_system_prompt(base, ctx)}, *history,
                {"role": "user", "content": question}]
    return OpenAI().chat.completions.create(model="gpt-4o", messages=messages)
'''


def test_memories_named_so_are_written_by_the_conversation(tmp_path: Path) -> None:
    """INVALID, found on bench/wild (onyx): the user's memories (`ctx.memories`, what a memory tool
    writes) go into the system prompt ahead of the citation rules and the history: each memory the
    conversation writes misses the whole re-sent history (rules/prompt_sinks.yaml memory_names)."""
    found = findings(tmp_path, {"prompts.py": USER_CONTEXT_PROMPT % ("", "memories", "memories")})
    message = only_finding(found, "prompts.py", 14, "error")
    assert message.startswith("per-request memory `user_memory_context.memories` comes "
                              "before 2,480 characters of stable text and the conversation history")
    assert "`memories` is taken by its name to be what a memory store holds about the user" in message


def test_a_value_named_for_one_memory_or_a_setting_is_not_memories(tmp_path: Path) -> None:
    """VALID: the user's display preferences, set in the settings page, are no memories; nor is
    what an agent calls its `memory` (the conversation it keeps, judged as history)."""
    for name in ("preferences", "memory"):
        program = USER_CONTEXT_PROMPT % (f"{name}: list = field(default_factory=list)", name, name)
        assert findings(tmp_path / name, {"prompts.py": program}) == []


def test_a_retriever_returning_its_empty_default_text_is_no_lookup(tmp_path: Path) -> None:
    """VALID, found on bench/wild (MetaGPT): the role's default experience retriever returns its
    `EXAMPLE = ""` whatever the context: a setting, not what a search found (an empty list from an
    unconfigured store is; see the memory agent above)."""
    assert findings(tmp_path, {"role.py": '''
from openai import OpenAI

PROMPT = "# Past experience\\n{example}\\n# Rules\\n" + "Plan one step at a time and say which tool you use. " * 40

class DummyExpRetriever:
    EXAMPLE = ""

    def retrieve(self, context=""):
        return self.EXAMPLE

class Role:
    def __init__(self):
        self.experience_retriever = DummyExpRetriever()
        self.notes = []

    def think(self, history):
        context = "\\n\\n".join(str(note) for note in self.notes)
        example = self.experience_retriever.retrieve(context=context)
        messages = [{"role": "system", "content": PROMPT.format(example=example)}, *history]
        return OpenAI().chat.completions.create(model="gpt-4o", messages=messages)
'''}) == []


def test_memory_names_a_project_adds_in_its_config(tmp_path: Path) -> None:
    """`memory-names = ["facts"]`: a project that calls what it remembers `facts` has them judged as
    memories; without the setting they are unknown text and nothing is reported."""
    program = USER_CONTEXT_PROMPT % ("facts: list = field(default_factory=list)", "facts", "facts")
    assert findings(tmp_path / "plain", {"prompts.py": program}) == []
    root = write_tree(tmp_path / "configured", {"prompts.py": program,
                                                 "pyproject.toml": '[tool.promptlint]\nmemory-names = ["facts"]\n'})
    config = replace(load_config(root), cache_dir=None)
    assert config.memory_names == ("facts",)
    [finding] = analyze([root], config, cwd=root).findings
    assert (finding.location.line, finding.severity) == (14, Severity.ERROR)
    assert finding.message.startswith("per-request memory `user_memory_context.facts` comes before")


def test_an_optional_memory_left_at_none_is_still_read_where_it_is_used(tmp_path: Path) -> None:
    """INVALID, found on bench/wild (crewAI): `if self._memory is None: return` of a memory the
    agent is given only when configured is not a decision the analysis can take from the field's
    default: the recall after it still reaches the system message."""
    found = findings(tmp_path, {"agent.py": '''
from typing import Any
from openai import OpenAI
from pydantic import BaseModel, PrivateAttr

RULES = "Answer the user's question with the tools given; cite each tool result you use. " * 30

class LiteAgent(BaseModel):
    _memory: Any = PrivateAttr(default=None)  # set from the agent's `memory` setting when it is on
    _messages: list = PrivateAttr(default_factory=lambda: [{"role": "system", "content": RULES}])

    def _inject_memory_context(self, query):
        if self._memory is None:
            return
        matches = self._memory.recall(query, limit=10)
        self._messages[0]["content"] = "Relevant memories:\\n" + str(matches) + "\\n\\n" + self._messages[0]["content"]

    def kickoff(self, question, history):
        self._inject_memory_context(question)
        return OpenAI().chat.completions.create(model="gpt-4o", messages=[*self._messages, *history])
'''})
    assert [(line, message.split(" comes before")[0]) for _, line, _, message in found] == [
        (15, "per-request memory `self._memory.recall(query, limit=10)`")]


def test_a_test_of_what_an_attribute_holds_is_no_change_guard(tmp_path: Path) -> None:
    """INVALID, found on bench/wild (crewAI, once its agent's whole request was seen): memories
    put into the system message under `if self._messages and self._messages[0].get("role") ==
    "system":` change on every call; the test reads what the list holds, it does not detect a
    change (`if key != self._key:`, `if self._x is None:`), so the value is not "rebuilt only when
    `self._messages` changes". VALID: behind a real change guard the same text is per session."""
    agent = '''
from openai import OpenAI

RULES = "Answer the user's question with the tools given; cite each tool result you use. " * 120


class Agent:
    def __init__(self, memory) -> None:
        self._memory = memory
        self._messages: list = []
        self._query = None
        self.client = OpenAI()

    def _inject(self, query: str) -> None:
        matches = self._memory.recall(query, limit=10)
        block = "Relevant memories:\\n" + "\\n".join(f"- {m}" for m in matches)
        if TEST:
            self._messages[0]["content"] = block + "\\n\\n" + self._messages[0]["content"]

    def kickoff(self, question: str):
        self._messages = [{"role": "system", "content": RULES}, {"role": "user", "content": question}]
        self._inject(question)
        return self.client.chat.completions.create(model="gpt-4.1", messages=self._messages)
'''
    held = findings(tmp_path / "held", {"agent.py": agent.replace(
        "TEST", 'self._messages and self._messages[0].get("role") == "system"')})
    assert [message.split(" memory")[0] for _, _, _, message in held] == ["per-request"]
    guarded = findings(tmp_path / "guarded", {"agent.py": agent.replace("TEST", "query != self._query")})
    assert [message.split(" memory")[0] for _, _, _, message in guarded] == ["per-session"]


VOYAGER = '''
from langchain.chat_models import ChatOpenAI
from langchain.prompts import HumanMessagePromptTemplate, SystemMessagePromptTemplate
from langchain.vectorstores import Chroma

TEMPLATE = "You write Mineflayer code.\\n\\nUseful programs:\\n{programs}\\n\\n" + "Follow these rules. " * 150


class SkillManager:
    def __init__(self) -> None:
        self.vectordb = Chroma(collection_name="skills")

    def retrieve_skills(self, query):
        return [doc.page_content for doc in self.vectordb.similarity_search(query, k=5)]


class ActionAgent:
    def __init__(self) -> None:
        self.llm = ChatOpenAI(model_name="gpt-4", temperature=0)

    def render_system_message(self, skills=()):
        prompt = SystemMessagePromptTemplate.from_template(TEMPLATE)
        return prompt.format(programs=PROGRAMS)

    def render_human_message(self, context, skills=()):
        return HumanMessagePromptTemplate.from_template("{context}\\n\\n{skills}").format(
            context=context, skills="\\n".join(skills))


class Voyager:
    def __init__(self) -> None:
        self.action_agent = ActionAgent()
        self.skill_manager = SkillManager()

    def step(self, context):
        skills = self.skill_manager.retrieve_skills(query=context)
        messages = [self.action_agent.render_system_message(skills=skills),
                    self.action_agent.render_human_message(context, skills=skills)]
        return self.action_agent.llm(messages)
'''


def test_a_system_role_template_is_judged_with_the_values_it_is_filled_with(tmp_path: Path) -> None:
    """INVALID (Voyager's action agent): `SystemMessagePromptTemplate.from_template(t).format(
    programs=...)` fills the skills retrieved for this step into the system message, before the
    fixed rules. Where the template is built only its placeholder is known, and the method that
    fills it takes the skills as a parameter: its `format(...)` keywords are system content (the
    callers are evaluated), and the rendered message is judged at the `format` call. Before, the
    slot was taken for fixed text and nothing was reported. VALID: the skills go in the human
    message, the system template is filled with fixed text only."""
    found = findings(tmp_path / "system", {"voyager.py": VOYAGER.replace("PROGRAMS", '"\\n\\n".join(skills)')})
    message = only_finding(found, "voyager.py", 5, "error")
    assert message.startswith("per-request retrieval `self.vectordb.similarity_search(query, k=5)`")
    # Judged in the request the legacy chat model sends (`self.action_agent.llm(messages)`), which
    # holds the rendered message; the `format` call is where it would be judged without it.
    assert "in the `langchain.chat_model.invoke` prompt" in message
    # With a model the analysis cannot type, the rendered message is judged where it is filled.
    unknown_model = VOYAGER.replace("PROGRAMS", '"\\n\\n".join(skills)').replace(
        'ChatOpenAI(model_name="gpt-4", temperature=0)', "load_model()")
    message = only_finding(findings(tmp_path / "unknown-model", {"voyager.py": unknown_model}), "voyager.py", 5, "error")
    assert "SystemMessagePromptTemplate.format()" in message
    assert findings(tmp_path / "human", {"voyager.py": VOYAGER.replace("PROGRAMS", '"mineBlock, craftItem"')}) == []


def test_what_a_system_role_template_is_filled_with_flows_to_system_content() -> None:
    """Directly or through the name the template is held in; a human role template is not."""
    direct = flows_of("def f(skills):\n    return SystemMessagePromptTemplate.from_template(T).format(p=skills)")
    held = flows_of("def f(skills):\n    t = SystemMessagePromptTemplate.from_template(T)\n"
                    "    return t.format_messages(p=skills)")
    human = flows_of("def f(skills):\n    return HumanMessagePromptTemplate.from_template(T).format(p=skills)")
    assert (0, "skills", SYSTEM) in direct and (0, "skills", SYSTEM) in held
    assert all(target != SYSTEM for _, _, target in human)


CONTENT_PARTS = '''
from dataclasses import dataclass
from datetime import datetime

import litellm

RULES = "Answer with one browser action; use element ids, never coordinates. " * 60


@dataclass
class TextContent:
    text: str
    type: str = "text"
    cache_prompt: bool = False


@dataclass
class ImageContent:
    image_urls: list


@dataclass
class Message:
    role: str
    content: list


def step(goal: str, screenshot: str):
    system = [TextContent(text=SYSTEM), ImageContent(image_urls=[screenshot])]
    messages = [Message(role="system", content=system), Message(role="user", content=[TextContent(text=goal)])]
    return litellm.completion(model="gpt-4o", messages=[m.__dict__ for m in messages])
'''


def test_a_projects_own_content_parts_hold_their_text(tmp_path: Path) -> None:
    """INVALID (OpenHands' agents): message content given as a list of the project's own content
    part objects (`TextContent(text=...)`, a dataclass or pydantic model): the text field is the
    message's text, so the clock before the rules is found where the system message is built.
    Before, each part was an unknown block and nothing was reported. An image part holds no
    text. VALID: the clock in the user's question."""
    clock = 'f"Now: {datetime.now()}\\n" + RULES'
    found = findings(tmp_path / "before", {"agent.py": CONTENT_PARTS.replace("SYSTEM", clock)})
    message = only_finding(found, "agent.py", 28, "error")
    assert message.startswith("per-request clock `datetime.now()` comes before 4,080 characters of stable text")
    in_the_question = CONTENT_PARTS.replace("SYSTEM", "RULES").replace("text=goal", 'text=f"{datetime.now()}: {goal}"')
    assert findings(tmp_path / "after", {"agent.py": in_the_question}) == []


SAME_NAME_WRAPPERS = {
    "providers.py": '''
from openai import OpenAI

class Chat:
    def __init__(self):
        self.client = OpenAI()

    def send(self, system, model):
        return self.client.chat.completions.create(model=model, messages=[{"role": "system", "content": system}])


class TracedChat:
    def __init__(self):
        self.client = OpenAI()

    def send(self, trace_id, system):
        print("trace", trace_id)
        return self.client.chat.completions.create(model="gpt-4o", messages=[{"role": "system", "content": system}])
''',
    "agent.py": '''
import uuid
from providers import TracedChat

GUIDE = "Answer from the manual, cite the section, keep it short. " * 60

class Agent:
    def __init__(self):
        self.chat = TracedChat()

    def ask(self):
        return self.chat.send(str(uuid.uuid4()), GUIDE)
''',
}


def test_a_call_on_a_known_object_takes_its_method_s_own_slots(tmp_path: Path) -> None:
    """VALID: two classes define `send`, with the system text first in one and second in the
    other; the name's slots are both positions. The call's object is known to be a `TracedChat`,
    whose `send` only prints its first argument: the request id there is not system text, and the
    guide is the system text, not a model name."""
    root = write_tree(tmp_path, SAME_NAME_WRAPPERS)
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    assert not result.errors, result.errors
    assert [f for f in result.findings if f.location.path == "agent.py"] == []


def test_a_call_on_an_unknown_object_keeps_every_definition_s_slots(tmp_path: Path) -> None:
    """The same call on an object the analysis cannot type (`chat` handed in): any `send` may run,
    so the request id is judged where the first one puts it, in system text (info: nothing known
    follows it there); the guide in the other's model slot is not taken for a model's name."""
    files = dict(SAME_NAME_WRAPPERS)
    files["agent.py"] = files["agent.py"].replace("    def __init__(self):\n        self.chat = TracedChat()",
                                                  "    def __init__(self, chat):\n        self.chat = chat")
    assert files["agent.py"] != SAME_NAME_WRAPPERS["agent.py"]
    root = write_tree(tmp_path, files)
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    found = [f for f in result.findings if f.location.path == "agent.py"]
    assert [(f.rule, f.severity.value) for f in found] == [("PC001", "info")]
    assert found[0].call_site.model is None and "Answer from the manual" not in found[0].message
