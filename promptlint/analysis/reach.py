"""Which functions are worth evaluating as entry points: those that can reach an LLM call.

A name-based over-approximation of the call graph: a function reaches a sink when its body calls
something whose last name is an LLM API method (``create``, ``generate_content``, ``converse`` …)
or a function that itself reaches one. Everything else is evaluated only when a reaching function
calls into it, with real arguments. This keeps a large framework from being evaluated whole.
"""

from __future__ import annotations

import ast
import builtins
from typing import Iterable

from promptlint.analysis.index import ClassInfo, ModuleInfo

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


MAX_HOPS = 2  # a function more hops than this from an LLM call is reached by inlining, if at all


NO_PROMPT = "()"
# Names that say nothing about which definition runs: ``print(...)`` and ``len(...)`` are the
# builtins wherever a class defines its own, ``super().__init__(...)`` is in every subclass.
UNTRACEABLE = frozenset(name for name in dir(builtins) if not name.startswith("_")) | frozenset(
    {"__init__", "__new__", "__post_init__", "__call__", "__enter__", "__exit__", "__aenter__", "__aexit__"})
HTTP_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})


def called_names(function: ast.AST) -> set[str]:
    """Last names of the calls in a function (or loop), plus ``receiver.method`` pairs
    (``messages.create``). A call that cannot send a prompt – no arguments at all
    (``db.batch()``), or an HTTP method first (``http.stream("GET", url)``) – is noted with
    ``NO_PROMPT`` after its name: it still reaches a project function of that name, never an API
    method (see reach_over)."""
    names: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            mark = NO_PROMPT if _cannot_send_prompt(node) else ""
            func = node.func
            if isinstance(func, ast.Attribute):
                names.add(func.attr + mark)
                if isinstance(func.value, ast.Attribute):
                    names.add(f"{func.value.attr}.{func.attr}{mark}")
                elif isinstance(func.value, ast.Name):
                    names.add(f"{func.value.id}.{func.attr}{mark}")
            elif isinstance(func, ast.Name):
                names.add(func.id + mark)
    return names


def _cannot_send_prompt(call: ast.Call) -> bool:
    if not call.args and not call.keywords:
        return True
    first = call.args[0] if call.args else None
    return isinstance(first, ast.Constant) and first.value in HTTP_METHODS


def _definitions(modules: Iterable[ModuleInfo]) -> list[tuple[str, FunctionNode, ModuleInfo, ClassInfo | None]]:
    found: list[tuple[str, FunctionNode, ModuleInfo, ClassInfo | None]] = []
    for module in modules:
        found += [(name, node, module, None) for name, node in module.functions.items()]
        for info in module.classes.values():
            found += [(name, node, module, info) for name, node in info.methods.items()]
    return found


def definition_calls(module: ModuleInfo) -> list[tuple[str, frozenset[str]]]:
    """Each definition of a module (in ``_definitions`` order) with the names it calls:
    all ``reach_over`` needs, small enough to cache per file."""
    return [(name, frozenset(called_names(node))) for name, node, _, _ in _definitions([module])]


def reach_over(definitions: list[tuple[str, set[str] | frozenset[str]]], sink_names: frozenset[str]
               ) -> tuple[list[int | None], frozenset[str]]:
    """For (name, called names) of every definition, in order: how many calls away from an LLM
    call it is (0: it makes one; None: it cannot reach one), and the names that lead to one."""
    reach_names = set(sink_names)
    hops: list[int | None] = [None] * len(definitions)
    for hop in range(MAX_HOPS + 1):
        found = [index for index, (_, calls) in enumerate(definitions)
                 if hops[index] is None and not calls.isdisjoint(reach_names)]
        if not found:
            break
        for index in found:  # names found at this hop lead to a sink in hop + 1 calls: next round
            hops[index] = hop
            name = definitions[index][0]
            if name not in UNTRACEABLE:
                reach_names.update((name, name + NO_PROMPT))
    return hops, frozenset(reach_names)
