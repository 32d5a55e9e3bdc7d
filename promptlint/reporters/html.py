"""``promptlint report`` (and ``--format html``): one self-contained HTML file for a codebase.

Written for whoever decides what to fix first: it leads with the estimated cost per call site
(sorted, a bar chart and a table), then the comparison with a baseline (new / fixed / unchanged
and the money of each, with ``--baseline``), the verifier's measurements (current vs fixed hit
rate and TTFT, predicted vs measured, with ``--verify-results``), the views by rule, provider and
module (the top rows and "others", the full list folded below, so large projects stay legible),
and every finding, costliest first, with its code frame, the path of its volatile value and the
fix. Charts are HTML and CSS (labels wrap, never cut; the full text is in a tooltip).
No script, no external resource (a Content-Security-Policy forbids both), so it reads offline
and analyzed code cannot run in it: everything from the code is escaped with ``html.escape``.
"""

from __future__ import annotations

import html
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, NamedTuple

from promptlint import __version__
from promptlint.checks import RULES
from promptlint.config import Config
from promptlint.model import AnalysisResult, Finding, Severity
from promptlint.reporters.text import estimate_line
from promptlint.reporters.common import (
    CallSiteSummary,
    by_module,
    by_rule,
    call_sites,
    format_usd,
    money_at_stake,
    plural,
    provider_totals,
    severity_counts,
    traffic_assumption,
    worst_loss,
)

if TYPE_CHECKING:
    from promptlint.reporters.compare import Comparison
    from verifier.report import LayoutStats, SiteResult, VerifyReport

FRAME_LINES = 2
MAX_BARS = 12  # per chart; the rest are one "others" bar, and listed in full below the chart
COLORS = {Severity.ERROR: "#c0392b", Severity.WARNING: "#d68910", Severity.INFO: "#2e86c1"}
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

STYLE = """
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2329;background:#f6f7f9}
header,main,footer{max-width:1100px;margin:0 auto;padding:0 24px}
header{padding-top:24px}h1{margin:0 0 4px;font-size:28px}h2{margin:32px 0 12px;font-size:21px}
.meta{color:#5b6670;margin:0}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin-top:20px}
.card{background:#fff;border:1px solid #dde1e6;border-radius:8px;padding:12px 16px;min-width:140px}
.card .value{font-size:26px;font-weight:600}.card .label{color:#5b6670;font-size:13px}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));gap:16px}
figure{background:#fff;border:1px solid #dde1e6;border-radius:8px;margin:0;padding:12px}
figcaption{font-weight:600;margin-bottom:8px}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #dde1e6}
th,td{text-align:left;padding:6px 10px;border-bottom:1px solid #eceff2;vertical-align:top}
th{background:#eef1f4;font-size:13px}td.num,th.num{text-align:right;white-space:nowrap}
code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.finding{background:#fff;border:1px solid #dde1e6;border-left:5px solid #999;border-radius:6px;
 padding:10px 14px;margin:12px 0}
.finding.error{border-left-color:#c0392b}.finding.warning{border-left-color:#d68910}
.finding.info{border-left-color:#2e86c1}
.badge{display:inline-block;border-radius:4px;padding:0 6px;color:#fff;font-size:12px;font-weight:600}
.badge.error{background:#c0392b}.badge.warning{background:#d68910}.badge.info{background:#2e86c1}
pre.frame{background:#f3f4f6;border-radius:4px;padding:8px;overflow-x:auto;margin:8px 0}
.frame .hit{background:#fde8e4;display:block}.muted{color:#5b6670}
ol.path,ul.notes{margin:4px 0 4px 18px;padding:0}.empty{color:#5b6670;font-style:italic}
footer{color:#5b6670;font-size:13px;padding-bottom:32px}
.bars{display:grid;grid-template-columns:minmax(120px,38%) 1fr auto;gap:6px 10px;align-items:center;
 font-size:13px}
.bars .label{overflow-wrap:anywhere;line-height:1.25;min-width:0}
.bars .label small{display:block;color:#5b6670}
.bars .track{background:#eef1f4;border-radius:3px;height:16px;min-width:40px}
.bars .fill{height:16px;border-radius:3px;min-width:2px}
.bars .value{white-space:nowrap;text-align:right;font-variant-numeric:tabular-nums}
.bars .other .label{font-style:italic;color:#5b6670}
figure.wide{margin-bottom:12px}figure.wide-grid{grid-column:1/-1}
details{margin:8px 0}summary{cursor:pointer;color:#2e5f8a}
.tag{display:inline-block;border-radius:4px;padding:0 6px;font-size:12px;font-weight:600;border:1px solid}
.tag.new{color:#a93226;border-color:#a93226}.tag.unchanged{color:#5b6670;border-color:#aab2ba}
.tag.fixed{color:#1e8449;border-color:#1e8449}
.card.new .value{color:#a93226}.card.fixed .value{color:#1e8449}
.meter{display:flex;align-items:center;gap:8px}.meter .track{flex:1;background:#eef1f4;height:12px;
 border-radius:3px;min-width:60px}.meter .fill{height:12px;border-radius:3px}
.ok{color:#1e8449;font-weight:600}.bad{color:#a93226;font-weight:600}
code{overflow-wrap:anywhere}pre code,td.code code{overflow-wrap:normal}td{overflow-wrap:break-word}td.wrap{overflow-wrap:anywhere;min-width:15em}.tag,td.code{white-space:nowrap}
"""


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def rich_text(text: str) -> str:
    """Escaped text whose `backtick` parts become <code> (balanced backticks only)."""
    pieces = text.split("`")
    if len(pieces) % 2 == 0:
        return esc(text)
    return "".join(f"<code>{esc(p)}</code>" if i % 2 else esc(p) for i, p in enumerate(pieces))


def render_html(result: AnalysisResult, config: Config, comparison: Comparison | None = None,
                verify: VerifyReport | None = None) -> str:
    findings = by_cost(result.findings)
    body = "\n".join([
        _header(result, config),
        "<main>",
        _cards(result),
        _call_site_cost(result, findings),
        _comparison(comparison, findings) if comparison is not None else "",
        verify_section(verify) if verify is not None else "",
        _charts(result),
        _findings(findings, comparison),
        _rule_table(result),
        _errors(result),
        "</main>",
        _footer(result),
    ])
    return page(f"promptlint report: {config.root.name or config.root}", body)


def page(title: str, body: str, doctype: str = "<!DOCTYPE html>") -> str:
    return (f'{doctype}\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{esc(title)}</title>\n"
            f"<style>{STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")


def cost_of(finding: Finding) -> float:
    worst = worst_loss(finding)
    return worst.usd_per_month if worst is not None else 0.0


def by_cost(findings: Iterable[Finding]) -> list[Finding]:
    """Costliest first; without a cost, the more severe first; then file order."""
    return sorted(findings, key=lambda f: (-cost_of(f), -f.severity.rank, f.location.path, f.location.line,
                                           f.location.column, f.rule))


def _header(result: AnalysisResult, config: Config) -> str:
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (f'<header><h1>promptlint report</h1><p class="meta">Project <code>{esc(config.root)}</code> · '
            f"{plural(result.files_analyzed, 'Python file')} analyzed · {esc(when)} · "
            f"promptlint {esc(__version__)}</p></header>")


def _cards(result: AnalysisResult) -> str:
    counts = severity_counts(result)
    sites = call_sites(result)
    money = money_at_stake(result)
    cards = [
        ("findings", len(result.findings), "findings"),
        ("errors", counts[Severity.ERROR], "errors"),
        ("warnings", counts[Severity.WARNING], "warnings"),
        ("call-sites", len(sites), "LLM call sites affected"),
        ("money", f"{format_usd(money)}" if money else "–", "estimated loss per month"),
    ]
    items = "".join(f'<div class="card" id="card-{key}"><div class="value">{esc(value)}</div>'
                    f'<div class="label">{esc(label)}</div></div>' for key, value, label in cards)
    return f'<section id="summary"><h2>Summary</h2><div class="cards">{items}</div></section>'


class Bar(NamedTuple):
    label: str
    value: float
    text: str  # the value as shown after the bar
    detail: str = ""  # a second, smaller line under the label
    other: bool = False  # the "N others" bar


def bar_chart(chart_id: str, rows: list[Bar], color: str = "#34495e", limit: int = MAX_BARS,
              others: str = "other") -> str:
    """A horizontal bar chart in HTML and CSS, rows in the given order. Labels wrap (never cut);
    the full label and value are in each row's tooltip. Past ``limit`` rows, the rest are one
    "N others" bar holding their sum."""
    if not rows:
        return f'<p class="empty" id="{esc(chart_id)}">Nothing to chart.</p>'
    shown = list(rows[:limit])
    if len(rows) > limit:
        rest = rows[limit:]
        total = sum(r.value for r in rest)
        text = format_usd(total) if rest[0].text.startswith("$") else f"{total:,.0f}"
        shown.append(Bar(f"{len(rest)} {others}{'s' if len(rest) != 1 else ''}", total, text, other=True))
    # The scale is the largest named row: the "others" bar (a sum) must not flatten the rest, so
    # it is grey and stops at the full width.
    top = max((r.value for r in shown if not r.other), default=0.0) or 1.0
    parts = [f'<div class="bars" id="{esc(chart_id)}" role="img">']
    for row in shown:
        share = 0.0 if row.value <= 0 else max(0.5, 100.0 * row.value / top)
        fill = "#aab2ba" if row.other else color
        tip = f"{row.label}{' (' + row.detail + ')' if row.detail else ''}: {row.text}"
        detail = f"<small>{esc(row.detail)}</small>" if row.detail else ""
        kind = "bar other" if row.other else "bar"
        parts.append(f'<div class="label {kind}" title="{esc(tip)}">{esc(row.label)}{detail}</div>'
                     f'<div class="track" title="{esc(tip)}"><div class="fill" '
                     f'style="width:{min(share, 100.0):.1f}%;background:{fill}"></div></div>'
                     f'<div class="value">{esc(row.text)}</div>')
    parts.append("</div>")
    return "".join(parts)


def _call_site_cost(result: AnalysisResult, findings: list[Finding]) -> str:
    """What a team lead reads first: the call sites, costliest first, as a chart and a table."""
    sites = call_sites(result)
    if not sites:
        return ('<section id="call-sites"><h2>Cost by call site</h2>'
                '<p class="empty">No call site is affected.</p></section>')
    anchors = {id(f): n for n, f in enumerate(findings, 1)}
    priced = [s for s in sites if s.worst is not None and s.worst.usd_per_month > 0]
    bars = [Bar(f"{site.path}:{site.line}", site.worst.usd_per_month, format_usd(site.worst.usd_per_month),
                f"{site.api} · {site.worst.provider}/{site.worst.model}")
            for site in priced if site.worst is not None]
    chart = bar_chart("chart-call-sites", bars, "#1e8449", others="other call site") if bars else \
        '<p class="empty" id="chart-call-sites">No call site has a cost estimate (unknown prompt lengths).</p>'
    note = traffic_assumption(result)
    caption = f'<p class="muted">Estimated loss per month, worst provider per call site; {esc(note)}.</p>' \
        if note else ""
    rows = [_call_site_row(site, anchors) for site in sites]
    table = ('<table id="call-site-table"><thead><tr><th>Call</th><th>API</th><th>Rules</th>'
             '<th class="num">Findings</th><th class="num">Est. loss / month</th></tr></thead>'
             f'<tbody>{"".join(rows)}</tbody></table>')
    table = (f'<details id="all-call-sites"{" open" if len(sites) <= MAX_BARS else ""}><summary>All '
             f"{plural(len(sites), 'affected call site')}</summary>{table}</details>")
    return (f'<section id="call-sites"><h2>Cost by call site</h2><figure class="wide" id="figure-call-sites">'
            f"<figcaption>Estimated loss per month, costliest first</figcaption>{chart}</figure>{caption}"
            f"{table}</section>")


def _call_site_row(site: CallSiteSummary, anchors: dict[int, int]) -> str:
    codes = ", ".join(sorted({f.rule for f in site.findings}))
    cost = f"{format_usd(site.worst.usd_per_month)} ({esc(site.worst.provider)}/{esc(site.worst.model)})" \
        if site.worst is not None and site.worst.usd_per_month > 0 else "–"
    first = min((anchors[id(f)] for f in site.findings if id(f) in anchors), default=None)
    call = f"<code>{esc(site.path)}:{site.line}</code>"
    if first is not None:
        call = f'<a href="#finding-{first}">{call}</a>'
    return (f'<tr><td class="wrap">{call}</td><td class="wrap"><code>{esc(site.api)}</code></td>'
            f'<td>{esc(codes)}</td><td class="num">{len(site.findings)}</td><td class="num">{cost}</td></tr>')


def module_money(result: AnalysisResult) -> dict[str, float]:
    from promptlint.reporters.common import module_name
    from promptlint.reporters.compare import findings_money

    grouped: dict[str, list[Finding]] = {}
    for finding in result.findings:
        grouped.setdefault(module_name(finding.location.path), []).append(finding)
    return {module: findings_money(findings) for module, findings in grouped.items()}


def _charts(result: AnalysisResult) -> str:
    rules = [Bar(code, float(n), str(n), name) for code, name, n in by_rule(result)]
    modules = by_module(result)
    money_by_module = module_money(result)
    prefix = common_prefix([module for module, _ in modules])
    module_bars = [Bar(module[len(prefix):] if prefix else module, float(n), str(n),
                       f"{format_usd(money_by_module[module])}/month" if money_by_module.get(module) else "")
                   for module, n in modules]
    money = [Bar(t.provider, t.usd_per_month, format_usd(t.usd_per_month), t.model)
             for t in provider_totals(result) if t.usd_per_month > 0]
    figures = [
        ("chart-rules", "Findings by rule", bar_chart("bars-rules", rules, "#c0392b", others="other rule")),
        ("chart-cost", "Estimated loss per provider ($ per month)",
         bar_chart("bars-cost", money, "#1e8449", others="other provider")),
        ("chart-modules", f"Findings by module ({plural(len(modules), 'module')}"
                          f"{', under ' + prefix.rstrip('./') if prefix else ''})",
         bar_chart("bars-modules", module_bars, "#2e86c1", others="other module")),
    ]
    items = "".join(f'<figure id="{fid}"{" class=wide-grid" if fid == "chart-modules" else ""}>'
                    f"<figcaption>{esc(title)}</figcaption>{chart}</figure>" for fid, title, chart in figures)
    note = traffic_assumption(result)
    caption = f'<p class="muted">Estimates assume {esc(note)}.</p>' if note else ""
    table = ""
    if modules:
        rows = "".join(f'<tr><td class="wrap"><code>{esc(module)}</code></td><td class="num">{n}</td>'
                       f'<td class="num">{format_usd(money_by_module.get(module, 0.0)) if money_by_module.get(module) else "–"}'
                       f"</td></tr>" for module, n in modules)
        table = (f'<details id="all-modules"{" open" if len(modules) <= MAX_BARS else ""}><summary>All '
                 f"{len(modules)} module{'s' if len(modules) != 1 else ''} with findings</summary>"
                 '<table><thead><tr><th>Module</th><th class="num">Findings</th>'
                 f'<th class="num">Est. loss / month</th></tr></thead><tbody>{rows}</tbody></table></details>')
    return (f'<section id="charts"><h2>By rule, provider and module</h2><div class="charts">{items}</div>'
            f"{caption}{table}</section>")


def common_prefix(modules: list[str]) -> str:
    """The dotted (or slashed) prefix all module labels share, to leave out of the chart's labels,
    ending at a separator; empty when it would leave a label empty or there is only one."""
    if len(modules) < 2:
        return ""
    shared = modules[0]
    for module in modules[1:]:
        while not module.startswith(shared):
            shared = shared[:-1]
    cut = max(shared.rfind("."), shared.rfind("/"))
    shared = shared[:cut + 1] if cut >= 0 else ""
    return shared if shared and all(len(m) > len(shared) for m in modules) else ""


def _comparison(comparison: Comparison, findings: list[Finding]) -> str:
    fixed_usd = comparison.fixed_usd
    fixed_count = sum(e.count for e in comparison.fixed)
    groups = [
        ("new", len(comparison.new), format_usd(comparison.new_usd) if comparison.new_usd else "–",
         "new since the baseline"),
        ("fixed", fixed_count, "unknown" if fixed_usd is None else format_usd(fixed_usd) if fixed_usd else "–",
         "fixed (in the baseline, gone now)"),
        ("unchanged", len(comparison.unchanged), format_usd(comparison.unchanged_usd) if comparison.unchanged_usd
         else "–", "unchanged (still in the code)"),
    ]
    cards = "".join(f'<div class="card {key}" id="card-baseline-{key}"><div class="value">{count}</div>'
                    f'<div class="label">{esc(label)}</div><div class="label">{esc(usd)} / month</div></div>'
                    for key, count, usd, label in groups)
    anchors = {id(f): n for n, f in enumerate(findings, 1)}
    new_rows = "".join(
        f'<tr><td><span class="tag new">new</span></td><td class="code"><code>{esc(f.rule)}</code></td>'
        f'<td class="wrap"><a href="#finding-{anchors.get(id(f), 0)}"><code>{esc(f.location.short())}</code></a></td>'
        f'<td>{rich_text(f.message)}</td><td class="num">{format_usd(cost_of(f)) if cost_of(f) else "–"}</td></tr>'
        for f in by_cost(comparison.new))
    fixed_rows = "".join(
        f'<tr><td><span class="tag fixed">fixed</span></td><td class="code"><code>{esc(e.rule)}</code></td>'
        f"<td class=\"wrap\"><code>{esc(e.path)}</code>{' ×' + str(e.count) if e.count > 1 else ''}</td><td>{rich_text(e.message)}</td>"
        f'<td class="num">{"unknown" if e.usd_per_month is None else format_usd(e.usd_per_month) if e.usd_per_month else "–"}'
        "</td></tr>" for e in comparison.fixed)
    table = ""
    if new_rows or fixed_rows:
        table = ('<table id="baseline-table"><thead><tr><th></th><th>Rule</th><th>Where</th><th>Finding</th>'
                 f'<th class="num">Est. loss / month</th></tr></thead><tbody>{new_rows}{fixed_rows}</tbody></table>')
    note = ('<p class="muted">Money: worst provider per call site, each call site counted once per group. '
            "Fixed findings are priced as the baseline recorded them"
            + ("; this baseline recorded no costs (write it again with <code>promptlint baseline</code>)"
               if fixed_usd is None else "") + ".</p>")
    return (f'<section id="baseline"><h2>Compared with the baseline</h2><p class="meta">Baseline '
            f"<code>{esc(comparison.baseline)}</code></p><div class=\"cards\">{cards}</div>{table}{note}</section>")


def verify_section(report: VerifyReport) -> str:
    """The verifier's results: per call site, current vs fixed hit rate and TTFT, predicted vs measured."""
    engine = report.engine
    simulated = engine.backend == "simulate"
    requests = report.sites[0].current.requests if report.sites else 0
    meta = (f"Backend <code>{esc(engine.backend)}</code> · model <code>{esc(engine.model)}</code> · block size "
            f"{engine.block_size} · {requests} requests per layout" + (f" · {esc(engine.note)}" if engine.note else ""))
    if not report.sites:
        body = '<p class="empty">No call site was verified.</p>'
    else:
        rows = []
        for site in report.sites:
            layouts = [("current", site.current, site.predicted_current)]
            if site.fixed is not None:
                layouts.append(("fixed", site.fixed, site.predicted_fixed))
            for n, (name, stats, predicted) in enumerate(layouts):
                color = "#c0392b" if name == "current" else "#1e8449"
                meter = (f'<div class="meter"><svg class="track" role="img" viewBox="0 0 100 12" '
                         f'preserveAspectRatio="none" height="12" xmlns="http://www.w3.org/2000/svg">'
                         f'<title>{name}: {stats.hit_rate * 100:.1f} % of prompt tokens from the cache</title>'
                         f'<rect width="{stats.hit_rate * 100:.2f}" height="12" rx="2" fill="{color}"/></svg>'
                         f"<span>{stats.hit_rate * 100:.1f} %</span></div>")
                rows.append(
                    f'<tr class="verify-{name}"><td>{f"<code>{esc(site.label)}</code><br><small class=muted>{esc(site.api)}</small>" if n == 0 else ""}</td>'
                    f'<td><span class="tag {"new" if name == "current" else "fixed"}">{name}</span></td>'
                    f"<td>{meter}</td><td class=\"num\">{_predicted(predicted, stats, simulated)}</td>"
                    f'<td class="num">{_ms(stats.ttft_cold)}</td><td class="num">{_warm(stats)}</td></tr>')
        body = ('<table id="verify-table"><thead><tr><th>Call site</th><th>Layout</th><th>Hit rate</th>'
                '<th class="num">Cached tokens: predicted / measured</th><th class="num">TTFT cold</th>'
                f'<th class="num">TTFT warm p50 / p95</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')
        verdicts = "".join(f"<li>{esc(_verdict(site))}</li>" for site in report.sites)
        body += f'<ul id="verify-verdicts">{verdicts}</ul>'
    legend = ("Hit rate: the share of the run's prompt tokens the engine reused from its prefix cache. "
              "Predicted: promptlint's simulator of vLLM's block cache; ✓ the engine measured exactly that, "
              "✗ it measured otherwise.")
    if simulated:
        legend += " This run is the simulator's prediction only: no engine ran, so there is no TTFT."
    return (f'<section id="verify"><h2>Verified on an engine: current vs fixed</h2><p class="meta">{meta}</p>'
            f'{body}<p class="muted">{esc(legend)}</p></section>')


def _predicted(predicted: tuple[int, ...] | None, stats: LayoutStats, simulated: bool) -> str:
    measured = stats.cached_tokens
    if predicted is None:
        return f"– / {measured:,}"
    total = sum(predicted)
    if simulated:
        return f'{total:,} <span class="muted">(prediction)</span>'
    mark = '<span class="ok" title="measured as predicted">✓</span>' \
        if tuple(predicted) == tuple(stats.cached_per_request) else \
        '<span class="bad" title="the engine measured otherwise">✗</span>'
    return f"{total:,} / {measured:,} {mark}"


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f} ms"


def _warm(stats: LayoutStats) -> str:
    p50, p95 = stats.ttft(0.5, warm_only=True), stats.ttft(0.95, warm_only=True)
    return "–" if p50 is None else f"{p50:,.0f} / {p95:,.0f} ms"


def _verdict(site: SiteResult) -> str:
    from verifier.text_report import verdict

    return verdict(site)


def render_verify_page(report: VerifyReport) -> str:
    """``promptlint verify --chart FILE.html``: the verify section alone, in the report's style."""
    engine = report.engine
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    header = (f'<header><h1>promptlint verify</h1><p class="meta">{esc(engine.backend)} · model '
              f"<code>{esc(engine.model)}</code> · {esc(when)} · promptlint {esc(__version__)}</p></header>")
    return page(f"promptlint verify: {engine.backend}, model {engine.model}",
                f"{header}<main>{verify_section(report)}</main>", doctype="<!doctype html>")


def _findings(findings: list[Finding], comparison: Comparison | None = None) -> str:
    if not findings:
        return ('<section id="findings"><h2>Findings</h2>'
                '<p class="empty">No cache-busting prompt layouts found.</p></section>')
    new = {id(f) for f in comparison.new} if comparison is not None else None
    items = "\n".join(_finding(i, f, None if new is None else id(f) in new) for i, f in enumerate(findings, 1))
    return f'<section id="findings"><h2>Findings, costliest first</h2>\n{items}\n</section>'


def _finding(number: int, finding: Finding, new: bool | None = None) -> str:
    loc = finding.location
    level = finding.severity.value
    tag = "" if new is None else ('<span class="tag new">new</span> ' if new else
                                  '<span class="tag unchanged">in baseline</span> ')
    lines = [f'<article class="finding {level}" id="finding-{number}">',
             f'<div>{tag}<span class="badge {level}">{esc(level)}</span> <strong>{esc(finding.rule)}</strong> '
             f'<span class="muted">{esc(finding.name)}</span> · <code>{esc(loc.short())}</code></div>',
             f'<p class="message">{rich_text(finding.message)}</p>', _frame(finding)]
    steps = list(_path_steps(finding))
    if steps:
        lines.append('<ol class="path">' + "".join(f"<li><code>{esc(w)}</code> {rich_text(m)}</li>" for w, m in steps)
                     + "</ol>")
    if finding.notes:  # not steps of the path: other places of the same cause, the option that adds the value
        lines.append('<ul class="notes">' + "".join(
            f"<li><code>{esc(r.location.short())}</code> {rich_text(r.message)}</li>" for r in finding.notes)
            + "</ul>")
    if finding.estimate is not None:
        # The estimator's own line: a zero or unknown loss comes with its reason, never a bare "~0".
        lines.append(f'<p class="cost">Estimate: {esc(estimate_line(finding))}</p>')
    if finding.hint:
        fix = ""
        if finding.fix is not None:
            fix = " (automatic fix: <code>--fix</code>)" if finding.fix.safe else \
                " (automatic fix: <code>--fix --unsafe-fixes</code>)"
        lines.append(f'<p class="hint">Fix: {rich_text(finding.hint)}{fix}</p>')
    lines.append("</article>")
    return "\n".join(lines)


def _path_steps(finding: Finding) -> Iterable[tuple[str, str]]:
    if finding.volatile_source is not None:
        source = finding.volatile_source
        yield source.location.short(), f"born here: {source.quoted} ({source.category})"
    for related in finding.related:
        if not related.is_origin and not related.note:
            yield related.location.short(), related.message


def _frame(finding: Finding) -> str:
    loc = finding.location
    try:
        with open(loc.path, encoding="utf-8", errors="replace") as stream:
            lines = stream.read().splitlines()
    except OSError:
        return ""
    if not lines or loc.line > len(lines):
        return ""
    first, last = max(1, loc.line - FRAME_LINES), min(len(lines), loc.line + FRAME_LINES)
    width = len(str(last))
    rendered = []
    for number in range(first, last + 1):
        text = f"{number:>{width}} | {lines[number - 1]}"
        rendered.append(f'<span class="hit">{esc(text)}</span>' if number == loc.line else esc(text) + "\n")
    return f'<pre class="frame">{"".join(rendered)}</pre>'


def _rule_table(result: AnalysisResult) -> str:
    counts = {code: n for code, _, n in by_rule(result)}
    from promptlint.rule_docs import rule_doc

    # The rule's documentation exactly as written in its module, preformatted and escaped.
    rows = "".join(f'<tr><td><code>{esc(rule.code)}</code></td><td>{esc(rule.name)}</td><td>{esc(rule.summary)}'
                   f'<details class="rule-doc"><summary>documentation</summary>'
                   f'<pre id="doc-{esc(rule.code)}">{esc(rule_doc(rule))}</pre></details></td>'
                   f'<td class="num">{counts.get(rule.code, 0)}</td></tr>' for rule in RULES)
    return ('<section id="rules"><h2>Findings by rule</h2><table><thead><tr><th>Code</th><th>Name</th>'
            f'<th>What it finds</th><th class="num">Findings</th></tr></thead><tbody>{rows}</tbody></table>'
            '<p class="muted">Documentation of any rule: <code>promptlint rule CODE</code>.</p></section>')


def _errors(result: AnalysisResult) -> str:
    if not result.errors:
        return ""
    items = "".join(f"<li><code>{esc(e.path)}</code>: {esc(e.message)}</li>" for e in result.errors)
    return f'<section id="errors"><h2>Files not analyzed</h2><ul>{items}</ul></section>'


def _footer(result: AnalysisResult) -> str:
    return ("<footer><p>Estimates: cached tokens lost per call (counted with the bundled tokenizer) × "
            "the provider's price difference between cached and uncached input × the configured traffic "
            "(<code>calls-per-day</code>, <code>traffic</code> in <code>[tool.promptlint]</code>). "
            "They show the order of magnitude, not an invoice.</p></footer>")


def write_report(result: AnalysisResult, config: Config, output: Path, comparison: Comparison | None = None,
                 verify: VerifyReport | None = None) -> None:
    output.write_text(render_html(result, config, comparison, verify), encoding="utf-8")
