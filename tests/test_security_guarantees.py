"""Security guarantees (docs/robustness.md): analyzed code is never imported or executed,
templates are never rendered, YAML is only composed safely, reports escape what comes from the
code, ``check`` makes no network connection, and the cache and ``--fix`` write only inside the
project."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest

from promptlint.config import Config
from promptlint.engine import analyze
from tests.conftest import REPO, run_cli, write_tree

MARK = "PWNED_MARKER"


def hostile_project(root: Path) -> Path:
    """Code, templates and YAML that would leave a marker file if anything ran them."""
    touch = f"open({str(root / MARK)!r}, 'w').write('ran')"
    payload = "</script><script>alert(1)</script><img src=x onerror=alert(2)>]]>`|*_[x](javascript:alert(3))"
    write_tree(root, {
        "app.py": f"""
import os
from datetime import datetime
from pathlib import Path
import yaml
from jinja2 import Template
from openai import OpenAI
{touch}
os.system("touch {root / MARK}")
client = OpenAI()
TEMPLATE = Template(Path("prompts/evil.j2").read_text())
CONFIG = yaml.load(Path("config/evil.yaml").read_text(), Loader=yaml.Loader)
PAYLOAD = {payload!r} * 10

def answer(question: str) -> str:
    system = f"{payload} {{datetime.now()}}" + PAYLOAD + TEMPLATE.render(cfg=CONFIG)
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": system}}, {{"role": "user", "content": question}}])
""",
        "conftest.py": touch + "\n",
        "setup.py": touch + "\n",
        "sitecustomize.py": touch + "\n",
        "pkg/__init__.py": "import openai\n" + touch + "\n",
        "prompts/evil.j2": "{{ cycler.__init__.__globals__.os.system('touch " + str(root / MARK) + "') }}"
                           "{% for c in ''.__class__.__mro__[1].__subclasses__() %}{{ c }}{% endfor %}",
        "config/evil.yaml": f"prompt: !!python/object/apply:os.system ['touch {root / MARK}']\n",
    })
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return hostile_project(tmp_path / "project")


def test_analysis_runs_nothing_from_the_project(project: Path) -> None:
    before = set(sys.modules)
    result = analyze([project], Config(root=project, cache_dir=None), cwd=project)
    assert [f for f in result.findings if f.rule == "PC001"], result.findings
    assert not (project / MARK).exists()
    assert not {"app", "conftest", "setup", "pkg"} & (set(sys.modules) - before)


@pytest.mark.parametrize("output_format", ["text", "json", "sarif", "github", "markdown", "html"])
def test_cli_runs_nothing_and_every_format_works(project: Path, output_format: str) -> None:
    result = run_cli("check", ".", "--format", output_format, cwd=project)
    assert result.returncode == 1, result.stderr
    assert not (project / MARK).exists()


def test_html_report_escapes_code(project: Path) -> None:
    html = run_cli("check", ".", "--format", "html", "--no-cache", cwd=project).stdout
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert" in html or "&lt;/script&gt;" in html


def test_markdown_report_escapes_code(project: Path) -> None:
    markdown = run_cli("check", ".", "--format", "markdown", "--no-cache", cwd=project).stdout
    assert "<script>" not in markdown and "<img src=x" not in markdown
    assert "](javascript:" not in markdown


def test_sarif_and_json_stay_valid(project: Path) -> None:
    for output_format in ("sarif", "json"):
        document = json.loads(run_cli("check", ".", "--format", output_format, "--no-cache", cwd=project).stdout)
        assert document


BLOCK_SOCKETS = """
import os, socket
LOG = os.environ["PROMPTLINT_SOCKET_LOG"]
def _refuse(*args, **kwargs):
    with open(LOG, "a") as handle:
        handle.write(repr(args[:3]) + "\\n")
    raise OSError("network access blocked by the test")
socket.socket.connect = _refuse
socket.socket.connect_ex = _refuse
socket.socket.sendto = _refuse
socket.create_connection = _refuse
socket.getaddrinfo = _refuse
"""


def test_check_makes_no_network_connection(project: Path, tmp_path: Path) -> None:
    """The CLI, workers included, under a sitecustomize that records and refuses every socket use."""
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(BLOCK_SOCKETS)
    log = tmp_path / "sockets.log"
    demo = tmp_path / "demo"
    import shutil

    shutil.copytree(REPO / "fixtures" / "demo_app", demo)
    for root in (project, demo):
        for output_format in ("text", "json", "sarif", "html"):
            result = run_cli("check", ".", "--format", output_format, cwd=root,
                             env={"PYTHONPATH": f"{hooks}:{REPO}", "PROMPTLINT_SOCKET_LOG": str(log)})
            assert result.returncode == 1, result.stderr
    assert not log.exists(), log.read_text()


def test_in_process_analysis_opens_no_socket(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    attempts: list[tuple] = []

    def refuse(*args: object, **kwargs: object) -> None:
        attempts.append(args)
        raise OSError("blocked")

    for name in ("connect", "connect_ex", "sendto"):
        monkeypatch.setattr(socket.socket, name, refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    result = analyze([project], Config(root=project, cache_dir=None), cwd=project)
    demo = REPO / "fixtures" / "demo_app"
    analyze([demo], Config(root=demo, cache_dir=None), cwd=demo)
    assert result.findings and not attempts


def test_prompt_files_outside_the_project_are_not_read(tmp_path: Path) -> None:
    """Code that reads ~/.ssh/id_rsa (or any file outside the project) never gets it into a report."""
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-KEY {now}\n" * 20)
    root = tmp_path / "project"
    write_tree(root, {"app.py": f"""
from datetime import datetime
from openai import OpenAI
client = OpenAI()
SECRET = open({str(secret)!r}).read()
LINKED = open("linked.txt").read()
def ask(question: str) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": SECRET.format(now=datetime.now()) + LINKED}},
        {{"role": "user", "content": question}}])
"""})
    (root / "linked.txt").symlink_to(secret)
    for output_format in ("json", "html", "sarif", "markdown"):
        result = run_cli("check", ".", "--format", output_format, "--no-cache", cwd=root)
        assert "TOP-SECRET-KEY" not in result.stdout, output_format


def test_cache_is_written_only_inside_the_project(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write_tree(root, {"app.py": "import openai\n"})
    before = {p for p in tmp_path.rglob("*")}
    assert run_cli("check", ".", cwd=root).returncode == 0
    created = {p for p in tmp_path.rglob("*")} - before
    assert created and all(root / ".promptlint_cache" in (p, *p.parents) for p in created), created


def test_fix_writes_only_inside_the_project(tmp_path: Path) -> None:
    root = tmp_path / "project"
    outside = tmp_path / "outside"
    fixable = """
import json
from openai import OpenAI
client = OpenAI()
TOOLS = {"search": {"type": "object"}, "lookup": {"type": "object"}}
def ask(question: str, profile: dict) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": json.dumps(profile) + "Be precise and helpful. " * 30},
        {"role": "user", "content": question}])
"""
    write_tree(root, {"pyproject.toml": "[tool.promptlint]\n", "app.py": fixable})
    write_tree(outside, {"app.py": fixable})
    before = (outside / "app.py").read_bytes()
    run_cli("check", str(outside / "app.py"), "--config", str(root / "pyproject.toml"), "--fix",
            "--unsafe-fixes", "--no-cache", cwd=root)
    assert (outside / "app.py").read_bytes() == before
    leftovers = [p for p in tmp_path.rglob("*") if p.name.endswith((".tmp", ".promptlint-fix"))]
    assert not leftovers
