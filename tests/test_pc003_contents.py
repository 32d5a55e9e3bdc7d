"""PC003 on small programs through the real analyzer: shuffled tools are PC002's, unordered JSON
is PC004's, other values do not hide a shuffle after them; severity where the history is only
assumed; the set-order explanation."""

from __future__ import annotations

from pathlib import Path

from promptlint.config import Config
from promptlint.engine import analyze
from promptlint.estimate import estimate
from tests.conftest import write_tree

HEAD = '''
import json
import random
from datetime import datetime
from openai import OpenAI
client = OpenAI()
RULES = "Follow the refund policy and cite the section you used. " * 10
EXAMPLES = ["Q: 2+2? A: 4", "Q: 3+3? A: 6"]
'''
CALL = "openai.chat.completions"
THEN_HISTORY = "and the conversation history (system prompt, conversation history)"


def found(tmp_path: Path, body: str) -> list[tuple[str, str, str]]:
    """(rule, severity, message) of every finding."""
    root = write_tree(tmp_path, HEAD + body)
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    assert not result.errors, result.errors
    return [(f.rule, f.severity.value, f.message) for f in result.findings]


def test_shuffled_tools_are_pc002s(tmp_path: Path) -> None:
    assert [rule for rule, _, _ in found(tmp_path, '''
TOOLS = [{"type": "function", "function": {"name": n, "description": "x"}} for n in ("a", "b", "c")]
def ask(question: str, history: list) -> str:
    random.shuffle(TOOLS)
    return client.chat.completions.create(model="gpt-4o", tools=TOOLS, messages=[
        {"role": "system", "content": RULES}, *history, {"role": "user", "content": question}])
''')] == ["PC002"]


def test_each_value_goes_to_its_own_rule_and_none_hides_the_shuffle(tmp_path: Path) -> None:
    # A clock (PC001), then unordered JSON (PC004), then shuffled examples (PC003), in that order.
    results = found(tmp_path, '''
def ask(question: str, data: dict, history: list) -> str:
    random.shuffle(EXAMPLES)
    profile = {key: data.get(key) for key in {"name", "plan", "region"}}
    system = f"Now {datetime.now()}\\nProfile: " + json.dumps(profile) + "\\n" + "\\n".join(EXAMPLES) + "\\n" + RULES
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
''')
    assert [rule for rule, _, _ in results] == ["PC001", "PC004", "PC003"]
    assert results[2] == ("PC003", "error", "order-unstable shuffle `random.shuffle(EXAMPLES)`: prompt content whose "
                          "order changes between calls comes before 584 characters of stable text "
                          f"{THEN_HISTORY} in the `{CALL}` prompt")


def assembled(filler: int) -> str:
    return f'''
def build() -> list:
    random.shuffle(EXAMPLES)
    return [{{"role": "system", "content": "\\n".join(EXAMPLES) + "x" * {filler}}}]
'''


def test_assumed_history_needs_2000_known_characters_for_an_error(tmp_path: Path) -> None:
    # The join's separator and the second example come after the shuffled value: 24 characters.
    assert [(s, m.split(" comes before ")[1][:6]) for _, s, m in found(tmp_path / "a", assembled(1976))] == \
        [("error", "2,000 ")]
    assert [(s, m.split(" comes before ")[1][:6]) for _, s, m in found(tmp_path / "b", assembled(1975))] == \
        [("info", "1,999 ")]


def test_set_order_is_a_warning_that_says_why(tmp_path: Path) -> None:
    assert found(tmp_path, '''
TOPICS = {"billing", "orders", "hardware"}
def ask(question: str, history: list) -> str:
    system = "Topics: " + ", ".join(TOPICS) + "\\n" + RULES
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
''') == [("PC003", "warning", "order-unstable set-order `{\"billing\", \"orders\", \"hardware\"}`: prompt content "
          f"whose order changes between calls comes before 585 characters of stable text {THEN_HISTORY} in the "
          f"`{CALL}` prompt; a set of strings iterates in an order fixed per process by PYTHONHASHSEED, so each "
          "worker (and each restart) sends a different prefix")]


def test_shuffle_estimate_prices_the_prompt_after_it(tmp_path: Path) -> None:
    root = write_tree(tmp_path, HEAD + '''
def ask(question: str, history: list) -> str:
    random.shuffle(EXAMPLES)
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": "\\n".join(EXAMPLES) + "\\n" + RULES * 12}, *history,
        {"role": "user", "content": question}])
''')
    config = Config(root=root, cache_dir=None)
    [finding] = estimate(analyze([root], config, cwd=root), config).findings
    assert finding.rule == "PC003" and finding.estimate is not None
    # About 1,400 tokens of rules follow the examples, all cached once the order is fixed; the history
    # after them is lost too, so the figure is a lower bound.
    assert finding.estimate.unknown_length
    assert finding.estimate.lost_tokens_per_call is not None and finding.estimate.lost_tokens_per_call > 1024


def test_a_directory_listing_says_whose_order_it_is(tmp_path: Path) -> None:
    # A listing at import time keeps the machine's order (not "once per process"); the tools list
    # is PC002's, the skill list before the rules PC003's; both warnings.
    results = found(tmp_path, '''
import glob
import os
LISTED_TOOLS = [{"type": "function", "function": {"name": path}} for path in glob.glob("tools/*.json")]
def ask(question: str, history: list) -> str:
    skills = "\\\\n".join(os.listdir("skills"))
    return client.chat.completions.create(model="gpt-4o", tools=LISTED_TOOLS, messages=[
        {"role": "system", "content": skills + RULES}, *history, {"role": "user", "content": question}])
''')
    machine = ("a directory lists its entries in the file system's order, not sorted: one order on a machine until "
               "files change, another on the next machine, replica or checkout")
    assert results == [
        ("PC002", "warning", f"tool definitions of the `{CALL}` call are sent in an order that changes between runs "
                             "(order-unstable dir-order `glob.glob(\"tools/*.json\")`); tools come first in the prompt, "
                             f"so the whole request misses the cache; {machine}"),
        ("PC003", "warning", "order-unstable dir-order `os.listdir(\"skills\")`: prompt content whose order changes "
                             f"between calls comes before 560 characters of stable text {THEN_HISTORY} in the "
                             f"`{CALL}` prompt; {machine}"),
    ]
