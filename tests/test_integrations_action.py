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


def run_action(root: Path, tmp_path: Path, **inputs: str) -> tuple[int, dict[str, str], str]:
    shim = tmp_path / "bin" / "promptlint"
    shim.parent.mkdir(exist_ok=True)
    shim.write_text(f'#!/bin/sh\nPYTHONPATH="{REPO}" exec "{sys.executable}" -m promptlint "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    outputs, summary = tmp_path / "github_output", tmp_path / "step_summary"
    outputs.write_text(""), summary.write_text("")
    defaults = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    values = {**defaults, **inputs}
    env = {**os.environ, "PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}",
           "GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(summary)}
    for name, template in check_step()["env"].items():
        key = template.removeprefix("${{ inputs.").removesuffix(" }}")
        env[name] = values[key]
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
