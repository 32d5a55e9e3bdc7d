"""Which files an analysis looks at: Python sources, prompt templates and model/server configs.

Respects the configured excludes and, inside a git work tree, ``.gitignore`` (through real git).
Never follows a symbolic link out of the project or around a loop, and never opens anything but
a regular file (a named pipe called ``x.py`` would block a reader forever).
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from promptlint.config import Config
from promptlint.model import FileError

DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".venv", "venv", ".env", "env", "node_modules", "__pycache__", ".tox", ".nox",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".promptlint_cache", "build", "dist", "site-packages",
    ".eggs", "*.egg-info",
)
# Test code is skipped unless `check-tests` is set: its prompts are built from fixtures and fakes,
# never served, so a bust there costs nothing; evaluating it was a third of the time on the larger
# bench/wild trees (skyvern, swarms) for no finding.
TEST_FOLDERS = ("test", "tests", "testing")
TEST_FILES = ("test_*.py", "*_test.py", "conftest.py")
TEMPLATE_SUFFIXES = (".jinja", ".j2", ".jinja2")
LAUNCH_NAMES = ("Dockerfile", "docker-compose.yml", "docker-compose.yaml", "compose.yml", "compose.yaml",
                "Procfile", "Makefile")
LAUNCH_SUFFIXES = (".sh", ".yaml", ".yml", ".service")
MAX_CONFIG_BYTES = 1_000_000


@dataclass
class Discovered:
    python: list[Path] = field(default_factory=list)
    other: list[Path] = field(default_factory=list)  # templates, tokenizer configs, launch scripts
    notebooks: list[Path] = field(default_factory=list)  # Jupyter .ipynb (promptlint.notebooks)
    errors: list[FileError] = field(default_factory=list)
    tests_skipped: int = 0  # test folders and files left out (`check-tests` off), for the summary


def is_test_path(path: str) -> bool:
    """Test code, by a project-relative path with `/` separators (also how a checked test file's
    definitions are kept from voting on what a name does, see ``summaries.infer_wrappers``)."""
    *folders, name = path.split("/")
    return any(_test_name(folder, True) for folder in folders) or _test_name(name, False)


_TEST_FILE = re.compile("|".join(fnmatch.translate(glob) for glob in TEST_FILES))  # one match per file walked


def _test_name(name: str, folder: bool) -> bool:
    return name in TEST_FOLDERS if folder else _TEST_FILE.match(name) is not None


def is_other_candidate(path: Path) -> bool:
    name = path.name
    return (name == "tokenizer_config.json" or name.endswith(TEMPLATE_SUFFIXES) or name in LAUNCH_NAMES
            or name.endswith(LAUNCH_SUFFIXES))


def _wanted(path: Path) -> bool:
    return path.suffix in (".py", ".ipynb") or is_other_candidate(path)


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
        # A test folder named on the command line is walked whole, as a named test file is read.
        named_tests = not config.check_tests and _inside_tests(start_abs, root)
        walker = _Excluder(root, replace(config, check_tests=True)) if named_tests else excluder
        _walk(start_abs, root, walker, ignored, found, seen, cwd)
    return found


def _inside_tests(folder: Path, root: Path) -> bool:
    try:
        relative = folder.relative_to(root).as_posix()
    except ValueError:
        return False
    return relative != "." and is_test_path(relative + "/")


def find_notebooks(paths: list[Path], config: Config, cwd: Path) -> list[Path]:
    """The Jupyter notebooks ``discover`` would find (its per-file errors are the engine's to
    report). git is asked about ``.gitignore`` only when there is a notebook: most projects have
    none, and this runs on every check."""
    found = discover(paths, replace(config, respect_gitignore=False), cwd)
    notebooks = found.notebooks
    if notebooks and config.respect_gitignore:
        ignored = git_ignored_filter(config.root.resolve())
        if ignored is not None:
            named = {Path(os.path.abspath(cwd / p)) for p in paths}
            notebooks = [n for n in notebooks if n in named or not ignored(n)]
    return notebooks


def force_excluded(path: Path, config: Config, cwd: Path) -> bool:
    """Whether a file named explicitly (pre-commit, an editor, ``--stdin-filename``) is excluded by
    the configuration (``exclude``, ``extend-exclude``, the built-in folders) or by ``.gitignore``:
    what ``--force-exclude`` applies, to a named folder as well (the project root never is)."""
    root = config.root.resolve()
    absolute = Path(os.path.abspath(cwd / path))
    is_dir = absolute.is_dir()
    excluder = _Excluder(root, config)
    if absolute.resolve() == root:
        return False
    if excluder.excluded(absolute, is_dir=is_dir):
        return True
    try:
        inside = absolute.relative_to(root)
    except ValueError:
        inside = None
    if inside is not None:
        folder = root
        for part in inside.parts[:-1]:
            folder = folder / part
            if excluder.excluded(folder, is_dir=True):
                return True
    if config.respect_gitignore:
        ignored = git_ignored_filter(root)
        # git lists an ignored folder, not its files: for a folder, ask about a name inside it.
        probes = [p / "_" if is_dir else p for p in (absolute, absolute.resolve())]
        if ignored is not None and any(ignored(p) for p in probes):
            return True
    return False


def _walk(folder: Path, root: Path, excluder: _Excluder, ignored: Callable[[Path], bool] | None,
          found: Discovered, seen: set[Path], cwd: Path) -> None:
    """Depth-first, in name order; directory links are not followed. ``scandir`` tells regular
    files from the rest without a ``stat`` per file."""
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError as exc:
        found.errors.append(FileError(_rel(folder, cwd), f"cannot list folder: {exc.strerror or exc}"))
        return
    folders = []
    for entry in entries:
        path = folder / entry.name
        if entry.is_dir(follow_symlinks=False):
            if excluder.configured(path, is_dir=True):
                continue
            if excluder.test_code(path, is_dir=True):
                found.tests_skipped += 1
            else:
                folders.append(path)
            continue
        if not _wanted(path) or excluder.configured(path, is_dir=False) or (ignored is not None and ignored(path)):
            continue
        if excluder.test_code(path, is_dir=False):
            found.tests_skipped += 1
            continue
        if entry.is_file(follow_symlinks=False):
            _add_file(path, found, seen)  # a regular file, not a link: nothing more to check
        else:
            _add_checked(path, root, found, seen, cwd)
    for sub in folders:
        _walk(sub, root, excluder, ignored, found, seen, cwd)


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
    elif path.suffix == ".ipynb":
        found.notebooks.append(path)
    elif is_other_candidate(path):
        found.other.append(path)


def _rel(path: Path, cwd: Path) -> str:
    try:
        return os.path.relpath(path, cwd)
    except ValueError:
        return str(path)


class _Excluder:
    """The configured and default exclude patterns, matched on the name and the project path
    (each pattern also excludes everything below a matching folder). Compiled into one regular
    expression per kind: a large tree has thousands of folders."""

    def __init__(self, root: Path, config: Config) -> None:
        self.root = root
        file_patterns = tuple(p.rstrip("/") for p in (*config.exclude, *config.extend_exclude))
        dir_patterns = tuple(p.rstrip("/") for p in DEFAULT_EXCLUDES) + file_patterns
        self.files = _compiled(file_patterns)
        self.dirs = _compiled(dir_patterns)
        self.skip_tests = not config.check_tests

    def excluded(self, path: Path, is_dir: bool) -> bool:
        return self.configured(path, is_dir) or self.test_code(path, is_dir)

    def test_code(self, path: Path, is_dir: bool) -> bool:
        """Test code (by its own name: a walk never enters a test folder), left out unless
        `check-tests` is set."""
        return self.skip_tests and _test_name(path.name, is_dir)

    def configured(self, path: Path, is_dir: bool) -> bool:
        """Excluded by the configuration or the built-in folders."""
        compiled = self.dirs if is_dir else self.files
        if compiled is None:
            return False
        name_pattern, relative_pattern, prefixes = compiled
        if name_pattern.match(path.name):
            return True
        relative = self._relative(path)
        return relative_pattern.match(relative) is not None or relative.startswith(prefixes)

    def _relative(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()  # walked paths are under the resolved root
        except ValueError:
            pass
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except (ValueError, OSError, RuntimeError):
            return path.name


def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str], tuple[str, ...]] | None:
    """fnmatch on the name, on the relative path, and on anything below it, as one regex each."""
    if not patterns:
        return None
    names = re.compile("|".join(fnmatch.translate(p) for p in patterns))
    relatives = re.compile("|".join(fnmatch.translate(q) for p in patterns for q in (p, p + "/*")))
    return names, relatives, tuple(p + "/" for p in patterns)


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
