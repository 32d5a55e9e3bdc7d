"""Turn a chat request into the token ids an engine would see.

The simulator's prediction is only as exact as its tokenization, so it renders requests the way
vLLM does: the model's chat template (``tokenizer.apply_chat_template``), then the tokenizer with
``add_special_tokens=False``. With transformers installed that is literally the same call; without
it (the linter's own environment has only ``tokenizers`` and ``jinja2``) the template is rendered
with jinja2 under the same settings transformers uses, which is exact for ordinary templates.
With no model at all, the estimator's default tokenizer (o200k) and a ChatML-style template give a
prediction for a generic OpenAI-like model.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Protocol

from verifier.records import ChatRequest

DEFAULT_TOKENIZER = Path(__file__).resolve().parents[1] / "promptlint" / "data" / "o200k_base.tokenizer.json.gz"
CHATML_TEMPLATE = (
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)


class ChatTokenizer(Protocol):
    name: str

    def encode(self, request: ChatRequest) -> list[int]: ...


class ModelNotFound(Exception):
    """The model folder has no tokenizer the verifier can load."""


@dataclass
class TemplateTokenizer:
    """A ``tokenizers.Tokenizer`` plus a jinja2 chat template rendered like transformers does."""

    name: str
    tokenizer: Any  # tokenizers.Tokenizer
    render: Callable[..., str]
    special_tokens: dict[str, str]

    def encode(self, request: ChatRequest) -> list[int]:
        if request.prompt is not None:  # a raw prompt: tokenized as vLLM's generate() does
            return self.tokenizer.encode(request.prompt, add_special_tokens=True).ids
        text = self.render(
            messages=list(request.messages), add_generation_prompt=True, **self.special_tokens
        )
        return self.tokenizer.encode(text, add_special_tokens=False).ids


@dataclass
class TransformersTokenizer:
    """The exact call vLLM makes, where transformers is importable (the engine's environment)."""

    name: str
    tokenizer: Any  # transformers.PreTrainedTokenizerBase

    def encode(self, request: ChatRequest) -> list[int]:
        if request.prompt is not None:
            return list(self.tokenizer(request.prompt)["input_ids"])
        ids = self.tokenizer.apply_chat_template(
            list(request.messages), add_generation_prompt=True, tokenize=True, return_dict=False
        )
        return list(ids)


def load_chat_tokenizer(model: Path | None, prefer_transformers: bool = True) -> ChatTokenizer:
    """The tokenizer for ``model`` (a local folder), or the default one when ``model`` is None."""
    if model is None:
        return default_tokenizer()
    if not (model / "tokenizer.json").exists() and not (model / "tokenizer_config.json").exists():
        raise ModelNotFound(f"{model} has no tokenizer.json or tokenizer_config.json")
    if prefer_transformers:
        try:
            from transformers import AutoTokenizer
        except ImportError:
            pass
        else:
            return TransformersTokenizer(f"{model} (transformers)", AutoTokenizer.from_pretrained(model))
    return folder_tokenizer(model)


def default_tokenizer() -> TemplateTokenizer:
    from tokenizers import Tokenizer

    if not DEFAULT_TOKENIZER.exists():
        raise ModelNotFound(f"the estimator's default tokenizer is missing: {DEFAULT_TOKENIZER}")
    tokenizer = Tokenizer.from_str(gzip.decompress(DEFAULT_TOKENIZER.read_bytes()).decode("utf-8"))
    return TemplateTokenizer(
        "o200k_base + ChatML template (no model given)", tokenizer, compile_template(CHATML_TEMPLATE), {}
    )


def folder_tokenizer(model: Path) -> TemplateTokenizer:
    from tokenizers import Tokenizer

    if not (model / "tokenizer.json").exists():
        raise ModelNotFound(f"{model}/tokenizer.json is missing (needed without transformers)")
    config = read_json(model / "tokenizer_config.json")
    template = chat_template_of(model, config)
    specials = {
        key: token_text(value)
        for key, value in config.items()
        if key.endswith("_token") and token_text(value) is not None
    }
    return TemplateTokenizer(
        f"{model} (tokenizers + jinja2)",
        Tokenizer.from_file(str(model / "tokenizer.json")),
        compile_template(template),
        specials,
    )


def chat_template_of(model: Path, config: dict[str, Any]) -> str:
    """The default chat template: chat_template.jinja (transformers 5) or tokenizer_config.json."""
    if (model / "chat_template.jinja").exists():
        return (model / "chat_template.jinja").read_text(encoding="utf-8")
    template = config.get("chat_template")
    if isinstance(template, list):  # named templates: [{"name": "default", "template": ...}, ...]
        named = {t.get("name"): t.get("template") for t in template}
        template = named.get("default") or next(iter(named.values()), None)
    if not template:
        raise ModelNotFound(f"{model} has no chat template")
    return str(template)


def compile_template(source: str) -> Callable[..., str]:
    """Compile like transformers' ``_compile_jinja_template`` (sandboxed, trim/lstrip blocks)."""
    from jinja2.ext import loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise ValueError(message)

    def tojson(value: Any, ensure_ascii: bool = False, indent: int | None = None,
               separators: Any = None, sort_keys: bool = False) -> str:
        return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent,
                          separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    return env.from_string(source).render


def token_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value["content"]
    return None


def read_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
