"""The labelled corpus and the demo app: scored with the corpus script's own matching rules (no
slack), and compared with the exact expected findings in tests/data/expected_findings.json."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
import yaml

from promptlint.config import load_config
from promptlint.engine import analyze
from promptlint.reporters.json_report import render_json
from tests import expected_findings
from tests.conftest import FIXTURES, run_cli


def load_score_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("corpus_score", FIXTURES / "corpus" / "score.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["corpus_score"] = module
    spec.loader.exec_module(module)
    return module


score = load_score_module()


def report_for(folder: Path) -> dict:
    config = load_config(folder)
    result = analyze([folder], config, cwd=folder)
    return json.loads(render_json(result, config))


def case_result(folder: Path):  # type: ignore[no-untyped-def]
    case = score.load_case(folder)
    return score.score_case(case, score.parse_findings(report_for(folder), folder), score.SEVERITY_RANK["warning"])


def test_corpus_scores_exactly_against_its_labels() -> None:
    """No slack: every labelled bust found, nothing else reported (docs/accuracy.md)."""
    cases = score.load_cases(FIXTURES / "corpus", [])
    assert len(cases) >= 40
    totals = score.Counts()
    misses = []
    for case in cases:
        result = case_result(case.folder)
        totals.add(result)
        misses += [(m.case, m.rule, m.loc) for m in [*result.fp, *result.fn]]
    assert misses == []
    assert totals.precision == 1.0 and totals.recall == 1.0


def test_corpus_reports_exactly_the_expected_findings() -> None:
    """The exact list of (path, line, rule, severity) per case, held in tests/data: a change of
    results is a deliberate diff of that file (see tests/expected_findings.py)."""
    corpus = expected_findings.load_expected()["corpus"]
    assert isinstance(corpus, dict)
    folders = expected_findings.corpus_folders()
    assert sorted(corpus) == [f.name for f in folders], "a case was added or removed: update the expected list"
    for folder in folders:
        result = expected_findings.analyze_folder(folder)
        assert [e for e in result.errors if e.internal] == []
        assert [list(r) for r in expected_findings.rows(result)] == corpus[folder.name], folder.name


def test_demo_app_reports_exactly_the_expected_findings() -> None:
    result = expected_findings.analyze_folder(FIXTURES / "demo_app")
    assert result.errors == ()
    assert [list(r) for r in expected_findings.rows(result)] == expected_findings.load_expected()["demo_app"]


def test_demo_app_reports_exactly_its_labelled_busts() -> None:
    demo = FIXTURES / "demo_app"
    expected = yaml.safe_load((demo / "EXPECTED.yaml").read_text())["expected"]
    case = score.Case(name="demo_app", folder=demo, description="demo", pattern="-", reach="-", provider="-",
                      labels=tuple(score.parse_label(item, demo) for item in expected))
    result = score.score_case(case, score.parse_findings(report_for(demo), demo), score.SEVERITY_RANK["warning"])
    assert not result.fp and not result.fn, (result.fp, result.fn)
    assert result.tp == len(case.labels) == 7


def test_cli_json_on_demo_app_follows_the_contract(tmp_path: Path) -> None:
    demo = FIXTURES / "demo_app"
    completed = run_cli("check", ".", "--format", "json", cwd=demo)
    assert completed.returncode == 1, completed.stderr
    document = json.loads(completed.stdout)
    assert document["version"] == 1
    assert set(document) >= {"version", "findings", "errors", "summary"}
    assert document["errors"] == []
    required = {"rule", "name", "severity", "path", "line", "column", "end_line", "end_column", "message",
                "volatile_source", "call_site", "lost_tokens_per_call"}
    for finding in document["findings"]:
        assert required <= set(finding)
        assert finding["severity"] in ("error", "warning")
        assert finding["line"] >= 1 and finding["column"] >= 1
        assert (demo / finding["path"]).is_file(), "paths are relative to the working directory"
        assert set(finding["call_site"]) >= {"path", "line", "api"}
        if finding["volatile_source"] is not None:
            assert set(finding["volatile_source"]) >= {"path", "line", "kind"}
    cross_module = [f for f in document["findings"] if f["path"] != f["call_site"]["path"]]
    template = [f for f in document["findings"] if f["path"].endswith((".j2", ".yaml"))]
    assert cross_module and template
    assert any(isinstance(f["lost_tokens_per_call"], int) and f["lost_tokens_per_call"] > 0
               for f in document["findings"])


def test_cli_text_on_demo_app_shows_frame_origin_call_and_hint() -> None:
    completed = run_cli("check", "fixtures/demo_app", cwd=FIXTURES.parent)
    assert completed.returncode == 1
    out = completed.stdout
    assert "fixtures/demo_app/support_bot/prompts.py:49:39: PC001 [error]" in out
    assert "  > 49 |" in out and "^" in out  # code frame at the volatile value
    assert "born at" in out and "reaches" in out and "fix" in out
    assert "[estimate]" in out
    assert "Found 7 findings" in out
    # Not a terminal: no wrapping, every finding header is one line.
    header = next(line for line in out.splitlines() if ": PC001 [error]" in line)
    assert header.endswith("(volatile-before-stable)")
    assert "Traceback" not in completed.stderr


def test_show_info_reveals_lookalikes_without_failing_them(tmp_path: Path) -> None:
    demo = FIXTURES / "demo_app"
    default = run_cli("check", ".", "--format", "json", cwd=demo)
    with_info = run_cli("check", ".", "--format", "json", "--show-info", cwd=demo)
    infos = [f for f in json.loads(with_info.stdout)["findings"] if f["severity"] == "info"]
    assert infos and len(json.loads(with_info.stdout)["findings"]) > len(json.loads(default.stdout)["findings"])


# Exit codes for each fail level, with inputs where the answer differs: tests/test_exact_outputs.py.


def test_clean_code_exits_zero(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(
        "from openai import OpenAI\n"
        "SYSTEM = 'You are helpful. ' * 100\n"
        "def ask(q: str, history: list):\n"
        "    return OpenAI().chat.completions.create(model='gpt-4o', messages=[\n"
        "        {'role': 'system', 'content': SYSTEM}, *history, {'role': 'user', 'content': q}])\n")
    completed = run_cli("check", ".", cwd=tmp_path)
    assert completed.returncode == 0, completed.stdout
    assert "No cache-busting prompt layouts found" in completed.stdout


def test_usage_errors_exit_two(tmp_path: Path) -> None:
    assert run_cli("check", "does-not-exist", cwd=tmp_path).returncode == 2
    assert run_cli("check", ".", "--format", "yaml", cwd=tmp_path).returncode == 2
    assert run_cli("check", ".", "--select", "XX999", cwd=tmp_path).returncode == 2


def test_findings_do_not_depend_on_the_order_entries_are_evaluated_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker evaluates its entries one after another and keeps parsed modules and per-class
    facts between them: what it ran before must not change an entry's result. The whole corpus,
    in one process, in path order and in reverse order: the same findings and layouts. (A memo
    keyed by `id()` broke this on DB-GPT, where the same check found it: bench/RESULTS.md,
    forty-fifth session.)"""
    from dataclasses import replace

    from promptlint import parallel

    root = FIXTURES / "corpus"
    config = replace(load_config(root), cache_dir=None, show_info=True, jobs=1)
    evaluate = parallel.Workers.evaluate

    def run(reverse: bool) -> tuple[list[tuple[str, str, int, str]], list[str]]:
        def in_order(self: parallel.Workers, tasks: list, parallel_: bool) -> list:
            done = evaluate(self, tasks[::-1] if reverse else tasks, parallel_)
            return done[::-1] if reverse else done

        monkeypatch.setattr(parallel.Workers, "evaluate", in_order)
        result = analyze([root], config, cwd=root)
        return (sorted((f.rule, f.location.path, f.location.line, f.message) for f in result.findings),
                sorted(map(repr, result.layouts)))

    forward, backward = run(False), run(True)
    assert len(forward[0]) >= 40
    assert forward == backward
