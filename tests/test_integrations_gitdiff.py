"""`check --diff REF` against real git repositories."""

from __future__ import annotations

import json
from pathlib import Path

from promptlint.gitdiff import parse_unified_diff
from tests.integration_helpers import CLEAN, CLOCK_BUST, CROSS_MODULE, check_json, cli, git, git_repo


def test_only_findings_on_changed_lines(tmp_path: Path) -> None:
    git_repo(tmp_path, {"legacy.py": CLOCK_BUST, "app.py": CLEAN})
    git("checkout", "-q", "-b", "feature", cwd=tmp_path)
    (tmp_path / "app.py").write_text(CLOCK_BUST.lstrip(), encoding="utf-8")
    git("commit", "-qam", "add a clock", cwd=tmp_path)

    _, everything = check_json(tmp_path)
    assert sorted(f["path"] for f in everything["findings"]) == ["app.py", "legacy.py"]
    code, changed = check_json(tmp_path, "--diff", "main")
    assert code == 1
    assert [f["path"] for f in changed["findings"]] == ["app.py"]


def test_sarif_under_diff_marks_every_finding_new_or_unchanged(tmp_path: Path) -> None:
    git_repo(tmp_path, {"legacy.py": CLOCK_BUST, "app.py": CLEAN})
    (tmp_path / "app.py").write_text(CLOCK_BUST.lstrip(), encoding="utf-8")
    code, out, _ = cli("check", "--diff", "HEAD", "--format", "sarif", "--no-cache", cwd=tmp_path)
    results = json.loads(out)["runs"][0]["results"]
    assert code == 1
    assert sorted((r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["baselineState"])
                  for r in results) == [("app.py", "new"), ("legacy.py", "unchanged")]


def test_uncommitted_and_untracked_changes_count(tmp_path: Path) -> None:
    git_repo(tmp_path, {"legacy.py": CLOCK_BUST})
    (tmp_path / "new.py").write_text(CLOCK_BUST.lstrip(), encoding="utf-8")
    _, report = check_json(tmp_path, "--diff", "HEAD")
    assert [f["path"] for f in report["findings"]] == ["new.py"]


def test_no_changes_no_findings(tmp_path: Path) -> None:
    git_repo(tmp_path, {"legacy.py": CLOCK_BUST})
    code, report = check_json(tmp_path, "--diff", "HEAD")
    assert (code, report["findings"]) == (0, [])


def test_change_at_the_source_in_another_module_keeps_the_finding(tmp_path: Path) -> None:
    git_repo(tmp_path, {**CROSS_MODULE, "helpdesk/sections.py": CROSS_MODULE["helpdesk/sections.py"].replace(
        "datetime.now().isoformat()", "'always the same'")})
    git("checkout", "-q", "-b", "feature", cwd=tmp_path)
    (tmp_path / "helpdesk/sections.py").write_text(CROSS_MODULE["helpdesk/sections.py"].lstrip(), encoding="utf-8")
    git("commit", "-qam", "clock in the section", cwd=tmp_path)
    code, report = check_json(tmp_path, "--diff", "main")
    assert code == 1 and [f["rule"] for f in report["findings"]] == ["PC001"]


def test_diff_uses_the_merge_base(tmp_path: Path) -> None:
    """What main changed after the branch point is not the branch's change."""
    git_repo(tmp_path, {"legacy.py": CLOCK_BUST})
    git("checkout", "-q", "-b", "feature", cwd=tmp_path)
    (tmp_path / "notes.txt").write_text("feature work\n", encoding="utf-8")
    git("add", "notes.txt", cwd=tmp_path)
    git("commit", "-qm", "feature work", cwd=tmp_path)
    git("checkout", "-q", "main", cwd=tmp_path)
    edited = CLOCK_BUST.replace("Current time:", "Time now:")  # main edits the bust's line
    (tmp_path / "legacy.py").write_text(edited.lstrip(), encoding="utf-8")
    git("commit", "-qam", "edit on main", cwd=tmp_path)
    git("checkout", "-q", "feature", cwd=tmp_path)
    # Compared with main itself, line 6 differs; compared with the merge base, the branch left it alone.
    _, report = check_json(tmp_path, "--diff", "main")
    assert report["findings"] == []


def test_unknown_ref_and_no_repository_are_exit_2(tmp_path: Path) -> None:
    git_repo(tmp_path / "repo", {"app.py": CLEAN})
    code, _, err = cli("check", "--diff", "no-such-branch", cwd=tmp_path / "repo")
    assert code == 2 and "unknown git revision 'no-such-branch'" in err
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain/app.py").write_text(CLEAN, encoding="utf-8")
    code, _, err = cli("check", "--diff", "main", cwd=tmp_path / "plain")
    assert code == 2 and "not inside a git work tree" in err


def test_parse_unified_diff_additions_deletions_renames(tmp_path: Path) -> None:
    diff = (
        "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -3,0 +4,2 @@\n+x\n+y\n@@ -10 +12 @@\n-a\n+b\n"
        "@@ -20,2 +21,0 @@\n-c\n-d\n"
        "diff --git a/old.py b/new.py\n--- a/old.py\n+++ b/new.py\n@@ -1 +1 @@\n-q\n+r\n"
        "diff --git a/gone.py b/gone.py\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-z\n"
    )
    changed = parse_unified_diff(diff, tmp_path)
    assert changed[(tmp_path / "a.py").resolve()] == frozenset({4, 5, 12, 21, 22})
    assert changed[(tmp_path / "new.py").resolve()] == frozenset({1})
    assert (tmp_path / "gone.py").resolve() not in changed
