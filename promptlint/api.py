"""The stable Python API, for tools that embed promptlint::

    import promptlint

    result = promptlint.check(["src"], config={"select": ["PC001"], "show-info": True})
    for finding in result.findings:
        print(finding.path, finding.line, finding.rule, finding.message)
    raise SystemExit(result.exit_code)

``check`` runs exactly what ``promptlint check --format json`` runs (the same configuration
lookup, suppressions, baseline and ``--diff`` filters) and returns frozen dataclasses with the
fields of the JSON contract, version 1 (docs/integrations.md#python-api); ``Result.to_dict()``
is that JSON document. Like the JSON contract, these classes only ever gain fields.

Everything else in the package is internal and may change between releases.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = ["CallSite", "CheckError", "ConfigError", "Estimate", "FileError", "Finding", "ProviderLoss",
           "Related", "Result", "Summary", "VolatileSource", "check"]

PathLike = str | os.PathLike[str]
SeverityName = Literal["error", "warning", "info"]


class CheckError(Exception):
    """The check could not run: a missing path, an unknown git ref, a bad baseline file (the
    command line's exit code 2). Findings and per-file errors are never raised."""


class ConfigError(CheckError, ValueError):
    """Bad configuration: an unknown key, a wrong type, an unknown rule code."""


@dataclass(frozen=True)
class VolatileSource:
    path: str
    line: int
    kind: str  # how often it changes: per-request, per-user, per-session, per-day, ...
    category: str  # clock, uuid, random, user-id, set-order, ...
    source: str  # qualified name, e.g. "datetime.datetime.now"
    cell: int | None = None  # Jupyter notebooks: the 1-based cell; line counts within it


@dataclass(frozen=True)
class CallSite:
    path: str
    line: int
    api: str  # e.g. "openai.chat.completions"
    provider: str
    model: str | None
    cell: int | None = None


@dataclass(frozen=True)
class Related:
    path: str
    line: int
    message: str
    note: bool = False  # not a step of the value's path: a note beside it (README, `related`)


@dataclass(frozen=True)
class ProviderLoss:
    provider: str
    model: str
    lost_tokens_per_call: int
    usd_per_1k_calls: float
    usd_per_month: float
    calls_per_day: float
    price_as_of: str
    note: str = ""


@dataclass(frozen=True)
class Estimate:
    lost_tokens_per_call: int | None
    tokenizer: str
    exact: bool
    unknown_length: bool = False
    losses: tuple[ProviderLoss, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class Finding:
    rule: str  # stable code, e.g. "PC001"
    name: str  # e.g. "volatile-before-stable"
    severity: SeverityName
    path: str  # relative to the working directory, as printed
    line: int  # 1-based
    column: int  # 1-based, in Unicode code points
    end_line: int
    end_column: int
    message: str
    volatile_source: VolatileSource | None
    call_site: CallSite
    lost_tokens_per_call: int | None
    hint: str = ""
    fingerprint: str = ""  # line-independent identity (what baselines match)
    related: tuple[Related, ...] = ()
    estimate: Estimate | None = None
    cell: int | None = None  # Jupyter notebooks: the 1-based cell; line/end_line count within it


@dataclass(frozen=True)
class FileError:
    path: str
    message: str


@dataclass(frozen=True)
class Summary:
    findings: int
    by_severity: Mapping[str, int]
    by_rule: Mapping[str, int]
    files_analyzed: int
    call_sites: int
    errors: int
    promptlint_version: str


@dataclass(frozen=True)
class Result:
    version: int  # the JSON contract's version (1)
    findings: tuple[Finding, ...]
    errors: tuple[FileError, ...]  # files that could not be analyzed
    summary: Summary
    exit_code: int  # what `promptlint check` would exit with: 0 clean, 1 findings at the fail level, 2 nothing analyzed
    _document: Mapping[str, Any] = field(repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract's document, as ``promptlint check --format json`` prints it."""
        import copy

        return copy.deepcopy(dict(self._document))

    def __repr__(self) -> str:
        return (f"Result(findings={len(self.findings)}, errors={len(self.errors)}, "
                f"files_analyzed={self.summary.files_analyzed}, exit_code={self.exit_code})")


def check(
    paths: PathLike | Iterable[PathLike] = ".",
    *,
    config: Mapping[str, Any] | PathLike | None = None,
    cwd: PathLike | None = None,
    diff: str | None = None,
    baseline: PathLike | None = None,
) -> Result:
    """Analyze ``paths`` (files or folders, relative to ``cwd``, default: the working directory).

    ``config``: None finds ``[tool.promptlint]`` upwards from the first path, as the command line
    does; a path names a configuration file (``--config``); a mapping holds settings with the
    keys of ``[tool.promptlint]`` (``{"select": ["PC001"], "exclude": ["tests"]}``), applied over
    the configuration found, like command-line flags. ``diff``: a git ref (``--diff``);
    ``baseline``: a baseline file (``--baseline``).
    """
    from promptlint.baseline import BaselineError
    from promptlint.config import ConfigError as InternalConfigError
    from promptlint.config import apply_settings, load_config
    from promptlint.gitdiff import GitError
    from promptlint.pipeline import CheckOptions, run_check
    from promptlint.reporters.json_report import render_json

    folder = Path(cwd) if cwd is not None else Path.cwd()
    folder = folder.resolve()
    targets = [Path(paths)] if isinstance(paths, (str, os.PathLike)) else [Path(p) for p in paths]
    targets = targets or [Path(".")]
    missing = [str(p) for p in targets if not (folder / p).exists()]
    if missing:
        raise CheckError(f"no such file or folder: {', '.join(missing)}")
    try:
        if config is None or isinstance(config, Mapping):
            loaded = load_config(folder / targets[0])
            if config:
                loaded = apply_settings(loaded, dict(config), "promptlint.check(config=...)")
        else:
            loaded = load_config(folder / targets[0], folder / Path(config))
        options = CheckOptions(diff_ref=diff, baseline=None if baseline is None else folder / Path(baseline),
                               attach_fixes=False)
        outcome = run_check(targets, loaded, options, folder)
    except InternalConfigError as exc:
        raise ConfigError(str(exc)) from None
    except (BaselineError, GitError) as exc:
        raise CheckError(str(exc)) from None
    from promptlint.engine import nothing_analyzed

    failing = any(f.severity.rank >= loaded.fail_on.rank for f in outcome.result.findings)
    status = 1 if failing else 2 if nothing_analyzed(outcome.result) else 0
    document = json.loads(render_json(outcome.result, loaded))  # paths relative to ``cwd``
    return from_document(document, status)


def from_document(document: Mapping[str, Any], exit_code: int = 0) -> Result:
    """A Result from a JSON contract document (e.g. one read from ``promptlint check --format json``)."""
    return Result(
        version=int(document["version"]),
        findings=tuple(_finding(record) for record in document["findings"]),
        errors=tuple(FileError(e["path"], e["message"]) for e in document["errors"]),
        summary=Summary(**{k: document["summary"][k] for k in Summary.__dataclass_fields__}),
        exit_code=exit_code,
        _document=document,
    )


def _finding(record: Mapping[str, Any]) -> Finding:
    source = record.get("volatile_source")
    call = record["call_site"]
    estimate = record.get("estimate")
    return Finding(
        rule=record["rule"], name=record["name"], severity=record["severity"], path=record["path"],
        line=record["line"], column=record["column"], end_line=record["end_line"],
        end_column=record["end_column"], message=record["message"],
        volatile_source=None if source is None else VolatileSource(
            source["path"], source["line"], source["kind"], source.get("category", ""), source.get("source", ""),
            source.get("cell")),
        call_site=CallSite(call["path"], call["line"], call["api"], call.get("provider", ""), call.get("model"),
                           call.get("cell")),
        lost_tokens_per_call=record.get("lost_tokens_per_call"),
        hint=record.get("hint", ""),
        fingerprint=record.get("fingerprint", ""),
        related=tuple(Related(r["path"], r["line"], r["message"], r.get("note", False))
                      for r in record.get("related", ())),
        estimate=None if estimate is None else Estimate(
            lost_tokens_per_call=estimate["lost_tokens_per_call"], tokenizer=estimate["tokenizer"],
            exact=estimate["exact"], unknown_length=estimate.get("unknown_length", False),
            losses=tuple(ProviderLoss(**{k: loss[k] for k in ProviderLoss.__dataclass_fields__ if k in loss})
                         for loss in estimate.get("losses", ())),
            note=estimate.get("note", "")),
        cell=record.get("cell"),
    )
