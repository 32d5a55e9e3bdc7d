"""Each volatility scope's finding says what its JSON `kind` says, at the severity of that scope
(issue: a per-day value was reported as "every call misses")."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptlint.config import Config
from promptlint.engine import analyze
from tests.conftest import write_tree

APP = '''
import os
from datetime import date, datetime
from openai import OpenAI
client = OpenAI()
RULES = "Follow the refund policy and cite the section you used. " * 60
STARTED = datetime.now().isoformat()
def ask(question: str, history: list, user_id: str):
    head = {head}
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": head + RULES}}, *history, {{"role": "user", "content": question}}])
'''


@pytest.mark.parametrize("head,kind,severity,says", [
    ('f"Now: {datetime.now()}. "', "per-request", "error", "every call misses the prefix cache"),
    ('f"Today: {date.today()}. "', "per-day", "info", "goes cold once a day"),
    ('f"Server up since {STARTED}. "', "per-process", "info", "each worker process has a prefix of its own"),
    ('f"User {user_id}. "', "per-user", "warning", "each user gets a prefix of their own"),
])
def test_message_kind_and_severity_agree(tmp_path: Path, head: str, kind: str, severity: str, says: str) -> None:
    root = write_tree(tmp_path, {"app.py": APP.format(head=head)})
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    [finding] = [f for f in result.findings if f.rule == "PC001"]
    assert finding.volatile_source is not None and finding.volatile_source.volatility.value == kind
    assert finding.severity.value == severity
    assert kind in finding.message and says in finding.message


def test_no_breakpoint_on_an_explicit_cache_provider_is_a_warning_that_says_so(tmp_path: Path) -> None:
    """Anthropic caches only at `cache_control` breakpoints: with none, nothing is cached as
    written, so the finding is not an error, and it says what would make it matter."""
    root = write_tree(tmp_path, {"app.py": '''
from datetime import datetime
import anthropic
client = anthropic.Anthropic()
POLICY = "Follow the refund policy step by step and cite the relevant section. " * 40
def answer(history: list):
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=500, messages=history,
                                  system=f"Now: {datetime.now()}\\n" + POLICY)
'''})
    [finding] = analyze([root], Config(root=root, cache_dir=None), cwd=root).findings
    assert (finding.rule, finding.severity.value) == ("PC001", "warning")
    assert "marks no cache breakpoint, so nothing is cached as written" in finding.message
