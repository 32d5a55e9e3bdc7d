"""The set of modules an analysis can reach, parsed on demand and cached for the run."""

from __future__ import annotations

import itertools
import os
import stat
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from promptlint.analysis.index import (
    ModuleInfo,
    ParseFailure,
    check_syntax,
    class_bases_in_text,
    decode_source,
    module_names_for,
    parse_module,
    subclass_index,
)
from promptlint.analysis.values import MAX_UNROLL
from promptlint.model import FileError

T = TypeVar("T")
# A pseudo module name: an evaluation that asks for the subclasses of a base looks it up, so a
# class added or removed later (the engine resolves it to a digest of the list) changes the answer.
SUBCLASSES_OF = "subclasses-of:"


_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})  # hidden ones too


class Project:
    def __init__(self, root: Path, python_files: list[Path], cwd: Path, max_file_bytes: int,
                 names: dict[Path, list[str]] | None = None) -> None:
        self.root = root
        self.cwd = cwd
        self.max_file_bytes = max_file_bytes
        self.by_name: dict[str, Path] = {}
        for path in python_files:  # ``names``: module_names_for of each file, when already known
            for name in (names[path] if names is not None else module_names_for(path, root)):
                self.by_name.setdefault(name, path)
        self.python_files = python_files
        # Base name -> classes naming it (index.subclass_index); None: not known yet.
        self.subclasses: dict[str, tuple[tuple[Path, str], ...]] | None = None
        self._modules: dict[Path, ModuleInfo | None] = {}
        self.errors: dict[str, FileError] = {}
        # The module-level names an evaluation looked up in each module (TrackingProject keeps
        # them per entry, as dependencies finer than the file); None: nobody asks.
        self.names_read: defaultdict[Path, set[str]] | None = None
        self._files_by_name: dict[str, list[Path]] | None = None  # every file under the root, by name
        self._listings: dict[tuple[Path, str, str], list[Path] | None] = {}

    def display(self, path: Path) -> str:
        try:
            return os.path.relpath(path, self.cwd)
        except ValueError:
            return str(path)

    def module_at(self, path: Path) -> ModuleInfo | None:
        """Parse a file once; a file that cannot be parsed is reported once and skipped."""
        if path not in self._modules:
            self._modules[path] = self._read(path, parse_module)
        return self._modules[path]

    def check_parses(self, path: Path) -> bool:
        """Whether a file can be read and parsed, reported as module_at does, for a file that is
        not analyzed: its tree is neither built nor kept."""
        if path in self._modules:
            return self._modules[path] is not None
        if self._read(path, _syntax_checked) is None:
            self._modules[path] = None
            return False
        return True

    def report_too_large(self, path: Path, size: int) -> bool:
        """Record a file over `max-file-bytes` as skipped (a per-file error); True if it is."""
        if size <= self.max_file_bytes:
            return False
        display = self.display(path)
        self.errors[display] = FileError(display, f"file is larger than {self.max_file_bytes} bytes; skipped "
                                                  "(raise max-file-bytes to analyze it)")
        return True

    def _read(self, path: Path, parse: Callable[[str, Path, str, str], T]) -> T | None:
        display = self.display(path)
        try:
            if self.report_too_large(path, path.stat().st_size):
                return None
            source = decode_source(path.read_bytes())
            names = module_names_for(path, self.root)
            return parse(names[0] if names else path.stem, path, display, source)
        except ParseFailure as exc:
            self.errors[display] = FileError(display, str(exc))
        except OSError as exc:
            self.errors[display] = FileError(display, f"cannot read file: {exc.strerror or exc}")
        return None

    def read_text_file(self, path: Path, max_bytes: int) -> str | None:
        """A file the analyzed code reads (a prompt or config): only a regular file inside the
        project, never a link out of it (a report must not carry ~/.ssh into CI artifacts)."""
        try:
            real = path.resolve(strict=True)
            if real != self.root and self.root not in real.parents:
                return None
            info = real.stat()
            if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
                return None
            return real.read_text(encoding="utf-8", errors="replace")
        except (OSError, RuntimeError, ValueError):
            return None

    def files_ending(self, name: str) -> list[Path]:
        """The files under the root whose path ends with ``name`` (a template's name relative to a
        loader folder). The tree is listed once, by file name, skipping hidden, vendored and
        virtual-environment folders."""
        parts = Path(name).parts
        if not parts or ".." in parts or Path(name).is_absolute():
            return []
        if self._files_by_name is None:
            self._files_by_name = {}
            for folder, dirs, files in os.walk(self.root):
                dirs[:] = [d for d in dirs if d not in _SKIPPED_DIRS and not d.startswith(".")]
                for file in files:
                    self._files_by_name.setdefault(file, []).append(Path(folder) / file)
        return [p for p in self._files_by_name.get(parts[-1], ()) if p.parts[-len(parts):] == parts]

    def files_listed(self, folder: Path, method: str, pattern: str) -> list[Path] | None:
        """The files ``folder.glob(pattern)`` (or ``rglob``, ``iterdir``) lists, sorted, listed once per
        run: None for a folder outside the project, or none or more than a loop is unrolled for. Like
        ``files_ending``, a listing is not a cache dependency."""
        key = (folder, method, pattern)
        if key not in self._listings:
            self._listings[key] = self._listed(folder, method, pattern)
        return self._listings[key]

    def _listed(self, folder: Path, method: str, pattern: str) -> list[Path] | None:
        if method not in ("glob", "rglob", "iterdir") or not folder.is_absolute() \
                or (folder != self.root and self.root not in folder.parents):
            return None
        try:
            listed = folder.iterdir() if method == "iterdir" else getattr(folder, method)(pattern)
            found = sorted(path for path in itertools.islice(listed, MAX_UNROLL + 1) if path.is_file())
        except (OSError, ValueError, NotImplementedError):
            return None
        return found if 0 < len(found) <= MAX_UNROLL else None

    def module_named(self, name: str) -> ModuleInfo | None:
        path = self.by_name.get(name)
        return self.module_at(path) if path else None

    def subclass_candidates(self, base: str) -> tuple[tuple[Path, str], ...]:
        """The (file, class name) of each project class whose bases name ``base`` by its last
        name: from the first pass's index (``subclasses``, set by the engine), else from the text
        of every file, read once on the first asking (a worker the first pass started). A
        candidate's real bases are for the caller to check."""
        self.by_name.get(SUBCLASSES_OF + base)  # recorded where lookups are dependencies
        if self.subclasses is None:
            classes = {}
            for path in self.python_files:
                try:
                    with open(path, "rb") as handle:
                        data = handle.read(self.max_file_bytes + 1)
                except OSError:
                    continue
                if len(data) <= self.max_file_bytes and b"\x00" not in data:
                    classes[path] = class_bases_in_text(data.decode("utf-8", errors="replace"))
            self.subclasses = subclass_index(classes)
        return self.subclasses.get(base, ())

    def split_module(self, qualname: str) -> tuple[ModuleInfo, list[str]] | None:
        """The longest project module that prefixes ``qualname``, and the names after it."""
        parts = qualname.split(".")
        for cut in range(len(parts), 0, -1):
            name = ".".join(parts[:cut])
            if name in self.by_name:
                module = self.module_named(name)
                if module is not None:
                    return module, parts[cut:]
        return None


def _syntax_checked(_name: str, _path: Path, display: str, source: str) -> bool:
    check_syntax(source, display)
    return True
