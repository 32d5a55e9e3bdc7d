"""Replays the hand-made mutants of issue 19 (the ones the suite used to miss) one at a time and
runs the tests meant to catch each; every one must make a test fail. Module-level tables (the
severity mapping, each format's level names) are outside what mutmut 3 mutates, so they are
checked here. Run from the repository root: python scripts/issue_mutants.py
Each mutant is applied to a scratch copy, never to the working tree; the unmutated copy must pass
first (a control), so a failure is the mutant's doing."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# (description, file, original text, mutated text, tests that must fail)
MUTANTS = [
    ("severity of per-user values: warning -> info", "promptlint/checks/base.py",
     "Volatility.PER_USER: Severity.WARNING,", "Volatility.PER_USER: Severity.INFO,",
     "tests/test_exact_outputs.py"),
    ("SARIF startLine off by one", "promptlint/reporters/sarif.py",
     '"startLine": location.line,', '"startLine": location.line + 1,', "tests/test_exact_outputs.py"),
    ("SARIF level of warnings", "promptlint/reporters/sarif.py",
     'Severity.WARNING: "warning", Severity.INFO: "note"', 'Severity.WARNING: "note", Severity.INFO: "note"',
     "tests/test_exact_outputs.py"),
    ("JSON end_column equal to column", "promptlint/reporters/json_report.py",
     '"end_column": loc.end_column,', '"end_column": loc.column,', "tests/test_exact_outputs.py"),
    ("warnings annotated as ::notice", "promptlint/reporters/github.py",
     'Severity.WARNING: "warning", Severity.INFO: "notice"', 'Severity.WARNING: "notice", Severity.INFO: "notice"',
     "tests/test_exact_outputs.py"),
    ("suppression on the last line of a multi-line finding ignored", "promptlint/suppressions.py",
     "(where, finding.location.end_line)]", "(where, finding.location.line)]",
     "tests/test_integrations_suppressions.py"),
    ("baseline fingerprint keeps the numbers of a message", "promptlint/engine.py",
     're.sub(r"\\d[\\d,]*", "#", finding.message)', "finding.message", "tests/test_integrations_baseline.py"),
    ("an exception in the evaluator reads as a per-file input error", "promptlint/parallel.py",
     'return internal_error(module.display, exc, "evaluating the module")',
     'return FileError(module.display, f"analysis stopped early: {exc}")', "tests/test_internal_errors.py"),
    ("exit code ignores the fail level", "promptlint/cli.py",
     "f.severity.rank >= fail_on.rank", "f.severity.rank >= 0", "tests/test_exact_outputs.py"),
]


def pytest(root: Path, tests: list[str]) -> bool:
    """Whether the tests pass in the copy at ``root`` (its own promptlint comes first on the path)."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests],
                          cwd=root, capture_output=True, text=True)
    return done.returncode == 0


def main() -> int:
    failures = 0
    with tempfile.TemporaryDirectory(prefix="promptlint-mutants-") as scratch:
        root = Path(scratch)
        for name in ("promptlint", "tests", "fixtures", "rules", "verifier", "pyproject.toml"):
            source = REPO / name
            if source.is_dir():
                shutil.copytree(source, root / name, ignore=shutil.ignore_patterns("__pycache__", ".promptlint_cache"))
            else:
                shutil.copy2(source, root / name)
        # Control: unmutated, every test file passes, so a failure below is the mutant's doing.
        if not pytest(root, sorted({tests for *_, tests in MUTANTS})):
            print("the unmutated copy fails its tests: fix them first")
            return 2
        for description, relative, original, mutated, tests in MUTANTS:
            target = root / relative
            text = target.read_text(encoding="utf-8")
            if text.count(original) != 1:
                print(f"STALE    {description}: the original text is no longer in {relative}")
                failures += 1
                continue
            target.write_text(text.replace(original, mutated), encoding="utf-8")
            killed = not pytest(root, [tests])
            target.write_text(text, encoding="utf-8")
            failures += not killed
            print(f"{'killed  ' if killed else 'SURVIVED'} {description} ({tests})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
