"""``check --statistics``: the number of findings per rule instead of the findings (like ruff).

Text: one line per rule, most frequent first (``count  code  [*]  name``, ``[*]`` when some have a
safe fix). With ``--format json``: a list of ``{"code", "name", "count", "fixable"}``.
"""

from __future__ import annotations

import json
from collections import Counter

from promptlint.model import AnalysisResult


def statistics(result: AnalysisResult) -> list[dict[str, object]]:
    counts = Counter((f.rule, f.name) for f in result.findings)
    fixable = Counter(f.rule for f in result.findings if f.fix is not None and f.fix.safe)
    rows = [{"code": code, "name": name, "count": n, "fixable": fixable.get(code, 0)}
            for (code, name), n in counts.items()]
    return sorted(rows, key=lambda r: (-int(r["count"]), str(r["code"])))  # type: ignore[call-overload]


def render_statistics(result: AnalysisResult, output_format: str) -> str:
    rows = statistics(result)
    if output_format == "json":
        return json.dumps(rows, indent=2) + "\n"
    if not rows:
        return ""
    width = max(len(str(r["count"])) for r in rows)
    return "".join(f"{r['count']:>{width}}  {r['code']}  {'[*]' if r['fixable'] else '   '}  {r['name']}\n"
                   for r in rows)
