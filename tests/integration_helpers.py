"""Shared inputs for the integration tests (pre-commit, git, formats, fixes, report)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Iterator

from tests.conftest import write_tree

CLOCK_BUST = """
from datetime import datetime
from openai import OpenAI
POLICY = "Follow the refund policy step by step and cite the relevant section. " * 20
def answer(question: str, history: list) -> str:
    system = f"Current time: {datetime.now()}\\n" + POLICY
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
"""

CLEAN = """
from openai import OpenAI
POLICY = "Follow the refund policy step by step and cite the relevant section. " * 20
def answer(question: str, history: list) -> str:
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": POLICY}, *history, {"role": "user", "content": question}])
"""

# The volatile value is born in one module and reaches the call in another.
CROSS_MODULE = {
    "helpdesk/__init__.py": "",
    "helpdesk/sections.py": """
from datetime import datetime
def current_time() -> str:
    return f"Current time: {datetime.now().isoformat()}"
""",
    "helpdesk/bot.py": """
from openai import OpenAI
from helpdesk.sections import current_time
RULES = "Answer politely, cite the knowledge base, never promise refunds. " * 20
def reply(history: list, question: str):
    system = "\\n\\n".join([current_time(), RULES])
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
""",
    "helpdesk/unrelated.py": """
def add(a: int, b: int) -> int:
    return a + b
""",
}


def git(*args: str, cwd: Path) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"git {args}: {done.stderr}"
    return done.stdout


def git_repo(root: Path, files: dict[str, str] | str) -> Path:
    write_tree(root, files)
    git("init", "-q", "-b", "main", cwd=root)
    git("add", "-A", cwd=root)
    git("commit", "-q", "-m", "initial", cwd=root)
    return root


@contextlib.contextmanager
def working_directory(path: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def cli(*args: str, cwd: Path, stdin: str | None = None) -> tuple[int, str, str]:
    """The real CLI in this process (fast); ``run_cli`` runs it as a subprocess."""
    from typer.testing import CliRunner

    from promptlint.cli import app

    with working_directory(cwd):
        done = CliRunner().invoke(app, list(args), input=stdin, catch_exceptions=False)
    return done.exit_code, done.stdout, done.stderr


def check_json(root: Path, *args: str) -> tuple[int, dict[str, Any]]:
    code, out, err = cli("check", *args, "--format", "json", cwd=root)
    assert code in (0, 1), err
    return code, json.loads(out)


def rules_found(root: Path, *args: str) -> list[str]:
    return [f["rule"] for f in check_json(root, *args)[1]["findings"]]
