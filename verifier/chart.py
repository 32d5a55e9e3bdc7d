"""Chart files: a self-contained HTML page (inline SVG, no dependency) or a PNG (matplotlib).

Two panels per call site: hit rate, current vs fixed; and warm TTFT p50 where the backend timed.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from verifier.report import VerifyReport

COLORS = {"current": "#d9534f", "fixed": "#2e8b57"}
ROW_H, BAR_H, LABEL_W, BAR_W = 26, 18, 90, 420


class ChartError(Exception):
    pass


def layouts(report: VerifyReport, site_index: int) -> list[tuple[str, float, float | None]]:
    """(layout, hit rate, warm TTFT p50) of one site, current first."""
    site = report.sites[site_index]
    rows = [("current", site.current)]
    if site.fixed is not None:
        rows.append(("fixed", site.fixed))
    return [(name, stats.hit_rate, stats.ttft(0.5, warm_only=True)) for name, stats in rows]


def svg_bars(title: str, rows: list[tuple[str, float, str]], scale: float) -> str:
    """Horizontal bars; ``rows`` are (label, value, text shown after the bar)."""
    height = ROW_H * len(rows) + 30
    parts = [f'<svg width="{LABEL_W + BAR_W + 120}" height="{height}" role="img">',
             f'<text x="0" y="16" font-weight="bold">{escape(title)}</text>']
    for n, (label, value, shown) in enumerate(rows):
        y = 26 + n * ROW_H
        width = 0 if scale <= 0 else max(1.0, BAR_W * value / scale)
        parts += [
            f'<text x="0" y="{y + 14}">{escape(label)}</text>',
            f'<rect x="{LABEL_W}" y="{y}" width="{width:.1f}" height="{BAR_H}" fill="{COLORS.get(label, "#888")}"/>',
            f'<text x="{LABEL_W + width + 6:.1f}" y="{y + 14}">{escape(shown)}</text>',
        ]
    return "\n".join(parts + ["</svg>"])


def html_chart(report: VerifyReport) -> str:
    """The verify results in the codebase report's style (promptlint/reporters/html.py)."""
    from promptlint.reporters.html import render_verify_page

    return render_verify_page(report)


def plain_html_chart(report: VerifyReport) -> str:
    """The former unstyled page (SVG bars), kept for callers that import it."""
    sections = []
    for index, site in enumerate(report.sites):
        rows = layouts(report, index)
        hits = svg_bars("Prefix-cache hit rate", [(n, h, f"{h * 100:.1f} %") for n, h, _ in rows], 1.0)
        timed = [(n, t, f"{t:,.0f} ms") for n, _, t in rows if t is not None]
        ttft = svg_bars("TTFT, warm requests (p50)", timed, max(t for _, t, _ in timed)) if timed else ""
        notes = "".join(f"<li>{escape(note)}</li>" for note in site.notes)
        sections.append(f"<section><h2>{escape(site.label)} <small>{escape(site.api)}</small></h2>"
                        f"{hits}{ttft}<ul>{notes}</ul></section>")
    engine = report.engine
    title = f"promptlint verify: {engine.backend}, model {engine.model}, block size {engine.block_size}"
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{escape(title)}</title><style>body{{font-family:sans-serif;margin:2em}}"
        "section{margin-bottom:2em}small{color:#666;font-weight:normal}svg{display:block;"
        "margin:.5em 0}text{font-size:13px}</style></head><body>"
        f"<h1>{escape(title)}</h1><p>{escape(engine.note)}</p>{''.join(sections)}</body></html>\n"
    )


def png_chart(report: VerifyReport, path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ChartError("a PNG chart needs matplotlib (pip install matplotlib); "
                         "an .html chart needs nothing") from None
    count = max(1, len(report.sites))
    figure, axes = plt.subplots(count, 2, figsize=(11, 2.2 * count), squeeze=False)
    for index, site in enumerate(report.sites):
        rows = layouts(report, index)
        names = [n for n, _, _ in rows]
        colors = [COLORS[n] for n in names]
        hit_axis, ttft_axis = axes[index]
        hit_axis.barh(names, [h * 100 for _, h, _ in rows], color=colors)
        hit_axis.set_xlim(0, 100)
        hit_axis.set_title(f"{site.label}: hit rate (%)", fontsize=9, loc="left")
        timed = [(n, t) for n, _, t in rows if t is not None]
        ttft_axis.barh([n for n, _ in timed], [t for _, t in timed], color=[COLORS[n] for n, _ in timed])
        ttft_axis.set_title("warm TTFT p50 (ms)" if timed else "no TTFT (simulator)", fontsize=9, loc="left")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def write_chart(report: VerifyReport, path: Path) -> None:
    suffix = path.suffix.lower()
    if suffix in (".html", ".htm"):
        path.write_text(html_chart(report), encoding="utf-8")
    elif suffix == ".png":
        png_chart(report, path)
    else:
        raise ChartError(f"--chart wants a .html or .png file, not {path.name}")
