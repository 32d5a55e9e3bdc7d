"""The rule pack: one module per rule, each with its code, documentation and examples.

Codes are stable and never reused. ``RULES`` is the registry the engine, the docs command and the
example tests all read.
"""

from __future__ import annotations

from promptlint.checks.base import Rule, RuleContext
from promptlint.checks.pc001_volatile_before_stable import VolatileBeforeStable
from promptlint.checks.pc002_unstable_tool_order import UnstableToolOrder
from promptlint.checks.pc003_unordered_prompt_content import UnorderedPromptContent
from promptlint.checks.pc004_unstable_json import UnstableJsonSerialization
from promptlint.checks.pc005_volatile_cache_key import VolatileCacheKey
from promptlint.checks.pc006_volatile_tool_definition import VolatileToolDefinition
from promptlint.checks.pc007_cache_control_after_volatile import CacheControlAfterVolatile
from promptlint.checks.pc008_chat_template_date import ChatTemplateDate
from promptlint.checks.pc009_sliding_history_window import SlidingHistoryWindow
from promptlint.checks.pc010_instructions_after_request import InstructionsAfterRequest
from promptlint.checks.pc011_history_after_request import HistoryAfterRequest
from promptlint.checks.pc900_unused_suppression import UnusedSuppression

RULES: tuple[Rule, ...] = (
    VolatileBeforeStable(),
    UnstableToolOrder(),
    UnorderedPromptContent(),
    UnstableJsonSerialization(),
    VolatileCacheKey(),
    VolatileToolDefinition(),
    CacheControlAfterVolatile(),
    ChatTemplateDate(),
    SlidingHistoryWindow(),
    InstructionsAfterRequest(),
    HistoryAfterRequest(),
    UnusedSuppression(),  # reported by promptlint.suppressions, after the analysis
)
RULES_BY_CODE = {rule.code: rule for rule in RULES}
PREFIX = "PC"


def is_known_selector(selector: str) -> bool:
    """A full rule code, a code prefix (``PC``, ``PC00``), a rule name, or ``ALL``."""
    if selector == "ALL":
        return True
    return any(rule.code.startswith(selector) or rule.name == selector for rule in RULES)


def selected_rules(select: tuple[str, ...], ignore: tuple[str, ...], extend: tuple[str, ...]) -> list[Rule]:
    def matches(rule: Rule, selectors: tuple[str, ...]) -> bool:
        return any(s == "ALL" or rule.code.startswith(s) or rule.name == s for s in selectors)

    chosen = [r for r in RULES if not select or matches(r, select) or matches(r, extend)]
    return [r for r in chosen if not matches(r, ignore)]


__all__ = ["RULES", "RULES_BY_CODE", "Rule", "RuleContext", "is_known_selector", "selected_rules"]
