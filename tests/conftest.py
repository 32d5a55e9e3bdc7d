from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"


# A program's SYSTEM placeholder with a clock before its fixed RULES: the INVALID form of examples
# whose VALID form is RULES alone (see with_and_without_clock).
STAMPED = 'f"Now: {datetime.now()}\\n" + RULES'


def request_findings(root: Path, config: object = None) -> list[tuple[int, str, str, str]]:
    """(line, rule, severity, API) of each finding on ``root``, which must analyze without errors."""
    from promptlint.config import Config
    from promptlint.engine import analyze

    result = analyze([root], config or Config(root=root, cache_dir=None), cwd=root)  # type: ignore[arg-type]
    assert not result.errors, result.errors
    return [(f.location.line, f.rule, f.severity.value, f.call_site.api) for f in result.findings]


def with_and_without_clock(tmp_path: Path, program: str) -> tuple[list[tuple[int, str, str, str]], ...]:
    """The findings of ``program`` (one app.py) with its SYSTEM placeholder a clock before RULES
    (INVALID), then RULES alone (VALID)."""
    return tuple(request_findings(write_tree(tmp_path / name, {"app.py": program.replace("SYSTEM", system)}))
                 for name, system in (("invalid", STAMPED), ("valid", "RULES")))


def write_tree(root: Path, files: dict[str, str] | str) -> Path:
    """Write an example (a single app.py source, or a name -> text mapping) under ``root``."""
    if isinstance(files, str):
        files = {"app.py": files}
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip("\n"), encoding="utf-8")
    return root


def run_cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real console entry point in a subprocess, as a user would."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable, "-m", "promptlint", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def tree(tmp_path: Path):  # type: ignore[no-untyped-def]
    def make(files: dict[str, str] | str) -> Path:
        return write_tree(tmp_path, files)

    return make
