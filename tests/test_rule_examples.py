"""Every rule's documented VALID and INVALID examples run through the real analyzer."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptlint.checks import RULES
from promptlint.config import Config
from promptlint.engine import analyze
from promptlint.suppressions import apply_suppressions
from tests.conftest import write_tree

CASES = [(rule, "valid", i, ex) for rule in RULES for i, ex in enumerate(rule.VALID)] + [
    (rule, "invalid", i, ex) for rule in RULES for i, ex in enumerate(rule.INVALID)]


def codes_found(root: Path) -> list[str]:
    config = Config(root=root, cache_dir=None)
    result = analyze([root], config, cwd=root)
    assert not result.errors, result.errors
    # PC900 (unused-suppression) is reported by the suppression stage that runs after the engine.
    result, _ = apply_suppressions(result, config, root, sorted(root.rglob("*.py")))
    return [f.rule for f in result.findings]


@pytest.mark.parametrize("rule,kind,index,example", CASES,
                         ids=[f"{r.code}-{k}-{i}" for r, k, i, _ in CASES])
def test_rule_example(rule, kind, index, example, tmp_path: Path) -> None:
    found = codes_found(write_tree(tmp_path, example))
    if kind == "valid":
        assert rule.code not in found
    else:
        assert rule.code in found


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_rule_has_docs_and_examples(rule) -> None:
    import importlib

    doc = importlib.import_module(type(rule).__module__).__doc__ or ""
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead",
                    "## Known problems", "## Fix safety"):
        assert section in doc, f"{rule.code} docs lack {section}"
    assert rule.VALID and rule.INVALID
    assert rule.code.startswith("PC") and rule.name


def test_codes_are_unique() -> None:
    assert len({r.code for r in RULES}) == len(RULES)
    assert len({r.name for r in RULES}) == len(RULES)
