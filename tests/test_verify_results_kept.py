"""`promptlint verify` never loses measured results: the results are written before any chart, a
missing optional dependency or a bad path is a usage error (exit 2) before the replay starts, and
the text table adapts to an 80-column terminal instead of cutting its cells to "…"."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli
from tests.integration_helpers import cli

REPLAY_STARTED = "simulating vLLM's prefix cache"  # the progress line of the simulator's replay


def test_png_chart_without_matplotlib_is_a_usage_error_before_the_replay(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # find_spec says: not installed
    code, out, err = cli("verify", "--samples", "--requests", "2", "--chart", str(tmp_path / "c.png"), cwd=REPO)
    assert code == 2
    assert "pip install matplotlib" in err and "--chart FILE.html" in err
    assert REPLAY_STARTED not in err and out == ""  # nothing was replayed, nothing to lose
    assert not (tmp_path / "c.png").exists()


@pytest.mark.parametrize("to_file", [True, False])
def test_a_chart_that_fails_after_the_replay_keeps_the_json_results(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, to_file: bool) -> None:
    import verifier.chart

    def broken(report: object, path: Path) -> None:
        raise verifier.chart.ChartError("the chart could not be drawn")

    monkeypatch.setattr(verifier.chart, "write_chart", broken)
    results = tmp_path / "results.json"
    output = ["--output", str(results)] if to_file else []
    code, out, err = cli("verify", "--samples", "--requests", "3", "--format", "json", *output,
                         "--chart", str(tmp_path / "c.html"), cwd=REPO)
    assert code == 2
    assert "the chart could not be drawn" in err and REPLAY_STARTED in err
    data = json.loads(results.read_text(encoding="utf-8") if to_file else out)
    assert data["version"] == 1 and len(data["call_sites"]) == 2
    assert ("written to" if to_file else "written in full") in err


@pytest.mark.parametrize("value", ["/nonexistent/bin/python", "no-such-python-anywhere"])
def test_a_bad_engine_python_is_a_usage_error_not_an_internal_error(tmp_path: Path, value: str) -> None:
    model = tmp_path / "model"
    model.mkdir()
    (model / "tokenizer_config.json").write_text("{}", encoding="utf-8")
    done = run_cli("verify", "--samples", "--backend", "vllm", "--model", str(model),
                   "--engine-python", value, cwd=tmp_path)
    assert done.returncode == 2
    assert "promptlint: error: --engine-python: no such interpreter" in done.stderr and value in done.stderr
    assert "internal error" not in done.stderr and REPLAY_STARTED not in done.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["--output", "/nonexistent/dir/r.json"], "--output: no such folder"),
    (["--chart", "/nonexistent/dir/c.html"], "--chart: no such folder"),
])
def test_unwritable_result_paths_are_refused_before_the_replay(args: list[str], message: str) -> None:
    code, _, err = cli("verify", "--samples", "--requests", "2", *args, cwd=REPO)
    assert code == 2 and message in err and REPLAY_STARTED not in err


def run_in_terminal(columns: int, *args: str) -> str:
    """Run the CLI on a pseudo-terminal (what a user's shell gives it) COLUMNS wide."""
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": str(columns), "LINES": "50", "TERM": "xterm"}
    with subprocess.Popen([sys.executable, "-m", "promptlint", *args], cwd=REPO, env=env,
                          stdin=subprocess.DEVNULL, stdout=follower, stderr=subprocess.DEVNULL) as process:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the follower side closed: the process is done
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=120)
    os.close(leader)
    text = b"".join(chunks).decode("utf-8", errors="replace")
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)  # colours off, to read the words


@pytest.mark.parametrize("columns", [80, 100])
def test_the_results_table_adapts_to_a_narrow_terminal(columns: int) -> None:
    text = run_in_terminal(columns, "verify", "--samples", "--requests", "3")
    assert "…" not in text  # no cell cut
    for header in ("Hit rate", "Max", "Cached / prompt tokens", "Predicted", "TTFT cold", "TTFT warm p50 / p95"):
        assert header in text
    assert "samples/support_bot.py:20" in text and "samples/agent.py:18" in text
    assert re.search(r"Hit rate +\d+\.\d % +\d+\.\d %", text)  # current and fixed side by side
    assert max(len(line.rstrip("\r")) for line in text.splitlines()) <= columns


def test_a_wide_terminal_keeps_the_one_table() -> None:
    text = run_in_terminal(200, "verify", "--samples", "--requests", "3")
    assert "…" not in text
    assert re.search(r"Call site .*Layout .*Hit rate .*TTFT warm p50 / p95", text)
