"""Prompt templates reached the way real projects load them (issue 14): an agent's conversation
renders `<agent>/<name>.prompt` through a loader whose folders come from the configuration, with
partials pulled in by `{% include %}` (Pythagora-io/gpt-pilot in bench/wild), and a loader whose
name starts with a folder chosen at run time (`f"{self.model}/extract.j2"`, Skyvern-AI/skyvern).
Each INVALID program has a VALID twin that differs only in the bust."""

from __future__ import annotations

import ast
from pathlib import Path

from promptlint.config import Config
from promptlint.engine import analyze
from tests.conftest import write_tree

RULES = "".join(f"{n}. Write relative paths, keep each file short and never create folders by hand.\n"
                for n in range(1, 90))


def findings(root: Path) -> list[tuple[str, int, str, str]]:
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert not result.errors, result.errors
    return [(f.location.path, f.location.line, f.rule, f.severity.value) for f in result.findings]


CONFIGURED_LOADER = '''
import json
from jinja2 import Environment, FileSystemLoader
from openai import OpenAI

client = OpenAI()


def settings() -> dict:
    with open("settings.json") as handle:
        return json.load(handle)


class Prompts:
    loader = None

    @classmethod
    def load(cls) -> None:
        if cls.loader is None:
            cls.loader = Environment(loader=FileSystemLoader(settings()["prompt_dirs"]))

    @classmethod
    def render(cls, name: str, **values) -> str:
        cls.load()
        return cls.loader.get_template(f"developer/{name}.prompt").render(**values)


def implement(file_name: str) -> str:
    text = Prompts.render("implement", file_name=file_name)
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": "You are a careful developer."}, {"role": "user", "content": text}])
'''

IMPLEMENT = '''You are writing one file of the project.
FIRST
Follow each of the rules below exactly as it is written:
{% include "partials/rules.prompt" %}
'''


def test_a_template_from_configured_folders_with_an_included_partial(tmp_path: Path) -> None:
    """INVALID: the loader's folders are read from settings at run time, so the template is the
    one project file whose path ends with the name asked for; the file being written opens the
    message, and the rules pulled in by `{% include %}` follow it, sent again for every file:
    PC010 at the placeholder (the include is rendered in place; it was dropped). VALID twin:
    the file name after the rules."""
    files = {"app.py": CONFIGURED_LOADER, "prompts/partials/rules.prompt": RULES}
    first = write_tree(tmp_path / "first", {
        **files, "prompts/developer/implement.prompt": IMPLEMENT.replace("FIRST", "Write {{ file_name }} now.")})
    assert findings(first) == [("prompts/developer/implement.prompt", 2, "PC010", "warning")]
    last = write_tree(tmp_path / "last", {
        **files, "prompts/developer/implement.prompt": IMPLEMENT.replace("FIRST", "") + "Write {{ file_name }} now.\n"})
    assert findings(last) == []


MODEL_FOLDER = '''
import time
from pathlib import Path

from jinja2 import Environment, FileSystemLoader
from openai import OpenAI

client = OpenAI()


class PromptEngine:
    def __init__(self, model: str) -> None:
        self.model = model
        self.env = Environment(loader=FileSystemLoader(Path(__file__).parent / "prompts"))

    def load_prompt(self, template: str, **values) -> str:
        return self.env.get_template(f"{self.model}/{template}.j2").render(**values)


def step(engine: PromptEngine, history: list) -> str:
    system = engine.load_prompt("extract-action", now=time.time())
    return client.chat.completions.create(model="gpt-4o", messages=[{"role": "system", "content": system}, *history])
'''


def test_a_template_in_a_folder_chosen_at_run_time(tmp_path: Path) -> None:
    """INVALID: the prompt folder is the model's name, known only at run time; the one
    `*/extract-action.j2` under the loader's folder is the template, and its clock opens the
    system message ahead of the rules and the history. VALID twin: no clock in the template."""
    stamped = write_tree(tmp_path / "stamped", {
        "app.py": MODEL_FOLDER, "prompts/skyvern/extract-action.j2": "Now: {{ now }}\n" + RULES})
    assert ("prompts/skyvern/extract-action.j2", 1, "PC001", "error") in findings(stamped)
    plain = write_tree(tmp_path / "plain", {"app.py": MODEL_FOLDER, "prompts/skyvern/extract-action.j2": RULES})
    assert findings(plain) == []


def test_two_folders_with_different_templates_of_that_name_stay_unknown(tmp_path: Path) -> None:
    """VALID: two model folders hold different `extract-action.j2` files; which one is used is
    not known, so neither is judged (no guess)."""
    root = write_tree(tmp_path, {"app.py": MODEL_FOLDER, "prompts/skyvern/extract-action.j2": "Now: {{ now }}\n" + RULES,
                                 "prompts/openai/extract-action.j2": RULES + "Now: {{ now }}\n"})
    assert [f for f in findings(root) if f[0].endswith(".j2")] == []


HUB = '''
from pathlib import Path

from jinja2 import Environment, FileSystemLoader
from openai import OpenAI

client = OpenAI()
PROMPTS = Environment(loader=FileSystemLoader(Path(__file__).parent / "prompts"))


def send(text: str) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": "You are a careful developer."}, {"role": "user", "content": text}])
'''


def test_every_template_sent_through_one_client_is_judged(tmp_path: Path) -> None:
    """INVALID: twelve agent classes share one base method that renders the agent's own template
    (the task first, the rules after) and sends it through one client method. The cap on
    layouts kept per call site counts per template, so each agent's template is judged (before,
    the first eight took the call site's quota and the rest went unjudged)."""
    base = ("\n\nclass Agent:\n    agent_type = \"agent_0\"\n\n    def work(self, task: str) -> str:\n"
            "        return send(PROMPTS.get_template(f\"{self.agent_type}.j2\").render(task=task))\n")
    agents = "".join(f"\n\nclass Agent{n}(Agent):\n    agent_type = \"agent_{n}\"\n" for n in range(1, 12))
    templates = {f"prompts/agent_{n}.j2": f"Agent {n}. Task: {{{{ task }}}}\nFollow each of the rules below exactly.\n{RULES}"
                 for n in range(12)}
    root = write_tree(tmp_path, {"app.py": HUB + base + agents, **templates})
    judged = {path for path, _, rule, _ in findings(root) if rule == "PC010"}
    assert judged == set(templates)


def test_a_template_that_includes_itself_is_rendered_once(tmp_path: Path) -> None:
    """Hostile input: two partials that include each other (twice each, which would double on
    every level) end the analysis normally, with the clock still found."""
    app = MODEL_FOLDER.replace('f"{self.model}/{template}.j2"', 'f"{template}.j2"')
    root = write_tree(tmp_path, {
        "app.py": app, "prompts/extract-action.j2": 'Now: {{ now }}\n{% include "a.j2" %}\n' + RULES,
        "prompts/a.j2": '{% include "b.j2" %}{% include "b.j2" %}', "prompts/b.j2": '{% include "a.j2" %}{% include "a.j2" %}'})
    assert ("prompts/extract-action.j2", 1, "PC001", "error") in findings(root)


PACKAGED = '''
import importlib.resources
from datetime import datetime

from openai import OpenAI

client = OpenAI()


def answer(question: str) -> str:
    rules = LOAD
    system = "Now: " + datetime.now().isoformat() + "\\n" + rules
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
'''

PACKAGE_LOADS = {
    "files": 'importlib.resources.files("app.prompts").joinpath("rules.md").read_text()',
    "files_of_own_package": '(importlib.resources.files(__package__) / "prompts" / "rules.md").read_text()',
    "files_opened": 'importlib.resources.files("app.prompts").joinpath("rules.md").open().read()',
    "read_text": 'importlib.resources.read_text("app.prompts", "rules.md")',
    "own_package_unnamed": '(importlib.resources.files() / "prompts" / "rules.md").read_text()',
    "yaml": 'yaml.safe_load(importlib.resources.files("app.prompts").joinpath("rules.yaml").read_text())["rules"]',
    "pkg_resources_string": 'pkg_resources.resource_string("app.prompts", "rules.md").decode("utf-8")',
    "pkg_resources_filename": 'open(pkg_resources.resource_filename("app", "prompts/rules.md")).read()',
    # Voyager: the package's folder, then the file's path written after it in an f-string.
    "pkg_resources_folder": 'open(f"{pkg_resources.resource_filename(\'app\', \'\')}/prompts/rules.md").read()',
}


def test_prompt_files_shipped_in_a_package(tmp_path: Path) -> None:
    """INVALID: the fixed rules are a file inside the package, read through `importlib.resources`
    (or the older `pkg_resources`) by the package's dotted name (smolagents' agent prompts,
    browser-use's system prompts, Voyager's action template); a
    clock before them is PC001. Each way of naming the file finds the same text, the data-only
    folder `app/prompts` (no `__init__.py`) under its package `app`. VALID twin: the clock after
    the rules. Before, the file was unknown text of no length and nothing was reported."""
    files = {"app/__init__.py": "", "app/prompts/rules.md": RULES,
             "app/prompts/rules.yaml": "rules: |\n" + "".join(f"  {line}\n" for line in RULES.splitlines())}
    for name, load in PACKAGE_LOADS.items():
        program = PACKAGED.replace("LOAD", load).replace("from datetime", "import pkg_resources, yaml\nfrom datetime")
        stamped = write_tree(tmp_path / name, {**files, "app/agent.py": program})
        assert findings(stamped) == [("app/agent.py", 12, "PC001", "error")], name
        after = program.replace('"Now: " + datetime.now().isoformat() + "\\n" + rules',
                                'rules + "Now: " + datetime.now().isoformat()')
        plain = write_tree(tmp_path / f"{name}-after", {**files, "app/agent.py": after})
        assert findings(plain) == [], name


def test_a_packaged_prompt_file_opened_through_as_file(tmp_path: Path) -> None:
    """INVALID: `with importlib.resources.as_file(...) as path:` hands a real path to the same file,
    then read with `open`; the clock before the rules is PC001, as with `files()` read directly."""
    program = PACKAGED.replace("    rules = LOAD\n", '''    with importlib.resources.as_file(importlib.resources.files("app.prompts") / "rules.md") as path:
        with open(path) as handle:
            rules = handle.read()
''')
    root = write_tree(tmp_path, {"app/__init__.py": "", "app/prompts/rules.md": RULES, "app/agent.py": program})
    assert findings(root) == [("app/agent.py", 13, "PC001", "error")]


FILE_UTILS = '''
import os


def f_expand(fpath):
    return os.path.expandvars(os.path.expanduser(fpath))


def f_join(*fpaths):
    fpath = f_expand(os.path.join(*fpaths))
    if isinstance(fpath, str):
        fpath = fpath.strip()
    return fpath


def load_text(*fpaths):
    with open(f_join(*fpaths), "r") as fp:
        return fp.read()
'''


def test_a_prompt_file_read_by_a_helper_re_exported_with_a_star_import(tmp_path: Path) -> None:
    """INVALID (Voyager's loader): `import app.utils as U; U.load_text(...)`, where the package's
    `__init__` re-exports its file helpers with `from .file_utils import *` and the helper joins,
    expands and strips the path before opening it. The rules are read, and the clock before them
    is PC001. VALID twin: the clock after the rules. Before, `U.load_text` was an unknown name
    (star imports were not followed), then unknown text (`expanduser` and `strip` lost the path)."""
    load = 'U.load_text(f"{pkg_resources.resource_filename(\'app\', \'\')}/prompts/rules.md")'
    program = PACKAGED.replace("LOAD", load).replace("from datetime", "import pkg_resources\nimport app.utils as U\n"
                                                                      "from datetime")
    files = {"app/__init__.py": "", "app/prompts/rules.md": RULES, "app/utils/__init__.py": "from .file_utils import *\n",
             "app/utils/file_utils.py": FILE_UTILS}
    stamped = write_tree(tmp_path / "stamped", {**files, "app/agent.py": program})
    assert findings(stamped) == [("app/agent.py", 13, "PC001", "error")]
    after = program.replace('"Now: " + datetime.now().isoformat() + "\\n" + rules',
                            'rules + "Now: " + datetime.now().isoformat()')
    assert findings(write_tree(tmp_path / "after", {**files, "app/agent.py": after})) == []


DEEP_LOADER = '''
import pkg_resources
from datetime import datetime

from openai import OpenAI

import app.utils as U

client = OpenAI()


def load_prompt(name):
    return U.load_text(f"{pkg_resources.resource_filename('app', '')}/prompts/{name}.md")


class ActionAgent:
    def render_system_message(self):
        return SYSTEM


class Runner:
    def __init__(self):
        self.agent = ActionAgent()

    def step(self, task: str) -> str:
        return client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": self.agent.render_system_message()}, {"role": "user", "content": task}])
'''


def test_small_path_helpers_still_run_below_the_depth_limit(tmp_path: Path) -> None:
    """INVALID (Voyager's whole chain): the step renders the agent's system message, which loads
    the prompt file through `load_prompt` → `U.load_text` → `f_join` → `f_expand`: the path helpers
    sit past the evaluator's depth limit, and small helpers still run there, so the file is read
    and the clock before it is PC001. VALID twin: the clock after the rules. Before, the path was
    unknown at that depth and so was the whole system prompt."""
    files = {"app/__init__.py": "", "app/prompts/rules.md": RULES, "app/utils/__init__.py": "from .file_utils import *\n",
             "app/utils/file_utils.py": FILE_UTILS}
    stamped = DEEP_LOADER.replace("SYSTEM", 'f"Now: {datetime.now()}\\n" + load_prompt("rules")')
    assert findings(write_tree(tmp_path / "stamped", {**files, "app/agent.py": stamped})) == [
        ("app/agent.py", 17, "PC001", "error")]
    after = DEEP_LOADER.replace("SYSTEM", 'load_prompt("rules") + f"Now: {datetime.now()}"')
    assert findings(write_tree(tmp_path / "after", {**files, "app/agent.py": after})) == []



def test_which_definitions_run_past_the_depth_limit() -> None:
    """Small definitions that do something run past the depth limit; an interface's stub does not
    (run, it answers None: vanna's enhancer then took `if not memories: return system_prompt` as
    always true, and the memories its name promises, judged true on bench/wild, were lost), nor
    does a definition of some size."""
    from promptlint.analysis.evaluator import SMALL_HELPER_NODES, _small_helper

    def definition(source: str) -> ast.FunctionDef:
        return ast.parse(source).body[0]  # type: ignore[return-value]

    assert _small_helper(definition("def f_expand(p):\n    return os.path.expandvars(os.path.expanduser(p))"))
    assert not _small_helper(definition('async def search(self, q):\n    """Search memories."""\n    pass'))
    assert not _small_helper(definition("def search(self, q):\n    raise NotImplementedError"))
    body = "\n".join(f"    x{i} = f(x{i - 1}, {i})" for i in range(1, SMALL_HELPER_NODES // 4))
    assert not _small_helper(definition(f"def build(x0):\n{body}\n    return x0"))


SETTINGS_LOADER = '''
import sys
from os.path import abspath, dirname, join

from dynaconf import Dynaconf

FILES = ["review_prompts.toml", "overrides.toml", ".secrets.toml"]


class Settings:
    _instance = None

    def __new__(cls):
        if not cls._instance:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __init__(self) -> None:
        if not hasattr(self, "loaded"):
            folder = getattr(sys, "_MEIPASS", dirname(abspath(__file__)))
            self.loaded = Dynaconf(merge_enabled=MERGE, settings_files=[join(folder, name) for name in FILES])


def get_settings() -> Dynaconf:
    return Settings().loaded
'''

SETTINGS_CALLER = '''
import litellm
from jinja2 import Environment, StrictUndefined

from reviewer.settings.loader import get_settings


class ModelCaller:
    def call_model(self, prompt: dict) -> str:
        messages = [{"role": "system", "content": prompt["system"]}, {"role": "user", "content": prompt["user"]}]
        return litellm.completion(model="gpt-4o", messages=messages).choices[0].message.content


class Reviewer:
    def __init__(self, caller: ModelCaller) -> None:
        self.caller = caller

    def _build_prompt(self, section: str, **values) -> dict:
        environment = Environment(undefined=StrictUndefined)
        table = get_settings().get(section)
        return {"system": environment.from_string(table.system).render(**values),
                "user": environment.from_string(table.user).render(**values)}

    def answer(self, question: str) -> str:
        return self.caller.call_model(self._build_prompt("review_prompt", question=question))
'''


def _settings_tree(root: Path, system: str, merge: str = "True", overrides: str = "") -> Path:
    prompts = f'[review_prompt]\nsystem = """\\\n{system}"""\nuser = """\\\nReview it now.\n"""\n'
    return write_tree(root, {
        "reviewer/__init__.py": "", "reviewer/settings/__init__.py": "",
        "reviewer/settings/loader.py": SETTINGS_LOADER.replace("MERGE", merge),
        "reviewer/settings/review_prompts.toml": prompts,
        "reviewer/settings/overrides.toml": overrides or '[config]\nmodel = "gpt-4o"\n',
        "reviewer/caller.py": SETTINGS_CALLER})


def test_prompts_kept_in_settings_merged_from_toml_files(tmp_path: Path) -> None:
    """INVALID: the prompts live in TOML tables a Dynaconf settings object merges from the files
    next to its module (the folder found through PyInstaller's `getattr(sys, "_MEIPASS", here)`,
    a listed file that is not there skipped), read back as `settings.get(section).system` and
    rendered by Jinja2: the question opens the system prompt, the rules follow it (qodo-cover,
    pr-agent in bench/wild). PC001 where the question is handed in, through the TOML line it fills.
    VALID twin: the question after the rules."""
    first = _settings_tree(tmp_path / "first", "The question: {{ question }}\n" + RULES)
    assert findings(first) == [("reviewer/caller.py", 24, "PC001", "error")]
    result = analyze([first], Config(root=first, cache_dir=None), cwd=first)
    assert ("reviewer/settings/review_prompts.toml", 3) in {
        (step.location.path, step.location.line) for step in result.findings[0].related}
    last = _settings_tree(tmp_path / "last", RULES + "The question: {{ question }}\n")
    assert findings(last) == []


def test_a_later_settings_file_replaces_a_table_or_merges_into_it(tmp_path: Path) -> None:
    """A later file's `[review_prompt]` with only `user` replaces the whole table unless
    `merge_enabled=True`: without merging, the table has no system text and the bust is gone."""
    override = '[review_prompt]\nuser = """\\\nReview it carefully now.\n"""\n'
    merged = _settings_tree(tmp_path / "merged", "The question: {{ question }}\n" + RULES, "True", override)
    assert findings(merged) == [("reviewer/caller.py", 24, "PC001", "error")]
    replaced = _settings_tree(tmp_path / "replaced", "The question: {{ question }}\n" + RULES, "False", override)
    assert findings(replaced) == []


def test_settings_files_listed_by_a_glob_of_their_folder(tmp_path: Path) -> None:
    """AlphaCodium's loader: `Dynaconf(settings_files=list(Path(here).glob("*.toml")))`. The
    project folder is listed (sorted; the listing's own order is the file system's, which a
    merge of differently named tables does not depend on) and each file merged. INVALID and its
    VALID twin as above."""
    glob_loader = SETTINGS_LOADER.replace(
        "settings_files=[join(folder, name) for name in FILES]",
        'settings_files=list(pathlib.Path(folder).glob("*.toml"))').replace("import sys\n", "import pathlib\nimport sys\n")
    for name, system, expected in [("first", "The question: {{ question }}\n" + RULES,
                                    [("reviewer/caller.py", 24, "PC001", "error")]),
                                   ("last", RULES + "The question: {{ question }}\n", [])]:
        root = _settings_tree(tmp_path / name, system)
        (root / "reviewer/settings/loader.py").write_text(glob_loader.replace("MERGE", "True").lstrip("\n"))
        assert findings(root) == expected


LISTED_PROMPTS = '''
from pathlib import Path

from openai import OpenAI

client = OpenAI()
HERE = Path(__file__).parent


def system_prompt() -> str:
    return "\\n".join(path.read_text() for path in LISTING)


def answer(history: list, question: str) -> str:
    messages = [{"role": "system", "content": system_prompt()}, *history, {"role": "user", "content": question}]
    return client.chat.completions.create(model="gpt-4o", messages=messages)
'''


def test_prompt_files_listed_from_a_project_folder_are_read_in_an_unstable_order(tmp_path: Path) -> None:
    """INVALID: the system prompt joins the files a `glob` of a project folder lists, in the file
    system's order: PC003 at the listing, and the files' text is now known (the estimate counts
    it). VALID twin: the same listing sorted."""
    parts = {f"prompts/part{n}.md": f"Section {n}.\n" + RULES for n in range(3)}
    unsorted = write_tree(tmp_path / "unsorted", {"app.py": LISTED_PROMPTS.replace(
        "LISTING", '(HERE / "prompts").glob("*.md")'), **parts})
    result = analyze([unsorted], Config(root=unsorted, cache_dir=None), cwd=unsorted)
    assert [(f.location.path, f.location.line, f.rule) for f in result.findings] == [("app.py", 10, "PC003")]
    assert "characters of stable text" in result.findings[0].message
    listed = write_tree(tmp_path / "sorted", {"app.py": LISTED_PROMPTS.replace(
        "LISTING", 'sorted((HERE / "prompts").glob("*.md"))'), **parts})
    assert findings(listed) == []
