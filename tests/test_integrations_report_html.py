"""`promptlint report`: one self-contained HTML file, checked in real headless Chromium.

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


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = write_tree(tmp_path_factory.mktemp("project"), PROJECT)
    code, _, err = cli("report", ".", "-o", "report.html", cwd=root)
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
    assert "wrote report.html" in err
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
    for section in ("summary", "charts", "call-sites", "findings", "rules"):
        assert f'id="{section}"' in dom
    findings = re.findall(r'<article class="finding (?:error|warning|info)" id="finding-\d+">', dom)
    assert len(findings) >= 3
    rule_bars = re.search(r'<svg id="svg-rules".*?</svg>', dom, re.DOTALL)
    assert rule_bars and rule_bars.group(0).count("<rect") >= 2
    assert "<script" not in dom.lower()
    assert "helpdesk.sections" in dom and "shop.catalog" in dom  # findings by module
    assert "anthropic.messages" in dom and "openai.chat.completions" in dom  # by call site


@needs_chromium
def test_chromium_screenshot_shows_the_charts(report: tuple[Path, str]) -> None:
    path, _ = report
    shot = path.parent / "report.png"
    done = chromium("--window-size=1200,1400", f"--screenshot={shot}", path.as_uri(), cwd=path.parent)
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
