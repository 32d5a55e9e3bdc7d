"""The persistent cache: per-file facts and per-entry-module results, stored under the project.

Layout (``<project>/.promptlint_cache/``, git-ignored by a ``.gitignore`` of ``*`` inside it)::

    <namespace>/state.json        per-file facts (keyed by path, validated by stat and sha256), the
                                  last reach answer, and each entry module's layouts and errors with
                                  the content hash of every file and the resolution of every module
                                  name its evaluation used (its dependencies)
    <namespace>/definitions.json  each parsed module's definitions and the names they call, by hash
    <namespace>/called.json       the names each file's text calls, by content hash
    (the last two are read only when the reach has to be computed again)
    <namespace>/modules.json      results of the rules that read a module's code rather than a
                                  prompt layout (PC009), by path and content hash
    <namespace>/tokens.json       token counts of texts the estimates measured, by tokenizer and
                                  a hash of the text (a warm run need not load the tokenizer)

The namespace is a hash of the promptlint code, the knowledge (built-in and configured) and
everything else that changes results, so a new version or a changed configuration never reads
old results. Every write is a complete file written beside its target and renamed over it, so a
reader sees the old or the new file, never half of one; concurrent runs at worst redo work.
Anything unreadable, corrupt or of an unexpected shape is ignored and rebuilt. Data is JSON,
decoded only into promptlint's own record types: a hostile cache cannot run code.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from promptlint import __version__, model
from promptlint.config import ConfigError

FORMAT = 1
_UMASK = os.umask(0o022)
os.umask(_UMASK)
KEEP_NAMESPACES = 4  # older namespaces (other versions or configurations) are removed


# --- hashing ---------------------------------------------------------------------------------


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def stable_hash(*parts: object) -> str:
    """A hash of plain data that is the same in every process (sets are sorted first: their
    iteration order changes with Python's per-process string hashing)."""
    return sha256_bytes(repr(canonical(parts)).encode("utf-8", "surrogatepass"))[:32]


def canonical(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, *((f.name, canonical(getattr(value, f.name))) for f in dataclasses.fields(value)))
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return ("dict", *sorted((repr(canonical(k)), canonical(v)) for k, v in value.items()))
    if isinstance(value, (set, frozenset)):
        return ("set", *sorted(repr(canonical(v)) for v in value))
    if isinstance(value, (list, tuple)):
        return tuple(canonical(v) for v in value)
    if isinstance(value, Path):
        return str(value)
    return value


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """The version plus the size and mtime of every source and rule file of promptlint itself:
    results computed by other code are never reused, also between releases during development."""
    package = Path(__file__).resolve().parent
    files = sorted([*package.rglob("*.py"), *package.parent.joinpath("rules").glob("*.yaml"),
                    *package.joinpath("_rules").glob("*.yaml")])
    stats = []
    for path in files:
        try:
            stat = path.stat()
        except OSError:
            continue
        stats.append((str(path.relative_to(package.parent)), stat.st_size, stat.st_mtime_ns))
    return stable_hash(__version__, FORMAT, stats)


# --- JSON codec for promptlint's frozen records ------------------------------------------------

_RECORDS: dict[str, type] = {
    name: obj for name, obj in vars(model).items()
    if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__module__ == model.__name__
}
_ENUMS: dict[str, type[enum.Enum]] = {
    name: obj for name, obj in vars(model).items()
    if isinstance(obj, type) and issubclass(obj, enum.Enum) and obj.__module__ == model.__name__
}


class CacheFormatError(ValueError):
    """A cached document does not decode into promptlint's records."""


def encode(value: Any) -> Any:
    """Records become ``{"_": type, field: value}`` (fields at their default are left out),
    enums ``{"~": type, "v": value}``, tuples lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {"_": type(value).__name__}
        for item in dataclasses.fields(value):
            current = getattr(value, item.name)
            if item.default is not dataclasses.MISSING and current == item.default:
                continue
            out[item.name] = encode(current)
        return out
    if isinstance(value, enum.Enum):
        return {"~": type(value).__name__, "v": value.value}
    if isinstance(value, (tuple, list)):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        return {"{": [[encode(k), encode(v)] for k, v in value.items()]}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"cannot cache a {type(value).__name__}")


def decode(data: Any) -> Any:
    if isinstance(data, list):
        return tuple(decode(item) for item in data)
    if isinstance(data, dict):
        if "_" in data:
            record = _RECORDS.get(data["_"])
            if record is None:
                raise CacheFormatError(f"unknown record {data['_']!r}")
            try:
                return record(**{k: decode(v) for k, v in data.items() if k != "_"})
            except TypeError as exc:
                raise CacheFormatError(str(exc)) from None
        if "~" in data:
            kind = _ENUMS.get(data["~"])
            if kind is None:
                raise CacheFormatError(f"unknown enum {data['~']!r}")
            try:
                return kind(data.get("v"))
            except ValueError as exc:
                raise CacheFormatError(str(exc)) from None
        if "{" in data:
            return {decode(k): decode(v) for k, v in data["{"]}
        raise CacheFormatError("unexpected object")
    return data


# --- safe files ------------------------------------------------------------------------------


def inside(path: Path, root: Path) -> bool:
    """Whether ``path``, with every symbolic link resolved, lies inside ``root``."""
    real, real_root = os.path.realpath(path), os.path.realpath(root)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def atomic_write(path: Path, data: bytes, root: Path) -> None:
    """Write a complete file beside ``path`` and rename it over ``path``; only inside ``root``."""
    if not inside(path.parent, root):
        raise PermissionError(f"refusing to write outside the project: {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, 0o666 & ~_UMASK)  # mkstemp's 0600 would surprise a shared checkout
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def read_json(path: Path) -> Any:
    """A cached document, or None when it is missing, unreadable or corrupt."""
    try:
        with open(path, "rb") as handle:
            return json.loads(handle.read())
    except (OSError, ValueError, RecursionError):
        return None


# --- the cache -------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileFacts:
    """What the cheap first pass learns from one file; valid while its stat signature holds."""

    signature: tuple[int, int, int]  # mtime_ns, size, inode
    sha: str | None  # None: unreadable
    text_ok: bool  # small, decodable text (a candidate for the import prefilter)
    package: str  # the package its relative imports were resolved against
    imports: tuple[str, ...]
    date_pin: bool  # mentions a chat-template date pin (PC008 looks at it)
    directive: bool = False  # may hold a suppression comment (the suppression stage reads it)
    # A hash of the module's definitions and the names they call (reach analysis), once parsed;
    # the definitions themselves are stored apart (``Cache.definitions``), read only when needed.
    definitions_hash: str | None = None
    # Every name written just before a "(" anywhere in the file: a superset of the names its code
    # calls (``x.create(`` gives ``create``), so a file that cannot reach an LLM call is never parsed.
    # Stored apart, by content hash (``Cache.called``): None until needed.
    called: tuple[str, ...] | None = None
    # Builds a system message or passes a system keyword (facts.ROLE_KEY): an assembly-point
    # candidate even without an SDK import. Kept with the facts so a warm run need not load `called`.
    role: bool = False
    history_cut: bool = False  # may cut a conversation history from the front (PC009 parses it)
    # The classes it defines with the last names of their bases, "Class:Base,Other" (from the
    # text): where to look for the overrides of a base class's abstract method.
    classes: tuple[str, ...] = ()

    def to_json(self) -> list[Any]:
        return [list(self.signature), self.sha, self.text_ok, self.package, list(self.imports),
                self.date_pin, self.directive, self.definitions_hash, self.role, self.history_cut,
                list(self.classes)]

    @classmethod
    def from_json(cls, data: Any) -> FileFacts:
        signature, sha, text_ok, package, imports, date_pin, directive, definitions_hash, role, cut, classes = data
        return cls(tuple(signature), sha, bool(text_ok), str(package), tuple(imports), bool(date_pin),
                   bool(directive), definitions_hash, role=bool(role), history_cut=bool(cut),
                   classes=tuple(classes))


Definitions = tuple[tuple[str, frozenset[str], bool, tuple[tuple[int, str, str], ...]], ...]  # reach.Definition


def definitions_hash(definitions: Definitions) -> str:
    # Plain JSON of sorted names: stable across processes, and 20 times cheaper than canonical().
    text = json.dumps([[name, sorted(calls), bool(plain), [list(f) for f in flows]]
                       for name, calls, plain, flows in definitions])
    return sha256_bytes(text.encode("utf-8", "surrogatepass"))[:32]


@dataclass(frozen=True)
class StoredEntry:
    """One entry module's stored result, and what it depended on."""

    files: tuple[tuple[str, str | None], ...]  # (path relative to the root, content hash or None: absent)
    names: tuple[tuple[str, str | None], ...]  # (module name, the file it resolved to, or None)
    layouts: Any  # encoded; decoded only when used
    errors: Any
    complete: bool
    seconds: float


class Cache:
    """One namespace of the project's cache. ``state.json`` holds per-file facts and per-entry
    results, with the files and module names each result depends on stored once in shared tables
    (a large project's entries share most of their dependencies); the reach inputs live apart.
    ``Cache.open`` returns None when caching is off."""

    def __init__(self, root: Path, directory: Path, namespace: str) -> None:
        self.root = root
        self.directory = directory
        self.folder = directory / namespace
        self._state: dict[str, Any] | None = None
        self._files: dict[str, FileFacts] = {}
        self._definitions: dict[str, Any] | None = None  # by definitions hash, loaded on demand
        self._definitions_dirty = False
        self._called: dict[str, Any] | None = None  # by content hash, loaded on demand
        self._called_dirty = False
        self.reach: dict[str, Any] | None = None  # the last reach result and the input it was for
        self._modules: dict[str, Any] | None = None  # module rule results by key, loaded on demand
        self._modules_used: set[str] = set()
        self._modules_dirty = False
        self._token_counts: tuple[str, dict[str, int]] | None = None  # as read or last written
        self._bound: dict[str, Any] | None = None  # entry key -> names read by module, loaded on demand
        self._bound_tables: tuple[list[Any], list[Any], list[Any]] = ([], [], [])
        self._reach_inputs: dict[str, Any] | None = None  # what the reach read of each file, loaded on demand
        self._reach_inputs_dirty = False
        self._bound_dirty = False
        self._entries: dict[str, StoredEntry] = {}
        self._used: set[str] = set()
        self._new_entries: set[str] = set()
        self._changed_files: set[str] = set()
        self._dirty = False
        self.writable = True

    @classmethod
    def open(cls, root: Path, cache_dir: str | None, *key: object) -> Cache | None:
        if not cache_dir:
            return None
        directory = Path(cache_dir) if Path(cache_dir).is_absolute() else root / cache_dir
        if not inside(directory, root):
            raise ConfigError(f"cache-dir '{cache_dir}' must be inside the project ({root}); "
                              "use --no-cache to run without one")
        return cls(root, directory, stable_hash(code_fingerprint(), *key)[:20])

    def _load(self) -> None:
        if self._state is not None:
            return
        data = read_json(self.folder / "state.json")
        self._state = data if isinstance(data, dict) and data.get("format") == FORMAT else {}
        try:
            self._files = {name: FileFacts.from_json(raw) for name, raw in self._state.get("facts", {}).items()}
        except (TypeError, ValueError, AttributeError):
            self._files, self._state["facts"] = {}, {}
        try:
            self._entries = _decode_entries(self._state)
        except (TypeError, ValueError, KeyError, IndexError, AttributeError):
            self._entries = {}
            self._state.update(entries={}, dep_files=[], dep_names=[])
        reach = self._state.get("reach")
        self.reach = reach if isinstance(reach, dict) else None

    # per-file facts

    @property
    def files(self) -> dict[str, FileFacts]:
        self._load()
        return self._files

    def set_file(self, name: str, facts: FileFacts) -> None:
        facts = dataclasses.replace(facts, called=None)  # kept apart (set_called)
        if self.files.get(name) != facts:
            self.files[name] = facts
            self._changed_files.add(name)
            self._dirty = True

    def retain_files(self, names: set[str]) -> None:
        """Forget files that no longer exist, so the table does not grow forever."""
        stale = [name for name in self.files if name not in names]
        for name in stale:
            del self.files[name]
        self._dirty = self._dirty or bool(stale)

    # definitions (for the reach analysis): a separate file, read only when the reach changes

    def definitions(self, key: str) -> Definitions | None:
        if self._definitions is None:
            data = read_json(self.folder / "definitions.json")
            self._definitions = data.get("definitions", {}) if isinstance(data, dict) and \
                data.get("format") == FORMAT and isinstance(data.get("definitions"), dict) else {}
        raw = self._definitions.get(key)
        if isinstance(raw, tuple):  # stored by this run
            return raw
        try:
            return None if raw is None else tuple(
                (str(n), frozenset(c), bool(a), tuple((int(i), str(p), str(t)) for i, p, t in f)) for n, c, a, f in raw)
        except (TypeError, ValueError):
            return None

    def set_definitions(self, key: str, definitions: Definitions) -> None:
        self.definitions(key)  # loads the store
        assert self._definitions is not None
        if key not in self._definitions:
            # Kept as given until written: made JSON-ready here, litellm's 100,000 definitions were
            # 245,000 lists (20 MiB) held while the workers were still up (the peak); at save they are gone.
            self._definitions[key] = definitions
            self._definitions_dirty = True

    # called names (for the reach): by content hash, in their own file, read only when the reach
    # has to be computed again (they are most of the facts' size: a warm run does not load them)

    def called(self, sha: str) -> tuple[str, ...] | None:
        if self._called is None:
            data = read_json(self.folder / "called.json")
            self._called = data.get("called", {}) if isinstance(data, dict) and data.get("format") == FORMAT \
                and isinstance(data.get("called"), dict) else {}
        raw = self._called.get(sha)
        return tuple(str(name) for name in raw) if isinstance(raw, list) else None

    def set_called(self, sha: str, names: tuple[str, ...]) -> None:
        if self.called(sha) != names:
            assert self._called is not None
            self._called[sha] = list(names)
            self._called_dirty = True

    # results of the rules that read a module's code (PC009): by a key naming the path and the
    # content hash; only the results used by this run are written back

    def module_result(self, key: str) -> Any | None:
        if self._modules is None:
            data = read_json(self.folder / "modules.json")
            self._modules = data.get("modules", {}) if isinstance(data, dict) and data.get("format") == FORMAT \
                and isinstance(data.get("modules"), dict) else {}
        found = self._modules.get(key)
        if found is not None:
            self._modules_used.add(key)
        return found

    def set_module_result(self, key: str, result: Any) -> None:
        self.module_result(key)  # loads the store
        assert self._modules is not None
        self._modules[key] = result
        self._modules_used.add(key)
        self._modules_dirty = True

    # what the reach pass read of each file (promptlint/reach_inputs.py): read only when the
    # stored reach no longer matches the files' hashes

    def reach_inputs(self) -> dict[str, Any] | None:
        if self._reach_inputs is None:
            data = read_json(self.folder / "reach_inputs.json")
            self._reach_inputs = data if isinstance(data, dict) and data.get("format") == FORMAT else {}
        return self._reach_inputs or None

    def set_reach_inputs(self, inputs: dict[str, Any]) -> None:
        self._reach_inputs = {"format": FORMAT, **inputs}
        self._reach_inputs_dirty = True

    # the names an entry read in the modules it reached through imports: finer dependencies than
    # the files, in their own file, read only when a file an entry depends on has changed

    def bound(self, key: str) -> dict[str, tuple[tuple[str, str | None], ...]]:
        """For an entry: the modules (relative path) it read only by name, with those names and
        their digests then; empty when unknown (the entry then depends on the whole files)."""
        self._load_bound()
        assert self._bound is not None
        raw = self._bound.get(key)
        try:
            return {} if raw is None else {str(rel): tuple((str(n), None if d is None else str(d)) for n, d in pairs)
                                           for rel, pairs in self._bound_rows(raw)}
        except (TypeError, ValueError, IndexError, KeyError):
            return {}

    def set_bound(self, key: str, bound: list[tuple[str, tuple[tuple[str, str | None], ...]]]) -> None:
        self._load_bound()
        assert self._bound is not None
        self._bound[key] = [(rel, [tuple(pair) for pair in pairs]) for rel, pairs in bound]
        self._bound_dirty = True

    def _load_bound(self) -> None:
        """bound.json holds tables (module paths, (name, digest) pairs, rows of a path and its
        pairs) and each entry's row numbers: most entries read the same names of the same modules
        (litellm: 32,699 rows, 6,656 of them distinct), and the file is read and written whole
        on every edit (8.8 MB as nested lists then, 1.5 MB as tables)."""
        if self._bound is None:
            data = read_json(self.folder / "bound.json")
            valid = isinstance(data, dict) and data.get("format") == FORMAT and isinstance(data.get("entries"), dict) \
                and all(isinstance(data.get(table), list) for table in ("paths", "pairs", "rows"))
            self._bound = dict(data["entries"]) if valid else {}
            self._bound_tables = (data["paths"], data["pairs"], data["rows"]) if valid else ([], [], [])

    def _bound_rows(self, raw: Any) -> list[tuple[str, list[Any]]]:
        """An entry's (path, pairs): set in this run as they are, read from the file as row numbers."""
        if not raw or not isinstance(raw[0], int):
            return raw  # type: ignore[no-any-return]
        paths, pairs, rows = self._bound_tables
        return [(paths[rows[i][0]], [pairs[j] for j in rows[i][1]]) for i in raw]

    def _encoded_bound(self) -> dict[str, Any]:
        """The used entries' names as tables. Entries read from the file keep their row numbers
        and the tables are appended to (an edit re-encodes a few entries, not 1,900); when more
        than half of the rows belong to dropped entries, everything is encoded afresh."""
        assert self._bound is not None
        used = {key: raw for key, raw in self._bound.items() if key in self._used}
        kept = {key: raw for key, raw in used.items() if raw and isinstance(raw[0], int)}
        referenced = {row for raw in kept.values() for row in raw}
        paths, pairs, rows = (list(table) for table in self._bound_tables)
        if len(referenced) * 2 < len(rows):
            kept, paths, pairs, rows = {}, [], [], []
        path_ids: dict[str, int] = {}
        pair_ids: dict[tuple[str, str | None], int] = {}
        row_ids: dict[tuple[int, tuple[int, ...]], int] = {}
        entries: dict[str, list[int]] = dict(kept)
        for key, raw in used.items():
            if key in kept:
                continue
            try:
                found = []
                for path, names in self._bound_rows(raw):
                    row = (_row(path_ids, paths, path, path),
                           tuple(_row(pair_ids, pairs, (str(n), d)) for n, d in names))
                    found.append(_row(row_ids, rows, row, [row[0], list(row[1])]))
            except (TypeError, ValueError, IndexError, KeyError):
                continue  # a damaged record: the entry depends on its whole files
            entries[key] = found
        return {"format": FORMAT, "paths": paths, "pairs": pairs, "rows": rows, "entries": entries}

    # token counts, for the estimates: one tokenizer's (its identity) counts by a hash of the text

    def token_counts(self, identity: str) -> dict[str, int]:
        data = read_json(self.folder / "tokens.json")
        counts = data.get("counts") if isinstance(data, dict) and data.get("format") == FORMAT \
            and data.get("tokenizer") == identity else None
        self._token_counts = (identity, dict(counts) if isinstance(counts, dict) else {})
        return dict(self._token_counts[1])

    def set_token_counts(self, identity: str, counts: dict[str, int]) -> None:
        if self._token_counts != (identity, counts):
            self._token_counts = (identity, dict(counts))
            self._write("tokens.json", {"format": FORMAT, "tokenizer": identity, "counts": counts})

    def set_reach(self, reach: dict[str, Any]) -> None:
        self.reach = reach
        self._dirty = True

    # per-entry results

    def entry(self, key: str) -> StoredEntry | None:
        self._load()
        found = self._entries.get(key)
        if found is not None:
            self._used.add(key)
        return found

    def store_entry(self, key: str, entry: StoredEntry) -> None:
        self._load()
        self._entries[key] = entry
        self._used.add(key)
        self._new_entries.add(key)
        self._dirty = True

    # writing

    def save(self) -> None:
        """Write facts and the results used by this run (older ones are dropped)."""
        if not self.writable:
            return
        if self._definitions_dirty and self._definitions is not None:
            self._write("definitions.json", {"format": FORMAT, "definitions": {
                key: [[n, sorted(c), a, f] for n, c, a, f in stored] if isinstance(stored, tuple) else stored
                for key, stored in self._definitions.items()}})
            self._definitions_dirty = False
        if self._called_dirty and self._called is not None:
            current = {facts.sha for facts in self.files.values()}
            self._write("called.json", {"format": FORMAT,
                                        "called": {sha: v for sha, v in self._called.items() if sha in current}})
            self._called_dirty = False
        if self._modules is not None and (self._modules_dirty or set(self._modules) - self._modules_used):
            self._write("modules.json", {"format": FORMAT, "modules": {
                key: value for key, value in self._modules.items() if key in self._modules_used}})
            self._modules_dirty = False
        if self._reach_inputs_dirty and self._reach_inputs is not None:
            self._write("reach_inputs.json", self._reach_inputs)
            self._reach_inputs_dirty = False
        if self._bound_dirty and self._bound is not None:
            self._write("bound.json", self._encoded_bound())
            self._bound_dirty = False
        stale = set(self._entries) - self._used
        if not self._dirty and not stale:
            return
        self._write("state.json", {"format": FORMAT, "facts": self._facts_json(), "reach": self.reach,
                                   **self._entries_json()})
        self._dirty = False

    def _facts_json(self) -> dict[str, Any]:
        """Unchanged facts are written back as they were read: no re-encoding of thousands of
        files after a one-file change."""
        stored = (self._state or {}).get("facts", {})
        return {name: stored[name] if name in stored and name not in self._changed_files else facts.to_json()
                for name, facts in self._files.items()}

    def _entries_json(self) -> dict[str, Any]:
        """The results used by this run. Results read from the file keep their encoding and the
        shared tables; new results append rows to them. When more than half of the rows belong
        to dropped results, everything is encoded afresh."""
        state = self._state or {}
        stored, files, names = state.get("entries", {}), state.get("dep_files", []), state.get("dep_names", [])
        kept = {key: stored[key] for key in self._used if key in stored and key not in self._new_entries}
        referenced = {i for row in kept.values() for i in row[0]}
        if len(referenced) * 2 < len(files):
            return _encode_entries({key: self._entries[key] for key in self._used})
        files, names = list(files), list(names)
        file_index: dict[tuple[str, str | None], int] = {}
        name_index: dict[tuple[str, str | None], int] = {}
        for key in self._new_entries & self._used:
            entry = self._entries[key]
            file_ids = [_row(file_index, files, item) for item in entry.files]
            name_ids = [_row(name_index, names, item) for item in entry.names]
            kept[key] = [file_ids, name_ids, entry.layouts, entry.errors, entry.complete, entry.seconds]
        return {"dep_files": files, "dep_names": names, "entries": kept}

    def _write(self, name: str, document: dict[str, Any]) -> None:
        try:
            self._prepare()
            atomic_write(self.folder / name, json.dumps(document, separators=(",", ":")).encode(), self.root)
        except (OSError, ValueError, RecursionError):
            self.writable = False  # a read-only checkout, a full disk: analyze without caching

    def _prepare(self) -> None:
        if self.folder.is_dir():
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        ignore = self.directory / ".gitignore"
        if not ignore.exists():
            atomic_write(ignore, b"# Created by promptlint: its cache, never committed.\n*\n", self.root)
        tag = self.directory / "CACHEDIR.TAG"
        if not tag.exists():
            atomic_write(tag, b"Signature: 8a477f597d28d172789f06886806bc55\n"
                              b"# This directory is a cache of promptlint results.\n", self.root)
        self.folder.mkdir(exist_ok=True)
        self._prune_namespaces()

    def _prune_namespaces(self) -> None:
        namespaces = [p for p in self.directory.iterdir() if p.is_dir() and not p.is_symlink()]
        namespaces.sort(key=lambda p: p.stat().st_mtime, reverse=True)
        for old in namespaces[KEEP_NAMESPACES:]:
            shutil.rmtree(old, ignore_errors=True)


def _row(index: dict[Any, int], table: list[Any], item: Any, stored: Any = None) -> int:
    """The row number of ``item`` in a shared table, appended (as ``stored``, by default the
    item as a list) if it is new."""
    if item not in index:
        index[item] = len(table)
        table.append(list(item) if stored is None else stored)
    return index[item]


def _encode_entries(entries: dict[str, StoredEntry]) -> dict[str, Any]:
    files: dict[tuple[str, str | None], int] = {}
    names: dict[tuple[str, str | None], int] = {}
    encoded = {}
    for key, entry in entries.items():
        file_ids = [files.setdefault(item, len(files)) for item in entry.files]
        name_ids = [names.setdefault(item, len(names)) for item in entry.names]
        encoded[key] = [file_ids, name_ids, entry.layouts, entry.errors, entry.complete, entry.seconds]
    return {"dep_files": [list(item) for item in files], "dep_names": [list(item) for item in names],
            "entries": encoded}


def _decode_entries(state: dict[str, Any]) -> dict[str, StoredEntry]:
    files = [(str(rel), sha) for rel, sha in state.get("dep_files", [])]
    names = [(str(name), rel) for name, rel in state.get("dep_names", [])]
    entries = {}
    for key, (file_ids, name_ids, layouts, errors, complete, seconds) in state.get("entries", {}).items():
        entries[key] = StoredEntry(tuple(files[i] for i in file_ids), tuple(names[i] for i in name_ids),
                                   layouts, errors, bool(complete), float(seconds))
    return entries
