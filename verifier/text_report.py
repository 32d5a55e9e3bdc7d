"""The human report: one table, hit-rate bars and one plain sentence per call site.

Written for someone who never saw the code: every figure is explained in the legend below it.
Nothing is computed here beyond formatting; the figures come from ``verifier.report``.
"""

from __future__ import annotations

import io

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from verifier.report import LayoutStats, SiteResult, VerifyReport

BAR_WIDTH = 30
PLAIN_WIDTH = 200  # not a terminal (CI logs, files): wide enough that nothing wraps


def percent(value: float) -> str:
    return f"{value * 100:.1f} %"


def ms(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f} ms"


def warm(stats: LayoutStats) -> str:
    p50, p95 = stats.ttft(0.5, warm_only=True), stats.ttft(0.95, warm_only=True)
    return "–" if p50 is None else f"{p50:,.0f} / {p95:,.0f} ms"


def predicted_cell(predicted: tuple[int, ...] | None, stats: LayoutStats, backend: str) -> Text:
    if predicted is None:
        return Text("–")
    total = f"{sum(predicted):,}"
    if backend == "simulate":
        return Text(total)
    if predicted == stats.cached_per_request:
        return Text(total + " ✓", style="green")
    return Text(total + " ✗", style="bold red")


def bar(rate: float, style: str) -> Text:
    filled = round(rate * BAR_WIDTH)
    return Text("█" * filled, style=style) + Text("░" * (BAR_WIDTH - filled), style="dim")


def header(report: VerifyReport) -> Text:
    engine = report.engine
    requests = report.sites[0].current.requests if report.sites else 0
    line = (f"promptlint verify · {engine.backend}"
            f"{' (' + engine.note + ')' if engine.note else ''} · model {engine.model} · "
            f"block size {engine.block_size} · {requests} requests per layout")
    return Text(line, style="bold")


def results_table(report: VerifyReport) -> Table:
    table = Table(show_lines=False, header_style="bold", pad_edge=False)
    for name, justify in (("Call site", "left"), ("Layout", "left"), ("Hit rate", "right"), ("Max", "right"),
                          ("Cached / prompt tokens", "right"), ("Predicted", "right"),
                          ("TTFT cold", "right"), ("TTFT warm p50 / p95", "right")):
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for site in report.sites:
        rows = [("current", site.current, site.predicted_current)]
        if site.fixed is not None:
            rows.append(("fixed", site.fixed, site.predicted_fixed))
        for n, (layout, stats, predicted) in enumerate(rows):
            table.add_row(
                site.label if n == 0 else "",
                layout,
                Text(percent(stats.hit_rate), style="red" if layout == "current" else "green"),
                Text(percent(stats.max_hit_rate), style="dim"),
                f"{stats.cached_tokens:,} / {stats.prompt_tokens:,}",
                predicted_cell(predicted, stats, report.engine.backend),
                ms(stats.ttft_cold),
                warm(stats),
                end_section=n == len(rows) - 1,
            )
    return table


def site_rows(site: SiteResult) -> list[tuple[str, LayoutStats, tuple[int, ...] | None]]:
    rows = [("current", site.current, site.predicted_current)]
    if site.fixed is not None:
        rows.append(("fixed", site.fixed, site.predicted_fixed))
    return rows


def narrow_tables(report: VerifyReport) -> Group:
    """The results for a terminal too narrow for the wide table: one small table per call site,
    the figures as rows and the layouts as columns, so no cell is cut to "…"."""
    parts: list[Table | Text] = []
    for site in report.sites:
        rows = site_rows(site)
        parts.append(Text(site.label, style="bold"))
        table = Table(show_header=True, header_style="bold", pad_edge=False, box=None, padding=(0, 2, 0, 0))
        table.add_column("", no_wrap=True)
        for layout, _, _ in rows:
            table.add_column(layout, justify="right", no_wrap=True)
        table.add_row("Hit rate", *(Text(percent(s.hit_rate), style="red" if name == "current" else "green")
                                    for name, s, _ in rows))
        table.add_row("Max", *(percent(s.max_hit_rate) for _, s, _ in rows))
        table.add_row("Cached / prompt tokens", *(f"{s.cached_tokens:,} / {s.prompt_tokens:,}" for _, s, _ in rows))
        table.add_row("Predicted", *(predicted_cell(p, s, report.engine.backend) for _, s, p in rows))
        table.add_row("TTFT cold", *(ms(s.ttft_cold) for _, s, _ in rows))
        table.add_row("TTFT warm p50 / p95", *(warm(s) for _, s, _ in rows))
        parts += [table, Text("")]
    return Group(*parts)


def bars(site: SiteResult) -> Group:
    lines = [Text(site.label, style="bold")]
    rows = [("current", site.current, "red")]
    if site.fixed is not None:
        rows.append(("fixed", site.fixed, "green"))
    for layout, stats, style in rows:
        lines.append(Text(f"  {layout:<8}") + bar(stats.hit_rate, style) + Text(f" {percent(stats.hit_rate):>7}"))
    return Group(*lines)


def verdict(site: SiteResult) -> str:
    """One sentence: what the layout costs today and what the fix brings."""
    now = site.current
    text = f"{site.label}: today {percent(now.hit_rate)} of the prompt tokens came from the cache"
    if site.fixed is None:
        return text + "."
    text += f"; with the fix {percent(site.fixed.hit_rate)}"
    before, after = now.ttft(0.5, warm_only=True), site.fixed.ttft(0.5, warm_only=True)
    if before and after:
        text += (f", and a warm request's first token arrives {before / after:.1f}× sooner "
                 f"({before:,.0f} → {after:,.0f} ms)")
    return text + "."


def legend(report: VerifyReport) -> Text:
    lines = [
        "Hit rate: the share of all prompt tokens of the run that the engine reused from its "
        "prefix cache (the first request of each run starts from an empty cache). Max: the "
        "ceiling, every request after the first reusing all of its full cache blocks.",
        "current: the prompts as the code lays them out today; fixed: the same prompts with the "
        "volatile values moved to the end of the last user message (or sorted, for unordered sets).",
        "Predicted: cached tokens by promptlint's simulator of vLLM's block cache; "
        "✓ means the engine measured exactly that.",
    ]
    if report.engine.backend != "simulate":
        lines.append("TTFT: time to first token; cold = first request after the cache was "
                     "emptied, warm = the requests after it (p50 / p95).")
    return Text("\n".join(lines), style="dim")


def render_text(report: VerifyReport, terminal: bool = False, width: int | None = None) -> str:
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width or (None if terminal else PLAIN_WIDTH),
        force_terminal=terminal,
        color_system="auto" if terminal else None,
        soft_wrap=not terminal,
        emoji=False,
        highlight=False,
    )
    console.print(header(report))
    if not report.sites:
        console.print("No call site to verify (no finding at or above the severity asked for).")
        return buffer.getvalue()
    table = results_table(report)
    if console.measure(table, options=console.options.update_width(10_000)).maximum > console.width:
        console.print(narrow_tables(report))  # 80-100 columns: the wide table would cut cells to "…"
    else:
        console.print(table)
    for site in report.sites:
        console.print(bars(site))
    console.print()
    for site in report.sites:
        console.print(verdict(site))
        for note in site.notes:
            console.print(Text(f"  · {note}", style="dim"))
    mismatches = [s.label for s in report.sites if report.engine.backend != "simulate" and not s.prediction_matches]
    if mismatches:
        console.print(Text("The simulator's prediction differs from the engine at: " + ", ".join(mismatches),
                           style="bold red"))
    console.print()
    console.print(legend(report))
    return buffer.getvalue()
