"""The analysis pipeline: discover → index → layouts → rules → filter → estimate.

``analyze`` is the one entry point the CLI, the estimator, the verifier and the reporters use.
It never imports or runs analyzed code, and a problem with one file never stops the others.
"""

from __future__ import annotations

import ast
import fnmatch
import hashlib
import re
import time
from dataclasses import replace
from pathlib import Path

from promptlint.analysis.evaluator import Evaluator, Frame
from promptlint.analysis.index import ModuleInfo
from promptlint.analysis.layout import build_layout, call_site
from promptlint.analysis.project import Project
from promptlint.analysis.reach import reaching_functions
from promptlint.analysis.values import Obj, Value
from promptlint.checks import RULES_BY_CODE, RuleContext, selected_rules
from promptlint.checks.pc008_chat_template_date import ChatTemplateDate
from promptlint.config import Config
from promptlint.discover import discover, read_small_text
from promptlint.knowledge import Knowledge, load_knowledge
from promptlint.prefilter import entry_files
from promptlint.model import AnalysisResult, FileError, Finding, PromptLayout, Severity

MAX_LAYOUTS_PER_CALL = 8


def analyze(paths: list[Path], config: Config, cwd: Path | None = None) -> AnalysisResult:
    started = time.perf_counter()
    cwd = (cwd or Path.cwd()).resolve()
    knowledge = load_knowledge(config)
    requested = discover(paths, config, cwd)
    project_files = discover([config.root], config, cwd) if _inside(config.root, paths, cwd) else requested
    python_files = sorted({*project_files.python, *requested.python})
    project = Project(config.root.resolve(), python_files, cwd, config.max_file_bytes)
    layouts = collect_layouts(project, knowledge, _entry_files(python_files, requested.python, knowledge, config.root.resolve()))
    findings = run_rules(layouts, config)
    pins = [p for p in python_files if _mentions_date_pin(p)]
    findings += template_findings(project, {*project_files.other, *requested.other, *pins}, config)
    findings = finalize(findings, config, [(cwd / p).resolve() for p in paths], cwd)
    errors = _errors(requested.errors, project.errors, [(cwd / p).resolve() for p in paths], cwd)
    result = AnalysisResult(tuple(findings), tuple(errors), tuple(layouts), len(requested.python),
                            {"seconds": time.perf_counter() - started,
                             "modules_parsed": float(len(project.parsed_modules()))})
    return _estimate(result, config)


def _inside(root: Path, paths: list[Path], cwd: Path) -> bool:
    root = root.resolve()
    return all(root == (cwd / p).resolve() or root in (cwd / p).resolve().parents for p in paths)


def _entry_files(python_files: list[Path], requested: list[Path], knowledge: Knowledge,
                 root: Path) -> list[Path]:
    texts: dict[Path, str] = {}
    unreadable: list[Path] = []
    for path in python_files:
        text = read_small_text(path)
        if text is None:
            if path in requested:
                unreadable.append(path)  # let the parser report why it cannot be read
            continue
        texts[path] = text
    return sorted({*entry_files(texts, root, set(knowledge.trigger_words)), *unreadable})


def _mentions_date_pin(path: Path) -> bool:
    text = read_small_text(path)
    return text is not None and ("date_string" in text or "VLLM_SYSTEM_START_DATE" in text)


def collect_layouts(project: Project, knowledge: Knowledge, entries: list[Path]) -> list[PromptLayout]:
    layouts: list[PromptLayout] = []
    seen: set[tuple] = set()
    per_call: dict[tuple, int] = {}

    def on_sink(frame: Frame, node: ast.Call, name: str, args: list[Value], kwargs: dict[str, Value],
                owner: Obj | None) -> None:
        spec = knowledge.apis[name]
        location = frame.module.location(node)
        site = call_site(node, frame.module, spec, kwargs, owner, location, frame.qualname)
        layout = build_layout(spec, site, args, kwargs, owner)
        key = (location, layout.parts, layout.settings)
        call_key = (location.path, location.line, location.column)
        if key in seen or per_call.get(call_key, 0) >= MAX_LAYOUTS_PER_CALL:
            return
        seen.add(key)
        per_call[call_key] = per_call.get(call_key, 0) + 1
        layouts.append(layout)

    evaluator = Evaluator(project, knowledge, on_sink)
    modules = [m for m in (project.module_at(path) for path in entries) if m is not None]
    functions, evaluator.reaching_names = reaching_functions(modules, knowledge.api_method_names)
    by_module: dict[int, list] = {}
    for node, module, owner in functions:
        by_module.setdefault(id(module), []).append((node, owner))
    for module in modules:
        _analyze_module(evaluator, module, project, by_module.get(id(module), []))
    return layouts


def _analyze_module(evaluator: Evaluator, module: ModuleInfo, project: Project, functions: list) -> None:
    try:
        evaluator.steps = 0
        evaluator.run_module(module)
        for node, owner in functions:
            evaluator.run_function_entry(module, node, owner)
    except Exception as exc:  # noqa: BLE001 - one odd module must not stop the analysis
        project.errors.setdefault(module.display, FileError(
            module.display, f"analysis stopped early: {type(exc).__name__}: {exc}"))


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
        path = (cwd / location.path).resolve()
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
        path = (cwd / error.path).resolve()
        if any(path == r or r in path.parents for r in requested):
            seen.setdefault(error.path, error)
    return sorted(seen.values(), key=lambda e: e.path)


def _estimate(result: AnalysisResult, config: Config) -> AnalysisResult:
    try:
        from promptlint.estimate import estimate
    except ImportError:
        return result
    return estimate(result, config)
