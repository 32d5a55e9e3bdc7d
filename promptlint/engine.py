"""The analysis pipeline: discover → facts → entries → layouts → rules → filter → estimate.

``analyze`` is the one entry point the CLI, the estimator, the verifier and the reporters use.
It never imports or runs analyzed code, and a problem with one file never stops the others.

Speed (docs/performance.md): a cheap text pass over every file (cached by stat and content
hash) picks the entry modules; only those are parsed and evaluated, each on its own, in worker
processes when there is enough work; each entry's result is cached with the content hash of
every file it read, so the next run re-evaluates only what a change can affect.
"""

from __future__ import annotations

import ast
import fnmatch
import hashlib
import os
import re
import time
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from promptlint import cache as cache_store
from promptlint.analysis.derived import CALLED_WITH, DERIVED
from promptlint.analysis.evaluator import PASSED_TO
from promptlint.analysis.layout import MESSAGE_LIST_API, is_assembly
from promptlint.analysis.index import subclass_index
from promptlint.analysis.project import SUBCLASSES_OF, Project
from promptlint.analysis.reach import SELF_CALL, UNTRACEABLE, reach_over
from promptlint.analysis.summaries import infer_wrappers, reached_calls, system_wrappers
from promptlint.analysis.templates import FILLS_SLOT
from promptlint.cache import Cache, FileFacts, StoredEntry
from promptlint.checks import RULES_BY_CODE, RuleContext, selected_rules
from promptlint.checks.pc008_chat_template_date import ChatTemplateDate
from promptlint.checks.pc009_sliding_history_window import HelperCut, SlidingHistoryWindow, window_words
from promptlint.config import Config
from promptlint.discover import discover, is_test_path, read_small_text
from promptlint.facts import (
    called_names_of,
    collect_facts,
    entry_paths,
    module_names,
    relative_key,
    sorted_paths,
)
from promptlint.estimate.prices import load_price_table
from promptlint.internal import internal_error
from promptlint.knowledge import (
    RETURNS_SYSTEM_MARKER,
    ROLE_MARKER,
    Knowledge,
    builtin_callback_types,
    builtin_http_paths,
    load_knowledge,
    registering_methods,
    request_input_names,
    setting_names,
)
from promptlint.model import (
    AnalysisResult,
    CallSite,
    FileError,
    Finding,
    Location,
    PromptLayout,
    RelatedLocation,
    Severity,
)
from promptlint.parallel import (
    EntryOutcome,
    EntryTask,
    LayoutCollector,
    Settings,
    Workers,
    worker_count,
)
from promptlint.prefilter import imports_trigger
from promptlint.reach_inputs import FileInputs, file_inputs, flow_names, moved_indices, same_reach

# The selection of a candidate that does not parse (it has no definitions, not even its module
# level): it is still given to a worker, which reports why.
NOT_PARSED = (-1,)
MIN_PARALLEL_BYTES = 400_000  # below this much entry source, worker start-up costs more than it saves
# Origin categories of the request's own input (derived from the user's turn, or typed at a prompt).
REQUEST_CATEGORIES = frozenset({DERIVED, "user-input"})


def analyze(paths: list[Path], config: Config, cwd: Path | None = None) -> AnalysisResult:
    started = time.perf_counter()
    cwd = (cwd or Path.cwd()).resolve()
    root = config.root.resolve()
    knowledge = load_knowledge(config)
    requested = discover(paths, config, cwd)
    whole_project = _inside(root, paths, cwd)
    project_files = discover([root], config, cwd) if whole_project and not _is_root(root, paths, cwd) \
        else requested
    python_files = sorted_paths({*project_files.python, *requested.python})
    cache = Cache.open(root, config.cache_dir, *_cache_key(knowledge, config, root, cwd))
    names = module_names(python_files, root)
    settings = Settings(root, cwd, tuple(python_files), names, config.max_file_bytes, knowledge,
                        config.file_timeout_s)
    processes = worker_count(config.jobs)
    with Workers(settings, processes) as workers:
        facts = collect_facts(python_files, root, names, cache, workers.file_facts)
        if cache is not None and whole_project:
            cache.retain_files({relative_key(p, root) for p in python_files})
        project = Project(root, python_files, cwd, config.max_file_bytes, names)
        project.subclasses = subclass_index({path: f.classes for path, f in facts.items()})
        workers.provide_subclasses(project.subclasses)
        for path in requested.python:  # skipped whether or not it could reach an LLM call
            project.report_too_large(path, facts[path].signature[1])
        callbacks = _configured_role_files(python_files, facts, knowledge, config)
        role_builders = {p for p, f in facts.items() if f.text_ok and f.role} | callbacks
        entries = entry_paths(facts, names, set(requested.python), knowledge, role_builders)
        idle_core = partial(_count_in_background, config.tokenizer, processes) if config.count_in_background \
            else None
        analysis = collect_layouts(project, knowledge, entries, facts, cache, workers, callbacks, idle_core)
        # PC009 reads modules, not layouts: while the workers are up, they read them too.
        history_modules = ModuleResults(cache, lambda p: facts[p].sha)
        history_found, history_internal = _history_cuts(project, python_files, facts, config, knowledge, cache,
                                                        history_modules, workers)
    internal: list[FileError] = []  # promptlint's own failures in the rules (promptlint/internal.py)
    findings = run_rules(analysis.layouts, config, internal)
    pins = [p for p in python_files if facts[p].date_pin]
    findings += template_findings(project, {*project_files.other, *requested.other, *pins}, config, internal)
    findings = _without_cuts_read_twice(findings, history_found) + history_found
    internal += history_internal
    findings = finalize(findings, config, [(cwd / p).resolve() for p in paths], cwd, analysis.layouts)
    errors = _errors([*requested.errors, *internal], {**analysis.errors, **project.errors},
                     [(cwd / p).resolve() for p in paths], cwd)
    failed = {e.path for e in errors} & {os.path.relpath(p, cwd) for p in requested.python} if errors else set()
    stats = {"seconds": time.perf_counter() - started, "files_failed": float(len(failed)), **analysis.stats,
             "history_modules_read": float(history_modules.computed),
             "test_paths_skipped": float(requested.tests_skipped)}
    directive_files = tuple(str(p) for p in requested.python if facts[p].directive or not facts[p].text_ok)
    result = AnalysisResult(tuple(findings), tuple(errors), tuple(analysis.layouts), len(requested.python), stats,
                            directive_files + tuple(str(p) for p in requested.other),
                            tuple(str(p) for p in requested.notebooks))
    try:
        return _estimate(result, config, cache)
    finally:  # saved after the estimates: their token counts are stored too
        if cache is not None:
            cache.save()


def _without_cuts_read_twice(findings: list[Finding], cuts: list[Finding]) -> list[Finding]:
    """A window seen in a request (the latest items of a list sent as its history) where PC009's
    reading of the module found the cut too: the cut's own message says more (its limit)."""
    places = {(f.location.path, f.location.line) for f in cuts}
    return [f for f in findings if f.rule != "PC009" or (f.location.path, f.location.line) not in places]


def _history_cuts(project: Project, python_files: list[Path], facts: dict[Path, FileFacts], config: Config,
                  knowledge: Knowledge, cache: Cache | None, stored: ModuleResults,
                  workers: Workers) -> tuple[list[Finding], list[FileError]]:
    """PC009's findings over the files whose facts say they may cut a history or set a framework's
    window, with the rule's own failures; the modules not stored yet are read by the workers."""
    window_modules = {name.split(".")[0] for name in knowledge.history_windows}
    window_packages = tuple(f"{name}." for name in sorted(window_modules))  # str.startswith: one C call
    cut_files = [p for p in python_files if facts[p].history_cut]
    window_files = [p for p in python_files if not facts[p].history_cut
                    and any(i in window_modules or i.startswith(window_packages) for i in facts[p].imports)]

    def read_in_workers(tasks: list[HistoryCutsTask]) -> list[HistoryCutsResult]:
        sizes = [facts[task[1]].signature[1] for task in tasks]
        return workers.map(history_cuts_task, tasks, sizes, sum(sizes) >= MIN_PARALLEL_BYTES)

    internal: list[FileError] = []
    found = history_window_findings(project, cut_files, window_files, config, knowledge, internal,
                                    lambda p: called_names_of(p, facts[p], cache), python_files,
                                    stored, read_in_workers)
    return found, internal


def _configured_role_files(python_files: list[Path], facts: dict[Path, FileFacts], knowledge: Knowledge,
                               config: Config) -> set[Path]:
    """Files with a parameter annotated with a request type the config adds (`request-system`):
    model callbacks, assembly points like a system message; and files naming a chat endpoint the
    config adds (`http-paths`). The built-in ones are found by the facts' text scan
    (facts.ROLE_KEY); the config's are read for here, and only when there are any."""
    names = knowledge.callback_types - set(builtin_callback_types())
    paths = set(knowledge.http_paths) - set(builtin_http_paths())
    if not names and not paths:
        return set()
    patterns = [r":\s*(?:\w+\.)*(?:" + "|".join(map(re.escape, sorted(names))) + r")\b"] if names else []
    patterns += [re.escape(path) for path in sorted(paths)]
    added = re.compile("|".join(patterns))
    return {path for path in python_files if facts[path].text_ok and facts[path].signature[1] <= config.max_file_bytes
            and added.search(_text_of(path))}


def _text_of(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return ""  # reported where the file is parsed


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
                    cache: Cache | None, workers: Workers, callbacks: set[Path] | None = None,
                    idle_core: Callable[[], None] | None = None) -> LayoutAnalysis:
    """``idle_core``: called when entries are evaluated in this process, leaving a core free."""
    clock = time.perf_counter()
    # Every readable file is a candidate: a file that only calls an inferred wrapper (its provider
    # object handed in as a parameter) imports no SDK, yet is where the prompt is known.
    candidates = sorted_paths({*entries, *(p for p, f in facts.items() if f.text_ok)})
    (selected, reaching_names, wrappers, reached), reach_source = _reaching(
        entries, candidates, facts, knowledge, cache, workers, project.root, callbacks or set())
    definitions_s = time.perf_counter() - clock
    factories = node_factories(candidates, facts, knowledge, cache)
    global_key = cache_store.stable_hash(sorted(reaching_names), [[n, sorted(s)] for n, s in wrappers],
                                         sorted(factories))
    tasks = {path: EntryTask(path, chosen, reaching_names, parse_only=chosen == NOT_PARSED, wrappers=wrappers,
                             node_factories=factories)
             for path, chosen in selected.items() if chosen}
    for path in _checked_only(entries, selected, facts, knowledge):
        tasks[path] = EntryTask(path, (), None, parse_only=True)
    keys = {path: _entry_key(relative_key(path, project.root), facts[path].sha, task, global_key)
            for path, task in tasks.items()}
    dependencies = _Dependencies(project, facts, cache)
    outcomes: dict[Path, EntryOutcome] = {}
    if cache is not None:
        for path in tasks:
            found = dependencies.outcome(path, cache.entry(keys[path]), keys[path])
            if found is not None:
                outcomes[path] = found
    pending = [tasks[path] for path in sorted_paths(tasks) if path not in outcomes]
    clock = time.perf_counter()
    parallel = _worth_parallel([t.path for t in pending], facts)
    if pending and not parallel and idle_core is not None:
        idle_core()
    evaluated = workers.evaluate(pending, parallel)
    evaluate_s = time.perf_counter() - clock
    for outcome in evaluated:
        outcomes[outcome.path] = outcome
        if cache is not None:
            cache.store_entry(keys[outcome.path], dependencies.stored(outcome))
            cache.set_bound(keys[outcome.path], [(relative_key(p, project.root), names) for p, names in outcome.bound])
    analysis = _merge(sorted_paths(tasks), outcomes, knowledge, len(pending))
    analysis.layouts = with_reached_calls(analysis.layouts, reached, project)
    analysis.stats.update(definitions_seconds=definitions_s, evaluate_seconds=evaluate_s,
                          entry_candidates=float(len(entries)), reach_computed=float(reach_source == "computed"),
                          reach_kept_after_edit=float(reach_source == "kept"))
    return analysis


def node_factories(paths: list[Path], facts: dict[Path, FileFacts], knowledge: Knowledge,
                   cache: Cache | None) -> frozenset[str]:
    """The names called in the modules that register graph nodes (they import a framework of
    rules/sources.yaml ``graph_nodes`` and call one of its registering methods): a factory whose
    product such a module registers (`add_node("Trader", create_trader(llm))`) is among them.
    A superset read from the files' text: nothing is parsed."""
    found: set[str] = set()
    for path in paths:
        methods = registering_methods(knowledge.graph_nodes, facts[path].imports)
        if methods and facts[path].text_ok:
            called = called_names_of(path, facts[path], cache)
            if not methods.isdisjoint(called):
                found.update(called)
    return frozenset(found)


def with_reached_calls(layouts: list[PromptLayout], reached: dict[str, tuple[tuple[str, int], ...]],
                       project: Project) -> list[PromptLayout]:
    """Layouts judged where they are handed to an inferred wrapper, with the LLM calls that wrapper
    reaches (those evaluated as calls: a same-named method that is not one is left out), and the
    model all of them name when the wrapper call names none."""
    by_line: dict[tuple[str, int], list[PromptLayout]] = {}
    for layout in layouts:
        if layout.call.via is None:
            by_line.setdefault((layout.call.location.path, layout.call.location.line), []).append(layout)
    displayed: dict[str, str] = {}  # relative key -> the display path of the layouts' locations
    result = []
    for layout in layouts:
        sites = reached.get(layout.call.via or "", ())
        for path, _ in sites:
            if path not in displayed:
                displayed[path] = project.display(project.root / path)
        calls = [found for path, line in sites for found in by_line.get((displayed[path], line), ())[:1]]
        if calls:
            models = {found.call.model for found in calls}
            model = layout.call.model or (models.pop() if len(models) == 1 else None)
            reaches = tuple((found.call.location, found.call.api, found.call.provider) for found in calls)
            layout = replace(layout, call=replace(layout.call, model=model, reaches=reaches))
        result.append(layout)
    return result


def _checked_only(entries: list[Path], selected: dict[Path, tuple[int, ...]], facts: dict[Path, FileFacts],
                  knowledge: Knowledge) -> list[Path]:
    """Entries that cannot reach an LLM call and were not parsed for the reach, parsed anyway, so
    that a file which names an LLM SDK and does not parse (or cannot be read) is reported rather
    than passed over."""
    triggers = set(knowledge.trigger_words)
    return [path for path in entries if path not in selected and
            (not facts[path].text_ok or imports_trigger(facts[path].imports, triggers))]


def _entry_key(relative: str, sha: str | None, task: EntryTask, global_key: str) -> str:
    """Which stored result an entry may reuse: its path, content, evaluated functions, and the
    names that reach an LLM call anywhere (the namespace covers code and configuration)."""
    what = "parse" if task.parse_only else ",".join(map(str, task.selected))
    text = "\x1f".join((relative, sha or "", what, "" if task.parse_only else global_key))
    return cache_store.sha256_bytes(text.encode("utf-8", "surrogatepass"))[:32]


def _worth_parallel(paths: list[Path], facts: dict[Path, FileFacts]) -> bool:
    return sum(facts[p].signature[1] for p in paths) >= MIN_PARALLEL_BYTES


Wrappers = tuple[tuple[str, frozenset[str]], ...]  # name -> slots reaching system content, sorted


ReachAnswer = tuple[dict[Path, tuple[int, ...]], frozenset[str], Wrappers, dict[str, tuple[tuple[str, int], ...]]]


def _reaching(entries: list[Path], candidates: list[Path], facts: dict[Path, FileFacts], knowledge: Knowledge,
              cache: Cache | None, workers: Workers, root: Path, callbacks: set[Path]) -> tuple[ReachAnswer, str]:
    """The entries worth evaluating, each with its definitions that can reach an LLM call or an
    assembly point (see analysis/reach.py), every name that leads to one, and the inferred
    wrappers (analysis/summaries.py), which are sinks for their callers.

    Only files whose text calls a name that leads to an LLM call are parsed: first those calling
    an API method, then those calling a function found in them, and so on until no new file
    qualifies. Other candidates (files that import no SDK) are parsed only when they call an
    assembly constructor or an inferred wrapper directly. The answer depends only on the
    candidates' contents: when their hashes are those of the stored answer, it is used and
    nothing is parsed; when the files that changed changed nothing the pass reads of them (a
    function appended that calls nothing, an edited comment), it is used too, with the changed
    files' reaching definitions placed again (promptlint/reach_inputs.py)."""
    fingerprint = cache_store.sha256_bytes("\n".join(f"{relative_key(p, root)}\x1f{facts[p].sha}" for p in candidates)
                                           .encode("utf-8", "surrogatepass"))[:32]
    stored = cache.reach if cache is not None else None
    if stored is not None and stored.get("fingerprint") == fingerprint:
        found = _decoded_reach(stored, candidates, root)
        if found is not None:
            return found, "stored"
    called = {p: called_names_of(p, facts[p], cache) + ((ROLE_MARKER,) if p in callbacks else ())
              for p in candidates if facts[p].text_ok}
    relative = {p: relative_key(p, root) for p in called}
    if stored is not None and cache is not None:
        found = _reach_after_edit(stored, cache, fingerprint, candidates, called, relative, facts, workers, root,
                                  set(entries))
        if found is not None:
            return found, "kept"
    definitions: dict[Path, Any] = {}
    hops: dict[Path, list[int | None]] = {}
    names = knowledge.api_method_names
    wrappers: dict[str, frozenset[str]] = {}
    entry_set = set(entries)
    relevant: set[str] = set()  # every name a file was parsed for calling, at any round
    while True:
        wanted = {name.rsplit(".", 1)[-1] for name in names if not name.endswith(")")}  # marked: the name is there too
        direct = {name.rsplit(".", 1)[-1] for name in (*knowledge.assembly_names, *system_wrappers(wrappers),
                                                         *_system_message_returners(definitions))}
        relevant |= wanted | direct
        new = [p for p in called if p not in definitions and (
            not direct.isdisjoint(called[p]) or (p in entry_set and not wanted.isdisjoint(called[p])))]
        if not new:
            break
        definitions.update(_definitions_of(new, facts, cache, workers, root))
        wrappers = infer_wrappers(_voters(definitions, relative), UNTRACEABLE)
        hops, names = _hops(definitions, knowledge.api_method_names)
    # Assembly points and wrapper calls are judged where they are: the definitions that contain
    # one are evaluated, their callers are not walked up (a wrapper's callers are found by name).
    # The files above were chosen by the names their text calls; a definition's own calls mark a
    # method of `self` (reach.SELF_CALL), so its names are matched in both forms here.
    direct = frozenset(_with_self_calls({*knowledge.assembly_names, *system_wrappers(wrappers),
                                         *_system_message_returners(definitions)}))
    for path, found in definitions.items():
        hops[path] = [hop if hop is not None or calls.isdisjoint(direct) else 0
                      for hop, (_, calls, _, _) in zip(hops[path], found)]
    names = frozenset(names) | direct
    selected = {path: _farthest_first(hops[path]) if definitions[path] else NOT_PARSED
                for path in sorted_paths(definitions)}
    ordered = tuple(sorted(wrappers.items()))
    reached = reached_calls(((d[0], relative[path], d[3]) for path, found in definitions.items()
                             for d in found), wrappers)
    if cache is not None:
        cache.set_reach({"fingerprint": fingerprint, "names": sorted(names),
                         "selected": {relative_key(p, root): list(indices) for p, indices in selected.items()},
                         "wrappers": [[name, sorted(slots)] for name, slots in ordered],
                         **_encoded_reached(reached)})
        kept = frozenset(relevant)
        cache.set_reach_inputs({
            "files": {relative[p]: file_inputs(facts[p].sha, p in entry_set, called[p], kept, definitions.get(p)).to_json()
                      for p in called},
            "relevant": sorted(kept), "flow_names": flow_names(definitions.values())})
    return (selected, frozenset(names), ordered, reached), "computed"


def _decoded_reach(stored: dict[str, Any], candidates: list[Path], root: Path) -> ReachAnswer | None:
    """The stored reach answer, None when the record is damaged."""
    by_key = {relative_key(p, root): p for p in candidates}
    try:
        selected = {by_key[rel]: tuple(indices) for rel, indices in stored["selected"].items()}
        wrappers = tuple((str(name), frozenset(slots)) for name, slots in stored["wrappers"])
        paths = [str(path) for path in stored["reached_paths"]]
        reached = {str(name): tuple((paths[index], int(line)) for index, line in sites)
                   for name, sites in stored["reached"]}
        return selected, frozenset(stored["names"]), wrappers, reached
    except (KeyError, TypeError, AttributeError, ValueError):
        return None


def _reach_after_edit(stored: dict[str, Any], cache: Cache, fingerprint: str, candidates: list[Path],
                      called: dict[Path, tuple[str, ...]], relative: dict[Path, str], facts: dict[Path, FileFacts],
                      workers: Workers, root: Path, entries: set[Path]) -> ReachAnswer | None:
    """The stored reach answer when the files that changed since changed nothing it read
    (promptlint/reach_inputs.py), with their reaching definitions placed again; else None."""
    raw = cache.reach_inputs()
    try:
        before = {str(rel): FileInputs.from_json(record) for rel, record in raw["files"].items()}  # type: ignore[index]
        flow_named = frozenset(str(name) for name in raw["flow_names"])  # type: ignore[index]
        relevant = frozenset(str(name) for name in raw["relevant"])  # type: ignore[index]
        selected = {str(rel): tuple(int(i) for i in indices) for rel, indices in stored["selected"].items()}
    except (KeyError, TypeError, AttributeError, ValueError):
        return None
    if set(before) != set(relative.values()):
        return None  # a file was added, removed or became unreadable
    now: dict[str, FileInputs] = {}
    for path, names in called.items():
        old = before[relative[path]]
        if old.sha == facts[path].sha:
            continue
        parsed = _definitions_of([path], facts, cache, workers, root)[path] if old.active is not None else None
        new = file_inputs(facts[path].sha, path in entries, names, relevant, parsed)
        if not same_reach(old, new, flow_named):
            return None
        if relative[path] in selected:
            placed = moved_indices(selected[relative[path]], old, new)
            if placed is None:
                return None
            selected[relative[path]] = placed
        now[relative[path]] = new
    if not now:
        return None
    updated = {**stored, "fingerprint": fingerprint, "selected": {rel: list(indices) for rel, indices in selected.items()}}
    cache.set_reach(updated)
    cache.set_reach_inputs({**raw, "files": {**raw["files"], **{rel: f.to_json() for rel, f in now.items()}}})  # type: ignore[dict-item]
    return _decoded_reach(updated, candidates, root)


def _voters(definitions: dict[Path, Any], relative: dict[Path, str]) -> Iterator[tuple[str, Any, bool]]:
    """What infer_wrappers reads of each definition: its name, its flows and whether it votes
    (tests' doubles do not)."""
    for path, found in definitions.items():
        votes = not is_test_path(relative[path])
        for definition in found:
            yield definition[0], definition[3], votes


def _encoded_reached(reached: dict[str, tuple[tuple[str, int], ...]]) -> dict[str, Any]:
    """The LLM calls each wrapper reaches, their paths stored once (many names share a file)."""
    paths: dict[str, int] = {}
    encoded = [[name, [[paths.setdefault(path, len(paths)), line] for path, line in sites]]
               for name, sites in sorted(reached.items())]
    return {"reached_paths": list(paths), "reached": encoded}


def _hops(definitions: dict[Path, Any], sink_names: frozenset[str]
          ) -> tuple[dict[Path, list[int | None]], frozenset[str]]:
    """reach_over all the parsed modules' definitions at once, answered per module."""
    flat: list[tuple[str, Any]] = []
    spans: dict[Path, tuple[int, int]] = {}
    for path in sorted_paths(definitions):
        spans[path] = (len(flat), len(flat) + len(definitions[path]))
        flat += definitions[path]
    hops, names = reach_over(flat, sink_names)
    return {path: hops[start:end] for path, (start, end) in spans.items()}, names


def _farthest_first(hops: list[int | None]) -> tuple[int, ...]:
    """The reaching definitions of a module, callers before the functions they call (the most
    hops from an LLM call first): a function already evaluated inside its caller is not
    evaluated again on its own (see Evaluator.covered)."""
    reaching = [index for index, hop in enumerate(hops) if hop is not None]
    return tuple(sorted(reaching, key=lambda index: (-(hops[index] or 0), index)))


def _with_self_calls(names: set[str]) -> set[str]:
    """Names, and the same names called as a method of ``self`` (marked: reach.SELF_CALL)."""
    return names | {name + SELF_CALL for name in names}


def _system_message_returners(definitions: dict[Path, Any]) -> frozenset[str]:
    """The last names of the functions that return the system message they build: their callers
    are evaluated too, since what a caller writes after it in its list is the history that follows."""
    return frozenset(d[0].rsplit(".", 1)[-1] for found in definitions.values() for d in found
                     if RETURNS_SYSTEM_MARKER in d[1])


def _definitions_of(paths: list[Path], facts: dict[Path, FileFacts], cache: Cache | None, workers: Workers,
                    root: Path) -> dict[Path, Any]:
    """The definitions of these modules: stored ones by hash, the others parsed (new or changed
    files, or a lost store)."""
    found: dict[Path, Any] = {}
    for path in paths:
        key = facts[path].definitions_hash
        known = cache.definitions(key) if cache is not None and key is not None else None
        if known is not None:
            found[path] = known
    missing = [p for p in paths if p not in found]
    found.update(_new_definitions(missing, facts, cache, workers, root))
    return found


def _new_definitions(missing: list[Path], facts: dict[Path, FileFacts], cache: Cache | None,
                     workers: Workers, root: Path) -> dict[Path, Any]:
    """Parse these modules for their definitions; remember them by hash."""
    found = workers.definitions(missing, _worth_parallel(missing, facts))
    parsed = {}
    for path, definitions in zip(missing, found):
        definitions = definitions or ()
        key = cache_store.definitions_hash(definitions)
        facts[path] = replace(facts[path], definitions_hash=key)
        parsed[path] = definitions
        if cache is not None:
            cache.set_definitions(key, definitions)
            cache.set_file(relative_key(path, root), facts[path])
    return parsed


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
    """Whether the files and module names a stored result depended on are still the same. A
    module the entry read only through imports may have changed where the entry did not look:
    then the result holds if every module-level name it looked up there is defined by the same
    statements on the same lines (ModuleInfo.binding_digest). Appending a function to a module
    does not send every entry that imports from it back to evaluation."""

    def __init__(self, project: Project, facts: dict[Path, FileFacts], cache: Cache | None = None) -> None:
        self.project = project
        self.cache = cache
        self.hashes: dict[Path, str | None] = {path: f.sha for path, f in facts.items()}
        self._checked: dict[tuple[str, str | None], bool] = {}
        # Stored dependencies name files by relative key: the project's own files map straight back.
        self._absolute: dict[str, Path] = {relative_key(path, project.root): path for path in facts}
        self._resolved: dict[tuple[str, str | None], bool] = {}
        self._file_pairs: dict[Path, tuple[str, str | None]] = {}
        self._name_pairs: dict[str, tuple[str, str | None]] = {}

    def hash_of(self, path: Path) -> str | None:
        """The content hash of a file: from the facts, else read once (prompt files)."""
        if path not in self.hashes:
            try:
                self.hashes[path] = cache_store.sha256_bytes(path.read_bytes()) if path.is_file() else None
            except OSError:
                self.hashes[path] = None
        return self.hashes[path]

    def resolution(self, name: str) -> str | None:
        if name.startswith(SUBCLASSES_OF):  # the classes naming a base: a digest of the list
            found_classes = self.project.subclass_candidates(name[len(SUBCLASSES_OF):])
            return None if not found_classes else cache_store.stable_hash(
                [[relative_key(path, self.project.root), cls] for path, cls in found_classes])
        found = self.project.by_name.get(name)
        return None if found is None else relative_key(found, self.project.root)

    def unchanged(self, entry: StoredEntry, key: str = "") -> bool:
        bound: dict[str, tuple[tuple[str, str | None], ...]] | None = None
        for item in entry.files:
            if item not in self._checked:
                self._checked[item] = self.hash_of(self.absolute(item[0])) == item[1]
            if not self._checked[item]:
                if bound is None:
                    bound = self.cache.bound(key) if self.cache is not None and key else {}
                if item[0] not in bound or not self._same_names(item[0], bound[item[0]]):
                    return False
        for item in entry.names:
            if item not in self._resolved:
                self._resolved[item] = self.resolution(item[0]) == item[1]
            if not self._resolved[item]:
                return False
        return True

    def _same_names(self, relative: str, names: tuple[tuple[str, str | None], ...]) -> bool:
        """Whether each of these module-level names is still defined as it was (digest None: it
        was not defined, and still is not)."""
        # Parsed as it is now by the run's project (kept for the later stages; a module that no
        # longer parses is reported, as the entries evaluated again report it).
        current = self.project.module_at(self.absolute(relative))
        return current is not None and all(current.binding_digest(name) == digest for name, digest in names)

    def absolute(self, relative: str) -> Path:
        found = self._absolute.get(relative)
        if found is None:
            found = self._absolute[relative] = Path(os.path.normpath(self.project.root / relative))
        return found

    def stored(self, outcome: EntryOutcome) -> StoredEntry:
        return StoredEntry(tuple(map(self._file_pair, outcome.files)), tuple(map(self._name_pair, outcome.names)),
                           cache_store.encode(outcome.layouts), cache_store.encode(outcome.errors),
                           outcome.complete, round(outcome.seconds, 4))

    # One pair per file and per name, shared by every entry that lists it: litellm's 1,900 entries
    # each list hundreds, and the pairs made anew for each entry held 11 MiB more while the workers were up.
    def _file_pair(self, path: Path) -> tuple[str, str | None]:
        found = self._file_pairs.get(path)
        if found is None:
            found = self._file_pairs[path] = (relative_key(path, self.project.root), self.hash_of(path))
        return found

    def _name_pair(self, name: str) -> tuple[str, str | None]:
        found = self._name_pairs.get(name)
        if found is None:
            found = self._name_pairs[name] = (name, self.resolution(name))
        return found

    def outcome(self, path: Path, entry: StoredEntry | None, key: str = "") -> EntryOutcome | None:
        """A stored result, if every file and module name it depended on is unchanged."""
        if entry is None or not self.unchanged(entry, key):
            return None
        try:
            layouts = cache_store.decode(entry.layouts)
            errors = cache_store.decode(entry.errors)
        except (TypeError, ValueError, cache_store.CacheFormatError):
            return None  # an old or damaged record: evaluate again
        if not all(isinstance(x, PromptLayout) for x in layouts) or not all(isinstance(e, FileError) for e in errors):
            return None
        if self.cache is not None and key and not all(self._checked[item] for item in entry.files):
            # Kept because the names it read did not change: store the files' hashes as they are
            # now, or every later run would parse those modules again to check the names.
            current = tuple((rel, self.hash_of(self.absolute(rel))) for rel, _ in entry.files)
            self.cache.store_entry(key, replace(entry, files=current))
        return EntryOutcome(path, layouts, errors, tuple(self.absolute(rel) for rel, _ in entry.files),
                            tuple(name for name, _ in entry.names), entry.seconds, entry.complete)


def run_rules(layouts: list[PromptLayout], config: Config, internal: list[FileError] | None = None
              ) -> list[Finding]:
    """Every selected rule on every layout. A rule that raises is a bug in promptlint: recorded in
    ``internal`` (raised when None), and the other rules and layouts still run."""
    explicit = frozenset(name for name, rules in load_price_table(config).providers.items()
                         if rules.cache == "explicit") if layouts else frozenset()
    context = RuleContext(config.min_stable_chars, explicit, one_process=config.one_process,
                          setting_names=setting_names(config), request_inputs=request_input_names())
    rules = selected_rules(config.select, config.ignore, config.extend_select)
    findings: list[Finding] = []
    for index, layout in enumerate(layouts):
        for rule in rules:
            try:
                findings.extend(rule.check(layout, index, context))
            except Exception as exc:  # noqa: BLE001 - reported as an internal error, exit code 2
                if internal is None:
                    raise
                internal.append(internal_error(layout.call.location.path, exc, f"rule {rule.code}"))
    return findings


def template_findings(project: Project, files: set[Path], config: Config,
                      internal: list[FileError] | None = None) -> list[Finding]:
    rule = RULES_BY_CODE["PC008"]
    if rule not in selected_rules(config.select, config.ignore, config.extend_select):
        return []
    texts = {}
    for path in sorted(files):
        text = read_small_text(path)
        if text is not None:
            texts[project.display(path)] = text
    assert isinstance(rule, ChatTemplateDate)
    try:  # all files in one call: a date pinned in one file clears the templates of the others
        return list(rule.check_files(texts))
    except Exception as exc:  # noqa: BLE001 - reported as an internal error, exit code 2
        if internal is None:
            raise
        internal.append(internal_error(next(iter(texts), ""), exc, f"rule {rule.code} on template files"))
        return []


@dataclass
class ModuleResults:
    """Stored results of a rule that reads a module's code (PC009), by the module's path and
    content hash: a warm run parsed and walked every file that may cut a history (8.5 s of
    litellm's 9.5 s warm run). ``cache`` None: nothing is stored."""

    cache: Cache | None
    sha_of: Callable[[Path], str | None]
    computed: int = 0  # modules read this run (not found in the cache)

    def get(self, kind: str, display: str, path: Path, extra: str = "") -> Any | None:
        key = self._key(kind, display, path, extra)
        return None if key is None or self.cache is None else self.cache.module_result(key)

    def put(self, kind: str, display: str, path: Path, value: Any, extra: str = "") -> None:
        self.computed += 1
        key = self._key(kind, display, path, extra)
        if key is not None and self.cache is not None:
            self.cache.set_module_result(key, value)

    def _key(self, kind: str, display: str, path: Path, extra: str) -> str | None:
        """None when nothing is stored (no cache, or a file that could not be read)."""
        sha = self.sha_of(path) if self.cache is not None else None
        return None if sha is None else "\0".join((kind, display, sha, extra))


# A module PC009 reads: (display, path, framework windows, words it must hold, with helper cuts).
HistoryCutsTask = tuple[str, Path, dict[str, tuple[tuple[str, ...], tuple[str, ...]]], tuple[str, ...], bool]
HistoryCutsResult = tuple[Any | None, FileError | None]  # (encoded result, or None; the rule's failure)


def history_window_findings(project: Project, files: list[Path], window_files: list[Path], config: Config,
                            knowledge: Knowledge, internal: list[FileError] | None = None,
                            called: Callable[[Path], tuple[str, ...]] | None = None,
                            python_files: list[Path] | None = None,
                            stored: ModuleResults | None = None,
                            read: Callable[[list[HistoryCutsTask]], list[HistoryCutsResult]] | None = None
                            ) -> list[Finding]:
    """PC009 reads the code of a cut, not a prompt layout: only files whose text may hold one
    (``files``), or that import a framework with a windowed history and name its window
    (``window_files``), are parsed (a file that does not parse is reported by the layout
    analysis, not here). Every file of a framework imports it: parsing them all on every run
    made PC009 nearly all of a warm run on agno's own tree (24 s of 25). A helper that cuts where
    its caller says (``trim(index, count)``) is reported at the calls made under a limit, found
    among the files that ``called`` says call it; with none, at the helper itself. Each file's
    result is stored by its content (``stored``); those not stored are read by ``read`` (the
    workers), else here, one after the other."""
    rule = RULES_BY_CODE["PC009"]
    if rule not in selected_rules(config.select, config.ignore, config.extend_select):
        return []
    assert isinstance(rule, SlidingHistoryWindow)
    stored = stored or ModuleResults(None, lambda _path: None)
    words = window_words(knowledge.history_windows)
    only_windows = set(window_files)
    findings: list[Finding] = []
    helpers: list[HelperCut] = []
    mode = "callers" if called is not None else "here"
    known: dict[Path, tuple[list[Finding], list[HelperCut]]] = {}
    tasks: list[HistoryCutsTask] = []
    for path in [*files, *window_files]:
        display = project.display(path)
        decoded = _decoded_cuts(stored.get("PC009", display, path, mode))
        if decoded is not None:
            known[path] = decoded
        else:
            tasks.append((display, path, knowledge.history_windows, words if path in only_windows else (),
                          called is not None))
    for (display, path, *_), (result, error) in zip(tasks, (read or _read_here)(tasks)):
        if error is not None:
            if internal is None:
                raise RuntimeError(f"{error.path}: {error.message}")
            internal.append(error)
        if result is not None:
            stored.put("PC009", display, path, result, mode)
            decoded = _decoded_cuts(result)
            assert decoded is not None
            known[path] = decoded
    for path in [*files, *window_files]:
        if path in known:
            findings += known[path][0]
            helpers += known[path][1]
    if helpers and called is not None:
        findings += _helper_cut_findings(rule, project, helpers, called, python_files or [], stored)
    return findings


def history_cuts_task(task: HistoryCutsTask) -> HistoryCutsResult:
    """One module's PC009 result (a worker task; see history_window_findings)."""
    display, path, windows, needs, with_helpers = task
    failures: list[FileError] = []
    rule = RULES_BY_CODE["PC009"]
    assert isinstance(rule, SlidingHistoryWindow)
    result = _history_cuts_of(rule, display, path, windows, needs=needs, with_helpers=with_helpers,
                              internal=failures)
    return result, failures[0] if failures else None


def _read_here(tasks: list[HistoryCutsTask]) -> list[HistoryCutsResult]:
    return [history_cuts_task(task) for task in tasks]


def _history_cuts_of(rule: SlidingHistoryWindow, display: str, path: Path,
                     windows: dict[str, tuple[tuple[str, ...], tuple[str, ...]]], *, needs: tuple[str, ...],
                     with_helpers: bool, internal: list[FileError] | None) -> Any | None:
    """One module's PC009 findings and helper cuts, encoded for the cache; None when the rule
    failed on it (reported, and not stored, so the next run tries again). ``needs``: words one
    of which the text must hold (a file chosen only because it imports a windowed framework)."""
    text = read_small_text(path)
    if text is not None and needs and not any(word in text for word in needs):
        return [[], []]
    tree = _parsed(text)
    if tree is None:
        return [[], []]
    try:
        found = list(rule.check_module(display, tree, windows, skip_helpers=with_helpers))
        helpers = rule.helper_cuts(display, tree) if with_helpers else []
    except Exception as exc:  # noqa: BLE001 - reported as an internal error, exit code 2
        if internal is None:
            raise
        internal.append(internal_error(display, exc, f"rule {rule.code}"))
        return None
    return [cache_store.encode(found), [[h.method, cache_store.encode(h.location), h.history, h.how, h.alone]
                                         for h in helpers]]


def _decoded_cuts(stored: Any) -> tuple[list[Finding], list[HelperCut]] | None:
    """A module's stored PC009 result, or None when there is none or it is damaged (the cache is
    not trusted: a record of any other shape is computed again)."""
    try:
        found, cuts = stored
        findings = list(cache_store.decode(found))
        helpers = [HelperCut(str(method), cache_store.decode(where), str(history), str(how), alone is True)
                   for method, where, history, how, alone in cuts]
    except (TypeError, ValueError, cache_store.CacheFormatError):
        return None
    if not all(isinstance(f, Finding) for f in findings) or not all(isinstance(h.location, Location) for h in helpers):
        return None
    return findings, helpers


def _decoded_caller_findings(stored: Any) -> list[tuple[Finding, str]] | None:
    try:
        found = [(cache_store.decode(finding), str(method)) for finding, method in stored]
    except (TypeError, ValueError, cache_store.CacheFormatError):
        return None
    return found if all(isinstance(finding, Finding) for finding, _ in found) else None


def _parsed(text: str | None) -> ast.Module | None:
    try:
        return ast.parse(text) if text is not None else None
    except (SyntaxError, ValueError, RecursionError):
        return None


def _helper_cut_findings(rule: SlidingHistoryWindow, project: Project, helpers: list[HelperCut],
                         called: Callable[[Path], tuple[str, ...]], python_files: list[Path],
                         stored: ModuleResults) -> list[Finding]:
    by_name = {helper.method: helper for helper in helpers}
    helpers_key = cache_store.stable_hash(cache_store.encode([[h.method, h.location, h.history, h.how, h.alone]
                                                              for h in helpers]))
    findings: list[Finding] = []
    reported: set[str] = set()
    for path in python_files:
        if not set(called(path)) & by_name.keys():
            continue
        display = project.display(path)
        found = _decoded_caller_findings(stored.get("PC009 callers", display, path, helpers_key))
        if found is None:
            tree = _parsed(read_small_text(path))
            found = [(finding, helper.method) for finding, helper in rule.caller_findings(display, tree, by_name)] \
                if tree else []
            stored.put("PC009 callers", display, path, [[cache_store.encode(f), method] for f, method in found],
                       helpers_key)
        for finding, method in found:
            findings.append(finding)
            reported.add(method)
    return findings + [rule.cut_finding(h.location, f"`{h.history}` {h.how}") for h in helpers
                       if h.method not in reported and h.alone]


def finalize(findings: list[Finding], config: Config, requested: list[Path], cwd: Path,
             layouts: Sequence[PromptLayout] = ()) -> list[Finding]:
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
        if current is None:
            kept[key] = finding
        elif _preferred(finding, current, layouts):
            kept[key] = _also_reaches(finding, current)
        else:
            kept[key] = _also_reaches(current, finding)
    kept = {key: f for key, f in kept.items()
            if not _seen_through_another(f, kept.values()) and not _judged_in_callee(f, kept.values())}
    superseded = {
        (f.location.path, f.location.line, f.location.column, code)
        for f in kept.values() for code in RULES_BY_CODE[f.rule].supersedes
    }
    result = _fold_wrapper_handoffs(_one_per_origin([f for key, f in kept.items() if key not in superseded]))
    result = [replace(f, fingerprint=fingerprint(f)) for f in result]
    return sorted(result, key=lambda f: (f.location.path, f.location.line, f.location.column, f.rule))


def _one_per_origin(findings: list[Finding]) -> list[Finding]:
    """One finding per value and call: the same value, born at one place, can enter one prompt at
    several lines (a ledger's lines rendered by two helpers, seen from two evaluation contexts).
    That is one root cause with one fix: the first place is kept (the most severe first), and
    the others are listed on it. Likewise one finding per template placeholder, call and severity
    (a template rendered by a function that is an entry itself and by its caller, seen with the
    caller's values: ragflow's `sufficiency_select`), kept at the placeholder; and one per line,
    call and severity: two values that can fill the same place (a task from the command line or
    typed at a prompt) have one fix there."""
    def origin(finding: Finding) -> tuple:
        source = finding.volatile_source
        return (finding.rule, finding.call_site.location, source.location) if source is not None else (id(finding),)

    def line(finding: Finding) -> tuple:  # of one severity: a value that changes more often is reported too
        return finding.rule, finding.severity, finding.call_site.location, finding.location.path, finding.location.line

    def slot(finding: Finding) -> tuple:  # the template placeholder it fills, seen from two entries
        filled = _filled_slot(finding)
        return (finding.rule, finding.severity, finding.call_site.location, filled) if filled else (id(finding),)

    def also_fills(finding: Finding) -> RelatedLocation:
        if finding.volatile_source:
            source = finding.volatile_source.source  # a call's name, or "derived from `question`"
            said = source if "`" in source else f"`{source}`"
            return RelatedLocation(finding.volatile_source.location, f"{said} also fills this place", note=True)
        return RelatedLocation(finding.location, "also reported here", note=True)

    one_each = _merged(findings, origin,
                       lambda f: RelatedLocation(f.location, "also enters the prompt here", note=True))
    # The slot's own place first: the fix moves the placeholder (or the text around it) there.
    one_per_slot = _merged(one_each, slot, also_fills, _at_its_slot)
    return _merged(one_per_slot, line, also_fills)


def _filled_slot(finding: Finding) -> Location | None:
    return next((step.location for step in finding.related if step.message.startswith(FILLS_SLOT)), None)


def _at_its_slot(finding: Finding) -> bool:
    return _filled_slot(finding) == finding.location


def _merged(findings: list[Finding], key: Callable[[Finding], tuple],
            note: Callable[[Finding], RelatedLocation],
            preferred: Callable[[Finding], bool] = lambda finding: False) -> list[Finding]:
    groups: dict[tuple, list[Finding]] = {}
    for finding in findings:
        groups.setdefault(key(finding), []).append(finding)
    result = []
    for group in groups.values():
        group.sort(key=lambda f: (-f.severity.rank, not preferred(f), f.location.path, f.location.line,
                                  f.location.column))
        kept, others = group[0], group[1:]
        if others:
            kept = replace(kept, related=(*kept.related, *map(note, others)))
        result.append(kept)
    return result


def _fold_wrapper_handoffs(findings: list[Finding]) -> list[Finding]:
    """A request-derived value judged bare where it is handed to an inferred wrapper (the slot
    alone: `system text passed to _reflect()`), while the same value, from the same origin, has a
    finding where a callee builds it into prompt text: one root cause. The hand-off sees only the
    slot, not the text around it, so it is listed on the other finding. So is a bare hand-off of
    the request's input into a prompt whose call already has a finding on that input from another
    entry (Agent-S: the task handed to the worker, and the task typed at its command line)."""
    def derived(finding: Finding) -> bool:
        return finding.volatile_source is not None and finding.volatile_source.category == DERIVED

    def bare(finding: Finding) -> bool:
        return derived(finding) and finding.location == finding.volatile_source.location \
            and _wrapper_called(finding) is not None

    built = {(f.rule, f.volatile_source.location): f for f in findings if derived(f) and not bare(f)}
    at_call = {(f.rule, f.call_site.location): f for f in findings if f.volatile_source is not None
               and f.volatile_source.category in REQUEST_CATEGORIES and not bare(f)}
    folded: dict[int, list[RelatedLocation]] = {}
    result = []
    for finding in findings:
        same_value = built.get((finding.rule, finding.volatile_source.location)) if bare(finding) else None
        same_call = at_call.get((finding.rule, finding.call_site.location)) if bare(finding) else None
        other = same_value or same_call
        if other is not None and other.severity.rank >= finding.severity.rank:
            note = _reaching_too(finding.call_site) if same_value is not None else \
                RelatedLocation(finding.location, "the request's input is also handed to this prompt here", note=True)
            folded.setdefault(id(other), []).append(note)
        else:
            result.append(finding)
    return [replace(f, related=(*f.related, *folded[id(f)])) if id(f) in folded else f for f in result]


def _reaching_too(site: CallSite) -> RelatedLocation:
    return RelatedLocation(site.location, f"also reaches the `{site.api}` call here", note=True)


def _preferred(finding: Finding, current: Finding, layouts: Sequence[PromptLayout] = ()) -> bool:
    """Of two findings at one place: the one judged on a whole request (a known LLM call, else a
    whole message list handed to a client) over one judged at a system text's assembly point
    alone, then the more severe; of one call's, the one on the longer request (an agent loop's
    next pass, its history grown): what every later step loses."""
    known, current_known = _wholeness(finding.call_site), _wholeness(current.call_site)
    if known != current_known:
        return known > current_known
    if finding.severity is not current.severity:
        return finding.severity.rank > current.severity.rank
    return finding.call_site.location == current.call_site.location and \
        _segments_after_bust(finding, layouts) > _segments_after_bust(current, layouts)


def _wholeness(site: CallSite) -> int:
    """How much of the request a finding was judged on: a known call, a whole message list, a part."""
    return 2 if not is_assembly(site) else 1 if site.api.startswith(MESSAGE_LIST_API) else 0


def _segments_after_bust(finding: Finding, layouts: Sequence[PromptLayout]) -> int:
    index = finding.layout_index
    if index is None or not 0 <= index < len(layouts) or finding.bust_index is None:
        return 0
    return len(layouts[index].segments()) - finding.bust_index


def _also_reaches(kept: Finding, dropped: Finding) -> Finding:
    """One finding per root cause: the call sites of the same value's other findings are listed
    on the one kept (all branches of a provider switch)."""
    site = dropped.call_site
    if is_assembly(site) or site.location == kept.call_site.location \
            or any(r.location == site.location for r in kept.related):
        return kept  # an assembly point is a step on the way to a call, not a call of its own
    return replace(kept, related=(*kept.related, _reaching_too(site)))


def _seen_through_another(finding: Finding, findings: Iterable[Finding]) -> bool:
    """A value derived from the request, in a function where another finding of the same rule
    already reports a value of its own origin (a clock, a retrieval) that changes as often: the
    derived value is most likely that prompt seen through a copy (``prompt = msg[0]["content"]``
    after the clock went into ``msg`` and through a trimming helper) in the function that sends
    it, so the same root cause, and the copy is no place to fix it. (A second, unrelated prompt of
    the function shows up once the first is fixed.)"""
    if finding.volatile_source is None or finding.volatile_source.category != "request-derived" \
            or CALLED_WITH in finding.volatile_source.source:  # computed from the request: no copy
        return False
    site = finding.call_site
    if finding.location.path != site.location.path or _helper_result(finding):
        return False  # built elsewhere (a knowledge formatter): a place of its own to fix
    return any(other.location != finding.location and other.rule == finding.rule
               and other.call_site.location.path == site.location.path and other.call_site.function == site.function
               and other.volatile_source is not None and other.volatile_source.category != "request-derived"
               and other.volatile_source.volatility == finding.volatile_source.volatility
               # A value a caller hands in (a tool's result in the caller's agent loop) is no copy
               # of this function's own prompt: it has its own finding, and so does this one.
               and other.volatile_source.location.path == site.location.path
               for other in findings)


def _helper_result(finding: Finding) -> bool:
    """The value is what a helper returned, placed where it came back (``kb_prompt(chunks)``)."""
    return any(r.location == finding.location and r.message.startswith("returned by") for r in finding.related)


def _judged_in_callee(finding: Finding, findings: Iterable[Finding]) -> bool:
    """A value judged where it is handed to an inferred wrapper (`agent.predict(instruction)`),
    while the same value, from the same origin, is also judged inside that wrapper, where the
    prompt around it is assembled: one finding per root cause, at the place with more context."""
    callee = _wrapper_called(finding)
    origin = finding.volatile_source
    if callee is None or origin is None:
        return False
    return any(other is not finding and other.rule == finding.rule and other.volatile_source == origin
               and (other.call_site.function or "").rsplit(".", 1)[-1] == callee for other in findings)


def _wrapper_called(finding: Finding) -> str | None:
    """`predict` for a finding judged at `system text passed to predict()`."""
    api = finding.call_site.api
    if not is_assembly(finding.call_site) or PASSED_TO not in api:
        return None
    return api.split(PASSED_TO, 1)[1].split("()", 1)[0] or None


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
    """The errors of the requested files, and every internal error wherever it happened: a crash
    of promptlint must not hide behind a file the user did not ask about (exit code 2)."""
    seen: dict[tuple[str, str], FileError] = {}
    for error in [*discovered, *parsed.values()]:
        path = Path(os.path.abspath(cwd / error.path))  # not resolved: the error may be about a link
        if error.internal or any(path == r or r in path.parents for r in requested):
            seen.setdefault((error.path, error.kind if not error.internal else error.message), error)
    return sorted(seen.values(), key=lambda e: (e.path, e.kind, e.message))


def _resolved(path: Path) -> Path:
    """The real path; for a broken or looping link (reported as an error), the link's own path."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return Path(os.path.abspath(path))


def _quiet_when_nothing_lost(finding: Finding) -> bool:
    rule = RULES_BY_CODE.get(finding.rule)
    return rule is not None and rule.quiet_when_nothing_lost(finding)


def _count_in_background(tokenizer: str | None, processes: int) -> None:
    """The tokenizer the estimate will need, loaded on a core the in-process evaluation leaves free
    (imported here: a run that evaluates nothing in this process never imports the estimator)."""
    from promptlint.estimate.tokens import count_in_background

    count_in_background(tokenizer, processes)


def _estimate(result: AnalysisResult, config: Config, cache: Cache | None = None) -> AnalysisResult:
    shown = result.findings if config.estimate_info else \
        tuple(f for f in result.findings if f.severity is not Severity.INFO)
    if not shown:  # a clean run does not even import the estimator (~30 ms) nor load a tokenizer
        return result
    try:
        from promptlint.estimate import agree_with_estimate, estimate, load_counter
    except ImportError:
        return result
    counter = load_counter(config.tokenizer, config.root)
    if cache is not None:  # counts stored by earlier runs: the tokenizer is loaded only for new texts
        counter.remember(cache.token_counts(counter.identity))
    estimated = iter(agree_with_estimate(f, _quiet_when_nothing_lost(f))
                     for f in estimate(replace(result, findings=shown), config, counter=counter).findings)
    if cache is not None:
        cache.set_token_counts(counter.identity, counter.counts())
    result = replace(result, stats={**result.stats, "tokenizer_loaded": float(counter.loaded)})
    findings = tuple(next(estimated) if config.estimate_info or f.severity is not Severity.INFO else f
                     for f in result.findings)
    if not config.show_info:  # a finding the estimate lowered to info is hidden like any other
        findings = tuple(f for f in findings if f.severity is not Severity.INFO)
    return replace(result, findings=findings)
