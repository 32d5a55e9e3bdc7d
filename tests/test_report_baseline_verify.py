"""`promptlint report --baseline / --verify-results` and `verify --chart FILE.html`: what the page
says (new / fixed / unchanged and their money; predicted vs measured with ✓ / ✗; TTFT) and the
usage errors. Chromium checks of the same page are in test_integrations_report_html.py."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, write_tree
from tests.integration_helpers import cli

PRICED = """
from datetime import datetime
from openai import OpenAI
POLICY = "Explain invoices line by line and quote the contract clause for every fee. " * 150
def explain(question: str) -> str:
    system = f"Today: {datetime.now()}\\n" + POLICY
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
"""


@pytest.fixture(scope="module")
def samples_json(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("verify") / "v.json"
    code, _, err = cli("verify", "--samples", "--requests", "4", "--format", "json", "-o", str(out), cwd=REPO)
    assert code == 0, err
    return json.loads(out.read_text(encoding="utf-8"))


def test_baseline_records_costs_and_the_report_prices_what_was_fixed(tmp_path: Path) -> None:
    write_tree(tmp_path, {"billing.py": PRICED, "clean.py": "X = 1\n"})
    assert cli("baseline", ".", "-o", "base.json", cwd=tmp_path)[0] == 0
    (entry,) = json.loads((tmp_path / "base.json").read_text(encoding="utf-8"))["findings"]
    assert entry["usd_per_month"] > 10 and entry["call_site"].startswith("billing.py:")
    (tmp_path / "billing.py").write_text("X = 2\n", encoding="utf-8")  # the bust is fixed
    code, _, err = cli("report", ".", "-o", "r.html", "--baseline", "base.json", cwd=tmp_path)
    assert code == 0, err
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert re.search(r'id="card-baseline-fixed"><div class="value">1</div>.*?\$[\d,.]+ / month', text, re.DOTALL)
    assert re.search(r'id="card-baseline-new"><div class="value">0</div>', text)
    assert f"${entry['usd_per_month']:,.2f}"[:-1] in text  # the recorded cost of the fixed finding


def test_a_baseline_without_costs_says_so(tmp_path: Path) -> None:
    write_tree(tmp_path, {"billing.py": PRICED})
    assert cli("baseline", ".", "-o", "base.json", cwd=tmp_path)[0] == 0
    document = json.loads((tmp_path / "base.json").read_text(encoding="utf-8"))
    for entry in document["findings"]:  # as written by promptlint before costs were recorded
        entry.pop("usd_per_month"), entry.pop("call_site")
    (tmp_path / "base.json").write_text(json.dumps(document), encoding="utf-8")
    (tmp_path / "billing.py").write_text("X = 2\n", encoding="utf-8")
    assert cli("report", ".", "-o", "r.html", "--baseline", "base.json", cwd=tmp_path)[0] == 0
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "unknown / month" in text and "this baseline recorded no costs" in text


def engine_run(data: dict[str, Any]) -> dict[str, Any]:
    """The simulator's result dressed as an engine's: TTFT measured, one layout off by a block."""
    data = copy.deepcopy(data)
    data["backend"], data["note"] = "vllm", ""
    for site in data["call_sites"]:
        for layout in ("current", "fixed"):
            count = len(site[layout]["cached_tokens_per_request"])
            slow = 300.0 if layout == "current" else 60.0
            site[layout]["ttft_ms_per_request"] = [900.0] + [slow + i for i in range(count - 1)]
    first = data["call_sites"][0]["fixed"]["cached_tokens_per_request"]
    first[-1] += 16  # the engine measured one block more than predicted
    return data


def test_verify_results_in_the_report_show_predicted_vs_measured(tmp_path: Path,
                                                                 samples_json: dict[str, Any]) -> None:
    write_tree(tmp_path, {"billing.py": PRICED})
    (tmp_path / "v.json").write_text(json.dumps(engine_run(samples_json)), encoding="utf-8")
    code, _, err = cli("report", ".", "-o", "r.html", "--verify-results", "v.json", cwd=tmp_path)
    assert code == 0, err
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    section = re.search(r'<section id="verify">.*?</section>', text, re.DOTALL)
    assert section
    body = section.group(0)
    assert "samples/support_bot.py:20" in body and "samples/agent.py:18" in body
    assert body.count('title="measured as predicted">✓') == 3
    assert body.count('title="the engine measured otherwise">✗') == 1
    assert "900 ms" in body and re.search(r"30\d / 30\d ms", body) and re.search(r"6\d / 6\d ms", body)
    assert "first token arrives" in body  # the verdict: x times sooner
    assert text.index('id="call-sites"') < text.index('id="verify"') < text.index('id="findings"')


def test_verify_chart_html_is_the_styled_page_with_predicted_marks(tmp_path: Path,
                                                                   samples_json: dict[str, Any]) -> None:
    saved = tmp_path / "v.json"
    saved.write_text(json.dumps(engine_run(samples_json)), encoding="utf-8")
    code, _, err = cli("verify", "--from-report", str(saved), "--chart", str(tmp_path / "c.html"), cwd=REPO)
    assert code == 0, err
    page = (tmp_path / "c.html").read_text(encoding="utf-8")
    assert "default-src 'none'" in page and ".card{" in page  # the report's CSP and style
    assert '<section id="verify">' in page and "✓" in page and "✗" in page


@pytest.mark.parametrize(("args", "message"), [
    (["--baseline", "missing.json"], "baseline file not found"),
    (["--verify-results", "missing.json"], "not a readable `promptlint verify --format json` result"),
    (["--verify-results", "broken.json"], "not a readable"),
    (["-o", "no/such/dir/r.html"], "--output: no such folder"),
])
def test_report_usage_errors_exit_2_before_analyzing(tmp_path: Path, args: list[str], message: str) -> None:
    write_tree(tmp_path, {"billing.py": PRICED, "broken.json": "{}"})
    code, _, err = cli("report", ".", *args, cwd=tmp_path)
    assert code == 2 and message in err
