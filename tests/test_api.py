"""The stable Python API: `promptlint.check(paths, config=...) -> Result`, the JSON contract's
fields as frozen, typed dataclasses, and a cheap `import promptlint`."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import promptlint
from promptlint import api
from tests.conftest import REPO, write_tree
from tests.integration_helpers import CLEAN, CLOCK_BUST, cli, git_repo


def project(root: Path, table: str = "") -> Path:
    return write_tree(root, {"pyproject.toml": f'[project]\nname = "demo"\n\n[tool.promptlint]\n{table}\n',
                             "app/bot.py": CLOCK_BUST, "legacy/old.py": CLOCK_BUST, "app/ok.py": CLEAN})


def test_check_matches_the_json_contract(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = promptlint.check(".", cwd=root, config={"cache-dir": ""})
    _, out, _ = cli("check", "--format", "json", "--no-cache", cwd=root)
    document = json.loads(out)
    assert result.version == 1 and result.exit_code == 1
    assert result.to_dict()["findings"] == document["findings"]
    assert [(f.path, f.line, f.column, f.rule, f.severity) for f in result.findings] == [
        (f["path"], f["line"], f["column"], f["rule"], f["severity"]) for f in document["findings"]]
    finding = result.findings[0]
    assert finding.call_site.api == "openai.chat.completions" and finding.volatile_source is not None
    assert finding.volatile_source.source == "datetime.datetime.now" and finding.fingerprint
    assert result.summary.findings == 2 and result.summary.by_rule == {"PC001": 2}
    with pytest.raises(dataclasses.FrozenInstanceError):
        finding.line = 3  # type: ignore[misc]


def test_every_contract_key_is_a_field() -> None:
    from promptlint.reporters.json_report import finding_record  # noqa: F401 - the contract's source

    record_keys = {"rule", "name", "severity", "path", "line", "column", "end_line", "end_column", "message",
                   "volatile_source", "call_site", "lost_tokens_per_call", "hint", "fingerprint", "related",
                   "estimate", "cell"}
    assert record_keys <= {f.name for f in dataclasses.fields(api.Finding)}
    assert {"path", "line", "message", "note"} == {f.name for f in dataclasses.fields(api.Related)}
    assert typing.get_type_hints(api.Finding)["line"] is int  # the annotations resolve


def test_config_mapping_path_and_errors(tmp_path: Path) -> None:
    root = project(tmp_path, 'exclude = ["legacy"]')
    assert [f.path for f in promptlint.check(cwd=root).findings] == ["app/bot.py"]
    assert promptlint.check(cwd=root, config={"ignore": ["PC001"]}).exit_code == 0
    assert promptlint.check(["app/ok.py"], cwd=root).findings == ()
    (root / "strict.toml").write_text('[tool.promptlint]\nexclude = ["app"]\n')
    assert [f.path for f in promptlint.check(cwd=root, config="strict.toml").findings] == ["legacy/old.py"]
    with pytest.raises(promptlint.ConfigError, match="unknown key 'nope'"):
        promptlint.check(cwd=root, config={"nope": 1})
    with pytest.raises(promptlint.ConfigError):
        promptlint.check(cwd=root, config={"select": ["XX999"]})
    with pytest.raises(promptlint.CheckError, match="no such file"):
        promptlint.check("missing.py", cwd=root)


def test_diff_and_baseline(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"old.py": CLOCK_BUST})
    write_tree(root, {"new.py": CLOCK_BUST})
    assert [f.path for f in promptlint.check(cwd=root, diff="HEAD").findings] == ["new.py"]
    with pytest.raises(promptlint.CheckError, match="unknown git revision"):
        promptlint.check(cwd=root, diff="no-such-ref")
    cli("baseline", "-o", "base.json", cwd=root)
    assert promptlint.check(cwd=root, baseline="base.json").findings == ()


def test_import_promptlint_stays_cheap() -> None:
    code = ("import sys, promptlint; heavy = [m for m in ('libcst', 'typer', 'rich', 'promptlint.api', "
            "'promptlint.engine') if m in sys.modules]; print(heavy)")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr
    assert promptlint.check is api.check and "check" in promptlint.__all__


def test_result_from_a_json_document(tmp_path: Path) -> None:
    root = project(tmp_path)
    _, out, _ = cli("check", "--format", "json", cwd=root)
    result = api.from_document(json.loads(out))
    assert len(result.findings) == 2 and result.findings[0].rule == "PC001"
