"""`promptlint report`: one self-contained HTML file, checked in real headless Chromium.

The report is written as a user does: a baseline recorded earlier (one finding since fixed, one
added since), the verifier's JSON results, then `report --baseline --verify-results`. Chromium
lays it out 1280 px wide and a probe script (added to a copy: the report itself runs none) lists
anything cut off or sticking out; a large synthetic project checks the same with 40 modules.

The screenshot is written next to the report in the test's temporary folder (its path is printed;
set PROMPTLINT_TEST_ARTIFACTS=DIR to keep a copy). Chromium comes from Debian
(`apt-get install -y chromium`); without it these tests skip and say so.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from tests.conftest import write_tree
from tests.integration_helpers import CROSS_MODULE, cli

CHROMIUM = next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(name)), None)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed "
                                    "(Debian: apt-get install -y chromium)")

HOSTILE_LINE = "    system = f\"</pre><script>alert('x')</script>{datetime.now()}\\n\" + POLICY"
PROJECT = {
    **CROSS_MODULE,
    "shop/__init__.py": "",
    "shop/catalog.py": """
import json
from datetime import datetime
from anthropic import Anthropic
POLICY = "Recommend products from the catalog only; never invent prices or stock levels. " * 20
def recommend(data: dict, history: list):
    profile = {key: data.get(key) for key in {"name", "plan", "region"}}
    system = "Profile: " + json.dumps(profile) + "\\n" + POLICY
    return Anthropic().messages.create(model="claude-sonnet-4-5", max_tokens=400, system=system,
                                       messages=history)
def banner(history: list):
SYSTEM_LINE
    return Anthropic().messages.create(model="claude-sonnet-4-5", max_tokens=400, system=system,
                                       messages=history)
""".replace("SYSTEM_LINE", HOSTILE_LINE),
}

# Busts with a known cost: long stable text after the volatile value, no history of unknown length.
PRICED = """
import uuid
from datetime import datetime
from anthropic import Anthropic
from openai import OpenAI
POLICY = "Explain invoices line by line and quote the contract clause for every fee. " * REPEAT
def explain(question: str) -> str:
    system = f"Today: {datetime.now()}\\n" + POLICY
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
def legacy(question: str):
    system = f"Request {uuid.uuid4()}\\n" + POLICY
    return Anthropic().messages.create(model="claude-sonnet-4-5", max_tokens=300, system=system,
                                       messages=[{"role": "user", "content": question}])
"""
ADDED = {"billing/__init__.py": "", "billing/assistant.py": PRICED.replace("REPEAT", "150"),
         "billing/reminders.py": PRICED.replace("REPEAT", "100")}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("project")
    # the baseline: the helpdesk package and a legacy module (its bust is fixed later: deleted)
    write_tree(root, {**CROSS_MODULE, "legacy.py": PRICED.replace("REPEAT", "120")})
    code, _, err = cli("baseline", ".", "-o", "baseline.json", cwd=root)
    assert code == 0, err
    (root / "legacy.py").unlink()
    write_tree(root, {**PROJECT, **ADDED})  # adds the shop and billing packages: new findings
    code, _, err = cli("verify", ".", "--requests", "4", "--format", "json", "-o", "verify.json", cwd=root)
    assert code == 0, err
    code, _, err = cli("report", ".", "-o", "report.html", "--baseline", "baseline.json",
                       "--verify-results", "verify.json", cwd=root)
    assert code == 0, err
    return root / "report.html", err


def chromium(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    profile = cwd / "chromium-profile"
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-extensions", "--hide-scrollbars", f"--user-data-dir={profile}", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=180)


def test_report_is_written_and_self_contained(report: tuple[Path, str]) -> None:
    path, err = report
    text = path.read_text(encoding="utf-8")
    assert "wrote report.html" in err and "new since the baseline" in err
    assert text.startswith("<!DOCTYPE html>")
    assert not re.search(r"<script|<link|<iframe|<img|\bsrc=|@import|url\(", text, re.IGNORECASE)
    assert "default-src 'none'" in text  # a CSP: even injected markup could load or run nothing
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in text  # the source line, escaped


@needs_chromium
def test_chromium_renders_the_sections(report: tuple[Path, str]) -> None:
    path, _ = report
    done = chromium("--dump-dom", path.as_uri(), cwd=path.parent)
    dom = done.stdout
    assert "<h1>promptlint report</h1>" in dom, done.stderr[-2000:]
    sections = re.findall(r'<section id="([a-z-]+)"', dom)
    # a team lead reads the cost per call site first, then what changed, then the measurements
    assert sections[:4] == ["summary", "call-sites", "baseline", "verify"], sections
    assert {"charts", "findings", "rules"} <= set(sections)
    findings = re.findall(r'<article class="finding (?:error|warning|info)" id="finding-\d+">', dom)
    assert len(findings) >= 3
    rule_bars = re.search(r'<div class="bars" id="bars-rules".*?</figure>', dom, re.DOTALL)
    assert rule_bars and rule_bars.group(0).count('class="fill"') >= 2
    assert "<script" not in dom.lower()
    assert "helpdesk.sections" in dom and "shop.catalog" in dom  # findings by module
    assert "anthropic.messages" in dom and "openai.chat.completions" in dom  # by call site


@needs_chromium
def test_chromium_screenshot_shows_the_charts(report: tuple[Path, str]) -> None:
    path, _ = report
    shot = path.parent / "report.png"
    done = chromium("--window-size=1280,3600", f"--screenshot={shot}", path.as_uri(), cwd=path.parent)
    assert shot.is_file(), done.stderr[-2000:]
    print(f"report screenshot: {shot}")
    keep = os.environ.get("PROMPTLINT_TEST_ARTIFACTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / "promptlint-report.png")
        shutil.copy(path, Path(keep) / "promptlint-report.html")
    colors = png_colors(shot.read_bytes())
    assert len(colors) > 50  # text, cards and charts, not a blank page
    assert (0xC0, 0x39, 0x2B) in colors  # the red bars of "findings by rule"
    assert (0x2E, 0x86, 0xC1) in colors  # the blue bars of "findings by module"
    assert (0x1E, 0x84, 0x49) in colors  # the green bars of "cost by call site"


def usd(text: str) -> float:
    return float(text.replace("$", "").replace(",", "")) if text.startswith("$") else 0.0


def test_call_sites_and_findings_are_sorted_by_cost(report: tuple[Path, str]) -> None:
    text = report[0].read_text(encoding="utf-8")
    chart = re.search(r'<div class="bars" id="chart-call-sites".*?</figure>', text, re.DOTALL)
    assert chart, "the cost-by-call-site chart"
    values = [usd(v) for v in re.findall(r'<div class="value">([^<]+)</div>', chart.group(0))]
    assert len(values) >= 2 and values == sorted(values, reverse=True) and values[-1] > 0
    labels = re.findall(r'<div class="label bar" title="([^"]+)">', chart.group(0))
    assert all(re.match(r"[\w/]+\.py:\d+ \(", label) for label in labels)  # full text in the tooltip
    articles = re.findall(r'<article .*?</article>', text, re.DOTALL)
    costs = [usd(m.group(1)) if (m := re.search(r"(\$[\d,.]+)/month", a)) else 0.0 for a in articles]
    assert costs == sorted(costs, reverse=True) and costs[0] > 0


def test_baseline_comparison_shows_new_fixed_unchanged_and_money(report: tuple[Path, str]) -> None:
    text = report[0].read_text(encoding="utf-8")
    section = re.search(r'<section id="baseline">.*?</section>', text, re.DOTALL)
    assert section
    cards = dict(re.findall(r'id="card-baseline-(\w+)"><div class="value">(\d+)</div>', section.group(0)))
    assert int(cards["new"]) >= 2  # the shop package came after the baseline
    assert int(cards["fixed"]) == 2  # legacy.py is gone
    assert int(cards["unchanged"]) >= 1  # the helpdesk bust is still there
    fixed = re.search(r'<span class="tag fixed">fixed</span>.*?</tr>', section.group(0), re.DOTALL)
    assert fixed and "legacy.py" in fixed.group(0) and re.search(r"\$[\d,.]+", fixed.group(0))
    assert re.search(r'id="card-baseline-fixed">.*?\$[\d,.]+ / month', section.group(0), re.DOTALL)
    assert text.count('<span class="tag new">new</span>') >= 2 * int(cards["new"])  # table and findings


def test_verify_results_are_in_the_same_page(report: tuple[Path, str]) -> None:
    text = report[0].read_text(encoding="utf-8")
    section = re.search(r'<section id="verify">.*?</section>', text, re.DOTALL)
    assert section
    body = section.group(0)
    assert "helpdesk/bot.py" in body and body.count('class="verify-current"') == body.count('class="verify-fixed"') >= 1
    assert "Cached tokens: predicted / measured" in body and "TTFT warm p50 / p95" in body
    assert "simulator" in body and "with the fix" in body


def png_colors(data: bytes) -> set[tuple[int, int, int]]:
    """The set of RGB colours of an 8-bit, non-interlaced RGB/RGBA PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    width = height = color = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and interlace == 0
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    channels = {2: 3, 6: 4}[color]
    raw, stride = zlib.decompress(idat), width * channels
    colors: set[tuple[int, int, int]] = set()
    previous, offset = bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[offset], bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        _unfilter(kind, line, previous, channels)
        colors.update(zip(line[0::channels], line[1::channels], line[2::channels]))
        previous = line
    return colors


def _unfilter(kind: int, line: bytearray, previous: bytearray, channels: int) -> None:
    for x in range(len(line)):
        left = line[x - channels] if x >= channels else 0
        up = previous[x]
        corner = previous[x - channels] if x >= channels else 0
        if kind == 1:
            line[x] = (line[x] + left) & 255
        elif kind == 2:
            line[x] = (line[x] + up) & 255
        elif kind == 3:
            line[x] = (line[x] + ((left + up) >> 1)) & 255
        elif kind == 4:
            estimate = left + up - corner
            pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
            line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255


# Added to a copy of the report (which runs no script): lists what is cut off or sticks out.
LAYOUT_PROBE = """<script>
addEventListener("load", () => {
  const problems = [], width = document.documentElement.clientWidth;
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.className && el.className.baseVal === undefined ? "." + el.className.split(" ").join(".") : "") +
    " '" + (el.textContent || "").trim().slice(0, 60) + "'";
  if (document.documentElement.scrollWidth > width) problems.push("the page scrolls sideways");
  for (const el of document.querySelectorAll("main *")) {
    if (el.closest("pre") || el.closest("details:not([open])")) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0) continue;
    if (box.right > width + 0.5 || box.left < -0.5) problems.push("outside the page: " + name(el));
    const style = getComputedStyle(el);
    if ((style.overflowX !== "visible" || style.textOverflow === "ellipsis") && el.scrollWidth > el.clientWidth + 1)
      problems.push("cut: " + name(el));
  }
  for (const el of document.querySelectorAll(".bars .label, .bars .value, td, th, .card, figcaption, h1, h2"))
    if (el.scrollWidth > el.clientWidth + 1) problems.push("overflows: " + name(el));
  document.body.setAttribute("data-width", String(width));
  document.body.setAttribute("data-layout", JSON.stringify(problems));
});
</script>"""


def layout_problems(path: Path, width: int = 1280) -> list[str]:
    """Chromium lays the page out ``width`` px wide; what the probe found cut off or outside."""
    import html as html_module
    import json

    probe = path.with_name(path.stem + "-probe.html")
    text = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", path.read_text(encoding="utf-8"))
    probe.write_text(text.replace("</body>", LAYOUT_PROBE + "</body>"), encoding="utf-8")
    done = chromium(f"--window-size={width},1000", "--virtual-time-budget=5000", "--dump-dom", probe.as_uri(),
                    cwd=path.parent)
    width_found = re.search(r'data-width="(\d+)"', done.stdout)
    found = re.search(r'data-layout="([^"]*)"', done.stdout)
    assert width_found and found, f"the probe did not run: {done.stderr[-2000:]}"
    assert abs(int(width_found.group(1)) - width) <= 20  # laid out at that width (less a scrollbar)
    return json.loads(html_module.unescape(found.group(1)))


@needs_chromium
def test_nothing_is_cut_off_at_1280_px(report: tuple[Path, str]) -> None:
    assert layout_problems(report[0]) == []


def large_result(modules: int = 40) -> tuple[object, object]:
    """A big project's findings, built directly (the reporter's input): one costly call per module,
    long dotted module paths, several rules."""
    from promptlint.config import Config
    from promptlint.model import AnalysisResult, CallSite, Estimate, Finding, Location, ProviderLoss, Severity

    findings = []
    for n in range(modules):
        path = f"services/{'customer_engagement_' * 2}platform/region_{n:02d}/conversation_orchestration_layer.py"
        call = CallSite(Location(path, 40, 12, 44, 5), "openai.chat.completions", "openai", "gpt-4.1")
        loss = ProviderLoss("openai", "gpt-4.1", 1500 + n * 37, 1.0, 3.0 + n * 11.5, 1000.0, "2026-11-30")
        for rule, name in (("PC001", "volatile-before-stable"), ("PC004", "unstable-json-serialization"))[: 1 + n % 2]:
            findings.append(Finding(rule, name, Severity.ERROR if n % 3 else Severity.WARNING,
                                    Location(path, 30, 9, 30, 40), f"a volatile value before stable text ({n})",
                                    call, estimate=Estimate(1500 + n * 37, "o200k_base", True, losses=(loss,)),
                                    hint="move it after the stable parts"))
    result = AnalysisResult(tuple(findings), (), files_analyzed=modules)
    return result, Config(root=Path("/srv/very-large-monorepo"))


@needs_chromium
def test_a_large_project_stays_legible(tmp_path: Path) -> None:
    from promptlint.reporters.html import render_html

    result, config = large_result(40)
    path = tmp_path / "large.html"
    path.write_text(render_html(result, config), encoding="utf-8")  # type: ignore[arg-type]
    text = path.read_text(encoding="utf-8")
    modules = re.search(r'<div class="bars" id="bars-modules".*?</figure>', text, re.DOTALL)
    assert modules and modules.group(0).count('class="fill"') == 13  # the top 12 and "others"
    assert "28 other modules" in modules.group(0)
    assert re.search(r'<details id="all-modules"><summary>All 40 modules with findings', text)
    sites = re.search(r'<div class="bars" id="chart-call-sites".*?</figure>', text, re.DOTALL)
    assert sites and "28 other call sites" in sites.group(0)
    assert layout_problems(path) == []
    assert layout_problems(path, width=800) == []  # narrower: still nothing cut (labels wrap)


def test_a_finding_lists_its_notes_apart_from_the_values_path() -> None:
    """The ordered path holds the value's steps; a note (another call the same value reaches)
    is listed under it, not numbered as a step."""
    from promptlint.config import Config
    from promptlint.model import AnalysisResult, CallSite, Finding, Location, RelatedLocation, Severity
    from promptlint.reporters.html import render_html

    call = CallSite(Location("app.py", 9, 1, 9, 40), "openai.chat.completions", "openai")
    related = (RelatedLocation(Location("app.py", 4, 1, 4, 9), "assigned to `prompt`"),
               RelatedLocation(Location("lib.py", 7, 1, 7, 30), "also reaches the `litellm.completion` call here",
                               note=True))
    finding = Finding("PC001", "volatile-before-stable", Severity.ERROR, Location("app.py", 3, 5, 3, 9), "m", call,
                      related=related)
    page = render_html(AnalysisResult((finding,), ()), Config(root=Path(".")))
    path = re.search(r'<ol class="path">(.*?)</ol>', page, re.DOTALL)
    notes = re.search(r'<ul class="notes">(.*?)</ul>', page, re.DOTALL)
    assert path and "assigned to" in path.group(1) and "litellm" not in path.group(1)
    assert notes and "<code>lib.py:7:1</code> also reaches the <code>litellm.completion</code> call here" \
        in notes.group(1)
