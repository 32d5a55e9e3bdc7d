"""Objects made when first read (issue 14, speed): the evaluator defers a constructor that can
reach no prompt until something reads the object's state, since most objects an example script
makes (pipecat's frame processors, a framework's helpers) are never read again. The decision must
never defer a constructor the findings depend on, and a deferred object must read as an eager
one would: through method lookups, methods that change it, and objects that hold it."""

from __future__ import annotations

from pathlib import Path

from promptlint.analysis.evaluator import Evaluator
from promptlint.analysis.project import Project
from promptlint.config import Config
from promptlint.engine import analyze
from promptlint.knowledge import load_knowledge
from tests.conftest import write_tree

CLASSES = '''
class Settings:
    def __init__(self, name):
        self.name = name
        self.retries = 3


class Box:
    def __init__(self):
        self.settings = Settings("inner")


class Sender:
    def __init__(self, client):
        self.client = client
        self.reply = client.ask("warm up")


class Conversation:
    def __init__(self, system):
        self.messages = [{"role": "system", "content": system}]


class Holder:
    def __init__(self, system):
        self.conversation = Conversation(system)


class SetUp:
    def __init__(self, system):
        self._start(system)

    def _start(self, system):
        self.messages = [{"role": "system", "content": system}]


class Agent:
    def __init__(self, prompt):
        self.agent = Session(system_prompt=prompt)


class Child(Settings):
    def __init__(self, client):
        super().__init__("child")
        self.client = client.ask("hello")
'''


def test_only_constructors_that_reach_no_prompt_wait(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"classes.py": CLASSES})
    project = Project(root, [root / "classes.py"], root, 10**6)
    module = project.module_at(root / "classes.py")
    assert module is not None
    evaluator = Evaluator(project, load_knowledge(Config(root=root)), lambda *call: None)
    evaluator.reaching_names = frozenset({"ask", "client.ask"})  # what the engine's reach pass finds
    quiet = {name: evaluator.quiet_constructor(info) for name, info in module.classes.items()}
    assert quiet == {
        "Settings": True,
        "Box": True,  # makes only a quiet object
        "Sender": False,  # calls a function that reaches an LLM call
        "Conversation": False,  # assembles a system message: the evaluator records it as it runs
        "Holder": False,  # makes an object whose constructor assembles one
        "SetUp": False,  # through a method of its own
        "Agent": False,  # passes a system prompt by keyword
        "Child": False,  # its own constructor reaches an LLM call, though its base's does not
    }


def test_every_constructor_runs_when_nothing_says_what_reaches_a_prompt(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"classes.py": CLASSES})
    project = Project(root, [root / "classes.py"], root, 10**6)
    module = project.module_at(root / "classes.py")
    assert module is not None
    evaluator = Evaluator(project, load_knowledge(Config(root=root)), lambda *call: None)
    assert not any(evaluator.quiet_constructor(info) for info in module.classes.values())


PIPELINE = '''
from datetime import datetime
from openai import OpenAI

RULES = """You review expense reports for the finance team.
""" + "Check every line item against the travel policy and flag anything unusual. " * 80


class Processor:
    def __init__(self, header):
        self.header = header
        self.next = None

    def link(self, other):
        self.next = other


class Pipeline:
    def __init__(self, processors):
        self.processors = processors
        for first, second in zip(processors, processors[1:]):
            first.link(second)


class Holder:
    def __init__(self, processor):
        self.processor = processor


def review(report):
    head = Processor(HEADER)
    tail = Processor("")
    Pipeline([head, tail])
    holder = Holder(head)
    return OpenAI().chat.completions.create(
        model="gpt-4.1",
        messages=[{"role": "system", "content": holder.processor.header + RULES},
                  {"role": "user", "content": report}],
    )
'''


def test_an_object_made_late_reads_as_one_made_at_once(tmp_path: Path) -> None:
    # The processor's header travels through a method that changes the object (`link`) and an
    # object that holds it before the request reads it.
    def run(header: str, name: str) -> list[tuple[int, str, str]]:
        program = PIPELINE.replace("HEADER", header)
        root = write_tree(tmp_path / name, {"app.py": program})
        result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
        assert not result.errors, result.errors
        return [(f.location.line, f.rule, f.severity.value) for f in result.findings]

    assert run('f"Today is {datetime.now()}. "', "invalid") == [(30, "PC001", "error")]
    assert run('"Be precise. "', "valid") == []
