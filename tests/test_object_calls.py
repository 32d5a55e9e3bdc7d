"""Objects called and filled the way real projects write them (issue 14): a model object called
with the message list (smolagents' `self.model(messages)`, huggingface/smolagents in bench/wild),
an attribute a constructor leaves empty (`self.topic = ""`) until a method sets it (camel's
long-term memory), and a default a helper fills in only when it is handed nothing
(`if not system: system = DEFAULT`, pr-agent's LiteLLM handler): with the caller's text known,
the default is never used. Also the conversation objects gpt-pilot builds (a base class's
constructor through `super()`, a fork returned with its copied messages, a client object called as
a function), a classmethod called through its class, a hand-written dedent helper, and PC003 left
quiet where a set's order follows text that changes on every call (sweep), and a mixin's call of
a method its class gets from another base in another module (crewAI's `Flow`)."""

from __future__ import annotations

from pathlib import Path

from promptlint.config import Config
from promptlint.engine import analyze
from tests.conftest import write_tree


def findings(root: Path) -> list[tuple[str, int, str, str]]:
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert not result.errors, result.errors
    return [(f.location.path, f.location.line, f.rule, f.severity.value) for f in result.findings]


def twins(tmp_path: Path, program: str, marker: str, invalid: str, valid: str) -> list[tuple[int, str, str]]:
    """(line, rule, severity) of the findings on the INVALID program; its VALID twin has none."""
    fixed = write_tree(tmp_path / "valid", {"app.py": program.replace(marker, valid)})
    assert findings(fixed) == []
    stamped = write_tree(tmp_path / "invalid", {"app.py": program.replace(marker, invalid)})
    return [(line, rule, severity) for _, line, rule, severity in findings(stamped)]


def judged_in_the_request(root: Path, line: int) -> None:
    """One PC001 error at ``line``, judged on the request the client sends, whose messages are all
    known: no conversation history is assumed after them."""
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert [(f.location.line, f.rule, f.severity.value) for f in result.findings] == [(line, "PC001", "error")]
    assert "`openai.chat.completions` prompt" in result.findings[0].message
    assert "conversation history" not in result.findings[0].message


MODEL = '''
from openai import OpenAI


class Model:
    def __init__(self, model_id: str) -> None:
        self.model_id = model_id
        self.client = OpenAI()

    def __call__(self, messages: list) -> str:
        return self.generate(messages)

    def generate(self, messages: list) -> str:
        raise NotImplementedError
'''

INSPECTOR = '''
from model import Model

CAPTION = "You will write a short caption for this file, then answer the question that follows. " * 20


class FileInspector:
    def __init__(self, model: Model = None) -> None:
        self.model = model

    def forward(self, text: str, question: str) -> str:
        messages = [
            {"role": "system", "content": FIRST},
            {"role": "user", "content": "Here is the complete file:\\n" + text},
            {"role": "user", "content": "Now answer the question below.\\n" + question},
        ]
        return self.model(messages)
'''


def test_a_model_object_called_with_the_message_list(tmp_path: Path) -> None:
    """INVALID: a tool hands its messages to a model object it holds (`self.model(messages)`);
    the list is the request, so the question that opens the system message, ahead of the
    caption rules and the file, is judged as in any request (an error, not the info an assembly
    point with an assumed history gets). VALID twin: the question only in the last message."""
    asked = write_tree(tmp_path / "asked", {
        "model.py": MODEL, "inspector.py": INSPECTOR.replace("FIRST", 'CAPTION + "Question: " + question')})
    assert ("inspector.py", 12, "PC001", "error") in findings(asked)
    fixed = write_tree(tmp_path / "fixed", {"model.py": MODEL, "inspector.py": INSPECTOR.replace("FIRST", "CAPTION")})
    assert [f for f in findings(fixed) if f[1] == 12] == []


MEMORY = '''
from openai import OpenAI

client = OpenAI()
SYSTEM = "You are a helpful assistant for the support team. Answer from the records only. " * 30


class LongTermMemory:
    def __init__(self, vector_store) -> None:
        self.vector_store = vector_store
        self.records = [{"role": "system", "content": SYSTEM}]
        self.topic = EMPTY

    def write(self, record: dict) -> None:
        self.records.append(record)
        if record["role"] == "user":
            self.topic = record["content"]

    def context(self) -> list:
        hits = self.vector_store.search(self.topic, 3)
        return self.records[:1] + hits + self.records[1:]


class Agent:
    def __init__(self, memory: LongTermMemory) -> None:
        self.memory = memory

    def step(self, text: str) -> str:
        self.memory.write({"role": "user", "content": text})
        reply = client.chat.completions.create(model="gpt-4o", messages=self.memory.context())
        return reply.choices[0].message.content
'''


def test_an_attribute_left_empty_until_the_user_writes(tmp_path: Path) -> None:
    """INVALID: the search key starts as `""` and each user message replaces it, so the records
    found for it, spliced in right after the system message, change ahead of the history every
    turn. The empty string is a placeholder, as `None` is (both twins are found)."""
    for placeholder in ('""', "None"):
        root = write_tree(tmp_path / (placeholder.strip('"') or "empty"), {"app.py": MEMORY.replace("EMPTY", placeholder)})
        assert any(rule == "PC001" and line == 29 for _, line, rule, _ in findings(root)), placeholder


HANDLER = '''
from openai import OpenAI

client = OpenAI()
REVIEW = "You review pull requests. Report bugs, security issues and missing tests, with line numbers. " * 60


def chat(system: str, user: str, model: str = "gpt-4o") -> str:
    if "claude" in model and not system:
        system = "No system prompt provided"
    reply = client.chat.completions.create(model=model, messages=[
        {"role": "system", "content": system}, {"role": "user", "content": user}])
    return reply.choices[0].message.content


def review(diff: str) -> str:
    return chat(SYSTEM, diff)
'''


def test_a_default_filled_in_only_for_an_empty_argument(tmp_path: Path) -> None:
    """INVALID: the caller's system prompt opens with the clock; the handler's default replaces
    the system prompt only when none is given, which never happens here, so the request carries
    the caller's prompt and the clock is found where the caller writes it. VALID twin: the
    caller's prompt without the clock."""
    stamped = 'f"Today is {datetime.now()}.\\n" + REVIEW'
    root = write_tree(tmp_path / "stamped", {"app.py": "from datetime import datetime\n" + HANDLER.replace("SYSTEM", stamped)})
    judged_in_the_request(root, 18)  # before: after a wrapper's system text, a history assumed
    plain = write_tree(tmp_path / "plain", {"app.py": HANDLER.replace("SYSTEM", "REVIEW")})
    assert findings(plain) == []


FILLER = '''
import time
from openai import OpenAI

client = OpenAI()
RULES = "Rules: be precise, cite the file and line of every change, and never invent an API. " * 60


class PromptBuilder:
    @classmethod
    def fill(cls, prompt: str, task: str) -> str:
        return prompt.replace("{task}", task)


def run(template: str) -> str:
    prompt = PromptBuilder.fill("Task: {task}\\n" + RULES, TASK)
    return client.chat.completions.create(model="gpt-4o", messages=[{"role": "system", "content": prompt}])
'''


def test_a_classmethod_called_through_its_class(tmp_path: Path) -> None:
    """INVALID: `PromptBuilder.fill(template, task)` binds `cls` to the class, so the template is
    `prompt` and the stamped task fills its slot ahead of the rules (before, `cls` took the
    template and the prompt came out as the task alone). VALID twin: a fixed task."""
    assert twins(tmp_path, FILLER, "TASK", 'f"step at {time.time()}"', '"review the diff"') == [(15, "PC001", "error")]


DEDENT = '''
from datetime import datetime
from openai import OpenAI

RULES = "Always answer in English and cite the documents by their number. " * 80


def dedent(text: str) -> str:
    indent = len(text)
    lines = text.splitlines()
    for line in lines:
        if line.strip():
            indent = min(indent, len(line) - len(line.lstrip()))
    return "\\n".join(line for line in [line[indent:].rstrip() for line in lines])


def ask(question: str) -> str:
    system = dedent(FIRST + RULES)
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
'''


def test_a_hand_written_dedent_keeps_the_lines(tmp_path: Path) -> None:
    """INVALID: a project's own dedent helper splits the prompt into lines, cuts each line's
    indent and joins them again (gpt-pilot's `Convo._dedent`); the clock stays in its line,
    ahead of the rules. VALID twin: a fixed first line."""
    assert twins(tmp_path, DEDENT, "FIRST", 'f"Now: {datetime.now()}\\\\n"', '"You are a librarian.\\\\n"') \
        == [(17, "PC001", "error")]


CONVERSATION = '''
import time
from openai import OpenAI

RULES = "Write the code for one file at a time, keep it short, and never touch files you were not given. " * 50


class Client:
    def __init__(self, model: str) -> None:
        self.model = model
        self.client = OpenAI()

    def __call__(self, convo: "Convo") -> str:
        return self.client.chat.completions.create(model=self.model, messages=convo.messages)


class Convo:
    def __init__(self) -> None:
        self.messages = []

    def add(self, role: str, content: str) -> "Convo":
        self.messages.append({"role": role, "content": content})
        return self


class AgentConvo(Convo):
    def __init__(self, system_prompt: str) -> None:
        super().__init__()
        self.add("system", system_prompt)

    def fork(self) -> "AgentConvo":
        child = AgentConvo(RULES)
        child.messages = list(self.messages)
        return child


def implement(file_name: str) -> str:
    llm = Client("gpt-4o")
    convo = AgentConvo(system_prompt=FIRST + RULES).fork()
    convo.add("user", f"Write {file_name}.")
    return llm(convo)
'''


def test_a_conversation_object_built_through_super_and_sent_by_a_callable_client(tmp_path: Path) -> None:
    """INVALID: the conversation's list is made by the base class (`super().__init__()`), copied
    into a fork (`child.messages = ...` on the new object, which is returned), and sent by a
    client object called as a function (its `__call__`); the stamped system message is judged in
    that request, ahead of the rules. VALID twin: no stamp."""
    stamped = write_tree(tmp_path / "stamped", {"app.py": CONVERSATION.replace("FIRST", 'f"Session {time.time()}\\\\n"')})
    judged_in_the_request(stamped, 38)  # before: at the system message's dict, a history assumed
    fixed = write_tree(tmp_path / "fixed", {"app.py": CONVERSATION.replace("FIRST", '"You are a developer.\\\\n"')})
    assert findings(fixed) == []


ASKED = '''
import time
from openai import OpenAI

client = OpenAI()
RULES = "Answer only from the search results, and cite each result you use by its number. " * 40


def step(question: str, asked: list) -> str:
    note = FIRST + "Already asked: " + ", ".join(set(asked)) + "\\n" + RULES
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": note}, {"role": "user", "content": question}])
'''


def test_a_set_order_after_text_that_changes_on_every_call(tmp_path: Path) -> None:
    """VALID for PC003: the set of questions asked so far comes after the step's clock, which
    changes the prompt on every call already (PC001 reports the clock); the set's order costs
    nothing more (sweep's question answerer, judged false in bench/wild). INVALID twin: the set
    first, ahead of the rules, is a warning."""
    stamped = write_tree(tmp_path / "stamped", {"app.py": ASKED.replace("FIRST", 'f"Step at {time.time()}. "')})
    assert [rule for _, _, rule, _ in findings(stamped)] == ["PC001"]
    fixed = write_tree(tmp_path / "fixed", {"app.py": ASKED.replace("FIRST", '"Step. "')})
    assert [(rule, severity) for _, _, rule, severity in findings(fixed)] == [("PC003", "warning")]


def test_a_branch_under_a_false_flag_still_runs(tmp_path: Path) -> None:
    """INVALID: `if not cached:` with `cached = False` is taken (a bool literal is no non-empty
    text): the stamped prompt it builds is judged."""
    program = HANDLER.replace('''def review(diff: str) -> str:
    return chat(SYSTEM, diff)''', '''def review(diff: str) -> str:
    cached = False
    system = REVIEW
    if not cached:
        system = f"Today is {datetime.now()}.\\\\n" + REVIEW
    return chat(system, diff)''')
    root = write_tree(tmp_path, {"app.py": "from datetime import datetime\n" + program})
    assert any(rule == "PC001" for _, _, rule, _ in findings(root))


GETATTR = '''
import datetime
from openai import OpenAI

RULES = "Follow the house style guide in every answer and cite your sources. " * 90


class Agent:
    def __init__(self):
        self.client = OpenAI()
        self.system_text = STAMPED

    def system(self):
        return getattr(self, "system_text", "")

    def extra(self):
        return getattr(self, "notes", "")

    def ask(self, question: str):
        send = getattr(self, "send")
        return send([{"role": "system", "content": self.system() + self.extra()},
                     {"role": "user", "content": question}])

    def send(self, messages):
        return self.client.chat.completions.create(model="gpt-4.1", messages=messages)
'''


def test_getattr_with_a_literal_name_reads_the_attribute(tmp_path: Path) -> None:
    """`getattr(self, "send")` is the method and `getattr(self, "system_text", "")` the attribute
    (issue 14); an attribute no code sets reads as its default. INVALID: the clock stored on the
    object opens the system text; VALID twin: it ends it, after the rules."""
    assert twins(tmp_path, GETATTR, "STAMPED", 'f"Now: {datetime.datetime.now()}\\\\n" + RULES',
                 'RULES + f"\\\\nNow: {datetime.datetime.now()}"') == [(10, "PC001", "warning")]
    root = tmp_path / "invalid"
    (finding,) = analyze([root], Config(root=root, cache_dir=None), cwd=root).findings
    assert finding.estimate is not None and not finding.estimate.unknown_length  # `notes` read as its ""


MIXIN_RUNTIME = '''
from openai import OpenAI

client = OpenAI()


class RuntimeFlow:
    def complete(self, system: str, question: str) -> str:
        messages = [{"role": "system", "content": system}, *self.history, {"role": "user", "content": question}]
        reply = client.chat.completions.create(model="gpt-4o", messages=messages)
        return reply.choices[0].message.content
'''

MIXIN = '''
from datetime import datetime
from typing import TYPE_CHECKING

RULES = "You route a conversation. Answer with one of the outcomes listed. " * 30


class ConversationalMixin:
    if TYPE_CHECKING:
        def complete(self, system: str, question: str) -> str:
            pass

    def answer(self, question: str) -> str:
        system = SYSTEM
        return self.complete(system, QUESTION)
'''

MIXED = '''
from pkg.mixin import ConversationalMixin
from pkg.runtime import RuntimeFlow


class Flow(ConversationalMixin, RuntimeFlow):
    pass
'''


def test_a_mixin_calls_the_method_its_class_gets_from_another_base(tmp_path: Path) -> None:
    """crewAI's `_ConversationalMixin` calls `self._collapse_to_outcome(...)`, declared only under
    `if TYPE_CHECKING:`; `class Flow(_ConversationalMixin, RuntimeFlow)` gets it from its other
    base, in another module. The prompt the mixin builds is judged at the request that method
    sends (the history after it known), not left at the hand-off."""
    def tree(name: str, system: str, question: str) -> Path:
        return write_tree(tmp_path / name, {
            "pkg/__init__.py": "", "pkg/runtime.py": MIXIN_RUNTIME, "pkg/flow.py": MIXED,
            "pkg/mixin.py": MIXIN.replace("SYSTEM", system).replace("QUESTION", question)})

    root = tree("invalid", 'f"Today is {datetime.now()}.\\n{RULES}"', "question")
    stamped = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert [(f.location.path, f.location.line, f.rule, f.severity.value) for f in stamped.findings] == \
        [("pkg/mixin.py", 13, "PC001", "error")]
    assert "`openai.chat.completions` prompt" in stamped.findings[0].message
    assert stamped.findings[0].call_site.location.path == "pkg/runtime.py"
    assert findings(tree("valid", "RULES", 'f"Today is {datetime.now()}.\\n{question}"')) == []


def test_an_attribute_set_on_the_object_shadows_a_mixed_in_method(tmp_path: Path) -> None:
    """`self.complete = complete` in the mixin's constructor: the call runs what was handed in
    (unknown here), not the method a subclass gets from its other base."""
    shadowed = MIXIN.replace("    def answer(", "    def __init__(self, complete) -> None:\n"
                             "        self.complete = complete\n\n    def answer(")
    root = write_tree(tmp_path / "shadowed", {
        "pkg/__init__.py": "", "pkg/runtime.py": MIXIN_RUNTIME, "pkg/flow.py": MIXED,
        "pkg/mixin.py": shadowed.replace("SYSTEM", 'f"Today is {datetime.now()}.\\n{RULES}"')
        .replace("QUESTION", "question")})
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert all(f.call_site.location.path != "pkg/runtime.py" for f in result.findings)


CHAT_WRAPPER = '''
import datetime
from langchain_openai import ChatOpenAI

GUIDE = """Answer as the research desk: cite sources, keep it short, flag uncertainty, """ * 60


class ChatLLM:
    def __init__(self, model, chat):
        self.model = model
        self._chat = chat

    def complete(self, question):
        system = f"Now: {datetime.datetime.now().isoformat()}\\n{GUIDE}"
        return self._chat.invoke([("system", system), ("human", question)]).content


def make_llm(model="gpt-4o"):
    chat = MAKER
    return ChatLLM(model, chat)
'''


def test_a_client_the_module_hands_to_a_constructor_makes_its_calls_llm_calls(tmp_path: Path) -> None:
    """INVALID: ai-hedge-fund's `ChatLLM` (virattt/ai-hedge-fund in bench/wild) holds whatever chat
    model `make_llm` builds for it: the constructor call in the same module says it is a LangChain
    chat model, so `self._chat.invoke(...)` is an LLM call and the clock is judged in its request.
    VALID twin: a constructor call handing it an object of the project's own is no client."""
    def layouts(root: Path) -> list[str]:
        return [layout.call.api for layout in analyze([root], Config(root=root, cache_dir=None), cwd=root).layouts]

    client = write_tree(tmp_path / "client", {"app.py": CHAT_WRAPPER.replace("MAKER", 'ChatOpenAI(model=model)')})
    assert layouts(client) == ["langchain.chat_model.invoke"]
    result = analyze([client], Config(root=client, cache_dir=None), cwd=client)
    assert [(f.location.line, f.rule) for f in result.findings] == [(13, "PC001")], result.findings[0].message
    assert "`langchain.chat_model.invoke` prompt" in result.findings[0].message
    own = write_tree(tmp_path / "own", {"app.py": CHAT_WRAPPER.replace("MAKER", "Recorder()") +
                                       "\n\nclass Recorder:\n    def invoke(self, messages):\n        return messages\n"})
    assert layouts(own) == []


LEGACY_LANGCHAIN = '''
from datetime import datetime
from langchain.chat_models import ChatOpenAI
from langchain.schema import HumanMessage, SystemMessage

GUIDE = """Write Mineflayer code for the task: reuse the programs given, check the inventory first. """ * 80


class ActionAgent:
    def __init__(self):
        self.llm = ChatOpenAI(model_name="gpt-4", temperature=0)

    def step(self, task: str) -> str:
        system = SystemMessage(content=SYSTEM)
        return CALL([system, HumanMessage(content=task)]).content
'''


def test_a_legacy_langchain_chat_model_called_as_a_function_is_an_llm_call(tmp_path: Path) -> None:
    """INVALID: LangChain before 0.1 (`from langchain.chat_models import ChatOpenAI`, MineDojo's
    Voyager) is called directly with its messages, `self.llm(messages)`, or through
    `predict_messages`: the request is judged at that call, a clock ahead of the guide in its
    system message is PC001 in the chat model's prompt. VALID twin: the clock after the guide.
    Before, neither the legacy class nor the direct call was an LLM call (the system message was
    judged alone, with a history assumed after it)."""
    for call in ("self.llm", "self.llm.predict_messages"):
        program = LEGACY_LANGCHAIN.replace("CALL", call)
        assert twins(tmp_path / call, program, "SYSTEM", 'f"Now: {datetime.now()}\\n" + GUIDE',
                     'GUIDE + f"Now: {datetime.now()}"') == [(13, "PC001", "error")], call
        root = tmp_path / call / "invalid"
        result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
        assert "langchain.chat_model.invoke" in [layout.call.api for layout in result.layouts], call
        assert "in the `langchain.chat_model.invoke` prompt" in result.findings[0].message, call


def test_a_client_called_as_a_function_is_no_method_name_for_the_text_passes(tmp_path: Path) -> None:
    """`langchain.chat_model.__call__` is an API for the evaluator (a client object called), but
    no call site spells `__call__`: as a name for the reach's text passes it made every project
    `__call__` look like an LLM call (agno: 52 → 81 CPU seconds, nothing found)."""
    from promptlint.knowledge import load_knowledge

    knowledge = load_knowledge(Config(root=tmp_path, cache_dir=None))
    assert "langchain.chat_model.__call__" in knowledge.apis
    assert "__call__" not in knowledge.api_method_names and "predict_messages" in knowledge.api_method_names


def test_two_entries_of_one_class_share_a_methods_result(tmp_path: Path, monkeypatch) -> None:
    """Each entry of a class makes its own `self`; a method both call with the same arguments is
    evaluated once for the module (the memo compares objects by class and attributes), and both
    entries still report what it builds."""
    from promptlint.analysis.evaluator import Evaluator

    root = write_tree(tmp_path, {"app.py": '''
from datetime import datetime
from openai import OpenAI

RULES = "Cite the contract clause for every answer. Never give legal advice. " * 90

class Assistant:
    def __init__(self):
        self.client = OpenAI()
        self.team = "legal"

    def system_prompt(self):
        return f"Now: {datetime.now()}\\n{self.team}\\n{RULES}"

    def answer(self, question):
        return self.client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": self.system_prompt()}, {"role": "user", "content": question}])

    def summarize(self, document):
        return self.client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": self.system_prompt()}, {"role": "user", "content": document}])
'''})
    evaluated: list[str] = []
    real = Evaluator.evaluate_call

    def counting(self, func, *args, **kwargs):  # type: ignore[no-untyped-def]
        evaluated.append(func.qualname.rsplit(".", 1)[-1])
        return real(self, func, *args, **kwargs)

    monkeypatch.setattr(Evaluator, "evaluate_call", counting)
    assert findings(root) == [("app.py", 12, "PC001", "error")]
    assert evaluated.count("system_prompt") == 1
