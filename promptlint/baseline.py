"""Baselines: record today's findings so legacy code can adopt promptlint; report only new ones.

A baseline is JSON: one entry per finding identity with a count. The identity is the engine's
line-independent fingerprint (rule, file, API, enclosing function, volatile source, message with
numbers blurred), computed with the file path relative to the baseline file's own folder, so
moving code inside a file, or running from another folder, does not resurrect old findings.
Matching is by count: if a baseline holds one finding of an identity and the code now has two,
one is new and reported.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from promptlint import __version__
from promptlint.engine import fingerprint
from promptlint.model import AnalysisResult, Finding

BASELINE_VERSION = 1


class BaselineError(Exception):
    """A baseline file that cannot be read: reported with exit code 2."""


@dataclass(frozen=True)
class BaselineStats:
    hidden: int
    stale: int  # baseline entries no finding matched any more (fixed, or the code is gone)


def baseline_key(finding: Finding, baseline_dir: Path, cwd: Path) -> str:
    absolute = (cwd / finding.location.path).resolve()
    try:
        relative = Path(os.path.relpath(absolute, baseline_dir.resolve())).as_posix()
    except ValueError:
        relative = absolute.as_posix()
    moved = replace(finding, location=replace(finding.location, path=relative))
    return fingerprint(moved)


def write_baseline(result: AnalysisResult, path: Path, cwd: Path) -> int:
    """Write every finding of ``result`` to ``path``; returns the number of findings recorded."""
    entries: dict[str, dict[str, Any]] = {}
    for finding in result.findings:
        key = baseline_key(finding, path.parent, cwd)
        entry = entries.setdefault(key, {"fingerprint": key, "rule": finding.rule,
                                         "path": finding.location.path, "message": finding.message,
                                         "count": 0})
        entry["count"] += 1
        # What the finding cost when recorded: `report --baseline` prices what was fixed since.
        call = finding.call_site
        if call.api:
            entry["call_site"] = f"{call.location.path}:{call.location.line} {call.api}"
        worst = max((loss.usd_per_month for loss in finding.estimate.losses), default=0.0) \
            if finding.estimate is not None else 0.0
        entry["usd_per_month"] = round(max(entry.get("usd_per_month", 0.0), worst), 2)
    document = {
        "version": BASELINE_VERSION,
        "tool": f"promptlint {__version__}",
        "about": "Findings accepted when this baseline was written; `promptlint check --baseline "
                 "FILE` reports only others. Matching ignores line numbers. Regenerate with "
                 "`promptlint baseline`.",
        "findings": sorted(entries.values(), key=lambda e: (e["path"], e["rule"], e["fingerprint"])),
    }
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(temporary, path)
    return len(result.findings)


def read_baseline(path: Path) -> Counter[str]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BaselineError(f"baseline file not found: {path} (write one with `promptlint baseline`)") \
            from None
    except (OSError, ValueError) as exc:
        raise BaselineError(f"cannot read baseline {path}: {exc}") from None
    if not isinstance(document, dict) or document.get("version") != BASELINE_VERSION or \
            not isinstance(document.get("findings"), list):
        raise BaselineError(f"{path} is not a promptlint baseline (version {BASELINE_VERSION})")
    counts: Counter[str] = Counter()
    for entry in document["findings"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str):
            raise BaselineError(f"{path}: every finding needs a 'fingerprint'")
        counts[entry["fingerprint"]] += int(entry.get("count", 1))
    return counts


def apply_baseline(result: AnalysisResult, path: Path, cwd: Path) -> tuple[AnalysisResult, BaselineStats]:
    """Hide the findings the baseline accepts (up to its count per identity)."""
    remaining = read_baseline(path)
    kept: list[Finding] = []
    for finding in result.findings:
        key = baseline_key(finding, path.parent, cwd)
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            kept.append(finding)
    stats = BaselineStats(hidden=len(result.findings) - len(kept), stale=sum(remaining.values()))
    return replace(result, findings=tuple(kept)), stats
