"""Rule documentation reaches every output exactly as written in the rule module: the terminal
(`promptlint rule`), the Markdown pages under docs/rules/, and SARIF (`help.markdown`, `helpUri`).
Every Python example in it compiles."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from promptlint.checks import RULES
from promptlint.config import Config
from promptlint.model import AnalysisResult
from promptlint.rule_docs import rule_doc
from tests.conftest import REPO
from tests.integration_helpers import cli

PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
IDS = [r.code for r in RULES]


def python_blocks(markdown: str) -> list[str]:
    return PYTHON_BLOCK.findall(markdown)


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_rule_command_prints_the_module_docstring_and_its_examples_compile(rule, tmp_path: Path) -> None:
    code, out, _ = cli("rule", rule.code, cwd=tmp_path)
    assert code == 0
    assert out.strip() == rule_doc(rule)
    module_source = Path(sys.modules[type(rule).__module__].__file__).read_text(encoding="utf-8")
    assert rule_doc(rule) in module_source  # exactly as written: no escape was interpreted
    for block in python_blocks(out):
        compile(block, f"{rule.code} example", "exec")


def test_pc001_example_keeps_its_backslash_n(tmp_path: Path) -> None:
    _, out, _ = cli("rule", "PC001", cwd=tmp_path)
    assert '{datetime.now():%H:%M}\\n" + LONG_INSTRUCTIONS' in out


def test_sarif_help_markdown_examples_compile_and_help_uri_follows_the_docs_url(monkeypatch) -> None:
    from promptlint.reporters.sarif import render_sarif

    monkeypatch.setenv("PROMPTLINT_DOCS_URL", "https://github.com/example/promptlint/blob/v1/docs/rules/")
    result = AnalysisResult(findings=(), errors=(), files_analyzed=0)
    driver = json.loads(render_sarif(result, Config()))["runs"][0]["tool"]["driver"]
    for rule, entry in zip(RULES, driver["rules"]):
        assert entry["helpUri"] == f"https://github.com/example/promptlint/blob/v1/docs/rules/{rule.code}.md"
        page = (REPO / "docs" / "rules" / f"{rule.code}.md").read_text(encoding="utf-8")
        assert entry["help"]["markdown"] == page
        blocks = python_blocks(entry["help"]["markdown"])
        assert blocks == python_blocks(rule_doc(rule))
        for block in blocks:
            compile(block, f"{rule.code} SARIF example", "exec")


def test_sarif_without_a_docs_url_has_no_help_uri(monkeypatch) -> None:
    from promptlint.reporters.sarif import render_sarif

    monkeypatch.delenv("PROMPTLINT_DOCS_URL", raising=False)
    result = AnalysisResult(findings=(), errors=(), files_analyzed=0)
    rules = json.loads(render_sarif(result, Config()))["runs"][0]["tool"]["driver"]["rules"]
    assert all("helpUri" not in r for r in rules)


def test_committed_rule_pages_are_up_to_date() -> None:
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "gen_rule_docs.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_rule_markdown_command_prints_the_page(tmp_path: Path) -> None:
    code, out, _ = cli("rule", "unstable-json-serialization", "--markdown", cwd=tmp_path)
    assert code == 0 and out == (REPO / "docs" / "rules" / "PC004.md").read_text(encoding="utf-8")


def test_html_report_shows_each_rule_doc_exactly() -> None:
    import html as html_module

    from promptlint.reporters.html import render_html

    page = render_html(AnalysisResult(findings=(), errors=(), files_analyzed=0), Config())
    for rule in RULES:
        block = page.split(f'<pre id="doc-{rule.code}">', 1)[1].split("</pre>", 1)[0]
        assert html_module.unescape(block) == rule_doc(rule)
        assert "<script" not in block
