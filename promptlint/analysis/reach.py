"""Which functions are worth evaluating as entry points: those that can reach an LLM call.

A name-based over-approximation of the call graph: a function reaches a sink when its body calls
something whose last name is an LLM API method (``create``, ``generate_content``, ``converse`` …)
or a function that itself reaches one. Everything else is evaluated only when a reaching function
calls into it, with real arguments. This keeps a large framework from being evaluated whole.
"""

from __future__ import annotations

import ast
import builtins

from promptlint.analysis.index import ClassInfo, ModuleInfo, nodes_of, of_kind
from promptlint.analysis.summaries import FLOW_NODES, FORWARDED_AT, Flow, SinkShapes, last_name, parameter_flows
from promptlint.analysis.message_lists import returned_messages
from promptlint.knowledge import RETURNS_SYSTEM_MARKER, ROLE_MARKER, SYSTEM_ROLE_SETTING, builtin_http_paths

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


MAX_HOPS = 2  # a function more hops than this from an LLM call is reached by inlining, if at all


NO_ARGUMENTS = "()"  # marks of calls that cannot send a prompt (see called_names)
NOT_A_PROMPT = "(?)"
SELF_CALL = "(self)"  # `self.send_message(frame)`: a method of the project's own object, never an SDK's
# Names that say nothing about which definition runs: ``print(...)`` and ``len(...)`` are the
# builtins wherever a class defines its own, ``x.update(...)`` and ``x.add(...)`` are on every
# dict and set, ``super().__init__(...)`` is in every subclass.
UNTRACEABLE = frozenset(
    name for namespace in (builtins, dict, list, set, str, bytes) for name in dir(namespace) if not name.startswith("_")
) | frozenset({"__init__", "__new__", "__post_init__", "__call__", "__enter__", "__exit__", "__aenter__", "__aexit__"})
HTTP_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})
HTTP_CALLS = frozenset({"post", "request", "stream"})  # methods of HTTP clients that can send a POST
CHAT_PATHS = builtin_http_paths()


_MARKED_NODES = (ast.Dict, ast.Call, ast.FunctionDef, ast.AsyncFunctionDef)
_DEFINITION_NODES = (*_MARKED_NODES, *FLOW_NODES)  # what called_names and parameter_flows read


def called_names(function: ast.AST, system_keywords: frozenset[str] = frozenset(),
                 system_roles: frozenset[str] = frozenset(), role_keys: tuple[str, ...] = ("role",),
                 callback_types: frozenset[str] = frozenset(), walked: list[ast.AST] | None = None,
                 chat_paths: tuple[str, ...] = CHAT_PATHS, endpoint_in_module: bool = False) -> set[str]:
    """Last names of the calls in a function (or loop), plus ``receiver.method`` pairs
    (``messages.create``), plus ``ROLE_MARKER`` where it builds a message with one of
    ``system_roles`` or passes one of ``system_keywords`` (unless every message of the function
    is written out whole), or where it is a model callback (a
    parameter annotated with one of ``callback_types``; rules/prompt_sinks.yaml). A call that
    cannot send a prompt is marked after its name: with no
    arguments at all (``query.stream()``), ``NO_ARGUMENTS``; with an HTTP method first
    (``http.stream("GET", url)``), ``NOT_A_PROMPT``; a method of ``self``, ``SELF_CALL``. It may
    still call a project function of that name, never an API method (see reach_over)."""
    names: set[str] = set()
    # System content written out whole (`{"role": "system", "content": "You are ..."}`) is an
    # assembly point only if some message of the function is not: text with nothing in it that
    # can change is no bust wherever it sits, and evaluating the function (pipecat's examples:
    # a whole pipeline built around one such message) finds nothing.
    system_content = changing_content = False
    # One walk (or none, given the nodes walked for more kinds): this runs for every definition.
    for node in nodes_of(function, _MARKED_NODES) if walked is None else of_kind(walked, _MARKED_NODES):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if callback_types and any(annotation_name(arg.annotation) in callback_types for arg in node.args.args):
                names.add(ROLE_MARKER)  # rewrites the request a framework sends (or builds such a callback)
            continue
        if isinstance(node, ast.Dict):
            roles = [value for key, value in zip(node.keys, node.values)
                     if isinstance(key, ast.Constant) and key.value == "role"]
            if roles:
                changing_content |= not _written_out(node, roles, _constant_locals(function))
            if any(_names_role(value, system_roles) for value in roles):
                system_content = True  # builds a system message: an assembly point
                _mark_returned(function, node, names)
            continue
        if any(keyword.arg in role_keys and _names_role(keyword.value, system_roles) for keyword in node.keywords):
            system_content = True
            changing_content = True  # a message class: its other arguments are not read here
            _mark_returned(function, node, names)
        elif given := [keyword.value for keyword in node.keywords if keyword.arg in system_keywords]:
            system_content = True
            constants = _constant_locals(function)
            changing_content |= not all(_constant(value, constants) for value in given)
        if isinstance(node.func, ast.Attribute) and node.func.attr in HTTP_CALLS \
                and (endpoint_in_module or _names_chat_endpoint(function, chat_paths)):
            names.add(ROLE_MARKER)  # a POST to a provider's chat endpoint: a request (knowledge.http_paths)
        func = node.func
        _add_call_names(func, _mark(node), names)
        position = FORWARDED_AT.get(last_name(func))
        if position is not None and len(node.args) > position:
            # `asyncio.to_thread(client.chat.completions.create, ...)` calls what it is handed
            handed = node.args[position]
            if isinstance(handed, ast.Call) and handed.args and last_name(handed.func) == "partial":
                handed = handed.args[0]  # `functools.partial(create, model=...)`
            _add_call_names(handed, "", names)
    if system_content and changing_content:
        names.add(ROLE_MARKER)
    return names


def _written_out(message: ast.Dict, roles: list[ast.expr], constants: frozenset[str] = frozenset()) -> bool:
    """A message whose every value is a constant (its role may be a name: `Role.SYSTEM`)."""
    return all(key is not None and _constant(value, constants) for key, value in zip(message.keys, message.values)
               if not any(value is role for role in roles))


def _constant(node: ast.expr, constants: frozenset[str] = frozenset()) -> bool:
    """Text or data with nothing in it that can change: constants, an f-string without fields,
    lists and dicts of those (content blocks), a local name only ever given such a value
    (``constants``)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id in constants
    if isinstance(node, ast.JoinedStr):
        return all(isinstance(part, ast.Constant) for part in node.values)
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(_constant(item, constants) for item in node.elts)
    if isinstance(node, ast.Dict):
        return all(key is not None and _constant(key, constants) and _constant(value, constants)
                   for key, value in zip(node.keys, node.values))
    if isinstance(node, ast.Call) and "message" in last_name(node.func).lower():
        # A message written out whole by its constructor (camel's `system_message=BaseMessage.
        # make_assistant_message(role_name="Email Assistant", content="You are ...")`). Only
        # message constructors: other calls with constant arguments may read the clock
        # (`time.strftime("%Y")`).
        return (bool(node.args) or bool(node.keywords)) and all(_constant(a, constants) for a in node.args) \
            and all(k.arg is not None and _constant(k.value, constants) for k in node.keywords)
    return False


def _constant_locals(function: ast.AST) -> frozenset[str]:
    """The local names a function only ever binds to a constant value (`sys_msg = "You are a
    helpful assistant"`, then `ChatAgent(system_message=sys_msg)`); never a parameter (of it or
    of a function inside it). Kept on the node: asked for each of its messages."""
    cached = function.__dict__.get("_constant_locals")
    if cached is not None:
        return cached
    constant: dict[str, int] = {}
    for node in nodes_of(function, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if len(targets) == 1 and isinstance(targets[0], ast.Name) and node.value is not None \
                and _constant(node.value):
            constant[targets[0].id] = constant.get(targets[0].id, 0) + 1
    if constant:
        stores: dict[str, int] = {}
        for name in nodes_of(function, ast.Name):
            if isinstance(name.ctx, ast.Store):
                stores[name.id] = stores.get(name.id, 0) + 1
        parameters = {a.arg for defined in nodes_of(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                      for a in (*defined.args.posonlyargs, *defined.args.args, *defined.args.kwonlyargs)}
        constant = {name: count for name, count in constant.items()
                    if stores.get(name) == count and name not in parameters}
    cached = frozenset(constant)
    function.__dict__["_constant_locals"] = cached
    return cached


def _add_call_names(func: ast.expr, mark: str, names: set[str]) -> None:
    """A called expression's last name, and ``receiver.method`` for a method. A method called on
    ``self`` or ``cls`` is marked: the object is the project's own, so the call runs a project
    definition of that name, not an SDK method that shares it (pipecat's transports
    `self.send_message(frame)` in every frame processor's `process_frame` is no Gemini chat)."""
    if isinstance(func, ast.Attribute):
        own = not mark and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls")
        names.add(func.attr + (SELF_CALL if own else mark))
        if isinstance(func.value, ast.Attribute):
            names.add(f"{func.value.attr}.{func.attr}{mark}")
        elif isinstance(func.value, ast.Name):
            names.add(f"{func.value.id}.{func.attr}{mark}")
    elif isinstance(func, ast.Name):
        names.add(func.id + mark)


def _names_chat_endpoint(function: ast.AST, chat_paths: tuple[str, ...]) -> bool:
    """A string in the function (or module) names a provider's chat endpoint
    (`f"{base}/v1/messages"`); kept on the node, as other per-definition answers."""
    known = function.__dict__.setdefault("_chat_endpoint", {})
    if chat_paths not in known:
        known[chat_paths] = any(isinstance(node.value, str) and any(path in node.value for path in chat_paths)
                                for node in nodes_of(function, ast.Constant))
    return known[chat_paths]


def _mark_returned(function: ast.AST, message: ast.AST, names: set[str]) -> None:
    """A system message the function returns is placed by its callers: mark it so that they
    are evaluated, where what they write after it is seen."""
    if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and id(message) in returned_messages(function):
        names.add(RETURNS_SYSTEM_MARKER)


def _names_role(value: ast.AST, roles: frozenset[str]) -> bool:
    """``"system"``, ``MessageRole.SYSTEM`` or a setting named for it (``agent.system_message_role``):
    a role value that marks system content."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value.lower() in roles
    last = value.attr if isinstance(value, ast.Attribute) else value.id if isinstance(value, ast.Name) else None
    return last is not None and (isinstance(value, ast.Attribute) and last.lower() in roles
                                 or SYSTEM_ROLE_SETTING.fullmatch(last) is not None)


def _mark(call: ast.Call) -> str:
    if not call.args and not call.keywords:
        return NO_ARGUMENTS
    first = call.args[0] if call.args else None
    return NOT_A_PROMPT if isinstance(first, ast.Constant) and first.value in HTTP_METHODS else ""


def callable_without_arguments(node: FunctionNode, method: bool) -> bool:
    """Whether ``f()`` / ``obj.f()`` can call this definition: every parameter (but ``self``) has a
    default. A zero-argument call does not reach ``def stream(self, messages)``."""
    params = node.args
    positional = [*params.posonlyargs, *params.args]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
    if method and not static and positional:
        positional = positional[1:]
    required_positional = len(positional) - len(params.defaults)
    return required_positional <= 0 and all(default is not None for default in params.kw_defaults)


def module_definitions(module: ModuleInfo) -> list[tuple[str, FunctionNode, ClassInfo | None]]:
    """A module's functions, then its classes' methods: the order reach indices refer to."""
    found: list[tuple[str, FunctionNode, ClassInfo | None]] = [
        (name, node, None) for name, node in module.functions.items()]
    for info in module.classes.values():
        found += [(name, node, info) for name, node in info.methods.items()]
    return found


# name, the names it calls, callable without arguments, parameter flows (analysis/summaries.py)
Definition = tuple[str, frozenset[str], bool, tuple[Flow, ...]]


MODULE_LEVEL = "<module>"


def definition_calls(module: ModuleInfo, shapes: SinkShapes | None = None) -> list[Definition]:
    """Each definition of a module (in ``module_definitions`` order) with the names it calls and,
    given the sink shapes, where its parameters flow; then the module's own top level (code that
    runs at import or as a script) as one more: all ``reach_over`` and ``infer_wrappers`` need,
    small enough to cache per file."""
    keywords = shapes.any_call_keywords if shapes is not None else frozenset()
    roles = shapes.system_roles if shapes is not None else frozenset()
    role_keys = shapes.role_keys if shapes is not None else ("role",)
    callbacks = shapes.callback_types if shapes is not None else frozenset()
    chat_paths = shapes.chat_paths if shapes is not None else CHAT_PATHS
    # An endpoint named anywhere in the module's text (a `URL = ".../v1/messages"` constant): any
    # HTTP call of the module may post to it.
    endpoint = any(path in module.source for path in chat_paths)
    found: list[Definition] = []
    for name, node, owner in module_definitions(module):
        walked = nodes_of(node, _DEFINITION_NODES)  # once for both readers
        found.append((name, frozenset(called_names(node, keywords, roles, role_keys, callbacks, walked, chat_paths,
                                                   endpoint)),
                      callable_without_arguments(node, owner is not None),
                      parameter_flows(node, owner is not None, shapes, walked) if shapes is not None else ()))
    return [*found, (MODULE_LEVEL, frozenset(_top_level_calls(module.tree.body)), False, ())]


def _top_level_calls(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for stmt in body:
        if isinstance(stmt, ast.ClassDef):
            names |= _top_level_calls(stmt.body)
        elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names |= called_names(stmt)
    return names


def reach_over(definitions: list[Definition], sink_names: frozenset[str]) -> tuple[list[int | None], frozenset[str]]:
    """For every definition, in order: how many calls away from an LLM call it is (0: it makes
    one; None: it cannot reach one), and the names that lead to one."""
    reach_names = set(sink_names)
    hops: list[int | None] = [None] * len(definitions)
    for hop in range(MAX_HOPS + 1):
        found = [index for index, (_, calls, _, _) in enumerate(definitions)
                 if hops[index] is None and not calls.isdisjoint(reach_names)]
        if not found:
            break
        for index in found:  # names found at this hop lead to a sink in hop + 1 calls: next round
            hops[index] = hop
            name, _, without_arguments, _ = definitions[index]
            if name not in UNTRACEABLE and name != MODULE_LEVEL:
                reach_names.update((name, name + NOT_A_PROMPT, name + SELF_CALL))
                if without_arguments:
                    reach_names.add(name + NO_ARGUMENTS)
    return hops, frozenset(reach_names)


def annotation_name(annotation: ast.expr | None) -> str | None:
    """The last name of a parameter's annotation (``LlmRequest``, ``models.LlmRequest``)."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.rsplit(".", 1)[-1].strip()
    if isinstance(annotation, ast.Attribute):
        return annotation.attr
    return annotation.id if isinstance(annotation, ast.Name) else None
