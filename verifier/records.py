"""Frozen records of the verifier: what is replayed, what a backend measured, what is reported.

They are plain data with ``to_json``/``from_json`` so they cross the process boundary to the vLLM
worker (which runs in its own virtual environment) unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Message = dict[str, Any]  # one OpenAI chat message: {"role": ..., "content": ...}

# Sent before measuring, on every backend that times: an engine's first requests pay one-off costs
# (allocations, kernel selection) that must not land in the first cold figure.
WARM_UP_MESSAGES: tuple[Message, ...] = (
    {"role": "user", "content": " ".join(f"warm-up filler sentence number {i}." for i in range(150))},
)


@dataclass(frozen=True)
class ChatRequest:
    """One concrete request: OpenAI chat messages, rendered through the model's chat template,
    or a raw text prompt (from a prompts file) that is sent as it is."""

    messages: tuple[Message, ...] = ()
    prompt: str | None = None

    def to_json(self) -> dict[str, Any]:
        if self.prompt is not None:
            return {"prompt": self.prompt}
        return {"messages": [dict(m) for m in self.messages]}

    @staticmethod
    def from_json(data: dict[str, Any]) -> ChatRequest:
        if data.get("prompt") is not None:
            return ChatRequest(prompt=str(data["prompt"]))
        return ChatRequest(tuple(dict(m) for m in data["messages"]))


@dataclass(frozen=True)
class SiteRequests:
    """The requests replayed for one call site: as the code lays them out today and as fixed.

    ``fixed`` is None when there is no fixed layout to compare with (prompts read from a file).
    """

    path: str
    line: int
    api: str
    current: tuple[ChatRequest, ...]
    fixed: tuple[ChatRequest, ...] | None
    notes: tuple[str, ...] = ()  # how values were synthesized or layouts changed, for the report

    @property
    def label(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path

    def runs(self) -> dict[str, tuple[ChatRequest, ...]]:
        """The request sequences to replay, by layout name, in the order they are run."""
        runs = {"current": self.current}
        if self.fixed is not None:
            runs["fixed"] = self.fixed
        return runs


@dataclass(frozen=True)
class RequestMeasurement:
    """What a backend saw for one request."""

    prompt_tokens: int
    cached_tokens: int
    ttft_ms: float | None  # None where the backend cannot time (the simulator)
    token_ids: tuple[int, ...] | None = None  # the prompt as the engine tokenized it, when known

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "prompt_tokens": self.prompt_tokens,
            "cached_tokens": self.cached_tokens,
            "ttft_ms": self.ttft_ms,
        }
        if self.token_ids is not None:
            data["token_ids"] = list(self.token_ids)
        return data

    @staticmethod
    def from_json(data: dict[str, Any]) -> RequestMeasurement:
        ids = data.get("token_ids")
        return RequestMeasurement(
            prompt_tokens=int(data["prompt_tokens"]),
            cached_tokens=int(data["cached_tokens"]),
            ttft_ms=None if data.get("ttft_ms") is None else float(data["ttft_ms"]),
            token_ids=None if ids is None else tuple(ids),
        )


@dataclass(frozen=True)
class RunMeasurement:
    """One layout's requests replayed in order from an empty prefix cache."""

    requests: tuple[RequestMeasurement, ...]
    server_counters: dict[str, float] | None = None  # Prometheus deltas, where exposed

    def to_json(self) -> dict[str, Any]:
        return {
            "requests": [r.to_json() for r in self.requests],
            "server_counters": self.server_counters,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> RunMeasurement:
        return RunMeasurement(
            requests=tuple(RequestMeasurement.from_json(r) for r in data["requests"]),
            server_counters=data.get("server_counters"),
        )


@dataclass(frozen=True)
class EngineInfo:
    """What the backend ran on: reported at the top of the report."""

    backend: str
    model: str
    block_size: int
    tokenizer: str = ""
    note: str = ""
