"""`promptlint verify`: replay flagged calls on a real engine (or the simulator) and measure the
prefix-cache hit rate and TTFT of today's layout against the fixed one.
`promptlint verify-model DIR`: build a small random-weight Llama model for tests and demos.

Everything heavy (the analyzer, vLLM, transformers) is imported inside the commands.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

if TYPE_CHECKING:
    from verifier.api import VerifyOptions
    from verifier.records import SiteRequests
    from verifier.report import VerifyReport

EXIT_OK, EXIT_ERROR = 0, 2


def register(app: typer.Typer) -> None:
    app.command("verify")(verify)
    app.command("verify-model")(verify_model)


def fail(message: str) -> typer.Exit:
    typer.echo(f"promptlint: error: {message}", err=True)
    return typer.Exit(EXIT_ERROR)


def verify(
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Files or folders to analyze (default: . unless --prompts/--samples)")] = None,
    backend: Annotated[str, typer.Option(help="simulate | vllm | openai")] = "simulate",
    model: Annotated[Optional[Path], typer.Option(help="Local model folder (tokenizer, chat template; weights for vllm)")] = None,
    block_size: Annotated[Optional[int], typer.Option(help="KV block size (default: the engine's; simulate: 16)")] = None,
    requests: Annotated[int, typer.Option(help="Requests per call site and layout")] = 20,
    output_format: Annotated[str, typer.Option("--format", "-f", help="text | json")] = "text",
    chart: Annotated[Optional[Path], typer.Option(help="Also write a chart: FILE.html or FILE.png")] = None,
    prompts: Annotated[Optional[Path], typer.Option(help="JSONL of prompts to replay as given")] = None,
    endpoint: Annotated[Optional[list[str]], typer.Option(help="OpenAI-compatible base URL (repeat: round-robin)")] = None,
    concurrency: Annotated[int, typer.Option(help="openai: requests in flight")] = 1,
    served_model: Annotated[Optional[str], typer.Option(help="openai: model name to request")] = None,
    engine_python: Annotated[Optional[str], typer.Option(help="vllm: python of the engine's environment")] = None,
    max_model_len: Annotated[Optional[int], typer.Option(help="vllm: context length to allocate for (long-context models on CPU)")] = None,
    samples: Annotated[bool, typer.Option("--samples", help="Also verify two built-in sample layouts")] = False,
    from_report: Annotated[Optional[Path], typer.Option(help="Render a saved --format json report again, without replaying")] = None,
    min_severity: Annotated[str, typer.Option(help="Verify calls with findings at or above: info | warning | error")] = "warning",
    seed: Annotated[int, typer.Option(help="Seed of the synthesized values")] = 0,
    config_file: Annotated[Optional[Path], typer.Option("--config", help="Config file")] = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the report to a file")] = None,
) -> None:
    """Prove findings on an engine: hit rate and TTFT, current layout vs fixed, measured vs predicted."""
    from verifier.api import BACKENDS, VerifyOptions

    if backend not in BACKENDS:
        raise fail(f"unknown backend '{backend}' (choose from {', '.join(BACKENDS)})")
    if output_format not in ("text", "json"):
        raise fail(f"unknown format '{output_format}' (text | json)")
    if requests < 1:
        raise fail("--requests must be at least 1")
    if model is not None and backend != "openai" and not model.is_dir():
        raise fail(f"--model must be a local model folder: {model}")
    check_output_paths(chart, output)
    if backend == "vllm":
        check_engine_python(engine_python)
    if from_report is not None:
        write_outputs(load_report(from_report), output_format, chart, output)
        raise typer.Exit(EXIT_OK)
    sites = collect_sites(paths, prompts, samples, requests, seed, min_severity, config_file)
    options = VerifyOptions(
        backend=backend, model=model, block_size=block_size, endpoints=tuple(endpoint or ()),
        concurrency=concurrency, served_model=served_model, engine_python=engine_python,
        max_model_len=max_model_len,
    )
    report = run_verify(sites, options)
    write_outputs(report, output_format, chart, output)
    raise typer.Exit(EXIT_OK)


def check_output_paths(chart: Optional[Path], output: Optional[Path]) -> None:
    """Everything that would make writing the results fail is a usage error before the replay,
    which can take minutes on a real engine: a chart format, its optional dependency, a folder."""
    import importlib.util

    if chart is not None:
        suffix = chart.suffix.lower()
        if suffix not in (".html", ".htm", ".png"):
            raise fail(f"--chart wants a .html or .png file, not {chart.name}")
        if suffix == ".png" and importlib.util.find_spec("matplotlib") is None:
            raise fail("a PNG chart needs matplotlib, which is not installed: pip install matplotlib "
                       "(or write --chart FILE.html, which needs nothing)")
    for option, path in (("--chart", chart), ("--output", output)):
        if path is not None and not path.resolve().parent.is_dir():
            raise fail(f"{option}: no such folder: {path.parent}")
        if path is not None and path.is_dir():
            raise fail(f"{option}: {path} is a folder, not a file")


def check_engine_python(engine_python: Optional[str]) -> None:
    """--engine-python (or $PROMPTLINT_VERIFY_PYTHON) must name an interpreter that exists, and
    without either some engine must be found (.venv-verify, vllm importable)."""
    import os
    import shutil

    for option, value in (("--engine-python", engine_python),
                          ("PROMPTLINT_VERIFY_PYTHON", None if engine_python else os.environ.get("PROMPTLINT_VERIFY_PYTHON"))):
        if not value:
            continue
        path = Path(value).expanduser()
        install = ("; an engine environment is made by verifier/scripts/install_vllm_cpu.sh "
                   "(its Python is .venv-verify/bin/python)")
        if os.sep in value or (os.altsep and os.altsep in value):
            if not path.is_file():
                raise fail(f"{option}: no such interpreter: {value}{install}")
            if not os.access(path, os.X_OK):
                raise fail(f"{option}: {value} is not executable{install}")
        elif shutil.which(value) is None:
            raise fail(f"{option}: no such interpreter on PATH: {value}{install}")
    from verifier.backends import BackendError, find_engine_python

    try:
        find_engine_python(engine_python)  # no engine at all: say how to install one, now
    except BackendError as exc:
        raise fail(str(exc)) from None


def load_report(path: Path) -> VerifyReport:
    from verifier.report import VerifyReport

    try:
        return VerifyReport.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise fail(f"{path}: not a readable verify report ({exc})") from None


def collect_sites(paths: Optional[list[Path]], prompts: Optional[Path], samples: bool, requests: int,
                  seed: int, min_severity: str, config_file: Optional[Path]) -> list[SiteRequests]:
    from verifier.prompts_file import PromptsFileError, load_prompts
    from verifier.render import render_site
    from verifier.samples import sample_layouts

    sites: list[SiteRequests] = []
    if paths or not (prompts or samples):
        sites += analyzed_sites(paths or [Path(".")], requests, seed, min_severity, config_file)
    if prompts is not None:
        try:
            sites += load_prompts(prompts)
        except (OSError, PromptsFileError) as exc:
            raise fail(str(exc)) from None
    if samples:
        sites += [render_site(layout, requests, seed) for layout in sample_layouts()]
    return sites


def analyzed_sites(paths: list[Path], requests: int, seed: int, min_severity: str,
                   config_file: Optional[Path]) -> list[SiteRequests]:
    from promptlint.cli import resolve_config
    from promptlint.config import ConfigError
    from promptlint.engine import analyze
    from promptlint.model import Severity
    from verifier.api import sites_from_analysis

    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise fail(f"no such file or folder: {', '.join(missing)}")
    try:
        severity = Severity(min_severity)
        result = analyze(paths, resolve_config(paths, config_file, {}))
    except ValueError:
        raise fail(f"unknown severity '{min_severity}' (info | warning | error)") from None
    except ConfigError as exc:
        raise fail(str(exc)) from None
    return sites_from_analysis(result, requests, seed, severity)


def run_verify(sites: list[SiteRequests], options: VerifyOptions) -> VerifyReport:
    from verifier.backends import BackendError
    from verifier.chat import ModelNotFound
    from verifier.progress import RichProgress
    from verifier.api import verify as verify_sites

    try:
        with RichProgress(sites) as progress:
            return verify_sites(sites, options, progress)
    except (BackendError, ModelNotFound, ValueError) as exc:
        raise fail(str(exc)) from None
    except OSError as exc:  # the engine's interpreter could not be started
        raise fail(f"could not start the engine: {exc}") from None


def write_outputs(report: VerifyReport, output_format: str, chart: Optional[Path], output: Optional[Path]) -> None:
    """The measured results first (stdout or --output), the chart after: a chart that cannot be
    drawn never costs the measurements."""
    from verifier.chart import ChartError, write_chart
    from verifier.text_report import render_text

    if output_format == "json":
        text = json.dumps(report.to_json(), indent=2) + "\n"
    else:
        text = render_text(report, terminal=output is None and sys.stdout.isatty())
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        output.write_text(text, encoding="utf-8")
    if chart is not None:
        try:
            write_chart(report, chart)
        except (ChartError, OSError) as exc:
            kept = f"; the results were written to {output}" if output is not None else \
                "; the results above were written in full"
            raise fail(f"{exc}{kept}") from None


def verify_model(
    out_dir: Annotated[Path, typer.Argument(help="Folder to write the model into")],
    hidden: Annotated[int, typer.Option(help="Hidden size")] = 512,
    layers: Annotated[int, typer.Option(help="Decoder layers")] = 4,
    engine_python: Annotated[Optional[str], typer.Option(help="python with transformers and torch")] = None,
) -> None:
    """Build a small random-weight Llama model + byte-level BPE tokenizer (no model hub needed)."""
    import importlib.util

    from verifier.backends import PACKAGE_DIR, BackendError, find_engine_python

    script = PACKAGE_DIR / "scripts" / "build_tiny_model.py"
    has_deps = all(importlib.util.find_spec(m) for m in ("transformers", "torch"))
    try:
        python = sys.executable if has_deps and not engine_python else find_engine_python(engine_python)
    except BackendError as exc:
        raise fail(f"building a model needs transformers and torch: {exc}") from None
    command = [python, str(script), str(out_dir), "--hidden", str(hidden), "--layers", str(layers)]
    raise typer.Exit(EXIT_OK if subprocess.call(command) == 0 else EXIT_ERROR)
