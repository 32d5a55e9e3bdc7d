"""Which files an analysis looks at: Python sources, prompt templates and model/server configs.

Respects the configured excludes and, inside a git work tree, ``.gitignore`` (through real git).
Never follows a symbolic link out of the project or around a loop.
"""

from __future__ import annotations

import fnmatch
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from promptlint.config import Config
from promptlint.model import FileError

DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".venv", "venv", ".env", "env", "node_modules", "__pycache__", ".tox", ".nox",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".promptlint_cache", "build", "dist", "site-packages",
    ".eggs", "*.egg-info",
)
TEMPLATE_SUFFIXES = (".jinja", ".j2", ".jinja2")
LAUNCH_NAMES = ("Dockerfile", "docker-compose.yml", "docker-compose.yaml", "compose.yml", "compose.yaml",
                "Procfile", "Makefile")
LAUNCH_SUFFIXES = (".sh", ".yaml", ".yml", ".service")
MAX_CONFIG_BYTES = 1_000_000


@dataclass
class Discovered:
    python: list[Path] = field(default_factory=list)
    other: list[Path] = field(default_factory=list)  # templates, tokenizer configs, launch scripts
    errors: list[FileError] = field(default_factory=list)


def is_other_candidate(path: Path) -> bool:
    name = path.name
    return (name == "tokenizer_config.json" or name.endswith(TEMPLATE_SUFFIXES) or name in LAUNCH_NAMES
            or name.endswith(LAUNCH_SUFFIXES))


def discover(paths: list[Path], config: Config, cwd: Path) -> Discovered:
    found = Discovered()
    root = config.root.resolve()
    seen: set[Path] = set()
    ignored = git_ignored_filter(root) if config.respect_gitignore else None
    for start in paths:
        start_abs = (cwd / start).resolve() if not start.is_absolute() else start.resolve()
        if start_abs.is_file():
            _add_file(start_abs, found, seen)
            continue
        for folder, dirnames, filenames in os.walk(start_abs, followlinks=False):
            here = Path(folder)
            dirnames[:] = sorted(d for d in dirnames if not _excluded(here / d, root, config, is_dir=True))
            for name in sorted(filenames):
                path = here / name
                if _excluded(path, root, config, is_dir=False):
                    continue
                if ignored is not None and ignored(path):
                    continue
                _add_link_checked(path, root, found, seen, cwd)
    return found


def _add_link_checked(path: Path, root: Path, found: Discovered, seen: set[Path], cwd: Path) -> None:
    if path.is_symlink():
        try:
            target = path.resolve(strict=True)
        except (OSError, RuntimeError):
            found.errors.append(FileError(_rel(path, cwd), "broken or looping symbolic link; skipped"))
            return
        if root not in target.parents and target != root:
            found.errors.append(FileError(_rel(path, cwd), "symbolic link leads outside the project; skipped"))
            return
        path = target
    _add_file(path, found, seen)


def _add_file(path: Path, found: Discovered, seen: set[Path]) -> None:
    if path in seen:
        return
    seen.add(path)
    if path.suffix in (".py", ".pyi") and path.suffix != ".pyi":
        found.python.append(path)
    elif is_other_candidate(path):
        found.other.append(path)


def _rel(path: Path, cwd: Path) -> str:
    try:
        return os.path.relpath(path, cwd)
    except ValueError:
        return str(path)


def _excluded(path: Path, root: Path, config: Config, is_dir: bool) -> bool:
    name = path.name
    patterns = (*DEFAULT_EXCLUDES, *config.exclude, *config.extend_exclude) if is_dir else \
        (*config.exclude, *config.extend_exclude)
    try:
        relative = path.resolve().relative_to(root).as_posix() if path.exists() else name
    except (ValueError, OSError):
        relative = name
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(relative, pattern) or \
                fnmatch.fnmatch(relative, pattern + "/*") or relative.startswith(pattern + "/"):
            return True
    return False


def git_ignored_filter(root: Path):  # type: ignore[no-untyped-def]
    """A predicate for files git ignores in ``root``'s work tree (None outside git)."""
    try:
        top = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"], capture_output=True,
                             text=True, timeout=10)
        if top.returncode != 0:
            return None
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--others", "--ignored", "--exclude-standard",
             "--directory"], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    base = Path(top.stdout.strip())
    raw = [p.decode("utf-8", "replace") for p in listed.stdout.split(b"\0") if p]
    ignored_dirs = tuple(str(base / p) + "/" for p in raw if p.endswith("/"))
    ignored_files = {base / p for p in raw if not p.endswith("/")}

    def ignored(path: Path) -> bool:
        text = str(path)
        return path in ignored_files or text.startswith(ignored_dirs)

    return ignored


def read_small_text(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\x00" in data:
        return None
    return data.decode("utf-8", errors="replace")
