"""Evaluating entry modules, in this process or in worker processes.

Each entry module is evaluated by a fresh Evaluator, so its result depends only on the files it
reads and the module names it resolves – both recorded, as the entry's dependencies – and never
on which entries ran before it in the same process. That is what makes results cacheable per
entry and identical whatever the number of workers.

A worker keeps the modules it parsed (up to a memory budget) for the entries it evaluates next,
and abandons an entry whose evaluation outlives the per-file time budget, with an error. Workers
forked after this process parsed modules itself (a small project's reach pass) start from them.
"""

from __future__ import annotations

import ast
import gc
import os
import sys
import time
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from promptlint.analysis import index
from promptlint.analysis.index import ClassInfo, ModuleInfo
from promptlint.analysis.message_lists import system_heads
from promptlint.analysis.project import Project
from promptlint.analysis.reach import definition_calls, module_definitions
from promptlint.analysis.derived import (
    assigned_names,
    derived_names,
    input_names,
    mark_observed,
    mark_remembered,
    mark_rendered_conversation,
    mark_request_derived,
    parameter_names,
    user_turn_names,
)
from promptlint.analysis.summaries import sink_shapes
from promptlint.cache import Definitions, FileFacts
from promptlint.discover import is_test_path
from promptlint.facts import FactsTask, file_facts
from promptlint.internal import internal_error
from promptlint.knowledge import Knowledge
from promptlint.model import FileError, Hole, Literal, PromptLayout, Via

if TYPE_CHECKING:  # the evaluator and the process pool are imported when there is work for them:
    # a run answered from the cache starts faster without them (~45 ms of a ~1 s run)
    from concurrent.futures import ProcessPoolExecutor

    from promptlint.analysis.evaluator import Frame
    from promptlint.analysis.values import Obj, Value

MAX_LAYOUTS_PER_CALL = 8
ABANDONED = "analysis abandoned"
PARSED_SOURCE_BUDGET = 5_000_000  # characters of parsed source a process keeps (ASTs: ~35 bytes each)
# The evaluator allocates millions of short-lived objects next to a large, long-lived heap of
# syntax trees; Python's default thresholds rescan that heap so often that collection took 45 %
# of the time. Collect the youngest generation a hundred times less often, and keep parsed
# trees out of the generations altogether (index.freeze_parsed_trees; the evaluator breaks its
# own cycles when an entry is done, so what is frozen is freed by reference counting).
GC_THRESHOLDS = (50_000, 20, 100)
COLLECT_GROWTH_MIB = 120
MIN_PARALLEL_FACTS_BYTES = 4_000_000  # about 100,000 lines: less is read faster than a pool starts
HEAVY_SHARE = 20  # the largest twentieth of the tasks is scheduled first


@dataclass(frozen=True)
class Settings:
    """What every worker needs, given once when the pool starts."""

    root: Path
    cwd: Path
    python_files: tuple[Path, ...]
    names: dict[Path, list[str]]  # the module names of each file
    max_file_bytes: int
    knowledge: Knowledge
    file_timeout_s: float
    # Base name -> the classes naming it, from the first pass (index.subclass_index); None: the
    # pool started before the first pass was done, and a worker reads the files when it asks.
    subclasses: dict[str, tuple[tuple[Path, str], ...]] | None = None


@dataclass(frozen=True)
class EntryTask:
    path: Path
    selected: tuple[int, ...]  # indices into the module's definitions (reach order) to evaluate
    reaching_names: frozenset[str] | None  # names of functions that can reach an LLM call
    parse_only: bool = False  # only report whether the module can be read and parsed
    wrappers: tuple[tuple[str, frozenset[str]], ...] = ()  # inferred wrappers (analysis/summaries.py)
    node_factories: frozenset[str] = frozenset()  # functions whose results are registered as graph nodes


@dataclass(frozen=True)
class EntryOutcome:
    path: Path
    layouts: tuple[PromptLayout, ...]
    errors: tuple[FileError, ...]
    files: tuple[Path, ...]  # every file the evaluation read (modules and prompt files)
    names: tuple[str, ...]  # every module name it tried to resolve
    seconds: float
    complete: bool  # False: abandoned at the time budget
    parses: int = 0  # modules this evaluation had to parse (not kept from an earlier entry)
    # Of the modules it read only through imports: the module-level names it looked up in each,
    # with their digests then (ModuleInfo.binding_digest; None: not defined there).
    bound: tuple[tuple[Path, tuple[tuple[str, str | None], ...]], ...] = ()


# --- the per-process workspace ---------------------------------------------------------------


class _RecordingNames(dict):  # type: ignore[type-arg]
    """The project's module-name table, noting every name looked up (a dependency: a module
    added later under that name changes the answer)."""

    def __init__(self, data: dict[str, Path]) -> None:
        super().__init__(data)
        self.looked_up: set[str] = set()

    def __contains__(self, key: object) -> bool:
        self.looked_up.add(key)  # type: ignore[arg-type]
        return super().__contains__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.looked_up.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> Path:
        self.looked_up.add(key)
        return super().__getitem__(key)


class TrackingProject(Project):
    """A Project that records what each entry's evaluation reads and keeps a bounded number of
    parsed modules between entries."""

    def __init__(self, root: Path, python_files: list[Path], cwd: Path, max_file_bytes: int,
                 names: dict[Path, list[str]]) -> None:
        super().__init__(root, python_files, cwd, max_file_bytes, names)
        self.by_name = _RecordingNames(self.by_name)
        self.files_read: set[Path] = set()
        self.read_whole: set[Path] = set()  # files an entry depends on as a whole (not by name)
        self.names_read = defaultdict(set)
        self.parses = 0
        self._splits: dict[str, tuple[ModuleInfo, list[str]] | None] = {}
        # Parsed modules, least recently used first; of them, those used since they were last
        # hollowed (the only ones whose weight can have grown); and the others' total weight.
        self._recent: OrderedDict[Path, ModuleInfo] = OrderedDict()
        self._used: OrderedDict[Path, ModuleInfo] = OrderedDict()
        self._hollow_weight = 0
        self.evaluating = False  # True from the first entry on (the reach pass reads whole modules)
        self.inherited = False  # True in a worker forked with its parent's parsed modules

    def begin_entry(self) -> None:
        self.files_read = set()
        self.read_whole = set()
        self.names_read = defaultdict(set)
        self.by_name.looked_up = set()
        self._splits = {}
        if not self.evaluating:
            self.evaluating = True
            if not self.inherited:
                # The reach pass's trees are whole modules chosen by file, not by what entries
                # read: a worker that kept them started its first entry with the budget full.
                # Parsing again what the entries need costs less than a second on litellm.
                self._forget(list(self._recent))
        self.evict()

    def split_module(self, qualname: str) -> tuple[ModuleInfo, list[str]] | None:
        # Asked ~100 times per entry for the same names; within an entry nothing is evicted, and
        # the first asking recorded the files read and the names looked up.
        if qualname not in self._splits:
            self._splits[qualname] = super().split_module(qualname)
        found = self._splits[qualname]
        return None if found is None else (found[0], list(found[1]))

    def module_at(self, path: Path) -> ModuleInfo | None:
        self.files_read.add(path)
        fresh = path not in self._modules
        self.parses += fresh
        module = super().module_at(path)
        if module is not None:
            if fresh and self.evaluating:
                # An entry reads few of the functions of the modules it imports (litellm's largest
                # entries read 500-870 modules), and the budget is enforced between entries only:
                # kept whole, their bodies doubled a worker's peak. Kept hollow from the start,
                # a body is parsed when the entry reads it (the reach pass reads them all).
                module.hollow()
            self._note_use(path, module)
        return module

    def _note_use(self, path: Path, module: ModuleInfo) -> None:
        if path in self._used:
            self._used.move_to_end(path)
        else:
            if path in self._recent:  # hollow since its last use: its weight may grow again
                self._hollow_weight -= module.weight
            self._used[path] = module
        self._recent[path] = module
        self._recent.move_to_end(path)

    def check_parses(self, path: Path) -> bool:
        self.files_read.add(path)
        self.read_whole.add(path)
        self.parses += path not in self._modules
        return super().check_parses(path)

    def read_text_file(self, path: Path, max_bytes: int) -> str | None:
        text = super().read_text_file(path, max_bytes)
        real = os.path.realpath(path)
        if real.startswith(str(self.root) + os.sep):  # outside: never read, so not a dependency
            self.files_read.add(path)
            self.read_whole.add(path)
        return text

    def bound_names(self) -> tuple[tuple[Path, tuple[tuple[str, str | None], ...]], ...]:
        """The modules this entry read only through imports, each with the names it looked up
        there and their digests: its finer dependencies (EntryOutcome.bound)."""
        found = []
        for path in sorted(self.files_read - self.read_whole):
            module = self._modules.get(path)
            if module is not None:
                found.append((path, tuple((name, module.binding_digest(name))
                                          for name in sorted(self.names_read.get(path, ())))))
        return tuple(found)

    def evict(self) -> None:
        """Keep the parsed trees within the memory budget: first drop the function bodies of the
        least recently used modules (a body is parsed again alone if it is used), then, if that
        is not enough, forget the least recently used modules."""
        kept = self._hollow_weight + sum(module.weight for module in self._used.values())
        while kept > PARSED_SOURCE_BUDGET and self._used:
            _, module = self._used.popitem(last=False)
            kept -= module.hollow()
            self._hollow_weight += module.weight
        while kept > PARSED_SOURCE_BUDGET and len(self._recent) > 1:
            path = next(iter(self._recent))
            kept -= self._recent[path].weight
            self._forget([path])

    def _forget(self, paths: list[Path]) -> None:
        for path in paths:
            module = self._recent.pop(path)
            if self._used.pop(path, None) is None:
                self._hollow_weight -= module.weight
            self._modules.pop(path, None)
            module.classes = {}  # ClassInfo.module points back: free the tree now, not at the next GC


class LayoutCollector:
    """The sink handler: one layout per distinct prompt reaching a call, at most a few per call."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.knowledge = knowledge
        self.layouts: list[PromptLayout] = []
        self._seen: set[tuple] = set()
        self._per_call: dict[tuple, int] = {}

    def on_sink(self, frame: Frame, node: ast.Call, name: str, args: list[Value], kwargs: dict[str, Value],
                owner: Obj | None) -> None:
        from promptlint.analysis.layout import build_layout, call_site

        spec = self.knowledge.apis[name]
        location = frame.module.location(node)
        site = call_site(node, frame.module, spec, kwargs, owner, location, frame.qualname)
        layout = build_layout(spec, site, args, kwargs, owner)
        self.add(self.with_request_derived(layout, frame))

    def with_request_derived(self, layout: PromptLayout, frame: Frame) -> PromptLayout:
        """The layout with what its final user turn (or a parameter named like the request's
        input) derives marked per request."""
        if frame.function is None:
            return layout
        layout = self.with_conversation_derived(layout, frame)
        named = self.named_inputs(frame)
        inputs = named | input_names([seg.expression for part in layout.parts if part.name == "final_user"
                                      for seg in part.segments if isinstance(seg, Hole)])
        scope = frame.module.location(frame.function)
        # With no input here, the holes tagged elsewhere (a helper's text made from the
        # conversation it was handed) are still per request.
        layout = mark_request_derived(layout, derived_names(frame.function, inputs) if inputs else set(), inputs,
                                      named=named, scope=scope)
        # What a user message built in the same function is made of is the request's input there
        # too (`summarize(article)` sends the article as the user's turn of one call and opens the
        # system text of the next with it): the same reading as at an assembly point, for the
        # system text only (an earlier user turn made of it is the conversation, not a misplacement).
        wider = inputs | self.user_turn_inputs(frame.function)
        if wider == inputs:
            return layout
        return mark_request_derived(layout, derived_names(frame.function, wider), wider, named=named,
                                    scope=scope, parts=frozenset({"system"}))

    def with_conversation_derived(self, layout: PromptLayout, frame: Frame) -> PromptLayout:
        """The layout with what is computed from the whole conversation so far (a parameter named
        like it: rules/prompt_sinks.yaml conversation_inputs, or a list the function heads with a
        system message) marked per request: a transcript of it grows with every turn, and what is
        retrieved or remembered for it changes with it."""
        if frame.function is None:
            return layout
        # By name, and by use: a list the function writes a system message at the head of (a
        # name, not an attribute) is the conversation that message heads (analysis/message_lists.py).
        names = parameter_names(frame.function) & self.knowledge.conversation_inputs | \
            {name for name in system_heads(frame.function).lists if "." not in name}
        derived = derived_names(frame.function, names, whole=True) if names else set()
        if not derived:
            return layout
        scope = frame.module.location(frame.function)
        layout = mark_rendered_conversation(layout, derived, names, scope)
        return mark_request_derived(layout, derived, names, named=frozenset(names), scope=scope, conversation=True)

    def user_turn_inputs(self, function: ast.AST) -> set[str]:
        users = {name.rsplit(".", 1)[-1]: ("#0",) for name in self.knowledge.user_messages}
        return user_turn_names(function, self.knowledge.user_roles, self.knowledge.content_keys, users,
                               self.knowledge.role_keys)

    def named_inputs(self, frame: Frame) -> frozenset[str]:
        """Parameters and locals named like the request's own input (rules/prompt_sinks.yaml
        request_inputs)."""
        if frame.function is None:
            return frozenset()
        return frozenset((parameter_names(frame.function) | assigned_names(frame.function))
                         & self.knowledge.request_inputs)

    def on_assembly(self, frame: Frame, node: ast.AST, what: str, text: Value, derived: set[str],
                    inputs: set[str], computed_by: set[str] | None = None, messages: Value | None = None,
                    via: Via | None = None) -> None:
        from promptlint.analysis.layout import assembled_once, assembly_layout

        if is_test_path(frame.module.display.replace(os.sep, "/")):
            return  # tests hand fakes to the prompt builders; only an LLM call seen in a test is judged
        layout = assembly_layout(what, text, frame.module.location(node), frame.qualname, messages, via)
        scope = frame.module.location(frame.function) if frame.function is not None else None
        layout = mark_request_derived(layout, derived, inputs, computed_by, self.named_inputs(frame), scope)
        layout = self.with_conversation_derived(layout, frame)
        self.add(assembled_once(layout, frame.first_turn) if frame.first_turn else layout)

    def on_messages(self, frame: Frame, node: ast.AST, what: str, messages: Value, via: Via | None = None,
                    tools: Value | None = None) -> None:
        from promptlint.analysis.layout import messages_layout

        if is_test_path(frame.module.display.replace(os.sep, "/")):
            return
        layout = messages_layout(what, messages, frame.module.location(node), frame.qualname, via, tools)
        self.add(self.with_request_derived(layout, frame))

    def on_user_turn(self, frame: Frame, node: ast.AST, what: str, text: Value, via: Via | None = None) -> None:
        from promptlint.analysis.layout import request_then_history, user_turn_layout
        from promptlint.checks.pc010_instructions_after_request import instructions_after_request

        if is_test_path(frame.module.display.replace(os.sep, "/")):
            return
        layout = user_turn_layout(what, text, frame.module.location(node), frame.qualname, via)
        if frame.depth > 0 or frame.in_llm_loop:
            # A callee run for its caller: the caller's own user text is judged where it is written.
            # In a loop that calls an LLM, the message usually follows the history the loop grows.
            # Except a transcript after the request's content, all in this one message (PC011):
            # what comes before the message does not change that.
            if request_then_history(layout, self.knowledge.request_inputs) is not None:
                self.add(layout)
            return
        layout = self.with_conversation_derived(layout, frame)
        # Most user messages are the input alone: kept when fixed text or the transcript follows it.
        if instructions_after_request(layout) is not None \
                or request_then_history(layout, self.knowledge.request_inputs) is not None:
            self.add(layout)

    def finished(self) -> tuple[PromptLayout, ...]:
        """The layouts, less the user messages judged alone that are written inside a call judged
        whole (`create(messages=[..., {"role": "user", ...}])`): that call knows what precedes them."""
        from promptlint.analysis.layout import USER_TURN_API

        whole = [layout.call.location for layout in self.layouts if not layout.call.api.startswith(USER_TURN_API)]
        return tuple(layout for layout in self.layouts if not layout.call.api.startswith(USER_TURN_API)
                     or not any(outer.contains(layout.call.location) for outer in whole))

    def add(self, layout: PromptLayout) -> None:
        if self.knowledge.observation_inputs:
            layout = mark_observed(layout, self.knowledge.observation_inputs)
        if self.knowledge.memory_names:
            layout = mark_remembered(layout, self.knowledge.memory_names)
        location = layout.call.location
        key = (location, layout.parts, layout.settings)
        # Counted per prompt source too: one client method sends every agent's template.
        call_key = (location.path, location.line, location.column, _first_source(layout))
        if key in self._seen or self._per_call.get(call_key, 0) >= MAX_LAYOUTS_PER_CALL:
            return
        self._seen.add(key)
        self._per_call[call_key] = self._per_call.get(call_key, 0) + 1
        self.layouts.append(layout)


def _first_source(layout: PromptLayout) -> str | None:
    """The file the final user turn's first fixed text comes from (a prompt template), else the
    prompt's (a completion API's single text: devika sends eleven agents' templates through one
    `generate(prompt=...)`), if any."""
    for wanted in ("final_user", None):
        for part in layout.parts:
            if wanted is None or part.name == wanted:
                for segment in part.segments:
                    if isinstance(segment, Literal) and segment.location is not None:
                        return segment.location.path
    return None


class Workspace:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.project = TrackingProject(settings.root, list(settings.python_files), settings.cwd,
                                       settings.max_file_bytes, settings.names)
        self.project.subclasses = settings.subclasses
        self._memory_after_collect = _resident_mib()
        self.shapes = sink_shapes(settings.knowledge)

    def _collect_if_grown(self) -> None:
        """With the raised thresholds, garbage can outlive its entry in the oldest generation;
        collect when the process has grown by COLLECT_GROWTH_MIB since the last collection
        instead of after every entry. Frozen objects (parsed trees and whatever was alive at a
        parse) are not scanned again: the evaluator breaks its own cycles (Evaluator.release),
        so they are freed by reference counting."""
        if _resident_mib() - self._memory_after_collect > COLLECT_GROWTH_MIB:
            gc.collect()  # what is not frozen: allocated since the last parse
            gc.freeze()  # the survivors are long-lived: keep young collections from rescanning them
            self._memory_after_collect = _resident_mib()

    def definitions(self, path: Path) -> Definitions | None:
        """(name, called names) of each definition of a module, for the reach analysis."""
        module = self.project.module_at(path)
        found = None if module is None else tuple(definition_calls(module, self.shapes))
        self.project.evict()
        return found

    def evaluate(self, task: EntryTask) -> EntryOutcome:
        project = self.project
        project.begin_entry()
        self._collect_if_grown()
        parses_before = project.parses
        started = time.monotonic()
        collector = LayoutCollector(self.settings.knowledge)
        stopped = None
        project.read_whole.add(task.path)
        if task.parse_only:
            project.check_parses(task.path)
        elif (module := project.module_at(task.path)) is not None:
            stopped = self._run(module, task, collector, started)
        # Errors of the files this entry read (a module that does not parse, a broken template):
        # attached to every entry that read them, so a cached entry keeps reporting them.
        displays = {project.display(path) for path in project.files_read}
        errors = [error for key, error in project.errors.items() if key in displays]
        if stopped is not None:
            errors = [e for e in errors if e.path != stopped.path] + [stopped]
        return EntryOutcome(task.path, collector.finished(), tuple(errors), tuple(sorted(project.files_read)),
                            tuple(sorted(project.by_name.looked_up)), time.monotonic() - started,
                            stopped is None or not stopped.message.startswith(ABANDONED),
                            project.parses - parses_before, project.bound_names())

    def _run(self, module: ModuleInfo, task: EntryTask, collector: LayoutCollector, started: float) -> FileError | None:
        """Evaluate the module's top level and its selected functions; why it stopped, if it did."""
        from promptlint.analysis.evaluator import DeadlineExceeded, Evaluator

        evaluator = Evaluator(self.project, self.settings.knowledge, collector.on_sink, collector.on_assembly,
                              collector.on_messages, collector.on_user_turn)
        evaluator.reaching_names = task.reaching_names
        evaluator.wrappers = dict(task.wrappers)
        evaluator.node_factories = task.node_factories
        selected = task.selected
        evaluator.deadline = started + self.settings.file_timeout_s
        definitions = module_definitions(module)
        functions = [definitions[i][1:] for i in selected if 0 <= i < len(definitions)]
        try:
            evaluator.steps = 0
            evaluator.run_module(module)
            for node, owner in functions:
                if id(node) not in evaluator.covered:
                    evaluator.run_function_entry(module, node, owner)
                for subclass in inheriting_subclasses(module, owner, node.name):
                    evaluator.run_function_entry(module, node, subclass)
        except DeadlineExceeded:
            return FileError(module.display, f"{ABANDONED}: it took longer than the per-file time budget "
                                             f"({self.settings.file_timeout_s:g} s; raise file-timeout to analyze it)")
        except (RecursionError, MemoryError) as exc:  # a resource limit a hostile file can reach: input
            return FileError(module.display, f"analysis stopped early: {type(exc).__name__}: {exc}")
        except Exception as exc:  # noqa: BLE001 - a bug in promptlint: reported as one, the other modules go on
            return internal_error(module.display, exc, "evaluating the module")
        finally:
            evaluator.release()
        return None


def inheriting_subclasses(module: ModuleInfo, owner: ClassInfo | None, method: str) -> list[ClassInfo]:
    """Classes of the module that derive from ``owner`` (directly or not) and inherit ``method``:
    run as one of them, ``self._section()`` in the base method reaches their overrides."""
    if owner is None:
        return []
    found: list[ClassInfo] = []
    parents = {owner.name}
    changed = True
    while changed:
        changed = False
        for info in module.classes.values():
            if info.name not in parents and any(_base_name(base) in parents for base in info.bases):
                parents.add(info.name)
                changed = True
                if method not in info.methods:
                    found.append(info)
    return found


def _base_name(base: ast.expr) -> str | None:
    return base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None


# --- running tasks ---------------------------------------------------------------------------

_WORKSPACE: Workspace | None = None
_INHERITED: Workspace | None = None  # this process's own workspace, which forked workers start from


def _start_worker(settings: Settings) -> None:
    global _WORKSPACE
    gc.set_threshold(*GC_THRESHOLDS)
    index.freeze_parsed_trees = True
    # Forked after this process parsed modules itself (a small project's reach pass): start
    # from them, rather than parse them again.
    if _INHERITED is not None and _INHERITED.settings is settings:
        _WORKSPACE = _INHERITED
        _WORKSPACE.project.inherited = True
    else:
        _WORKSPACE = Workspace(settings)
    gc.freeze()  # what the fork brought along is long-lived: keep collections from scanning (and copying) it


def _facts_task(task: FactsTask) -> FileFacts:
    return file_facts(*task)


def _definitions_task(path: Path) -> Definitions | None:
    assert _WORKSPACE is not None
    return _WORKSPACE.definitions(path)


def _evaluate_task(task: EntryTask) -> EntryOutcome:
    assert _WORKSPACE is not None
    return _WORKSPACE.evaluate(task)


Task = TypeVar("Task")
Result = TypeVar("Result")


class Workers:
    """The processes that parse and evaluate: this one, or a pool started on first use when
    there is enough work (each worker keeps its parsed modules across both phases)."""

    def __init__(self, settings: Settings, jobs: int) -> None:
        self.settings = settings
        self.jobs = jobs
        self._pool: ProcessPoolExecutor | None = None
        self._local: Workspace | None = None

    def __enter__(self) -> Workers:  # noqa: PYI034 - not subclassed
        return self

    def __exit__(self, *_: object) -> None:
        global _INHERITED
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
        self._local = _INHERITED = None

    def map(self, function: Callable[[Task], Result], tasks: list[Task], weights: list[int],
            parallel: bool, chunksize: int = 1, received: Callable[[Result], Result] | None = None) -> list[Result]:
        """``function`` over ``tasks`` (in path order), results in task order; ``received`` is
        applied to each result a worker sends, as it arrives."""
        if not tasks:
            return []
        if self._pool is None and not (parallel and self.jobs > 1 and len(tasks) > 1):
            return self._run_here(function, tasks)
        pool = self._pool or self._start_pool()
        order = _schedule(weights)
        results: list[Any] = [None] * len(tasks)
        for position, result in zip(order, pool.map(function, [tasks[i] for i in order], chunksize=chunksize)):
            results[position] = result if received is None else received(result)
        return results

    def _run_here(self, function: Callable[[Task], Result], tasks: list[Task]) -> list[Result]:
        global _WORKSPACE
        if self._local is None:
            self._local = Workspace(self.settings)
        saved, _WORKSPACE = _WORKSPACE, self._local
        thresholds = gc.get_threshold()
        gc.set_threshold(*GC_THRESHOLDS)
        index.freeze_parsed_trees = True
        try:
            return [function(task) for task in tasks]
        finally:
            _WORKSPACE = saved
            gc.set_threshold(*thresholds)
            index.freeze_parsed_trees = False
            gc.unfreeze()  # hand the caller's objects back to the collector

    def _start_pool(self) -> ProcessPoolExecutor:
        from concurrent.futures import ProcessPoolExecutor

        from promptlint.analysis import evaluator, layout  # noqa: F401 - once here, not in every worker

        global _INHERITED
        _INHERITED = self._local
        self._pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=_context(),
                                         initializer=_start_worker, initargs=(self.settings,))
        return self._pool

    def provide_subclasses(self, subclasses: dict[str, tuple[tuple[Path, str], ...]]) -> None:
        """The class index of the first pass, for the workers not started yet (a warm run's, or
        one whose first pass ran here) and for this process's workspace."""
        if self._pool is None:
            self.settings = replace(self.settings, subclasses=subclasses)
        if self._local is not None:
            self._local.project.subclasses = subclasses

    def file_facts(self, tasks: list[FactsTask]) -> list[FileFacts]:
        """facts.file_facts of each task: in the workers when the files are many megabytes (a
        framework's first run), here otherwise (a pool is not worth starting for a few files)."""
        sizes = [_size(path) for path, _, _ in tasks]
        chunk = max(1, len(tasks) // (self.jobs * 8))  # a file's facts take ~1 ms: batch them
        return self.map(_facts_task, tasks, sizes, sum(sizes) >= MIN_PARALLEL_FACTS_BYTES, chunk)

    def definitions(self, paths: list[Path], parallel: bool) -> list[Definitions | None]:
        return self.map(_definitions_task, paths, [_size(p) for p in paths], parallel, received=_shared_definitions)

    def evaluate(self, tasks: list[EntryTask], parallel: bool) -> list[EntryOutcome]:
        return self.map(_evaluate_task, tasks, [_size(t.path) for t in tasks], parallel,
                        received=_SharedNames().outcome)


class _SharedNames:
    """One object per distinct path, name and digest among the outcomes workers send back. Each
    outcome arrives unpickled with copies of its own: litellm's 1,900 entries each list the
    hundreds of files and module names they read: 30-40 MiB of copies in this process."""

    def __init__(self) -> None:
        self._paths: dict[Path, Path] = {}

    def path(self, path: Path) -> Path:
        return self._paths.setdefault(path, path)

    def outcome(self, outcome: EntryOutcome) -> EntryOutcome:
        intern = sys.intern
        return replace(outcome, files=tuple(map(self.path, outcome.files)), names=tuple(map(intern, outcome.names)),
                       bound=tuple((self.path(path), tuple((intern(name), digest and intern(digest))
                                                           for name, digest in names))
                                   for path, names in outcome.bound))


def _shared_definitions(definitions: Definitions | None) -> Definitions | None:
    """The names a worker's definitions call, one object per name (as _SharedNames)."""
    if definitions is None:
        return None
    intern = sys.intern
    return tuple((intern(name), frozenset(map(intern, calls)), plain,
                  tuple((line, intern(source), intern(target)) for line, source, target in flows))
                 for name, calls, plain, flows in definitions)


def _resident_mib() -> float:
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0  # no /proc: never collect early (Python's own thresholds still apply)


def _schedule(weights: list[int]) -> list[int]:
    """The heaviest tasks first, so no worker is left alone with a big one at the end; the rest
    in their given (path) order, so a worker's next entry tends to import what it just parsed."""
    count = len(weights)
    heavy = sorted(range(count), key=lambda i: -weights[i])[: max(1, count // HEAVY_SHARE)]
    chosen = set(heavy)
    return heavy + [i for i in range(count) if i not in chosen]


def _context() -> Any:
    # fork starts workers in milliseconds with the knowledge already loaded; elsewhere, spawn.
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def worker_count(jobs: int) -> int:
    if jobs > 0:
        return jobs
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
