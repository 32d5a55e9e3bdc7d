"""The pre-commit hooks with the real pre-commit: `try-repo` on staged files, and a real
`git commit` through the installed hook. A bad commit is refused, a good one passes.

pre-commit builds the hook's environment by pip-installing a copy of this checkout (from the
package registry's build backend and dependencies); that happens once per test session.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO, write_tree
from tests.integration_helpers import CROSS_MODULE, git

pytestmark = pytest.mark.skipif(shutil.which("pre-commit") is None, reason="pre-commit is not installed "
                                "(pip install pre-commit)")

PACKAGE_PATHS = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "promptlint", "rules", "verifier")
GOOD_BOT = CROSS_MODULE["helpdesk/bot.py"].replace(
    'system = "\\n\\n".join([current_time(), RULES])', 'system = RULES')
JSON_BUST = """
import json
from openai import OpenAI
RULES = "Use the profile to personalise answers but never reveal it. " * 20
def answer(data: dict, question: str, history: list):
    profile = {key: data.get(key) for key in {"name", "plan", "region"}}
    system = "Profile: " + json.dumps(profile) + "\\n" + RULES
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
"""


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, dict[str, str]]:
    """A committed copy of this checkout (pre-commit installs hooks from a git repository)."""
    source = tmp_path_factory.mktemp("promptlint-src")
    for name in PACKAGE_PATHS:
        origin = REPO / name
        if origin.is_dir():
            shutil.copytree(origin, source / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".promptlint_cache"))
        elif origin.is_file():
            shutil.copy(origin, source / name)
    if not (source / "README.md").exists():
        (source / "README.md").write_text("# promptlint\n", encoding="utf-8")
    git("init", "-q", "-b", "main", cwd=source)
    git("add", "-A", cwd=source)
    git("commit", "-q", "-m", "promptlint under test", cwd=source)
    revision = git("rev-parse", "HEAD", cwd=source).strip()
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path_factory.mktemp("pre-commit-home")),
           "PRE_COMMIT_COLOR": "never", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return source, revision, env


def target_repo(root: Path) -> Path:
    """A project whose clock helper already exists; the commit under test only touches bot.py."""
    write_tree(root, {**CROSS_MODULE, "helpdesk/bot.py": GOOD_BOT})
    git("init", "-q", "-b", "main", cwd=root)
    git("add", "-A", cwd=root)
    git("commit", "-q", "-m", "initial", cwd=root)
    return root


def run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def test_try_repo_refuses_a_staged_cross_module_bust_and_passes_a_good_file(
        hook_repo: tuple[Path, str, dict[str, str]], tmp_path: Path) -> None:
    source, _, env = hook_repo
    root = target_repo(tmp_path / "project")
    write_tree(root, {"helpdesk/bot.py": CROSS_MODULE["helpdesk/bot.py"]})  # joins the clock first
    git("add", "helpdesk/bot.py", cwd=root)
    bad = run(["pre-commit", "try-repo", str(source), "promptlint"], root, env)
    output = bad.stdout + bad.stderr
    assert bad.returncode == 1, output
    assert "Failed" in output and "helpdesk/sections.py:3" in output and "PC001" in output

    write_tree(root, {"helpdesk/bot.py": GOOD_BOT + "# reviewed: the time goes to the user turn\n"})
    git("add", "helpdesk/bot.py", cwd=root)
    good = run(["pre-commit", "try-repo", str(source), "promptlint"], root, env)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout


def test_installed_hook_refuses_a_bad_commit_and_accepts_a_good_one(
        hook_repo: tuple[Path, str, dict[str, str]], tmp_path: Path) -> None:
    source, revision, env = hook_repo
    root = target_repo(tmp_path / "project")
    (root / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {source}\n  rev: {revision}\n  hooks:\n  - id: promptlint\n", encoding="utf-8")
    git("add", ".pre-commit-config.yaml", cwd=root)
    git("commit", "-q", "-m", "add pre-commit config", cwd=root)
    installed = run(["pre-commit", "install"], root, env)
    assert installed.returncode == 0, installed.stderr
    head = git("rev-parse", "HEAD", cwd=root)

    write_tree(root, {"helpdesk/bot.py": CROSS_MODULE["helpdesk/bot.py"]})
    git("add", "helpdesk/bot.py", cwd=root)
    refused = run(["git", "commit", "-m", "put the time first"], root, env)
    assert refused.returncode != 0, refused.stdout + refused.stderr
    assert "PC001" in refused.stdout + refused.stderr
    assert git("rev-parse", "HEAD", cwd=root) == head  # nothing was committed

    write_tree(root, {"helpdesk/bot.py": GOOD_BOT + "# reviewed: the time goes to the user turn\n"})
    git("add", "helpdesk/bot.py", cwd=root)
    accepted = run(["git", "commit", "-m", "stable prompt"], root, env)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert git("rev-parse", "HEAD", cwd=root) != head


def test_fix_hook_applies_safe_fixes(hook_repo: tuple[Path, str, dict[str, str]], tmp_path: Path) -> None:
    source, _, env = hook_repo
    root = target_repo(tmp_path / "project")
    write_tree(root, {"profile.py": JSON_BUST})
    git("add", "profile.py", cwd=root)
    done = run(["pre-commit", "try-repo", str(source), "promptlint-fix"], root, env)
    assert done.returncode == 1  # pre-commit fails a hook that modified files
    assert "json.dumps(profile, sort_keys=True)" in (root / "profile.py").read_text()


def test_hook_skips_a_staged_file_the_configuration_excludes(
        hook_repo: tuple[Path, str, dict[str, str]], tmp_path: Path) -> None:
    """pre-commit always names the files; the hooks pass --force-exclude, so `exclude` still holds."""
    source, _, env = hook_repo
    root = target_repo(tmp_path / "project")
    write_tree(root, {"pyproject.toml": '[project]\nname = "helpdesk"\n\n[tool.promptlint]\n'
                                        'exclude = ["vendored"]\n',
                      "vendored/bot.py": CROSS_MODULE["helpdesk/bot.py"]})
    git("add", "pyproject.toml", "vendored/bot.py", cwd=root)
    skipped = run(["pre-commit", "try-repo", str(source), "promptlint"], root, env)
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr
    assert "vendored/bot.py" not in skipped.stdout + skipped.stderr

    write_tree(root, {"helpdesk/bot.py": CROSS_MODULE["helpdesk/bot.py"]})  # not excluded: still refused
    git("add", "helpdesk/bot.py", cwd=root)
    refused = run(["pre-commit", "try-repo", str(source), "promptlint"], root, env)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "helpdesk/sections.py:3" in refused.stdout and "vendored" not in refused.stdout


def test_hook_refuses_a_staged_notebook_with_a_bust(
        hook_repo: tuple[Path, str, dict[str, str]], tmp_path: Path) -> None:
    from tests.test_notebooks import BUST

    source, _, env = hook_repo
    root = target_repo(tmp_path / "project")
    write_tree(root, {"explore.ipynb": BUST})
    git("add", "explore.ipynb", cwd=root)
    refused = run(["pre-commit", "try-repo", str(source), "promptlint"], root, env)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "explore.ipynb:cell 4:2:31: PC001" in refused.stdout
