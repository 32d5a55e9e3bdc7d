"""Which files are parsed and which functions are evaluated (docs/performance.md, steps 3–5):
the selection must stay narrow on a large framework without losing an LLM call."""

from __future__ import annotations

import ast
import multiprocessing
from pathlib import Path

import pytest

from promptlint import parallel
from promptlint.analysis.evaluator import (
    Evaluator,
    _attribute_assignment,
    _fallback_returns,
    _follow_up_attributes,
    _front_cuts,
    _is_generator,
    _small_helper,
)
from promptlint.analysis.index import (
    FALLBACK_RETURNS_MEMO,
    GENERATOR_MEMO,
    SMALL_HELPER_MEMO,
    LazyBody,
    ModuleInfo,
    ParseFailure,
    SourceText,
    check_syntax,
    nodes_of,
    of_kind,
    parse_module,
    parse_own_lines,
)
from promptlint.analysis.layout import build_layout, call_site
from promptlint.analysis.message_lists import history_after, returned_messages
from promptlint.analysis.project import Project
from promptlint.analysis.reach import (
    MODULE_LEVEL,
    NO_ARGUMENTS,
    NOT_A_PROMPT,
    SELF_CALL,
    callable_without_arguments,
    called_names,
    definition_calls,
    reach_over,
)
from promptlint.config import Config
from promptlint.engine import analyze
from promptlint.facts import called_names_in_text
from promptlint.knowledge import ROLE_MARKER, load_knowledge
from promptlint.model import Literal
from tests.conftest import write_tree

SINKS = frozenset({"completions.create", "stream", "invoke"})


def calls_of(source: str) -> set[str]:
    return called_names(ast.parse(source))


def test_calls_that_cannot_send_a_prompt_are_marked() -> None:
    assert calls_of("client.chat.completions.create(model=m, messages=x)") >= {"create", "completions.create"}
    assert calls_of("query.stream()") == {"stream" + NO_ARGUMENTS, "query.stream" + NO_ARGUMENTS}
    assert "stream" + NOT_A_PROMPT in calls_of('http.stream("GET", url)')
    assert "stream" in calls_of("model.stream(messages)")


def test_the_node_search_finds_what_ast_walk_finds_in_its_order() -> None:
    source = Path(__file__).read_text(encoding="utf-8") + (
        "match cmd:\n    case {'k': [a, *rest]} if check(a):\n        run(f'{fmt(x)!r:>{width()}}')\n"
        "async def g():\n    async with lock() as l, other():\n        return [await h(i) async for i in it()]\n"
        "x = lambda y=default(): (yield from gen())\n@decorate(arg())\nclass C(Base(), metaclass=meta()):\n"
        "    attr: Annotated[int, marker()] = field(factory=make())\n    def m(self):\n        self.a: int = 1\n")
    tree = ast.parse(source)
    walked_for_all = nodes_of(tree, (ast.Call, ast.Attribute, ast.Assign, ast.AnnAssign, ast.Dict))
    for kind in (ast.Call, ast.Attribute, (ast.Assign, ast.AnnAssign)):
        expected = [node for node in ast.walk(tree) if isinstance(node, kind)]
        assert len(expected) > 5
        assert [id(node) for node in nodes_of(tree, kind)] == [id(node) for node in expected]
        # What the reach pass does: one walk for several kinds, each reader picking its own.
        assert [id(node) for node in of_kind(walked_for_all, kind)] == [id(node) for node in expected]


def test_zero_argument_calls_reach_only_definitions_that_take_none() -> None:
    needs, optional = ast.parse("class A:\n    def stream(self, messages): ...\n    def run(self, x=1): ...").body[0].body
    assert not callable_without_arguments(needs, method=True)
    assert callable_without_arguments(optional, method=True)
    assert not callable_without_arguments(ast.parse("def f(x): ...").body[0], method=False)


def test_reach_follows_names_but_not_the_ones_every_object_has() -> None:
    definitions = [
        ("generate", frozenset({"completions.create"}), False, ()),  # an LLM call; needs arguments
        ("reads_a_query", frozenset({"generate" + NO_ARGUMENTS}), True, ()),  # query.generate(): not that one
        ("asks", frozenset({"generate"}), True, ()),
        ("update", frozenset({"asks"}), True, ()),  # reaches, but `x.update(...)` is every dict's
        ("merges", frozenset({"update"}), True, ()),
        ("handler", frozenset({"asks"}), True, ()),
        ("far", frozenset({"handler"}), True, ()),  # three calls away: beyond MAX_HOPS
    ]
    hops, names = reach_over(definitions, SINKS)
    assert hops == [0, None, 1, 2, None, 2, None]
    assert "update" not in names and "asks" in names


def test_a_method_of_self_reaches_project_definitions_only() -> None:
    """pipecat: every frame processor's `process_frame` calls `self.send_message(frame)` (a
    transport's own method), which shares its name with an SDK method (Gemini's chat). Called on
    `self`, the name is marked: it reaches a project definition of that name that reaches an LLM
    call, never the SDK method; before, 117 `process_frame` definitions were evaluated for it."""
    assert calls_of("self.send_message(frame)") == {"send_message" + SELF_CALL, "self.send_message"}
    assert calls_of("self.stop()") == {"stop" + NO_ARGUMENTS, "self.stop" + NO_ARGUMENTS}
    assert "send_message" in calls_of("chat.send_message(text)")
    definitions = [
        ("process_frame", frozenset({"send_message" + SELF_CALL}), False, ()),
        ("ask", frozenset({"send_message"}), False, ()),  # a chat session's SDK method
        ("answer", frozenset({"ask" + SELF_CALL}), False, ()),  # a project method that reaches it
    ]
    hops, _ = reach_over(definitions, frozenset({"send_message"}))
    assert hops == [None, 0, 1]


def test_module_level_code_is_one_more_definition(tmp_path: Path) -> None:
    write_tree(tmp_path, {"script.py": "def helper():\n    return 1\n\nresponse = client.invoke(prompt)\n"})
    project = Project(tmp_path, [tmp_path / "script.py"], tmp_path, 10**6)
    module = project.module_at(tmp_path / "script.py")
    assert module is not None
    found = definition_calls(module)
    assert [name for name, _, _, _ in found] == ["helper", MODULE_LEVEL]
    assert "invoke" in found[-1][1] and "invoke" not in found[0][1]


def test_call_names_in_text_are_a_superset_of_the_calls() -> None:
    source = "def f():\n    client.chat.completions.create (model='m')\n    résumé(x)\n"
    assert {"create", "f", "résumé"} <= set(called_names_in_text(source))


SDK_CLIENT = """
from openai import OpenAI
client = OpenAI()
def ask(system: str, question: str):
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
"""


def test_only_files_that_can_reach_an_llm_call_are_parsed(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {
        "llm.py": SDK_CLIENT,
        # Both import the client module, both are broken; only the one that calls `ask(` matters.
        "uses_it.py": "from datetime import datetime\nfrom llm import ask\ndef go(q):\n"
                      "    return ask(f'{datetime.now()}', q)\ndef broken(:\n",
        "does_not.py": "from llm import client\ndef unrelated(:\n    pass\n",
        "direct.py": "import openai\ndef broken(:\n",  # names an SDK itself: always parsed
    })
    result = analyze([root], Config(root=root, jobs=1, cache_dir=None), cwd=root)
    assert sorted(Path(e.path).name for e in result.errors) == ["direct.py", "uses_it.py"]


def test_a_function_run_inside_its_caller_is_not_run_again(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"app.py": SDK_CLIENT + "def handler(q):\n    return ask('Be brief.', q)\n"})
    project = Project(root, [root / "app.py"], root, 10**6)
    module = project.module_at(root / "app.py")
    assert module is not None
    calls: list[str] = []
    evaluator = Evaluator(project, load_knowledge(Config(root=root)), lambda *call: calls.append(call[2]))
    evaluator.run_module(module)
    evaluator.run_function_entry(module, module.functions["handler"], None)
    assert id(module.functions["ask"]) in evaluator.covered
    assert len(calls) == 1 and calls[0].endswith("completions.create")  # reported once, from the caller


def test_module_bindings_name_every_top_level_statement_that_sets_or_changes_a_name() -> None:
    module = ast.parse(
        "import os\n"                                        # 0: an import, looked up apart
        "PARTS = {}\n"                                       # 1
        "PARTS['tone'] = 'Be kind.'\n"                       # 2
        "if os.getenv('FORMAL'):\n    STYLE = 'formal'\nelse:\n    STYLE = 'casual'\n"  # 3
        "NOTES = []\n"                                       # 4
        "NOTES.append(STYLE)\n"                              # 5
        "for key, value in PARTS.items():\n    LAST = value\n"  # 6
        "def helper():\n    HIDDEN = 1\n"                    # 7: a function's locals are not globals
    )
    project_module = ModuleInfo("m", Path("m.py"), "m.py", "", module, [])
    assert project_module.bindings == {"PARTS": [1, 2], "STYLE": [3], "NOTES": [4, 5], "key": [6],
                                       "value": [6], "LAST": [6]}


def test_binding_digests_change_only_with_what_defines_a_name() -> None:
    source = ("try:\n    import ujson as json\nexcept ImportError:\n    import json\n"
              "@cache\ndef helper():\n    return 1\n"
              "LIMIT = 3\nLIMIT += 1\n"
              "class Bot:\n    def run(self):\n        return helper()\n")
    names = ("json", "helper", "LIMIT", "Bot", "added", "missing")
    module = parse_module("m", Path("m.py"), "m.py", source)
    digests = {name: module.binding_digest(name) for name in names}
    assert [name for name in names if digests[name] is None] == ["added", "missing"]

    def changed(edited: str) -> set[str]:
        after = parse_module("m", Path("m.py"), "m.py", edited)
        return {name for name in names if after.binding_digest(name) != digests[name]}

    assert changed(source.replace("@cache", "@lru_cache")) == {"helper"}  # a decorator is part of it
    assert changed(source.replace("LIMIT += 1", "LIMIT += 2")) == {"LIMIT"}  # every statement that sets it
    assert changed(source.replace("return helper()", "return 2")) == {"Bot"}  # a method's body
    assert changed(source.replace("import ujson", "import orjson")) == set()  # `json` is still the json module
    assert changed(source.replace("    import json", "    import simplejson as json")) == {"json"}
    assert changed(source + "def added():\n    return 3\n") == {"added"}
    # Lines moved: what stands below the insertion is defined on other lines now.
    assert changed(source.replace("LIMIT = 3", "\nLIMIT = 3")) == {"LIMIT", "Bot"}


CONSTANTS = """
from pathlib import Path
SYSTEM = "You answer questions about invoices."
SYSTEM += " Be brief."
SECTIONS = {}
SECTIONS["policy"] = "Refunds take five days."
HANDBOOK = (Path(__file__).parent / "handbook.txt").read_text()  # another constant: never needed
"""


class ReadCounting(Project):
    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.read: list[str] = []

    def read_text_file(self, path: Path, max_bytes: int) -> str | None:
        self.read.append(path.name)
        return super().read_text_file(path, max_bytes)


def test_an_imported_module_runs_only_the_statements_behind_the_names_read(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {
        "constants.py": CONSTANTS,
        "handbook.txt": "A long handbook.",
        "app.py": SDK_CLIENT + "from constants import SYSTEM, SECTIONS\n"
                  "def handler(q):\n    return ask(SYSTEM + SECTIONS['policy'], q)\n",
    })
    files = [root / "constants.py", root / "app.py"]
    project = ReadCounting(root, files, root, 10**6)
    module = project.module_at(root / "app.py")
    assert module is not None
    prompts: list[str] = []
    knowledge = load_knowledge(Config(root=root))

    def on_sink(frame, node, name, args, kwargs, owner) -> None:  # type: ignore[no-untyped-def]
        layout = build_layout(knowledge.apis[name], call_site(node, frame.module, knowledge.apis[name], kwargs,
                                                              owner, frame.module.location(node), frame.qualname),
                              args, kwargs, owner)
        prompts.append("".join(s.text for _, s in layout.segments() if isinstance(s, Literal)))

    evaluator = Evaluator(project, knowledge, on_sink)
    evaluator.run_module(module)
    evaluator.run_function_entry(module, module.functions["handler"], None)
    assert any("You answer questions about invoices. Be brief.Refunds take five days." in p for p in prompts)
    assert project.read == []  # HANDBOOK's statement never ran


def test_a_file_only_checked_fails_as_a_parsed_one_does() -> None:
    broken = ["def broken(:\n    pass\n", "print 'python 2'\n", "x = (" * 1000 + ")" * 1000 + "\n", "if x:\npass\n"]
    for source in broken:
        with pytest.raises(ParseFailure) as parsed:
            parse_module("m", Path("m.py"), "m.py", source)
        with pytest.raises(ParseFailure) as checked:
            check_syntax(source, "m.py")
        assert str(checked.value) == str(parsed.value)
    check_syntax("def fine(x):\n    return x\n", "m.py")


TRICKY_DEFINITIONS = (
    "import os\r\n\x0c\r\nclass Outer:\r\n    \"\"\"Doc.\"\"\"\r\n    x = 'déjà'; y = 2\r\n"
    "    @property\r\n    @cached(\r\n        size=2)\r\n    def prop(self):\r\n        return 'é' + f'{self.x!r:>{3}}'\r\n"
    "    class Inner:\r\n        def deep(self):\r\n            return [i async for i in g()]\r\n"
    "    async def run(self, a,\r\n            b=1):\r\n        async with lock():\r\n"
    "            def nested():\r\n                return a\r\n            return nested\r\n"
    "def one_line(): return 1\r\n"
    "class Tabbed:\r\n\tdef tabbed(self):\r\n\t\treturn 'x'\r\n"
    "class OnOneLine: value = 1\r\n"
    "if os.name:\r\n    def platform(x):\r\n        \"\"\"text\r\ndef not_a_def():\r\n\"\"\"\r\n        return x\r\n"
    "else:\r\n    def platform(x):  # the other branch\r\n        return -x\r\n"
    "try:\r\n    def tried():\r\n        pass\r\nexcept ImportError:\r\n    def tried():\r\n        raise\r\n"
)


@pytest.mark.parametrize("name", ["tricky", "evaluator", "index"])
def test_a_hollow_module_gives_back_the_same_trees(name: str) -> None:
    """Function bodies dropped under the memory budget come back, parsed from their own lines,
    node for node and position for position as in the whole module."""
    source = TRICKY_DEFINITIONS if name == "tricky" else \
        (Path(__file__).parents[1] / "promptlint" / "analysis" / f"{name}.py").read_text(encoding="utf-8")
    module = parse_module("m", Path("m.py"), "m.py", source)
    whole = ast.dump(module.tree, include_attributes=True)
    functions = nodes_of(module.tree, (ast.FunctionDef, ast.AsyncFunctionDef))
    weight = module.weight
    freed = module.hollow()
    assert 0 < freed < weight and module.weight == weight - freed
    hollow = [f for f in functions if type(f.body) is LazyBody]
    names = {f.name for f in hollow}
    assert len(hollow) >= (7 if name == "tricky" else 20) and not names & {"nested", "one_line"}
    text = SourceText(source, "m.py")
    assert all(parse_own_lines(f, text) is not None for f in hollow)  # never the whole module again
    assert module.hollow() == 0  # nothing used since
    assert ast.dump(module.tree, include_attributes=True) == whole  # dumping reads every body
    assert module.weight == weight
    assert all(type(f.body) is list for f in functions)
    assert module.hollow() == freed


BUILDER = """
class Builder:
    def system(self, session):
        message = Message(role="system", content=session.summary)
        return message

    def run_messages(self, session, history):
        messages = [self.system(session)]
        messages.extend(history)
        return messages
"""


def test_what_is_kept_on_a_definition_goes_with_its_body() -> None:
    """Memos kept on a definition name its body's nodes (by id): once the body is dropped and
    parsed again they must be computed again, or they name nodes that are gone (and an id may be
    reused by another node), and what an entry finds depends on the entries run before it."""
    module = parse_module("m", Path("m.py"), "m.py", BUILDER)
    klass = module.classes["Builder"]
    system, run_messages = klass.methods["system"], klass.methods["run_messages"]
    call = run_messages.body[0].value.elts[0]
    assert history_after(run_messages, call) == "history"
    assert returned_messages(system) == {id(system.body[0].value)}
    module.hollow()
    call = run_messages.body[0].value.elts[0]  # parsed again: new nodes
    assert history_after(run_messages, call) == "history"
    assert returned_messages(system) == {id(system.body[0].value)}  # `message = Message(...)`, returned


AGENT = """
class Agent:
    def __init__(self, system):
        self.system = None
        self.system = system
        self.history = []

    def ask(self, question):
        self.task = question
        self.history.append({"role": "user", "content": question})

    def summary(self, rows):
        if not rows:
            return "<none>"
        return rows

    def remember(self, turn):
        self.history.append(turn)
        if len(self.history) > self.limit:
            self.history.pop(0)
"""


def test_memos_by_position_outlive_the_body_and_name_its_new_nodes() -> None:
    """A class's attribute assignments, its follow-up requests and a definition's placeholder
    returns are kept by position when the bodies are dropped (computing them again parsed every
    method once more: a fifth of litellm's time); what they name is found in the body parsed
    again, never a node of the old one."""
    module = parse_module("m", Path("m.py"), "m.py", AGENT)
    klass = module.classes["Agent"]
    summary = klass.methods["summary"]
    before = _attribute_assignment(klass, "system")
    assert before is not None and ast.unparse(before[2]) == "self.system = system"  # not the None placeholder
    assert _follow_up_attributes(klass)["task"][0] == "ask"
    assert _fallback_returns(summary) == {(14, 12)}
    assert not _is_generator(summary) and _small_helper(summary)
    assert _front_cuts(klass)["history"].line == 20
    module.hollow()
    assert {GENERATOR_MEMO, SMALL_HELPER_MEMO, FALLBACK_RETURNS_MEMO} <= set(summary.__dict__)
    assert "_assignments" not in klass.__dict__ and {"_assignment_places", "_front_cut"} <= set(klass.__dict__)
    after = _attribute_assignment(klass, "system")
    assert after is not None and after[2] is not before[2] and after[2] in list(ast.walk(klass.methods["__init__"]))
    assert (after[2].lineno, after[2].col_offset) == (5, 8)
    assert _follow_up_attributes(klass)["task"][1].line == 9
    assert _fallback_returns(summary) == {(14, 12)} and summary.body[0].body[0].lineno == 14


def test_a_tight_parse_budget_gives_the_same_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """With room for almost no syntax tree, modules are hollowed and forgotten between entries
    (and bodies parsed again one by one), yet the analysis finds the same prompts."""
    root = Path(__file__).parents[1] / "fixtures"
    config = Config(root=root, cache_dir=None, jobs=1)
    roomy = analyze([root], config, cwd=root)
    monkeypatch.setattr(parallel, "PARSED_SOURCE_BUDGET", 1)
    tight = analyze([root], config, cwd=root)
    assert roomy.layouts and (tight.findings, tight.errors, tight.layouts) == (roomy.findings, roomy.errors,
                                                                             roomy.layouts)


def test_an_entry_keeps_only_the_bodies_it_reads(tmp_path: Path) -> None:
    """Worker memory: the reach pass's whole trees are dropped when evaluation begins, and a
    module an entry imports keeps only the function bodies the entry read (litellm: one entry
    read 600 modules, and kept whole they set each worker's peak)."""
    unused = "def unused(rows):\n    total = 0\n    for row in rows:\n        total += len(row)\n    return total\n"
    root = write_tree(tmp_path, {"llm.py": SDK_CLIENT + unused, "app.py": "from llm import ask\n"
                                 "def handler(q):\n    return ask('Be brief.', q)\n"})
    files = (root / "app.py", root / "llm.py")
    settings = parallel.Settings(root, root, files, {path: [path.stem] for path in files}, 10**6,
                                 load_knowledge(Config(root=root)), 10.0)
    with parallel.Workers(settings, 1) as workers:
        assert all(workers.definitions(list(files), parallel=False))
        [outcome] = workers.evaluate([parallel.EntryTask(files[0], (0,), None)], parallel=False)
        functions = workers._local.project.module_at(files[1]).functions  # type: ignore[union-attr]
    assert outcome.layouts and outcome.parses == 2  # parsed again, not kept from the reach pass
    assert type(functions["ask"].body) is list
    assert type(functions["unused"].body) is LazyBody and not functions["unused"].body._loaded


def test_what_workers_send_back_names_each_path_and_name_once(tmp_path: Path) -> None:
    """Each result arrives unpickled with its own copies of the paths and names it lists (litellm:
    40 MiB of copies in the parent while the workers were up); the parent keeps one of each."""
    root = write_tree(tmp_path, {"llm.py": SDK_CLIENT, **{f"app{i}.py": "from llm import ask\n"
                                 "def handler(q):\n    return ask('Be brief.', q)\n" for i in range(3)}})
    files = tuple(sorted(root.glob("*.py")))
    settings = parallel.Settings(root, root, files, {path: [path.stem] for path in files}, 10**6,
                                 load_knowledge(Config(root=root)), 10.0)
    with parallel.Workers(settings, 2) as workers:
        definitions = workers.definitions(list(files), parallel=True)
        outcomes = workers.evaluate([parallel.EntryTask(path, (0,), None) for path in files[:3]], parallel=True)
    llm = [next(p for p in outcome.files if p.name == "llm.py") for outcome in outcomes]
    assert llm[0] == files[3] and llm[0] is llm[1] is llm[2]
    called = [next(name for name in calls if name == "ask") for (_, calls, _, _), *_ in definitions[:3]]
    assert called[0] is called[1] is called[2]


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="workers are spawned here")
def test_workers_forked_after_a_local_reach_pass_start_from_its_parsed_modules(tmp_path: Path) -> None:
    """A small project's reach pass parses in this process; the workers that evaluate next
    (forked) reuse those trees instead of parsing the files again."""
    root = write_tree(tmp_path, {"llm.py": SDK_CLIENT, "app.py": "from llm import ask\n"
                                 "def handler(q):\n    return ask('Be brief.', q)\n"})
    files = (root / "app.py", root / "llm.py")
    settings = parallel.Settings(root, root, files, {path: [path.stem] for path in files}, 10**6,
                                 load_knowledge(Config(root=root)), 10.0)
    with parallel.Workers(settings, 2) as workers:
        definitions = workers.definitions(list(files), parallel=False)  # here
        assert all(definitions)
        tasks = [parallel.EntryTask(path, (0,), None) for path in files]
        outcomes = workers.evaluate(tasks, parallel=True)  # in forked workers
    assert [o.errors for o in outcomes] == [(), ()]
    assert sum(o.parses for o in outcomes) == 0
    assert any(o.layouts for o in outcomes)


ROLES = frozenset({"system", "developer"})


def assembles(source: str) -> bool:
    """Whether the function is an assembly point (evaluated for the system content it builds)."""
    return ROLE_MARKER in called_names(ast.parse(source), frozenset({"system_prompt"}), ROLES)


def test_system_content_written_out_whole_is_no_assembly_point() -> None:
    """pipecat's examples build a whole pipeline around one `{"role": "developer", "content":
    "Please introduce yourself."}`: text with nothing that can change is no bust wherever it sits,
    so the function is not evaluated for it (its evaluation found nothing and took 81 % of the
    tree's time). Content that can change, in any message of the function, keeps it one: the
    written-out text may then sit after something that changes."""
    assert not assembles('queue([{"role": "developer", "content": "Please introduce yourself."}])')
    assert not assembles('Settings(system_prompt="You are a helpful assistant.")')
    assert not assembles('m = [{"role": Role.SYSTEM, "content": [{"type": "text", "text": f"Be brief."}]}]')
    assert assembles('m = [{"role": "system", "content": f"Today is {today()}."}]')
    assert assembles('m = [{"role": "system", "content": PROMPT}]')
    assert assembles('Settings(system_prompt=prompt)')
    assert assembles('m = [{"role": "user", "content": f"{now()}"}, {"role": "system", "content": "Rules."}]')
    assert assembles('m = [Message(role="system", content="Rules.")]')  # a class: read when evaluated
    # camel's examples: a message constructor given constants only is written out whole too.
    assert not assembles('ChatAgent(system_prompt=BaseMessage.make_assistant_message(role_name="Mail", '
                         'content="You are an email assistant."))')
    assert assembles('ChatAgent(system_prompt=BaseMessage.make_assistant_message(role_name="Mail", content=p))')
    assert assembles('Settings(system_prompt=time.strftime("Today is %A."))')  # not a message: may change
    # A local only ever given a constant is that constant; a parameter, or a name bound otherwise too, is not.
    assert not assembles('def main():\n    sys_msg = "You are a helpful assistant"\n'
                         '    ChatAgent(system_prompt=sys_msg)')
    assert assembles('def main(sys_msg):\n    if not sys_msg:\n        sys_msg = "Be brief."\n'
                     '    ChatAgent(system_prompt=sys_msg)')
    assert assembles('def main():\n    sys_msg = "Rules."\n    sys_msg += today()\n    ChatAgent(system_prompt=sys_msg)')
    assert assembles('def main():\n    s = "Rules."\n    for s in notes: pass\n    m = [{"role": "system", "content": s}]')


def test_a_project_importing_through_its_src_folder_connects_to_the_sdk(tmp_path: Path) -> None:
    """A project run from its root imports `from src.llm import Client` with no `src/__init__.py`
    (stitionai/devika in bench/wild): the agent module is an entry, as it would be in a `src/`
    layout importing `llm` (both names are the module's)."""
    from promptlint.facts import file_facts, module_names
    from promptlint.prefilter import relevant_files

    root = write_tree(tmp_path, {
        "src/llm/__init__.py": "from .client import Client\n",
        "src/llm/client.py": "from openai import OpenAI\n\nclass Client:\n    pass\n",
        "src/agents/__init__.py": "",
        "src/agents/answer.py": "from src.llm import Client\n",
        "src/agents/other.py": "from llm import Client\n",
        "src/agents/unrelated.py": "import json\n",
    })
    files = sorted(root.rglob("*.py"))
    names = module_names(files, root)
    assert {"src.llm.client", "llm.client"} <= set(names[root / "src/llm/client.py"])
    imports = {path: file_facts(path, ".".join(names[path][0].split(".")[:-1]), None).imports for path in files}
    relevant = {path.relative_to(root).as_posix() for path in relevant_files(imports, names, {"openai"})}
    assert {"src/agents/answer.py", "src/agents/other.py"} <= relevant
    assert "src/agents/unrelated.py" not in relevant
