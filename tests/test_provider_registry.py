"""A facade that picks its provider from a registry at run time, the local Ollama SDK, a
transcript written out by a template loop, and a facade whose parameters sit elsewhere than its
providers' (devika's layer between its agents and the SDKs). Small programs through the real
analyzer."""

from __future__ import annotations

import ast
from pathlib import Path

from promptlint.analysis.derived import user_turn_names
from promptlint.analysis.reach import UNTRACEABLE
from promptlint.analysis.summaries import infer_wrappers, parameter_flows, sink_shapes
from promptlint.config import Config
from promptlint.engine import analyze
from promptlint.estimate import format_estimate
from promptlint.knowledge import load_knowledge
from promptlint.model import Finding
from tests.conftest import write_tree

GUIDE = "Answer in JSON with the keys plan, steps and risks; keep every step short. " * 30

PROVIDERS = '''
import concurrent.futures
import ollama
from openai import OpenAI

class Local:
    def inference(self, model_id: str, prompt: str) -> str:
        return prompt  # a stand-in that sends nothing

class Ollama:
    def __init__(self):
        self.client = ollama.Client()

    def inference(self, model_id: str, prompt: str) -> str:
        return self.client.generate(model=model_id, prompt=prompt)["response"]

class OpenAi:
    def __init__(self):
        self.client = OpenAI()

    def inference(self, model_id: str, prompt: str) -> str:
        return self.client.chat.completions.create(
            model=model_id, messages=[{"role": "user", "content": prompt}]).choices[0].message.content

class LLM:
    def __init__(self, model_id: str):
        self.model_id = model_id

    def inference(self, prompt: str, project_name: str) -> str:
        mapping = {"LOCAL": Local(), "OLLAMA": Ollama(), "OPENAI": OpenAi()}
        model = mapping[self.model_id]
        with concurrent.futures.ThreadPoolExecutor() as executor:
            return executor.submit(model.inference, self.model_id, prompt).result()
'''


def findings(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    root = write_tree(tmp_path, files)
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    assert not result.errors, result.errors
    return result.findings


def test_a_provider_picked_from_a_registry_sends_the_prompt(tmp_path: Path) -> None:
    # The registry's key is a setting the analysis cannot read: the provider that reaches an LLM
    # call stands for the registry, so the clock the agent puts first is seen at the SDK.
    agent = f'''
from datetime import datetime
from llm import LLM
GUIDE = {GUIDE!r}

class Planner:
    def __init__(self, model: str):
        self.llm = LLM(model)

    def execute(self, task: str, project_name: str) -> str:
        prompt = f"Now: {{datetime.now().isoformat()}}\\n{{GUIDE}}\\nTask: {{task}}"
        return self.llm.inference(prompt, project_name)
'''
    found = [f for f in findings(tmp_path, {"llm.py": PROVIDERS, "planner.py": agent}) if f.rule == "PC001"]
    assert found, "the clock before the guide was not seen through the registry"
    assert found[0].location.path == "planner.py"
    assert found[0].call_site.api == "ollama.generate"


def test_a_registry_of_plain_values_is_no_provider(tmp_path: Path) -> None:
    # Texts looked up with an unknown key stay unknown: no provider is made up from them.
    app = f'''
from datetime import datetime
from openai import OpenAI
client = OpenAI()
GUIDES = {{"short": "Be brief.", "long": {GUIDE!r}}}

def answer(style: str, question: str) -> str:
    guide = GUIDES[style]
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": f"{{guide}} Today is {{datetime.now():%H:%M}}."}},
        {{"role": "user", "content": question}}]).choices[0].message.content
'''
    assert not [f for f in findings(tmp_path, {"app.py": app}) if f.rule == "PC001" and f.severity.value != "info"]


def test_the_ollama_sdk_is_an_llm_call(tmp_path: Path) -> None:
    app = f'''
import ollama
from datetime import datetime
GUIDE = {GUIDE!r}

def plan(task: str) -> str:
    return ollama.generate(model="llama3.1", prompt=f"{{datetime.now()}}\\n{{GUIDE}}\\n{{task}}")["response"]

def chat(history: list, question: str) -> str:
    client = ollama.Client(host="http://localhost:11434")
    return client.chat(model="llama3.1", messages=[
        {{"role": "system", "content": f"Now: {{datetime.now()}}. {{GUIDE}}"}}, *history,
        {{"role": "user", "content": question}}])["message"]["content"]
'''
    found = [f for f in findings(tmp_path, {"app.py": app}) if f.rule == "PC001"]
    assert sorted(f.call_site.api for f in found) == ["ollama.chat", "ollama.generate"], found
    assert all(f.severity.value in ("error", "warning") for f in found), found
    # Self-hosted: the estimate counts the prefill lost, and prices it at nothing.
    losses = [loss for f in found if f.estimate for loss in f.estimate.losses]
    assert losses and all(loss.provider == "ollama" and loss.usd_per_month == 0 for loss in losses), losses
    assert all(loss.lost_tokens_per_call > 0 for loss in losses), losses


def test_a_template_loop_over_the_conversation_writes_the_transcript(tmp_path: Path) -> None:
    template = "You have been talking with the user:\n{% for message in conversation %}\n{{ message }}\n" \
               "{% endfor %}\n" + GUIDE + "\n"
    app = '''
from pathlib import Path
from jinja2 import Environment, BaseLoader
from openai import OpenAI
client = OpenAI()
PROMPT = (Path(__file__).parent / "answer.jinja2").read_text()

def answer(conversation: list, question: str) -> str:
    prompt = Environment(loader=BaseLoader()).from_string(PROMPT).render(conversation=conversation)
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": prompt},
        {"role": "user", "content": question}]).choices[0].message.content
'''
    found = [f for f in findings(tmp_path, {"app.py": app, "answer.jinja2": template}) if f.rule == "PC001"]
    assert [(f.location.path, f.location.line) for f in found] == [("answer.jinja2", 2)], found
    assert "{% for message in conversation %}" in found[0].message
    assert "conversation so far" in found[0].message
    # The same loop over documents the analysis knows nothing about is no transcript.
    other = template.replace("in conversation", "in documents")
    other_app = app.replace("conversation=conversation", "documents=conversation")
    assert not [f for f in findings(tmp_path / "documents", {"app.py": other_app, "answer.jinja2": other})
                if f.rule == "PC001"]


def test_a_positional_slot_is_not_read_where_the_prompt_is_passed_elsewhere() -> None:
    # Seven providers of `inference(model_id, prompt)` give the name the slot `u#1`; a caller of
    # the facade, `inference(prompt, project_name)`, passes `prompt` itself at position 0, so its
    # `project_name` is no user turn, and neither is the agent's parameter it comes from.
    shapes = sink_shapes(load_knowledge(Config()))

    def flows_of(source: str) -> tuple:
        node = ast.parse(source).body[0]
        assert isinstance(node, ast.FunctionDef)
        return parameter_flows(node, True, shapes)

    provider = flows_of('''
def inference(self, model_id, prompt):
    return self.client.chat.completions.create(model=model_id, messages=[{"role": "user", "content": prompt}])
''')
    agent = flows_of('''
def execute(self, task, project_name):
    prompt = self.render(task)
    return self.llm.inference(prompt, project_name)
''')
    definitions = [("inference", provider, True)] * 7 + [("execute", agent, True)]
    wrappers = infer_wrappers(definitions, UNTRACEABLE)
    assert "u#1" in wrappers["inference"] and "u=prompt" in wrappers["inference"]
    assert "execute" not in wrappers or not any(slot.startswith("u") and slot.endswith(("#1", "project_name"))
                                                for slot in wrappers["execute"]), wrappers.get("execute")
    # Where the call writes no argument as the slot's name, position 1 is still the slot.
    unnamed = flows_of("def execute(self, text, project_name):\n    return self.llm.inference(self.model, text)")
    assert "u#0" in infer_wrappers([("inference", provider, True)] * 7 + [("execute", unnamed, True)],
                                   UNTRACEABLE)["execute"]
    # The same reading for the names a user turn is built from (analysis/derived.py).
    call = ast.parse("def execute(self, task, project_name):\n    prompt = task\n"
                     "    return self.llm.inference(prompt, project_name)").body[0]
    assert user_turn_names(call, frozenset({"user"}), ("content",), {"inference": ("#1", "=prompt")}) == set()


def test_ollama_method_names_lead_to_llm_calls_only_with_their_receivers() -> None:
    # `chat` and `generate` are every framework's own method names: as bare names they sent the
    # reach pass through every `chat(...)` (langroid's cold run doubled); the SDK's are matched
    # with the receivers its examples use.
    names = load_knowledge(Config()).api_method_names
    assert {"ollama.chat", "client.chat", "ollama.generate", "client.generate"} <= names
    assert not {"chat", "generate"} & names


def test_a_template_writing_the_conversation_whole_writes_the_transcript(tmp_path: Path) -> None:
    template = "Earlier turns:\n{{ chat_history }}\n" + GUIDE + "\n"
    app = '''
from pathlib import Path
from jinja2 import Template
from openai import OpenAI
client = OpenAI()
PROMPT = Template((Path(__file__).parent / "answer.jinja2").read_text())

def answer(chat_history: str, question: str) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": PROMPT.render(chat_history=chat_history)},
        {"role": "user", "content": question}]).choices[0].message.content
'''
    found = [f for f in findings(tmp_path, {"app.py": app, "answer.jinja2": template}) if f.rule == "PC001"]
    assert [(f.location.path, f.location.line) for f in found] == [("answer.jinja2", 2)], found
    assert "`{{ chat_history }}`" in found[0].message and "conversation so far" in found[0].message
    other = template.replace("chat_history", "documents")
    other_app = app.replace("chat_history=chat_history", "documents=chat_history")
    assert not [f for f in findings(tmp_path / "documents", {"app.py": other_app, "answer.jinja2": other})
                if f.rule == "PC001"]


def test_a_local_gguf_model_loses_what_a_hosted_minimum_would_hide(tmp_path: Path) -> None:
    # ~600 tokens of fixed rules after the request: under OpenAI's 1,024-token minimum nothing
    # would be cached either way (info), but the client is pointed at a llama.cpp server, which
    # caches any shared prefix: the rules are re-processed on every call.
    rules = "Select only commands from the list above; answer with their names, comma-separated. " * 28
    app = f'''
from openai import OpenAI
RULES = {rules!r}

def select(request: str, model: str = "gpt-4o") -> str:
    client = OpenAI(base_url="http://localhost:8091/v1")
    return client.chat.completions.create(model=model, messages=[
        {{"role": "user", "content": f"## Request\\n{{request}}\\n\\n{{RULES}}"}}]).choices[0].message.content

def run(request: str) -> str:
    return select(request, model="MODEL")
'''
    def pc010(model: str) -> Finding:
        (found,) = [f for f in findings(tmp_path / model, {"app.py": app.replace("MODEL", model)})
                    if f.rule == "PC010" and f.call_site.model == model]
        return found

    hosted, local = pc010("gpt-4o"), pc010("unsloth/Qwen3.5-0.8B-GGUF")
    assert hosted.severity.value == "info" and hosted.estimate.lost_tokens_per_call == 0
    assert local.severity.value == "warning", local.message
    (loss,) = local.estimate.losses
    assert loss.provider == "llamacpp" and loss.lost_tokens_per_call > 400 and loss.usd_per_month == 0
    assert "self-hosted (llamacpp): a miss costs prefill time" in format_estimate(local.estimate)
    assert "self-hosted" not in format_estimate(hosted.estimate)
