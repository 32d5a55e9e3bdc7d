"""`promptlint baseline` and `check --baseline`: legacy findings hidden, new ones reported,
moving code does not resurrect old findings."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import write_tree
from tests.integration_helpers import CLOCK_BUST, check_json, cli

SECOND_BUST = """
import uuid
from openai import OpenAI
GUIDE = "Explain the answer in three short steps and cite the manual page for each. " * 20
def explain(question: str, history: list) -> str:
    system = f"Request {uuid.uuid4()}\\n" + GUIDE
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
"""


def test_baseline_hides_legacy_and_reports_new(tmp_path: Path) -> None:
    write_tree(tmp_path, {"legacy.py": CLOCK_BUST})
    code, _, err = cli("baseline", ".", "-o", "promptlint-baseline.json", cwd=tmp_path)
    assert code == 0 and "1 finding" in err
    document = json.loads((tmp_path / "promptlint-baseline.json").read_text())
    assert document["version"] == 1 and document["findings"][0]["rule"] == "PC001"
    assert "line" not in document["findings"][0]

    code, report = check_json(tmp_path, "--baseline", "promptlint-baseline.json")
    assert (code, report["findings"]) == (0, [])

    write_tree(tmp_path, {"fresh.py": SECOND_BUST})
    code, report = check_json(tmp_path, "--baseline", "promptlint-baseline.json")
    assert code == 1
    assert [(f["path"], f["rule"]) for f in report["findings"]] == [("fresh.py", "PC001")]


def test_moving_code_does_not_resurrect_findings(tmp_path: Path) -> None:
    write_tree(tmp_path, {"legacy.py": CLOCK_BUST})
    cli("baseline", "-o", "base.json", cwd=tmp_path)
    moved = CLOCK_BUST.replace("from openai import OpenAI\n",
                               "from openai import OpenAI\n\n\nimport os  # new lines push the code down\n\n")
    (tmp_path / "legacy.py").write_text(moved.lstrip(), encoding="utf-8")
    code, report = check_json(tmp_path, "--baseline", "base.json")
    assert (code, report["findings"]) == (0, [])


def test_baseline_works_from_another_folder(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app/legacy.py": CLOCK_BUST})
    cli("baseline", "app", "-o", "base.json", cwd=tmp_path)
    code, report = check_json(tmp_path / "app", ".", "--baseline", "../base.json")
    assert (code, report["findings"]) == (0, [])


def test_a_second_copy_of_a_baselined_finding_is_new(tmp_path: Path) -> None:
    write_tree(tmp_path, {"legacy.py": CLOCK_BUST})
    cli("baseline", "-o", "base.json", cwd=tmp_path)
    duplicate = CLOCK_BUST + CLOCK_BUST.split("\n", 4)[4].replace("def answer", "def answer_again")
    (tmp_path / "legacy.py").write_text(duplicate.lstrip(), encoding="utf-8")
    code, report = check_json(tmp_path, "--baseline", "base.json")
    assert code == 1 and len(report["findings"]) == 1


def test_missing_or_broken_baseline_is_exit_2(tmp_path: Path) -> None:
    write_tree(tmp_path, CLOCK_BUST)
    code, _, err = cli("check", "--baseline", "nope.json", cwd=tmp_path)
    assert code == 2 and "baseline file not found" in err
    (tmp_path / "bad.json").write_text("{}", encoding="utf-8")
    code, _, err = cli("check", "--baseline", "bad.json", cwd=tmp_path)
    assert code == 2 and "not a promptlint baseline" in err
