"""Token counting, offline: a bundled default tokenizer or the user's own ``tokenizer.json``.

The default is OpenAI's ``o200k_base`` (exact for GPT-4o, GPT-4.1 and GPT-5.x up to 5.5, and for
gpt-oss text); for every other model it is an approximation whose measured error is written in
docs/estimator.md. A user who serves an open model names its ``tokenizer.json`` (``tokenizer`` in
the config or ``--tokenizer``) and gets exact counts. Nothing is ever downloaded.

The bundled tokenizer may be loaded by a forked helper process while the analysis runs
(``count_in_background``); the counter then asks it for counts instead of loading it here.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import signal
import sys
import threading
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from promptlint.config import ConfigError

if TYPE_CHECKING:  # imported where a tokenizer is loaded: a run with nothing to count never imports it
    from tokenizers import Tokenizer

DEFAULT_TOKENIZER = "o200k_base"
# Bundled tokenizers under promptlint/data/ (package data: found in a checkout and in a wheel).
BUNDLED: dict[str, str] = {"o200k_base": "o200k_base.tokenizer.json.gz"}
_CACHE_SIZE = 65_536  # distinct texts remembered per tokenizer
HELPER_PATIENCE_S = 20.0  # the longest wait for a helper's answer before counting here
HELPED = "_helped"  # set on a counter that had a helper count for it


@dataclass(frozen=True)
class TokenCounter:
    """Counts tokens with one tokenizer; remembers the counts of recent texts (prompts repeat).

    The tokenizer is loaded on the first text whose count is not known: counts stored by an
    earlier run (``remember``, by a hash of the text) let a warm run skip the ~0.6 s load."""

    name: str
    bundled: bool  # False: the user's own tokenizer, taken as the model they serve (exact)
    load: Callable[[], Tokenizer] = field(compare=False, repr=False)
    identity: str = ""  # what the counts depend on: the bundled name, or the file's content hash
    # text_key -> tokens, least recently used first, at most _CACHE_SIZE entries
    _known: dict[str, int] = field(init=False, compare=False, repr=False, default_factory=dict)

    @cached_property
    def tokenizer(self) -> Tokenizer:
        return self.load()

    @property
    def loaded(self) -> bool:
        """Whether this counter needed the tokenizer: loaded here, or asked of the helper."""
        return "tokenizer" in self.__dict__ or HELPED in self.__dict__

    def count(self, text: str) -> int:
        if not text:
            return 0
        key = text_key(text)
        known = self._known.pop(key, None)
        if known is None:
            helper = None if "tokenizer" in self.__dict__ else _HELPERS.get(self.identity)
            known = helper.count(text) if helper is not None else None
            if known is not None:
                self.__dict__[HELPED] = True  # kept as `tokenizer` is: the dataclass is frozen
            else:
                known = len(self.tokenizer.encode(text, add_special_tokens=False).ids)
            if len(self._known) >= _CACHE_SIZE:
                del self._known[next(iter(self._known))]
        self._known[key] = known
        return known

    def remember(self, counts: dict[str, int]) -> None:
        """Counts from an earlier run with the same ``identity`` (text_key -> tokens)."""
        for key, tokens in counts.items():
            if isinstance(key, str) and isinstance(tokens, int) and len(self._known) < _CACHE_SIZE:
                self._known.setdefault(key, tokens)

    def counts(self) -> dict[str, int]:
        return dict(self._known)

    def ids(self, text: str) -> list[int]:
        return self.tokenizer.encode(text, add_special_tokens=False).ids

    def is_exact_for(self, model_tokenizer: str | None) -> bool:
        """Exact when the user named the tokenizer, or when the model uses the bundled one."""
        return not self.bundled or model_tokenizer == self.name

    def describe(self) -> str:
        return self.name if not self.bundled else f"{self.name} (bundled)"


def text_key(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def load_counter(spec: str | None = None, root: Path | None = None) -> TokenCounter:
    """The counter for ``spec``: None or a bundled name, or a path (absolute, or relative to
    ``root``) to a ``tokenizer.json`` (``.json.gz`` too) or a folder that holds one."""
    spec = spec or DEFAULT_TOKENIZER
    # A bundled tokenizer does not depend on the project: one load per process, whatever the root.
    return _load_counter(spec, Path("/") if spec in BUNDLED else (root or Path(".")).resolve())


@lru_cache(maxsize=8)
def _load_counter(spec: str, root: Path) -> TokenCounter:
    if spec in BUNDLED:
        return TokenCounter(spec, True, lambda: _bundled_tokenizer(BUNDLED[spec]), identity=spec)
    path = _tokenizer_file(spec, root)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"tokenizer '{spec}': cannot read {path}: {exc}") from None
    from tokenizers import Tokenizer

    try:  # parsed now, not when first needed: a broken file is reported even when no text is new
        text = gzip.decompress(raw) if path.suffix == ".gz" else raw
        tokenizer = Tokenizer.from_str(text.decode("utf-8"))
    except Exception as exc:  # noqa: BLE001 - tokenizers raises plain Exception on bad JSON
        raise ConfigError(f"tokenizer '{spec}': cannot load {path}: {exc}") from None
    return TokenCounter(_display_name(path), False, lambda: tokenizer, identity=hashlib.sha256(raw).hexdigest())


def count_in_background(spec: str | None, processes: int) -> None:
    """Start loading a bundled tokenizer in a forked helper process now, while the analysis runs
    in this one, if a core is free for it (``processes``: how many this run may use; the caller
    asks only when it evaluates in-process). The load takes ~0.5 s and holds the GIL, so a thread
    could not overlap it; the helper counts the texts this process sends it instead (a run counts
    tens of texts). Only on Linux (fork), and never twice for one tokenizer. A helper that fails
    or dies leaves the counting to this process, which then loads the tokenizer itself."""
    spec = spec or DEFAULT_TOKENIZER
    if spec not in BUNDLED or spec in _HELPERS or processes < 2 or not sys.platform.startswith("linux"):
        return
    if threading.active_count() > 1:
        return  # a fork copies one thread: a lock another one holds (imports, logging) would never be freed
    if load_counter(spec).loaded:
        return
    try:
        _HELPERS[spec] = _CountingHelper(BUNDLED[spec])
    except (OSError, ValueError):
        return  # no fork here (resources, sandbox): counted in this process


class _CountingHelper:
    """The forked process that holds a loaded tokenizer, and the pipe to it."""

    def __init__(self, filename: str) -> None:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        ours, theirs = context.Pipe()
        self._connection: Any = ours  # None once the helper could not answer
        for stream in (sys.stdout, sys.stderr):  # nothing buffered here may be written twice
            stream.flush()
        self._process = context.Process(target=_serve_counts, args=(filename, theirs, self._connection),
                                        daemon=True, name="promptlint-tokenizer")
        self._process.start()
        theirs.close()

    def count(self, text: str) -> int | None:
        """The text's token count, or None once the helper cannot answer (then never asked again)."""
        if self._connection is None:
            return None
        try:
            self._connection.send(text)
            # The load takes ~0.5 s; a helper that has not answered long after is stuck.
            tokens = self._connection.recv() if self._connection.poll(HELPER_PATIENCE_S) else None
        except (OSError, EOFError, ValueError):
            tokens = None
        if not isinstance(tokens, int):
            self._connection.close()
            self._connection = None
            return None
        return tokens


def _serve_counts(filename: str, connection: Any, parents_end: Any) -> None:
    """The helper's loop: token counts for the texts it is sent, until the pipe closes. Any
    failure ends it quietly: the parent counts on its own, and reports a broken tokenizer itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # Hold nothing of the parent's open: its end of the pipe (else the parent's exit is never seen
    # here), its standard streams (a language server's stdout is its protocol channel, read to EOF).
    parents_end.close()
    quiet = os.open(os.devnull, os.O_RDWR)
    for descriptor in (0, 1, 2):
        os.dup2(quiet, descriptor)
    try:
        tokenizer = _bundled_tokenizer(filename)
        while True:
            text = connection.recv()
            connection.send(len(tokenizer.encode(text, add_special_tokens=False).ids))
    except BaseException:  # noqa: BLE001 - EOF when the parent is done; anything else: it counts alone
        pass
    finally:
        os._exit(0)  # not the parent's exit handlers nor its buffered output


_HELPERS: dict[str, _CountingHelper] = {}  # bundled tokenizer name -> its helper, at most one each


def _bundled_tokenizer(filename: str) -> Tokenizer:
    from tokenizers import Tokenizer

    data = resources.files("promptlint").joinpath("data", filename).read_bytes()
    return Tokenizer.from_str(gzip.decompress(data).decode("utf-8"))


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
