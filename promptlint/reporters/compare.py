"""A codebase compared with a baseline file: which findings are new, fixed or unchanged, and the
estimated money each group represents (``promptlint report --baseline FILE``).

Matching is the baseline's own (``promptlint.baseline``: line-independent fingerprints, counted).
Money follows ``money_at_stake``: findings at one call site share one lost prefix, so per group
the worst finding of each call site counts once. Fixed findings are priced from what the baseline
recorded when it was written (baselines written before promptlint recorded costs have none).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from promptlint.baseline import baseline_key, read_baseline
from promptlint.model import AnalysisResult, Finding
from promptlint.reporters.common import worst_loss


@dataclass(frozen=True)
class FixedEntry:
    rule: str
    path: str
    message: str
    count: int
    usd_per_month: float | None  # None: the baseline did not record a cost
    call_site: str


@dataclass(frozen=True)
class Comparison:
    baseline: Path
    new: tuple[Finding, ...]
    unchanged: tuple[Finding, ...]
    fixed: tuple[FixedEntry, ...]

    @property
    def new_usd(self) -> float:
        return findings_money(self.new)

    @property
    def unchanged_usd(self) -> float:
        return findings_money(self.unchanged)

    @property
    def fixed_usd(self) -> float | None:
        priced = [e for e in self.fixed if e.usd_per_month is not None]
        if self.fixed and not priced:
            return None
        per_site: dict[str, float] = defaultdict(float)
        for entry in priced:
            key = entry.call_site or f"{entry.path} {entry.rule} {entry.message}"
            per_site[key] = max(per_site[key], entry.usd_per_month or 0.0)
        return sum(per_site.values())


def findings_money(findings: Iterable[Finding]) -> float:
    """Worst loss per call site, summed (as ``money_at_stake``)."""
    per_site: dict[tuple[str, int, str], float] = {}
    for finding in findings:
        loss = worst_loss(finding)
        if loss is None:
            continue
        call = finding.call_site
        key = (call.location.path, call.location.line, call.api)
        per_site[key] = max(per_site.get(key, 0.0), loss.usd_per_month)
    return sum(per_site.values())


def compare(result: AnalysisResult, path: Path, cwd: Path) -> Comparison:
    """Raises ``BaselineError`` for a missing or malformed file, like ``check --baseline``."""
    remaining = read_baseline(path)
    entries = _entries(path)
    new, unchanged = [], []
    for finding in result.findings:
        key = baseline_key(finding, path.parent, cwd)
        if remaining[key] > 0:
            remaining[key] -= 1
            unchanged.append(finding)
        else:
            new.append(finding)
    fixed = []
    for key, count in remaining.items():
        if count <= 0:
            continue
        entry = entries.get(key, {})
        usd = entry.get("usd_per_month")
        fixed.append(FixedEntry(str(entry.get("rule", "?")), str(entry.get("path", "?")),
                                str(entry.get("message", "")), count,
                                float(usd) if isinstance(usd, (int, float)) else None,
                                str(entry.get("call_site", ""))))
    fixed.sort(key=lambda e: (-(e.usd_per_month or 0.0), e.path, e.rule))
    return Comparison(path, tuple(new), tuple(unchanged), tuple(fixed))


def _entries(path: Path) -> dict[str, dict[str, Any]]:
    document = json.loads(path.read_text(encoding="utf-8"))  # read_baseline validated it
    return {e["fingerprint"]: e for e in document["findings"]}
