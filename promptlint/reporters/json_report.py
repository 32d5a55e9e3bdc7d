"""``--format json``: the versioned contract other tools read.

Version 1 keys are fixed: ``version``, ``findings`` (``rule``, ``name``, ``severity``, ``path``,
``line``, ``column``, ``end_line``, ``end_column``, ``message``, ``volatile_source`` {``path``,
``line``, ``kind``}, ``call_site`` {``path``, ``line``, ``api``}, ``lost_tokens_per_call``),
``errors`` (``path``, ``message``) and ``summary``. Later additions only add keys (``cell``: the
1-based cell of a Jupyter notebook, ``line`` then counting within the cell, null for other files;
errors: ``kind`` "input" | "internal", ``exception``, ``where``; summary: ``internal_errors``).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict
from typing import Any

from promptlint import __version__
from promptlint.config import Config
from promptlint.model import AnalysisResult, FileError, Finding

CONTRACT_VERSION = 1


def finding_record(finding: Finding) -> dict[str, Any]:
    loc = finding.location
    source = finding.volatile_source
    estimate = finding.estimate
    return {
        "rule": finding.rule,
        "name": finding.name,
        "severity": finding.severity.value,
        "path": loc.path,
        "line": loc.line,
        "column": loc.column,
        "end_line": loc.end_line,
        "end_column": loc.end_column,
        "message": finding.message,
        "volatile_source": None if source is None else {
            "path": source.location.path, "line": source.location.line, "kind": source.volatility.value,
            "category": source.category, "source": source.source, "cell": source.location.cell,
        },
        "call_site": {"path": finding.call_site.location.path, "line": finding.call_site.location.line,
                      "api": finding.call_site.api, "provider": finding.call_site.provider,
                      "model": finding.call_site.model, "cell": finding.call_site.location.cell},
        "lost_tokens_per_call": estimate.lost_tokens_per_call if estimate else None,
        # Additions to version 1 (compatible: new keys only).
        "hint": finding.hint,
        "fingerprint": finding.fingerprint,
        "related": [{"path": r.location.path, "line": r.location.line, "message": r.message, "note": r.note}
                    for r in finding.related],
        "estimate": None if estimate is None else asdict(estimate),
        # Jupyter notebooks: the 1-based cell, with line/end_line within it (null elsewhere).
        "cell": loc.cell,
    }


def error_record(error: FileError) -> dict[str, Any]:
    # ``kind``, ``exception`` and ``where`` are additions to version 1: "input" (the file could not
    # be analyzed) or "internal" (a bug in promptlint; exit code 2), with the exception and the
    # place in promptlint's code for internal errors (null otherwise).
    return {"path": error.path, "message": error.message, "kind": error.kind,
            "exception": error.exception, "where": error.where}


def summary(result: AnalysisResult) -> dict[str, Any]:
    by_severity = Counter(f.severity.value for f in result.findings)
    by_rule = Counter(f.rule for f in result.findings)
    return {
        "findings": len(result.findings),
        "by_severity": {k: by_severity.get(k, 0) for k in ("error", "warning", "info")},
        "by_rule": dict(sorted(by_rule.items())),
        "files_analyzed": result.files_analyzed,
        "call_sites": len({(l.call.location.path, l.call.location.line) for l in result.layouts}),
        "errors": len(result.errors),
        "internal_errors": sum(1 for e in result.errors if e.internal),
        "promptlint_version": __version__,
    }


def render_json(result: AnalysisResult, config: Config) -> str:
    document = {
        "version": CONTRACT_VERSION,
        "findings": [finding_record(f) for f in result.findings],
        "errors": [error_record(e) for e in result.errors],
        "summary": summary(result),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
