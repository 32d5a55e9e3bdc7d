"""The price table: ``rules/prices.yaml`` plus the user's ``prices = [...]`` rows, and the lookup
from a call's provider and model string to the rows that price it.

Model strings are matched after normalising them: lower case; a LiteLLM ``provider/`` or LangChain
``provider:`` prefix names the provider and is dropped; Bedrock ids lose their ARN, region prefix
(``us.``, ``eu.``, ``global.`` ...) and ``anthropic.``. Each row lists ``match`` globs; the glob with
the most literal characters wins, so ``claude-opus-4-5*`` beats ``claude-opus-4*``.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from datetime import date
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import yaml

from promptlint.config import Config, ConfigError
from promptlint.knowledge import rules_dir

CACHE_MODES = ("automatic", "explicit", "implicit-breakpoint")
PRICE_FIELDS = ("input", "cache_read", "output")
RULE_FIELDS = ("cache", "min_cacheable_tokens", "granularity", "ttl")
_AS_OF = re.compile(r"^\d{4}-\d{2}(-\d{2})?$")
_TTL = re.compile(r"^(\d+(?:\.\d+)?)([mhd])$")
_BEDROCK_REGION = re.compile(r"^(us|eu|apac|ap|jp|au|ca|us-gov|global)\.")


class PriceTableError(ConfigError):
    """A malformed row in rules/prices.yaml or in the user's ``prices``."""


def ttl_minutes(ttl: str) -> float:
    match = _TTL.match(ttl)
    if not match:
        raise PriceTableError(f"ttl '{ttl}' must look like 5m, 1h or 24h")
    number, unit = float(match.group(1)), match.group(2)
    return number * {"m": 1, "h": 60, "d": 1440}[unit]


@dataclass(frozen=True)
class ProviderRules:
    """How one provider caches, and the model priced when a call's model is not known."""

    provider: str
    cache: str
    min_cacheable_tokens: int
    granularity: int
    ttl: str
    default_model: str | None
    as_of: str
    source: str
    notes: str = ""


@dataclass(frozen=True)
class PriceRow:
    """One model's prices (USD per 1M tokens) and cache rules, with where and when they were read."""

    provider: str
    model: str
    match: tuple[str, ...]
    input: float
    cache_read: float
    cache_write: tuple[tuple[str, float], ...]  # (ttl, price) pairs
    output: float
    cache: str
    min_cacheable_tokens: int
    granularity: int
    ttl: str
    as_of: str
    source: str
    tokenizer: str | None = None
    notes: str = ""
    valid_from: str | None = None
    valid_until: str | None = None

    @property
    def write_price(self) -> float:
        """The price of writing a token into the cache at the row's TTL."""
        return dict(self.cache_write)[self.ttl]

    @property
    def ttl_minutes(self) -> float:
        return ttl_minutes(self.ttl)

    @property
    def label(self) -> str:
        return f"{self.provider}/{self.model}"

    def is_valid_on(self, day: date) -> bool:
        iso = day.isoformat()
        return (self.valid_from is None or self.valid_from <= iso) and (
            self.valid_until is None or iso <= self.valid_until
        )


@dataclass(frozen=True)
class Priced:
    """A row chosen to price a call, and why it was chosen when that is not obvious."""

    row: PriceRow
    note: str = ""


@dataclass(frozen=True)
class PriceTable:
    as_of: str
    month_days: int
    providers: dict[str, ProviderRules] = field(hash=False)
    rows: tuple[PriceRow, ...]
    prefixes: tuple[tuple[str, str], ...]  # longest first
    unknown_model_providers: tuple[str, ...]
    model_families: tuple[tuple[str, str], ...] = ()  # (glob, provider): the provider a model name says

    def rows_of(self, provider: str) -> tuple[PriceRow, ...]:
        return tuple(row for row in self.rows if row.provider == provider)

    def resolve(
        self, provider: str | None, model: str | None, fallback: Iterable[str] = ()
    ) -> tuple[Priced, ...]:
        """The rows that price a call to ``model`` through an API of ``provider``.

        Unknown model: one default per provider in ``fallback`` (the config's ``providers``) when
        given, else the API's provider's default model, else (LiteLLM, LangChain) the default of
        every provider in the table's ``unknown_model_providers``.
        """
        hint = provider if provider in self.providers else None
        if model:
            hint, name = self.normalise(model, hint)
            hint = hint if hint in self.providers else None  # a provider with no rows of its own
            family = self.family(name)
            if family is not None and not fallback and self.is_self_hosted(family) \
                    and not (hint and self.is_self_hosted(hint)):
                # Only a self-hosted server runs it (a GGUF file), whatever client sends to it.
                return self._defaults([family], f"model '{model}' runs on a self-hosted server ({family})")
            found = self._best(name, hint)
            if found is not None:
                return (Priced(found),)
            if hint is None and not fallback:  # the providers the user named come first
                hint = family
            if hint is not None:
                return self._defaults([hint], f"model '{model}' is not in the price table")
            return self._defaults(fallback or self.unknown_model_providers,
                                  f"model '{model}' is not in the price table")
        if fallback:  # the user said which providers they use
            return self._defaults(fallback, "model not known statically")
        if hint is not None:
            return self._defaults([hint], "model not known statically")
        return self._defaults(self.unknown_model_providers, "model not known statically")

    def normalise(self, model: str, hint: str | None) -> tuple[str | None, str]:
        name = model.strip().lower()
        for prefix, provider in self.prefixes:
            if name.startswith(prefix):
                hint = provider
                name = name[len(prefix):]
                break
        name = name.removeprefix("models/")
        if "arn:" in name:
            name = name.rsplit("/", 1)[-1]
        name = _BEDROCK_REGION.sub("", name).removeprefix("anthropic.")
        return hint, name

    def family(self, name: str) -> str | None:
        """The provider a model's name says (`claude-*`, a `*-GGUF` file), if the table has it."""
        return next((provider for glob, provider in self.model_families
                     if provider in self.providers and fnmatchcase(name, glob)), None)

    def is_self_hosted(self, provider: str) -> bool:
        """Every row free (Ollama, llama.cpp): a miss costs prefill time, not dollars."""
        rows = self.rows_of(provider)
        return bool(rows) and all(row.input == 0 for row in rows)

    def _best(self, name: str, provider: str | None) -> PriceRow | None:
        best = _best_match(name, self.rows_of(provider) if provider else ())
        # Else an OpenAI-compatible client pointed at another provider, etc.: every provider's rows.
        # Not for a self-hosted server: it runs whatever model it is given, and a hosted
        # provider's row for the same name (Groq's `gpt-oss-20b`) is not its price.
        if best is None and not (provider and self.is_self_hosted(provider)):
            order = {p: i for i, p in enumerate(self.unknown_model_providers)}
            others = sorted(self.rows, key=lambda row: order.get(row.provider, len(order)))
            best = _best_match(name, others)
        return best

    def _defaults(self, providers: Iterable[str], why: str) -> tuple[Priced, ...]:
        chosen: list[Priced] = []
        for entry in providers:
            hint, name = self.normalise(entry, entry if entry in self.providers else None)
            if name != entry.lower() or entry not in self.providers:  # "provider/model" entries
                row = self._best(name, hint)
                if row is not None:
                    chosen.append(Priced(row, f"{why}: priced as the configured providers"))
                continue
            default = self.providers[entry].default_model
            row = _best_match(default or "", self.rows_of(entry)) if default else None
            if row is not None:
                chosen.append(Priced(row, f"{why}: priced as the provider's default model"))
        return tuple(chosen)


def _best_match(name: str, rows: Iterable[PriceRow]) -> PriceRow | None:
    best: tuple[int, PriceRow] | None = None
    for row in rows:
        for pattern in (*row.match, row.model):
            if fnmatchcase(name, pattern.lower()):
                score = len(pattern.replace("*", "").replace("?", ""))
                if best is None or score > best[0]:
                    best = (score, row)
    return best[1] if best else None


def load_price_table(config: Config, today: date | None = None) -> PriceTable:
    """The bundled table with the user's rows applied, keeping rows valid on ``today``."""
    user = json.dumps(list(config.prices), sort_keys=True, default=str)
    where = str(config.config_file or "configuration")
    return _load(str(rules_dir() / "prices.yaml"), user, where, (today or date.today()).isoformat())


@lru_cache(maxsize=8)
def _load(path: str, user_rows: str, where: str, today: str) -> PriceTable:
    with open(path, encoding="utf-8") as handle:
        raw = yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}  # libyaml: 10x faster
    providers = {
        name: _provider_rules(name, entry, f"{Path(path).name}: provider {name}")
        for name, entry in (raw.get("providers") or {}).items()
    }
    bundled = [dict(r) for r in raw.get("models") or []]
    models = _apply_user_rows(bundled, providers, json.loads(user_rows), where)
    day = date.fromisoformat(today)
    rows = tuple(
        row for row in (_price_row(entry, providers, _row_where(entry, path, where)) for entry in models)
        if row.is_valid_on(day)
    )
    prefixes = sorted((raw.get("prefixes") or {}).items(), key=lambda kv: -len(kv[0]))
    return PriceTable(
        as_of=str(raw.get("as_of", "")),
        month_days=int(raw.get("month_days", 30)),
        providers=providers,
        rows=rows,
        prefixes=tuple((k.lower(), v) for k, v in prefixes),
        unknown_model_providers=tuple(raw.get("unknown_model_providers") or sorted(providers)),
        model_families=tuple((str(glob).lower(), str(provider))
                             for glob, provider in (raw.get("model_families") or {}).items()),
    )


def _row_where(entry: dict[str, Any], path: str, where: str) -> str:
    origin = where if entry.get("_user") else Path(path).name
    return f"{origin}: price row {entry.get('provider')}/{entry.get('model')}"


def _apply_user_rows(
    bundled: list[dict[str, Any]], providers: dict[str, ProviderRules], user: list[Any], where: str
) -> list[dict[str, Any]]:
    """User rows replace bundled rows of the same provider and model (fields merged), add new
    models, or, without ``model``, change a provider's cache rules."""
    models = list(bundled)
    for raw in user:
        entry = {str(k).replace("-", "_"): v for k, v in raw.items()}
        entry.setdefault("as_of", "config")
        entry.setdefault("source", where)
        provider = entry.get("provider")
        if not isinstance(provider, str):
            raise PriceTableError(f"{where}: every prices row needs a 'provider' string: {raw!r}")
        if "model" not in entry:
            rules = providers.get(provider)
            merged = {**(asdict(rules) if rules else _NEW_PROVIDER), **entry}
            providers[provider] = _provider_rules(provider, merged, f"{where}: provider {provider}",
                                                  user=True)
            continue
        same = [m for m in models if (m.get("provider"), m.get("model")) == (provider, entry["model"])]
        kept = {k: v for k, v in (same[0] if same else {}).items() if not k.startswith("valid_")}
        models = [m for m in models if m not in same]
        models.append({**kept, **entry, "_user": True})
        if provider not in providers:
            defaults = {**_NEW_PROVIDER, "as_of": entry["as_of"], "source": entry["source"]}
            providers[provider] = _provider_rules(provider, defaults, where, user=True)
    return models


_NEW_PROVIDER: dict[str, Any] = {
    "cache": "automatic", "min_cacheable_tokens": 0, "granularity": 1, "ttl": "5m",
    "default_model": None, "as_of": "config", "source": "configuration",
}


def _provider_rules(name: str, entry: dict[str, Any], where: str, user: bool = False) -> ProviderRules:
    _require(entry, ("as_of", "source", *RULE_FIELDS), where)
    rules = ProviderRules(
        provider=name,
        cache=str(entry["cache"]),
        min_cacheable_tokens=_count(entry["min_cacheable_tokens"], where, "min_cacheable_tokens"),
        granularity=max(1, _count(entry["granularity"], where, "granularity")),
        ttl=str(entry["ttl"]),
        default_model=entry.get("default_model"),
        as_of=str(entry["as_of"]),
        source=str(entry["source"]),
        notes=str(entry.get("notes", "")),
    )
    _check_rules(rules.cache, rules.ttl, rules.as_of, where, user)
    return rules


def _price_row(entry: dict[str, Any], providers: dict[str, ProviderRules], where: str) -> PriceRow:
    _require(entry, ("provider", "model", "as_of", "source", *PRICE_FIELDS[:2]), where)
    rules = providers.get(entry["provider"])
    if rules is None:
        raise PriceTableError(f"{where}: unknown provider '{entry['provider']}'")
    inherited = {f: entry.get(f, getattr(rules, f)) for f in RULE_FIELDS}
    ttl = str(inherited["ttl"])
    input_price = _price(entry["input"], where, "input")
    row = PriceRow(
        provider=str(entry["provider"]),
        model=str(entry["model"]),
        match=tuple(str(p) for p in entry.get("match") or [entry["model"]]),
        input=input_price,
        cache_read=_price(entry["cache_read"], where, "cache_read"),
        cache_write=_write_prices(entry.get("cache_write", input_price), ttl, where),
        output=_price(entry.get("output", 0.0), where, "output"),
        cache=str(inherited["cache"]),
        min_cacheable_tokens=_count(inherited["min_cacheable_tokens"], where, "min_cacheable_tokens"),
        granularity=max(1, _count(inherited["granularity"], where, "granularity")),
        ttl=ttl,
        as_of=str(entry["as_of"]),
        source=str(entry["source"]),
        tokenizer=entry.get("tokenizer"),
        notes=str(entry.get("notes", "")),
        valid_from=_date_or_none(entry.get("valid_from"), where),
        valid_until=_date_or_none(entry.get("valid_until"), where),
    )
    _check_rules(row.cache, row.ttl, row.as_of, where, user=bool(entry.get("_user")))
    if row.ttl not in dict(row.cache_write):
        raise PriceTableError(f"{where}: cache_write has no price for the row's ttl '{row.ttl}'")
    return row


def _write_prices(value: Any, ttl: str, where: str) -> tuple[tuple[str, float], ...]:
    if isinstance(value, dict):
        return tuple((str(k), _price(v, where, f"cache_write.{k}")) for k, v in value.items())
    return ((ttl, _price(value, where, "cache_write")),)  # one number: the price at the row's ttl


def _require(entry: dict[str, Any], names: Iterable[str], where: str) -> None:
    missing = [n for n in names if entry.get(n) in (None, "")]
    if missing:
        raise PriceTableError(f"{where}: missing {', '.join(missing)}")


def _check_rules(cache: str, ttl: str, as_of: str, where: str, user: bool = False) -> None:
    if cache not in CACHE_MODES:
        raise PriceTableError(f"{where}: cache must be one of {', '.join(CACHE_MODES)}, got '{cache}'")
    ttl_minutes(ttl)
    if not user and not _AS_OF.match(as_of):
        raise PriceTableError(f"{where}: as_of must be a date (YYYY-MM-DD or YYYY-MM), got '{as_of}'")


def _price(value: Any, where: str, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise PriceTableError(f"{where}: {name} must be a non-negative number (USD per 1M tokens)")
    return float(value)


def _count(value: Any, where: str, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise PriceTableError(f"{where}: {name} must be a non-negative integer")
    return value


def _date_or_none(value: Any, where: str) -> str | None:
    if value is None:
        return None
    text = value.isoformat() if isinstance(value, date) else str(value)
    try:
        date.fromisoformat(text)
    except ValueError:
        raise PriceTableError(f"{where}: '{text}' is not a date (YYYY-MM-DD)") from None
    return text
