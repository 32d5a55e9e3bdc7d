"""Which files an analysis looks at: Python sources, prompt templates and model/server configs.

Respects the configured excludes and, inside a git work tree, ``.gitignore`` (through real git).
Never follows a symbolic link out of the project or around a loop, and never opens anything but
a regular file (a named pipe called ``x.py`` would block a reader forever).
"""

from __future__ import annotations

import fnmatch
import os
import stat
import subprocess
from collections.abc import Callable
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


def _wanted(path: Path) -> bool:
    return path.suffix == ".py" or is_other_candidate(path)


def discover(paths: list[Path], config: Config, cwd: Path) -> Discovered:
    found = Discovered()
    root = config.root.resolve()
    seen: set[Path] = set()
    ignored = git_ignored_filter(root) if config.respect_gitignore else None
    excluder = _Excluder(root, config)
    for start in paths:
        start_abs = (cwd / start).resolve()
        if not start_abs.is_dir():
            _add_checked(Path(os.path.abspath(cwd / start)), root, found, seen, cwd)
            continue
        for folder, dirnames, filenames in os.walk(start_abs, followlinks=False):
            here = Path(folder)
            dirnames[:] = sorted(d for d in dirnames if not excluder.excluded(here / d, is_dir=True))
            for name in sorted(filenames):
                path = here / name
                if not _wanted(path) or excluder.excluded(path, is_dir=False):
                    continue
                if ignored is not None and ignored(path):
                    continue
                _add_checked(path, root, found, seen, cwd)
    return found


def _add_checked(path: Path, root: Path, found: Discovered, seen: set[Path], cwd: Path) -> None:
    """Add a file after checking what it is: a link must stay inside the project and lead to a
    regular file; anything else (pipe, device, socket, loop) is reported and skipped."""
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
    elif not path.is_absolute() or ".." in path.parts:
        path = path.resolve()
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        found.errors.append(FileError(_rel(path, cwd), f"cannot read file: {exc.strerror or exc}"))
        return
    if not stat.S_ISREG(mode):
        if _wanted(path):
            found.errors.append(FileError(_rel(path, cwd), "not a regular file (pipe, device or socket); skipped"))
        return
    _add_file(path, found, seen)


def _add_file(path: Path, found: Discovered, seen: set[Path]) -> None:
    if path in seen:
        return
    seen.add(path)
    if path.suffix == ".py":
        found.python.append(path)
    elif is_other_candidate(path):
        found.other.append(path)


def _rel(path: Path, cwd: Path) -> str:
    try:
        return os.path.relpath(path, cwd)
    except ValueError:
        return str(path)


class _Excluder:
    """The configured and default exclude patterns, matched on the name and the project path."""

    def __init__(self, root: Path, config: Config) -> None:
        self.root = root
        self.file_patterns = tuple(p.rstrip("/") for p in (*config.exclude, *config.extend_exclude))
        self.dir_patterns = tuple(p.rstrip("/") for p in DEFAULT_EXCLUDES) + self.file_patterns

    def excluded(self, path: Path, is_dir: bool) -> bool:
        patterns = self.dir_patterns if is_dir else self.file_patterns
        if not patterns:
            return False
        name = path.name
        relative = self._relative(path)
        for pattern in patterns:
            if fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(relative, pattern) or \
                    fnmatch.fnmatch(relative, pattern + "/*") or relative.startswith(pattern + "/"):
                return True
        return False

    def _relative(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()  # walked paths are under the resolved root
        except ValueError:
            pass
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except (ValueError, OSError, RuntimeError):
            return path.name


def git_ignored_filter(root: Path) -> Callable[[Path], bool] | None:
    """A predicate for files git ignores in ``root``'s work tree (None outside git).

    ``git ls-files`` prints paths relative to the folder it runs in (``root``), which may be
    below the top of the work tree. When git cannot answer (not a repository, ``root`` itself
    ignored), nothing is filtered: the user asked for these files explicitly.
    """
    try:
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--others", "--ignored", "--exclude-standard",
             "--directory"], capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if listed.returncode != 0:
        return None
    raw = [p.decode("utf-8", "surrogateescape") for p in listed.stdout.split(b"\0") if p]
    ignored_dirs = tuple(str(root / p) + os.sep for p in raw if p.endswith("/"))
    ignored_files = {root / p for p in raw if not p.endswith("/")}

    def ignored(path: Path) -> bool:
        return path in ignored_files or str(path).startswith(ignored_dirs)

    return ignored


def read_small_text(path: Path) -> str | None:
    """The text of a small, regular, non-binary file (None otherwise); never blocks on a pipe."""
    try:
        with open(path, "rb", opener=_nonblocking_opener) as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CONFIG_BYTES:
                return None
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError:
        return None
    if b"\x00" in data or len(data) > MAX_CONFIG_BYTES:
        return None
    return data.decode("utf-8", errors="replace")


def _nonblocking_opener(path: str, flags: int) -> int:
    # O_NONBLOCK: opening a named pipe for reading must not wait for a writer.
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))
