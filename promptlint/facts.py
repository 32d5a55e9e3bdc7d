"""The cheap first pass over every Python file: what it imports, whether it pins a chat-template
date, its content hash. Kept in the cache by path and validated by ``stat``, so an unchanged
file is not even read on the next run; then the entry modules (those that can send an LLM
request) follow from these facts alone.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Collection, Iterable
from dataclasses import replace
from operator import attrgetter
from pathlib import Path

from promptlint.analysis.index import class_bases_in_text, module_names_for
from promptlint.cache import Cache, FileFacts, sha256_bytes
from promptlint.checks.pc009_sliding_history_window import may_cut_history
from promptlint.knowledge import (
    ROLE_MARKER,
    SYSTEM_ROLE_SETTING_WORD,
    Knowledge,
    builtin_callback_types,
    builtin_http_paths,
    builtin_system_keywords,
    forwarded_positions,
)
from promptlint.prefilter import imported_modules, package_of, relevant_files

DATE_PIN_WORDS = ("date_string", "VLLM_SYSTEM_START_DATE")
# The first pass reads modules up to this size (a 2 MB module of few-shot examples is ordinary);
# the analysis then applies `max-file-bytes` and reports what it skips.
MAX_PYTHON_FACT_BYTES = 64_000_000
UNREADABLE = FileFacts((0, 0, 0), None, False, "", (), False)
# Possessive: a word not followed by "(" is given up at once instead of backtracking through it.
CALLED_ASCII = re.compile(r"\b(\w++)\s*+\(", re.ASCII)
CALLED_UNICODE = re.compile(r"\b(\w++)\s*+\(")
# {"role": "system"}, role=MessageRole.SYSTEM, a keyword naming system content
# (rules/prompt_sinks.yaml: system_keywords), a parameter annotated with a request type a model
# callback rewrites (request_system) or a provider's chat endpoint (rules/llm_calls.yaml:
# http_paths): a superset of what reach.called_names marks with ROLE_MARKER, from the text alone.
ROLE_KEY = re.compile(r"""\brole["']?\s*[:=]\s*(?:["'](?:system|developer)["']|\w+\.(?:SYSTEM|DEVELOPER|system|developer)\b"""
                      r"|(?:\w+\.)*(?i:" + SYSTEM_ROLE_SETTING_WORD + r")\b)"
                      r"|\b(?:" + "|".join(map(re.escape, builtin_system_keywords())) + r")\s*=[^=]"
                      r"|:\s*(?:\w+\.)*(?:" + "|".join(map(re.escape, builtin_callback_types())) + r")\b"
                      r"|" + "|".join(map(re.escape, builtin_http_paths())))


# A function handed to a call that runs it (rules/llm_calls.yaml forwarders): its last name, after
# the arguments before it (`loop.run_in_executor(None, self.client.chat.completions.create, ...)`),
# also inside `functools.partial(f, ...)`.
FORWARDERS = forwarded_positions()
FORWARDED = tuple(re.compile(
    r"\b(?:" + "|".join(sorted(re.escape(name) for name, at in FORWARDERS.items() if at == position)) + r")"
    + r"\s*\(\s*" + r"[^,()]*,\s*" * position + r"(?:(?:functools\.)?partial\s*\(\s*)?(?:[\w.]*\.)?(\w+)\s*[,)]")
    for position in sorted(set(FORWARDERS.values())))


def sorted_paths(paths: Iterable[Path]) -> list[Path]:
    """``sorted(paths)``, in the same order, by each path's parts: a path's ``<`` builds its parts
    again on every comparison, and a warm run sorts the project's files several times."""
    return sorted(paths, key=_parts)


_parts = attrgetter("parts")


def relative_key(path: Path, root: Path) -> str:
    """``path`` relative to ``root``, with forward slashes: the cache's name for a file."""
    text, base = str(path), str(root)
    if text.startswith(base) and text[len(base):len(base) + 1] == os.sep:
        return text[len(base) + 1:].replace(os.sep, "/")  # the common case, without relpath's cost
    return Path(os.path.relpath(path, root)).as_posix()


FactsTask = tuple[Path, str, "FileFacts | None"]  # a file, its package, its stored facts


def collect_facts(python_files: list[Path], root: Path, names: dict[Path, list[str]], cache: Cache | None,
                  compute: Callable[[list[FactsTask]], list[FileFacts]] | None = None) -> dict[Path, FileFacts]:
    """Each file's facts: the stored ones when its ``stat`` is unchanged, else computed by
    ``compute`` (file_facts of each task; the engine spreads a large batch over its workers)."""
    facts: dict[Path, FileFacts] = {}
    changed: list[FactsTask] = []
    for path in python_files:
        package = package_of(path, names[path])
        known = cache.files.get(relative_key(path, root)) if cache is not None else None
        if known is not None and known.package == package and known.signature == _signature(path):
            facts[path] = known
        else:
            changed.append((path, package, known))
    computed = compute(changed) if compute is not None else [file_facts(*task) for task in changed]
    facts.update((path, current) for (path, _, _), current in zip(changed, computed))
    if cache is not None:
        for path in python_files:
            current = facts[path]
            cache.set_file(relative_key(path, root), current)
            if current.called is not None and current.sha is not None:
                cache.set_called(current.sha, current.called)
    return {path: facts[path] for path in python_files}


def _signature(path: Path) -> tuple[int, int, int] | None:
    try:
        return _signature_of(os.stat(path))
    except OSError:
        return None


def _signature_of(info: os.stat_result) -> tuple[int, int, int]:
    """What says a file is unchanged without reading it."""
    return info.st_mtime_ns, info.st_size, info.st_ino


def file_facts(path: Path, package: str, known: FileFacts | None) -> FileFacts:
    """Facts of one changed file (collect_facts keeps the unchanged ones); from ``known``, its
    stored facts, only the definitions hash survives, and only if the content is the same."""
    try:
        info = os.stat(path)
    except OSError:
        return UNREADABLE
    signature = _signature_of(info)
    if not stat.S_ISREG(info.st_mode):
        return UNREADABLE
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return replace(UNREADABLE, signature=signature)
    sha = sha256_bytes(data)
    definitions = known.definitions_hash if known is not None and known.sha == sha else None
    if len(data) > MAX_PYTHON_FACT_BYTES or b"\x00" in data:
        return FileFacts(signature, sha, False, package, (), False, False, definitions)
    text = data.decode("utf-8", errors="replace")
    called = called_names_in_text(text)
    return FileFacts(signature, sha, True, package, tuple(sorted(imported_modules(text, package))),
                     any(word in text for word in DATE_PIN_WORDS), _maybe_directive().search(text) is not None,
                     definitions, called, role=ROLE_MARKER in called, history_cut=may_cut_history(text),
                     classes=class_bases_in_text(text))


def called_names_of(path: Path, facts: FileFacts, cache: Cache | None) -> tuple[str, ...]:
    """The names a file calls: from its facts, else the cache (by content), else the file itself."""
    if facts.called is not None:
        return facts.called
    stored = cache.called(facts.sha) if cache is not None and facts.sha is not None else None
    if stored is None:
        try:
            stored = called_names_in_text(path.read_bytes().decode("utf-8", errors="replace"))
        except OSError:
            stored = ()
        if cache is not None and facts.sha is not None:
            cache.set_called(facts.sha, stored)
    return stored


def called_names_in_text(text: str) -> tuple[str, ...]:
    """Names followed by "(" (calls, but also definitions and names in strings: a superset), and
    the functions handed to a call that runs them (`asyncio.to_thread(client.chat.completions.create,
    ...)`: `create`)."""
    pattern = CALLED_ASCII if text.isascii() else CALLED_UNICODE  # the ASCII scan is 2.5 times faster
    names = set(pattern.findall(text))
    if not names.isdisjoint(FORWARDERS):
        for forwarded in FORWARDED:
            names.update(forwarded.findall(text))
    if ROLE_KEY.search(text):
        names.add(ROLE_MARKER)
    return tuple(sorted(names))


def _maybe_directive() -> re.Pattern[str]:
    from promptlint.suppressions import (
        MAYBE_DIRECTIVE,  # imported late: suppressions imports the engine
    )

    return MAYBE_DIRECTIVE


def module_names(python_files: list[Path], root: Path) -> dict[Path, list[str]]:
    chains: dict[Path, list[str]] = {}
    return {path: module_names_for(path, root, chains) for path in python_files}


def entry_paths(facts: dict[Path, FileFacts], names: dict[Path, list[str]], requested: set[Path],
                knowledge: Knowledge, role_builders: Collection[Path] = ()) -> list[Path]:
    """Files that import an LLM SDK, a framework with assembly points or a declared wrapper,
    directly or through project modules; files that build role-tagged messages; plus requested
    files that cannot be read as text, so the parser reports why."""
    readable = {path: f.imports for path, f in facts.items() if f.text_ok}
    unreadable = {path for path, f in facts.items() if not f.text_ok and path in requested}
    relevant = relevant_files(readable, names, set(knowledge.trigger_words))
    return sorted_paths({*relevant, *role_builders, *unreadable})
