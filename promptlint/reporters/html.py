"""``promptlint report`` (and ``--format html``): one self-contained HTML file for a codebase.

Findings by rule, module and call site, the estimated monthly loss per provider, bar charts as
inline SVG, and each finding with its code frame, the path of its volatile value and the fix.
No script, no external resource (a Content-Security-Policy forbids both), so it reads offline
and analyzed code cannot run in it: everything from the code is escaped with ``html.escape``.
"""

from __future__ import annotations

import html
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

from promptlint import __version__
from promptlint.checks import RULES
from promptlint.config import Config
from promptlint.model import AnalysisResult, Finding, Severity
from promptlint.reporters.common import (
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

FRAME_LINES = 2
MAX_BARS = 12
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
ol.path{margin:4px 0 4px 18px;padding:0}.empty{color:#5b6670;font-style:italic}
footer{color:#5b6670;font-size:13px;padding-bottom:32px}
"""


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def rich_text(text: str) -> str:
    """Escaped text whose `backtick` parts become <code> (balanced backticks only)."""
    pieces = text.split("`")
    if len(pieces) % 2 == 0:
        return esc(text)
    return "".join(f"<code>{esc(p)}</code>" if i % 2 else esc(p) for i, p in enumerate(pieces))


def render_html(result: AnalysisResult, config: Config) -> str:
    body = "\n".join([
        _header(result, config),
        "<main>",
        _cards(result),
        _charts(result),
        _call_site_table(result),
        _findings(result),
        _rule_table(result),
        _errors(result),
        "</main>",
        _footer(result),
    ])
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>promptlint report: {esc(config.root.name or config.root)}</title>\n"
            f"<style>{STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")


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


def bar_chart(chart_id: str, rows: list[tuple[str, float, str]], color: str = "#34495e",
              keep_end: bool = False) -> str:
    """A horizontal bar chart as inline SVG; rows are (label, value, value text). Long labels are
    cut at the end, or at the start with ``keep_end`` (module paths: the last part says most)."""
    if not rows:
        return f'<p class="empty" id="{esc(chart_id)}">Nothing to chart.</p>'
    rows = rows[:MAX_BARS]
    width, label_width, row_height = 560, 230, 26
    bar_space = width - label_width - 90
    top = max(value for _, value, _ in rows) or 1.0
    height = row_height * len(rows) + 8
    parts = [f'<svg id="{esc(chart_id)}" class="chart" role="img" xmlns="http://www.w3.org/2000/svg" '
             f'width="100%" viewBox="0 0 {width} {height}" font-size="12" font-family="system-ui,sans-serif">']
    for i, (label, value, text) in enumerate(rows):
        y = 4 + i * row_height
        bar = max(2.0, bar_space * value / top) if value > 0 else 0.0
        short = label if len(label) <= 30 else (label[:29] + "…" if not keep_end else "…" + label[-29:])
        parts.append(f'<g class="bar"><title>{esc(label)}: {esc(text)}</title>'
                     f'<text x="{label_width - 8}" y="{y + 17}" text-anchor="end">{esc(short)}</text>'
                     f'<rect x="{label_width}" y="{y + 4}" width="{bar:.1f}" height="{row_height - 8}" '
                     f'rx="3" fill="{color}"/>'
                     f'<text x="{label_width + bar + 6:.1f}" y="{y + 17}">{esc(text)}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def _charts(result: AnalysisResult) -> str:
    rules = [(f"{code} {name}", float(n), str(n)) for code, name, n in by_rule(result)]
    modules = [(module, float(n), str(n)) for module, n in by_module(result)]
    money = [(f"{t.provider}/{t.model}", t.usd_per_month, format_usd(t.usd_per_month))
             for t in provider_totals(result) if t.usd_per_month > 0]
    figures = [
        ("chart-rules", "Findings by rule", bar_chart("svg-rules", rules, "#c0392b")),
        ("chart-cost", "Estimated loss per provider ($ per month)", bar_chart("svg-cost", money, "#1e8449")),
        ("chart-modules", "Findings by module", bar_chart("svg-modules", modules, "#2e86c1", keep_end=True)),
    ]
    items = "".join(f'<figure id="{fid}"><figcaption>{esc(title)}</figcaption>{svg}</figure>'
                    for fid, title, svg in figures)
    note = traffic_assumption(result)
    caption = f'<p class="muted">Estimates assume {esc(note)}.</p>' if note else ""
    return f'<section id="charts"><h2>Overview</h2><div class="charts">{items}</div>{caption}</section>'


def _call_site_table(result: AnalysisResult) -> str:
    sites = call_sites(result)
    if not sites:
        return '<section id="call-sites"><h2>Call sites</h2><p class="empty">No call site is affected.</p></section>'
    rows = []
    for site in sites:
        codes = ", ".join(sorted({f.rule for f in site.findings}))
        cost = f"{format_usd(site.worst.usd_per_month)} ({esc(site.worst.provider)}/{esc(site.worst.model)})" \
            if site.worst is not None and site.worst.usd_per_month > 0 else "–"
        rows.append(f"<tr><td><code>{esc(site.path)}:{site.line}</code></td><td><code>{esc(site.api)}</code></td>"
                    f'<td>{esc(codes)}</td><td class="num">{len(site.findings)}</td><td class="num">{cost}</td></tr>')
    return ('<section id="call-sites"><h2>Call sites</h2><table><thead><tr><th>Call</th><th>API</th>'
            '<th>Rules</th><th class="num">Findings</th><th class="num">Est. loss / month</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></section>')


def _findings(result: AnalysisResult) -> str:
    if not result.findings:
        return ('<section id="findings"><h2>Findings</h2>'
                '<p class="empty">No cache-busting prompt layouts found.</p></section>')
    items = "\n".join(_finding(i, f) for i, f in enumerate(result.findings, 1))
    return f'<section id="findings"><h2>Findings</h2>\n{items}\n</section>'


def _finding(number: int, finding: Finding) -> str:
    loc = finding.location
    level = finding.severity.value
    lines = [f'<article class="finding {level}" id="finding-{number}">',
             f'<div><span class="badge {level}">{esc(level)}</span> <strong>{esc(finding.rule)}</strong> '
             f'<span class="muted">{esc(finding.name)}</span> · <code>{esc(loc.short())}</code></div>',
             f'<p class="message">{rich_text(finding.message)}</p>', _frame(finding)]
    steps = list(_path_steps(finding))
    if steps:
        lines.append('<ol class="path">' + "".join(f"<li><code>{esc(w)}</code> {rich_text(m)}</li>" for w, m in steps)
                     + "</ol>")
    worst = worst_loss(finding)
    if finding.estimate is not None and finding.estimate.lost_tokens_per_call is not None:
        cost = f"~{finding.estimate.lost_tokens_per_call:,} cached tokens lost per call"
        if worst is not None and worst.usd_per_month > 0:
            cost += f"; up to {format_usd(worst.usd_per_month)}/month ({worst.provider}/{worst.model})"
        lines.append(f'<p class="cost">Estimate: {esc(cost)}</p>')
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
        yield source.location.short(), f"born here: `{source.source}` ({source.category})"
    for related in finding.related:
        if "is called here" not in related.message:
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


def write_report(result: AnalysisResult, config: Config, output: Path) -> None:
    output.write_text(render_html(result, config), encoding="utf-8")
