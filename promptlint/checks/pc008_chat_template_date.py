r"""PC008 chat-template-date.

## What it does
Finds model chat templates that stamp the current date or time into the prompt (`strftime_now`,
`now()`), in a `tokenizer_config.json` `chat_template`, a `.jinja` chat template file, or a vLLM
server launch in the project (`vllm serve` of a gpt-oss model, or of a Llama 3.x / Granite 3 /
SmolLM3 model with its stock template), when the project never pins the date (`date_string`
through `chat_template_kwargs` or `--default-chat-template-kwargs`, `VLLM_SYSTEM_START_DATE`).

## Why is this bad?
The engine renders the chat template before caching, so the date sits at the very top of every
prompt, before all tools, system text and history. Llama 3.2 writes "Today Date: ..." even with
no system message; vLLM's gpt-oss path stamps the date unless `VLLM_SYSTEM_START_DATE` is set.
With a time in the format, no request shares a prefix; with a date only, the whole engine cache
goes cold at midnight at once (every cached conversation misses together).

## Example
```jinja
{%- set date_string = strftime_now("%d %b %Y") %}
<|start_header_id|>system<|end_header_id|>Today Date: {{ date_string }}
```

## Use instead
Pin the date per deployment: `--default-chat-template-kwargs '{"date_string": "26 Jul 2024"}'`
on `vllm serve`, or `chat_template_kwargs={"date_string": ...}` per request (a date fixed at
conversation start); for gpt-oss set `VLLM_SYSTEM_START_DATE`.

## Known problems
A date-only stamp is reported as a warning (one cold cache a day, for every conversation at once);
a time stamp as an error. The template is found only if the project contains it.

## Fix safety
No automatic fix.
"""

from __future__ import annotations

import json
import re
from typing import Iterable

from promptlint.checks.base import Rule, RuleContext
from promptlint.model import CallSite, Finding, Location, PromptLayout, Severity

STAMP = re.compile(r"strftime_now\s*\(\s*(['\"])(?P<fmt>[^'\"]*)\1|\b(?:now|utcnow)\s*\(\s*\)")
TIME_DIRECTIVES = ("%H", "%I", "%M", "%S", "%f", "%p", "%X", "%c", "%T", "%R", "%s")
CHAT_TEMPLATE_HINT = re.compile(r"messages|add_generation_prompt|bos_token|start_header_id")
SERVE = re.compile(r"vllm\s+serve|vllm\.entrypoints|--chat-template")
GPT_OSS = re.compile(r"gpt-oss")
# Models whose stock chat template stamps today's date (Llama 3.1-3.3, Granite 3.x, SmolLM3).
DATE_STAMPING_MODELS = re.compile(r"(?i)llama-3\.[123][\w.-]*instruct|granite-3[\w.-]*|smollm3[\w.-]*")
# A pin is a date passed to the template from outside it: server flag, per-request kwargs, env.
PINNED = re.compile(r"(?:default-chat-template-kwargs|chat_template_kwargs)[^\n]{0,200}date_string"
                    r"|VLLM_SYSTEM_START_DATE", re.DOTALL)


class ChatTemplateDate(Rule):
    code = "PC008"
    name = "chat-template-date"
    summary = "A model chat template stamps the current date or time at the top of every prompt"
    fix_hint = ("pin the date: --default-chat-template-kwargs '{\"date_string\": ...}' or "
                "chat_template_kwargs per request; VLLM_SYSTEM_START_DATE for gpt-oss")

    VALID = [
        {"chat_template.jinja": "{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}\n"},
        {
            "chat_template.jinja": '{%- set date_string = strftime_now("%d %b %Y") %}'
                                   "Today: {{ date_string }}{% for m in messages %}{{ m.content }}{% endfor %}\n",
            "serve.sh": "vllm serve ./model --chat-template chat_template.jinja "
                        "--default-chat-template-kwargs '{\"date_string\": \"26 Jul 2024\"}'\n",
        },
        # A prompt template (not a chat template: it never loops over the messages) whose prose
        # tells the model to write `now()` in SQL.
        {"prompts/sql.jinja": "You write SQL. Use `now()` for the current time, e.g. SELECT now();\n"
                              "The chat messages so far are summarized below.\n{{ question }}\n"},
        # A chat template that only mentions now() in its text.
        {"chat_template.jinja": "{% for m in messages %}{{ m.content }}{% endfor %}\n"
                                "Never call now() yourself; bos_token rules apply.\n"},
    ]
    INVALID = [
        {"deploy/serve.sh": "vllm serve meta-llama/Llama-3.2-3B-Instruct --enable-prefix-caching\n"},
        {"model/tokenizer_config.json": json.dumps({"chat_template": (
            "{{ bos_token }}{% set date_string = strftime_now('%d %b %Y %H:%M') %}"
            "System date: {{ date_string }}\n{% for m in messages %}{{ m.content }}{% endfor %}")})},
        {"templates/llama32.jinja": '{%- if not date_string is defined %}\n'
                                    '  {%- set date_string = strftime_now("%d %b %Y") %}\n'
                                    "{%- endif %}\nToday Date: {{ date_string }}\n"
                                    "{% for m in messages %}{{ m.content }}{% endfor %}\n"},
    ]

    def check(self, layout: PromptLayout, layout_index: int, context: RuleContext) -> Iterable[Finding]:
        return ()

    def check_files(self, files: dict[str, str]) -> Iterable[Finding]:
        """``files`` maps display paths to text of template, config and launch files."""
        if any(PINNED.search(text) and not _is_template_file(path, text) for path, text in files.items()):
            return
        for path, text in files.items():
            template = _template_text(path, text)
            if template is not None:
                yield from self._stamps(path, text, template)
            elif SERVE.search(text) and GPT_OSS.search(text):
                line = _line_of(text, GPT_OSS.search(text).start())  # type: ignore[union-attr]
                yield self._finding(path, line, Severity.WARNING,
                                    "vLLM serves a gpt-oss model without VLLM_SYSTEM_START_DATE: the "
                                    "Harmony system message stamps today's date at the top of every prompt")
            elif SERVE.search(text) and "--chat-template " not in text and DATE_STAMPING_MODELS.search(text):
                model = DATE_STAMPING_MODELS.search(text)
                assert model is not None
                yield self._finding(path, _line_of(text, model.start()), Severity.WARNING,
                                    f"vLLM serves `{model.group(0)}` with its stock chat template, which stamps "
                                    "today's date at the top of every prompt, and no `date_string` is pinned")

    def _stamps(self, path: str, text: str, template: str) -> Iterable[Finding]:
        spans = _code_spans(template)
        after = 0  # the next stamp sits after the previous one in the raw file too
        for match in STAMP.finditer(template):
            if not any(start <= match.start() < end for start, end in spans):
                continue  # `now()` in the template's prose is text the model reads, not a call
            fmt = match.group("fmt")
            per_time = fmt is None or any(d in fmt for d in TIME_DIRECTIVES)  # `now()`: a full timestamp
            severity = Severity.ERROR if per_time else Severity.WARNING
            stamp = "time" if per_time else "date"
            offset = _raw_offset(text, match.group(0), after)
            after = offset + 1
            line = _line_of(text, offset)
            yield self._finding(path, line, severity,
                                f"chat template stamps the current {stamp} (`{match.group(0)}`) at the top "
                                "of every prompt the engine renders, and the project never pins `date_string`")

    def _finding(self, path: str, line: int, severity: Severity, message: str) -> Finding:
        location = Location(path, line, 1, line, 1)
        call = CallSite(location, "chat-template", "vllm")
        return Finding(self.code, self.name, severity, location, message, call, hint=self.fix_hint)


def _is_template_file(path: str, text: str) -> bool:
    return _template_text(path, text) is not None


def _template_text(path: str, text: str) -> str | None:
    if path.endswith("tokenizer_config.json"):
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):  # a hostile file may nest 100,000 levels deep
            return None
        template = data.get("chat_template") if isinstance(data, dict) else None
        if isinstance(template, list):  # named templates: [{"name": ..., "template": ...}]
            template = "\n".join(t["template"] for t in template if isinstance(t, dict)
                                 and isinstance(t.get("template"), str))
        return template if isinstance(template, str) else None
    if path.endswith((".jinja", ".j2", ".jinja2")) and CHAT_TEMPLATE_HINT.search(text) and _loops_over_messages(text):
        return text
    return None


# Jinja's own delimiters: what is inside is code, the rest is text the model reads.
CODE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)


def _code_spans(template: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in CODE.finditer(template)]


def _loops_over_messages(text: str) -> bool:
    """A chat template renders the conversation: it parses as Jinja and loops over `messages`
    (a prompt template that merely mentions messages is not one)."""
    from jinja2 import Environment, TemplateSyntaxError, nodes

    try:
        tree = Environment().parse(text)
    except (TemplateSyntaxError, RecursionError, ValueError):
        return False
    for loop in tree.find_all(nodes.For):
        source = loop.iter
        while isinstance(source, (nodes.Getattr, nodes.Getitem, nodes.Filter, nodes.Call)):
            source = source.node  # `messages[1:]`, `messages | selectattr(...)`: down to the name
        if isinstance(source, nodes.Name) and source.name == "messages":
            return True
    return False


def _raw_offset(text: str, stamp: str, start: int) -> int:
    """Where a stamp found in a decoded template sits in the raw file, at or after ``start``: as
    written, with JSON-escaped quotes, or (other escapes) by its function name."""
    for candidate in (stamp, stamp.replace('"', '\\"'), stamp.split("(")[0]):
        found = text.find(candidate, start)
        if found >= 0:
            return found
    return start


def _line_of(text: str, offset: int) -> int:
    return text[:offset].count("\n") + 1
