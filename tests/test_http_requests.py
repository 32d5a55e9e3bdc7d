"""Raw HTTP requests to a provider's chat endpoint (issue 15: `httpx`, `requests`, `aiohttp`
POSTs whose URL ends in a known chat path; rules/llm_calls.yaml `http_posts`, `http_requests`,
`http_paths`): the `json=` body is judged as that API's request, with its layout (Anthropic's
tools, system, messages; OpenAI's tools and messages). A URL whose end is unknown, another
endpoint, or a GET is no request."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from promptlint.config import Config, ConfigError, load_config
from promptlint.engine import analyze
from tests.conftest import STAMPED, request_findings, with_and_without_clock, write_tree

HEADER = '''
import json
from datetime import datetime

import aiohttp
import httpx
import requests

RULES = "You are the billing assistant of ACME. Cite the policy section for every answer. " * 80
BASE = "https://api.openai.com"
'''

ANTHROPIC = HEADER + '''

async def ask(history: list, question: str):
    body = {
        "model": "claude-sonnet-4-5",
        "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
        "messages": [*history, {"role": "user", "content": question}],
    }
    async with httpx.AsyncClient(timeout=30) as client:
        response = await client.post("https://api.anthropic.com/v1/messages?beta=true", json=body)
    return response.json()
'''

OPENAI = HEADER + '''

def ask(history: list, question: str):
    payload = {"model": "gpt-4.1", "messages": [{"role": "user", "content": SYSTEM}, *history,
                                                {"role": "user", "content": question}]}
    return CALL.json()
'''


findings = request_findings


def test_an_anthropic_post_is_judged_as_a_messages_request(tmp_path: Path) -> None:
    invalid = write_tree(tmp_path / "invalid", {"app.py": ANTHROPIC.replace("SYSTEM", STAMPED)})
    assert findings(invalid) == [(15, "PC007", "error", "anthropic.messages")]  # the breakpoint after it
    valid = write_tree(tmp_path / "valid", {"app.py": ANTHROPIC.replace("SYSTEM", "RULES")})
    assert findings(valid) == []


@pytest.mark.parametrize("call", [
    'requests.post(f"{BASE}/v1/chat/completions", json=payload)',
    'requests.Session().post(BASE + "/v1/chat/completions", json=payload)',
    'httpx.post(url=f"{BASE}/v1/chat/completions", json=payload)',
    'httpx.Client().stream("POST", f"{BASE}/v1/chat/completions", json=payload)',
    'requests.request("post", f"{BASE}/v1/chat/completions", json=payload)',
    'aiohttp.ClientSession().post(f"{BASE}/v1/chat/completions", json=payload)',
    'requests.post(f"{BASE}/v1/chat/completions", data=json.dumps(payload))',  # serialized by hand
    'httpx.Client().post(f"{BASE}/v1/chat/completions", content=json.dumps(payload).encode())',
])
def test_each_client_posting_to_a_chat_endpoint_sends_a_request(tmp_path: Path, call: str) -> None:
    invalid, valid = with_and_without_clock(tmp_path, OPENAI.replace("CALL", call))
    assert invalid == [(13, "PC001", "error", "openai.chat.completions")]
    assert valid == []


def test_an_endpoint_held_by_a_module_constant(tmp_path: Path) -> None:
    program = OPENAI.replace("CALL", "await session.post(URL, json=payload)").replace("def ask", "async def ask")
    program = program.replace("    return await", "    async with aiohttp.ClientSession() as session:\n        return await")
    program += 'URL = BASE + "/v1/chat/completions"\n'
    invalid = write_tree(tmp_path / "invalid", {"app.py": program.replace("SYSTEM", STAMPED)})
    assert findings(invalid) == [(13, "PC001", "error", "openai.chat.completions")]
    valid = write_tree(tmp_path / "valid", {"app.py": program.replace("SYSTEM", "RULES")})
    assert findings(valid) == []


@pytest.mark.parametrize("call", [
    'requests.post(f"{BASE}/v1/embeddings", json=payload)',  # another endpoint
    'requests.post(ENDPOINT, json=payload)',  # a URL whose end the analysis cannot read
    'httpx.Client().stream("GET", f"{BASE}/v1/chat/completions", json=payload)',  # not a POST
    'requests.post(f"{BASE}/v1/chat/completions", data=payload)',  # a form body, not JSON
    'requests.post(f"{BASE}/v1/chat/completions", data=json.dumps(payload["messages"]))',  # a part of it, not a body read back
])
def test_other_http_calls_send_no_request(tmp_path: Path, call: str) -> None:
    program = OPENAI.replace("CALL", call).replace("SYSTEM", STAMPED)
    root = write_tree(tmp_path, {"app.py": program})
    assert findings(root) == []


GEMINI = HEADER + '''
API_KEY = "set-by-deployment"


def ask(history: list, question: str, model: str):
    body = {
        "systemInstruction": {"parts": [{"text": SYSTEM}]},
        "contents": [*history, {"role": "user", "parts": [{"text": question}]}],
    }
    url = URL
    return requests.post(url, json=body).json()
'''
GOOGLE = "https://generativelanguage.googleapis.com/v1beta/models"


@pytest.mark.parametrize(("url", "model"), [
    (f'f"{GOOGLE}/gemini-2.5-flash:generateContent?key={{API_KEY}}"', "gemini-2.5-flash"),  # a query with values
    (f'f"{GOOGLE}/{{model}}:streamGenerateContent?alt=sse"', None),  # the streaming endpoint, a model not known
])
def test_a_gemini_rest_post_is_judged_with_its_system_instruction_first(tmp_path: Path, url: str,
                                                                       model: str | None) -> None:
    """Gemini's REST body names its parts in camelCase (`systemInstruction`, `contents`), and the
    model in the URL: the system instruction comes before the contents, as in the SDK."""
    program = GEMINI.replace("URL", url)
    invalid = write_tree(tmp_path / "invalid", {"app.py": program.replace("SYSTEM", STAMPED)})
    result = analyze([invalid], Config(root=invalid, cache_dir=None), cwd=invalid)
    assert [(f.location.line, f.rule, f.severity.value, f.call_site.api, f.call_site.provider, f.call_site.model)
            for f in result.findings] == [(16, "PC001", "error", "google.gemini.generate_content", "gemini", model)]
    valid = write_tree(tmp_path / "valid", {"app.py": program.replace("SYSTEM", "RULES")})
    assert findings(valid) == []


def test_a_gemini_body_spelled_in_snake_case(tmp_path: Path) -> None:
    program = GEMINI.replace("URL", f'f"{GOOGLE}/gemini-2.5-pro:generateContent"')
    program = program.replace("systemInstruction", "system_instruction").replace("SYSTEM", STAMPED)
    assert findings(write_tree(tmp_path, {"app.py": program})) == [
        (16, "PC001", "error", "google.gemini.generate_content")]


def test_a_configured_endpoint_is_judged_too(tmp_path: Path) -> None:
    program = OPENAI.replace("CALL", 'requests.post("http://localhost:11434/api/chat", json=payload)')
    root = write_tree(tmp_path, {"app.py": program.replace("SYSTEM", STAMPED), "pyproject.toml":
                                 '[tool.promptlint.http-paths]\n"/api/chat" = "openai.client.chat.completions.create"\n'})
    assert findings(root) == []  # without the configuration: an endpoint promptlint does not know
    assert findings(root, replace(load_config(root), cache_dir=None)) == \
        [(13, "PC001", "error", "openai.chat.completions")]


def test_a_configured_endpoint_must_name_an_llm_call(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"app.py": "x = 1\n", "pyproject.toml":
                                 '[tool.promptlint.http-paths]\n"/api/chat" = "ollama.chat"\n'})
    with pytest.raises(ConfigError, match="ollama.chat names no LLM call"):
        analyze([root], load_config(root), cwd=root)
