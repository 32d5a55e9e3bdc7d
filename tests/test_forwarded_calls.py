"""Calls that run the function they are handed (rules/llm_calls.yaml `forwarders`):
`asyncio.to_thread(create, ...)`, `loop.run_in_executor(None, lambda: create(...))`,
`executor.submit(send, ...)`. An async server calling a synchronous SDK this way sends the same
request as a direct call, so the request is judged; a project object's own `submit` method is that
method, not a forwarder."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptlint.config import Config
from promptlint.engine import analyze
from tests.conftest import STAMPED, request_findings, with_and_without_clock, write_tree

HEADER = '''
import asyncio
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import anyio
from openai import OpenAI

RULES = "You are the billing assistant of ACME. Cite the policy section for every answer. " * 80
client = OpenAI()
pool = ThreadPoolExecutor(4)


def send(messages: list):
    return client.chat.completions.create(model="gpt-4.1", messages=messages)


async def ask(history: list, question: str):
    messages = [{"role": "system", "content": SYSTEM}, *history, {"role": "user", "content": question}]
    return CALL
'''

findings = request_findings


@pytest.mark.parametrize("call", [
    'await asyncio.to_thread(client.chat.completions.create, model="gpt-4.1", messages=messages)',
    'await asyncio.get_running_loop().run_in_executor(None, send, messages)',
    'await asyncio.get_running_loop().run_in_executor(pool, lambda: send(messages))',
    'pool.submit(send, messages=messages).result()',
    'await anyio.to_thread.run_sync(send, messages)',
])
def test_a_request_sent_from_a_thread_is_judged(tmp_path: Path, call: str) -> None:
    invalid, valid = with_and_without_clock(tmp_path, HEADER.replace("CALL", call))
    assert invalid == [(18, "PC001", "error", "openai.chat.completions")]
    assert valid == []


PROVIDER = '''
import asyncio

from openai import OpenAI


class Provider:
    def __init__(self) -> None:
        self.client = OpenAI()

    async def complete(self, messages: list):
        return await asyncio.to_thread(self.client.chat.completions.create, model="gpt-4.1", messages=messages)
'''

AGENT = '''
from datetime import datetime

from app.provider import Provider

RULES = "You are the billing assistant of ACME. Cite the policy section for every answer. " * 80


async def answer(history: list, question: str):
    system = SYSTEM
    return await Provider().complete([{"role": "system", "content": system}, *history,
                                      {"role": "user", "content": question}])
'''


def test_a_provider_class_forwarding_to_a_thread_is_reached_from_its_caller(tmp_path: Path) -> None:
    invalid = write_tree(tmp_path / "invalid", {"app/__init__.py": "", "app/provider.py": PROVIDER,
                                                "app/agent.py": AGENT.replace("SYSTEM", STAMPED)})
    assert findings(invalid) == [(9, "PC001", "error", "openai.chat.completions")]
    valid = write_tree(tmp_path / "valid", {"app/__init__.py": "", "app/provider.py": PROVIDER,
                                            "app/agent.py": AGENT.replace("SYSTEM", "RULES")})
    assert findings(valid) == []


def test_a_project_objects_own_submit_method_is_that_method(tmp_path: Path) -> None:
    """`form.submit(send, ...)` on a project object runs the project's `submit`, which here only
    stores its arguments: no request is sent (the system message is still judged where it is
    written, as an assembly point)."""
    program = HEADER.replace("CALL", "Form().submit(send, messages)").replace("SYSTEM", STAMPED) + '''

class Form:
    def submit(self, handler, payload):
        self.pending = (handler, payload)
'''
    root = write_tree(tmp_path, {"app.py": program})
    assert [api for _, _, _, api in findings(root)] == ["system message (role dict)"]


LLM = '''
import asyncio
import functools

from openai import OpenAI

client = OpenAI()


async def complete(prompt: str):
    return await asyncio.to_thread(CREATE, messages=[{"role": "user", "content": prompt}])
'''

ANSWER = '''
from app.llm import complete

RULES = "Answer from the policy only and cite the section you used for every claim you make. " * 40


async def answer(question: str):
    return await complete(PROMPT)
'''


@pytest.mark.parametrize("create", ['functools.partial(client.chat.completions.create, model="gpt-4.1")',
                                    "client.chat.completions.create"])
def test_a_function_forwarding_to_a_thread_leads_to_an_llm_call(tmp_path: Path, create: str) -> None:
    """The reach: `complete` calls the SDK only through `asyncio.to_thread`, and its caller, which
    writes no message itself, is evaluated because `complete` leads to an LLM call. INVALID: the
    question before the fixed rules in the user's turn (PC010, info: below the providers' minimum);
    VALID: the rules first."""
    def layout(prompt: str) -> list[tuple[str, str, str]]:
        root = write_tree(tmp_path / prompt[:4], {"app/__init__.py": "", "app/llm.py": LLM.replace("CREATE", create),
                                                  "app/agent.py": ANSWER.replace("PROMPT", prompt)})
        result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
        return [(f.location.path, f.rule, f.call_site.api) for f in result.findings]

    assert layout('f"Question: {question}\\n\\n" + RULES') == [
        ("app/agent.py", "PC010", "user message (user text passed to complete())"),
        ("app/llm.py", "PC010", "openai.chat.completions")]
    assert layout('RULES + f"\\n\\nQuestion: {question}"') == []


ANTHROPIC_PROVIDER = '''
import asyncio

from anthropic import Anthropic


class ClaudeProvider:
    def __init__(self) -> None:
        self.client = Anthropic()

    async def complete(self, system: str, question: str):
        return await asyncio.to_thread(self.client.messages.create, model="claude-sonnet-4-5", max_tokens=1024,
                                       system=system, messages=[{"role": "user", "content": question}])
'''

RUNTIME_CHOSEN = '''
from datetime import datetime

RULES = "You are the billing assistant of ACME. Cite the policy section for every answer. " * 80


async def answer(provider, question: str):
    return await provider.complete(SYSTEM, question)
'''


def test_a_provider_forwarding_its_system_argument_is_a_wrapper_for_a_provider_chosen_at_runtime(
        tmp_path: Path) -> None:
    """`provider` is not known where the prompt is written: `complete` is a wrapper whose `system`
    reaches the SDK call's `system=` through `asyncio.to_thread` (its parameter summary), so the
    clock is judged at the call that hands it over, with the history assumed after it."""
    def judged(system: str) -> list[tuple[str, str, str]]:
        root = write_tree(tmp_path / system[:3], {"app/__init__.py": "", "app/provider.py": ANTHROPIC_PROVIDER,
                                                  "app/agent.py": RUNTIME_CHOSEN.replace("SYSTEM", system)})
        result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
        return [(f.location.path, f.rule, f.call_site.api) for f in result.findings]

    assert judged(STAMPED) == [("app/agent.py", "PC001", "system message (system text passed to complete())")]
    assert judged("RULES") == []
