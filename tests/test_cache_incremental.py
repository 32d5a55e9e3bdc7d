"""The persistent cache: a warm run gives exactly the cold answer without evaluating anything, a
change re-evaluates only what depends on it, a damaged or hostile cache is ignored and rebuilt,
concurrent runs are safe, and parallel evaluation gives the serial answer."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from promptlint import engine
from promptlint.analysis.project import Project
from promptlint.config import Config, ConfigError
from promptlint.engine import analyze
from promptlint.model import AnalysisResult
from tests.conftest import REPO, run_cli, write_tree

DEMO = REPO / "fixtures" / "demo_app"


def copy_demo(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".promptlint_cache", "__pycache__"))
    return root


def run(root: Path, **settings: object) -> AnalysisResult:
    return analyze([root], Config(root=root, jobs=1, **settings), cwd=root)  # type: ignore[arg-type]


def answer(result: AnalysisResult) -> tuple:
    return result.findings, result.errors, result.layouts


def test_warm_run_gives_the_cold_answer_without_evaluating(tmp_path: Path) -> None:
    root = copy_demo(tmp_path)
    uncached = run(root, cache_dir=None)
    cold = run(root)
    warm = run(root)
    assert answer(cold) == answer(uncached) == answer(warm)
    assert cold.stats["entry_modules_evaluated"] == cold.stats["entry_modules"] > 0
    assert warm.stats["entry_modules_evaluated"] == 0
    cache = root / ".promptlint_cache"
    assert (cache / ".gitignore").read_text().strip().endswith("*")
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")


def test_a_change_re_evaluates_only_its_dependents(tmp_path: Path) -> None:
    root = copy_demo(tmp_path)
    run(root)
    touched = root / "support_bot" / "notifications.py"
    touched.write_text(touched.read_text() + "\n# an edit\n")
    after = run(root)
    assert 0 < after.stats["entry_modules_evaluated"] < after.stats["entry_modules"]
    assert answer(after) == answer(run(root, cache_dir=None))
    again = run(root)  # the state written after a partial re-evaluation is complete
    assert again.stats["entry_modules_evaluated"] == 0
    assert answer(again) == answer(after)
    touched.write_text(touched.read_text() + "\n# a second edit\n")
    assert answer(run(root)) == answer(after)
    assert run(root).stats["entry_modules_evaluated"] == 0


def test_touch_without_change_re_evaluates_nothing(tmp_path: Path) -> None:
    root = copy_demo(tmp_path)
    run(root)
    for path in root.rglob("*.py"):
        path.touch()
    assert run(root).stats["entry_modules_evaluated"] == 0


HELPER_USER = """
from openai import OpenAI
import clock
client = OpenAI()
POLICY = "Answer with care and cite the refund policy section by section, step by step. " * 10
def answer(question: str) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": clock.stamp() + POLICY}, {"role": "user", "content": question}])
"""


def test_a_new_module_under_a_used_name_is_seen(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app.py": HELPER_USER})
    before = run(tmp_path)
    assert not [f for f in before.findings if f.rule == "PC001"]
    write_tree(tmp_path, {"clock.py": "from datetime import datetime\ndef stamp():\n    return f'{datetime.now()}'\n"})
    after = run(tmp_path)
    assert [f for f in after.findings if f.rule == "PC001"]
    assert answer(after) == answer(run(tmp_path, cache_dir=None))


CLOCK = """
from datetime import datetime
def stamp():
    return f"{datetime.now()}"
def unrelated():
    return 1
"""


def _pc001(result: AnalysisResult) -> list[tuple[str, int]]:
    return [(f.volatile_source.location.path, f.volatile_source.location.line)
            for f in result.findings if f.rule == "PC001" and f.volatile_source and f.volatile_source.location]


def test_an_edit_elsewhere_in_an_imported_module_keeps_its_importers(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(tmp_path, {"app.py": HELPER_USER, "clock.py": CLOCK})
    assert _pc001(run(tmp_path)) == [("clock.py", 3)]
    # A function appended, and a function the entry never looked at changed in place: app.py
    # read only `stamp` (and `datetime`) from clock.py, so its stored result still holds.
    write_tree(tmp_path, {"clock.py": CLOCK.replace("return 1", "return 2") + "def added():\n    return 3\n"})
    after = run(tmp_path)
    assert after.stats["entry_modules_evaluated"] == 0
    assert answer(after) == answer(run(tmp_path, cache_dir=None))
    # The kept result is stored with the module's new hash: the next run need not look again.
    parsed: list[str] = []
    real = Project.module_at
    monkeypatch.setattr(Project, "module_at", lambda project, path: parsed.append(path.name) or real(project, path))
    assert answer(run(tmp_path)) == answer(after) and "clock.py" not in parsed


def test_an_edit_to_a_name_the_entry_read_re_evaluates_it(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app.py": HELPER_USER, "clock.py": CLOCK})
    run(tmp_path)
    write_tree(tmp_path, {"clock.py": CLOCK.replace('f"{datetime.now()}"', '"a fixed stamp"')})
    fixed = run(tmp_path)
    assert fixed.stats["entry_modules_evaluated"] == 1 and _pc001(fixed) == []
    # Lines added above `stamp` move it: the finding must point at its new line.
    write_tree(tmp_path, {"clock.py": "# moved down\n# by two lines\n" + CLOCK.lstrip()})
    moved = run(tmp_path)
    assert moved.stats["entry_modules_evaluated"] == 1 and _pc001(moved) == [("clock.py", 5)]
    assert answer(moved) == answer(run(tmp_path, cache_dir=None))


def test_an_edit_to_a_function_re_exported_with_a_star_import_re_evaluates_its_user(tmp_path: Path) -> None:
    # `import utils as U; U.stamp()`, where utils/__init__.py says `from .clock import *`: the
    # function read through the star import is a dependency like one imported by name.
    files = {"app.py": HELPER_USER.replace("import clock", "import utils as U").replace("clock.stamp()", "U.stamp()"),
             "utils/__init__.py": "from .clock import *\n", "utils/clock.py": CLOCK}
    write_tree(tmp_path, files)
    assert _pc001(run(tmp_path)) == [("utils/clock.py", 3)]
    write_tree(tmp_path, {"utils/clock.py": CLOCK.replace('f"{datetime.now()}"', '"a fixed stamp"')})
    fixed = run(tmp_path)
    assert fixed.stats["entry_modules_evaluated"] == 1 and _pc001(fixed) == []


def test_a_name_defined_after_it_was_looked_up_in_vain_is_seen(tmp_path: Path) -> None:
    # `stamp` is missing at first: the entry looked it up and found nothing, a dependency too.
    write_tree(tmp_path, {"app.py": HELPER_USER, "clock.py": "def unrelated():\n    return 1\n"})
    assert _pc001(run(tmp_path)) == []
    write_tree(tmp_path, {"clock.py": CLOCK})
    after = run(tmp_path)
    assert after.stats["entry_modules_evaluated"] == 1 and _pc001(after) == [("clock.py", 3)]


def test_an_imported_module_that_no_longer_parses_re_evaluates_its_importers(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app.py": HELPER_USER, "clock.py": CLOCK})
    run(tmp_path)
    write_tree(tmp_path, {"clock.py": CLOCK + "def broken(:\n"})
    after = run(tmp_path)
    assert after.stats["entry_modules_evaluated"] == 1
    assert answer(after) == answer(run(tmp_path, cache_dir=None))
    assert any(e.path == "clock.py" for e in after.errors)


LLM_HELPER = """
from openai import OpenAI
client = OpenAI()
def ask(system: str, question: str) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
"""
CALLER = """
from datetime import datetime
from llm import ask
POLICY = "Answer with care and cite the refund policy section by section, step by step. " * 10
def go(question):
    return ask(f"{datetime.now()} " + POLICY, question)
"""


def test_an_edit_that_changes_nothing_the_reach_reads_keeps_the_reach(tmp_path: Path) -> None:
    write_tree(tmp_path, {"llm.py": LLM_HELPER, "caller.py": CALLER})
    first = run(tmp_path)
    assert first.stats["reach_computed"] == 1 and _pc001(first) == [("caller.py", 5)]
    # A function that calls nothing, put before the reaching one: the stored reach is kept and
    # `go` is found again at its new place among the definitions.
    write_tree(tmp_path, {"caller.py": CALLER.replace("def go(", "def version():\n    return 2\ndef go(")})
    kept = run(tmp_path)
    assert (kept.stats["reach_computed"], kept.stats["reach_kept_after_edit"]) == (0, 1)
    assert answer(kept) == answer(run(tmp_path, cache_dir=None))
    assert _pc001(kept) == [("caller.py", 7)]


@pytest.mark.parametrize("edit", [
    ("caller.py", "def go(", "def other(q):\n    return ask('x', q)\ndef go("),  # a new call of a wrapper
    ("llm.py", "def ask(", "def ask_twice(system: str, question: str):\n    return ask(system, question)\ndef ask("),
    ("llm.py", "def ask(", "\ndef ask("),  # the LLM call moves down a line: the calls it reaches move
    ("caller.py", "def go(", "def ask():\n    return 1\ndef go("),  # one more definition of a wrapper's name
])
def test_an_edit_that_changes_what_the_reach_reads_computes_it_again(tmp_path: Path, edit: tuple[str, str, str]) -> None:
    write_tree(tmp_path, {"llm.py": LLM_HELPER, "caller.py": CALLER})
    run(tmp_path)
    name, old, new = edit
    write_tree(tmp_path, {name: {"llm.py": LLM_HELPER, "caller.py": CALLER}[name].replace(old, new)})
    after = run(tmp_path)
    assert after.stats["reach_computed"] == 1
    assert answer(after) == answer(run(tmp_path, cache_dir=None))


TEMPLATE_USER = """
from datetime import datetime
from pathlib import Path
from jinja2 import Template
from openai import OpenAI
client = OpenAI()
PROMPT = Template(Path("prompts/system.j2").read_text())
def ask(question: str) -> str:
    return client.responses.create(model="gpt-4.1-mini", instructions=PROMPT.render(now=datetime.now()),
                                   input=question)
"""


def test_an_edited_prompt_file_is_seen(tmp_path: Path) -> None:
    stable = "You review contracts clause by clause and cite each clause you rely on. " * 10
    write_tree(tmp_path, {"app.py": TEMPLATE_USER, "prompts/system.j2": stable})
    assert not [f for f in run(tmp_path).findings if f.rule == "PC001"]
    write_tree(tmp_path, {"prompts/system.j2": "Time: {{ now }}\n" + stable})
    after = run(tmp_path)
    assert [f for f in after.findings if f.rule == "PC001"]
    assert answer(after) == answer(run(tmp_path, cache_dir=None))


@pytest.mark.parametrize("damage", [
    b"", b"{", b"\x00\xff garbage", b"[]", b'{"format": 1, "facts": 7}',
    b'{"format": 1, "facts": {}, "dep_files": [], "dep_names": [], "entries": {"k": [[0], [], [], [], 1, 0]}}',
])
def test_a_damaged_cache_is_ignored_and_rebuilt(tmp_path: Path, damage: bytes) -> None:
    root = copy_demo(tmp_path)
    cold = run(root)
    for state in (root / ".promptlint_cache").rglob("state.json"):
        state.write_bytes(damage)
    again = run(root)
    assert answer(again) == answer(cold)
    assert again.stats["entry_modules_evaluated"] == again.stats["entry_modules"]
    assert run(root).stats["entry_modules_evaluated"] == 0  # rebuilt


def test_hostile_cache_records_are_not_trusted(tmp_path: Path) -> None:
    """Records decode only into promptlint's own types: a crafted record is dropped, never run."""
    root = copy_demo(tmp_path)
    cold = run(root)
    for state in (root / ".promptlint_cache").rglob("state.json"):
        document = json.loads(state.read_text())
        for entry in document["entries"].values():
            entry[2] = [{"_": "Popen", "args": ["touch", str(tmp_path / "pwned")]}]
            entry[3] = [{"~": "os.system", "v": "touch pwned"}]
        state.write_text(json.dumps(document))
    assert answer(run(root)) == answer(cold)
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("damage", [
    b"", b"{", b"[]", b'{"format": 1, "files": 7, "bound": 7}',
    b'{"format": 1, "files": {"caller.py": [1, 2]}, "relevant": [], "flow_names": [],'
    b' "bound": {"x": {"caller.py": 1}}}',
])
def test_damaged_reach_inputs_and_name_records_are_not_trusted(tmp_path: Path, damage: bytes) -> None:
    write_tree(tmp_path, {"llm.py": LLM_HELPER, "caller.py": CALLER, "clock.py": CLOCK})
    run(tmp_path)
    for name in ("reach_inputs.json", "bound.json"):
        for record in (tmp_path / ".promptlint_cache").rglob(name):
            record.write_bytes(damage)
    # An edit that both records would let the cache keep (caller.py reads only `ask` of llm.py).
    write_tree(tmp_path, {"llm.py": LLM_HELPER + "def version():\n    return 2\n"})
    assert answer(run(tmp_path)) == answer(run(tmp_path, cache_dir=None))


@pytest.mark.parametrize("damage", ["rows past the pairs", "pairs of the wrong shape", "entries not row numbers"])
def test_damaged_name_tables_are_not_trusted(tmp_path: Path, damage: str) -> None:
    """bound.json keeps the names entries read as shared tables: a row pointing past them, or
    tables of the wrong shape, make those entries depend on whole files again."""
    write_tree(tmp_path, {"llm.py": LLM_HELPER, "caller.py": CALLER, "clock.py": CLOCK})
    run(tmp_path)
    for record in (tmp_path / ".promptlint_cache").rglob("bound.json"):
        document = json.loads(record.read_text())
        assert document["entries"] and document["rows"]
        if damage == "rows past the pairs":
            document["rows"] = [[path, [len(document["pairs"]) + 5]] for path, _ in document["rows"]]
        elif damage == "pairs of the wrong shape":
            document["pairs"] = [7 for _ in document["pairs"]]
        else:
            document["entries"] = {key: [["caller.py", 3]] for key in document["entries"]}
        record.write_text(json.dumps(document))
    write_tree(tmp_path, {"llm.py": LLM_HELPER + "def version():\n    return 2\n"})
    assert answer(run(tmp_path)) == answer(run(tmp_path, cache_dir=None))


@pytest.mark.parametrize("record", [
    [[{"_": "Popen", "args": ["touch", "pwned"]}], []],  # not promptlint's record
    [[{"_": "Location", "path": "x.py", "line": 1, "column": 1, "end_line": 1, "end_column": 2}], []],  # not a Finding
    [[], [["trim", {"_": "Finding"}, "h", "how"]]],  # a helper cut without its location
    [[], [["trim"]]],  # of the wrong shape
    "not a list",
])
def test_damaged_history_cut_and_token_records_are_recomputed(tmp_path: Path, record: object) -> None:
    from promptlint.estimate.tokens import _load_counter

    root = write_tree(tmp_path, {"chat.py": CUT_HISTORY, "answer.py": CLOCK_FIRST})
    cold = run(root)
    for stored in (root / ".promptlint_cache").rglob("modules.json"):
        document = json.loads(stored.read_text())
        document["modules"] = {key: record for key in document["modules"]}
        stored.write_text(json.dumps(document))
    for stored in (root / ".promptlint_cache").rglob("tokens.json"):
        document = json.loads(stored.read_text())
        document["counts"] = {key: "many" for key in document["counts"]}
        stored.write_text(json.dumps(document))
    _load_counter.cache_clear()
    again = run(root)
    assert answer(again) == answer(cold)
    assert again.stats["history_modules_read"] == 1 and again.stats["tokenizer_loaded"] == 1


def test_other_settings_use_another_namespace(tmp_path: Path) -> None:
    root = copy_demo(tmp_path)
    run(root)
    changed = run(root, stable=("support_bot.*",))
    assert changed.stats["entry_modules_evaluated"] == changed.stats["entry_modules"]


def test_cache_dir_must_stay_inside_the_project(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write_tree(root, {"app.py": HELPER_USER})
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    with pytest.raises(ConfigError):
        run(root, cache_dir=str(outside))
    (root / ".promptlint_cache").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ConfigError):
        run(root)
    assert not any(outside.iterdir())


def test_no_cache_flag_writes_nothing(tmp_path: Path) -> None:
    root = copy_demo(tmp_path)
    result = run_cli("check", ".", "--no-cache", cwd=root)
    assert result.returncode == 1
    assert not (root / ".promptlint_cache").exists()


def test_concurrent_runs_are_safe(tmp_path: Path) -> None:
    root = copy_demo(tmp_path)
    expected = run_cli("check", ".", "--format", "json", "--no-cache", cwd=root).stdout
    command = [sys.executable, "-m", "promptlint", "check", ".", "--format", "json"]
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    for _ in range(2):  # cold, then warm, each four at once
        processes = [subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True) for _ in range(4)]
        outputs = [p.communicate(timeout=300) for p in processes]
        assert [p.returncode for p in processes] == [1] * 4, [err for _, err in outputs]
        assert all(_findings(out) == _findings(expected) for out, _ in outputs)
    leftovers = [p.name for p in (root / ".promptlint_cache").rglob("*") if p.name.endswith(".tmp")]
    assert not leftovers


def _findings(output: str) -> list:
    return json.loads(output)["findings"]


def test_parallel_workers_give_the_serial_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = copy_demo(tmp_path)
    serial = analyze([root], Config(root=root, cache_dir=None, jobs=1), cwd=root)
    monkeypatch.setattr(engine, "MIN_PARALLEL_BYTES", 0)
    parallel = analyze([root], Config(root=root, cache_dir=None, jobs=2), cwd=root)
    assert answer(parallel) == answer(serial)


def test_corpus_cases_cached_and_uncached_agree(tmp_path: Path) -> None:
    cases = sorted(p for p in (REPO / "fixtures" / "corpus").iterdir() if p.is_dir())
    for case in cases[::4]:
        root = tmp_path / case.name
        shutil.copytree(case, root)
        uncached = run(root, cache_dir=None)
        assert answer(run(root)) == answer(uncached) == answer(run(root)), case.name


def test_cache_result_is_independent_of_the_working_directory(tmp_path: Path) -> None:
    root = copy_demo(tmp_path)
    from_root = run_cli("check", ".", "--format", "json", cwd=root)
    from_parent = run_cli("check", "demo", "--format", "json", cwd=tmp_path)
    paths = {f["path"] for f in json.loads(from_parent.stdout)["findings"]}
    assert all(p.startswith("demo/") for p in paths)
    assert len(json.loads(from_root.stdout)["findings"]) == len(paths)



def test_lost_called_names_are_read_again_from_the_files(tmp_path: Path) -> None:
    root = copy_demo(tmp_path)
    run(root)
    stored = list((root / ".promptlint_cache").glob("*/called.json"))
    assert stored
    for path in stored:
        path.unlink()  # kept apart from the facts; a warm run never reads them
    touched = root / "support_bot" / "notifications.py"
    touched.write_text(touched.read_text() + "\n# an edit\n")
    assert answer(run(root)) == answer(run(root, cache_dir=None))


CUT_HISTORY = '''
from openai import OpenAI
client = OpenAI()

class Chat:
    def __init__(self):
        self.messages = [{"role": "system", "content": "You are a careful support agent."}]

    def ask(self, question: str) -> str:
        self.messages.append({"role": "user", "content": question})
        if len(self.messages) > 20:
            self.messages = self.messages[-20:]
        reply = client.chat.completions.create(model="gpt-4o", messages=self.messages)
        return reply.choices[0].message.content
'''
CLOCK_FIRST = '''
import datetime
from openai import OpenAI
client = OpenAI()
RULES = "Answer from the refund policy only, cite each section you use, and keep it short. " * 80

def answer(question: str) -> str:
    system = f"Today is {datetime.datetime.now().isoformat()}.\\n{RULES}"
    reply = client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
    return reply.choices[0].message.content
'''


def test_warm_run_reads_no_history_cut_and_loads_no_tokenizer(tmp_path: Path) -> None:
    # PC009 reads modules, not layouts, and the estimates count tokens: both are stored by content,
    # so a warm run (a new process: the in-memory token counts are gone) redoes neither.
    from promptlint.estimate.tokens import _load_counter

    root = write_tree(tmp_path, {"chat.py": CUT_HISTORY, "answer.py": CLOCK_FIRST})
    _load_counter.cache_clear()
    cold = run(root)
    assert {f.rule for f in cold.findings} == {"PC001", "PC009"}
    assert cold.stats["history_modules_read"] == 1 and cold.stats["tokenizer_loaded"] == 1
    _load_counter.cache_clear()
    warm = run(root)
    assert answer(warm) == answer(cold)
    assert all(f.estimate is not None and f.estimate.lost_tokens_per_call for f in warm.findings
               if f.rule == "PC001")
    assert warm.stats["history_modules_read"] == 0 and warm.stats["tokenizer_loaded"] == 0
    chat = root / "chat.py"
    line = next(f.location.line for f in warm.findings if f.rule == "PC009")
    chat.write_text("# moved down a line\n" + chat.read_text())
    edited = run(root)
    assert [f.location.line for f in edited.findings if f.rule == "PC009"] == [line + 1]
    assert edited.stats["history_modules_read"] == 1


def test_a_helper_cut_follows_edits_of_its_callers(tmp_path: Path) -> None:
    from tests.test_pc009_cases import CONVO, TRIMMING_CALLER

    root = write_tree(tmp_path, {"convo.py": CONVO, "agent.py": TRIMMING_CALLER})
    caller, convo = (root / "agent.py").read_text(), (root / "convo.py").read_text()

    def cuts() -> list[tuple[str, int]]:
        return [(f.location.path, f.location.line) for f in run(root).findings if f.rule == "PC009"]

    assert cuts() == [("agent.py", 7)] == cuts()
    (root / "agent.py").write_text(caller.replace("if len(convo.messages) > 11:", "if ask is None:"))
    assert cuts() == [("convo.py", 6)]  # no caller cuts under a limit now: reported at the helper
    (root / "agent.py").write_text(caller)
    assert cuts() == [("agent.py", 7)]
    (root / "convo.py").write_text(convo.replace("def trim(", "def drop("))
    assert cuts() == [("convo.py", 6)]  # the caller's call is no longer the helper
