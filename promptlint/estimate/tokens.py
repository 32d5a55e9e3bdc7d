"""Token counting, offline: a bundled default tokenizer or the user's own ``tokenizer.json``.

The default is OpenAI's ``o200k_base`` (exact for GPT-4o, GPT-4.1 and GPT-5.x up to 5.5, and for
gpt-oss text); for every other model it is an approximation whose measured error is written in
docs/estimator.md. A user who serves an open model names its ``tokenizer.json`` (``tokenizer`` in
the config or ``--tokenizer``) and gets exact counts. Nothing is ever downloaded.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Callable

from tokenizers import Tokenizer

from promptlint.config import ConfigError

DEFAULT_TOKENIZER = "o200k_base"
# Bundled tokenizers under promptlint/data/ (package data: found in a checkout and in a wheel).
BUNDLED: dict[str, str] = {"o200k_base": "o200k_base.tokenizer.json.gz"}
_CACHE_SIZE = 65_536  # distinct texts remembered per tokenizer


@dataclass(frozen=True)
class TokenCounter:
    """Counts tokens with one tokenizer; remembers recent texts (prompts repeat across calls)."""

    name: str
    bundled: bool  # False: the user's own tokenizer, taken as the model they serve (exact)
    tokenizer: Tokenizer = field(compare=False, repr=False)
    _count: Callable[[str], int] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_count", lru_cache(maxsize=_CACHE_SIZE)(self._count_uncached))

    def count(self, text: str) -> int:
        return self._count(text) if text else 0

    def _count_uncached(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def ids(self, text: str) -> list[int]:
        return self.tokenizer.encode(text, add_special_tokens=False).ids

    def is_exact_for(self, model_tokenizer: str | None) -> bool:
        """Exact when the user named the tokenizer, or when the model uses the bundled one."""
        return not self.bundled or model_tokenizer == self.name

    def describe(self) -> str:
        return self.name if not self.bundled else f"{self.name} (bundled)"


def load_counter(spec: str | None = None, root: Path | None = None) -> TokenCounter:
    """The counter for ``spec``: None or a bundled name, or a path (absolute, or relative to
    ``root``) to a ``tokenizer.json`` (``.json.gz`` too) or a folder that holds one."""
    spec = spec or DEFAULT_TOKENIZER
    # A bundled tokenizer does not depend on the project: one load per process, whatever the root.
    return _load_counter(spec, Path("/") if spec in BUNDLED else (root or Path(".")).resolve())


@lru_cache(maxsize=8)
def _load_counter(spec: str, root: Path) -> TokenCounter:
    if spec in BUNDLED:
        data = resources.files("promptlint").joinpath("data", BUNDLED[spec]).read_bytes()
        return TokenCounter(spec, True, Tokenizer.from_str(gzip.decompress(data).decode("utf-8")))
    path = _tokenizer_file(spec, root)
    try:
        raw = path.read_bytes()
        text = gzip.decompress(raw) if path.suffix == ".gz" else raw
        tokenizer = Tokenizer.from_str(text.decode("utf-8"))
    except Exception as exc:  # noqa: BLE001 - tokenizers raises plain Exception on bad JSON
        raise ConfigError(f"tokenizer '{spec}': cannot load {path}: {exc}") from None
    return TokenCounter(_display_name(path), False, tokenizer)


def _tokenizer_file(spec: str, root: Path) -> Path:
    path = Path(spec).expanduser()
    if not path.is_absolute():
        path = root / path
    if path.is_dir():
        path = path / "tokenizer.json"
    if not path.is_file():
        known = ", ".join(sorted(BUNDLED))
        raise ConfigError(
            f"tokenizer '{spec}': no such file ({path}); give a tokenizer.json path or one of: {known}"
        )
    return path


def _display_name(path: Path) -> str:
    """``models/Qwen3-8B/tokenizer.json`` -> ``Qwen3-8B``; ``llama.tokenizer.json`` -> ``llama``."""
    name = path.name
    for suffix in (".gz", ".json", ".tokenizer"):
        name = name.removesuffix(suffix)
    return path.parent.name if name in ("tokenizer", "") else name
