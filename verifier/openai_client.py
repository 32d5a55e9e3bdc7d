"""Replay runs against OpenAI-compatible endpoints (``vllm serve``, SGLang, a cluster behind them).

Per request: a streaming chat completion with ``max_tokens=1``; TTFT is the client's clock at the
first SSE chunk that carries choices, minus the request start (as ``vllm bench serve`` measures
it); cached tokens come from ``usage.prompt_tokens_details.cached_tokens`` (vLLM needs
``--enable-prompt-tokens-details``, SGLang ``--enable-cache-report``).
Per run: the server's prefix cache is emptied where it allows it (vLLM ``/reset_prefix_cache``
with ``VLLM_SERVER_DEV_MODE=1``, SGLang ``/flush_cache``), and every request of the run carries the
same fresh ``cache_salt`` so runs never share cached blocks even where the reset is refused.
Prometheus counters (``/metrics``) are read before and after each run, where exposed.
Several endpoints are used round-robin, as a load balancer without prefix-aware routing would.
Only the standard library is used, so this backend works in the linter's own environment.
"""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from verifier.backends import BackendError, Measured, Progress, RunKey, run_list
from verifier.records import (
    WARM_UP_MESSAGES, ChatRequest, EngineInfo, RequestMeasurement, RunMeasurement, SiteRequests,
)

TIMEOUT_S = 300
COUNTERS = ("vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total",
            "vllm:prompt_tokens_cached_total")
RESET_PATHS = ("/reset_prefix_cache", "/flush_cache")


def base_url(endpoint: str) -> str:
    """``http://host:8000/v1/`` -> ``http://host:8000``: server routes live beside /v1."""
    url = endpoint.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def http(url: str, body: dict[str, Any] | None = None, timeout: float = 10) -> bytes:
    data = None if body is None else json.dumps(body).encode()
    method = "GET" if body is None else "POST"
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.read()


def parse_metrics(text: str) -> dict[str, float]:
    """Sum each counter of interest over its label sets; read the block size where exposed."""
    totals: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        name = line.split("{", 1)[0].split(" ", 1)[0]
        if name in COUNTERS:
            totals[name] = totals.get(name, 0.0) + float(line.rsplit(" ", 1)[1])
        elif name == "vllm:cache_config_info":
            found = re.search(r'block_size="(\d+)"', line)
            if found:
                totals["block_size"] = float(found.group(1))
    return totals


@dataclass
class Endpoint:
    url: str
    salt_supported: bool = True
    reset_refused: bool = False

    def metrics(self) -> dict[str, float] | None:
        try:
            return parse_metrics(http(self.url + "/metrics").decode("utf-8", "replace"))
        except (urllib.error.URLError, OSError, ValueError):
            return None

    def reset(self) -> None:
        for path in RESET_PATHS:
            try:
                http(self.url + path, {})
                return
            except (urllib.error.URLError, OSError):
                continue
        self.reset_refused = True

    @property
    def isolation(self) -> str | None:
        """How runs on this endpoint may fail to be independent, if they may."""
        if not self.reset_refused:
            return None
        if self.salt_supported:
            return f"{self.url}: cache reset refused, runs kept apart by cache_salt"
        return f"{self.url}: neither cache reset nor cache_salt, so a run may reuse blocks of earlier runs"

    def model_id(self) -> str:
        try:
            models = json.loads(http(self.url + "/v1/models"))["data"]
            return str(models[0]["id"])
        except (urllib.error.URLError, OSError, ValueError, KeyError, IndexError) as exc:
            raise BackendError(f"{self.url}/v1/models did not list a model ({exc}); pass --served-model") from None


def request_body(request: ChatRequest, model: str, salt: str | None) -> tuple[str, dict[str, Any]]:
    body: dict[str, Any] = {
        "model": model, "max_tokens": 1, "temperature": 0, "stream": True,
        "stream_options": {"include_usage": True},
    }
    if salt:
        body["cache_salt"] = salt
    if request.prompt is not None:
        return "/v1/completions", {**body, "prompt": request.prompt}
    return "/v1/chat/completions", {**body, "messages": list(request.messages)}


def stream_one(endpoint: Endpoint, request: ChatRequest, model: str, salt: str) -> RequestMeasurement:
    """One streaming request: TTFT at the first chunk with choices, usage from the last chunk."""
    path, body = request_body(request, model, salt if endpoint.salt_supported else None)
    http_request = urllib.request.Request(endpoint.url + path, data=json.dumps(body).encode(),
                                          headers={"Content-Type": "application/json"})
    started = time.perf_counter()
    first: float | None = None
    usage: dict[str, Any] = {}
    try:
        with urllib.request.urlopen(http_request, timeout=TIMEOUT_S) as response:
            for raw in response:
                line = raw.decode("utf-8", "replace").strip()
                if not line.startswith("data:") or line == "data: [DONE]":
                    continue
                chunk = json.loads(line[len("data:"):])
                if first is None and chunk.get("choices"):
                    first = time.perf_counter()
                usage = chunk.get("usage") or usage
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode("utf-8", "replace")
        if exc.code == 400 and "cache_salt" in detail and endpoint.salt_supported:
            endpoint.salt_supported = False  # e.g. SGLang: runs then rely on the cache reset
            return stream_one(endpoint, request, model, salt)
        raise BackendError(f"{endpoint.url}{path}: HTTP {exc.code}: {detail[:300]}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise BackendError(f"{endpoint.url}{path}: {exc}") from None
    details = usage.get("prompt_tokens_details") or {}
    return RequestMeasurement(
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        cached_tokens=int(details.get("cached_tokens") or 0),
        ttft_ms=None if first is None else (first - started) * 1000,
    )


def counter_delta(before: list[dict[str, float] | None], after: list[dict[str, float] | None]) -> dict[str, float] | None:
    pairs = [(b, a) for b, a in zip(before, after) if b is not None and a is not None]
    if not pairs:
        return None
    return {name: sum(a.get(name, 0.0) - b.get(name, 0.0) for b, a in pairs) for name in COUNTERS}


@dataclass
class OpenAIBackend:
    urls: Sequence[str]
    concurrency: int = 1
    served_model: str | None = None
    block_size: int | None = None
    endpoints: list[Endpoint] = field(init=False)
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.urls:
            raise BackendError("--backend openai needs at least one --endpoint URL")
        self.endpoints = [Endpoint(base_url(u)) for u in self.urls]

    def engine_block_size(self) -> int:
        if self.block_size:
            return self.block_size
        metrics = self.endpoints[0].metrics() or {}
        if "block_size" in metrics:
            return int(metrics["block_size"])
        self.notes.append("block size not exposed by the server: predictions assume 16")
        return 16

    def warm_up(self, model: str) -> None:
        request = ChatRequest(WARM_UP_MESSAGES)
        for endpoint in self.endpoints:
            for _ in range(2):
                stream_one(endpoint, request, model, uuid.uuid4().hex)

    def run(self, requests: Sequence[ChatRequest], model: str, key: RunKey, progress: Progress) -> RunMeasurement:
        for endpoint in self.endpoints:
            endpoint.reset()
        salt = uuid.uuid4().hex
        before = [e.metrics() for e in self.endpoints]
        lock = threading.Lock()

        def one(index: int) -> RequestMeasurement:
            measured = stream_one(self.endpoints[index % len(self.endpoints)], requests[index], model, salt)
            with lock:
                progress.advance(key)
            return measured

        with ThreadPoolExecutor(max_workers=max(1, self.concurrency)) as pool:
            measured = list(pool.map(one, range(len(requests))))
        after = [e.metrics() for e in self.endpoints]
        return RunMeasurement(tuple(measured), counter_delta(before, after))

    def measure(self, sites: Sequence[SiteRequests], progress: Progress) -> Measured:
        model = self.served_model or self.endpoints[0].model_id()
        block_size = self.engine_block_size()
        self.warm_up(model)
        progress.phase(f"replaying on {len(self.endpoints)} endpoint(s), concurrency {self.concurrency}")
        runs = {key: self.run(requests, model, key, progress) for key, requests in run_list(sites)}
        if not any(r.cached_tokens for run in runs.values() for r in run.requests):
            self.notes.append("the server reported no cached tokens at all; if it should have, start "
                              "vLLM with --enable-prompt-tokens-details (SGLang: --enable-cache-report)")
        self.notes += [e.isolation for e in self.endpoints if e.isolation]
        urls = ", ".join(e.url for e in self.endpoints)
        engine = EngineInfo("openai", model, block_size, "", "; ".join([urls, *self.notes]))
        return Measured(engine, runs)
