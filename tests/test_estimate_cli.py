"""`promptlint cost` end to end, and the demo app's findings carrying figures."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from promptlint.cli import app
from promptlint.cli_cost import bar

DEMO_APP = Path(__file__).resolve().parent.parent / "fixtures" / "demo_app"

AGENT = textwrap.dedent('''
    from datetime import datetime

    from openai import OpenAI

    client = OpenAI()

    POLICY = "You answer questions about Acme routers." + " word" * 1500


    def answer(question: str) -> str:
        system = f"Current time: {datetime.now().isoformat()}\\n" + POLICY
        response = client.chat.completions.create(
            model="gpt-4o",
            messages=[{"role": "system", "content": system}, {"role": "user", "content": question}],
        )
        return response.choices[0].message.content
''')


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "agent.py").write_text(AGENT, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.promptlint]\ncalls-per-day = 2000\ntraffic = {"app/agent.py:answer" = 5000}\n',
        encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args: str):
    return CliRunner().invoke(app, ["cost", *args], catch_exceptions=False)


def test_cost_text_prints_figures_with_their_assumptions(project):
    result = invoke(".")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "estimates, not measurements" in out
    assert "Assumptions:" in out and "o200k_base" in out and "price table as of" in out
    assert "app/agent.py:12" in out and "5,000 calls/day (traffic 'app/agent.py:answer')" in out
    assert "openai/gpt-4o" in out and "1,408" in out  # 128 * floor(1,5xx / 128)
    assert "█" in out
    assert "\x1b[" not in out  # no colour when stdout is not a terminal


def test_cost_json_has_the_same_figures(project):
    result = invoke(".", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["kind"] == "promptlint-cost" and doc["assumptions"]["estimate"] is True
    (site,) = doc["call_sites"]
    assert site["calls_per_day"] == 5000 and site["model"] == "gpt-4o"
    (loss,) = site["losses"]
    assert loss["lost_tokens_per_call"] == 1408
    # gpt-4o: 1,408 * ($2.50 - $1.25) / 1M = $0.00176 per call (the cache is warm at 5,000/day).
    assert loss["usd_per_1k_calls"] == pytest.approx(1.76, rel=1e-6)
    assert loss["usd_per_month"] == pytest.approx(0.00176 * 5000 * 30, rel=1e-6)
    assert site["findings"][0]["lost_tokens_per_call"] == 1408
    assert doc["total_usd_per_month"] == pytest.approx(loss["usd_per_month"], rel=1e-3)


def test_cost_flags_override_the_config(project):
    (project / "app" / "agent.py").write_text(AGENT.replace('model="gpt-4o",\n', ""), encoding="utf-8")
    result = invoke(".", "-f", "json", "--calls-per-day", "100", "--provider", "anthropic,gemini")
    doc = json.loads(result.output)
    (site,) = doc["call_sites"]
    assert {loss["provider"] for loss in site["losses"]} == {"anthropic", "gemini"}
    assert doc["assumptions"]["calls_per_day_default"] == 100


def test_cost_with_a_missing_tokenizer_is_a_usage_error(project):
    result = invoke(".", "--tokenizer", "missing/tokenizer.json")
    assert result.exit_code == 2


def test_bar():
    assert bar(0, 10) == "" and bar(5, 0) == ""
    assert bar(10, 10, width=4) == "████"
    assert bar(5, 10, width=4) == "██"
    assert bar(0.001, 10, width=4) == "▏"  # a loss never disappears from the chart


def test_demo_app_findings_carry_tokens_and_dollars_per_provider(monkeypatch):
    monkeypatch.chdir(DEMO_APP.parent.parent)
    result = CliRunner().invoke(app, ["check", str(DEMO_APP), "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    findings = json.loads(result.output)["findings"]
    priced = [f for f in findings if f["estimate"] and f["estimate"]["losses"]]
    assert priced, "no finding of the demo app was priced"
    for finding in priced:
        estimate = finding["estimate"]
        assert finding["lost_tokens_per_call"] == estimate["lost_tokens_per_call"]
        assert estimate["lost_tokens_per_call"] is not None or estimate["unknown_length"]
        for loss in estimate["losses"]:
            assert loss["price_as_of"] and loss["usd_per_month"] >= 0 and loss["provider"]


def test_shared_notes_are_printed_once():
    from promptlint.cli_cost import split_notes

    shared, own = split_notes(["unknown model; approx", "unknown model", "unknown model; below min"])
    assert shared == ["unknown model"]
    assert own == [["approx"], [], ["below min"]]
    assert split_notes(["a; b"]) == ([], [["a", "b"]])


def test_hidden_info_findings_are_not_estimated_but_shown_ones_are(tmp_path: Path) -> None:
    """Info findings are analyzed for suppressions even when hidden; only what is shown is priced
    (loading the tokenizer is most of a warm run)."""
    from promptlint.config import Config
    from promptlint.pipeline import CheckOptions, run_check

    (tmp_path / "agent.py").write_text(textwrap.dedent('''
        from datetime import date
        from openai import OpenAI
        POLICY = "You answer questions about Acme routers." + " word" * 600
        def answer(question):
            system = f"Today is {date.today()}.\\n" + POLICY
            return OpenAI().chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": system}, {"role": "user", "content": question}])
    '''), encoding="utf-8")
    from promptlint.engine import analyze

    for_suppressions = analyze([tmp_path], Config(root=tmp_path, cache_dir=None, show_info=True, estimate_info=False),
                               tmp_path)
    shown = analyze([tmp_path], Config(root=tmp_path, cache_dir=None, show_info=True), tmp_path)
    assert [f.severity.value for f in for_suppressions.findings] == ["info"] == [f.severity.value for f in shown.findings]
    assert for_suppressions.findings[0].estimate is None
    assert shown.findings[0].estimate is not None and shown.findings[0].estimate.tokenizer == "o200k_base"
    assert run_check([tmp_path], Config(root=tmp_path, cache_dir=None), CheckOptions(), tmp_path).result.findings == ()
