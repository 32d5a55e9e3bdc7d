"""The OpenAI-compatible client against small local servers that speak the streaming protocol
(SSE chunks, usage with prompt_tokens_details, /metrics, /reset_prefix_cache). This tests our
client: parsing, TTFT timing, round-robin, concurrency, cache isolation between runs."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.conftest import REPO, run_cli
from verifier.api import VerifyOptions, verify
from verifier.openai_client import base_url, parse_metrics
from verifier.render import render_site
from verifier.samples import sample_layouts
from verifier.simulate import PrefixCache

FIRST_TOKEN_DELAY_S = 0.02


@dataclass
class FakeEngine:
    """A server's state: a real block cache over character codes, what it answered, its counters."""

    accepts_salt: bool
    allows_reset: bool
    cache: PrefixCache = field(default_factory=lambda: PrefixCache(16))
    answered: list[tuple[int, int]] = field(default_factory=list)  # (prompt, cached) per request
    salts: set[str] = field(default_factory=set)
    queries: int = 0
    hits: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def serve(self, body: dict[str, Any]) -> tuple[int, int]:
        text = (body.get("cache_salt") or "") + json.dumps(body.get("messages") or body.get("prompt"))
        tokens = [ord(c) for c in text]
        if "warm-up filler" in text:  # the client's warm-up requests are not part of any run
            return len(tokens), 0
        with self.lock:
            cached = self.cache.serve(tokens)
            self.answered.append((len(tokens), cached))
            self.salts.add(body.get("cache_salt") or "")
            self.queries += len(tokens)
            self.hits += cached
        return len(tokens), cached


def handler_for(engine: FakeEngine) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def reply(self, status: int, payload: bytes, kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            if self.path == "/v1/models":
                self.reply(200, json.dumps({"data": [{"id": "fake-model"}]}).encode())
            elif self.path == "/metrics":
                text = (f'# HELP x\nvllm:prefix_cache_queries_total{{engine="0"}} {engine.queries}.0\n'
                        f'vllm:prefix_cache_hits_total{{engine="0"}} {engine.hits}.0\n'
                        'vllm:cache_config_info{block_size="16",enable_prefix_caching="True"} 1.0\n')
                self.reply(200, text.encode(), "text/plain")
            else:
                self.reply(404, b"{}")

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
            if self.path == "/reset_prefix_cache":
                if engine.allows_reset:
                    engine.cache.reset()
                self.reply(200 if engine.allows_reset else 404, b"{}")
            elif self.path == "/v1/chat/completions":
                if "cache_salt" in body and not engine.accepts_salt:
                    self.reply(400, b'{"error": "unknown field cache_salt"}')
                    return
                self.stream(body)
            else:
                self.reply(404, b"{}")

        def stream(self, body: dict[str, Any]) -> None:
            assert body["stream"] and body["stream_options"] == {"include_usage": True}
            assert body["max_tokens"] == 1 and body["model"] == "fake-model"
            prompt, cached = engine.serve(body)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            time.sleep(FIRST_TOKEN_DELAY_S)
            usage = {"prompt_tokens": prompt, "completion_tokens": 1,
                     "prompt_tokens_details": {"cached_tokens": cached}}
            for chunk in ({"choices": [{"delta": {"role": "assistant", "content": ""}}]},
                          {"choices": [{"delta": {"content": "ok"}, "finish_reason": "length"}]},
                          {"choices": [], "usage": usage}):
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")

    return Handler


@pytest.fixture
def servers() -> Iterator[list[tuple[str, FakeEngine]]]:
    started = []
    for accepts_salt, allows_reset in ((True, True), (False, False)):
        engine = FakeEngine(accepts_salt, allows_reset)
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(engine))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append((server, engine))
    yield [(f"http://127.0.0.1:{s.server_address[1]}/v1", e) for s, e in started]
    for server, _ in started:
        server.shutdown()
        server.server_close()


def test_one_endpoint_measures_what_the_server_reported(servers: list[tuple[str, FakeEngine]]) -> None:
    url, engine = servers[0]
    sites = [render_site(layout, 4) for layout in sample_layouts()]
    report = verify(sites, VerifyOptions(backend="openai", endpoints=(url,)))
    assert report.engine.block_size == 16 and report.engine.model == "fake-model"
    measured = [(p, c) for site in report.sites for stats in (site.current, site.fixed) if stats
                for p, c in zip(stats.prompt_per_request, stats.cached_per_request)]
    assert measured == engine.answered
    assert len(engine.salts) == 4  # one fresh salt per run: runs never share blocks
    for site in report.sites:
        assert site.fixed is not None
        assert site.current.cached_per_request[0] == site.fixed.cached_per_request[0] == 0
        assert site.fixed.hit_rate > 0.5 > site.current.hit_rate
        assert all(t >= FIRST_TOKEN_DELAY_S * 1000 for t in site.current.ttft_ms)
        assert site.current.server_counters is not None
        assert site.current.server_counters["vllm:prefix_cache_hits_total"] == site.current.cached_tokens


def test_round_robin_concurrency_and_a_server_without_salt(servers: list[tuple[str, FakeEngine]]) -> None:
    (url_a, engine_a), (url_b, engine_b) = servers
    sites = [render_site(sample_layouts()[0], 6)]
    report = verify(sites, VerifyOptions(backend="openai", endpoints=(url_a, url_b), concurrency=2))
    assert len(engine_a.answered) == len(engine_b.answered) == 6  # 3 per run each
    assert engine_b.salts == {""}  # it refused cache_salt: the client retried without it
    fixed = report.sites[0].fixed
    assert fixed is not None
    # Each endpoint's first request is cold; B kept the current run's blocks (no reset, no salt),
    # so its first fixed request reuses the few blocks both layouts start with.
    assert fixed.cached_per_request[0] == 0 and 0 < fixed.cached_per_request[1] < 64
    assert "neither cache reset nor cache_salt" in report.engine.note


def test_cli_with_endpoint(servers: list[tuple[str, FakeEngine]]) -> None:
    url, _ = servers[0]
    result = run_cli("verify", "--samples", "--requests", "3", "--backend", "openai", "--endpoint", url,
                     "--format", "json", cwd=REPO)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["backend"] == "openai" and data["block_size"] == 16
    assert all(site["current"]["ttft_ms_p50"] is not None for site in data["call_sites"])


def test_unreachable_endpoint_is_a_clear_error() -> None:
    result = run_cli("verify", "--samples", "--backend", "openai", "--endpoint", "http://127.0.0.1:9/v1",
                     "--served-model", "m", "--block-size", "16", cwd=REPO)
    assert result.returncode == 2
    assert "127.0.0.1:9" in result.stderr


def test_metrics_parsing_and_urls() -> None:
    text = ('vllm:prefix_cache_hits_total{engine="0",model_name="m"} 10.0\n'
            'vllm:prefix_cache_hits_total{engine="1",model_name="m"} 5.0\n'
            'vllm:cache_config_info{block_size="128",cache_dtype="auto"} 1.0\nother 3\n')
    assert parse_metrics(text) == {"vllm:prefix_cache_hits_total": 15.0, "block_size": 128.0}
    assert base_url("http://h:8000/v1/") == base_url("http://h:8000") == "http://h:8000"
