"""The text and Markdown reports, whole: what a user reads in a terminal and in a pull-request
comment, compared line by line with text written out here (code frame, carets, where a value is
born, the steps it takes, the call it reaches, the estimate, the fix; the summary; escaping)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from promptlint import colors
from promptlint.config import Config
from promptlint.estimate import format_estimate, format_usd
from promptlint.model import (
    INTERNAL_ERROR,
    AnalysisResult,
    CallSite,
    Estimate,
    FileError,
    Finding,
    Fix,
    Location,
    Origin,
    ProviderLoss,
    SENDS,
    RelatedLocation,
    Severity,
    Volatility,
)
from promptlint.reporters import text as text_report
from promptlint.reporters.markdown import code, escape_text, message, render_markdown
from promptlint.reporters.text import render_text, summary_line

SOURCE = """import datetime
stamp = datetime.datetime.now()
prompt = f"Today {stamp} rules"
messages = [{"role": "system", "content": prompt}]
client.chat.completions.create(messages=messages)
"""
LOSS = ProviderLoss("openai", "gpt-4o", 900, 1.25, 1234.5, 5000.0, "2026-10-01")
ESTIMATE = Estimate(900, "o200k_base", True, losses=(LOSS,))


@pytest.fixture(autouse=True)
def no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def finding(path: str, severity: Severity = Severity.ERROR, *, location: Location | None = None,
            api: str = "openai.chat.completions", model: str | None = "gpt-4o",
            estimate: Estimate | None = ESTIMATE, hint: str = "put the clock last", fix: Fix | None = None) -> Finding:
    where = location or Location(path, 3, 19, 3, 26)
    call = CallSite(Location(path, 5, 1, 5, 50), api, "openai", model, "ask")
    born = Location(path, 2, 9, 2, 32)
    return Finding("PC001", "volatile-before-stable", severity, where, "per-request clock `stamp` before the rules",
                   call, Origin(born, "datetime.datetime.now", "clock", Volatility.PER_REQUEST),
                   (RelatedLocation(born, "`datetime.datetime.now` is called here"),
                    RelatedLocation(Location(path, 4, 1, 4, 9), "assigned to `messages`"),
                    RelatedLocation(call.location, "reaches the `openai.chat.completions` call here")),
                   fix=fix, hint=hint, estimate=estimate)


def app(tmp_path: Path) -> str:
    path = tmp_path / "app.py"
    path.write_text(SOURCE, encoding="utf-8")
    return str(path)


def test_text_finding_whole(tmp_path: Path) -> None:
    path = app(tmp_path)
    out = render_text(AnalysisResult((finding(path),), (), files_analyzed=3), Config())
    assert out.splitlines() == [
        f"{path}:3:19: PC001 [error] per-request clock `stamp` before the rules (volatile-before-stable)",
        "    2 | stamp = datetime.datetime.now()",
        '  > 3 | prompt = f"Today {stamp} rules"',
        "      |                   ^^^^^^^",
        "    4 | messages = [{\"role\": \"system\", \"content\": prompt}]",
        f"   born at  {path}:2:9  `datetime.datetime.now`",
        f"   via      {path}:4:1  assigned to `messages`",
        f"   reaches  {path}:5:1  openai.chat.completions model=gpt-4o",
        f"   cost     {format_estimate(ESTIMATE)}",
        "   fix      put the clock last",
        "",
        "Found 1 finding (1 error) in 3 Python files.",
    ]


def test_text_names_the_llm_calls_a_wrapper_sends_the_prompt_with_after_the_call_it_reaches(tmp_path: Path) -> None:
    path = app(tmp_path)
    judged = finding(path, api="system message (system text passed to chat())", model=None)
    sent = [RelatedLocation(Location("llm.py", line, 16, line, 40), f"{SENDS} `anthropic.messages` call here")
            for line in (12, 30)]
    judged = replace(judged, related=(*judged.related, *sent))
    lines = render_text(AnalysisResult((judged,), ()), Config(), summary=False).splitlines()
    assert lines[6:11] == [
        f"   via      {path}:4:1  assigned to `messages`",
        f"   reaches  {path}:5:1  system message (system text passed to chat())",
        "   sends    llm.py:12:16  which sends it with the `anthropic.messages` call here",
        "   sends    llm.py:30:16  which sends it with the `anthropic.messages` call here",
        f"   cost     {format_estimate(ESTIMATE)}",
    ]


def test_text_lists_notes_apart_from_the_path_after_the_calls(tmp_path: Path) -> None:
    """A note (another call the same value reaches, the option that adds it) is no step of the
    value's path: it is not printed under `via`, and is printed, under `note`, after the calls."""
    path = app(tmp_path)
    notes = (RelatedLocation(Location("llm.py", 9, 12, 9, 40), "also reaches the `litellm.completion` call here",
                             note=True),
             RelatedLocation(Location(path, 2, 1, 2, 30), "added to the prompt only when this test holds", note=True))
    judged = replace(finding(path), related=(*finding(path).related, *notes))
    lines = render_text(AnalysisResult((judged,), ()), Config(), summary=False).splitlines()
    assert lines[6:11] == [
        f"   via      {path}:4:1  assigned to `messages`",
        f"   reaches  {path}:5:1  openai.chat.completions model=gpt-4o",
        "   note     llm.py:9:12  also reaches the `litellm.completion` call here",
        f"   note     {path}:2:1  added to the prompt only when this test holds",
        f"   cost     {format_estimate(ESTIMATE)}",
    ]


def test_text_does_not_repeat_the_place_of_a_finding_that_is_its_own_sink(tmp_path: Path) -> None:
    path = app(tmp_path)
    cut = Location(path, 4, 1, 4, 9)
    window = replace(finding(path, location=cut, model=None), call_site=CallSite(cut, "conversation history", "any"))
    lines = render_text(AnalysisResult((window,), ()), Config(), summary=False).splitlines()
    assert "   reaches  conversation history" in lines
    assert not [line for line in lines if line.startswith("   reaches") and f"{path}:4:1" in line]


def test_text_frame_edges_and_optional_lines(tmp_path: Path) -> None:
    path = app(tmp_path)
    first_line = Location(path, 1, 1, 1, 1)  # an empty range: one caret; no line before the first
    plain = finding(path, Severity.INFO, location=first_line, api="", model=None, estimate=None, hint="")
    out = render_text(AnalysisResult((plain,), ()), Config(), summary=False)
    assert out.splitlines() == [
        f"{path}:1:1: PC001 [info] per-request clock `stamp` before the rules (volatile-before-stable)",
        "  > 1 | import datetime",
        "      | ^",
        "    2 | stamp = datetime.datetime.now()",
        f"   born at  {path}:2:9  `datetime.datetime.now`",
        f"   via      {path}:4:1  assigned to `messages`",
        "",
    ]
    spans = Location(path, 5, 8, 6, 3)  # runs to the next line: one caret at its start; last line: none after
    lines = render_text(AnalysisResult((finding(path, location=spans, model=None),), ()), Config()).splitlines()
    assert lines[1:4] == ["    4 | messages = [{\"role\": \"system\", \"content\": prompt}]",
                          "  > 5 | client.chat.completions.create(messages=messages)",
                          "      |        ^"]
    assert f"   reaches  {path}:5:1  openai.chat.completions" in lines
    longer = Location(path, 3, 8, 4, 20)  # runs on to the next line: one caret, whatever its end column
    lines = render_text(AnalysisResult((finding(path, location=longer),), ()), Config()).splitlines()
    assert lines[3] == "      |        ^"
    past_the_end = Location(path, 6, 1, 6, 5)  # a line after the last (a file that changed since)
    lines = render_text(AnalysisResult((finding(path, location=past_the_end),), ()), Config()).splitlines()
    assert lines[1].startswith("   born at")
    beyond = Location(path, 40, 1, 40, 5)
    lines = render_text(AnalysisResult((finding(path, location=beyond),), ()), Config()).splitlines()
    assert lines[1].startswith("   born at") and not any(" | " in line for line in lines)
    long = tmp_path / "long.py"
    long.write_text("x\n" * 12, encoding="utf-8")
    wide = Location(str(long), 9, 1, 9, 3)  # the frame's numbers take the width of the widest one shown
    lines = render_text(AnalysisResult((finding(str(long), location=wide),), ()), Config()).splitlines()
    assert lines[1:5] == ["     8 | x", "  >  9 | x", "       | ^^", "    10 | x"]


def test_text_born_at_is_left_out_where_the_value_is_born_on_its_line(tmp_path: Path) -> None:
    path = app(tmp_path)
    same_line = Location(path, 2, 30, 2, 31)
    out = render_text(AnalysisResult((finding(path, location=same_line),), ()), Config())
    assert "born at" not in out


def test_text_uses_the_buffer_of_a_file_read_from_stdin(tmp_path: Path) -> None:
    text_report.BUFFERS["<stdin>.py"] = ("a = 1", "b = now()", "c = 3")
    try:
        out = render_text(AnalysisResult((finding("<stdin>.py", location=Location("<stdin>.py", 2, 5, 2, 10)),), ()),
                          Config())
    finally:
        text_report.BUFFERS.clear()
    assert "  > 2 | b = now()" in out.splitlines()


def test_text_errors_and_summary_lines() -> None:
    errors = (FileError("bad.py", "invalid syntax (line 3)"), FileError("x.py", "KeyError: 'a'", INTERNAL_ERROR))
    out = render_text(AnalysisResult((), errors, files_analyzed=1), Config()).splitlines()
    assert out == ["error: bad.py: invalid syntax (line 3)", "internal error: x.py: KeyError: 'a'",
                   "No cache-busting prompt layouts found in 1 Python files. 2 files could not be analyzed."]


@pytest.mark.parametrize(("severities", "errors", "line"), [
    ((), 0, "No cache-busting prompt layouts found in 4 Python files."),
    ((Severity.WARNING,), 1, "Found 1 finding (1 warning) in 4 Python files. 1 file could not be analyzed."),
    ((Severity.ERROR, Severity.ERROR, Severity.INFO, Severity.WARNING), 0,
     "Found 4 findings (2 errors, 1 warning, 1 info) in 4 Python files."),
    ((Severity.INFO, Severity.INFO), 0, "Found 2 findings (2 infos) in 4 Python files."),
])
def test_text_summary_line(severities: tuple[Severity, ...], errors: int, line: str) -> None:
    findings = tuple(finding("a.py", s) for s in severities)
    result = AnalysisResult(findings, tuple(FileError(f"e{i}.py", "bad") for i in range(errors)), files_analyzed=4)
    assert summary_line(result) == line


# --- Markdown --------------------------------------------------------------------------------


def test_markdown_report_whole() -> None:
    fixable = finding("app.py", fix=Fix("sort them", safe=True))
    unsafe = finding("lib/b.py", Severity.WARNING, estimate=None, fix=Fix("move it", safe=False),
                     hint="put the clock last")
    result = AnalysisResult((fixable, unsafe), (FileError("bad|name.py", "invalid <syntax>"),), files_analyzed=2)
    assert render_markdown(result, Config()).splitlines() == [
        "## promptlint: 2 cache-busting prompt layouts",
        "",
        "1 error, 1 warning in 2 Python files.",
        "",
        f"**Money at stake: about {format_usd(1234.5)} per month** (worst provider per call site; "
        "5,000 calls/day per call site; prices as of 2026-10-01).",
        "",
        "| Provider / model | Est. loss / month | Findings |",
        "|---|---:|---:|",
        f"| `openai/gpt-4o` | {format_usd(1234.5)} | 1 |",
        "",
        "| | Rule | Where | What | Est. cost / month |",
        "|---|---|---|---|---|",
        "| 🔴 error | `PC001` volatile-before-stable | `app.py:3` | per-request clock `stamp` before the rules "
        f"*(fix available)* | {format_usd(1234.5)} (openai) |",
        "| 🟡 warning | `PC001` volatile-before-stable | `lib/b.py:3` | per-request clock `stamp` before the "
        "rules *(fix available with --unsafe-fixes)* | – |",
        "",
        "<details><summary>How to fix</summary>",
        "",
        "- `PC001`: put the clock last",
        "",
        "</details>",
        "",
        "<details><summary>1 file could not be analyzed</summary>",
        "",
        "- `bad\\|name.py`: invalid &lt;syntax&gt;",
        "",
        "</details>",
        "",
        "<sub>Estimates are approximate: cached tokens lost per call × price × traffic. "
        "Suppress a finding with <code># promptlint: ignore[CODE]</code>.</sub>",
    ]


def test_markdown_without_findings_or_money() -> None:
    assert render_markdown(AnalysisResult((), (), files_analyzed=1), Config()).splitlines() == [
        "## promptlint: 0 cache-busting prompt layouts", "",
        "No prompt-cache busts found in 1 Python file. ✅", "",
        "<sub>Estimates are approximate: cached tokens lost per call × price × traffic. "
        "Suppress a finding with <code># promptlint: ignore[CODE]</code>.</sub>"]
    free = finding("a.py", Severity.INFO, estimate=Estimate(0, "o200k_base", True, losses=(
        ProviderLoss("openai", "gpt-4o", 0, 0.0, 0.0, 5000.0, "2026-10-01"),)), hint="")
    lines = render_markdown(AnalysisResult((free,), ()), Config()).splitlines()
    assert not any("Money" in line or "How to fix" in line for line in lines)
    assert lines[-3].endswith("| – |")


def test_markdown_caps_the_table_at_a_hundred_rows() -> None:
    findings = tuple(finding(f"m{i}.py", estimate=None) for i in range(102))
    lines = render_markdown(AnalysisResult(findings, ()), Config()).splitlines()
    assert sum(line.startswith("| 🔴") for line in lines) == 100
    assert "…and 2 more (see the full report)." in lines
    exactly = render_markdown(AnalysisResult(findings[:100], ()), Config())
    assert "more (see the full report)" not in exactly


def test_markdown_escaping_and_code_spans() -> None:
    assert escape_text("a  |b*\n_c_ <i>&`[x](y)~\\") == "a \\|b\\* \\_c\\_ &lt;i&gt;&amp;\\`\\[x\\](y)\\~\\\\"
    assert code("a|b") == "`a\\|b`"
    assert code("x `y` z") == "``x `y` z``"
    assert code("``a``") == "``` ``a`` ```"
    assert code("`a") == "`` `a ``" and code("a`") == "`` a` ``"
    assert code("  ") == "`  `"  # padded: an empty span would not be code
    assert code("two\n lines") == "`two lines`"
    assert message("use `sorted(x)` *now*") == "use `sorted(x)` \\*now\\*"
    assert message("odd ` quote *") == "odd \\` quote \\*"  # unbalanced: no code spans at all


def test_markdown_shows_any_loss_above_zero() -> None:
    cheap = Estimate(40, "o200k_base", True, losses=(ProviderLoss("openai", "gpt-4o-mini", 40, 0.01, 0.5, 50.0,
                                                                  "2026-10-01"),))
    lines = render_markdown(AnalysisResult((finding("a.py", estimate=cheap),), ()), Config()).splitlines()
    assert f"| `openai/gpt-4o-mini` | {format_usd(0.5)} | 1 |" in lines
    assert any(line.endswith(f"| {format_usd(0.5)} (openai) |") for line in lines)


def test_text_in_a_notebook_frames_the_cell(tmp_path: Path) -> None:
    notebook = tmp_path / "nb.ipynb"
    cells = [{"cell_type": "code", "source": ["import os\n"], "metadata": {}, "outputs": [], "execution_count": None},
             {"cell_type": "code", "source": ["a = 1\n", "b = now()\n", "c = 3\n"], "metadata": {}, "outputs": [],
              "execution_count": None}]
    notebook.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}),
                        encoding="utf-8")
    where = Location(str(notebook), 2, 5, 2, 10, cell=2)
    lines = render_text(AnalysisResult((finding(str(notebook), location=where),), ()), Config()).splitlines()
    assert lines[0].startswith(f"{notebook}:cell 2:2:5: PC001")
    assert lines[1:5] == ["    1 | a = 1", "  > 2 | b = now()", "      |     ^^^^^", "    3 | c = 3"]


def test_text_colors_styles_only_what_promptlint_styles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--color always` without FORCE_COLOR: promptlint's own styles, and no highlighting of numbers
    or strings, no emoji codes turned into pictures, no wrapping of a long line."""
    monkeypatch.delenv("NO_COLOR")
    colors.set_mode("always")
    try:
        long = finding("a.py", location=Location("a.py", 1, 1, 1, 2))
        long = replace(long, message="costs 1,234 tokens 'here' :thumbs_up: " + "x" * 200)
        out = render_text(AnalysisResult((long,), ()), Config(), summary=False)
    finally:
        colors.set_mode("auto")
    header = out.splitlines()[0]
    assert "\x1b[1;31mPC001\x1b[0m" in header  # bold red, as set for errors
    assert "costs 1,234 tokens 'here' :thumbs_up: " + "x" * 200 + " " in header  # no highlight, no emoji, one line
    monkeypatch.setenv("NO_COLOR", "1")  # `--color always` wins over the environment
    colors.set_mode("always")
    try:
        forced = render_text(AnalysisResult((long,), ()), Config(), summary=False)
    finally:
        colors.set_mode("auto")
    assert "\x1b[1;31mPC001\x1b[0m" in forced
    monkeypatch.delenv("NO_COLOR")
    colors.set_mode("never")
    try:
        monkeypatch.setenv("FORCE_COLOR", "1")
        plain = render_text(AnalysisResult((long,), ()), Config(), summary=False)
    finally:
        colors.set_mode("auto")
    assert "\x1b[" not in plain
