"""Which functions are worth evaluating as entry points: those that can reach an LLM call.

A name-based over-approximation of the call graph: a function reaches a sink when its body calls
something whose last name is an LLM API method (``create``, ``generate_content``, ``converse`` …)
or a function that itself reaches one. Everything else is evaluated only when a reaching function
calls into it, with real arguments. This keeps a large framework from being evaluated whole.
"""

from __future__ import annotations

import ast
from typing import Iterable

from promptlint.analysis.index import ClassInfo, ModuleInfo

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


MAX_HOPS = 2  # a function more hops than this from an LLM call is reached by inlining, if at all


def called_names(function: ast.AST) -> set[str]:
    """Last names of the calls in a function (or loop), plus ``receiver.method`` pairs
    (``messages.create``)."""
    names: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute):
                names.add(func.attr)
                if isinstance(func.value, ast.Attribute):
                    names.add(f"{func.value.attr}.{func.attr}")
                elif isinstance(func.value, ast.Name):
                    names.add(f"{func.value.id}.{func.attr}")
            elif isinstance(func, ast.Name):
                names.add(func.id)
    return names


def _definitions(modules: Iterable[ModuleInfo]) -> list[tuple[str, FunctionNode, ModuleInfo, ClassInfo | None]]:
    found: list[tuple[str, FunctionNode, ModuleInfo, ClassInfo | None]] = []
    for module in modules:
        found += [(name, node, module, None) for name, node in module.functions.items()]
        for info in module.classes.values():
            found += [(name, node, module, info) for name, node in info.methods.items()]
    return found


def reaching_functions(modules: list[ModuleInfo], sink_names: frozenset[str]
                       ) -> tuple[list[tuple[FunctionNode, ModuleInfo, ClassInfo | None]], frozenset[str]]:
    """The functions that can reach an LLM call, and every name that leads to one."""
    definitions = _definitions(modules)
    flags, reach_names = reach_over([(name, called_names(node)) for name, node, _, _ in definitions], sink_names)
    chosen = [(node, module, owner) for (_, node, module, owner), flag in zip(definitions, flags) if flag]
    return chosen, reach_names


def definition_calls(module: ModuleInfo) -> list[tuple[str, frozenset[str]]]:
    """Each definition of a module (in ``reaching_functions`` order) with the names it calls:
    all ``reach_over`` needs, small enough to cache per file."""
    return [(name, frozenset(called_names(node))) for name, node, _, _ in _definitions([module])]


def reach_over(definitions: list[tuple[str, set[str] | frozenset[str]]], sink_names: frozenset[str]
               ) -> tuple[list[bool], frozenset[str]]:
    """For (name, called names) of every definition, in order: which reach an LLM call, and the
    names that lead to one."""
    reach_names = set(sink_names)
    reaching = [False] * len(definitions)
    for _ in range(MAX_HOPS + 1):
        changed = False
        for index, (name, calls) in enumerate(definitions):
            if not reaching[index] and not calls.isdisjoint(reach_names):
                reaching[index] = True
                reach_names.add(name)
                changed = True
        if not changed:
            break
    return reaching, frozenset(reach_names)
