from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"


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
