"""The price table: every row dated and sourced, coverage, model lookup, user overrides."""

from __future__ import annotations

import re
from datetime import date

import pytest
import yaml

from promptlint.config import Config, ConfigError
from promptlint.estimate.prices import load_price_table, ttl_minutes
from promptlint.knowledge import rules_dir
from promptlint.model import CallSite, Location

TODAY = date(2026, 11, 30)
DATE = re.compile(r"^\d{4}-\d{2}(-\d{2})?$")


@pytest.fixture(scope="module")
def raw():
    return yaml.safe_load((rules_dir() / "prices.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def table():
    return load_price_table(Config(), TODAY)


def test_every_row_has_a_date_and_a_source(raw):
    rows = [*raw["providers"].values(), *raw["models"]]
    for row in rows:
        assert DATE.match(str(row["as_of"])), row
        assert str(row["source"]).strip(), row
    assert DATE.match(raw["as_of"])


def test_every_model_row_is_complete(table):
    assert len(table.rows) >= 40
    # A self-hosted server (Ollama) prices every row at nothing: a miss costs time, not dollars.
    self_hosted = {row.provider for row in table.rows} - {row.provider for row in table.rows if row.input > 0}
    assert self_hosted == {"ollama", "llamacpp"}
    for row in table.rows:
        assert (row.input > 0 or row.provider in self_hosted) and row.output >= 0 \
            and 0 <= row.cache_read <= row.input, row.label
        assert row.write_price >= row.input, row.label  # a write never costs less than a miss
        assert row.min_cacheable_tokens >= 0 and row.granularity >= 1
        assert ttl_minutes(row.ttl) > 0


@pytest.mark.parametrize(("provider", "model"), [
    ("openai", "gpt-4o"), ("openai", "gpt-4.1"), ("openai", "gpt-5.1"), ("openai", "gpt-5.5"),
    ("openai", "gpt-5.6-sol"), ("openai", "gpt-6.2-sol"),
    ("anthropic", "claude-haiku-4.5"), ("anthropic", "claude-sonnet-4.5"),
    ("anthropic", "claude-opus-4.5"), ("anthropic", "claude-sonnet-5.5"),
    ("gemini", "gemini-2.5-pro"), ("gemini", "gemini-2.5-flash"), ("gemini", "gemini-3.1-pro-preview"),
    ("bedrock", "claude-sonnet-4.5"), ("azure", "gpt-4o"), ("deepseek", "deepseek-flash"),
    ("xai", "grok-4.20"), ("groq", "openai/gpt-oss-120b"),
])
def test_required_models_are_priced(table, provider, model):
    assert any(r.provider == provider and r.model == model for r in table.rows)


def test_provider_rules_follow_the_reference(table):
    rows = {r.label: r for r in table.rows}
    gpt4o = rows["openai/gpt-4o"]
    assert (gpt4o.cache, gpt4o.min_cacheable_tokens, gpt4o.granularity) == ("automatic", 1024, 128)
    assert gpt4o.write_price == gpt4o.input  # free writes before GPT-5.6
    sol = rows["openai/gpt-5.6-sol"]
    assert (sol.cache, sol.granularity, sol.write_price) == ("implicit-breakpoint", 1, 6.25)  # 1.25x
    sonnet = rows["anthropic/claude-sonnet-4.5"]
    assert (sonnet.cache, sonnet.write_price, sonnet.cache_read) == ("explicit", 3.75, 0.30)
    assert dict(sonnet.cache_write)["1h"] == 6.00
    assert rows["anthropic/claude-haiku-4.5"].min_cacheable_tokens == 4096
    assert rows["bedrock/claude-opus-4.7"].min_cacheable_tokens == 4096  # higher than Anthropic's
    assert rows["anthropic/claude-opus-4.7"].min_cacheable_tokens == 2048
    assert rows["gemini/gemini-2.5-flash"].min_cacheable_tokens == 2048
    assert rows["gemini/gemini-3.1-pro-preview"].min_cacheable_tokens == 4096


@pytest.mark.parametrize(("provider", "model", "expected"), [
    ("openai", "gpt-4o-2024-08-06", "openai/gpt-4o"),
    ("openai", "gpt-4o-mini", "openai/gpt-4o-mini"),
    ("openai", "gpt-5", "openai/gpt-5.1"),
    ("anthropic", "claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4.5"),
    ("anthropic", "claude-opus-4-20250514", "anthropic/claude-opus-4.1"),
    ("anthropic", "claude-opus-4-5", "anthropic/claude-opus-4.5"),
    ("litellm", "anthropic/claude-haiku-4-5", "anthropic/claude-haiku-4.5"),
    ("litellm", "openai/gpt-4.1-mini", "openai/gpt-4.1-mini"),
    ("litellm", "gemini/gemini-2.5-pro", "gemini/gemini-2.5-pro"),
    ("litellm", "vertex_ai/claude-sonnet-4-5", "anthropic/claude-sonnet-4.5"),
    ("litellm", "groq/openai/gpt-oss-120b", "groq/openai/gpt-oss-120b"),
    ("litellm", "deepseek/deepseek-v4-pro", "deepseek/deepseek-v4-pro"),
    ("langchain", "anthropic:claude-sonnet-4-5", "anthropic/claude-sonnet-4.5"),
    ("bedrock", "us.anthropic.claude-haiku-4-5-20251001-v1:0", "bedrock/claude-haiku-4.5"),
    ("bedrock", "arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-sonnet-4-5-v1:0",
     "bedrock/claude-sonnet-4.5"),
    ("gemini", "models/gemini-2.5-flash", "gemini/gemini-2.5-flash"),
    ("openai", "grok-4.20-0309", "xai/grok-4.20"),  # an OpenAI client pointed at xAI
])
def test_model_strings_resolve(table, provider, model, expected):
    (priced,) = table.resolve(provider, model)
    assert priced.row.label == expected
    assert priced.note == ""


def test_unknown_model_of_a_known_provider_uses_its_default(table):
    (priced,) = table.resolve("azure", "my-prod-deployment")
    assert priced.row.label == "azure/gpt-4.1"
    assert "not in the price table" in priced.note


def test_a_self_hosted_server_prices_any_model_as_its_own(table):
    # Ollama runs `gpt-oss-20b` locally: Groq's price for the same model is not its cost, and an
    # OpenAI client pointed at DeepSeek is still priced there.
    for model in ("gpt-oss-20b", "llama3.1", None):
        (priced,) = table.resolve("ollama", model)
        assert priced.row.label == "ollama/local" and priced.row.input == 0, model
    assert table.resolve("openai", "deepseek-v4-pro")[0].row.provider == "deepseek"


def test_a_gguf_file_is_priced_as_a_self_hosted_server_whatever_the_client(table):
    # An OpenAI client with a base URL, sending to a llama.cpp server: the model names a GGUF
    # file, which no hosted provider serves, even where its name has a hosted row (gpt-oss-20b).
    for model in ("unsloth/Qwen3.5-0.8B-GGUF", "gpt-oss-20b-GGUF"):
        (priced,) = table.resolve("openai", model)
        assert priced.row.label == "llamacpp/local" and priced.row.input == 0, model
        assert "self-hosted" in priced.note
    # Ollama runs GGUF files too: its own server, not llama.cpp's; LiteLLM names it by prefix.
    assert table.resolve("ollama", "hf.co/unsloth/Qwen3-GGUF")[0].row.label == "ollama/local"
    assert table.resolve("litellm", "ollama_chat/qwen3")[0].row.label == "ollama/local"
    # The providers a user configured still come first.
    assert table.resolve("openai", "x-GGUF", ("openai",))[0].row.provider == "openai"


def test_unknown_model_and_provider_prices_every_provider(table):
    labels = [p.row.label for p in table.resolve("litellm", None)]
    assert {label.split("/")[0] for label in labels} == set(table.unknown_model_providers)
    configured = table.resolve("litellm", None, ("anthropic/claude-haiku-4.5", "gemini"))
    assert [p.row.label for p in configured] == ["anthropic/claude-haiku-4.5", "gemini/gemini-2.5-flash"]


def test_an_unpriced_model_whose_family_names_a_provider_is_priced_there(table):
    # A retired model through an API that names no provider (LiteLLM, a wrapper): its name says
    # the provider (rules/prices.yaml model_families), so not every provider's default applies.
    (priced,) = table.resolve("litellm", "claude-3-opus-20240229")
    assert priced.row.provider == "anthropic" and "not in the price table" in priced.note
    (priced,) = table.resolve("any", "gpt-4-0613")
    assert priced.row.provider == "openai"
    # The API's own provider and the providers the user named come first.
    (priced,) = table.resolve("deepseek", "gpt-4-0613")
    assert priced.row.provider == "deepseek"
    assert [p.row.provider for p in table.resolve("litellm", "claude-3-opus", ("bedrock",))] == ["bedrock"]
    assert len(table.resolve("litellm", "llama3")) == len(table.unknown_model_providers)


def test_dated_price_changes_apply_on_their_day():
    before = load_price_table(Config(), date(2026, 12, 31)).resolve("gemini", "gemini-3.8-flash")
    after = load_price_table(Config(), date(2027, 1, 1)).resolve("gemini", "gemini-3.8-flash")
    assert (before[0].row.input, after[0].row.input) == (0.75, 1.50)


def test_user_row_overrides_a_bundled_price(table):
    config = Config(prices=({"provider": "anthropic", "model": "claude-sonnet-4.5", "input": 2.7,
                             "cache-read": 0.27, "cache_write": {"5m": 3.375}},))
    row = load_price_table(config, TODAY).resolve("anthropic", "claude-sonnet-4-5")[0].row
    assert (row.input, row.cache_read, row.write_price) == (2.7, 0.27, 3.375)
    assert row.min_cacheable_tokens == 1024  # kept from the bundled row
    assert row.as_of == "config"


def test_user_can_add_a_provider_and_model():
    config = Config(prices=(
        {"provider": "mistral", "cache": "automatic", "min_cacheable_tokens": 0, "granularity": 1,
         "ttl": "5m", "default_model": "mistral-medium", "as_of": "2026-11-01",
         "source": "https://mistral.ai/pricing"},
        {"provider": "mistral", "model": "mistral-medium", "match": ["mistral-medium*"],
         "input": 0.40, "cache_read": 0.04, "output": 2.0},
    ))
    table = load_price_table(config, TODAY)
    row = table.resolve("litellm", "mistral/mistral-medium-2505")[0].row
    assert (row.provider, row.input, row.write_price) == ("mistral", 0.40, 0.40)  # free write
    assert table.resolve("mistral", None)[0].row.model == "mistral-medium"


def test_user_can_change_a_provider_rule():
    config = Config(prices=({"provider": "gemini", "min_cacheable_tokens": 1024},))
    row = load_price_table(config, TODAY).resolve("gemini", "gemini-2.5-flash")[0].row
    assert row.min_cacheable_tokens == 2048  # the model row's own value still wins
    row = load_price_table(config, TODAY).resolve("gemini", "gemini-3.5-flash")[0].row
    assert row.min_cacheable_tokens == 4096


@pytest.mark.parametrize("bad", [
    {"model": "x", "input": 1, "cache_read": 0.1},  # no provider
    {"provider": "openai", "model": "x", "input": -1, "cache_read": 0.1},
    {"provider": "openai", "model": "x", "input": 1},  # no cache_read
    {"provider": "openai", "model": "x", "input": 1, "cache_read": 0.1, "cache": "sometimes"},
    {"provider": "openai", "model": "x", "input": 1, "cache_read": 0.1, "ttl": "forever"},
])
def test_bad_user_rows_are_config_errors(bad):
    with pytest.raises(ConfigError):
        load_price_table(Config(prices=(bad,)), TODAY)


def test_a_prompt_judged_at_a_wrapper_call_is_priced_as_the_provider_of_the_calls_it_reaches() -> None:
    where = Location("app.py", 3, 1, 3, 9)
    anthropic = (Location("llm.py", 9, 1, 9, 9), "anthropic.messages", "anthropic")
    openai = (Location("llm.py", 20, 1, 20, 9), "openai.chat.completions", "openai")
    assert CallSite(where, "system message (x)", "any", reaches=(anthropic, anthropic)).pricing_provider() == "anthropic"
    assert CallSite(where, "system message (x)", "any", reaches=(anthropic, openai)).pricing_provider() == "any"
    assert CallSite(where, "system message (x)", "any").pricing_provider() == "any"
