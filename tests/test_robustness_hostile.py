"""A battery of hostile inputs, run through the real CLI: each gives a clear per-file error in
human and JSON output, everything else is still analyzed, nothing hangs, the exit code is the
documented one (docs/robustness.md) and no traceback is ever printed."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import pytest

from promptlint.checks.pc001_volatile_before_stable import VolatileBeforeStable
from promptlint.config import Config
from promptlint.engine import analyze
from tests.conftest import run_cli, write_tree

# An analyzable file with one known finding, next to the hostile ones: PC001's first bad example.
GOOD = VolatileBeforeStable.INVALID[0]

LOADS_TEMPLATE = """
from pathlib import Path
from jinja2 import Template
from openai import OpenAI
client = OpenAI()
PROMPT = Template(Path("templates/{name}").read_text())
def ask(question: str) -> str:
    return client.responses.create(model="gpt-4.1-mini", instructions=PROMPT.render(), input=question)
"""

LOADS_YAML = """
from pathlib import Path
import yaml
from openai import OpenAI
client = OpenAI()
CONFIG = yaml.safe_load(Path("config/{name}").read_text())
def ask(question: str) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": CONFIG["prompt"]}}, {{"role": "user", "content": question}}])
"""

BILLION_LAUGHS = "a: &a [" + ",".join(["lol"] * 9) + "]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(8)
) + "prompt: *i\n"

SDK = b"import openai\n"

# file name -> (bytes, a phrase its error message must contain)
HOSTILE_PYTHON: dict[str, tuple[bytes, str]] = {
    "syntax_error.py": (SDK + b"def broken(:\n    pass\n", "syntax error"),
    "python2.py": (SDK + b"print 'hello, world'\n", "syntax error"),
    "null_bytes.py": (SDK + b"x = 1\x00\n", "null bytes"),
    "latin1_no_cookie.py": (SDK + b"s = '\xe9t\xe9'\n", "cannot decode"),
    "huge_single_line.py": (SDK + b"x = '" + b"a" * 10_000_000 + b"'\n", "larger than"),
    "deep_parentheses.py": (SDK + b"x = " + b"(" * 1000 + b"1" + b")" * 1000 + b"\n", "nested"),
    "deep_indentation.py": (SDK + b"".join(b" " * i + b"if x:\n" for i in range(1000)) + b" " * 1000 + b"pass\n",
                            "indentation"),
    "deep_unary.py": (SDK + b"x = " + b"-" * 100_000 + b"1\n", "nested too deeply"),
    "deep_binop_20k.py": (SDK + b"x = " + b" + ".join([b"1"] * 20_000) + b"\n", "cannot parse"),
    "binary.py": (bytes(random.Random(7).randrange(256) for _ in range(4096)) + b"\x00", "null bytes"),
}
CLEAN_PYTHON: dict[str, bytes] = {
    "bom.py": b"\xef\xbb\xbf" + SDK + b"GREETING = 'hello'\n",
    "latin1_cookie.py": b"# -*- coding: latin-1 -*-\n" + SDK + b"s = '\xe9t\xe9'\n",
    "deep_binop.py": SDK + b"x = " + b" + ".join([b"1"] * 2_000) + b"\n",  # deeper than the evaluator goes
    "syntax_error_but_irrelevant.py": b"def no_llm_here(:\n",  # never an entry: not parsed, no error
}


def build_hostile_project(root: Path) -> Path:
    write_tree(root, {"good.py": GOOD,
                      "uses_broken_template.py": LOADS_TEMPLATE.format(name="broken.j2"),
                      "templates/broken.j2": "{% if strict %}unclosed block",
                      "uses_broken_yaml.py": LOADS_YAML.format(name="broken.yaml"),
                      "config/broken.yaml": "prompt: [unclosed\n  - : :\n",
                      "uses_yaml_bomb.py": LOADS_YAML.format(name="bomb.yaml"),
                      "config/bomb.yaml": BILLION_LAUGHS})
    for name, (data, _) in HOSTILE_PYTHON.items():
        (root / name).write_bytes(data)
    for name, data in CLEAN_PYTHON.items():
        (root / name).write_bytes(data)
    os.mkfifo(root / "named_pipe.py")  # reading it would block forever
    os.symlink("loop_b.py", root / "loop_a.py")
    os.symlink("loop_a.py", root / "loop_b.py")
    os.symlink("missing_target.py", root / "dangling.py")
    outside = root.parent / f"{root.name}-outside.py"
    outside.write_text("import openai\n")
    os.symlink(outside, root / "leads_outside.py")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    os.symlink("..", root / "pkg" / "cycle")  # a directory loop
    return root


EXPECTED_ERRORS = {
    **{name: phrase for name, (_, phrase) in HOSTILE_PYTHON.items()},
    "named_pipe.py": "not a regular file",
    "loop_a.py": "looping symbolic link",
    "loop_b.py": "looping symbolic link",
    "dangling.py": "broken",
    "leads_outside.py": "outside the project",
    "templates/broken.j2": "Jinja2 syntax error",
    "config/broken.yaml": "cannot parse yaml",
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_hostile_project(tmp_path_factory.mktemp("hostile") / "project")


@pytest.fixture(scope="module")
def json_run(hostile: Path) -> tuple[int, dict, str, float]:
    started = time.perf_counter()
    result = run_cli("check", ".", "--format", "json", "--no-cache", cwd=hostile)
    return result.returncode, json.loads(result.stdout), result.stderr, time.perf_counter() - started


def test_every_hostile_file_gets_a_clear_error_in_json(json_run: tuple[int, dict, str, float]) -> None:
    _, document, _, _ = json_run
    errors = {e["path"]: e["message"] for e in document["errors"]}
    for path, phrase in EXPECTED_ERRORS.items():
        assert path in errors, f"no error for {path}; errors: {errors}"
        assert phrase.lower() in errors[path].lower(), (path, errors[path])
    for clean in CLEAN_PYTHON:
        assert clean not in errors, (clean, errors[clean])
    # Every one is a problem of the input; none is a crash of promptlint (docs/robustness.md).
    assert {e["kind"] for e in document["errors"]} == {"input"}
    assert document["summary"]["internal_errors"] == 0


def test_the_rest_is_still_analyzed_and_the_exit_code_is_findings(json_run: tuple[int, dict, str, float]) -> None:
    code, document, stderr, seconds = json_run
    assert [f["path"] for f in document["findings"] if f["rule"] == "PC001"] == ["good.py"]
    assert code == 1, stderr
    assert "Traceback" not in stderr
    assert seconds < 60


def test_yaml_alias_bomb_finishes(json_run: tuple[int, dict, str, float]) -> None:
    _, document, _, seconds = json_run
    errors = {e["path"]: e["message"] for e in document["errors"]}
    assert "YAML document too large" in errors["config/bomb.yaml"]  # refused after bounded expansion
    assert seconds < 60


def test_human_output_names_each_file(hostile: Path) -> None:
    result = run_cli("check", ".", "--no-cache", cwd=hostile)
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    for path in EXPECTED_ERRORS:
        assert f"error: {path}:" in result.stdout, path
    assert "could not be analyzed" in result.stdout


def test_cache_runs_give_the_same_answer(hostile: Path) -> None:
    first = run_cli("check", ".", "--format", "json", cwd=hostile)
    second = run_cli("check", ".", "--format", "json", cwd=hostile)
    assert first.returncode == second.returncode == 1
    assert json.loads(first.stdout)["errors"] == json.loads(second.stdout)["errors"]
    assert json.loads(first.stdout)["findings"] == json.loads(second.stdout)["findings"]


@pytest.mark.parametrize("name", ["syntax_error.py", "null_bytes.py", "binary.py", "huge_single_line.py"])
def test_only_broken_files_requested_is_exit_2(hostile: Path, name: str) -> None:
    result = run_cli("check", name, "--no-cache", cwd=hostile)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert name in result.stdout


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(tmp_path, {"good.py": GOOD, "locked.py": "import openai\n"})
    locked = tmp_path / "locked.py"
    real_read_bytes = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == "locked.py":
            raise PermissionError(13, "Permission denied", str(self))
        return real_read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    result = analyze([tmp_path], Config(root=tmp_path, cache_dir=None), cwd=tmp_path)
    errors = {e.path: e.message for e in result.errors}
    assert "permission denied" in errors.get("locked.py", "").lower(), errors
    assert [f.rule for f in result.findings if f.location.path == "good.py"]
    assert locked.exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_cli(tmp_path: Path) -> None:
    write_tree(tmp_path, {"good.py": GOOD, "locked.py": "import openai\n"})
    (tmp_path / "locked.py").chmod(0)
    result = run_cli("check", ".", "--format", "json", "--no-cache", cwd=tmp_path)
    errors = {e["path"]: e["message"] for e in json.loads(result.stdout)["errors"]}
    assert "locked.py" in errors
    assert result.returncode == 1


@pytest.mark.parametrize("config_text,phrase", [
    ("[tool.promptlint\nselect = [", "cannot read configuration"),
    ("[tool.promptlint]\nno-such-key = 1\n", "unknown key"),
    ("[tool.promptlint]\nselect = 'PC001'\n", "must be a list"),
    ("[tool.promptlint]\nsetting-names = 'language'\n", "must be a list"),
    ("[tool.promptlint]\nselect = ['XX999']\n", "unknown rule code"),
    ("[tool.promptlint]\nfile-timeout = -1\n", "positive number"),
    ("[tool.promptlint]\ncalls-per-conversation = 0\n", "positive number"),
    ("[tool.promptlint]\ncache-dir = '/tmp/elsewhere'\n", "inside the project"),
    ("[tool.promptlint]\ncache-dir = '../outside'\n", "inside the project"),
    (b"[tool.promptlint]\nselect = ['\xff']\n", "cannot read configuration"),
])
def test_malformed_config_is_exit_2_with_a_message(tmp_path: Path, config_text: str | bytes, phrase: str) -> None:
    write_tree(tmp_path, {"good.py": GOOD})
    data = config_text.encode() if isinstance(config_text, str) else config_text
    (tmp_path / "pyproject.toml").write_bytes(data)
    result = run_cli("check", ".", cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert phrase in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_missing_path_is_exit_2(tmp_path: Path) -> None:
    result = run_cli("check", "nope.py", cwd=tmp_path)
    assert result.returncode == 2
    assert "no such file" in result.stderr


def test_empty_project_is_exit_0(tmp_path: Path) -> None:
    result = run_cli("check", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_slow_module_is_abandoned_with_an_error(tmp_path: Path) -> None:
    """A per-file time budget: a module whose evaluation takes too long is reported, not waited on."""
    branches = "\n".join(f"    if flag{i}:\n        text = text + part{i}(text)" for i in range(300))
    helpers = "\n".join(f"def part{i}(t):\n    return t + t[:3] + str(len(t))" for i in range(300))
    slow = (f"import openai\n{helpers}\ndef build(text):\n{branches}\n"
            "    return openai.OpenAI().chat.completions.create(model='m', messages=[{'role': 'system', "
            "'content': text}])\n")
    write_tree(tmp_path, {"good.py": GOOD, "slow.py": slow,
                          "pyproject.toml": "[tool.promptlint]\nfile-timeout = 0.001\n"})
    result = run_cli("check", ".", "--format", "json", "--no-cache", cwd=tmp_path)
    document = json.loads(result.stdout)
    errors = {e["path"]: e["message"] for e in document["errors"]}
    assert "time budget" in errors.get("slow.py", ""), errors
    assert result.returncode in (0, 1)


def big_module(examples: int) -> str:
    """A module of few-shot examples (real applications ship them by the megabyte) whose prompt
    puts the clock before the rules."""
    rows = "".join(f'    "few-shot example {i}: a question and its worked answer, kept verbatim",\n'
                   for i in range(examples))
    return ("from datetime import datetime\nfrom openai import OpenAI\nclient = OpenAI()\n"
            f"EXAMPLES = [\n{rows}]\n" + 'RULES = "Follow the policy. " * 100\n'
            "def ask(q: str, history: list):\n"
            "    return client.chat.completions.create(model='gpt-4o', messages=[\n"
            "        {'role': 'system', 'content': f'Now {datetime.now()} ' + RULES}, *history,\n"
            "        {'role': 'user', 'content': q}])\n")


def test_a_two_megabyte_module_is_analyzed(tmp_path: Path) -> None:
    source = big_module(25_000)
    assert 1_500_000 < len(source) < 5_000_000
    write_tree(tmp_path, {"app.py": source})
    result = analyze([tmp_path], Config(root=tmp_path, cache_dir=None), cwd=tmp_path)
    assert not result.errors
    assert [(f.rule, f.location.path) for f in result.findings] == [("PC001", "app.py")]


def test_a_module_over_max_file_bytes_is_reported_as_skipped(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app.py": big_module(25_000), "notes.py": "x = 1\n" * 300_000})
    result = analyze([tmp_path], Config(root=tmp_path, cache_dir=None, max_file_bytes=1_000_000), cwd=tmp_path)
    assert sorted((e.path, "larger than 1000000 bytes" in e.message) for e in result.errors) == \
        [("app.py", True), ("notes.py", True)]
    assert result.findings == ()


NEWER_SYNTAX_APP = '''
from datetime import datetime
from openai import OpenAI

type Messages = list[dict[str, str]]
client = OpenAI()
POLICY = "Follow the refund policy step by step and cite the relevant section. " * 40

class Store[T]:
    def first(self) -> T: ...

def answer[T](question: T, history: Messages) -> str:
    system = f"Time: {datetime.now()}\\n" + POLICY
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": str(question)}])
'''


def test_python_3_12_generics_are_analyzed_not_reported_as_syntax_errors(tmp_path: Path) -> None:
    """PEP 695 (`type X = ...`, `def f[T]`, `class C[T]`) is read under Python 3.11 (issue 15): the
    clock ahead of the policy is found on its own line; nothing is reported as unreadable."""
    root = write_tree(tmp_path, NEWER_SYNTAX_APP)
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert result.errors == ()
    assert [(f.rule, f.location.line) for f in result.findings] == [("PC001", 12)]


def test_a_file_no_python_version_can_read_is_still_a_syntax_error_naming_the_line(tmp_path: Path) -> None:
    root = write_tree(tmp_path, NEWER_SYNTAX_APP.replace("def first(self) -> T: ...", "def first(self -> T: ..."))
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert [e.message.startswith("syntax error (line 9)") for e in result.errors] == [True]


def test_an_unmatched_bracket_is_reported_at_its_line_not_the_file_start(tmp_path: Path) -> None:
    # libcst's tokenizer names no position (1:1) for it; the interpreter's error does.
    root = write_tree(tmp_path, {"app.py": "from openai import OpenAI\n\nLIMIT = (1))\nclient = OpenAI()\n"})
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert [e.message for e in result.errors] == ["syntax error (line 3): unmatched ')'"]


def test_a_template_for_generated_code_is_reported_with_how_to_leave_it_out(tmp_path: Path) -> None:
    """A project's cookiecutter-style template (`class {{crew_name}}():`, crewAI's CLI in
    bench/wild) is no Python: its syntax error says what it is and how to exclude it; a plain
    syntax error says nothing more."""
    root = write_tree(tmp_path, {
        "templates/crew.py": "from crewai import Crew\n\n\nclass {{crew_name}}():\n    pass\n",
        "broken.py": "from openai import OpenAI\n\nLIMIT = {1: }\n",
    })
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    messages = {e.path: e.message for e in result.errors}
    assert messages["templates/crew.py"].startswith("syntax error (line 4): ")
    assert messages["templates/crew.py"].endswith("this looks like a template for generated code (`{{ … }}` or "
                                                  "`{% … %}` on that line): leave it out with `extend-exclude` in "
                                                  "[tool.promptlint]")
    assert "template" not in messages["broken.py"]


# Code written for a newer Python: how each builds the system text, and the line of the clock in it.
NEWER_SYSTEM_TEXT = {
    # PEP 701: the same quotes and a backslash inside `{...}`, an f-string nested in another.
    "3.12 f-strings": ('system = f"Tags: {"\\\\n".join(tags)} at {f"{datetime.now():%H:%M:%S}"}\\n" + POLICY', 6),
    # Such an f-string as one of several adjacent strings (OpenHands writes them so): the whole
    # run is rewritten, its lines kept.
    "3.12 f-strings among adjacent strings": ('''system = (
        "Tags: "
        f"{"\\\\n".join(tags)}"
        f"Now: {datetime.now()}\\n"
    ) + POLICY''', 9),
    # PEP 758 (`except A, B:`) and PEP 750: a template string read as the text it renders.
    "3.14 template strings and bare exception lists": ('''try:
        tags = list(tags)
    except ValueError, TypeError:
        pass
    system = t"Now: {datetime.now()!s}\\n" + POLICY''', 10),
}


@pytest.mark.parametrize("name", NEWER_SYSTEM_TEXT)
def test_newer_python_syntax_is_read_as_the_text_it_builds(tmp_path: Path, name: str) -> None:
    """Under Python 3.11 nothing is reported as unreadable, and the clock is found ahead of the
    policy on its own line."""
    snippet, clock_line = NEWER_SYSTEM_TEXT[name]
    root = write_tree(tmp_path, f'''
from datetime import datetime
from openai import OpenAI
client = OpenAI()
POLICY = "Follow the refund policy step by step and cite the relevant section. " * 40
def answer(question: str, tags: list[str]) -> str:
    {snippet}
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": system}}, {{"role": "user", "content": question}}])
''')
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert result.errors == ()
    assert [(f.rule, f.location.line) for f in result.findings] == [("PC001", clock_line)]
    assert "clock" in result.findings[0].message
