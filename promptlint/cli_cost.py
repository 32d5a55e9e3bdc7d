"""`promptlint cost`: what each cache-busting call site costs, per provider, as an estimate.

Runs the same analysis as `check`, then prints, per call site and provider, the cached tokens lost
per call, the dollars per 1,000 calls and per month, with a bar chart in a terminal (plain columns
otherwise) or the same figures as JSON. Every figure is printed with its assumptions: traffic,
tokenizer (exact or approximate) and the date of the prices.
"""

from __future__ import annotations

import io
import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from promptlint.config import Config, ConfigError
from promptlint.model import AnalysisResult, CallSite, Finding, ProviderLoss

BAR_WIDTH = 28
COST_JSON_VERSION = 1


def register(app: typer.Typer) -> None:
    app.command("cost")(cost)


def cost(
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Files or folders (default: .)")] = None,
    output_format: Annotated[str, typer.Option("--format", "-f", help="text | json")] = "text",
    calls_per_day: Annotated[
        Optional[float], typer.Option("--calls-per-day", help="Calls per day per call site")
    ] = None,
    provider: Annotated[
        Optional[list[str]],
        typer.Option("--provider", help="Provider or provider/model to price when a call's model "
                                        "is unknown (repeatable)"),
    ] = None,
    tokenizer: Annotated[
        Optional[Path], typer.Option("--tokenizer", help="tokenizer.json of the model you serve")
    ] = None,
    config_file: Annotated[Optional[Path], typer.Option("--config", help="Config file")] = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to a file")] = None,
) -> None:
    """Estimate the cached tokens and dollars each cache-busting call site loses, per provider."""
    from promptlint.cli import emit, fail, resolve_config, split_codes
    from promptlint.engine import analyze

    if output_format not in ("text", "json"):
        raise fail(f"unknown format '{output_format}' (choose from: json, text)")
    targets = paths or [Path(".")]
    missing = [str(p) for p in targets if not p.exists()]
    if missing:
        raise fail(f"no such file or folder: {', '.join(missing)}")
    overrides: dict[str, object] = {"calls-per-day": calls_per_day, "providers": split_codes(provider),
                 "tokenizer": str(tokenizer.resolve()) if tokenizer else None}
    try:
        config = resolve_config(targets, config_file, overrides)
        result = with_estimates(analyze(targets, replace(config, count_in_background=True)), config)
        report = build_report(result, config)
    except ConfigError as exc:
        raise fail(str(exc)) from None
    emit(render_json(report) if output_format == "json" else render_text(report), output)


def with_estimates(result: AnalysisResult, config: Config) -> AnalysisResult:
    from promptlint.estimate import estimate  # imported here: not on every start of the CLI

    """The engine estimates as part of `analyze`; estimate here only if it did not."""
    if all(f.estimate is not None for f in result.findings):
        return result
    return estimate(result, config)


@dataclass(frozen=True)
class SiteReport:
    call: CallSite
    calls_per_day: float
    traffic_source: str
    findings: tuple[Finding, ...]
    losses: tuple[ProviderLoss, ...]  # per provider/model: the worst finding at this call site

    @property
    def worst_usd_per_month(self) -> float:
        return max((loss.usd_per_month for loss in self.losses), default=0.0)


@dataclass(frozen=True)
class CostReport:
    sites: tuple[SiteReport, ...]
    assumptions: dict[str, Any]
    unpriced: tuple[Finding, ...]  # findings with no estimate (no layout: template-only rules)


def build_report(result: AnalysisResult, config: Config) -> CostReport:
    groups: dict[tuple, list[Finding]] = {}
    unpriced: list[Finding] = []
    for finding in result.findings:
        if finding.estimate is None or not finding.estimate.losses:
            unpriced.append(finding)
            continue
        loc = finding.call_site.location
        groups.setdefault((loc.path, loc.line, loc.column, finding.call_site.api), []).append(finding)
    sites = [_site_report(findings, config) for findings in groups.values()]
    sites.sort(key=lambda s: (-s.worst_usd_per_month, s.call.location.path, s.call.location.line))
    return CostReport(tuple(sites), assumptions(result, config), tuple(unpriced))


def _site_report(findings: list[Finding], config: Config) -> SiteReport:
    from promptlint.estimate.traffic import traffic_for

    worst: dict[tuple[str, str], ProviderLoss] = {}
    for finding in findings:
        for loss in finding.estimate.losses if finding.estimate else ():
            key = (loss.provider, loss.model)
            if key not in worst or loss.usd_per_month > worst[key].usd_per_month:
                worst[key] = loss
    call = findings[0].call_site
    traffic = traffic_for(call, config)
    losses = sorted(worst.values(), key=lambda loss: -loss.usd_per_month)
    return SiteReport(call, traffic.calls_per_day, traffic.source, tuple(findings), tuple(losses))


def assumptions(result: AnalysisResult, config: Config) -> dict[str, Any]:
    from promptlint.estimate.prices import PriceTable, load_price_table
    from promptlint.estimate.tokens import load_counter

    counter = load_counter(config.tokenizer, config.root)
    table: PriceTable = load_price_table(config)
    estimates = [f.estimate for f in result.findings if f.estimate is not None]
    dates = sorted({loss.price_as_of for e in estimates for loss in e.losses})
    return {
        "estimate": True,
        "calls_per_day_default": config.calls_per_day,
        "traffic": dict(config.traffic),
        "month_days": table.month_days,
        "tokenizer": counter.name,
        "tokenizer_bundled": counter.bundled,
        "tokenizer_exact_for": "the user's own model" if not counter.bundled
        else "OpenAI GPT-4o, GPT-4.1, GPT-5 to 5.5, gpt-oss (approximate for every other model)",
        "price_table_as_of": table.as_of,
        "price_rows_as_of": [dates[0], dates[-1]] if dates else [],
        "user_price_rows": len(config.prices),
        "cache_warm_model": "a call hits when the previous one came within the TTL (Poisson arrivals)",
    }


# --- text ---------------------------------------------------------------------------------------


def make_console(buffer: io.StringIO) -> Console:
    from promptlint import colors

    terminal = sys.stdout.isatty()
    color = colors.wanted(sys.stdout)
    return Console(file=buffer, force_terminal=color, no_color=not color, highlight=False,
                   soft_wrap=not terminal, width=None if terminal else 10_000, emoji=False)


def render_text(report: CostReport) -> str:
    from promptlint.estimate import format_usd

    buffer = io.StringIO()
    console = make_console(buffer)
    console.print("[bold]Prompt-cache losses per call site and provider[/] "
                  "[dim](estimates, not measurements)[/]")
    console.print(_assumption_line(report.assumptions))
    scale = max((s.worst_usd_per_month for s in report.sites), default=0.0)
    for site in report.sites:
        _render_site(console, site, scale)
    for finding in report.unpriced:
        console.print(f"\n[dim]{escape(finding.location.short())} {finding.rule}: no prompt layout "
                      "to count (not priced)[/]")
    if not report.sites:
        console.print("\nNo cache-busting call site with a prompt layout: nothing to price.")
    else:
        total = sum(s.worst_usd_per_month for s in report.sites)
        console.print(f"\n[bold]Total[/]: up to {format_usd(total)}/month across "
                      f"{len(report.sites)} call site(s) (most expensive provider per call site; "
                      "estimate)")
    return buffer.getvalue()


def _assumption_line(a: dict[str, Any]) -> str:
    tokens = f"{a['tokenizer']} ({'bundled' if a['tokenizer_bundled'] else 'yours'}; exact for " \
             f"{a['tokenizer_exact_for']})"
    rows = " to ".join(dict.fromkeys(a["price_rows_as_of"])) or "n/a"
    return (f"[dim]Assumptions: {a['calls_per_day_default']:,.0f} calls/day per call site unless "
            f"configured; month = {a['month_days']} days; tokens {escape(tokens)}; price table as of "
            f"{a['price_table_as_of']} (rows dated {rows}); {escape(a['cache_warm_model'])}.[/]")


def _render_site(console: Console, site: SiteReport, scale: float) -> None:
    from promptlint.estimate import format_usd

    call = site.call
    model = f" model={call.model}" if call.model else " model unknown"
    where = f" in {call.function}" if call.function else ""
    console.print(f"\n[bold]{escape(call.location.short())}[/] {escape(call.api)}{escape(model)}"
                  f"{escape(where)} · {site.calls_per_day:,.0f} calls/day ({escape(site.traffic_source)})")
    for finding in site.findings:
        console.print(f"  {finding.rule} {escape(finding.location.short())}: {escape(finding.message)}")
    table = Table(box=box.SIMPLE, show_edge=False, pad_edge=False)
    for header, justify in (("provider/model", "left"), ("lost tokens/call", "right"),
                            ("$/1k calls", "right"), ("$/month", "right"), ("prices as of", "left"),
                            ("", "left")):
        table.add_column(header, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    bound = any(f.estimate and f.estimate.unknown_length for f in site.findings)
    for loss in site.losses:
        table.add_row(f"{loss.provider}/{loss.model}",
                      f"{'≥' if bound and loss.lost_tokens_per_call else ''}{loss.lost_tokens_per_call:,}",
                      format_usd(loss.usd_per_1k_calls), format_usd(loss.usd_per_month),
                      loss.price_as_of, bar(loss.usd_per_month, scale))
    console.print(table)
    shared, own = split_notes([loss.note for loss in site.losses])
    for clause in shared:
        console.print(f"  [dim]{escape(clause)}[/]")
    for loss, clauses in zip(site.losses, own):
        if clauses:
            console.print(f"  [dim]{escape(loss.provider)}/{escape(loss.model)}: "
                          f"{escape('; '.join(clauses))}[/]")


def split_notes(notes: list[str]) -> tuple[list[str], list[list[str]]]:
    """Clauses that every note has (printed once) and, per note, the rest."""
    clauses = [[c for c in note.split("; ") if c] for note in notes]
    shared = [c for c in clauses[0] if all(c in other for other in clauses)] if len(notes) > 1 else []
    return shared, [[c for c in own if c not in shared] for own in clauses]


def bar(value: float, scale: float, width: int = BAR_WIDTH) -> str:
    if scale <= 0 or value <= 0:
        return ""
    eighths = round(value / scale * width * 8)
    full, rest = divmod(max(eighths, 1), 8)
    return "█" * full + ("", "▏", "▎", "▍", "▌", "▋", "▊", "▉")[rest]


# --- json ---------------------------------------------------------------------------------------


def report_document(report: CostReport) -> dict[str, Any]:
    return {
        "version": COST_JSON_VERSION,
        "kind": "promptlint-cost",
        "assumptions": report.assumptions,
        "call_sites": [_site_record(site) for site in report.sites],
        "unpriced": [{"rule": f.rule, "path": f.location.path, "line": f.location.line,
                      "reason": f.estimate.note if f.estimate else "no estimate"}
                     for f in report.unpriced],
        "total_usd_per_month": round(sum(s.worst_usd_per_month for s in report.sites), 4),
    }


def _site_record(site: SiteReport) -> dict[str, Any]:
    call = site.call
    return {
        "path": call.location.path, "line": call.location.line, "api": call.api,
        "provider": call.provider, "model": call.model, "function": call.function,
        "calls_per_day": site.calls_per_day, "traffic_source": site.traffic_source,
        "findings": [{
            "rule": f.rule, "path": f.location.path, "line": f.location.line, "message": f.message,
            "lost_tokens_per_call": f.estimate.lost_tokens_per_call if f.estimate else None,
            "unknown_length": f.estimate.unknown_length if f.estimate else False,
            "tokenizer": f.estimate.tokenizer if f.estimate else None,
            "exact": f.estimate.exact if f.estimate else False,
            "note": f.estimate.note if f.estimate else "",
        } for f in site.findings],
        "losses": [{
            "provider": loss.provider, "model": loss.model,
            "lost_tokens_per_call": loss.lost_tokens_per_call,
            "usd_per_1k_calls": loss.usd_per_1k_calls, "usd_per_month": loss.usd_per_month,
            "calls_per_day": loss.calls_per_day, "price_as_of": loss.price_as_of, "note": loss.note,
        } for loss in site.losses],
    }


def render_json(report: CostReport) -> str:
    return json.dumps(report_document(report), indent=2, ensure_ascii=False) + "\n"
