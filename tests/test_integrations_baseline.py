"""`promptlint baseline` and `check --baseline`: legacy findings hidden, new ones reported,
moving code does not resurrect old findings."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from promptlint import __version__
from promptlint.baseline import BaselineError, BaselineStats, apply_baseline, read_baseline, write_baseline
from promptlint.config import load_config
from promptlint.engine import analyze, fingerprint
from promptlint.model import (
    AnalysisResult,
    CallSite,
    Estimate,
    Finding,
    Location,
    Origin,
    ProviderLoss,
    Severity,
    Volatility,
)
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


# --- the baseline file and its reading, exactly -------------------------------------------------

TWICE = """
from datetime import datetime
from openai import OpenAI
POLICY = "Follow the refund policy step by step and cite the relevant section. " * 20
def answer(question: str, history: list) -> tuple:
    first = OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"Time: {datetime.now()}\\n" + POLICY}, *history,
        {"role": "user", "content": question}])
    second = OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"Time: {datetime.now()}\\n" + POLICY}, *history,
        {"role": "user", "content": question}])
    return first, second
"""
ABOUT = ("Findings accepted when this baseline was written; `promptlint check --baseline FILE` reports only "
         "others. Matching ignores line numbers. Regenerate with `promptlint baseline`.")


def test_the_baseline_file_is_exactly_the_findings_with_counts(tmp_path: Path) -> None:
    # Two files, written in reverse order of their names; a non-ASCII name stays readable.
    write_tree(tmp_path, {"zeta.py": SECOND_BUST, "ärger.py": TWICE})
    _, report = check_json(tmp_path)
    expected: dict[str, dict] = {}
    for f in report["findings"]:
        entry = expected.setdefault(f["fingerprint"], {"fingerprint": f["fingerprint"], "rule": f["rule"],
                                                        "path": f["path"], "message": f["message"], "count": 0})
        entry["count"] += 1
        # What it cost when recorded (`report --baseline` prices what was fixed since).
        site = f["call_site"]
        entry["call_site"] = f"{site['path']}:{site['line']} {site['api']}"
        worst = max((loss["usd_per_month"] for loss in (f["estimate"] or {}).get("losses", [])), default=0.0)
        entry["usd_per_month"] = round(max(entry.get("usd_per_month", 0.0), worst), 2)
    assert sorted(e["count"] for e in expected.values()) == [1, 2]  # the two calls share one identity
    code, _, err = cli("baseline", ".", "-o", "base.json", cwd=tmp_path)
    assert code == 0 and "with 3 findings" in err
    document = {"version": 1, "tool": f"promptlint {__version__}", "about": ABOUT,
                "findings": sorted(expected.values(), key=lambda e: (e["path"], e["rule"], e["fingerprint"]))}
    text = (tmp_path / "base.json").read_text(encoding="utf-8")
    assert text == json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("base")] == ["base.json"]  # no temporary left
    code, report = check_json(tmp_path, "--baseline", "base.json")
    assert (code, report["findings"]) == (0, [])


def test_counts_are_matched_one_by_one(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app.py": TWICE})
    cli("baseline", ".", "-o", "base.json", cwd=tmp_path)
    document = json.loads((tmp_path / "base.json").read_text(encoding="utf-8"))
    assert [e["count"] for e in document["findings"]] == [2]
    document["findings"][0]["count"] = 1
    (tmp_path / "base.json").write_text(json.dumps(document), encoding="utf-8")
    code, report = check_json(tmp_path, "--baseline", "base.json")
    assert code == 1 and len(report["findings"]) == 1
    del document["findings"][0]["count"]  # a hand-written entry without a count accepts one finding
    (tmp_path / "base.json").write_text(json.dumps(document), encoding="utf-8")
    assert len(check_json(tmp_path, "--baseline", "base.json")[1]["findings"]) == 1


def test_hidden_and_stale_counts(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app.py": TWICE, "other.py": SECOND_BUST})
    cli("baseline", ".", "-o", "base.json", cwd=tmp_path)
    (tmp_path / "other.py").rename(tmp_path / "new.py")  # its entry no longer matches; new.py is new
    config = load_config(tmp_path)
    result = analyze([tmp_path], replace(config, cache_dir=None), cwd=tmp_path)
    assert len(result.findings) == 3
    kept, stats = apply_baseline(result, tmp_path / "base.json", tmp_path)
    assert [f.location.path for f in kept.findings] == ["new.py"]
    assert stats == BaselineStats(hidden=2, stale=1)
    _, _, err = cli("check", "--baseline", "base.json", cwd=tmp_path)
    assert "promptlint: 2 findings hidden by the baseline base.json" in err


@pytest.mark.parametrize("content,message", [
    (None, "baseline file not found: {path} (write one with `promptlint baseline`)"),
    ("{not json", "cannot read baseline {path}: Expecting property name enclosed in double quotes"),
    ('{"version": 2, "findings": []}', "{path} is not a promptlint baseline (version 1)"),
    ('{"version": 1, "findings": {}}', "{path} is not a promptlint baseline (version 1)"),
    ('{"version": 1}', "{path} is not a promptlint baseline (version 1)"),
    ('[1]', "{path} is not a promptlint baseline (version 1)"),
    ('{"version": 1, "findings": [{"rule": "PC001"}]}', "{path}: every finding needs a 'fingerprint'"),
    ('{"version": 1, "findings": ["x"]}', "{path}: every finding needs a 'fingerprint'"),
    ('{"version": 1, "findings": [{"fingerprint": 7}]}', "{path}: every finding needs a 'fingerprint'"),
])
def test_unreadable_baselines_say_why(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "base.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(BaselineError) as caught:
        read_baseline(path)
    assert str(caught.value).startswith(message.format(path=path))


def test_read_baseline_sums_counts_per_fingerprint(tmp_path: Path) -> None:
    path = tmp_path / "base.json"
    path.write_text(json.dumps({"version": 1, "findings": [
        {"fingerprint": "a", "count": 2}, {"fingerprint": "b"}, {"fingerprint": "a", "count": 3}]}), encoding="utf-8")
    assert read_baseline(path) == Counter({"a": 5, "b": 1})


def test_numbers_in_the_message_do_not_change_the_identity(tmp_path: Path) -> None:
    write_tree(tmp_path, {"legacy.py": CLOCK_BUST})
    cli("baseline", "-o", "base.json", cwd=tmp_path)
    longer = CLOCK_BUST.replace('" * 20', '" * 27')  # "comes before 1,380 characters" becomes 1,863
    (tmp_path / "legacy.py").write_text(longer.lstrip(), encoding="utf-8")
    _, plain = check_json(tmp_path)
    assert "1,863 characters" in plain["findings"][0]["message"]
    code, report = check_json(tmp_path, "--baseline", "base.json")
    assert (code, report["findings"]) == (0, [])


def test_the_fingerprint_depends_on_what_and_where_but_not_on_lines() -> None:
    location = Location("app.py", 10, 5, 10, 9)
    site = CallSite(Location("app.py", 20, 1, 20, 9), "openai.chat.completions", "openai", None, "answer")
    origin = Origin(location, "datetime.datetime.now", "clock", Volatility.PER_REQUEST)
    base = Finding("PC001", "volatile-before-stable", Severity.ERROR, location, "before 1,380 characters (12 s)",
                   site, origin)
    same = fingerprint(base)
    assert len(same) == 16 and re.fullmatch(r"[0-9a-f]{16}", same)
    moved = replace(base, location=Location("app.py", 90, 1, 91, 3), message="before 2,001 characters (7 s)",
                    call_site=replace(site, location=Location("app.py", 99, 1, 99, 2)))
    assert fingerprint(moved) == same
    changed = [replace(base, rule="PC003"), replace(base, location=replace(location, path="other.py")),
               replace(base, call_site=replace(site, api="anthropic.messages")),
               replace(base, call_site=replace(site, function="ask")),
               replace(base, call_site=replace(site, function=None)),
               replace(base, volatile_source=replace(origin, source="uuid.uuid4")),
               replace(base, volatile_source=None),
               replace(base, message="after 1,380 characters (12 s)")]
    prints = [fingerprint(f) for f in changed]
    assert same not in prints and len(set(prints)) == len(prints)


def test_the_baseline_records_the_worst_monthly_loss_per_identity(tmp_path: Path) -> None:
    """In-process (mutation testing sees it): the costliest provider of the costliest copy, to the
    cent; a finding without an estimate, or one priced for no provider, records 0."""
    def bust(path: str, line: int, losses: tuple[float, ...] | None) -> Finding:
        where = Location(path, line, 1, line, 9)
        estimate = None if losses is None else Estimate(100, "o200k_base", True, losses=tuple(
            ProviderLoss("openai", "gpt-4o", 100, 1.0, usd, 5000.0, "2026-10-01") for usd in losses))
        return Finding("PC001", "volatile-before-stable", Severity.ERROR, where, "clock first",
                       CallSite(where, "openai.chat.completions", "openai"), estimate=estimate)
    result = AnalysisResult((bust("a.py", 3, (3.0, 12.345)), bust("a.py", 9, (7.5,)), bust("b.py", 3, None),
                             bust("c.py", 3, ())), ())
    assert write_baseline(result, tmp_path / "base.json", tmp_path) == 4
    recorded = json.loads((tmp_path / "base.json").read_text(encoding="utf-8"))["findings"]
    assert [(e["path"], e["count"], e["usd_per_month"]) for e in recorded] == [
        ("a.py", 2, 12.35), ("b.py", 1, 0.0), ("c.py", 1, 0.0)]
    assert recorded[0]["call_site"] == "a.py:9 openai.chat.completions"  # the last copy's call
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base.json"]  # the temporary file renamed into place
