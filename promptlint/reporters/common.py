"""Figures several reporters show: money at stake per provider, findings per rule/module/call site.

Pure arithmetic over the findings' estimates (``Finding.estimate`` filled by the estimator);
nothing here analyzes code.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from promptlint.model import AnalysisResult, Finding, ProviderLoss, Severity


@dataclass(frozen=True)
class ProviderTotal:
    provider: str
    model: str
    usd_per_month: float
    findings: int
    price_as_of: str


@dataclass(frozen=True)
class CallSiteSummary:
    path: str
    line: int
    api: str
    findings: tuple[Finding, ...]
    worst: ProviderLoss | None  # the costliest provider/model of the costliest finding here


def format_usd(amount: float) -> str:
    try:
        from promptlint.estimate import format_usd as estimator_format
    except ImportError:
        return f"${amount:,.2f}"
    return estimator_format(amount)


def worst_loss(finding: Finding) -> ProviderLoss | None:
    if finding.estimate is None or not finding.estimate.losses:
        return None
    return max(finding.estimate.losses, key=lambda loss: loss.usd_per_month)


def call_sites(result: AnalysisResult) -> list[CallSiteSummary]:
    """Findings grouped by the call they reach, costliest first."""
    groups: dict[tuple[str, int, str], list[Finding]] = defaultdict(list)
    for finding in result.findings:
        call = finding.call_site
        if call.api:
            groups[(call.location.path, call.location.line, call.api)].append(finding)
    sites = []
    for (path, line, api), findings in groups.items():
        losses = [loss for f in findings if (loss := worst_loss(f)) is not None]
        worst = max(losses, key=lambda loss: loss.usd_per_month, default=None)
        sites.append(CallSiteSummary(path, line, api, tuple(findings), worst))
    return sorted(sites, key=lambda s: (-(s.worst.usd_per_month if s.worst else 0), s.path, s.line))


def money_at_stake(result: AnalysisResult) -> float:
    """Worst case per call site, summed: findings at one call share one lost prefix, so they are
    not added up; alternative providers for one call are not added up either."""
    return sum(site.worst.usd_per_month for site in call_sites(result) if site.worst is not None)


def provider_totals(result: AnalysisResult) -> list[ProviderTotal]:
    """Per provider/model: the monthly loss of every call site priced for it (worst finding each)."""
    per_site: dict[tuple[str, str], dict[tuple[str, int], ProviderLoss]] = defaultdict(dict)
    counts: Counter[tuple[str, str]] = Counter()
    for finding in result.findings:
        site = (finding.call_site.location.path, finding.call_site.location.line)
        for loss in finding.estimate.losses if finding.estimate else ():
            key = (loss.provider, loss.model)
            counts[key] += 1
            current = per_site[key].get(site)
            if current is None or loss.usd_per_month > current.usd_per_month:
                per_site[key][site] = loss
    totals = [ProviderTotal(provider, model, sum(loss.usd_per_month for loss in sites.values()),
                            counts[(provider, model)], max((loss.price_as_of for loss in sites.values()), default=""))
              for (provider, model), sites in per_site.items()]
    return sorted(totals, key=lambda t: (-t.usd_per_month, t.provider, t.model))


def traffic_assumption(result: AnalysisResult) -> str:
    calls = sorted({loss.calls_per_day for f in result.findings for loss in (f.estimate.losses if f.estimate else ())})
    dates = sorted({loss.price_as_of for f in result.findings for loss in (f.estimate.losses if f.estimate else ())})
    if not calls:
        return ""
    traffic = f"{calls[0]:,.0f}" if len(calls) == 1 else f"{calls[0]:,.0f}–{calls[-1]:,.0f}"
    return f"{traffic} calls/day per call site; prices as of {', '.join(dates)}"


def by_rule(result: AnalysisResult) -> list[tuple[str, str, int]]:
    counts = Counter((f.rule, f.name) for f in result.findings)
    return sorted(((rule, name, n) for (rule, name), n in counts.items()), key=lambda r: (-r[2], r[0]))


def by_module(result: AnalysisResult) -> list[tuple[str, int]]:
    counts = Counter(module_name(f.location.path) for f in result.findings)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def module_name(path: str) -> str:
    """A readable module label for a path: dotted for Python files, the path otherwise."""
    posix = Path(path).as_posix()
    if posix.endswith(".py"):
        parts = [p for p in posix[:-3].split("/") if p not in (".", "..")]
        if parts and parts[-1] == "__init__":
            parts = parts[:-1]
        return ".".join(parts) or posix
    return posix


def severity_counts(result: AnalysisResult) -> dict[Severity, int]:
    return {s: sum(1 for f in result.findings if f.severity is s) for s in Severity}


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"
