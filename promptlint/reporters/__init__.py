"""Reporters render an AnalysisResult; they never analyze. One module per format."""

from __future__ import annotations

import importlib
from typing import Callable

from promptlint.config import Config
from promptlint.model import AnalysisResult

Renderer = Callable[[AnalysisResult, Config], str]

# format name -> "module:function"; formats added by other features register here.
FORMATS: dict[str, str] = {
    "text": "promptlint.reporters.text:render_text",
    "json": "promptlint.reporters.json_report:render_json",
    "sarif": "promptlint.reporters.sarif:render_sarif",
    "github": "promptlint.reporters.github:render_github",
    "markdown": "promptlint.reporters.markdown:render_markdown",
    "html": "promptlint.reporters.html:render_html",
}


def render(name: str, result: AnalysisResult, config: Config) -> str:
    if name not in FORMATS:
        raise KeyError(f"{name!r} (choose from: {', '.join(sorted(FORMATS))})")
    module_name, function = FORMATS[name].split(":")
    renderer: Renderer = getattr(importlib.import_module(module_name), function)
    return renderer(result, config)
