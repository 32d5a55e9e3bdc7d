"""The vLLM side of ``promptlint verify --backend vllm``: runs inside the engine's environment.

    python -m verifier.vllm_worker < job.json

Reads one job (JSON on stdin), starts vLLM's offline engine with prefix caching on, replays each
run from an empty prefix cache, one request at a time, and writes JSON lines to stdout:
``ready`` (engine facts), ``progress`` (one per request), ``run`` (a run's measurements), ``done``,
or ``error``. Everything else that would reach stdout (vLLM's logs, progress bars) is sent to
stderr, so the protocol stays clean. Imports nothing of promptlint: only ``verifier.records``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, Callable

from verifier.records import WARM_UP_MESSAGES, ChatRequest, RequestMeasurement, RunMeasurement

Send = Callable[[dict[str, Any]], None]


def start_engine(job: dict[str, Any]) -> Any:
    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")  # GiB; CPU start-up fails without a size
    from vllm import LLM

    kwargs: dict[str, Any] = {
        "model": job["model"],
        "enable_prefix_caching": True,
        "enforce_eager": job.get("enforce_eager", True),  # 15-20 s start-up instead of ~45 s
        "disable_log_stats": False,  # fills RequestOutput.metrics (first_token_latency)
        "seed": 0,
    }
    for key in ("block_size", "max_model_len", "dtype", "gpu_memory_utilization"):
        if job.get(key):
            kwargs[key] = job[key]
    if "dtype" not in kwargs and on_cpu():
        # vLLM picks bfloat16 on CPU; without AMX/avx512_bf16 that is emulated and ~4x slower
        # (2.8 s instead of 0.6 s TTFT for 1,300 tokens here). Caching does not depend on it.
        kwargs["dtype"] = "float32"
    return LLM(**kwargs)


def on_cpu() -> bool:
    from vllm.platforms import current_platform

    return bool(current_platform.is_cpu())


def engine_facts(llm: Any) -> dict[str, Any]:
    import vllm

    config = llm.llm_engine.vllm_config
    try:
        from vllm.platforms import current_platform

        device = str(current_platform.device_name)
    except Exception:  # noqa: BLE001 - a label only
        device = "unknown"
    return {
        "block_size": int(config.cache_config.block_size),
        "vllm_version": getattr(vllm, "__version__", "?"),
        "device": device,
    }


def serve(llm: Any, request: ChatRequest, params: Any) -> RequestMeasurement:
    """One request; TTFT from the engine's own clock (arrival to first token), else the wall clock."""
    started = time.perf_counter()
    if request.prompt is not None:
        output = llm.generate([request.prompt], params, use_tqdm=False)[0]
    else:
        output = llm.chat(list(request.messages), params, use_tqdm=False)[0]
    wall_ms = (time.perf_counter() - started) * 1000
    latency = getattr(output.metrics, "first_token_latency", 0.0) if output.metrics else 0.0
    ids = tuple(output.prompt_token_ids or ())
    return RequestMeasurement(
        prompt_tokens=len(ids),
        cached_tokens=int(output.num_cached_tokens or 0),
        ttft_ms=latency * 1000 if latency and latency > 0 else wall_ms,
        token_ids=ids,
    )


def warm_up(llm: Any, params: Any) -> None:
    for _ in range(2):
        llm.chat([dict(m) for m in WARM_UP_MESSAGES], params, use_tqdm=False)


def reset_cache(llm: Any) -> None:
    if not llm.reset_prefix_cache():
        raise RuntimeError("vLLM could not reset its prefix cache (blocks still held)")


def run_job(job: dict[str, Any], send: Send) -> None:
    from vllm import SamplingParams

    llm = start_engine(job)
    send({"type": "ready", **engine_facts(llm)})
    params = SamplingParams(max_tokens=1, temperature=0.0)
    warm_up(llm, params)
    for index, run in enumerate(job["runs"]):
        reset_cache(llm)
        measured = []
        for request in run["requests"]:
            measured.append(serve(llm, ChatRequest.from_json(request), params))
            send({"type": "progress", "run": index})
        send({"type": "run", "run": index, "measurement": RunMeasurement(tuple(measured)).to_json()})
    send({"type": "done"})


def main() -> int:
    protocol = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # from here on, fd 1 (and every child process's stdout) is stderr

    def send(message: dict[str, Any]) -> None:
        protocol.write(json.dumps(message) + "\n")
        protocol.flush()

    try:
        run_job(json.load(sys.stdin), send)
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which shows the log tail
        send({"type": "error", "message": f"{type(exc).__name__}: {exc}"})
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
