"""What follows a system message in the list it is written into, read from the function's syntax.

A system message judged where it is assembled (a role dict, a `SystemMessage(...)`) usually has no
LLM call in sight: the list goes on to a project helper or a framework. The list itself often says
what comes after the system message, in the same function:

    formatted = [{"role": "system", "content": system_prompt}]
    for msg in messages:
        formatted.append({"role": msg["role"], "content": msg["content"]})

copies a conversation after it (each message keeps its own role), as do `formatted += history`,
`formatted.extend(chat_history)` and `[system, *history]`. Then the history is known to follow,
not assumed, and a value that changes per request in the system text misses it on every turn.
"""

from __future__ import annotations

import ast
import re

from promptlint.analysis.index import nodes_of

MEMO_ATTRIBUTE = "_promptlint_history_after"
# The last name of a list that holds a conversation (`messages`, `chat_history`, `self.turns`).
HISTORY_LIKE = re.compile(r"(?i)(?:^|_)(?:messages|msgs|history|conversation|dialog(?:ue)?|turns)$")


def history_after(function: ast.AST, node: ast.AST) -> str | None:
    """The expression of the conversation copied after ``node`` (a message written into a list)
    in ``function``, or None. Computed once per function and kept on its definition."""
    memo = function.__dict__.get(MEMO_ATTRIBUTE)
    if memo is None:
        memo = _followed_messages(function)
        setattr(function, MEMO_ATTRIBUTE, memo)
    return memo.get(id(node))


def _followed_messages(function: ast.AST) -> dict[int, str]:
    """Message nodes of the function -> the conversation that follows them in their list."""
    found: dict[int, str] = {}
    growth: list[tuple[str, int, str]] = []  # (list name, line, conversation) for each copy into a list
    placed: list[tuple[int, str, int]] = []  # (message node id, list name, line) for each message written
    written_out = _written_out_lists(function)
    for written in nodes_of(function, (ast.List, ast.BinOp)):
        _followed_in_place(written, found, written_out)
    # A message held in a name first (`system = SystemMessage(...)`, then `[system, *history]`)
    # is followed by what follows the name.
    held: dict[int, ast.Name] = {}
    copies = _history_copies(function)
    for stmt in nodes_of(function, ast.stmt):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            held[id(stmt.value)] = stmt.targets[0]
            if isinstance(stmt.value, ast.List):
                placed.extend((id(item), stmt.targets[0].id, stmt.lineno) for item in stmt.value.elts)
            copied = _concatenated(stmt.targets[0].id, stmt.value)
            if copied is not None:
                growth.append((stmt.targets[0].id, stmt.lineno, copied))
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) \
                and (target := _dotted_name(stmt.target)) and _history_like(stmt.value, copies):
            growth.append((target, stmt.lineno, ast.unparse(stmt.value)))
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            _appended(stmt.value, stmt.lineno, placed, growth, copies)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            growth.extend(_copied_by_loop(stmt))
    for node_id, name, line in placed:
        copied = next((source for target, at, source in growth if target == name and at >= line), None)
        if copied is not None:
            found.setdefault(node_id, copied)
    names = {(node.id, node.lineno): found[id(node)] for node in nodes_of(function, ast.Name) if id(node) in found}
    for value_id, target in held.items():
        # The first use of the name after it is bound, in a list followed by a conversation.
        later = sorted((line, source) for (name, line), source in names.items()
                       if name == target.id and line >= target.lineno)
        if later:
            found.setdefault(value_id, later[0][1])
    return found


def _followed_in_place(written: ast.List | ast.BinOp, found: dict[int, str], written_out: frozenset[str]) -> None:
    """`[message, *history]` and `[message] + history`: the conversation written right after (not
    a list the function wrote out itself: ``written_out``)."""
    items = written.left if isinstance(written, ast.BinOp) else written
    if not isinstance(items, ast.List) or isinstance(written, ast.BinOp) and not isinstance(written.op, ast.Add):
        return

    def conversation(value: ast.expr) -> bool:
        return _history_like(value) and not (isinstance(value, ast.Name) and value.id in written_out)

    after = ast.unparse(written.right) if isinstance(written, ast.BinOp) and conversation(written.right) else None
    for index, item in enumerate(items.elts):
        later = next((ast.unparse(e.value) for e in items.elts[index + 1:]
                      if isinstance(e, ast.Starred) and conversation(e.value)), None) or after
        if later is not None:
            found.setdefault(id(item), later)


def _written_out_lists(function: ast.AST) -> frozenset[str]:
    """Local names bound only to lists written out item by item (`messages = [user_message]`) and
    never grown: such a list named like a conversation holds this call's own messages, not the
    conversation so far (`[system, *messages]` sends a one-shot request)."""
    bound: dict[str, bool] = {}  # name -> every binding is a written-out list
    for stmt in nodes_of(function, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for target in targets:
            if isinstance(target, ast.Name):
                literal = not isinstance(stmt, ast.AugAssign) and isinstance(stmt.value, ast.List) \
                    and not any(isinstance(item, ast.Starred) for item in stmt.value.elts)
                bound[target.id] = bound.get(target.id, True) and literal
    for call in nodes_of(function, ast.Call):
        if isinstance(call.func, ast.Attribute) and call.func.attr in ("append", "extend", "insert") \
                and isinstance(call.func.value, ast.Name):
            bound[call.func.value.id] = False
    return frozenset(name for name, literal in bound.items() if literal)


def _concatenated(name: str, value: ast.expr) -> str | None:
    """`name = name + history`."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and isinstance(value.left, ast.Name) \
            and value.left.id == name and _history_like(value.right):
        return ast.unparse(value.right)
    return None


def _appended(call: ast.Call, line: int, placed: list[tuple[int, str, int]],
              growth: list[tuple[str, int, str]], copies: frozenset[str]) -> None:
    """`name.append(message)` / `name.insert(0, message)` place a message; `name.extend(history)`
    copies a conversation after what is already there (`name` may be dotted: `run.messages`)."""
    if not isinstance(call.func, ast.Attribute):
        return
    name, method = _dotted_name(call.func.value), call.func.attr
    if name is None:
        return
    if method == "append" and len(call.args) == 1:
        placed.append((id(call.args[0]), name, line))
    elif method == "insert" and len(call.args) == 2:
        placed.append((id(call.args[1]), name, line))
    elif method == "extend" and len(call.args) == 1 and _history_like(call.args[0], copies):
        growth.append((name, line, ast.unparse(call.args[0])))


def _history_copies(function: ast.AST) -> frozenset[str]:
    """Names bound to a copy of a conversation: `history_copy = [deepcopy(m) for m in history]`,
    `turns = list(messages)`, `recent = history[-10:]`."""
    found = set()
    for stmt in nodes_of(function, ast.Assign):
        if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) and _copies_history(stmt.value):
            found.add(stmt.targets[0].id)
    return frozenset(found)


def _copies_history(value: ast.expr) -> bool:
    if isinstance(value, ast.ListComp):
        return len(value.generators) == 1 and _history_like(value.generators[0].iter)
    if isinstance(value, ast.Subscript):
        return isinstance(value.slice, ast.Slice) and _history_like(value.value)
    if isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords:
        return _last_word(value.func) in ("list", "copy", "deepcopy") and _history_like(value.args[0])
    return False


RETURNS_ATTRIBUTE = "_promptlint_returned_messages"


def returned_messages(function: ast.AST) -> frozenset[int]:
    """The ids of the expressions the function returns, through a conditional expression and a
    name it returns (`message = Message(...)`; `return message if text else None`): a system
    message among them is the caller's to place, so what the caller writes after it follows it."""
    found = function.__dict__.get(RETURNS_ATTRIBUTE)
    if found is None:
        found = frozenset(_returned(function))
        setattr(function, RETURNS_ATTRIBUTE, found)
    return found


def _returned(function: ast.AST) -> set[int]:
    values = [node.value for node in nodes_of(function, ast.Return) if node.value is not None]
    returned_names: set[str] = set()
    found: set[int] = set()
    while values:
        value = values.pop()
        if isinstance(value, ast.IfExp):
            values += [value.body, value.orelse]
        elif isinstance(value, ast.Name):
            returned_names.add(value.id)
        else:
            found.add(id(value))
    for stmt in nodes_of(function, ast.Assign):
        if any(isinstance(target, ast.Name) and target.id in returned_names for target in stmt.targets):
            found.add(id(stmt.value))
    return found


def _copied_by_loop(loop: ast.For | ast.AsyncFor) -> list[tuple[str, int, str]]:
    """`for msg in messages: out.append({"role": msg["role"], ...})`: each message copied with its
    own role (or the item itself, from a list named like a conversation)."""
    if not isinstance(loop.target, ast.Name):
        return []
    item = loop.target.id
    conversation = _history_like(loop.iter)
    copies = []
    for call in nodes_of(loop, ast.Call):
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == "append" and len(call.args) == 1
                and isinstance(call.func.value, ast.Name)):
            continue
        appended = call.args[0]
        own = isinstance(appended, ast.Name) and appended.id == item and conversation
        if own or _keeps_role_of(appended, item):
            copies.append((call.func.value.id, loop.lineno, ast.unparse(loop.iter)))
    return copies


def _keeps_role_of(message: ast.expr, item: str) -> bool:
    """A message whose role is the loop item's own (`msg["role"]`, `msg.role`, `msg.get("role")`)."""
    role = None
    if isinstance(message, ast.Dict):
        role = next((v for k, v in zip(message.keys, message.values)
                     if isinstance(k, ast.Constant) and k.value == "role"), None)
    elif isinstance(message, ast.Call):
        role = next((k.value for k in message.keywords if k.arg == "role"), None)
    if role is None:
        return False
    return any(isinstance(name, ast.Name) and name.id == item for name in ast.walk(role))


def _history_like(value: ast.expr, copies: frozenset[str] = frozenset()) -> bool:
    last = value.attr if isinstance(value, ast.Attribute) else value.id if isinstance(value, ast.Name) else None
    return last is not None and (HISTORY_LIKE.search(last) is not None or last in copies)


HEADS_ATTRIBUTE = "_promptlint_system_heads"
SYSTEM_WORDS = frozenset({"system", "developer"})


class SystemHeads:
    """The lists a function writes system content at the head of, read from its syntax:

        if messages and messages[0][ROLE] == SYSTEM:
            messages[0][CONTENT] += "\\n\\n" + knowledge_prompt
        else:
            messages = [Message(role=SYSTEM, content=knowledge_prompt)] + messages

    The rest of such a list is the conversation that system text heads (a function does not
    prepend a system message to one it will not send), so what the function computes from the
    whole list (knowledge retrieved for it, memories stored in it) changes with every turn.
    ``rewrites``: the ids of the targets that rewrite the first message's text in place
    (``messages[0]["content"] += ...``, ``messages[0].content = ...``), under a test that the
    first message is a system one. ``lists``: the dotted names of the lists headed either way
    (in place, ``[system] + messages``, ``[system, *messages]``, ``messages.insert(0, system)``)."""

    def __init__(self, rewrites: dict[int, str], lists: frozenset[str]) -> None:
        self.rewrites = rewrites
        self.lists = lists


def system_heads(function: ast.AST) -> SystemHeads:
    """Computed once per function and kept on its definition."""
    found = function.__dict__.get(HEADS_ATTRIBUTE)
    if found is None:
        found = _system_heads(function)
        setattr(function, HEADS_ATTRIBUTE, found)
    return found


def _system_heads(function: ast.AST) -> SystemHeads:
    tested: set[str] = set()  # lists whose first message is tested to be a system one
    rewrites: dict[int, str] = {}
    lists: set[str] = set()
    targets: list[tuple[ast.expr, str]] = []
    for node in nodes_of(function, (ast.Compare, ast.Assign, ast.AugAssign, ast.Call, ast.BinOp, ast.List)):
        if isinstance(node, ast.Compare):
            tested.update(_tested_system_head(node))
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                head = _first_message_text(target)
                if head is not None:
                    targets.append((target, head))
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr == "insert" and len(node.args) == 2 \
                    and isinstance(node.args[0], ast.Constant) and node.args[0].value == 0 \
                    and _is_system_message(node.args[1]) and (name := _dotted_name(node.func.value)):
                lists.add(name)
        elif isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Add) and isinstance(node.left, ast.List) and node.left.elts \
                    and _is_system_message(node.left.elts[0]) and (name := _dotted_name(node.right)):
                lists.add(name)
        elif node.elts and _is_system_message(node.elts[0]):
            lists.update(name for item in node.elts[1:] if isinstance(item, ast.Starred)
                         and (name := _dotted_name(item.value)))
    for target, head in targets:
        if head in tested:
            rewrites[id(target)] = head
            lists.add(head)
    return SystemHeads(rewrites, frozenset(lists))


def _first_message_text(target: ast.expr) -> str | None:
    """``X`` for ``X[0]["content"]`` / ``X[0][CONTENT]`` / ``X[0].content``: the text of a list's
    first message."""
    inner = target.value if isinstance(target, (ast.Subscript, ast.Attribute)) else None
    return _head_of(inner) if inner is not None else None


def _head_of(node: ast.expr) -> str | None:
    """``X`` for ``X[0]``."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == 0:
        return _dotted_name(node.value)
    return None


def _tested_system_head(test: ast.Compare) -> list[str]:
    """``X`` for ``X[0]["role"] == "system"``, ``X[0][ROLE] == SYSTEM``, ``X[0].role == Role.SYSTEM``,
    ``X[0].get("role") == "system"``."""
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return []
    sides = (test.left, test.comparators[0])
    if not any(_names_system(side) for side in sides):
        return []
    return [head for side in sides if (head := _role_holder(side)) is not None]


def _role_holder(node: ast.expr) -> str | None:
    """``X`` when ``node`` reads the role of ``X[0]``: ``X[0]["role"]``, ``X[0][ROLE]``,
    ``X[0].role``, ``X[0].get("role")``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and node.args and _names_role(node.args[0]):
        return _head_of(node.func.value)
    if isinstance(node, ast.Attribute) and node.attr == "role":
        return _head_of(node.value)
    if isinstance(node, ast.Subscript) and _names_role(node.slice):
        return _head_of(node.value)
    return None


def _names_role(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == "role" or _last_word(node) == "ROLE"


def _names_system(node: ast.expr) -> bool:
    """A system role written out: ``"system"``, a constant named ``SYSTEM``, ``Role.SYSTEM``."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in SYSTEM_WORDS
    word = _last_word(node)
    return word is not None and word.lower() in SYSTEM_WORDS


def _is_system_message(node: ast.expr) -> bool:
    """A system message written out: ``{"role": "system", ...}``, ``Message(role=SYSTEM, ...)``,
    ``Message(SYSTEM, text)``, ``SystemMessage(...)``."""
    if isinstance(node, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value == "role" and _names_system(v)
                   for k, v in zip(node.keys, node.values))
    if not isinstance(node, ast.Call):
        return False
    role = next((k.value for k in node.keywords if k.arg == "role"), node.args[0] if node.args else None)
    return role is not None and _names_system(role) or (_last_word(node.func) or "").startswith("SystemMessage")


def _last_word(node: ast.expr) -> str | None:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None


def _dotted_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted_name(node.value)
        return f"{base}.{node.attr}" if base else None
    return None
