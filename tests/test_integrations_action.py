"""action.yml: the composite action's script, run with bash as the GitHub runner runs it."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import REPO
from tests.integration_helpers import CLEAN, CLOCK_BUST, git_repo

ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))


def check_step() -> dict:
    return next(step for step in ACTION["runs"]["steps"] if step.get("id") == "check")


def run_action(root: Path, tmp_path: Path, github: dict[str, str] | None = None,
               **inputs: str) -> tuple[int, dict[str, str], str]:
    shim = tmp_path / "bin" / "promptlint"
    shim.parent.mkdir(exist_ok=True)
    # Each run of promptlint appends a line to a log, so the tests can count the runs.
    shim.write_text(f'#!/bin/sh\necho run >> "{tmp_path}/runs.log"\n'
                    f'PYTHONPATH="{REPO}" exec "{sys.executable}" -m promptlint "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    python = tmp_path / "bin" / "python"  # setup-python puts `python` on the PATH
    if not python.exists():
        python.symlink_to(sys.executable)
    outputs, summary = tmp_path / "github_output", tmp_path / "step_summary"
    outputs.write_text(""), summary.write_text("")
    defaults = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    values = {**defaults, **inputs}
    env = {**os.environ, "PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}",
           "GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(summary)}
    for name, template in check_step()["env"].items():
        if template.startswith("${{ inputs."):
            env[name] = values[template.removeprefix("${{ inputs.").removesuffix(" }}")]
        else:  # ${{ github.x }}
            env[name] = (github or {}).get(template.removeprefix("${{ github.").removesuffix(" }}"), "")
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", check_step()["run"]],
                          cwd=root, env=env, capture_output=True, text=True, timeout=300)
    pairs = dict(line.split("=", 1) for line in outputs.read_text().splitlines() if "=" in line)
    return done.returncode, pairs, done.stdout + summary.read_text()


def test_action_metadata() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert {"paths", "diff-ref", "baseline", "fail-on", "sarif-file", "markdown-file", "args"} <= set(ACTION["inputs"])
    assert all("${{ inputs." not in step.get("run", "") for step in ACTION["runs"]["steps"])  # no injection


def test_action_reports_annotations_sarif_and_summary(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"app.py": CLOCK_BUST})
    code, outputs, text = run_action(root, tmp_path)
    assert code == 1 and outputs["exit-code"] == "1"
    assert "::error file=app.py,line=5" in text
    assert "## promptlint: 1 cache-busting prompt layout" in text
    sarif = json.loads((root / outputs["sarif-file"]).read_text())
    assert sarif["runs"][0]["results"][0]["ruleId"] == "PC001"


def test_action_with_diff_ref_passes_when_nothing_changed(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"app.py": CLOCK_BUST, "ok.py": CLEAN})
    code, outputs, _ = run_action(root, tmp_path, **{"diff-ref": "HEAD"})
    assert (code, outputs["exit-code"]) == (0, "0")


def test_action_configuration_error_is_exit_2(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"app.py": CLEAN})
    code, outputs, _ = run_action(root, tmp_path, args="--select NOPE")
    assert (code, outputs["exit-code"]) == (2, "2")


def runs(tmp_path: Path) -> int:
    log = tmp_path / "runs.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_action_runs_promptlint_once_for_annotations_sarif_and_markdown(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"app.py": CLOCK_BUST})
    code, outputs, text = run_action(root, tmp_path, github={
        "action_repository": "example/promptlint", "action_ref": "v0.1.0", "server_url": "https://github.com"})
    assert code == 1 and runs(tmp_path) == 1
    assert "::error file=app.py,line=5" in text and "## promptlint: 1 cache-busting" in text
    assert (root / outputs["markdown-file"]).read_text().startswith("## promptlint: 1 cache-busting")
    rules = json.loads((root / outputs["sarif-file"]).read_text())["runs"][0]["tool"]["driver"]["rules"]
    assert rules[0]["helpUri"] == "https://github.com/example/promptlint/blob/v0.1.0/docs/rules/PC001.md"


def test_action_args_are_split_like_a_shell_without_running_anything(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"app.py": CLOCK_BUST, "legacy code/old.py": CLOCK_BUST})
    marker = tmp_path / "pwned"
    args = f'--exclude "legacy code"\n--select PC001,PC002\n--show-info $(touch {marker}) ; touch {marker}'
    code, outputs, _ = run_action(root, tmp_path, args=args)
    assert code == 2 and not marker.exists()  # `$(touch …)` reached promptlint as a word, not a command
    code, outputs, text = run_action(root, tmp_path, args='--exclude "legacy code"\n--select PC001,PC002')
    assert code == 1 and "app.py" in text and "legacy code" not in text
    sarif = json.loads((root / outputs["sarif-file"]).read_text())
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in sarif["runs"][0]["results"]] == ["app.py"]


def test_action_unbalanced_quote_in_args_is_exit_2(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"app.py": CLEAN})
    code, outputs, text = run_action(root, tmp_path, args='--exclude "legacy')
    assert (code, outputs["exit-code"]) == (2, "2") and runs(tmp_path) == 0


def test_action_pr_mode_uploads_every_finding_with_its_baseline_state(tmp_path: Path) -> None:
    from tests.integration_helpers import git

    root = git_repo(tmp_path / "repo", {"old.py": CLOCK_BUST})
    (root / "new.py").write_text(CLOCK_BUST)
    git("add", "new.py", cwd=root)
    git("commit", "-q", "-m", "add new.py", cwd=root)
    code, outputs, text = run_action(root, tmp_path, **{"diff-ref": "HEAD~1"})
    assert code == 1 and runs(tmp_path) == 1
    assert "::error file=new.py" in text and "file=old.py" not in text  # annotations: the diff only
    results = json.loads((root / outputs["sarif-file"]).read_text())["runs"][0]["results"]
    states = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r["baselineState"] for r in results}
    assert states == {"new.py": "new", "old.py": "unchanged"}  # full SARIF: old.py's alert stays open
    assert "new.py" in (root / outputs["markdown-file"]).read_text()
    assert "old.py" not in (root / outputs["markdown-file"]).read_text()


def test_example_workflow_uses_upload_sarif_v4() -> None:
    docs = (REPO / "docs" / "integrations.md").read_text(encoding="utf-8")
    assert "github/codeql-action/upload-sarif@v4" in docs and "upload-sarif@v3" not in docs
