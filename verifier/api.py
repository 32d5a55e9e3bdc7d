"""The verifier end to end: call sites to requests, requests to a backend, results to a report.

    sites = sites_from_analysis(result, requests=20)       # or load_prompts(path)
    report = verify(sites, VerifyOptions(backend="vllm", model=Path("tiny-llama")))

The verifier reuses the analyzer's layouts; it never re-analyzes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from promptlint.model import AnalysisResult, Severity
from verifier.backends import (
    Backend, Measured, NullProgress, Progress, SimulateBackend, VllmBackend, predict,
)
from verifier.chat import ChatTokenizer, load_chat_tokenizer
from verifier.records import RunMeasurement, SiteRequests
from verifier.render import render_site
from verifier.report import VerifyReport, site_result

BACKENDS = ("simulate", "vllm", "openai")
GPU_DEFAULT_BLOCK_SIZE = 16  # vLLM's default on CUDA; CPU vLLM uses 128


@dataclass(frozen=True)
class VerifyOptions:
    backend: str = "simulate"
    model: Path | None = None  # a local model folder (tokenizer + chat template, weights for vllm)
    block_size: int | None = None  # None: the engine's own (simulate: 16)
    endpoints: tuple[str, ...] = ()
    concurrency: int = 1
    served_model: str | None = None  # openai: the model name to request (default: the first listed)
    engine_python: str | None = None  # vllm: the interpreter of the engine's environment
    max_model_len: int | None = None  # vllm: cap a real model's context so its KV cache fits


def sites_from_analysis(
    result: AnalysisResult, requests: int = 20, seed: int = 0, min_severity: Severity = Severity.WARNING
) -> list[SiteRequests]:
    """One site per layout that has a finding at or above ``min_severity``, in source order.

    Findings about request settings alone (a volatile ``prompt_cache_key``) have no volatile
    segment in the prompt text (``bust_index`` None or -1): an engine cannot show them, so they
    are left out.
    """
    indexes = sorted({
        f.layout_index for f in result.findings
        if f.layout_index is not None and f.bust_index is not None and f.bust_index >= 0
        and f.severity.rank >= min_severity.rank
    })
    layouts = sorted((result.layouts[i] for i in indexes),
                     key=lambda lay: (lay.call.location.path, lay.call.location.line))
    return [render_site(layout, requests, seed) for layout in layouts]


def make_backend(options: VerifyOptions, tokenizer: ChatTokenizer) -> Backend:
    if options.backend == "simulate":
        label = str(options.model) if options.model else "default tokenizer (no model)"
        return SimulateBackend(tokenizer, options.block_size or GPU_DEFAULT_BLOCK_SIZE, label)
    if options.backend == "vllm":
        if options.model is None:
            raise ValueError("--backend vllm needs --model DIR (a local model folder)")
        return VllmBackend(options.model, options.block_size, options.engine_python, options.max_model_len)
    if options.backend == "openai":
        from verifier.openai_client import OpenAIBackend

        return OpenAIBackend(options.endpoints, options.concurrency, options.served_model, options.block_size)
    raise ValueError(f"unknown backend {options.backend!r} (choose from {', '.join(BACKENDS)})")


def verify(sites: Sequence[SiteRequests], options: VerifyOptions,
           progress: Progress | None = None) -> VerifyReport:
    """Measure every site's runs on the backend and set the simulator's prediction beside them."""
    progress = progress or NullProgress()
    local_model = options.model if options.model and options.model.is_dir() else None
    tokenizer = load_chat_tokenizer(local_model)
    measured: Measured = make_backend(options, tokenizer).measure(sites, progress)
    engine = measured.engine
    if options.backend == "simulate":
        predicted = measured.runs
    else:
        progress.phase("predicting with the simulator")
        predicted = predict(sites, tokenizer, engine.block_size, max(1, len(options.endpoints)))
    if not engine.tokenizer:
        engine = replace(engine, tokenizer=tokenizer.name)
    results = []
    for index, site in enumerate(sites):
        names = list(site.runs())
        measured_runs = {n: measured.runs[(index, n)] for n in names}
        predicted_runs = {n: predicted[(index, n)] for n in names}
        match = None if options.backend == "simulate" else tokens_match(measured_runs, predicted_runs)
        hits = {n: tuple(r.cached_tokens for r in run.requests) for n, run in predicted_runs.items()}
        results.append(site_result(site, measured_runs, hits, match, engine.block_size))
    return VerifyReport(engine, tuple(results))


def tokens_match(measured: dict[str, RunMeasurement], predicted: dict[str, RunMeasurement]) -> bool | None:
    """Whether the engine saw exactly the simulator's prompt tokens; where the engine does not
    return token ids (an HTTP server), whether the counts agree; None when it reports nothing."""
    pairs = [(e, p) for name in measured
             for e, p in zip(measured[name].requests, predicted[name].requests)]
    if all(e.token_ids is not None for e, _ in pairs):
        return all(e.token_ids == p.token_ids for e, p in pairs)
    if any(e.prompt_tokens == 0 for e, _ in pairs):
        return None
    return all(e.prompt_tokens == p.prompt_tokens for e, p in pairs)
