"""Parameter summaries: which parameters of a function end up in system content.

Real applications pass the system prompt as a plain string through several project frames
(``dialog → LLMBundle.chat(system, history) → provider.chat(system, history) →
history.insert(0, {"role": "system", "content": system})``), and the object holding the next frame
is chosen at runtime, so the inline evaluator cannot follow the value down. Instead each
definition gets a small summary, computed from its syntax alone (cached with its other reach
facts, see ``reach.definition_calls``):

- a **flow** ``(position, name, target)`` per parameter and place it reaches: ``system`` when it
  lands in system content (a role dict or ``role=`` message, a system-message or agent
  constructor, an LLM call's ``system=`` argument), else ``callee#i`` / ``callee=kw``: the
  argument slot of another call (by the callee's last name);
- **wrappers** follow by a fixed point over all definitions (``infer_wrappers``): a definition
  whose parameter flows into system content, directly or through a wrapper's slot, is a wrapper
  with that slot, at any depth. Calls are matched by last name, as in the reach (every project
  definition of that name: class-hierarchy dispatch over-approximated by name).

A keyword a function taking ``**kwargs`` reads by name (``kwargs.get("system")``,
``kwargs.pop("system", None)``, ``kwargs["system"]``) is a parameter of its own, passed by that
keyword: provider methods often take the system prompt so (``call_with_tools(messages, **kwargs)``).
An attribute a function reads of a parameter (``request.system``, ``getattr(request, "system",
None)``) is one too, at its object's position: the slot is ``s#0.system`` (``s=request.system``),
and a caller's value is that attribute of the object it hands over (a request object built with
``LLMRequest(messages=..., system=...)``). The object itself flows on as before (``s#0``), so that
a caller handing it on whole is a wrapper too; a call is judged for the attribute slots only
(``Evaluator.wrapper_arguments``). A dict built here by key and
passed on as ``callee(**kwargs)`` hands each entry to the callee's keyword of that name.

A parameter that reaches an LLM call's ``model=`` makes an ``n`` slot the same way: the model a
caller names there (``chat(prompt, model="claude-3-5-haiku")``) prices the prompt it assembles.
Each definition also lists the lines of the LLM calls it makes (``@<line>`` flows, ignored by the
slots; ``@?<line>`` when no parameter is seen going into the call's content, and those count only
when no call of the definition is seen taking one): ``reached_calls`` follows them through the wrappers, so that a finding judged at a wrapper
call names the LLM calls it reaches.

Flows into the user's turn (``user``) are kept the same way: they tell the request-derived stage
(``analysis/derived.py``) which argument of a wrapper call is the request's own input. Flows into
an LLM call's message list (``messages``: the ``messages=`` of a known call, or of any call an
unresolved client makes) make ``m`` slots: the caller that builds the list hands over the whole
request in its own order, and is judged there (``Evaluator.wrapper_messages``).

System content reached only inside a first-call branch (``if self.turn_count == 0:``) makes ``o``
slots instead of ``s`` slots (flows from there are marked ``!`` until their kind is known): it is
set once per conversation, and the caller judges it so.

The evaluator then treats a call to a wrapper as an assembly point for the values it is given in
a system slot (``Evaluator.wrapper_arguments``): the value is judged as system content in the
caller, where it is known.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from promptlint.analysis.index import nodes_of, of_kind
from promptlint.knowledge import Knowledge, forwarded_positions
from promptlint.model import MAX_REACHED

SYSTEM = "system"
HEAD = "head"
USER = "user"
MESSAGES = "messages"
MODEL = "model"
ONCE = "once"  # system content set on the object's first call only (`if self.turn_count == 0:`)
# Slot prefixes: "s#0" (system text), "u=prompt" (user turn), "m=messages" (the whole message list
# an LLM call sends: the caller that builds it knows the request's full order), "h#0" (next to an
# "s" slot: the system text is written over the head of a list the object keeps,
# `self.messages[0] = {"role": "system", ...}`, so the conversation in that list follows it).
# "n=model" (the model name of the LLM call further down). "o#0": system text too, but set only in
# a first-call branch (`if self.turn_count == 0:`), so once per conversation.
KINDS = {SYSTEM: "s", HEAD: "h", USER: "u", MESSAGES: "m", MODEL: "n", ONCE: "o"}
SITE = "@"  # a flow target "@<line>": the definition makes an LLM call on that line (not a slot)
UNSURE = "?"  # "@?<line>": an LLM call no parameter is seen going into
# "@%<line>" (or "@%?<line>"): a call taken for a request by its `messages=` keyword alone (a
# gateway, an unknown client, but also an event or a hook recording the messages): listed as what
# a wrapper reaches only when none of its known LLM calls is.
GUESSED = "%"
CONVERTED = "~"  # a flow as a message list only (through a format converter): it reaches "m" slots only
TEXT_ONLY = "^"  # a flow as text inside a message only: it reaches "s" and "u" slots, not "m"
FIRST_CALL = "!"  # a flow from inside a first-call branch: system content it reaches is set once
FORWARDED = "**"  # a flow of every keyword argument: `def f(*args, **kwargs): return g(**kwargs)`
Flow = tuple[int, str, str]  # (positional index or -1, parameter name, target)


class SinkShapes:
    """What counts as system content, from knowledge (rules/prompt_sinks.yaml, llm_calls.yaml)."""

    def __init__(self, system_roles: Iterable[str], content_keys: Iterable[str],
                 constructors: dict[str, tuple[str, ...]], api_methods: Iterable[str],
                 system_keywords: Iterable[str], user_roles: Iterable[str] = (),
                 user_constructors: dict[str, tuple[str, ...]] | None = None,
                 any_call_keywords: Iterable[str] = (), messages_keywords: Iterable[str] = (),
                 role_keys: Iterable[str] = ("role",), callback_types: Iterable[str] = (),
                 chat_paths: Iterable[str] = (), system_templates: Iterable[str] = ()) -> None:
        # Classes whose `from_template(t)` holds system text (`SystemMessagePromptTemplate`): what
        # their `format(...)` is given is system content.
        self.system_templates = tuple(system_templates)
        self.role_keys = tuple(role_keys)  # keywords of a message constructor that hold its role
        self.chat_paths = tuple(chat_paths)  # URL path endings of providers' chat endpoints (raw HTTP)
        self.callback_types = frozenset(callback_types)  # last names of request types a model callback rewrites
        self.messages_keywords = frozenset(messages_keywords)  # LLM API keywords holding the message list
        self.any_call_keywords = frozenset(any_call_keywords)  # system keywords of unresolved calls
        self.system_roles = frozenset(system_roles)
        self.user_roles = frozenset(user_roles)
        self.user_constructors = user_constructors or {}
        self.content_keys = tuple(content_keys)
        self.constructors = constructors  # last name -> argument specs holding system text
        self.api_methods = frozenset(api_methods)
        self.system_keywords = frozenset(system_keywords)  # LLM API keywords holding system text


def sink_shapes(knowledge: Knowledge) -> SinkShapes:
    constructors = {name.rsplit(".", 1)[-1]: args
                    for name, args in [*knowledge.system_messages.items(), *knowledge.agent_instructions.items()]}
    system_keywords = {part.arg for spec in knowledge.apis.values() for part in spec.parts
                       if part.part in ("system", "instructions", "system_instruction") and part.arg.isidentifier()}
    users = {name.rsplit(".", 1)[-1]: args for name, args in knowledge.user_messages.items()}
    messages_keywords = {part.arg for spec in knowledge.apis.values() for part in spec.parts
                         if part.shape == "messages" and part.arg.isidentifier()}
    system_templates = {name.split(".")[-2] for name in knowledge.system_messages if name.endswith(".from_template")}
    return SinkShapes(knowledge.system_roles, knowledge.content_keys, constructors, knowledge.api_method_names,
                      system_keywords, knowledge.user_roles, users, knowledge.system_keywords, messages_keywords,
                      knowledge.role_keys, knowledge.callback_types, tuple(knowledge.http_paths),
                      sorted(system_templates))


def parameters(node: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[tuple[int, str]]:
    """(call position, name) of the parameters a caller passes; keyword-only ones have -1."""
    positional = [*node.args.posonlyargs, *node.args.args]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
    if method and not static and positional:
        positional = positional[1:]
    return [(i, p.arg) for i, p in enumerate(positional)] + [(-1, p.arg) for p in node.args.kwonlyargs]


def parameter_flows(node: ast.FunctionDef | ast.AsyncFunctionDef, method: bool, shapes: SinkShapes,
                    walked: list[ast.AST] | None = None) -> tuple[Flow, ...]:
    """``walked``: the definition's nodes of the FLOW_NODES kinds (or more), in ``nodes_of``
    order, when the caller walked it already."""
    params = parameters(node, method)
    if not params and node.args.kwarg is None:
        return ()
    walked = nodes_of(node, FLOW_NODES) if walked is None else walked
    keyed = _keyword_reads(node, walked, node.args.kwarg.arg, {name for _, name in params}) \
        if node.args.kwarg is not None else {}
    params += [(-1, read) for read in keyed]
    names = {name for _, name in params}
    carriers = _carriers(walked, names)
    converted: dict[str, set[str]] | None = None  # list carriers, computed at the first flow that needs them
    flows: set[Flow] = set()
    position = {name: index for index, name in params}

    def held(name: str, found: dict[str, set[str]]) -> set[str]:
        return _carried(found, name, names)

    once = _first_call_nodes(walked)

    def reach(expr: ast.AST | None, target: str) -> bool:
        """Record where the parameters in ``expr`` flow; whether any does."""
        nonlocal converted
        if expr is None:
            return False
        first_call = id(expr) in once
        text = {param for name in _names_in(expr) for param in held(name, carriers)}
        if target in (SYSTEM, HEAD, USER, MODEL):
            target = ONCE if first_call and target == SYSTEM else target
            flows.update((_position(position, param), param, target) for param in text)
            return bool(text)
        # A message list passes through the project's format converters on its way to the SDK
        # (`messages = _prompt_to_dicts(prompt)`, `translate_history(history, config)`): what the
        # caller hands over is still the request, in its order. Into another call's slot, a
        # parameter that is only text inside a message (`{"content": question}`) is not the list,
        # and one that reaches only through a converter is not text: each is marked.
        converted = converted if converted is not None else _carriers(walked, names, conversions=True)
        listed = {param for name in _list_names(expr) for param in held(name, converted)}
        for param in text | listed:
            mark = "" if target == MESSAGES or param in text and param in listed else \
                TEXT_ONLY if param in text else CONVERTED
            flows.add((_position(position, param), param,
                       (FIRST_CALL if first_call and target != MESSAGES else "") + mark + target))
        return bool(text | listed)

    heads: set[int] | None = None  # computed at the first system dict: most definitions have none
    for item in of_kind(walked, ast.Dict):
        role = _role_of_dict(item)
        if role in shapes.system_roles or role in shapes.user_roles:
            reach(_dict_content(item, shapes.content_keys), SYSTEM if role in shapes.system_roles else USER)
        if role in shapes.system_roles:
            heads = _list_heads(walked) if heads is None else heads
            if id(item) in heads:
                reach(_dict_content(item, shapes.content_keys), HEAD)
    for render in _system_template_renders(walked, shapes.system_templates):  # `...from_template(t).format(p=p)`
        for keyword in render.keywords:
            reach(keyword.value, SYSTEM)
    aliases = _callable_aliases(walked)
    forwarded = node.args.kwarg.arg if node.args.kwarg else None
    built = _dict_entries(walked)
    for call in of_kind(walked, ast.Call):
        # `callee(**request_kwargs)` with the dict built here: its entries are keyword arguments.
        keywords = {key: value for k in call.keywords if k.arg is None and isinstance(k.value, ast.Name)
                    for key, value in built.get(k.value.id, ())}
        keywords.update((k.arg, k.value) for k in call.keywords if k.arg)
        role = _role_name(next((keywords[k] for k in shapes.role_keys if k in keywords), None))
        if role in shapes.system_roles or role in shapes.user_roles:
            reach(next((keywords[k] for k in shapes.content_keys if k in keywords),
                       call.args[0] if call.args else None), SYSTEM if role in shapes.system_roles else USER)
        for name, args in _callees(call, aliases):
            short = name.rsplit(".", 1)[-1]
            if short in shapes.constructors or short in shapes.user_constructors:
                kind = SYSTEM if short in shapes.constructors else USER
                for spec in (shapes.constructors.get(short) or shapes.user_constructors[short]):
                    reach(_argument(call, spec), kind)
                continue
            if name in shapes.api_methods or short in shapes.api_methods:
                # Listed (without short-circuiting) so that every keyword's flows are recorded.
                sent = [reach(keywords[keyword], SYSTEM) for keyword in shapes.system_keywords & keywords.keys()]
                sent += [reach(keywords[keyword], MESSAGES) for keyword in shapes.messages_keywords & keywords.keys()]
                reach(keywords.get("model"), MODEL)
                sent += [any(held(name, carriers) for name in _names_in(arg)) for arg in args]  # `generate(prompt)`
                # `completion(**params)` with `params` built from a parameter (`self._prepare(messages)`)
                sent += [any(held(name, carriers) for name in _names_in(k.value))
                         for k in call.keywords if k.arg is None]
                # An LLM call that sends what a parameter holds; or, less sure, one whose content
                # comes from state the parameter went into first (`self.messages.append(...)`).
                flows.add((-1, "", f"{SITE}{'' if any(sent) else UNSURE}{call.lineno}"))
            elif "messages" in keywords:
                # An unresolved client's `messages=` (llama_cpp, a gateway, palm): the
                # implementations of one provider method vote together (infer_wrappers).
                sends = reach(keywords["messages"], MESSAGES)
                reach(keywords.get("model"), MODEL)
                flows.add((-1, "", f"{SITE}{GUESSED}{'' if sends else UNSURE}{call.lineno}"))
            for keyword in shapes.any_call_keywords & keywords.keys():
                reach(keywords[keyword], SYSTEM)
            written = written_names(args)
            for index, arg in enumerate(args):
                if not isinstance(arg, ast.Starred):
                    reach(arg, f"{short}#{index}{written}")
            for keyword, value in keywords.items():
                reach(value, f"{short}={keyword}")
            if forwarded is not None and any(k.arg is None and isinstance(k.value, ast.Name)
                                             and k.value.id == forwarded for k in call.keywords):
                flows.add((-1, FORWARDED, f"{short}={FORWARDED}"))  # `callee(**kwargs)`
    return tuple(sorted((index, keyed.get(name, name), target) for index, name, target in flows))


def _position(position: dict[str, int], param: str) -> int:
    """A parameter's call position; an attribute read of one (``request.system``) has its object's."""
    return position[param] if param in position else position[param.partition(".")[0]]


def _carried(carriers: dict[str, set[str]], name: str, params: set[str]) -> set[str]:
    """The parameters a name (as ``_names_in`` gives it) may hold. An attribute read of a parameter
    (``request.system``, ``getattr(request, "system", None)``) is a parameter of its own, passed in
    the object the caller hands over (chatgpt-on-wechat's ``call_stream(request)`` sends
    ``request.system`` as the system prompt, ``request.messages`` as the history). One of a local
    name holds nothing of its own: ``_names_in`` gives the local name beside it."""
    found = carriers.get(name)
    if found is not None:
        return found
    root, dot, _ = name.partition(".")
    return {name} if dot and root in params else set()


def _dict_entries(walked: list[ast.AST]) -> dict[str, list[tuple[str, ast.expr]]]:
    """Local dicts built by key (``kwargs = {"messages": m}``, ``kwargs["system"] = s``,
    ``params = dict(model=m)``): name -> (key, value) in the order written, for a call that passes
    one as ``**kwargs``."""
    entries: dict[str, list[tuple[str, ast.expr]]] = {}
    for item in of_kind(walked, ast.Assign):
        if len(item.targets) != 1:
            continue
        target, value = item.targets[0], item.value
        if isinstance(target, ast.Name) and isinstance(value, ast.Dict):
            entries.setdefault(target.id, []).extend(
                (key.value, item_value) for key, item_value in zip(value.keys, value.values)
                if isinstance(key, ast.Constant) and isinstance(key.value, str))
        elif isinstance(target, ast.Name) and isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                and value.func.id == "dict":
            entries.setdefault(target.id, []).extend((k.arg, k.value) for k in value.keywords if k.arg)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                and isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str):
            entries.setdefault(target.value.id, []).append((target.slice.value, value))
    return entries


def _keyword_reads(node: ast.FunctionDef | ast.AsyncFunctionDef, walked: list[ast.AST], kwarg: str,
                   taken: set[str]) -> dict[str, str]:
    """The keyword arguments a function taking ``**kwargs`` reads by name (``kwargs.get("system")``,
    ``kwargs.pop("system", None)``, ``kwargs["system"]``): each is a parameter of its own for the
    summary, named as ``_names_in`` names the read (``kwargs[system]``) and as callers pass it
    (``system``). Provider methods take the system prompt so (chatgpt-on-wechat's
    ``call_with_tools(messages, **kwargs)``)."""
    keys = {key for call in of_kind(walked, ast.Call)
            if (key := _read_key(call, kwarg)) is not None}
    keys |= {key for item in nodes_of(node, ast.Subscript) if (key := _read_key(item, kwarg)) is not None}
    return {f"{kwarg}[{key}]": key for key in keys if key.isidentifier() and key not in taken}


def _read_key(expr: ast.AST, mapping: str | None = None) -> str | None:
    """``d.get("k")``, ``d.pop("k")`` or ``d["k"]`` (of the name ``mapping`` when given): ``k``."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in ("get", "pop") \
            and expr.args and isinstance(expr.args[0], ast.Constant) and isinstance(expr.args[0].value, str):
        held, key = expr.func.value, expr.args[0].value
    elif isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) \
            and isinstance(expr.slice.value, str):
        held, key = expr.value, expr.slice.value
    else:
        return None
    return key if isinstance(held, ast.Name) and (mapping is None or held.id == mapping) else None


AGREEMENT = 4  # a slot belongs to a name when at least 1 in AGREEMENT of its definitions has it


def infer_wrappers(definitions: Iterable[tuple[str, Iterable[Flow], bool]], untraceable: frozenset[str]
                   ) -> dict[str, frozenset[str]]:
    """Name -> its slots whose value reaches system content (``s#i`` positions, ``s=name``
    keywords) or the user's turn (``u#i``, ``u=name``), to a fixed point over every definition's
    flows. Calls are matched by last name, so a slot belongs to a name only when at least one in
    ``AGREEMENT`` of the project's definitions of that name (tests' doubles not counted: the third
    element is False for them) has it: one ``create(system=...)`` among fifty CRUD ``create``
    methods does not make every ``create(...)`` call a wrapper. Names with only user slots are kept
    too: they say where a user's turn is built (``builder.add_user_message(query)``)."""
    candidates = [(name, tuple(flows)) for name, flows, counted in definitions if counted and name not in untraceable]
    counts: dict[str, int] = {}
    readers: dict[str, list[int]] = {}  # name -> the definitions whose flows read its slots
    for position, (name, flows) in enumerate(candidates):
        counts[name] = counts.get(name, 0) + 1
        for callee in {_callee(target) for _, _, target in flows} - {""}:
            readers.setdefault(callee, []).append(position)
    own: list[set[str]] = [set() for _ in candidates]  # each definition's slots
    votes: dict[str, dict[str, int]] = {}  # name -> slot -> how many of its definitions have it
    slots: dict[str, set[str]] = {}
    # A worklist to the fixed point: a definition is read again only when a name its flows reach
    # gains a slot (sweeping every definition until nothing changed took 12 s on litellm).
    pending = list(range(len(candidates)))
    queued = set(pending)
    while pending:
        position = pending.pop()
        queued.discard(position)
        name, flows = candidates[position]
        gained = flow_slots(flows, slots) - own[position]
        if not gained:
            continue
        own[position] |= gained
        name_votes = votes.setdefault(name, {})
        for slot in gained:
            name_votes[slot] = name_votes.get(slot, 0) + 1
        new = {slot for slot in gained if AGREEMENT * name_votes[slot] >= counts[name]} - slots.get(name, set())
        if new:
            slots.setdefault(name, set()).update(new)
            for reader in readers.get(name, ()):
                if reader not in queued:
                    queued.add(reader)
                    pending.append(reader)
    # A name whose only slot is a model ("n") judges nothing at its calls: left out of the table.
    return {name: frozenset(found) for name, found in slots.items() if any(slot[0] != "n" for slot in found)}


def flow_slots(flows: tuple[Flow, ...], slots: dict[str, set[str]]) -> set[str]:
    """A definition's slots, given the slots known so far of the names its flows reach."""
    found: set[str] = set()
    for index, param, target in flows:
        if param == FORWARDED:  # the callee's keyword slots are this function's too
            found |= {slot for slot in slots.get(target.partition("=")[0], ()) if slot[1] == "="}
            continue
        attribute = param.partition(".")[2]
        for kind in _target_kinds(target, slots):
            if attribute and kind == USER:
                continue  # the user's turn is read by name from a call's syntax (derived.py), not from an object
            prefix = KINDS[kind]
            found |= {f"{prefix}={param}"} | ({f"{prefix}#{index}{'.' + attribute if attribute else ''}"}
                                              if index >= 0 else set())
    return found


def _target_kinds(target: str, slots: dict[str, set[str]]) -> list[str]:
    """The kinds of content a flow's target is, given the slots known so far: itself for a direct
    target (``system``), else those of the callee's slot it lands in (``send#0`` when ``send`` has
    ``s#0``); a list through a converter is only a list, text inside a message only text; system
    text reached from a first-call branch is set once."""
    if target in KINDS:
        return [target]
    once = target.startswith(FIRST_CALL)
    target = target.lstrip(FIRST_CALL)
    mark = target[0] if target[0] in (CONVERTED, TEXT_ONLY) else ""
    bare = target[1:] if mark else target
    for separator in ("#", "="):
        callee, found, slot = bare.partition(separator)
        if found:
            known = slots.get(callee)
            if not known:
                return []
            kinds = [kind for kind, prefix in KINDS.items()
                     if (positional_slot_applies(prefix, slot, known) if separator == "#" else f"{prefix}={slot}" in known)
                     and not (mark == CONVERTED and kind != MESSAGES or mark == TEXT_ONLY and kind == MESSAGES)]
            return sorted({ONCE if once and kind == SYSTEM else kind for kind in kinds})
    return []  # a site ("@<line>") or no slot at all


NAMED_ARGUMENTS = "|"  # after a positional flow's index: the names the call's positional arguments are written as


def written_names(args: list[ast.expr]) -> str:
    """``|prompt,project_name`` for ``inference(prompt, project_name)``: the names a call's
    positional arguments are written as ("" for any other expression), when one is a bare name;
    else "". A positional slot is read with them (``positional_slot_applies``)."""
    names = [arg.id if isinstance(arg, ast.Name) else "" for arg in args]
    return NAMED_ARGUMENTS + ",".join(names) if any(names) else ""


def positional_slot_applies(prefix: str, slot: str, known: set[str]) -> bool:
    """Whether a positional slot (``1|prompt,project_name``: position 1 of a call whose arguments
    are written so) is the callee's ``{prefix}#1`` slot. Not when another argument is written as
    the name of a keyword slot of the same kind, at a position that is no such slot (``u=prompt``
    while ``prompt`` is argument 0 and ``u#0`` is no slot): that call is to a definition whose
    parameters sit elsewhere (devika's facade ``inference(prompt, project_name)`` beside seven
    providers' ``inference(model_id, prompt)``), and position 1 is not the prompt there."""
    index, _, written = slot.partition(NAMED_ARGUMENTS)
    if f"{prefix}#{index}" not in known:
        return False
    names = written.split(",") if written else []
    return not any(name and position != int(index) and f"{prefix}={name}" in known
                   and f"{prefix}#{position}" not in known for position, name in enumerate(names))


def _callee(target: str) -> str:
    """The name whose slots a flow's target reads (``send#0``, ``send=system``): ""  for none."""
    target = target.lstrip(FIRST_CALL + CONVERTED + TEXT_ONLY)
    for mark in ("#", "="):
        callee, found, _ = target.partition(mark)
        if found:
            return callee
    return ""


def reached_calls(definitions: Iterable[tuple[str, str, Iterable[Flow]]], wrappers: dict[str, frozenset[str]]
                  ) -> dict[str, tuple[tuple[str, int], ...]]:
    """Wrapper name -> the (path, line) of each LLM call it reaches: the calls made by its own
    definitions (the ``@<line>`` flows of those whose parameters flow anywhere) and, to a fixed
    point, those its definitions reach through other wrappers' slots. Matched by last name, like
    the slots: the calls of every project definition of that name. Calls of a known LLM API come
    first: those taken for requests by their `messages=` keyword alone only when there are none."""
    known: dict[str, set[tuple[str, int]]] = {}  # calls of a known LLM API
    guessed: dict[str, set[tuple[str, int]]] = {}  # calls taken for requests by their `messages=` only
    callees: dict[str, set[str]] = {}
    for name, path, flows in definitions:
        if name not in wrappers:
            continue
        flows = tuple(flows)
        if not any(not target.startswith(SITE) for _, _, target in flows):
            continue  # no parameter flows anywhere: not the definition the slots came from
        for table, sites in ((known, [t[1:] for _, _, t in flows if t.startswith(SITE) and t[1:2] != GUESSED]),
                             (guessed, [t[2:] for _, _, t in flows if t.startswith(SITE + GUESSED)])):
            sure = [site for site in sites if not site.startswith(UNSURE)]
            # The calls a parameter is seen going into; else every LLM call of the definition.
            table.setdefault(name, set()).update((path, int(site.lstrip(UNSURE))) for site in (sure or sites))
        callees.setdefault(name, set()).update(c for _, _, target in flows if (c := _callee(target)) in wrappers)
    reached_known, reached_guessed = _through_callees(known, callees), _through_callees(guessed, callees)
    return {name: tuple(sorted(sites)[:MAX_REACHED])
            for name in reached_known.keys() | reached_guessed.keys()
            if (sites := reached_known.get(name) or reached_guessed.get(name))}


def _through_callees(direct: dict[str, set[tuple[str, int]]], callees: dict[str, set[str]]
                     ) -> dict[str, set[tuple[str, int]]]:
    """Each wrapper's own calls and, to a fixed point, those of the wrappers it calls (any depth)."""
    reached = {name: set(sites) for name, sites in direct.items()}
    changed = True
    while changed:
        changed = False
        for name, names in callees.items():
            found = reached.setdefault(name, set())
            size = len(found)
            for callee in names - {name}:
                found |= reached.get(callee, set())
            changed |= len(found) != size
    return reached


def system_wrappers(wrappers: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    """The wrappers that make their callers worth evaluating: names with a slot that reaches system
    content. Message-list slots do not widen the reach (`messages=` is passed through by half of
    an agent framework, which doubled the time on large trees): a caller that builds a role-tagged
    list is evaluated anyway, and is judged there."""
    return {name: found for name, found in wrappers.items() if any(slot[0] in "so" for slot in found)}


FORWARDED_AT = forwarded_positions()  # calls running the function they are handed: last name -> where
# What can make a local name hold a parameter's value: bindings, loop targets, `list.append(p)`.
CARRYING = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.comprehension,
            ast.Call)
# Every kind parameter_flows reads: one walk of the definition, each reader picks its kinds.
FLOW_NODES = (ast.Dict, ast.If, *CARRYING)


def first_call_test(test: ast.expr) -> bool:
    """``self.turn_count == 0``, ``self._plan is None``, ``len(self.steps) == 0``: a branch the
    object takes on its first call only (a flag, ``if self.use_memory:``, is not one)."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return False
    subject, op, bound = test.left, test.ops[0], test.comparators[0]
    if isinstance(subject, ast.Call) and isinstance(subject.func, ast.Name) and subject.func.id == "len" \
            and len(subject.args) == 1:
        subject = subject.args[0]
    if _own_attribute(subject) is None or not isinstance(bound, ast.Constant):
        return False
    if isinstance(op, ast.Is):
        return bound.value is None
    if type(bound.value) is not int:
        return False
    return isinstance(op, ast.Eq) and bound.value == 0 or isinstance(op, ast.Lt) and bound.value == 1 \
        or isinstance(op, ast.LtE) and bound.value == 0


def _first_call_nodes(walked: list[ast.AST]) -> set[int]:
    """The nodes inside first-call branches: the system content they hand on is set once per
    conversation ("o" slots)."""
    return {id(inner) for branch in of_kind(walked, ast.If) if first_call_test(branch.test)
            for statement in branch.body for inner in nodes_of(statement, ast.AST)}


def _carriers(walked: list[ast.AST], params: set[str], conversions: bool = False) -> dict[str, set[str]]:
    """Local names (and the parameters themselves) -> the parameters whose value they may hold.
    Flow-insensitive: assignments, augmented assignments, loop and comprehension targets and in-place list growth
    (``parts.append(p)``), propagated to a fixed point. With ``conversions``, the names whose
    *list* a local continues instead, through any call's first argument (see ``_list_names``)."""
    carriers: dict[str, set[str]] = {name: {name} for name in params}
    names_of = _list_names if conversions else _names_in
    bindings: list[tuple[list[str], ast.AST]] = []
    for item in of_kind(walked, CARRYING):
        if isinstance(item, ast.Assign):
            bindings.append(([n for t in item.targets for n in _carrying_targets(t)], item.value))
        elif isinstance(item, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            if item.value is not None:
                bindings.append((_carrying_targets(item.target), item.value))
        elif isinstance(item, (ast.For, ast.AsyncFor, ast.comprehension)):
            # `[self._system_msg(m) for m in system_msgs]`: each item of a list of system texts
            bindings.append((target_names(item.target), item.iter))
        elif isinstance(item.func, ast.Attribute) and item.func.attr in GROWING_METHODS \
                and isinstance(item.func.value, ast.Name):
            bindings.append(([item.func.value.id], item))
    changed = True
    while changed:  # to a fixed point: the order of the bindings does not matter
        changed = False
        for targets, value in bindings:
            found = set().union(*(_carried(carriers, name, params) for name in names_of(value)))
            for target in targets if found else ():
                held = carriers.setdefault(target, set())
                if not found <= held:
                    held.update(found)
                    changed = True
    return carriers


def _list_heads(walked: list[ast.AST]) -> set[int]:
    """The dicts written over the first item of a list that already holds messages
    (``self.messages[0] = {...}``): ids of the assigned dict nodes. Not `history.insert(0, {...})`
    into a list the caller hands over: the caller may hand one user message (ragflow's one-shot
    `chat(system, [{"role": "user", ...}])`), and the slot would claim a conversation up the chain."""
    return {id(item.value) for item in of_kind(walked, ast.Assign) if isinstance(item.value, ast.Dict)
            and any(isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value == 0
                    for t in item.targets)}


def _carrying_targets(target: ast.AST) -> list[str]:
    """The local names a target binds, plus ``self.attr`` for an attribute of the object itself:
    a method that stores its parameter and builds the message from the attribute
    (``self.system_prompt = system_prompt; self.messages[0] = {..., "text": self.system_prompt}``)."""
    own = _own_attribute(target)
    return [own] if own is not None else target_names(target)


def _own_attribute(expr: ast.AST) -> str | None:
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        return f"self.{expr.attr}"
    return None


def target_names(target: ast.AST) -> list[str]:
    """The local names an assignment target binds (``messages[0] = ...`` rebinds ``messages``;
    attributes are not local names)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for element in target.elts for n in target_names(element)]
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    if isinstance(target, ast.Subscript):  # messages[0] = ...: the list now holds it
        return target_names(target.value)
    return []


# Calls whose result carries their receiver's and arguments' text (string building); any other
# call's result is a new value (``load(conversation_id)`` does not carry the id into the prompt),
# as in the evaluator, where an unknown call's result is not volatile.
CARRYING_METHODS = frozenset({"format", "format_map", "join", "replace", "strip", "lstrip", "rstrip", "upper",
                              "lower", "title", "capitalize", "removeprefix", "removesuffix", "copy",
                              "substitute", "safe_substitute", "render", "encode", "decode"})
GROWING_METHODS = ("append", "extend", "insert")  # `parts.append(p)`: the list now holds p
CARRYING_FUNCTIONS = frozenset({"str", "list", "tuple", "dict", "repr", "dedent", "cleandoc", "sorted", "reversed"})


def _names_in(expr: ast.AST | None) -> set[str]:
    """The local names whose value the expression's value carries (text, containers, fields)."""
    if expr is None:
        return set()
    if isinstance(expr, ast.Name):
        return {expr.id}
    own = _own_attribute(expr)
    if own is not None:
        return {own}
    key = _read_key(expr)
    if key is not None:  # `kwargs["system"]`, `kwargs.get("system")`: also that entry by name
        held = expr.func.value if isinstance(expr, ast.Call) else expr.value  # type: ignore[attr-defined]
        return {f"{held.id}[{key}]", *(_names_in(held) if isinstance(expr, ast.Subscript) else ())}
    read = _attribute_read(expr)
    if read is not None:  # `request.system`: that attribute by name (see `_carried`), and the object
        return {read, read.partition(".")[0]}
    if isinstance(expr, (ast.Attribute, ast.Subscript, ast.Starred, ast.Await, ast.FormattedValue)):
        return _names_in(expr.value)
    if isinstance(expr, ast.JoinedStr):
        return set().union(*(_names_in(v) for v in expr.values))
    if isinstance(expr, ast.BinOp):
        return _names_in(expr.left) | _names_in(expr.right)
    if isinstance(expr, ast.BoolOp):
        return set().union(*(_names_in(v) for v in expr.values))
    if isinstance(expr, ast.IfExp):
        return _names_in(expr.body) | _names_in(expr.orelse)
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        return set().union(*(_names_in(e) for e in expr.elts))
    if isinstance(expr, ast.Dict):
        return set().union(*(_names_in(v) for v in expr.values))
    if isinstance(expr, ast.Call):
        func = expr.func
        carried = [*expr.args, *(k.value for k in expr.keywords)]
        if isinstance(func, ast.Attribute) and func.attr in (*CARRYING_METHODS, *GROWING_METHODS):
            return _names_in(func.value) | set().union(*(_names_in(a) for a in carried))
        if isinstance(func, (ast.Name, ast.Attribute)) and \
                (func.id if isinstance(func, ast.Name) else func.attr) in CARRYING_FUNCTIONS:
            return set().union(*(_names_in(a) for a in carried))
    return set()


def _attribute_read(expr: ast.AST) -> str | None:
    """``request.system`` or ``getattr(request, "system", None)`` of a plain name: "request.system"."""
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        return f"{expr.value.id}.{expr.attr}"
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "getattr" \
            and len(expr.args) in (2, 3) and isinstance(expr.args[0], ast.Name) \
            and isinstance(expr.args[1], ast.Constant) and isinstance(expr.args[1].value, str):
        return f"{expr.args[0].id}.{expr.args[1].value}"
    return None


def _list_names(expr: ast.AST | None) -> set[str]:
    """The local names whose *list* the expression's value continues, converted or not: a name, a
    slice, a splice, a concatenation, and any call's first argument (``_prompt_to_dicts(prompt)``,
    ``translate_history(history, config)``: a project's format converter). Text put into a
    message (``{"content": question}``, ``f"..."``, ``template.render(examples=...)``) is a part
    of one message, not the list, so it does not count."""
    if isinstance(expr, ast.Name):
        return {expr.id}
    read = _attribute_read(expr)
    if read is not None and not read.startswith("self."):
        return {read, read.partition(".")[0]}
    if isinstance(expr, (ast.Attribute, ast.Subscript, ast.Starred, ast.Await)):
        return _list_names(expr.value)
    if isinstance(expr, ast.BinOp):
        return _list_names(expr.left) | _list_names(expr.right)
    if isinstance(expr, ast.BoolOp):
        return set().union(*(_list_names(v) for v in expr.values))
    if isinstance(expr, ast.IfExp):
        return _list_names(expr.body) | _list_names(expr.orelse)
    if isinstance(expr, (ast.List, ast.Tuple)):
        return set().union(*(_list_names(e) for e in expr.elts if isinstance(e, ast.Starred)))
    if isinstance(expr, ast.Call):
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in (*GROWING_METHODS, "copy"):
            return _list_names(expr.func.value) | set().union(*(_list_names(a) for a in expr.args[-1:]))
        if expr.args and not isinstance(expr.args[0], ast.Starred):
            return _list_names(expr.args[0])
    return set()


# The methods of a role template that fill it in (LangChain's message prompt templates).
TEMPLATE_RENDERERS = frozenset({"format", "format_messages", "aformat", "aformat_messages"})


def _system_template_renders(walked: list[ast.AST], classes: tuple[str, ...]) -> list[ast.Call]:
    """The calls filling in a system role template: ``SystemMessagePromptTemplate.from_template(t)
    .format(...)``, directly or through a local name the template was assigned to."""
    if not classes:
        return []

    def builds_one(value: ast.AST) -> bool:
        return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr == "from_template" and last_name(value.func.value) in classes

    held = {item.targets[0].id for item in of_kind(walked, ast.Assign)
            if len(item.targets) == 1 and isinstance(item.targets[0], ast.Name) and builds_one(item.value)}
    return [call for call in of_kind(walked, ast.Call)
            if isinstance(call.func, ast.Attribute) and call.func.attr in TEMPLATE_RENDERERS
            and (builds_one(call.func.value) or isinstance(call.func.value, ast.Name) and call.func.value.id in held)]


def last_name(node: ast.AST) -> str:
    """The last name of a called expression (`client.chat.create` → `create`), else empty."""
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _callable_aliases(walked: list[ast.AST]) -> dict[str, set[str]]:
    """Local names bound to a callable of known name: ``fn = getattr(self.mdl, "chat", None)``,
    ``fn = self.mdl.chat`` (a bound method kept for later)."""
    aliases: dict[str, set[str]] = {}
    for item in of_kind(walked, ast.Assign):
        if len(item.targets) != 1 or not isinstance(item.targets[0], ast.Name):
            continue
        value = item.value
        name = None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "getattr" \
                and len(value.args) >= 2 and isinstance(value.args[1], ast.Constant) and isinstance(value.args[1].value, str):
            name = value.args[1].value
        elif isinstance(value, ast.Attribute):
            name = value.attr
        if name:
            aliases.setdefault(item.targets[0].id, set()).add(name)
    return aliases


def _callees(call: ast.Call, aliases: dict[str, set[str]]) -> list[tuple[str, list[ast.expr]]]:
    """The names a call may run, each with the positional arguments it receives:
    ``partial(fn, a, b)`` calls ``fn`` with ``a, b`` first; an alias calls what it names;
    ``asyncio.to_thread(fn, a)`` calls ``fn`` with ``a`` (FORWARDED_AT)."""
    name = _call_name(call)
    args = list(call.args)
    position = FORWARDED_AT.get((name or "").rsplit(".", 1)[-1])
    if position is not None and len(args) > position and not any(isinstance(a, ast.Starred) for a in args):
        handed, rest = args[position], args[position + 1:]
        inner = ast.Call(func=handed.func, args=[*handed.args, *rest], keywords=handed.keywords) \
            if isinstance(handed, ast.Call) else ast.Call(func=handed, args=rest, keywords=[])
        return _callees(inner, aliases)
    if name in ("partial", "functools.partial") and args:
        target, args = args[0], args[1:]
        if isinstance(target, ast.Name) and target.id in aliases:
            return [(alias, args) for alias in sorted(aliases[target.id])]
        inner = _call_name(ast.Call(func=target, args=[], keywords=[]))
        return [(inner, args)] if inner else []
    if isinstance(call.func, ast.Name) and call.func.id in aliases:
        return [(alias, args) for alias in sorted(aliases[call.func.id])]
    return [(name, args)] if name else []


def _call_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        inner = func.value
        if isinstance(inner, ast.Attribute):
            return f"{inner.attr}.{func.attr}"
        if isinstance(inner, ast.Name):
            return f"{inner.id}.{func.attr}"
        return func.attr
    return None


def _role_name(value: ast.AST | None) -> str | None:
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value.lower()
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        return _role_name(value.values[-1])  # `agent.user_message_role or "user"`: a setting with its default
    if isinstance(value, ast.Attribute):  # MessageRole.SYSTEM
        return value.attr.lower()
    return None


def _role_of_dict(item: ast.Dict) -> str | None:
    for key, value in zip(item.keys, item.values):
        if isinstance(key, ast.Constant) and key.value == "role":
            return _role_name(value)
    return None


def _dict_content(item: ast.Dict, content_keys: tuple[str, ...]) -> ast.AST | None:
    values = {key.value: value for key, value in zip(item.keys, item.values) if isinstance(key, ast.Constant)}
    return next((values[k] for k in content_keys if k in values), None)


def _argument(call: ast.Call, spec: str) -> ast.AST | None:
    if spec.startswith("#"):
        index = int(spec[1:])
        return call.args[index] if index < len(call.args) else None
    return next((k.value for k in call.keywords if k.arg == spec), None)
