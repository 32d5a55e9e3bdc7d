"""``--diff REF``: keep only findings on lines changed since REF, asked of real git.

What counts as changed: every line added or modified between the merge base of REF and HEAD and
the working tree (``git diff --unified=0 $(git merge-base REF HEAD)``, the same range a pull
request shows, plus uncommitted edits), and every line of untracked, not ignored files.

Which findings are kept: a finding is reported when any place on its path changed: the reported
expression, the line where the volatile value is born, any step it takes on the way (assignment,
return, join), or the call it reaches. A cache bust is often introduced far from where it is
reported, e.g. by reordering a builder in another module; a pull request that touches any link
of the chain owns the finding. Untouched legacy findings stay hidden.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

from promptlint.model import AnalysisResult, Finding, Location

HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
GIT_TIMEOUT_S = 60


class GitError(Exception):
    """git is missing, the folder is not a work tree, or REF is unknown: exit code 2."""


@dataclass(frozen=True)
class ChangedLines:
    lines: dict[Path, frozenset[int]]  # absolute path -> changed line numbers (1-based)
    whole_files: frozenset[Path]  # untracked files: every line is new

    def touches(self, location: Location, cwd: Path) -> bool:
        path = (cwd / location.path).resolve()
        if path in self.whole_files:
            return True
        changed = self.lines.get(path)
        if not changed:
            return False
        if location.cell is not None:  # a notebook: its JSON lines are not the cell's lines
            return True
        return any(line in changed for line in range(location.line, max(location.line, location.end_line) + 1))


@dataclass(frozen=True)
class DiffStats:
    ref: str
    base: str
    hidden: int


def _git(args: list[str], cwd: Path) -> str:
    try:
        done = subprocess.run(["git", "-c", "core.quotepath=off", *args], cwd=cwd, capture_output=True,
                              text=True, timeout=GIT_TIMEOUT_S, encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise GitError("--diff needs git, and git is not installed") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {' '.join(args)} took longer than {GIT_TIMEOUT_S}s") from None
    if done.returncode != 0:
        raise GitError(f"git {' '.join(args)} failed: {done.stderr.strip() or done.returncode}")
    return done.stdout


def changed_lines(ref: str, cwd: Path) -> tuple[ChangedLines, str]:
    """Lines changed since the merge base of ``ref`` and HEAD; returns them and that base."""
    try:
        top = Path(_git(["rev-parse", "--show-toplevel"], cwd).strip())
    except GitError:
        raise GitError(f"--diff {ref}: {cwd} is not inside a git work tree") from None
    try:
        _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], top)
    except GitError:
        raise GitError(f"--diff {ref}: unknown git revision '{ref}' (fetch it first, e.g. "
                       "`git fetch origin main` and `--diff origin/main`)") from None
    try:
        base = _git(["merge-base", ref, "HEAD"], top).strip()
    except GitError:
        base = ref  # no common history (or no HEAD yet): compare with REF itself
    diff = _git(["diff", "--unified=0", "--no-color", "--no-ext-diff", "-M", base, "--"], top)
    untracked = _git(["ls-files", "--others", "--exclude-standard", "-z"], top)
    whole = frozenset((top / name).resolve() for name in untracked.split("\0") if name)
    return ChangedLines(parse_unified_diff(diff, top), whole), base


def parse_unified_diff(diff: str, top: Path) -> dict[Path, frozenset[int]]:
    """Changed lines of the new side of a ``--unified=0`` diff, by absolute path."""
    changed: dict[Path, set[int]] = {}
    current: set[int] | None = None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            name = _unquote(line[4:].rstrip("\t"))
            current = None if name == "/dev/null" else changed.setdefault((top / name[2:]).resolve(), set())
        elif current is not None and (match := HUNK.match(line)):
            start, count = int(match.group(1)), int(match.group(2) or "1")
            if count == 0:  # a pure deletion between `start` and `start + 1`
                current.update({max(start, 1), start + 1})
            else:
                current.update(range(start, start + count))
    return {path: frozenset(lines) for path, lines in changed.items()}


def _unquote(name: str) -> str:
    """git quotes names with unusual characters C-style ("b/a\\tb.py")."""
    if not (name.startswith('"') and name.endswith('"')):
        return name
    raw = name[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    return raw.encode("latin-1", "replace").decode("utf-8", "replace")


def finding_touched(finding: Finding, changed: ChangedLines, cwd: Path) -> bool:
    places = [finding.location, finding.call_site.location, *(r.location for r in finding.related)]
    if finding.volatile_source is not None:
        places.append(finding.volatile_source.location)
    return any(changed.touches(place, cwd) for place in places)


def filter_to_diff(result: AnalysisResult, ref: str, cwd: Path) -> tuple[AnalysisResult, DiffStats]:
    changed, base = changed_lines(ref, cwd)
    kept = tuple(f for f in result.findings if finding_touched(f, changed, cwd))
    errors = tuple(e for e in result.errors if (cwd / e.path).resolve() in changed.lines
                   or (cwd / e.path).resolve() in changed.whole_files)
    stats = DiffStats(ref, base, len(result.findings) - len(kept))
    return replace(result, findings=kept, errors=errors), stats
