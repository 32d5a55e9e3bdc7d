"""Knowledge extended from configuration: wrappers, sources, the stable allowlist, sanitizers."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptlint.config import Config, ConfigError, load_config
from promptlint.engine import analyze
from promptlint.knowledge import load_knowledge
from tests.conftest import write_tree

POLICY = "Answer from the policy handbook only and cite the section you used. " * 20

WRAPPER_APP = {
    "app/llm.py": '''
def chat(system: str, messages: list, model: str = "claude-sonnet-4-5") -> str:
    """Our gateway client: posts to the internal LLM proxy (not an SDK the tool knows)."""
    import httpx
    return httpx.post("http://proxy/chat", json={"system": system, "messages": messages}).text
''',
    "app/bot.py": f'''
from datetime import datetime
from app import llm

POLICY = {POLICY!r}

def answer(history: list) -> str:
    return llm.chat(system=f"Now: {{datetime.now()}}\\n" + POLICY, messages=history)
''',
}
WRAPPER_CONFIG = '''
[tool.promptlint]
[[tool.promptlint.wrappers]]
api = "app.llm.chat"
provider = "anthropic"
callables = ["app.llm.chat"]
model = "model"
parts = [{ part = "system", arg = "system", shape = "text" },
         { part = "messages", arg = "messages", shape = "messages" }]
'''


def findings(root: Path) -> list:
    return list(analyze([root], load_config(root), cwd=root).findings)


def test_declared_wrapper_is_analyzed_like_an_sdk_call(tmp_path: Path) -> None:
    write_tree(tmp_path, WRAPPER_APP)
    assert findings(tmp_path) == []  # unknown gateway: nothing to show
    (tmp_path / "pyproject.toml").write_text(WRAPPER_CONFIG)
    found = findings(tmp_path)
    assert [(f.rule, f.call_site.api, f.location.path) for f in found] == [("PC001", "app.llm.chat", "app/bot.py")]


def test_declared_source_is_volatile(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app.py": f'''
from openai import OpenAI
from myclock import utc_stamp
POLICY = {POLICY!r}
def ask(history: list):
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": utc_stamp() + POLICY}}, *history])
'''})
    assert findings(tmp_path) == []
    (tmp_path / "pyproject.toml").write_text(
        '[tool.promptlint.sources]\n"myclock.utc_stamp" = { volatility = "per-request", category = "clock" }\n')
    found = findings(tmp_path)
    assert [f.rule for f in found] == ["PC001"] and found[0].volatile_source.source == "myclock.utc_stamp"


def test_stable_allowlist_silences_an_identifier(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app.py": f'''
from openai import OpenAI
POLICY = {POLICY!r}
def ask(tenant_id: str, history: list):
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": f"Tenant {{tenant_id}}. " + POLICY}}, *history])
'''})
    assert [f.rule for f in findings(tmp_path)] == ["PC001"]
    (tmp_path / "pyproject.toml").write_text('[tool.promptlint]\nstable = ["tenant_id"]\n')
    assert findings(tmp_path) == []


def test_declared_sanitizer_makes_a_value_stable(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app.py": f'''
import random
from openai import OpenAI
from mylib import canonical
EXAMPLES = ["a", "b", "c", "d"]
POLICY = {POLICY!r}
def ask(history: list):
    examples = canonical(random.sample(EXAMPLES, 3))
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": "\\n".join(examples) + POLICY}}, *history])
'''})
    assert [f.rule for f in findings(tmp_path)] == ["PC003"]
    (tmp_path / "pyproject.toml").write_text('[tool.promptlint]\nsanitizers = ["mylib.canonical"]\n')
    assert findings(tmp_path) == []


def test_declared_lookup_is_per_request(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app.py": f'''
from openai import OpenAI
POLICY = {POLICY!r}
def profile_block(crm, customer: str) -> str:
    return "Customer profile: " + crm.fetch_profile(customer) + "\\n"
def ask(crm, customer: str, history: list):
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": profile_block(crm, customer) + POLICY}}, *history])
'''})
    assert findings(tmp_path) == []  # an unknown call: not flagged
    (tmp_path / "pyproject.toml").write_text('[tool.promptlint.lookups]\nmemory = ["fetch_*"]\n')
    found = findings(tmp_path)
    assert [(f.rule, f.volatile_source.category) for f in found] == [("PC001", "memory")]


@pytest.mark.parametrize("text,message", [
    ('[tool.promptlint]\nselekt = ["PC001"]\n', "unknown key 'selekt'"),
    ('[tool.promptlint]\nselect = ["PC999"]\n', "unknown rule code"),
    ('[tool.promptlint.sources]\n"x.y" = { volatility = "sometimes" }\n', "volatility must be one of"),
    ('[tool.promptlint]\n[[tool.promptlint.wrappers]]\napi = "x"\n', "needs 'callables' and 'parts'"),
    ('[tool.promptlint]\nlookups = ["fetch_*"]\n', "a table of category"),
    ('[tool.promptlint\n', "cannot read configuration"),
])
def test_bad_configuration_is_a_clear_error(tmp_path: Path, text: str, message: str) -> None:
    write_tree(tmp_path, {"app.py": "x = 1\n", "pyproject.toml": text})
    with pytest.raises(ConfigError, match=message):
        analyze([tmp_path], load_config(tmp_path), cwd=tmp_path)


def test_a_generic_lookup_needs_a_store_word_at_a_part_of_the_receivers_name() -> None:
    """`query` is a lookup on `self.chunks_vdb` or a `vectorStore`, not on `self.storage`, whose
    name merely contains `rag` (DB-GPT's prompt manager reading a stored template)."""
    knowledge = load_knowledge(Config())
    assert [knowledge.lookup_category("query", name) for name in
            ("chunks_vdb", "vectorStore", "faiss_index", "user_memories", "storage", "story", None)] == [
        "retrieval", "retrieval", "retrieval", "memory", None, None, None]
    assert knowledge.lookup_category("similarity_search", "storage") == "retrieval"  # by the method alone
    # agno's memory manager: a method named for the user's memories is one on any receiver.
    assert [knowledge.lookup_category(method, "manager") for method in
            ("get_user_memories", "aget_user_memories", "get_user_memory")] == ["memory", "memory", None]


def test_a_chat_template_class_declared_in_config_is_judged_where_it_is_built(tmp_path: Path) -> None:
    """`chat-templates = [...]`: a framework's own template class, with its messages in order, is
    judged where it is built once it is declared (the question repeated before the history)."""
    app = '''
from acme_prompts import ChatPrompt
RULES = "Answer from the handbook only and cite the section you used. " * 30
prompt = ChatPrompt(messages=[("system", "Question: {question}\\n" + RULES), ("placeholder", "{history}"),
                              ("human", "{question}")])
'''
    plain = write_tree(tmp_path / "plain", {"app/prompts.py": app})
    assert findings(plain) == []
    declared = write_tree(tmp_path / "declared", {"app/prompts.py": app, "pyproject.toml":
                                                  '[tool.promptlint]\nchat-templates = ["acme_prompts.ChatPrompt"]\n'})
    assert [(f.rule, f.location.path, f.location.line) for f in findings(declared)] == [("PC001", "app/prompts.py", 3)]


def test_declared_lookup_type_is_a_lookup_however_the_object_is_named(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app.py": f'''
from openai import OpenAI
import serpapi
POLICY = {POLICY!r}
engine = serpapi.Client(api_key="k")
def ask(engine_params: dict, history: list):
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": "Results: " + engine.search(engine_params) + POLICY}}, *history])
'''})
    assert findings(tmp_path) == []  # an unknown call: not flagged
    (tmp_path / "pyproject.toml").write_text('[tool.promptlint.lookup-types]\nretrieval = ["serpapi.Client.search"]\n')
    found = findings(tmp_path)
    assert [(f.rule, f.volatile_source.category) for f in found] == [("PC001", "retrieval")]
