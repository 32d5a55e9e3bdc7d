"""String building and templates: str methods, ``.format``/``%``, ``string.Template``, Jinja2,
YAML/JSON/TOML/text prompt files, LangChain prompt templates.

Templates are never rendered: Jinja2 sources are parsed with Jinja2's own parser and their output
nodes interpreted over abstract values, so no template code (and no analyzed code) ever runs.
"""

from __future__ import annotations

import ast
import json
import re
import string
from bisect import bisect_left, bisect_right
from dataclasses import replace
from functools import lru_cache
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any

from promptlint.analysis import regex_sub
from promptlint.analysis.values import (
    MAX_UNROLL,
    NONE,
    Mapping,
    NoneVal,
    Number,
    Obj,
    PathVal,
    Seq,
    Splice,
    TemplateVal,
    Text,
    Unknown,
    Value,
    add_step,
    as_text,
    concat,
    drop_order,
    lit,
    literal_text,
    map_holes,
    is_structured,
    most_volatile,
    render_json,
    spread_of,
    unknown,
    volatile_item,
)
from promptlint.analysis.summaries import TEMPLATE_RENDERERS
from promptlint.model import Hole, Literal, Location, Origin, Step, Volatility

if TYPE_CHECKING:
    from promptlint.analysis.evaluator import Evaluator, Frame

MAX_TEMPLATE_BYTES = 2_000_000
MAX_YAML_NODES = 100_000
ROLE_NAMES = {"human": "user", "ai": "assistant", "system": "system", "user": "user",
              "assistant": "assistant", "placeholder": "placeholder", "developer": "system",
              "model": "assistant", "tool": "tool"}


# --- locating text inside files --------------------------------------------------------------


def sub_location(piece: Literal, offset: int, length: int = 0) -> Location | None:
    """Location of ``piece.text[offset:]``, counting lines inside the piece."""
    if piece.location is None:
        return None
    newlines = _newline_offsets(piece.text)
    before = bisect_left(newlines, offset)  # the newlines before the offset
    line = piece.location.line + before
    column = offset - newlines[before - 1] if before else piece.location.column + offset
    return Location(piece.location.path, line, column, line, column + max(length, 1))


@lru_cache(maxsize=64)
def _jinja_tree(text: str) -> Any:
    """A template's syntax tree, parsed once per text (a partial is included by many templates,
    each rendered for every entry that reads it); raises jinja2's TemplateSyntaxError."""
    from jinja2 import Environment

    return Environment().parse(text)


@lru_cache(maxsize=32)
def _newline_offsets(text: str) -> list[int]:
    """Where a text's newlines are: one pass per text, however many places in it are located
    (a JSON file of thousands of strings, a template of many placeholders)."""
    return [match.start() for match in re.finditer("\n", text)]


def read_prompt_file(ev: "Evaluator", path_value: Value, frame: "Frame") -> tuple[str, Path] | None:
    """Read a prompt file the code loads, resolved like the app would from common roots."""
    path = path_value.path if isinstance(path_value, PathVal) else None
    if path is None:
        text = literal_text(path_value)
        path = Path(text) if text else None
    if path is None:
        return None
    candidates = [path] if path.is_absolute() else [
        frame.module.path.parent / path, ev.project.root / path, ev.project.cwd / path]
    for candidate in candidates:
        text = ev.project.read_text_file(candidate, MAX_TEMPLATE_BYTES)
        if text is not None:
            return text, candidate
    return None


def file_text(ev: "Evaluator", path_value: Value, frame: "Frame", node: ast.AST | None) -> Value:
    return _read_text(ev, read_prompt_file(ev, path_value, frame), frame, node)


def _read_text(ev: "Evaluator", found: tuple[str, Path] | None, frame: "Frame", node: ast.AST | None) -> Value:
    if found is None:
        return unknown("file contents", frame.module.location(node) if node else None, Volatility.STABLE)
    text, path = found
    display = ev.project.display(path)
    return Text((Literal(text, Location(display, 1, 1, 1, 1)),))


# Prompt files shipped inside a package, found by the package's dotted name: `files("pkg.prompts")`
# is the folder (a Traversable), the older calls take the package and the file's name.
PACKAGE_FOLDERS = frozenset({"importlib.resources.files", "importlib_resources.files"})
SAME_FILE_PATHS = frozenset({"os.path.abspath", "os.path.realpath", "os.path.normpath", "os.path.expanduser",
                             "os.path.expandvars"})
PACKAGE_FILES = frozenset({"importlib.resources.read_text", "importlib_resources.read_text",
                           "importlib.resources.open_text", "importlib_resources.open_text",
                           "pkgutil.get_data", "pkg_resources.resource_string", "pkg_resources.resource_stream",
                           "pkg_resources.resource_filename"})
OPENED = ("open_text", "resource_stream")  # of those, the calls that give an open file, not its text


def package_folder(ev: "Evaluator", args: list[Value], frame: "Frame", node: ast.Call | None) -> Path | None:
    """The project folder of the package a resource call names: a literal dotted name, or the
    calling module's own (`__package__`, `__name__`, or no name: `files()` since Python 3.12).
    A data-only folder (no `__init__.py`) is found under its nearest project package."""
    written = node.args[0] if node is not None and node.args else None
    if written is None and not args or isinstance(written, ast.Name) and written.id in ("__package__", "__name__"):
        return frame.module.path.parent  # a package's folder, or the one its module sits in
    name = literal_text(args[0]) if args else None
    if not name:
        return None
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        path = ev.project.by_name.get(".".join(parts[:cut]))
        if path is not None:
            return path.parent.joinpath(*parts[cut:])
    return None


def load_structured(ev: "Evaluator", source: Value, kind: str, frame: "Frame", node: ast.AST | None) -> Value:
    """yaml.safe_load / json.load(s) / tomllib.load(s) of a prompt file, with line numbers."""
    if isinstance(source, Obj) and source.type == "file":
        source = file_text(ev, source.field("path") or NONE, frame, node)
    if not isinstance(source, Text) or not source.segs or literal_text(source) is None:
        return unknown("loaded data", frame.module.location(node) if node else None, Volatility.STABLE)
    piece = source.segs[0]
    assert isinstance(piece, Literal)
    try:
        if kind == "yaml":
            return _yaml_value(piece)
        if kind == "json":
            return _plain_value(json.loads(piece.text), piece)
        import tomllib

        return _plain_value(tomllib.loads(piece.text), piece)
    except Exception as exc:  # noqa: BLE001 - any parse failure of user data is reported, not raised
        path = piece.location.path if piece.location else "prompt file"
        if not path.endswith(".py"):  # a prompt file that does not parse; a string in code is just unknown
            ev.project.errors.setdefault(path, _file_error(path, f"cannot parse {kind}: {_first_line(exc)}"))
        return unknown("loaded data", frame.module.location(node) if node else None, Volatility.STABLE)


# Settings objects merged from files (Dynaconf): prompts kept as TOML tables, read back as
# `settings.review_prompt.system` or `settings.get("review_prompt")` (pr-agent, qodo-cover).
SETTINGS_LOADERS = frozenset({"dynaconf.Dynaconf", "dynaconf.LazySettings"})
LOADED_KINDS = {".toml": "toml", ".yaml": "yaml", ".yml": "yaml", ".json": "json"}


def settings_from_files(ev: "Evaluator", files: Value | None, merge: Value | None, frame: "Frame",
                        node: ast.AST | None) -> Value:
    """The settings a loader merges from its files, in order: a later file's table replaces an
    earlier one of the same name, or is merged into it key by key with `merge_enabled=True`. A
    file whose name is not known, or that does not parse, leaves the settings unknown; one that is
    not there is skipped, as the loader does (`.secrets.toml`)."""
    where = frame.module.location(node) if node else None
    listed = files.items if isinstance(files, Seq) else (files,) if files is not None else ()
    merged = Mapping(())
    for item in listed:
        path = item.path if isinstance(item, PathVal) else Path(text) if (text := literal_text(item)) else None
        kind = LOADED_KINDS.get(path.suffix) if path is not None else None
        if kind is None:
            return unknown("settings", where, Volatility.STABLE)
        found = read_prompt_file(ev, item, frame)
        if found is None:
            continue
        loaded = load_structured(ev, _read_text(ev, found, frame, node), kind, frame, node)
        if not isinstance(loaded, Mapping):
            return unknown("settings", where, Volatility.STABLE)
        merged = _merged(merged, loaded) if literal_text(merge or NONE) == "True" else \
            Mapping((*merged.entries, *loaded.entries))
    return merged if merged.entries else unknown("settings", where, Volatility.STABLE)


def _merged(base: Mapping, update: Mapping) -> Mapping:
    """``update`` merged into ``base`` key by key, tables within tables too (Dynaconf's merge)."""
    entries = list(base.entries)
    for key, value in update.entries:
        earlier = base.get(key) if key is not None else None
        entries.append((key, _merged(earlier, value) if isinstance(earlier, Mapping) and isinstance(value, Mapping)
                        else value))
    return Mapping(tuple(entries))


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _file_error(path: str, message: str) -> Any:
    from promptlint.model import FileError

    return FileError(path, message)


@lru_cache(maxsize=16)
def _yaml_value(piece: Literal) -> Value:
    """Composed once per file text and place (the values made are immutable), with libyaml where
    PyYAML has it: aider's 86 KB model settings, read at import by every entry that imports the
    module, took half a second per entry with the pure-Python composer."""
    import yaml

    node = yaml.compose(piece.text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if node is None:
        return NONE
    return _yaml_node(node, piece, 0, [MAX_YAML_NODES])


def _yaml_node(node: Any, piece: Literal, depth: int, budget: list[int]) -> Value:
    import yaml

    if depth > 50:
        raise ValueError("YAML nested too deeply")
    budget[0] -= 1  # aliases share composed nodes; expanding them must not explode (billion laughs)
    if budget[0] < 0:
        raise ValueError(f"YAML document too large: more than {MAX_YAML_NODES} nodes once aliases are expanded")
    path = piece.location.path if piece.location else "<yaml>"
    if isinstance(node, yaml.ScalarNode):
        if node.style in ("|", ">"):
            return _block_scalar(node, piece, path)
        return Text((Literal(str(node.value), Location(path, node.start_mark.line + 1, node.start_mark.column + 1,
                                                        node.end_mark.line + 1, node.end_mark.column + 1)),))
    if isinstance(node, yaml.SequenceNode):
        return Seq(tuple(_yaml_node(child, piece, depth + 1, budget) for child in node.value))
    if isinstance(node, yaml.MappingNode):
        entries = tuple((str(key.value), _yaml_node(value, piece, depth + 1, budget))
                        for key, value in node.value)
        return Mapping(entries)
    return NONE


def _block_scalar(node: Any, piece: Literal, path: str) -> Text:
    """A ``|`` or ``>`` block scalar as one literal per source line, each at the column where that
    line's text starts: the value drops the block's indentation (and ``>`` folds lines), so offsets
    in the value are not columns in the file. The indicator's mark only gives the line before."""
    value = str(node.value)
    lines = piece.text.splitlines()
    starts: list[tuple[int, Location]] = []  # (offset in value, where that text sits in the file)
    position = 0
    last = node.end_mark.line + (1 if node.end_mark.column else 0)  # the end mark may open the next key's line
    for index in range(node.start_mark.line + 1, min(last, len(lines))):
        content = lines[index].lstrip(" ")
        found = value.find(content.rstrip(), position) if content.strip() else -1
        if found < 0:
            continue  # a blank line, or a line the value no longer holds as written
        column = len(lines[index]) - len(content) + 1
        starts.append((found, Location(path, index + 1, column, index + 1, column + len(content.rstrip()))))
        position = found + len(content.rstrip())
    first_line = node.start_mark.line + 2  # the block's text starts on the line after the indicator
    head = starts[0][0] if starts else len(value)  # blank lines a `|` block keeps before its text
    pieces = [Literal(value[:head], Location(path, first_line, 1, first_line, 1))] if head else []
    bounds = [*(offset for offset, _ in starts), len(value)]
    pieces += [Literal(value[bounds[i]:bounds[i + 1]], where) for i, (_, where) in enumerate(starts)]
    return Text(tuple(pieces))


# The start of a string value as a JSON or TOML file writes it: no quote, backslash, control or
# non-ASCII character (any of those may be escaped in the file).
_RAW_START = re.compile(r'[^"\\\x00-\x1f\x7f-\U0010ffff]{0,40}')


def _plain_value(data: Any, piece: Literal, depth: int = 0, cursor: list[int] | None = None) -> Value:
    """Loaded data as values; each string placed where the file writes it, searched for after the
    previous one (the parsers keep the file's order), so a large file is read once."""
    cursor = [0] if cursor is None else cursor
    if depth > 50:
        return NONE
    if isinstance(data, dict):
        return Mapping(tuple((str(k), _plain_value(v, piece, depth + 1, cursor)) for k, v in data.items()))
    if isinstance(data, list):
        return Seq(tuple(_plain_value(v, piece, depth + 1, cursor) for v in data))
    if data is None:
        return NONE
    text = str(data)
    start = _RAW_START.match(text).group() if isinstance(data, str) else ""
    offset = piece.text.find(start, cursor[0]) if start and (len(start) >= 8 or start == text) else -1
    if offset >= 0:
        cursor[0] = offset + len(start)
    where = sub_location(piece, offset) if offset >= 0 else piece.location
    return Text((Literal(text, where),))


# --- filling placeholders --------------------------------------------------------------------


FILLS_SLOT = "fills template slot"  # the step a value takes into a template's placeholder


def slot_value(value: Value, placeholder: Location | None, name: str) -> tuple:
    """A value placed in a template slot: its volatile holes now sit at the slot (the finding points
    there) and remember the code that filled it; the others keep their place and note the slot as
    a step (PC010 points at the slot of the request's content)."""

    def move(hole: Hole) -> Hole:
        if placeholder is None or hole.location == placeholder:
            return hole
        if not hole.volatility.is_volatile:
            return replace(hole, path=(*hole.path, Step(placeholder, f"{FILLS_SLOT} `{name}`")))
        steps = hole.path
        if hole.location is not None:
            steps = (*steps, Step(hole.location, f"{FILLS_SLOT} `{name}`"))
        return replace(hole, location=placeholder, path=steps)

    moved = map_holes(value, move)
    return as_text(moved, placeholder, name)


def format_text(template: Text, args: list[Value], kwargs: dict[str, Value], style: str) -> Text:
    """str.format / format_map (style 'format') and string.Template (style 'dollar')."""
    pieces: list[tuple] = []
    auto_index = 0
    for seg in template.segs:
        if not isinstance(seg, Literal):
            pieces.append((seg,))
            continue
        for literal, name, offset in _split_placeholders(seg.text, style):
            if literal:
                start = offset - len(literal) if name is not None else offset
                pieces.append((Literal(literal, sub_location(seg, start)),))
            if name is None:
                continue
            key = name.split(".")[0].split("[")[0]
            if key == "" and style == "format":
                key, auto_index = str(auto_index), auto_index + 1
            value = kwargs.get(key)
            if value is None and key.isdigit() and int(key) < len(args):
                value = args[int(key)]
            where = sub_location(seg, offset, len(name) + 2)
            if value is None:
                pieces.append((Hole(Volatility.UNKNOWN, "{" + name + "}", where),))
            else:
                pieces.append(slot_value(value, where, name or "{}"))  # `{}`: a positional slot
    return concat(*pieces)


def _split_placeholders(text: str, style: str) -> list[tuple[str, str | None, int]]:
    """(literal before, placeholder name or None, offset of the placeholder) triples."""
    out: list[tuple[str, str | None, int]] = []
    if style == "dollar":
        pattern = string.Template.pattern
        last = 0
        for match in pattern.finditer(text):
            name = match.group("named") or match.group("braced")
            literal = text[last:match.start()] + ("$" if match.group("escaped") is not None else "")
            out.append((literal, name, match.start()))
            last = match.end()
        out.append((text[last:], None, last))
        return out
    position = 0
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return [(text, None, 0)]
    for literal, field, _spec, _conv in parsed:
        position += len(literal.replace("{", "{{").replace("}", "}}"))
        out.append((literal, field, position))
        if field is not None:
            position = text.find("}", position) + 1 if text.find("}", position) >= 0 else len(text)
    return out


def percent_format(template: Text, right: Value, ev: "Evaluator", frame: "Frame", node: ast.AST) -> Value:
    values = list(right.items) if isinstance(right, Seq) else [right]
    mapping = right if isinstance(right, Mapping) else None
    pieces: list[tuple] = []
    index = 0
    for seg in template.segs:
        if not isinstance(seg, Literal):
            pieces.append((seg,))
            continue
        text, last = seg.text, 0
        import re

        for match in re.finditer(r"%(\((\w+)\))?[#0\- +]*\d*(\.\d+)?[sdrfigeExXoc%]", text):
            pieces.append((Literal(text[last:match.start()], sub_location(seg, last)),))
            last = match.end()
            if match.group(0) == "%%":
                pieces.append((Literal("%", None),))
                continue
            where = sub_location(seg, match.start(), len(match.group(0)))
            if mapping is not None and match.group(2):
                value = mapping.get(match.group(2)) or Unknown(Hole(Volatility.UNKNOWN, match.group(0), where))
            elif index < len(values):
                value, index = values[index], index + 1
            else:
                value = Unknown(Hole(Volatility.UNKNOWN, match.group(0), where))
            pieces.append(slot_value(value, where, match.group(0)))
        pieces.append((Literal(text[last:], sub_location(seg, last)),))
    return concat(*pieces)


def join(separator: Text, items: Value, frame: "Frame", ev: "Evaluator", node: ast.AST) -> Value:
    where = frame.module.location(node)
    if not isinstance(items, Seq):
        hole = most_volatile(items)
        if hole is not None:
            return Unknown(replace(hole, location=hole.location or where))
        return unknown(frame.module.snippet(node), where)
    pieces: list[tuple] = []
    if items.order is not None:
        pieces.append((replace(items.order, location=items.order.location or where),))
    for index, item in enumerate(items.items):
        if index:
            pieces.append(separator.segs)
        if isinstance(item, Splice):
            pieces.append((item.hole,))
        else:
            pieces.append(ev.text_of(item, where, "item"))
    return concat(*pieces)


# --- Jinja2 ----------------------------------------------------------------------------------


class _JinjaSlots:
    """Where each ``{{ ... }}`` of a Jinja2 source sits. jinja2's nodes carry only a line, so an
    expression found on a line takes that line's next ``{{ ... }}`` in source order (the order the
    interpreter visits them); one that opens on another line keeps column 1. A source joined from
    the pieces of a Python string (`\\` continuations drop line breaks) is placed piece by piece."""

    def __init__(self, source: str, origin: Location | tuple[Literal, ...] | None) -> None:
        pieces = origin if isinstance(origin, tuple) else None
        origin = pieces[0].location if pieces else origin  # type: ignore[assignment]
        self.path = origin.path if origin else "<template>"
        self.line_offset = (origin.line - 1) if origin else 0
        # Columns of the first line count from where the template text starts (an inline string).
        self.pieces = pieces or (Literal(source, origin or Location(self.path, 1, 1, 1, 1)),)
        self.starts = list(accumulate((len(p.text) for p in self.pieces[:-1]), initial=0))
        self.lines = [0] + [m.end() for m in re.finditer("\n", source)] if pieces else []
        self.pending: dict[int, list[tuple[int, int]]] = {}
        for match in _JINJA_TAGS.finditer(source):
            # Comments ({# ... #}) hold no expressions; one spread over lines keeps column 1.
            if match.group().startswith("{{") and "\n" not in match.group():
                line = source.count("\n", 0, match.start()) + 1
                self.pending.setdefault(line, []).append((match.start(), len(match.group())))

    def at(self, offset: int, length: int = 0) -> Location | None:
        index = bisect_right(self.starts, offset) - 1
        return sub_location(self.pieces[index], offset - self.starts[index], length)

    def line_start(self, node: Any) -> Location:
        lineno = getattr(node, "lineno", 1) or 1
        if self.lines and lineno <= len(self.lines) and (place := self.at(self.lines[lineno - 1])) is not None:
            return Location(self.path, place.line, 1, place.line, 1)
        line = lineno + self.line_offset
        return Location(self.path, line, 1, line, 1)

    def expression(self, node: Any) -> Location:
        """The ``{{ ... }}`` that outputs ``node``, braces included."""
        waiting = self.pending.get(getattr(node, "lineno", 1) or 1)
        if not waiting:
            return self.line_start(node)
        offset, length = waiting.pop(0)
        return self.at(offset, length) or self.line_start(node)


_JINJA_TAGS = re.compile(r"\{#.*?#\}|\{\{.*?\}\}", re.S)


def jinja_render(ev: "Evaluator", source: str, origin: Location | tuple[Literal, ...] | None,
                 kwargs: dict[str, Value], node: ast.AST | None) -> Value:
    """Interpret a Jinja2 template's output over abstract values (never rendered). ``origin``: where
    the source starts, or the pieces of a Python string it was joined from."""
    from jinja2 import TemplateSyntaxError, nodes

    slots = _JinjaSlots(source, origin)
    path = slots.path
    try:
        tree = _jinja_tree(source)
    except TemplateSyntaxError as exc:
        ev.project.errors.setdefault(path, _file_error(path, f"Jinja2 syntax error (line {exc.lineno}): {exc.message}"))
        return unknown("template", slots.pieces[0].location, Volatility.STABLE)
    out: list[Any] = []
    scope = dict(kwargs)
    _jinja_nodes(ev, tree.body, scope, out, slots, nodes)
    return concat(tuple(out))


def _jinja_nodes(ev: "Evaluator", body: list[Any], scope: dict[str, Value], out: list[Any],
                 slots: _JinjaSlots, nodes: Any, depth: int = 0) -> None:
    if depth > 30:
        return
    for item in body:
        ev.tick()
        where = slots.line_start(item)
        if isinstance(item, nodes.Output):
            for child in item.nodes:
                if isinstance(child, nodes.TemplateData):
                    out.append(Literal(child.data, slots.line_start(child)))
                else:
                    child_where = slots.expression(child)
                    value = _conversation_written(ev, child, _jinja_expr(ev, child, scope, child_where, nodes),
                                                  child_where, nodes)
                    out.extend(slot_value(value, child_where, _jinja_name(child)))
        elif isinstance(item, nodes.If):
            _jinja_nodes(ev, item.body, scope, out, slots, nodes, depth + 1)
            for elif_node in item.elif_:
                _jinja_nodes(ev, elif_node.body, scope, out, slots, nodes, depth + 1)
            _jinja_nodes(ev, item.else_, scope, out, slots, nodes, depth + 1)
        elif isinstance(item, nodes.For):
            iterable = _jinja_expr(ev, item.iter, scope, where, nodes)
            inner = dict(scope)
            target = getattr(item.target, "name", None)
            if isinstance(iterable, Seq) and iterable.order is not None:
                out.append(replace(iterable.order, location=where))
            if target:
                inner[target] = _loop_item(ev, item.iter, iterable, target, where, nodes)
            _jinja_nodes(ev, item.body, inner, out, slots, nodes, depth + 1)
        elif isinstance(item, nodes.Include) and isinstance(item.template, nodes.Const) \
                and isinstance(item.template.value, str):
            _jinja_include(ev, item.template.value, scope, out, slots, depth)
        elif isinstance(item, nodes.Assign) and isinstance(item.target, nodes.Name):
            scope[item.target.name] = _jinja_expr(ev, item.node, scope, where, nodes)
        elif hasattr(item, "body") and isinstance(item.body, list):
            _jinja_nodes(ev, item.body, scope, out, slots, nodes, depth + 1)


def _loop_item(ev: "Evaluator", iter_node: Any, iterable: Value, target: str, where: Location, nodes: Any) -> Value:
    """The item of a `{% for message in conversation %}` loop. Over a value named like the whole
    conversation so far (rules/prompt_sinks.yaml conversation_inputs) that the analysis does not
    know, the loop writes out the transcript, which grows with every turn: its text is tagged
    as the conversation's, like a Python method's reading of it (`tag_conversation_read`)."""
    item = unknown(target, where)
    named = getattr(iter_node, "name", "")
    return _as_conversation(ev, iter_node, iterable, item, where, f"{{% for {target} in {named} %}}", nodes)


def _conversation_written(ev: "Evaluator", node: Any, value: Value, where: Location, nodes: Any) -> Value:
    """`{{ chat_history }}`: the whole conversation so far written out, tagged as the loop's is."""
    if not isinstance(value, Unknown):
        return value
    return _as_conversation(ev, node, value, value, where, "{{ " + getattr(node, "name", "") + " }}", nodes)


def _as_conversation(ev: "Evaluator", node: Any, value: Value, written: Unknown, where: Location, expression: str,
                     nodes: Any) -> Unknown:
    """``written`` tagged as the conversation's when ``node`` names it and its ``value`` is unknown."""
    from promptlint.analysis.derived import tag_conversation_read  # derived.py imports this module

    if isinstance(node, nodes.Name) and node.name in ev.knowledge.conversation_inputs \
            and isinstance(value, Unknown) and value.hole.volatility is Volatility.UNKNOWN:
        return Unknown(tag_conversation_read(written.hole, {node.name}, where, expression))
    return written


def _jinja_include(ev: "Evaluator", name: str, scope: dict[str, Value], out: list[Any], slots: _JinjaSlots,
                   depth: int) -> None:
    """`{% include "partials/x.prompt" %}`: the included file rendered in place with the same
    context, looked up from the folders above the including template (a loader folder holds both)."""
    from jinja2 import TemplateSyntaxError, nodes

    if slots.path == "<template>":
        return
    here = (ev.project.cwd / slots.path).resolve().parent
    for folder in (here, *here.parents):
        if folder != ev.project.root and ev.project.root not in folder.parents:
            break
        text = ev.project.read_text_file(folder / name, MAX_TEMPLATE_BYTES)
        if text is None:
            continue
        path = (folder / name).resolve()
        including = ev.jinja_including
        if path in including:
            return  # a template that includes itself, directly or not: rendered once
        try:
            tree = _jinja_tree(text)
        except TemplateSyntaxError:
            return
        inner = _JinjaSlots(text, Location(ev.project.display(folder / name), 1, 1, 1, 1))
        including.add(path)
        try:
            _jinja_nodes(ev, tree.body, scope, out, inner, nodes, depth + 1)
        finally:
            including.discard(path)
        return


def _jinja_name(node: Any) -> str:
    name = getattr(node, "name", None) or getattr(getattr(node, "node", None), "name", None)
    return "{{ " + (name or "…") + " }}"


def _jinja_path(base: Value, key: object) -> str:
    """The name of an unknown attribute or item, with the unknown value it is read from
    (`state.branch.project.name`, not `name`): a finding says which value it means."""
    if not isinstance(base, Unknown) or base.hole.expression in ("", "call", "expression"):
        return str(key)
    return base.hole.expression + (f".{key}" if isinstance(key, str) and key.isidentifier() else f"[{key!r}]")


def _jinja_expr(ev: "Evaluator", node: Any, scope: dict[str, Value], where: Location, nodes: Any) -> Value:
    if isinstance(node, nodes.Const):
        return lit(str(node.value), where)
    if isinstance(node, nodes.Name):
        return scope.get(node.name, Unknown(Hole(Volatility.UNKNOWN, node.name, where)))
    if isinstance(node, nodes.Getattr) or isinstance(node, nodes.Getitem):
        base = _jinja_expr(ev, node.node, scope, where, nodes)
        key = node.attr if isinstance(node, nodes.Getattr) else getattr(node.arg, "value", None)
        if isinstance(base, Mapping) and isinstance(key, str):
            return base.get(key) or unknown(str(key), where)
        if isinstance(base, Obj) and isinstance(key, str):
            return base.field(key) or unknown(str(key), where)
        if isinstance(base, Unknown) and base.hole.volatility.is_volatile:
            return base
        return unknown(_jinja_path(base, key), where)
    if isinstance(node, nodes.Filter):
        inner = _jinja_expr(ev, node.node, scope, where, nodes) if node.node is not None else NONE
        if node.name in ("sort", "dictsort"):
            return drop_order(inner)
        return inner
    if isinstance(node, nodes.Call):
        callee = getattr(node.node, "name", None) or getattr(node.node, "attr", None)
        if callee in ("strftime_now", "now", "utcnow", "today"):
            fmt = node.args[0].value if node.args and isinstance(node.args[0], nodes.Const) else ""
            from promptlint.analysis.evaluator import TIME_DIRECTIVES

            volatility = Volatility.PER_REQUEST if (not fmt or any(d in fmt for d in TIME_DIRECTIVES)) \
                else Volatility.PER_DAY
            origin = Origin(where, f"{callee}()", "clock" if volatility is Volatility.PER_REQUEST else "date",
                            volatility)
            return Unknown(Hole(volatility, f"{callee}()", None, origin=origin))
        base = _jinja_expr(ev, node.node, scope, where, nodes)
        return base if isinstance(base, Unknown) and base.hole.volatility.is_volatile else unknown("call", where)
    if isinstance(node, nodes.Concat) or isinstance(node, nodes.Add):
        children = node.nodes if isinstance(node, nodes.Concat) else [node.left, node.right]
        return concat(*(as_text(_jinja_expr(ev, c, scope, where, nodes), where) for c in children))
    if isinstance(node, nodes.CondExpr):
        return _jinja_expr(ev, node.expr1, scope, where, nodes)
    return unknown("expression", where)


# --- dispatch from the evaluator -------------------------------------------------------------


def render(ev: "Evaluator", template: TemplateVal, kwargs: dict[str, Value], node: ast.AST | None) -> Value:
    values = {name: _call_if_callable(ev, value) for name, value in {**dict(template.filled), **kwargs}.items()}
    if template.kind == "jinja":
        source, origin = template.body
        return jinja_render(ev, source, origin, values, node)
    if template.kind == "dollar":
        return format_text(template.body, [], values, "dollar")
    if template.kind == "langchain":
        return langchain_messages(template.body, values)
    return format_text(template.body, [], values, "format")


def _call_if_callable(ev: "Evaluator", value: Value) -> Value:
    """LangChain calls a function given to ``partial`` at every format: per call, not once."""
    from promptlint.analysis.evaluator import Frame
    from promptlint.analysis.values import FuncVal

    if isinstance(value, FuncVal):
        return ev.call_function(value, [], {}, Frame(value.module, depth=1), None)
    return value


def langchain_messages(messages: Seq, values: dict[str, Value]) -> Seq:
    items: list[Value] = []
    for message in messages.items:
        if isinstance(message, Mapping) and message.get("role") is not None:
            role = literal_text(message.get("role") or NONE) or "user"
            content = message.get("content") or NONE
            if role == "placeholder":
                name = (literal_text(content) or "history").strip("{}")
                found = values.get(name)
                items.append(Splice(found.hole if isinstance(found, Unknown) else
                                    Hole(Volatility.UNKNOWN, name, None, is_history=True)))
                continue
            if isinstance(content, Text):
                content = format_text(content, [], values, "format")
            items.append(Mapping((("role", lit(role)), ("content", content))))
        else:
            items.append(message)
    return Seq(tuple(items), messages.order)


# A chat template's message classes: LangChain's `SystemMessagePromptTemplate`, DB-GPT's
# `SystemPromptTemplate` / `HumanPromptTemplate` / `AIPromptTemplate`.
ROLE_TEMPLATES = ("MessagePromptTemplate", "SystemPromptTemplate", "HumanPromptTemplate", "AIPromptTemplate")


def judge_chat_template(ev: "Evaluator", template: TemplateVal, frame: "Frame", node: ast.Call) -> None:
    """A chat template knows its own order (system, the history placeholder, the user's turn), so
    it is judged where it is built, before any framework fills it: a variable that fills the final
    user message is the request's own input, and the same variable earlier in the template (the
    question repeated in the system text) changes with every request, ahead of the history."""
    messages = template.body if isinstance(template.body, Seq) else None
    if messages is None or not messages.items or not isinstance(last := messages.items[-1], Mapping) \
            or literal_text(last.get("role") or NONE) != "user" or not isinstance(last.get("content"), Text):
        return
    inputs = sorted({name.split(".")[0].split("[")[0] for seg in last.get("content").segs
                     if isinstance(seg, Literal) for _, name, _ in _split_placeholders(seg.text, "format") if name})
    if not inputs:
        return
    where = frame.module.location(node)
    values: dict[str, Value] = {}
    for name in inputs:
        origin = Origin(where, name, "request-derived", Volatility.PER_REQUEST)
        values[name] = Unknown(Hole(Volatility.PER_REQUEST, "{" + name + "}", None, origin=origin,
                                    assumption=f"`{name}` fills the template's final user message, so it is "
                                               "the request's own input"))
    ev.message_list(frame, node, "chat template built here", langchain_messages(messages, values))


def langchain_template(messages: Value) -> TemplateVal:
    items: list[Value] = []
    if isinstance(messages, Seq):
        for message in messages.items:
            items.append(_langchain_message(message))
    return TemplateVal("langchain", Seq(tuple(items), messages.order if isinstance(messages, Seq) else None))


def _langchain_message(message: Value) -> Value:
    if isinstance(message, Seq) and len(message.items) == 2:
        role = ROLE_NAMES.get((literal_text(message.items[0]) or "user").lower(), "user")
        content = message.items[1]
        if isinstance(content, TemplateVal) and content.kind == "format":
            content = content.body
        return Mapping((("role", lit(role)), ("content", content)))
    if isinstance(message, Obj):
        kind = message.type.rsplit(".", 1)[-1]
        if kind == "MessagesPlaceholder":
            name = literal_text(message.field("variable_name") or (message.args[0] if message.args else NONE))
            return Mapping((("role", lit("placeholder")), ("content", lit(name or "history"))))
        role = message_role(message)
        if role:
            content = message.field("content") or (message.args[0] if message.args else NONE)
            if isinstance(content, TemplateVal):
                content = content.body
            return Mapping((("role", lit(role)), ("content", content)))
    return message


def message_role(message: Obj) -> str | None:
    kind = message.type.rsplit(".", 1)[-1]
    for prefix, role in (("System", "system"), ("Human", "user"), ("AI", "assistant"),
                         ("Tool", "tool"), ("Chat", "user"), ("User", "user"), ("Assistant", "assistant")):
        if kind.startswith(prefix) and ("Message" in kind or kind.endswith("Template")):
            return role
    return None


def call_method(ev: "Evaluator", receiver: Value, name: str, args: list[Value], kwargs: dict[str, Value],
                frame: "Frame", node: ast.Call) -> Value:
    """Methods of plain values: str, list, dict, set, paths, templates, volatile values."""
    target = node.func.value if isinstance(node.func, ast.Attribute) else None
    where = frame.module.location(node)
    if name == "insert" and len(args) >= 2 and target is not None:
        ev.inserted_message(frame, node, target, receiver, args[1])
    if name in ("append", "extend") and args and target is not None and not (
            isinstance(receiver, Unknown) and receiver.hole.volatility.is_volatile):
        slot = ev.grouped_slot(target, frame)
        if slot is not None and isinstance(receiver, (Seq, Unknown, NoneVal)):
            return list_method(ev, receiver if isinstance(receiver, Seq) else Seq(()), name, args, slot, frame, node)
    if isinstance(receiver, TemplateVal):
        return template_method(ev, receiver, name, args, kwargs, frame, node)
    if isinstance(receiver, Text):
        return text_method(ev, receiver, name, args, kwargs, frame, node)
    if isinstance(receiver, Seq):
        return list_method(ev, receiver, name, args, target, frame, node)
    if isinstance(receiver, Mapping):
        return dict_method(ev, receiver, name, args, target, frame, node)
    if isinstance(receiver, PathVal):
        if name in ("read_text", "read_bytes"):
            return file_text(ev, receiver, frame, node)
        if name == "open":
            return Obj("file", (("path", receiver),))
        if name == "joinpath" and receiver.path is not None:
            parts = [literal_text(a) for a in args]
            if all(parts):
                return PathVal(receiver.path.joinpath(*parts))  # type: ignore[arg-type]
        if name in ("resolve", "absolute", "expanduser", "strip", "rstrip"):
            return receiver  # the same file (`strip()`: a path built with `os.path.join` is text)
        listing = ev.knowledge.sources.get(f"pathlib.Path.{name}")
        if listing is not None:  # `folder.iterdir()`, `folder.glob("*.md")`: the file system's order
            order = ev.source_value(f"pathlib.Path.{name}", listing, args, frame, node)
            pattern = literal_text(args[0]) if args else "*"
            found = ev.project.files_listed(receiver.path, name, pattern) \
                if receiver.path is not None and pattern else None
            if found is not None and isinstance(order, Unknown):
                return Seq(tuple(PathVal(path) for path in found), order.hole)
            return order
        if name in ("with_name", "with_suffix") and receiver.path is not None and args:
            part = literal_text(args[0])
            if part is not None:
                return PathVal(getattr(receiver.path, name)(part))
        return unknown(frame.module.snippet(node), where)
    if isinstance(receiver, Unknown) and receiver.hole.volatility.is_volatile:
        return volatile_method(ev, receiver, name, args)
    if isinstance(receiver, NoneVal) and name in ("replace", "format", "format_map") and target is not None:
        # `self.system_prompt.format(...)` where the attribute's default is None: a template given
        # at construction (None would not have a `.format`).
        receiver = unknown(frame.module.snippet(target), frame.module.location(target))
    if isinstance(receiver, Unknown) and name in ("replace", "format", "format_map"):
        values = args[1:2] if name == "replace" else [*args, *kwargs.values()]
        if name == "format_map" and args and isinstance(args[0], Mapping):
            values = [v for _, v in args[0].entries]
        filled = filled_unknown(receiver, values, frame, node)
        if filled is not None:
            return filled
    return unknown(frame.module.snippet(node), where)


def _text_lines(text: Text) -> list[tuple]:
    """A text's lines (a value stays in the line it is written in), each piece placed where it is."""
    lines: list[list] = [[]]
    for seg in text.segs:
        if not isinstance(seg, Literal):
            lines[-1].append(seg)
            continue
        start = 0
        for index, part in enumerate(seg.text.split("\n")):
            if index:
                lines.append([])
            if part:
                lines[-1].append(Literal(part, sub_location(seg, start, len(part)) or seg.location))
            start += len(part) + 1
    return [tuple(line) for line in lines]


def volatile_method(ev: "Evaluator", receiver: Unknown, name: str, args: list[Value]) -> Value:
    if name == "strftime" and args:
        return ev.refine_clock(receiver, literal_text(args[0]) or "")
    if name == "date":
        return ev.refine_clock_attribute(receiver, "date")
    return receiver


def text_method(ev: "Evaluator", receiver: Text, name: str, args: list[Value], kwargs: dict[str, Value],
                frame: "Frame", node: ast.Call) -> Value:
    if name == "join" and args:
        return join(receiver, args[0], frame, ev, node)
    if name == "format":
        return format_text(receiver, args, kwargs, "format")
    if name == "format_map" and args and isinstance(args[0], Mapping):
        return format_text(receiver, [], {k: v for k, v in args[0].entries if k}, "format")
    if name in END_METHODS:
        return _trim_ends(receiver, name, args)
    if name == "splitlines" and not args:
        lines = _text_lines(receiver)
        if len(lines) > MAX_UNROLL:
            # Past what a loop is unrolled for, runs of lines stand for their lines (joined back
            # with "\n" by a line-wise reformatting such as a dedent helper).
            size = -(-len(lines) // MAX_UNROLL)
            grouped = []
            for first in range(0, len(lines), size):
                run: list = []
                for index, line in enumerate(lines[first:first + size]):
                    if index:
                        run.append(Literal("\n", None))
                    run.extend(line)
                grouped.append(tuple(run))
            lines = grouped
        return Seq(tuple(Text(line) for line in lines))
    if name in ("upper", "lower", "title", "capitalize", "casefold", "expandtabs", "encode", "decode"):
        return Text(tuple(_map_literal(s, name, args) for s in receiver.segs))
    if name == "replace" and len(args) >= 2:
        old, new = literal_text(args[0]), args[1]
        if old is not None and literal_text(new) is not None:
            return Text(tuple(Literal(s.text.replace(old, literal_text(new) or ""), s.location)
                              if isinstance(s, Literal) else s for s in receiver.segs))
        inserted = as_text(new, frame.module.location(node))
        if old and not any(isinstance(seg, Literal) and old in seg.text for seg in receiver.segs):
            return _into_unseen_rest(receiver, inserted)
        if old:
            return Text(tuple(piece for seg in receiver.segs for piece in _replace_in(seg, old, inserted)))
        return concat(receiver.segs, inserted)
    return unknown(frame.module.snippet(node), frame.module.location(node))


def _into_unseen_rest(receiver: Text, inserted: tuple[Any, ...]) -> Text:
    """A placeholder not in the text we can see, on a template filled by ``replace`` (`unknown
    .replace("SUBTASK", s).replace("TASK", t)`): it is in the rest we cannot see (filled_unknown),
    so the value goes where that rest starts, after the values filled before it."""
    at = next((i for i, seg in enumerate(receiver.segs) if isinstance(seg, Hole) and seg.assumption == UNSEEN_REST),
              None)
    if at is None:
        return receiver
    return Text((*receiver.segs[:at], *inserted, *receiver.segs[at:]))


def _replace_in(seg: Any, old: str, inserted: tuple[Any, ...]) -> tuple[Any, ...]:
    """A literal with each ``old`` replaced by the inserted segments, where it occurs."""
    if not isinstance(seg, Literal) or old not in seg.text:
        return (seg,)
    pieces: list[Any] = []
    offset = 0
    for index, text in enumerate(seg.text.split(old)):
        if index:
            pieces.extend(inserted)
        if text:
            pieces.append(Literal(text, sub_location(seg, offset, len(text)) or seg.location))
        offset += len(text) + len(old)
    return tuple(pieces)


UNSEEN_REST = "the template text around the inserted value is the same on every call"


def filled_unknown(receiver: Unknown, values: list[Value], frame: "Frame", node: ast.Call) -> Value | None:
    """``unknown_template.replace("{date}", now)`` / ``.format(date=now)``: the volatile values
    sit somewhere inside text we cannot see, which is taken to be the same on every call."""
    where = frame.module.location(node)
    inserted_values = [v for v in values if most_volatile(v) is not None]
    if not inserted_values:
        # Unknown values (the request-derived stage may still recognise them) in a template read
        # from an attribute: `self.system_prompt.format(context_data=result.chunks)`.
        if not isinstance(node.func, ast.Attribute) or not isinstance(node.func.value, ast.Attribute):
            return None
        inserted_values = [v for v in values if isinstance(v, Unknown)]
        if not inserted_values:
            return None
    rest = Hole(Volatility.STABLE, f"the rest of `{receiver.hole.expression}`", where, assumption=UNSEEN_REST)
    inserted = tuple(seg for value in inserted_values for seg in as_text(value, where, "value"))
    return Text((receiver.hole, *inserted, rest))


# Methods that trim a text's ends: (what they do to its first part, what to its last part).
END_METHODS = {"strip": ("lstrip", "rstrip"), "lstrip": ("lstrip", None), "rstrip": (None, "rstrip"),
               "removeprefix": ("removeprefix", None), "removesuffix": (None, "removesuffix")}


def _trim_ends(text: Text, name: str, args: list[Value]) -> Text:
    """``.strip()`` and its kin change only the ends of the whole text, not every part of it; text
    taken off the front moves the first part's place (a template's leading line break)."""
    head, tail = END_METHODS[name]
    segs = list(text.segs)
    if head and segs and isinstance(first := segs[0], Literal):
        trimmed = _map_literal(first, head, args)
        removed = len(first.text) - len(trimmed.text)
        segs[0] = Literal(trimmed.text, sub_location(first, removed) if removed else first.location)
    if tail and segs and isinstance(segs[-1], Literal):
        segs[-1] = _map_literal(segs[-1], tail, args)
    return Text(tuple(segs))


def _map_literal(seg: Any, name: str, args: list[Value]) -> Any:
    if not isinstance(seg, Literal):
        return seg
    method = getattr(seg.text, name, None)
    try:
        result = method(*[literal_text(a) for a in args]) if method else seg.text
    except (TypeError, ValueError):
        return seg
    return Literal(result if isinstance(result, str) else seg.text, seg.location)


def list_method(ev: "Evaluator", receiver: Seq, name: str, args: list[Value], target: ast.expr | None,
                frame: "Frame", node: ast.Call) -> Value:
    taint = frame.order_taint
    order = receiver.order or taint
    updated: Seq | None = None
    if name in ("append", "add") and args:
        updated = Seq((*receiver.items, args[0]), order if name == "append" else
                      receiver.order or ev.set_order_hole(node, frame, "set.add"))
    elif name == "extend" and args:
        extra = args[0]
        items = extra.items if isinstance(extra, Seq) else (Splice(extra.hole) if isinstance(extra, Unknown)
                                                           else Splice(Hole(Volatility.UNKNOWN, "items", None)),)
        updated = Seq((*receiver.items, *items), order or (extra.order if isinstance(extra, Seq) else None))
    elif name == "insert" and len(args) >= 2:
        index = literal_text(args[0])
        # An index the analysis cannot read (`len(messages)`) is taken as the end, as before.
        updated = Seq(_inserted(receiver.items, int(index), args[1]) if index and index.lstrip("-").isdigit()
                      else (*receiver.items, args[1]), order)
    elif name == "update" and args and isinstance(args[0], Seq):
        updated = Seq((*receiver.items, *args[0].items), receiver.order or args[0].order)
    elif name == "sort":
        updated = Seq(receiver.items, None)
    elif name == "reverse":
        updated = Seq(tuple(reversed(receiver.items)), receiver.order)
    elif name == "copy":
        return receiver
    elif name in ("pop", "index", "count", "remove", "clear"):
        return unknown(frame.module.snippet(node), frame.module.location(node))
    if updated is not None and target is not None:
        ev.bind(target, updated, frame, step=False)
        return NONE
    return unknown(frame.module.snippet(node), frame.module.location(node))


def _inserted(items: tuple[Value, ...], position: int, item: Value) -> tuple[Value, ...]:
    """``items.insert(position, item)``. A run of unknown length before the position holds it:
    ``list(history).insert(1, notes)`` puts the notes after the history's first message, ahead of
    the rest of it, not after the whole run."""
    for at, current in enumerate(items[:max(position, 0)]):
        if isinstance(current, Splice):
            cut, hole = position - at, current.hole
            return (*items[:at], Splice(replace(hole, expression=f"{hole.expression}[:{cut}]")), item,
                    Splice(replace(hole, expression=f"{hole.expression}[{cut}:]")), *items[at + 1:])
    result = list(items)
    result.insert(position, item)
    return tuple(result)


def dict_method(ev: "Evaluator", receiver: Mapping, name: str, args: list[Value], target: ast.expr | None,
                frame: "Frame", node: ast.Call) -> Value:
    where = frame.module.location(node)
    if name == "get" and args:
        key = literal_text(args[0])
        found = receiver.get(key) if key is not None else None
        if found is not None:
            return found
        spread = spread_of(receiver)
        if spread is not None:
            return spread
        return args[1] if len(args) > 1 else unknown(frame.module.snippet(node), where)
    if name in ("keys", "items", "values"):
        if name == "keys":
            return Seq(tuple(lit(k) if k else unknown("key") for k, _ in receiver.entries), receiver.order)
        if name == "values":
            return Seq(tuple(v for _, v in receiver.entries), receiver.order)
        return Seq(tuple(Seq((lit(k) if k else unknown("key"), v)) for k, v in receiver.entries), receiver.order)
    if name in ("update", "setdefault") and target is not None and args:
        if name == "update" and isinstance(args[0], Mapping):
            merged = Mapping((*receiver.entries, *args[0].entries), receiver.order or frame.order_taint)
        elif name == "setdefault" and literal_text(args[0]) is not None and len(args) > 1:
            key = literal_text(args[0])
            if receiver.get(key or "") is not None:
                return receiver.get(key or "") or NONE
            merged = Mapping((*receiver.entries, (key, args[1])), receiver.order or frame.order_taint)
        else:
            return unknown(frame.module.snippet(node), where)
        ev.bind(target, merged, frame, step=False)
        return args[1] if name == "setdefault" and len(args) > 1 else NONE
    if name == "copy":
        return receiver
    return unknown(frame.module.snippet(node), where)


def template_method(ev: "Evaluator", template: TemplateVal, name: str, args: list[Value],
                    kwargs: dict[str, Value], frame: "Frame", node: ast.Call) -> Value:
    if name == "partial":
        return replace(template, filled=(*template.filled, *kwargs.items()))
    if name in ("render", "format", "substitute", "safe_substitute", "format_messages", "invoke",
                "format_prompt", "ainvoke", "render_async"):
        values = dict(kwargs)
        if args and isinstance(args[0], Mapping):
            values.update({k: v for k, v in args[0].entries if k})
        rendered = render(ev, template, values, node)
        if template.kind == "langchain":
            # A chat template rendered into messages is a whole prompt, wherever it is sent next
            # (a chat model chosen at runtime, a tool-bound model, a chain): judged here.
            ev.message_list(frame, node, f"chat template rendered by {name}()", rendered)
        return rendered
    return unknown(frame.module.snippet(node), frame.module.location(node))


def enumerated(source: Value, start: Value | None, where: Location | None) -> Value:
    """``enumerate(source)``: the (index, item) pairs of a known list; over a volatile value (a
    lookup's results) each pair is as volatile, so ``for i, doc in enumerate(docs)`` keeps what
    ``doc`` is. An index goes with its item: the same items give the same indexes."""
    volatile = volatile_item(source)
    if volatile is not None:
        return Seq((Splice(volatile.hole),))
    if not isinstance(source, Seq):
        return unknown("enumerate", where)
    if any(isinstance(item, Splice) for item in source.items):
        return Seq((Splice(Hole(Volatility.UNKNOWN, "enumerate", where)),), source.order)
    offset = literal_text(start) if start is not None else "0"
    first = int(offset) if offset is not None and offset.lstrip("-").isdigit() else None
    return Seq(tuple(Seq((Number((Literal(str(first + index), None),)) if first is not None
                          else unknown("index", where, Volatility.STABLE), item))
                     for index, item in enumerate(source.items)), source.order)


def call_function(ev: "Evaluator", qualname: str, args: list[Value], kwargs: dict[str, Value],
                  frame: "Frame", node: ast.Call | None) -> Value | None:
    """Known library functions that build or load prompt text; None when not one of them."""
    where = frame.module.location(node) if node is not None else None
    short = qualname.rsplit(".", 1)[-1]
    first = args[0] if args else kwargs.get("text") or kwargs.get("template") or kwargs.get("source")
    if qualname in ("str", "repr", "format", "os.fspath"):
        if first is None:
            return lit("")
        if isinstance(first, PathVal):
            return first
        if isinstance(first, (Text, Unknown)):
            return first
        return Text(as_text(first, where))
    if qualname in ("types.MappingProxyType", "copy.copy", "copy.deepcopy") and first is not None:
        return first  # a read-only view or a copy: the same content
    if qualname in ("list", "tuple", "iter", "reversed"):
        if first is None:
            return Seq(())
        if isinstance(first, Mapping):
            return Seq(tuple(lit(k) if k else unknown("key") for k, _ in first.entries), first.order)
        if isinstance(first, Seq):
            return Seq(tuple(reversed(first.items)), first.order) if qualname == "reversed" else first
        return Seq((Splice(first.hole),)) if isinstance(first, Unknown) else unknown(qualname, where)
    if qualname in ("set", "frozenset"):
        base = first.items if isinstance(first, Seq) else ((Splice(first.hole),) if isinstance(first, Unknown) else ())
        return Seq(tuple(base), ev.set_order_hole(node, frame, f"{qualname}()") if node is not None else None)
    if qualname == "dict":
        if isinstance(first, Mapping):
            return Mapping((*first.entries, *kwargs.items()), first.order)
        if isinstance(first, Seq):
            entries = tuple((literal_text(p.items[0]), p.items[1]) for p in first.items
                            if isinstance(p, Seq) and len(p.items) == 2)
            return Mapping(entries, first.order)
        return Mapping(tuple(kwargs.items()))
    if qualname in ("dict.fromkeys", "collections.OrderedDict.fromkeys") and isinstance(first, Seq):
        return Mapping(tuple((literal_text(k), NONE) for k in first.items), first.order)
    if qualname in ("collections.OrderedDict", "collections.defaultdict"):
        return first if isinstance(first, Mapping) else Mapping(tuple(kwargs.items()))
    if qualname == "enumerate" and args:
        return enumerated(args[0], args[1] if len(args) > 1 else kwargs.get("start"), where)
    if qualname in ("zip", "filter", "map") and args:
        source = args[-1] if qualname in ("filter", "map") else args[0]
        # `for name, doc in zip(names, docs)`: an item with a volatile part is volatile as a whole.
        volatile = next(filter(None, map(volatile_item, args[1:] if qualname in ("filter", "map") else args)),
                        None)
        if volatile is not None:
            return Seq((Splice(volatile.hole),))
        if isinstance(source, Seq):
            return Seq(tuple(Splice(Hole(Volatility.UNKNOWN, qualname, where)) for _ in source.items[:1]),
                       source.order)
        return unknown(qualname, where)
    if qualname == "next" and isinstance(first, Obj) and first.type == "counter":
        return first.field("value") or unknown("next", where)
    if qualname == "json.dumps":
        return json_dumps(ev, first, kwargs, frame, node)
    if qualname == "re.compile":
        return regex_sub.pattern_object(args, kwargs)
    if qualname == "re.sub" and len(args) >= 3:
        flags = args[4] if len(args) > 4 else kwargs.get("flags")
        return regex_sub.substituted(ev, regex_sub.compiled(args[0], flags), args[1], args[2], frame, node)
    if qualname in ("json.loads", "json.load"):
        return load_structured(ev, first or NONE, "json", frame, node)
    if qualname in ("yaml.safe_load", "yaml.load", "yaml.full_load"):
        return load_structured(ev, first or NONE, "yaml", frame, node)
    if qualname in ("tomllib.load", "tomllib.loads", "tomli.load", "tomli.loads", "toml.load", "toml.loads"):
        return load_structured(ev, first or NONE, "toml", frame, node)
    if qualname in SETTINGS_LOADERS:
        return settings_from_files(ev, kwargs.get("settings_files") or kwargs.get("settings_file") or first,
                                   kwargs.get("merge_enabled"), frame, node)
    if qualname in ("open", "io.open", "codecs.open"):
        return Obj("file", (("path", first or NONE),))
    if qualname in PACKAGE_FOLDERS:
        return PathVal(package_folder(ev, args, frame, node))
    if qualname in ("importlib.resources.as_file", "importlib_resources.as_file") and isinstance(first, PathVal):
        return first  # `with as_file(files(pkg) / "x.md") as path:` a real path to the same file
    if qualname in PACKAGE_FILES and len(args) >= 2:
        folder, name = package_folder(ev, args, frame, node), literal_text(args[1])
        path = PathVal(folder / name if folder is not None and name is not None else None)
        if short == "resource_filename":  # a path on disk (`resource_filename("voyager", "")`: the folder)
            return path
        return Obj("file", (("path", path),)) if short in OPENED else file_text(ev, path, frame, node)
    if qualname in ("pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath"):
        if isinstance(first, PathVal):
            return first
        parts = [literal_text(a) for a in args]
        return PathVal(Path(*parts) if parts and all(parts) else None)  # type: ignore[arg-type]
    if qualname in ("os.path.join",):
        if args and isinstance(args[0], PathVal) and args[0].path is not None:
            rest = [literal_text(a) for a in args[1:]]
            return PathVal(args[0].path.joinpath(*rest)) if all(rest) else PathVal(None)  # type: ignore[arg-type]
        parts = [literal_text(a) for a in args]
        return PathVal(Path(*parts)) if parts and all(parts) else PathVal(None)  # type: ignore[arg-type]
    if qualname in SAME_FILE_PATHS or qualname == "os.path.dirname":
        # The same file spelled another way (`os.path.expanduser(join(folder, "x.txt"))`: a
        # project's own path helper), or its folder.
        text = literal_text(first) if first is not None and not isinstance(first, PathVal) else None
        path = first.path if isinstance(first, PathVal) else Path(text) if text else None
        if path is None:
            return PathVal(None)
        return PathVal(path.parent) if short == "dirname" else PathVal(path)
    if qualname in ("os.environ.get", "os.getenv"):
        # Configuration: stable. Its default names what the code expects (often the model).
        default = args[1] if len(args) > 1 else kwargs.get("default")
        if default is not None and literal_text(default) is not None:
            return default
        return unknown(frame.module.snippet(node) if node is not None else qualname, where, Volatility.STABLE)
    if qualname in ("textwrap.dedent", "inspect.cleandoc", "textwrap.indent"):
        return first if first is not None else unknown(qualname, where)
    if qualname in ("string.Template",):
        return TemplateVal("dollar", first if isinstance(first, Text) else Text(as_text(first or NONE, where)))
    if qualname in ("jinja2.Template", "jinja2.Environment.from_string", "jinja2.environment.Template"):
        return jinja_template(first, where)
    if qualname in ("jinja2.Environment", "jinja2.sandbox.SandboxedEnvironment", "jinja2.FileSystemLoader",
                    "jinja2.PackageLoader", "jinja2.loaders.FileSystemLoader"):
        return Obj("jinja2." + short, tuple(kwargs.items()), tuple(args))
    listed = qualname in ev.knowledge.chat_templates
    if listed or short == "from_messages" and "ChatPromptTemplate" in qualname:
        # `ChatPromptTemplate.from_messages([...])`, or a constructor with `messages=[...]` (DB-GPT's own)
        template = langchain_template((kwargs.get("messages") if short != "from_messages" else None)
                                      or first or NONE)
        if node is not None and listed:
            judge_chat_template(ev, template, frame, node)
        return template
    if short in ("from_template", "from_template_file") or qualname.endswith("PromptTemplate"):
        if short == "from_template_file" and first is not None:
            first = file_text(ev, first, frame, node)
        text = first if isinstance(first, (Text, Unknown)) else kwargs.get("template")
        if short in ("from_template",) and "Chat" in qualname:
            return langchain_template(Seq((Seq((lit("user"), text or NONE)),)))
        owner = qualname.rsplit(".", 1)[0] if short == "from_template" else ""
        if owner.endswith(ROLE_TEMPLATES) and isinstance(text, (Text, Unknown)):
            # `SystemMessagePromptTemplate.from_template(t)`: one message of a chat template, with its role.
            return Obj(owner, (("content", TemplateVal("format", text) if isinstance(text, Text) else text),))
        if isinstance(text, Text):
            return TemplateVal("format", text)
    if short in ("MessagesPlaceholder",):
        return Obj(qualname, tuple(kwargs.items()), tuple(args))
    if short in ("from_text",):
        return Obj("text", (("text", first or NONE),))
    return None


def jinja_template(source: Value | None, where: Location | None) -> Value:
    text = literal_text(source) if source is not None else None
    if text is None or source is None:
        if isinstance(source, Unknown) and source.hole.volatility.is_volatile:
            # A template made of a volatile value (a loop that renders every variable as a
            # template, the clock among them): whatever it renders to is that value.
            return source
        return unknown("template", where, Volatility.STABLE)
    return TemplateVal("jinja", (text, _text_origin(source, where)))


def _text_origin(source: Value, where: Location | None) -> Location | tuple[Literal, ...] | None:
    """Where a template's text starts, or the literal pieces it is made of, each with its place."""
    segs = source.segs if isinstance(source, Text) else ()
    if len(segs) > 1 and all(isinstance(seg, Literal) and seg.location is not None for seg in segs):
        return tuple(segs)  # type: ignore[arg-type]
    return segs[0].location if segs and isinstance(segs[0], Literal) else where


def json_dumps(ev: "Evaluator", value: Value | None, kwargs: dict[str, Value], frame: "Frame",
               node: ast.Call | None) -> Value:
    where = frame.module.location(node) if node is not None else None
    if value is None:
        return unknown("json", where)
    sort_keys = literal_text(kwargs.get("sort_keys") or NONE) == "True"
    if sort_keys:
        return Text(render_json(drop_order(value), where))
    order = _dict_order(value)
    if order is not None and node is not None:
        rendered = render_json(drop_order(value), where)  # the json hole below stands for the order
        hole = Hole(Volatility.ORDER_UNSTABLE, frame.module.snippet(node), where,
                    origin=Origin(where, "json.dumps", "json-order", Volatility.ORDER_UNSTABLE),
                    path=(Step(order.location, "keys inserted in varying order") ,) if order.location else ())
        return Text((hole, *rendered))
    return Text(render_json(value, where))


def _dict_order(value: Value, depth: int = 0) -> Hole | None:
    """The order hole of a dict (or a dict nested in lists/dicts) whose key order can vary."""
    if depth > 8:
        return None
    if isinstance(value, Mapping):
        if value.order is not None and value.order.volatility is Volatility.ORDER_UNSTABLE:
            return value.order
        for _, child in value.entries:
            found = _dict_order(child, depth + 1)
            if found:
                return found
    if isinstance(value, Seq):
        for child in value.items:
            found = _dict_order(child, depth + 1)
            if found:
                return found
    return None


def object_method(ev: "Evaluator", owner: Obj, path: str, args: list[Value], kwargs: dict[str, Value],
                  frame: "Frame", node: ast.Call | None) -> Value:
    where = frame.module.location(node) if node is not None else None
    if owner.type == "file" and path in ("read", "readlines"):
        return file_text(ev, owner.field("path") or NONE, frame, node)
    if owner.type.startswith("jinja2.") and path in ("get_template", "select_template"):
        return _jinja_from_loader(ev, owner, args, frame, node)
    if owner.type.startswith("jinja2.") and path == "from_string":
        return jinja_template(args[0] if args else None, where)
    if owner.type == "counter" and path == "__next__":
        return owner.field("value") or unknown("next", where)
    if owner.type == regex_sub.PATTERN and path == "sub" and len(args) >= 2:
        filled = regex_sub.substituted(ev, regex_sub.compiled(owner), args[0], args[1], frame, node)
        if filled is not None:
            return filled
    if owner.type == regex_sub.MATCH:
        group = regex_sub.match_method(owner, path, args)
        if group is not None:
            return group
    if path.endswith("format") and owner.type in ("text",):
        return unknown("format", where)
    if owner.type.endswith(ROLE_TEMPLATES) and path in TEMPLATE_RENDERERS and node is not None:
        return _role_message(ev, owner, path, kwargs, frame, node)
    volatile = [v for v in [*args, *kwargs.values()] if not is_structured(v) and most_volatile(v)]
    if volatile and node is not None:
        return ev.join_unknown(node, frame, *volatile)
    return unknown(frame.module.snippet(node) if node is not None else path, where)


def _role_message(ev: "Evaluator", owner: Obj, path: str, kwargs: dict[str, Value], frame: "Frame",
                  node: ast.Call) -> Value:
    """``SystemMessagePromptTemplate.from_template(t).format(programs=skills)``: the message the
    template renders to, with the values filled in. A system message is judged here, where the
    values it is filled with are known (where it was built, only its placeholders were)."""
    template = owner.field("content")
    role = message_role(owner)
    if role is None or not isinstance(template, (TemplateVal, Unknown)):
        return unknown(frame.module.snippet(node), frame.module.location(node))
    if isinstance(template, TemplateVal):
        text = render(ev, template, kwargs, node)
    else:  # a template read from a file the analysis cannot find: the values sit somewhere inside
        text = filled_unknown(template, list(kwargs.values()), frame, node) or template
    kind = owner.type.rsplit(".", 1)[-1]
    if role == "system" and kwargs:
        ev.assembled(frame, node, f"{kind}.{path}()", text)
    message = Obj(f"langchain_core.messages.{_MESSAGE_CLASSES.get(role, 'ChatMessage')}", (("content", text),))
    return Seq((message,)) if path.endswith("format_messages") else message


# The message class a role template renders to (format_messages: a list of that one message).
_MESSAGE_CLASSES = {"system": "SystemMessage", "user": "HumanMessage", "assistant": "AIMessage"}


def _jinja_from_loader(ev: "Evaluator", env: Obj, args: list[Value], frame: "Frame", node: ast.Call | None) -> Value:
    where = frame.module.location(node) if node is not None else None
    name = literal_text(args[0]) if args else None
    loader = env.field("loader") or (env.args[0] if env.args else None)
    folders: list[Value] = []
    if isinstance(loader, Obj):
        searchpath = loader.field("searchpath") or (loader.args[0] if loader.args else None)
        if isinstance(searchpath, Seq):
            folders.extend(searchpath.items)
        elif searchpath is not None:
            folders.append(searchpath)
        if loader.type.endswith("PackageLoader"):
            folders.append(lit(literal_text(loader.args[1]) if len(loader.args) > 1 else "templates"))
    if name is None:
        found = _template_by_tail(ev, args[0] if args else None, folders, frame)
        if found is not None:
            return found
        return unknown("template", where, Volatility.STABLE)
    if folders and all(literal_text(f) is None and not (isinstance(f, PathVal) and f.path is not None)
                       for f in folders):
        # Folders the app reads from its configuration at run time: the one project file whose
        # path ends with the template's name is the template (none or several: unknown).
        matches = ev.project.files_ending(name)
        if len(matches) == 1:
            found = read_prompt_file(ev, PathVal(matches[0]), frame)
            if found is not None:
                text, path = found
                return TemplateVal("jinja", (text, Location(ev.project.display(path), 1, 1, 1, 1)))
    for folder in folders or [lit(".")]:
        base = folder.path if isinstance(folder, PathVal) else (Path(literal_text(folder) or ".")
                                                                  if literal_text(folder) else None)
        if base is None:
            continue
        found = read_prompt_file(ev, PathVal(base / name), frame)
        if found is not None:
            text, path = found
            return TemplateVal("jinja", (text, Location(ev.project.display(path), 1, 1, 1, 1)))
    return unknown(f"template {name}", where, Volatility.STABLE)


def _template_by_tail(ev: "Evaluator", name: Value | None, folders: list[Value], frame: "Frame") -> Value | None:
    """``get_template(f"{self.model}/{name}.j2")``: a template name whose leading folder is chosen
    at run time (a per-model prompt folder), the rest known. The files one folder level below the
    loader's folders whose path ends with the rest: one (or several with the same text) is the
    template."""
    if not isinstance(name, Text) or not name.segs:
        return None
    tail: list[str] = []
    for seg in reversed(name.segs):
        if not isinstance(seg, Literal):
            break
        tail.insert(0, seg.text)
    rest = "".join(tail)
    head = name.segs[: len(name.segs) - len(tail)]
    if not rest.startswith("/") or len(rest) < 3 or any(isinstance(seg, Literal) and "/" in seg.text for seg in head):
        return None  # only one unknown folder level, before a known file name
    depth = len(Path(rest[1:]).parts) + 1
    bases: set[Path] = set()
    for folder in folders:
        base = folder.path if isinstance(folder, PathVal) else Path(literal) if (literal := literal_text(folder)) else None
        if base is not None:
            bases.add((ev.project.root / base).resolve())  # a relative folder: from the project root
    texts: dict[str, Path] = {}
    for match in ev.project.files_ending(rest[1:]):
        if len(match.parts) > depth and match.parents[depth - 1].resolve() in bases:
            found = read_prompt_file(ev, PathVal(match), frame)
            if found is not None:
                texts.setdefault(found[0], found[1])
    if len(texts) != 1:
        return None
    (text, path), = texts.items()
    return TemplateVal("jinja", (text, Location(ev.project.display(path), 1, 1, 1, 1)))


def langchain_method(ev: "Evaluator", owner: Obj, path: str, args: list[Value], kwargs: dict[str, Value],
                     frame: "Frame", node: ast.Call | None) -> Value:
    where = frame.module.location(node) if node is not None else None
    if owner.type == "langchain.chain" and path in ("invoke", "ainvoke", "stream", "astream", "batch"):
        prompt = owner.field("prompt")
        model = owner.field("model")
        values = {k: v for k, v in args[0].entries if k} if args and isinstance(args[0], Mapping) else {}
        messages = render(ev, prompt, values, node) if isinstance(prompt, TemplateVal) else unknown("prompt")
        name = f"{model.type}.invoke" if isinstance(model, Obj) else ""
        if name in ev.knowledge.apis and node is not None:
            ev.report_sink(frame, node, name, [messages], {}, model)
        elif isinstance(prompt, TemplateVal) and prompt.kind == "langchain" and node is not None:
            ev.message_list(frame, node, f"chat template rendered by a chain's {path}()", messages)
        return unknown("response", where)
    return unknown(path, where)


# --- Semantic Kernel prompt functions ----------------------------------------------------------
# `kernel.add_function(prompt=T, template_format=F)` (or `KernelFunctionFromPrompt`) makes a
# function whose template is rendered with the `KernelArguments` of each `kernel.invoke(...)`; the
# rendered text's `<message role="...">` tags become the chat messages sent, in their order.

PROMPT_FUNCTION = "semantic_kernel.prompt_function"
KERNEL = "semantic_kernel.kernel"
_SK_INVOKES = ("invoke", "invoke_stream", "invoke_prompt", "invoke_prompt_stream")
_SK_VARIABLE = re.compile(r"\{\{\s*\$(\w+)\s*\}\}")  # semantic-kernel format: {{$name}}
_SK_CALL = re.compile(r"\{\{\s*([\w.]+)(\s[^}]*)?\}\}")  # {{plugin.function $arg}}: a call, unknown
_HANDLEBARS_TAG = re.compile(r"\{\{\{?(.*?)\}?\}\}", re.S)
_SK_MESSAGE_TAG = re.compile(r"<message\s+role\s*=\s*[\"'](\w+)[\"']\s*>|</message>")


def sk_prompt_function(template: Value | None, template_format: Value | None, where: Location | None) -> Obj:
    """A prompt function of this template, converted to Jinja2 (lines kept, so places stay right)."""
    kind = literal_text(template_format) if template_format is not None else None
    text = literal_text(template) if template is not None else None
    if text is None or not isinstance(template, Text):
        return Obj(PROMPT_FUNCTION, (("template", unknown("prompt template", where, Volatility.STABLE)),))
    if kind == "handlebars":
        text = _handlebars_as_jinja(text)
    elif kind != "jinja2":
        text = _SK_CALL.sub(lambda m: "{{ " + m.group(1).replace(".", "_") + " }}", _SK_VARIABLE.sub(r"{{ \1 }}", text))
    if not _parses(text):  # a construct the conversion does not know: no judgement, and no error
        return Obj(PROMPT_FUNCTION, (("template", unknown("prompt template", where, Volatility.STABLE)),))
    return Obj(PROMPT_FUNCTION, (("template", TemplateVal("jinja", (text, _text_origin(template, where)))),))


def _handlebars_as_jinja(text: str) -> str:
    """Blocks (`{{#if}}`, `{{else}}`, `{{#each}}`, ...) become blanks of their length: every branch
    is read anyway, and a loop's body once, over an unknown item. An output tag becomes the name it
    outputs, a helper call (`{{json artifact}}`) or a partial an unknown value."""
    def tag(match: re.Match[str]) -> str:
        inner = match.group(1).strip("~ \t")
        if inner[:1] in "#/" or inner == "else" or inner.startswith("else "):
            return re.sub(r"[^\n]", " ", match.group())
        name = inner.split()[0].lstrip("@") if inner.split() else ""
        output = "{{ " + (name if re.fullmatch(r"[A-Za-z_][\w.]*", name) else "value") + " }}"
        return output + "\n" * match.group().count("\n")  # the lines after it stay where they are
    return _HANDLEBARS_TAG.sub(tag, text)


def _parses(text: str) -> bool:
    from jinja2 import TemplateSyntaxError

    try:
        _jinja_tree(text)
    except TemplateSyntaxError:
        return False
    return True


def sk_messages(rendered: Value) -> Seq:
    """The chat messages of a rendered prompt: one per `<message role="...">` tag, in order, and
    the text outside them as user messages (as Semantic Kernel parses it)."""
    if not isinstance(rendered, Text):
        return Seq((Mapping((("role", lit("user")), ("content", rendered))),))
    messages: list[Value] = []
    role, current = "user", []

    def close() -> None:
        if any(not isinstance(seg, Literal) or seg.text.strip() for seg in current):
            messages.append(Mapping((("role", lit(role)), ("content", Text(tuple(current))))))
        current.clear()

    for seg in rendered.segs:
        if not isinstance(seg, Literal):
            current.append(seg)
            continue
        start = 0
        for match in _SK_MESSAGE_TAG.finditer(seg.text):
            if match.start() > start:
                current.append(_piece(seg, start, match.start()))
            close()
            role = ROLE_NAMES.get((match.group(1) or "user").lower(), "user")
            start = match.end()
        if start < len(seg.text):
            current.append(_piece(seg, start, len(seg.text)))
    close()
    return Seq(tuple(messages))


def _piece(seg: Literal, start: int, end: int) -> Literal:
    if start == 0 and end == len(seg.text):
        return seg
    return Literal(seg.text[start:end], sub_location(seg, start) or seg.location)


def semantic_kernel_method(ev: "Evaluator", owner: Obj, path: str, args: list[Value], kwargs: dict[str, Value],
                           frame: "Frame", node: ast.Call | None) -> Value:
    """A kernel's `add_function` makes a prompt function; `invoke` (of the kernel, or of the
    function) sends its template rendered with the arguments: judged as that request."""
    where = frame.module.location(node) if node is not None else None
    if owner.type == KERNEL and path in ("add_function", "create_function_from_prompt"):
        return prompt_function_of(kwargs, kwargs.get("prompt"), where)
    if path not in _SK_INVOKES:
        return object_method(ev, owner, path, args, kwargs, frame, node)
    if owner.type == PROMPT_FUNCTION:  # `function.invoke(kernel, arguments)`
        function, arguments = owner, kwargs.get("arguments") or (args[1] if len(args) > 1 else None)
    elif path.startswith("invoke_prompt"):
        function = prompt_function_of(kwargs, kwargs.get("prompt") or (args[0] if args else None), where)
        arguments = kwargs.get("arguments")
    else:
        function = kwargs.get("function") or (args[0] if args else None)
        arguments = kwargs.get("arguments") or (args[1] if len(args) > 1 else None)
    function = as_prompt_function(function, where) if isinstance(function, Obj) else function
    template = function.field("template") if isinstance(function, Obj) and function.type == PROMPT_FUNCTION else None
    if isinstance(template, TemplateVal):
        values = dict(arguments.fields) if isinstance(arguments, Obj) else \
            dict((k, v) for k, v in arguments.entries if k) if isinstance(arguments, Mapping) else {}
        messages = sk_messages(render(ev, template, values, node))
        ev.report_sink(frame, node, f"{owner.type}.{path}", args, kwargs,
                       Obj(owner.type, (*owner.fields, ("rendered", messages)), owner.args))
    return unknown(f"{path}() response", where)


def prompt_function_of(kwargs: dict[str, Value], prompt: Value | None, where: Location | None) -> Obj:
    config = kwargs.get("prompt_template_config")
    if prompt is None and isinstance(config, Obj):
        return sk_prompt_function(config.field("template"), config.field("template_format"), where)
    return sk_prompt_function(prompt, kwargs.get("template_format"), where)


def as_prompt_function(function: Obj, where: Location | None) -> Obj:
    """`KernelFunctionFromPrompt(prompt=..., template_format=...)` as made (its keyword arguments
    kept as fields), converted once it is called."""
    if function.type != PROMPT_FUNCTION or function.field("template") is not None:
        return function
    return prompt_function_of(dict(function.fields), function.field("prompt"), where)
