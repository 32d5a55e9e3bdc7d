"""The analysis pipeline: discover → facts → entries → layouts → rules → filter → estimate.

``analyze`` is the one entry point the CLI, the estimator, the verifier and the reporters use.
It never imports or runs analyzed code, and a problem with one file never stops the others.

Speed (docs/performance.md): a cheap text pass over every file (cached by stat and content
hash) picks the entry modules; only those are parsed and evaluated, each on its own, in worker
processes when there is enough work; each entry's result is cached with the content hash of
every file it read, so the next run re-evaluates only what a change can affect.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from promptlint import cache as cache_store
from promptlint.analysis.project import Project
from promptlint.analysis.reach import reach_over
from promptlint.cache import Cache, FileFacts, StoredEntry
from promptlint.checks import RULES_BY_CODE, RuleContext, selected_rules
from promptlint.checks.pc008_chat_template_date import ChatTemplateDate
from promptlint.config import Config
from promptlint.discover import discover, read_small_text
from promptlint.facts import collect_facts, entry_paths, module_names, relative_key
from promptlint.knowledge import Knowledge, load_knowledge
from promptlint.model import AnalysisResult, FileError, Finding, PromptLayout, Severity
from promptlint.parallel import (
    EntryOutcome,
    EntryTask,
    LayoutCollector,
    Settings,
    Workers,
    worker_count,
)

MIN_PARALLEL_BYTES = 400_000  # below this much entry source, worker start-up costs more than it saves


def analyze(paths: list[Path], config: Config, cwd: Path | None = None) -> AnalysisResult:
    started = time.perf_counter()
    cwd = (cwd or Path.cwd()).resolve()
    root = config.root.resolve()
    knowledge = load_knowledge(config)
    requested = discover(paths, config, cwd)
    whole_project = _inside(root, paths, cwd)
    project_files = discover([root], config, cwd) if whole_project and not _is_root(root, paths, cwd) \
        else requested
    python_files = sorted({*project_files.python, *requested.python})
    cache = Cache.open(root, config.cache_dir, *_cache_key(knowledge, config, root, cwd))
    names = module_names(python_files, root)
    facts = collect_facts(python_files, root, names, cache)
    if cache is not None and whole_project:
        cache.retain_files({relative_key(p, root) for p in python_files})
    project = Project(root, python_files, cwd, config.max_file_bytes, names)
    entries = entry_paths(facts, names, set(requested.python), knowledge)
    analysis = collect_layouts(project, knowledge, entries, facts, names, cache, config)
    if cache is not None:
        cache.save()
    findings = run_rules(analysis.layouts, config)
    pins = [p for p in python_files if facts[p].date_pin]
    findings += template_findings(project, {*project_files.other, *requested.other, *pins}, config)
    findings = finalize(findings, config, [(cwd / p).resolve() for p in paths], cwd)
    errors = _errors(requested.errors, {**analysis.errors, **project.errors}, [(cwd / p).resolve() for p in paths],
                     cwd)
    failed = {e.path for e in errors} & {os.path.relpath(p, cwd) for p in requested.python}
    stats = {"seconds": time.perf_counter() - started, "files_failed": float(len(failed)), **analysis.stats}
    directive_files = tuple(str(p) for p in requested.python if facts[p].directive or not facts[p].text_ok)
    result = AnalysisResult(tuple(findings), tuple(errors), tuple(analysis.layouts), len(requested.python), stats,
                            directive_files + tuple(str(p) for p in requested.other))
    return _estimate(result, config)


def nothing_analyzed(result: AnalysisResult) -> bool:
    """Files were reported as errors and none of the requested files could be analyzed: the run
    did not do its job (exit code 2, see docs/robustness.md)."""
    return bool(result.errors) and result.files_analyzed - result.stats.get("files_failed", 0) <= 0


def _inside(root: Path, paths: list[Path], cwd: Path) -> bool:
    return all(root == (cwd / p).resolve() or root in (cwd / p).resolve().parents for p in paths)


def _is_root(root: Path, paths: list[Path], cwd: Path) -> bool:
    return bool(paths) and all((cwd / p).resolve() == root for p in paths)


def _cache_key(knowledge: Knowledge, config: Config, root: Path, cwd: Path) -> tuple[Any, ...]:
    """Everything besides file contents that changes an entry module's layouts."""
    return (knowledge, config.max_file_bytes, config.file_timeout_s, os.path.relpath(root, cwd))


# --- layouts: entry modules, cached and evaluated ----------------------------------------------


@dataclass
class LayoutAnalysis:
    layouts: list[PromptLayout]
    errors: dict[str, FileError]
    stats: dict[str, float] = field(default_factory=dict)


def collect_layouts(project: Project, knowledge: Knowledge, entries: list[Path], facts: dict[Path, FileFacts],
                    names: dict[Path, list[str]], cache: Cache | None, config: Config) -> LayoutAnalysis:
    settings = Settings(project.root, project.cwd, tuple(sorted(facts)), names, config.max_file_bytes,
                        knowledge, config.file_timeout_s)
    with Workers(settings, worker_count(config.jobs)) as workers:
        clock = time.perf_counter()
        _add_definitions(entries, facts, cache, workers, project.root)
        definitions_s = time.perf_counter() - clock
        selected, reaching_names = _reaching(entries, facts, knowledge)
        global_key = cache_store.stable_hash(sorted(reaching_names))
        keys = {path: cache_store.stable_hash(relative_key(path, project.root), facts[path].sha, selected[path],
                                              global_key) for path in entries}
        dependencies = _Dependencies(project, facts)
        outcomes: dict[Path, EntryOutcome] = {}
        if cache is not None:
            for path in entries:
                found = dependencies.outcome(path, cache.entry(keys[path]))
                if found is not None:
                    outcomes[path] = found
        tasks = [EntryTask(path, selected[path], reaching_names) for path in entries if path not in outcomes]
        clock = time.perf_counter()
        evaluated = workers.evaluate(tasks, _worth_parallel([t.path for t in tasks], facts))
        evaluate_s = time.perf_counter() - clock
    for outcome in evaluated:
        outcomes[outcome.path] = outcome
        if cache is not None:
            cache.store_entry(keys[outcome.path], dependencies.stored(outcome))
    analysis = _merge(entries, outcomes, knowledge, len(tasks))
    analysis.stats.update(definitions_seconds=definitions_s, evaluate_seconds=evaluate_s)
    return analysis


def _worth_parallel(paths: list[Path], facts: dict[Path, FileFacts]) -> bool:
    return sum(facts[p].signature[1] for p in paths) >= MIN_PARALLEL_BYTES


def _add_definitions(entries: list[Path], facts: dict[Path, FileFacts], cache: Cache | None,
                     workers: Workers, root: Path) -> None:
    """Each entry's definitions and the names they call (for the reach analysis): from the
    cache, else parsed now."""
    missing = [p for p in entries if facts[p].definitions is None and facts[p].sha is not None]
    found = workers.definitions(missing, _worth_parallel(missing, facts))
    for path, definitions in zip(missing, found):
        facts[path] = replace(facts[path], definitions=definitions or ())
        if cache is not None:
            cache.set_file(relative_key(path, root), facts[path])


def _reaching(entries: list[Path], facts: dict[Path, FileFacts], knowledge: Knowledge
              ) -> tuple[dict[Path, tuple[int, ...]], frozenset[str]]:
    """Which definitions of each entry can reach an LLM call (see analysis/reach.py)."""
    flat: list[tuple[str, Any]] = []
    spans: dict[Path, tuple[int, int]] = {}
    for path in entries:
        definitions = facts[path].definitions or ()
        spans[path] = (len(flat), len(flat) + len(definitions))
        flat += definitions
    flags, names = reach_over(flat, knowledge.api_method_names)
    selected = {path: tuple(i - start for i in range(start, end) if flags[i]) for path, (start, end) in spans.items()}
    return selected, names


def _merge(entries: list[Path], outcomes: dict[Path, EntryOutcome], knowledge: Knowledge,
           evaluated: int) -> LayoutAnalysis:
    """All entries' layouts in entry order, deduplicated as one evaluation would."""
    collector = LayoutCollector(knowledge)
    errors: dict[str, FileError] = {}
    modules: set[Path] = set()
    for path in entries:
        outcome = outcomes[path]
        for layout in outcome.layouts:
            collector.add(layout)
        for error in outcome.errors:
            errors.setdefault(error.path, error)
        modules.update(p for p in outcome.files if p.suffix == ".py")
    stats = {"entry_modules": float(len(entries)), "entry_modules_evaluated": float(evaluated),
             "modules_parsed": float(len(modules)), "parses": float(sum(o.parses for o in outcomes.values()))}
    return LayoutAnalysis(collector.layouts, errors, stats)


class _Dependencies:
    """Whether the files and module names a stored result depended on are still the same."""

    def __init__(self, project: Project, facts: dict[Path, FileFacts]) -> None:
        self.project = project
        self.hashes: dict[Path, str | None] = {path: f.sha for path, f in facts.items()}
        self._checked: dict[tuple[str, str | None], bool] = {}

    def hash_of(self, path: Path) -> str | None:
        """The content hash of a file: from the facts, else read once (prompt files)."""
        if path not in self.hashes:
            try:
                self.hashes[path] = cache_store.sha256_bytes(path.read_bytes()) if path.is_file() else None
            except OSError:
                self.hashes[path] = None
        return self.hashes[path]

    def resolution(self, name: str) -> str | None:
        found = self.project.by_name.get(name)
        return None if found is None else relative_key(found, self.project.root)

    def unchanged(self, entry: StoredEntry) -> bool:
        for item in entry.files:
            if item not in self._checked:
                self._checked[item] = self.hash_of(self.absolute(item[0])) == item[1]
            if not self._checked[item]:
                return False
        return all(self.resolution(name) == rel for name, rel in entry.names)

    def absolute(self, relative: str) -> Path:
        return Path(os.path.normpath(self.project.root / relative))

    def stored(self, outcome: EntryOutcome) -> StoredEntry:
        root = self.project.root
        return StoredEntry(tuple((relative_key(p, root), self.hash_of(p)) for p in outcome.files),
                           tuple((name, self.resolution(name)) for name in outcome.names),
                           cache_store.encode(outcome.layouts), cache_store.encode(outcome.errors),
                           outcome.complete, round(outcome.seconds, 4))

    def outcome(self, path: Path, entry: StoredEntry | None) -> EntryOutcome | None:
        """A stored result, if every file and module name it depended on is unchanged."""
        if entry is None or not self.unchanged(entry):
            return None
        try:
            layouts = cache_store.decode(entry.layouts)
            errors = cache_store.decode(entry.errors)
        except (TypeError, ValueError, cache_store.CacheFormatError):
            return None  # an old or damaged record: evaluate again
        if not all(isinstance(x, PromptLayout) for x in layouts) or not all(isinstance(e, FileError) for e in errors):
            return None
        return EntryOutcome(path, layouts, errors, tuple(self.absolute(rel) for rel, _ in entry.files),
                            tuple(name for name, _ in entry.names), entry.seconds, entry.complete)


def run_rules(layouts: list[PromptLayout], config: Config) -> list[Finding]:
    context = RuleContext(config.min_stable_chars)
    rules = selected_rules(config.select, config.ignore, config.extend_select)
    findings: list[Finding] = []
    for index, layout in enumerate(layouts):
        for rule in rules:
            findings.extend(rule.check(layout, index, context))
    return findings


def template_findings(project: Project, files: set[Path], config: Config) -> list[Finding]:
    rule = RULES_BY_CODE["PC008"]
    if rule not in selected_rules(config.select, config.ignore, config.extend_select):
        return []
    texts = {}
    for path in sorted(files):
        text = read_small_text(path)
        if text is not None:
            texts[project.display(path)] = text
    assert isinstance(rule, ChatTemplateDate)
    return list(rule.check_files(texts))


def finalize(findings: list[Finding], config: Config, requested: list[Path], cwd: Path) -> list[Finding]:
    """Keep what the user asked to see: requested paths, severity, per-file ignores; one finding
    per place (a more specific rule replaces a general one at the same spot)."""
    kept: dict[tuple, Finding] = {}
    for finding in findings:
        if finding.severity is Severity.INFO and not config.show_info:
            continue
        if not _reported_path(finding, requested, cwd) or _ignored_for_file(finding, config):
            continue
        key = (finding.location.path, finding.location.line, finding.location.column, finding.rule)
        current = kept.get(key)
        if current is None or finding.severity.rank > current.severity.rank:
            kept[key] = finding
    superseded = {
        (f.location.path, f.location.line, f.location.column, code)
        for f in kept.values() for code in RULES_BY_CODE[f.rule].supersedes
    }
    result = [f for key, f in kept.items() if key not in superseded]
    result = [replace(f, fingerprint=fingerprint(f)) for f in result]
    return sorted(result, key=lambda f: (f.location.path, f.location.line, f.location.column, f.rule))


def _reported_path(finding: Finding, requested: list[Path], cwd: Path) -> bool:
    for location in (finding.location, finding.call_site.location):
        path = _resolved(cwd / location.path)
        if any(path == r or r in path.parents for r in requested):
            return True
    return False


def _ignored_for_file(finding: Finding, config: Config) -> bool:
    path = Path(finding.location.path).as_posix()
    for pattern, codes in config.per_file_ignores:
        if fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(path, "*/" + pattern):
            if any(finding.rule.startswith(code) or code == "ALL" for code in codes):
                return True
    return False


def fingerprint(finding: Finding) -> str:
    """Identity of a finding that survives moving code: no line numbers, only what and where."""
    source = finding.volatile_source.source if finding.volatile_source else ""
    parts = [finding.rule, finding.location.path, finding.call_site.api, finding.call_site.function or "",
             source, re.sub(r"\d[\d,]*", "#", finding.message)]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]


def _errors(discovered: list[FileError], parsed: dict[str, FileError], requested: list[Path],
            cwd: Path) -> list[FileError]:
    seen: dict[str, FileError] = {}
    for error in [*discovered, *parsed.values()]:
        path = Path(os.path.abspath(cwd / error.path))  # not resolved: the error may be about a link
        if any(path == r or r in path.parents for r in requested):
            seen.setdefault(error.path, error)
    return sorted(seen.values(), key=lambda e: e.path)


def _resolved(path: Path) -> Path:
    """The real path; for a broken or looping link (reported as an error), the link's own path."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return Path(os.path.abspath(path))


def _estimate(result: AnalysisResult, config: Config) -> AnalysisResult:
    try:
        from promptlint.estimate import estimate
    except ImportError:
        return result
    return estimate(result, config)
