"""Evaluator gaps of issue 14 that real code hits. Generators: a request sent inside a generator
reached through `yield from` (aider's `send_message` yields from `self.send(messages)`), a message
list a generator builds with `yield` / `yield from`, and a call whose result an async generator
yields. Calls that only say what a value is: `functools.partial` over the SDK call, `typing.cast`
of a client the caller hands in, and `importlib.import_module("openai")`. Values read the way
Python reads them: names a `match` pattern captures, a cast list, a flag a loop may leave unset,
a type test against a project class, a pydantic message dumped to a dict. Each INVALID program
has a VALID twin without the clock ahead of the rules; before, each was judged at best where its
system message is written, with a history assumed after it."""

from __future__ import annotations

from pathlib import Path

from promptlint.config import Config
from promptlint.engine import analyze
from tests.conftest import write_tree

IMPORTS = "import datetime\nimport functools\nimport importlib\nfrom typing import cast\n"
RULES = 'RULES = "Follow the house style guide in every answer and cite your sources. " * 90\n'
STAMPED = 'f"Today is {datetime.datetime.now()}.\\n" + RULES'
PLAIN = 'RULES'


def findings(tmp_path: Path, program: str) -> list[tuple[int, str, str]]:
    """(line, rule, severity) of each finding, each judged on the request the client sends (not
    only where its system message is written, with a history assumed after it)."""
    root = write_tree(tmp_path, {"app.py": IMPORTS + "from openai import AsyncOpenAI, OpenAI\n" + RULES + program})
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert not result.errors, result.errors
    assert all("`openai.chat.completions` prompt" in f.message for f in result.findings)
    return [(f.location.line, f.rule, f.severity.value) for f in result.findings]


def twins(tmp_path: Path, program: str) -> list[tuple[int, str, str]]:
    """The INVALID program's findings; the VALID twin (no clock in the system text) has none."""
    assert findings(tmp_path / "valid", program.replace("SYSTEM", PLAIN)) == []
    return findings(tmp_path / "invalid", program.replace("SYSTEM", STAMPED))


SENT_THROUGH_YIELD_FROM = '''
class Coder:
    def __init__(self):
        self.client = OpenAI()

    def send(self, messages):
        completion = self.client.chat.completions.create(model="gpt-4.1", messages=messages)
        yield completion.choices[0].message.content

    def send_message(self, text):
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]
        yield from self.send(messages)
'''


def test_a_request_sent_by_a_generator_reached_through_yield_from(tmp_path: Path) -> None:
    # Before, `yield from` was not evaluated: the request in `send` was never reached with its messages.
    assert twins(tmp_path, SENT_THROUGH_YIELD_FROM) == [(17, "PC001", "error")]


BUILT_BY_YIELDS = '''
def system_messages():
    yield {"role": "system", "content": SYSTEM}
    yield from [{"role": "system", "content": "Answer in English."}]


def answer(question: str):
    messages = [*system_messages(), {"role": "user", "content": question}]
    return OpenAI().chat.completions.create(model="gpt-4.1", messages=messages)
'''


def test_a_message_list_built_by_a_generator(tmp_path: Path) -> None:
    # The generator's items are its yields in order: the clock's system message comes first.
    assert twins(tmp_path, BUILT_BY_YIELDS) == [(9, "PC001", "error")]


YIELDED_BY_AN_ASYNC_GENERATOR = '''
async def stream(question: str):
    client = AsyncOpenAI()
    yield await client.chat.completions.create(model="gpt-4.1", messages=[
        {"role": "system", "content": SYSTEM}, {"role": "user", "content": question}])
'''


def test_a_request_whose_result_an_async_generator_yields(tmp_path: Path) -> None:
    assert twins(tmp_path, YIELDED_BY_AN_ASYNC_GENERATOR) == [(11, "PC001", "error")]


SENT_THROUGH_A_PARTIAL = '''
send = functools.partial(OpenAI().chat.completions.create, model="gpt-4.1")


def ask(question: str):
    return send(messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}])
'''


def test_a_request_sent_through_functools_partial(tmp_path: Path) -> None:
    assert twins(tmp_path, SENT_THROUGH_A_PARTIAL) == [(12, "PC001", "error")]


CLIENT_CAST = '''
def ask(question: str, handed):
    client = cast(OpenAI, handed)
    return client.chat.completions.create(model="gpt-4.1", messages=[
        {"role": "system", "content": SYSTEM}, {"role": "user", "content": question}])
'''


def test_a_client_typed_by_cast(tmp_path: Path) -> None:
    assert twins(tmp_path, CLIENT_CAST) == [(11, "PC001", "error")]


LAZY_IMPORT = '''
def ask(question: str):
    openai = importlib.import_module("openai")
    return openai.OpenAI().chat.completions.create(model="gpt-4.1", messages=[
        {"role": "system", "content": SYSTEM}, {"role": "user", "content": question}])
'''


def test_a_client_from_a_lazily_imported_sdk(tmp_path: Path) -> None:
    assert twins(tmp_path, LAZY_IMPORT) == [(11, "PC001", "error")]


ANNOTATED_LOCAL = '''
def ask(question: str, make_client):
    client: OpenAI = make_client()
    return client.chat.completions.create(model="gpt-4.1", messages=[
        {"role": "system", "content": SYSTEM}, {"role": "user", "content": question}])
'''


def test_a_client_typed_by_its_annotation(tmp_path: Path) -> None:
    assert twins(tmp_path, ANNOTATED_LOCAL) == [(11, "PC001", "error")]


DECLARED_ON_THE_CLASS = '''
class Service:
    client: OpenAI

    def ask(self, question: str):
        return self.client.chat.completions.create(model="gpt-4.1", messages=[
            {"role": "system", "content": SYSTEM}, {"role": "user", "content": question}])
'''


def test_a_client_declared_with_its_type_in_the_class_body(tmp_path: Path) -> None:
    assert twins(tmp_path, DECLARED_ON_THE_CLASS) == [(13, "PC001", "error")]


WEB_SEARCH = '''
from tavily import TavilyClient

web = TavilyClient()


def answer(question: str):
    found = web.search(question)
    record = {**found, "query": question}
    return OpenAI().chat.completions.create(model="gpt-4.1", messages=[
        {"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION}])
'''


def test_a_web_search_client_is_a_lookup_and_a_spread_record_keeps_it(tmp_path: Path) -> None:
    """rules/sources.yaml `lookup_types`: `TavilyClient().search(q)` returns what the query found,
    however the client is named; a key read from a dict that spreads the result (`{**found,
    "query": q}["answer"]`, open_deep_research) is that result. INVALID: it opens the system
    prompt; VALID twin: it follows the question in the user's turn."""
    stamped = WEB_SEARCH.replace("SYSTEM", '"Sources: " + record["answer"] + RULES').replace("QUESTION", "question")
    assert findings(tmp_path / "invalid", stamped) == [(17, "PC001", "error")]
    root = tmp_path / "invalid"
    (finding,) = analyze([root], Config(root=root, cache_dir=None), cwd=root).findings
    # Before, only the question's flow into the record was seen ("request-derived `record[...]`").
    assert finding.message.startswith("per-request retrieval `web.search(question)`")
    fixed = WEB_SEARCH.replace("SYSTEM", "RULES").replace("QUESTION", 'question + "\\nSources: " + record["answer"]')
    assert findings(tmp_path / "valid", fixed) == []


MATCHED_BY_CLASS = '''
class Prompt:
    def __init__(self, text):
        self.text = text


class Assistant:
    def __init__(self):
        self.client = OpenAI()

    def prompt(self):
        return Prompt(SYSTEM)

    def ask(self, question):
        match self.prompt():
            case Prompt(text=system_text):
                messages = [{"role": "system", "content": system_text}, {"role": "user", "content": question}]
            case _:
                return None
        return self.client.chat.completions.create(model="gpt-4.1", messages=messages)
'''

MATCHED_BY_MAPPING = '''
def settings():
    return {"turns": [{"role": "system", "content": SYSTEM}], "model": "gpt-4.1"}


class Assistant:
    def __init__(self):
        self.client = OpenAI()

    def ask(self, question):
        match settings():
            case {"turns": [system_turn], "model": model}:
                return self.client.chat.completions.create(
                    model=model, messages=[system_turn, {"role": "user", "content": question}])
'''


def test_names_a_match_statement_captures(tmp_path: Path) -> None:
    # Before, a `case` bound nothing: the system text read through the pattern was unknown.
    assert twins(tmp_path / "class", MATCHED_BY_CLASS) == [(18, "PC001", "error")]
    assert twins(tmp_path / "mapping", MATCHED_BY_MAPPING) == [(9, "PC001", "error")]


CAST_MESSAGES = '''
class Assistant:
    def __init__(self):
        self.client = OpenAI()

    def send(self, turns):
        messages = cast(list[dict], turns)
        return self.client.chat.completions.create(model="gpt-4.1", messages=messages)

    def ask(self, question):
        return self.send([{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}])
'''


def test_a_message_list_typed_by_cast_is_still_the_list(tmp_path: Path) -> None:
    # Before, `cast(list[dict], turns)` of a known list was unknown: judged only where the system
    # message is written.
    assert twins(tmp_path, CAST_MESSAGES) == [(17, "PC001", "error")]


DEDUPED_SECTIONS = '''
def system_text(sections):
    parts = []
    for section in sections:
        duplicate = False
        for part in parts:
            if part == section:
                duplicate = True
        if not duplicate:
            parts.append(section)
    return "\\n".join(parts)


class Assistant:
    def __init__(self):
        self.client = OpenAI()

    def ask(self, question):
        return self.client.chat.completions.create(model="gpt-4.1", messages=[
            {"role": "system", "content": system_text([SYSTEM])}, {"role": "user", "content": question}])
'''


def test_a_flag_a_loop_may_set_is_either_value_afterwards(tmp_path: Path) -> None:
    # Before, `duplicate = True` set in the loop over the (empty) kept parts stuck: `if not
    # duplicate:` never ran, and the deduplicated sections came out empty.
    assert twins(tmp_path, DEDUPED_SECTIONS) == [(26, "PC001", "error")]


WRAPPED_WHEN_AN_OBJECT = '''
class Turn:
    def __init__(self, role, content):
        self.role = role
        self.content = content

    def as_dict(self):
        return {"role": self.role, "content": self.content}


class Assistant:
    def __init__(self):
        self.client = OpenAI()

    def send(self, messages):
        if isinstance(messages, Turn):
            messages = [messages.as_dict()]
        return self.client.chat.completions.create(model="gpt-4.1", messages=messages)

    def ask(self, question):
        return self.send([{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}])
'''

DUMPED_DATA_MODELS = '''
from pydantic import BaseModel


class Turn(BaseModel):
    role: str
    content: str


class Assistant:
    def __init__(self):
        self.client = OpenAI()

    def ask(self, question):
        turns = [Turn(role="system", content=SYSTEM), Turn(role="user", content=question)]
        return self.client.chat.completions.create(model="gpt-4.1", messages=[t.model_dump() for t in turns])
'''


def test_a_list_is_no_instance_of_a_project_class(tmp_path: Path) -> None:
    # Before, `isinstance(messages, Turn)` of the list handed in ran its body: the request became
    # one unknown message.
    assert twins(tmp_path, WRAPPED_WHEN_AN_OBJECT) == [(27, "PC001", "error")]


def test_a_data_model_dumped_is_a_dict_of_its_fields(tmp_path: Path) -> None:
    # Before, `model_dump()` of a pydantic message was unknown.
    assert twins(tmp_path, DUMPED_DATA_MODELS) == [(21, "PC001", "error")]


def test_a_call_memo_key_keeps_its_receiver_alive() -> None:
    """The call memo names the receiver by its id(); were the receiver freed while the key lives,
    a new object at the same address would be served the old one's result, and a finding would
    depend on what the process happened to allocate before (DB-GPT's evaluation metrics: an info
    finding reported on some `-j 2` runs only)."""
    import ast
    import gc
    import weakref

    from promptlint.analysis.evaluator import Frame, _call_key
    from promptlint.analysis.values import FuncVal, Instance

    receiver = Instance(info=None)
    method = FuncVal(module=None, node=ast.parse("def run(self): pass").body[0], qualname="Agent.run",
                     self_value=receiver)
    key = _call_key(method, Frame(module=None), [], {}, {})  # type: ignore[arg-type]
    alive = weakref.ref(receiver)
    del receiver, method
    gc.collect()
    assert alive() is not None
    del key
    gc.collect()
    assert alive() is None
