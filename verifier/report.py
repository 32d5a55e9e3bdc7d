"""The verifier's results: per call site, current vs fixed layout, measured vs predicted.

``VerifyReport.to_json()`` is the ``--format json`` contract that other tools read (version 1):

    {"version": 1, "backend", "model", "block_size", "tokenizer", "note",
     "call_sites": [{"path", "line", "api", "requests",
                     "current": LAYOUT, "fixed": LAYOUT | null,
                     "predicted": {"cached_tokens", "fixed_cached_tokens", "matches_measured",
                                   "cached_tokens_per_request", "fixed_cached_tokens_per_request"},
                     "tokens_match": true | false | null,
                     "notes": [...]}]}
    LAYOUT = {"hit_rate", "cached_tokens", "prompt_tokens", "max_hit_rate", "max_cached_tokens",
              "ttft_ms_p50", "ttft_ms_p95",
              "ttft_ms_cold", "ttft_ms_warm_p50", "ttft_ms_warm_p95",
              "cached_tokens_per_request", "prompt_tokens_per_request", "ttft_ms_per_request",
              "server_counters"}

Hit rates are fractions 0..1 (cached / prompt tokens over all requests of the run); TTFT is in
milliseconds and null where the backend cannot time (the simulator). "cold" is the first request
after the cache was emptied, "warm" the requests after it; p50/p95 are over all requests.
``max_hit_rate`` is the ceiling on one engine: the first request misses, every later one reuses all
of its full blocks (below vLLM's N-1 cap).
``predicted.cached_tokens`` is the simulator's figure for the current layout (the static claim),
``fixed_cached_tokens`` for the fixed one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from verifier.records import EngineInfo, RunMeasurement, SiteRequests
from verifier.simulate import cached_tokens

JSON_VERSION = 1


def percentile(values: list[float], fraction: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default), None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * fraction
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def rounded(value: float | None, digits: int = 2) -> float | None:
    return None if value is None else round(value, digits)


@dataclass(frozen=True)
class LayoutStats:
    """One layout's run, summed over its requests."""

    prompt_per_request: tuple[int, ...]
    cached_per_request: tuple[int, ...]
    ttft_ms: tuple[float, ...]  # empty where the backend cannot time
    block_size: int
    server_counters: dict[str, float] | None = None

    @staticmethod
    def of(run: RunMeasurement, block_size: int) -> LayoutStats:
        timed = bool(run.requests) and all(r.ttft_ms is not None for r in run.requests)
        return LayoutStats(
            prompt_per_request=tuple(r.prompt_tokens for r in run.requests),
            cached_per_request=tuple(r.cached_tokens for r in run.requests),
            ttft_ms=tuple(float(r.ttft_ms or 0.0) for r in run.requests) if timed else (),
            block_size=block_size,
            server_counters=run.server_counters,
        )

    @property
    def requests(self) -> int:
        return len(self.prompt_per_request)

    @property
    def prompt_tokens(self) -> int:
        return sum(self.prompt_per_request)

    @property
    def cached_tokens(self) -> int:
        return sum(self.cached_per_request)

    @property
    def hit_rate(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def max_cached_tokens(self) -> int:
        """The ceiling of one engine: the first request misses, every later one reuses all its
        full blocks below the N-1 cap. A fix can come near it, never above it."""
        return sum(cached_tokens(n, n, self.block_size) for n in self.prompt_per_request[1:])

    @property
    def max_hit_rate(self) -> float:
        return self.max_cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def ttft_cold(self) -> float | None:
        return self.ttft_ms[0] if self.ttft_ms else None

    def ttft(self, fraction: float, warm_only: bool = False) -> float | None:
        return percentile(list(self.ttft_ms[1:] if warm_only else self.ttft_ms), fraction)

    def to_json(self) -> dict[str, Any]:
        return {
            "hit_rate": round(self.hit_rate, 4),
            "cached_tokens": self.cached_tokens,
            "prompt_tokens": self.prompt_tokens,
            "max_hit_rate": round(self.max_hit_rate, 4),
            "max_cached_tokens": self.max_cached_tokens,
            "ttft_ms_p50": rounded(self.ttft(0.5)),
            "ttft_ms_p95": rounded(self.ttft(0.95)),
            "ttft_ms_cold": rounded(self.ttft_cold),
            "ttft_ms_warm_p50": rounded(self.ttft(0.5, warm_only=True)),
            "ttft_ms_warm_p95": rounded(self.ttft(0.95, warm_only=True)),
            "cached_tokens_per_request": list(self.cached_per_request),
            "prompt_tokens_per_request": list(self.prompt_per_request),
            "ttft_ms_per_request": [round(t, 3) for t in self.ttft_ms] or None,
            "server_counters": self.server_counters,
        }

    @staticmethod
    def from_json(data: dict[str, Any], block_size: int) -> LayoutStats:
        return LayoutStats(
            prompt_per_request=tuple(data["prompt_tokens_per_request"]),
            cached_per_request=tuple(data["cached_tokens_per_request"]),
            ttft_ms=tuple(data.get("ttft_ms_per_request") or ()),
            block_size=block_size,
            server_counters=data.get("server_counters"),
        )


@dataclass(frozen=True)
class SiteResult:
    path: str
    line: int
    api: str
    notes: tuple[str, ...]
    current: LayoutStats
    fixed: LayoutStats | None
    predicted_current: tuple[int, ...]  # the simulator's cached tokens per request
    predicted_fixed: tuple[int, ...] | None
    tokens_match: bool | None = None  # the engine's prompt token ids equal the simulator's

    @property
    def label(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path

    @property
    def prediction_matches(self) -> bool:
        same = self.predicted_current == self.current.cached_per_request
        if self.fixed is not None:
            same = same and self.predicted_fixed == self.fixed.cached_per_request
        return same and self.tokens_match is not False

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "api": self.api,
            "requests": self.current.requests,
            "current": self.current.to_json(),
            "fixed": self.fixed.to_json() if self.fixed else None,
            "predicted": {
                "cached_tokens": sum(self.predicted_current),
                "fixed_cached_tokens": None if self.predicted_fixed is None else sum(self.predicted_fixed),
                "matches_measured": self.prediction_matches,
                "cached_tokens_per_request": list(self.predicted_current),
                "fixed_cached_tokens_per_request": None if self.predicted_fixed is None else list(self.predicted_fixed),
            },
            "tokens_match": self.tokens_match,
            "notes": list(self.notes),
        }

    @staticmethod
    def from_json(data: dict[str, Any], block_size: int) -> SiteResult:
        predicted = data["predicted"]
        fixed_predicted = predicted.get("fixed_cached_tokens_per_request")
        return SiteResult(
            path=data["path"],
            line=data["line"],
            api=data["api"],
            notes=tuple(data.get("notes", ())),
            current=LayoutStats.from_json(data["current"], block_size),
            fixed=LayoutStats.from_json(data["fixed"], block_size) if data.get("fixed") else None,
            predicted_current=tuple(predicted["cached_tokens_per_request"]),
            predicted_fixed=None if fixed_predicted is None else tuple(fixed_predicted),
            tokens_match=data.get("tokens_match"),
        )


@dataclass(frozen=True)
class VerifyReport:
    engine: EngineInfo
    sites: tuple[SiteResult, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "version": JSON_VERSION,
            "backend": self.engine.backend,
            "model": self.engine.model,
            "block_size": self.engine.block_size,
            "tokenizer": self.engine.tokenizer,
            "note": self.engine.note,
            "call_sites": [site.to_json() for site in self.sites],
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> VerifyReport:
        """A saved ``--format json`` report, to render it again (text, chart) without replaying."""
        if data.get("version") != JSON_VERSION:
            raise ValueError(f"not a version {JSON_VERSION} verify report")
        block = int(data["block_size"])
        engine = EngineInfo(data["backend"], data["model"], block, data.get("tokenizer", ""), data.get("note", ""))
        return VerifyReport(engine, tuple(SiteResult.from_json(s, block) for s in data["call_sites"]))


def site_result(
    site: SiteRequests,
    measured: dict[str, RunMeasurement],
    predicted: dict[str, tuple[int, ...]],
    tokens_match: bool | None,
    block_size: int,
) -> SiteResult:
    fixed = measured.get("fixed")
    return SiteResult(
        path=site.path,
        line=site.line,
        api=site.api,
        notes=site.notes,
        current=LayoutStats.of(measured["current"], block_size),
        fixed=LayoutStats.of(fixed, block_size) if fixed else None,
        predicted_current=predicted["current"],
        predicted_fixed=predicted.get("fixed"),
        tokens_match=tokens_match,
    )
