"""Property-based tests: whatever the source, ``analyze`` returns a result – per-file input errors
are allowed; exceptions, and internal errors (a crash of promptlint caught per file), are not. Three generators: grammar-shaped Python that reaches LLM calls,
mutations of the labelled corpus, and raw bytes. Derandomized with fixed example counts so CI
runs the same cases every time (about 30 s in all)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptlint.config import Config
from promptlint.engine import analyze
from promptlint.model import AnalysisResult

REPO = Path(__file__).resolve().parent.parent
CORPUS_FILES = sorted((REPO / "fixtures" / "corpus").rglob("*.py")) + \
    sorted((REPO / "fixtures" / "demo_app").rglob("*.py"))


def fuzz(examples: int) -> settings:
    return settings(max_examples=examples, derandomize=True, deadline=None, database=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


def analyze_files(files: dict[str, bytes]) -> AnalysisResult:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for name, data in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        result = analyze([root], Config(root=root, cache_dir=None, jobs=1, file_timeout_s=5.0), cwd=root)
    assert isinstance(result, AnalysisResult)
    for error in result.errors:
        assert error.path and error.message
    # A per-file error may be the input's fault; an exception in promptlint's code never is.
    internal = [(e.path, e.exception, e.where) for e in result.errors if e.internal]
    assert not internal, internal
    return result


# --- grammar-shaped Python -------------------------------------------------------------------

names = st.sampled_from(["x", "y", "prompt", "system", "user_id", "tools", "now", "msgs", "self.cache",
                         "client", "request_id", "session", "data", "items", "_", "async_", "kwargs"])
volatile = st.sampled_from(["datetime.now()", "time.time()", "uuid.uuid4()", "random.random()",
                            "set(tools)", "os.getpid()", "datetime.now().strftime('%H:%M')", "next(counter)",
                            "random.sample(items, 2)", "json.dumps(data)", "sorted(set(items))"])
literals = st.one_of(st.text(max_size=30).map(repr), st.integers().map(str),
                     st.sampled_from(["None", "True", "[]", "{}", "()", "...", "b'x'", "1e309", "0x_1"]))


@st.composite
def expressions(draw: st.DrawFn, depth: int = 0) -> str:
    leaf = draw(st.one_of(names, volatile, literals))
    if depth > 3 or draw(st.integers(0, 3)) == 0:
        return leaf
    inner = draw(expressions(depth=depth + 1))
    other = draw(expressions(depth=depth + 1))
    return draw(st.sampled_from([
        f"f'{{{inner}}} and {{{other}!r:>10}}'", f"{inner} + {other}", f"({inner}) % ({other},)",
        f"'{{}} {{}}'.format({inner}, {other})", f"[{inner}, {other}]", f"{{'role': 'system', 'content': {inner}}}",
        f"'\\n'.join([{inner}, {other}])", f"{inner}[{other}]", f"{inner}.{draw(names).split('.')[-1]}",
        f"lambda: {inner}", f"({inner} if {other} else None)", f"[{inner} for _ in {other}]",
        f"helper({inner}, key={other})", f"*{inner}", f"await {inner}", f"{{**{inner}}}",
    ]))


@st.composite
def statements(draw: st.DrawFn, indent: str = "", depth: int = 0) -> str:
    expression = draw(expressions())
    simple = draw(st.sampled_from([
        f"{draw(names)} = {expression}", f"{draw(names)} += {expression}", f"return {expression}",
        f"client.chat.completions.create(model='gpt-4o', messages=[{{'role': 'system', 'content': {expression}}}])",
        f"litellm.completion(model='x', messages={expression})",
        f"anthropic.Anthropic().messages.create(system={expression}, messages=[], tools={draw(expressions())})",
        f"msgs.append({expression})", f"yield {expression}", "pass", "del x", "global x", "raise",
    ]))
    if depth > 2 or draw(st.integers(0, 2)) == 0:
        return indent + simple
    body = "\n".join(draw(st.lists(statements(indent + "    ", depth + 1), min_size=1, max_size=3)))
    header = draw(st.sampled_from([
        f"def {draw(names).split('.')[-1]}(self, *args, **kwargs):", f"async def f{depth}(x=None):",
        f"class C{depth}(Base):", f"if {expression}:", f"for x in {expression}:", f"while {expression}:",
        f"with {expression} as y:", "try:", f"match {expression}:\n{indent}    case _:",
    ]))
    block = f"{indent}{header}\n{body}"
    if header == "try:":
        block += f"\n{indent}except Exception:\n{indent}    pass"
    return block


HEADER = ("import os, json, time, uuid, random\nfrom datetime import datetime\nimport litellm, anthropic\n"
          "from openai import OpenAI\nclient = OpenAI()\n")


@fuzz(150)
@given(st.lists(statements(), min_size=1, max_size=8))
def test_grammar_shaped_source_never_crashes(body: list[str]) -> None:
    source = HEADER + "\n".join(body) + "\n"
    analyze_files({"app.py": source.encode(), "helpers.py": b"from app import *\n" + source.encode()})


# --- mutated corpus files --------------------------------------------------------------------

mutations = st.sampled_from(["delete", "duplicate", "insert", "swap_lines", "truncate", "dedent"])
junk = st.sampled_from(["(", ")", "[", "]", "{", "}", ":", "\n", "    ", "'", '"', '"""', "f'{", "\\", "#", "\x00",
                        "lambda", "yield", "await", "\u2028", "\r", "é", "\ufeff", "$", "@", "print 'x'"])


@fuzz(150)
@given(st.sampled_from(CORPUS_FILES), st.lists(st.tuples(mutations, st.floats(0, 1), st.floats(0, 1), junk),
                                               min_size=1, max_size=4))
def test_mutated_corpus_files_never_crash(original: Path, edits: list[tuple[str, float, float, str]]) -> None:
    text = original.read_text(encoding="utf-8")
    for kind, where, length, piece in edits:
        text = _mutate(text, kind, where, length, piece)
    siblings = {p.relative_to(original.parent).as_posix(): p.read_bytes()
                for p in original.parent.iterdir() if p.is_file()}
    siblings[original.name] = text.encode("utf-8", "surrogatepass")
    analyze_files(siblings)


def _mutate(text: str, kind: str, where: float, length: float, piece: str) -> str:
    start = int(where * len(text))
    end = min(len(text), start + int(length * 80))
    if kind == "delete":
        return text[:start] + text[end:]
    if kind == "duplicate":
        return text[:end] + text[start:end] + text[end:]
    if kind == "insert":
        return text[:start] + piece + text[start:]
    if kind == "truncate":
        return text[:start]
    lines = text.splitlines(keepends=True)
    if not lines:
        return text
    index = min(len(lines) - 1, int(where * len(lines)))
    if kind == "swap_lines":
        other = min(len(lines) - 1, int(length * len(lines)))
        lines[index], lines[other] = lines[other], lines[index]
    else:
        lines[index] = lines[index].lstrip()
    return "".join(lines)


# --- raw bytes -------------------------------------------------------------------------------


@fuzz(100)
@given(st.binary(max_size=2000), st.sampled_from(["x.py", "templates/system.j2", "config/agent.yaml",
                                                   "models/m/tokenizer_config.json", "serve.sh"]))
def test_random_bytes_never_crash(data: bytes, name: str) -> None:
    analyze_files({name: data, "app.py": (HEADER + "PROMPT = open('" + name + "').read()\n"
                                          "client.chat.completions.create(model='m', messages=[{'role': 'system', "
                                          "'content': PROMPT}])\n").encode()})

