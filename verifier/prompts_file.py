"""Read prompts to replay from a JSONL file, one request a line, replayed as given.

Each line is one of:
- a chat request: ``{"messages": [...]}``, a captured request body with more fields
  (``model``, ``temperature``, ... are ignored), or an OpenAI batch line ``{"body": {...}}``;
- a raw prompt: ``{"prompt": "..."}`` (sent without a chat template).
Optional keys group and label the lines: ``"site"`` (default: the file name) names the call site
the request belongs to, ``"layout"`` is ``"current"`` (default) or ``"fixed"``. Lines of one site
and layout are replayed in file order; a site with ``"fixed"`` lines gets both columns.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from verifier.records import ChatRequest, Message, SiteRequests


class PromptsFileError(Exception):
    pass


def text_of(content: Any) -> str:
    """OpenAI content parts (``[{"type": "text", "text": ...}]``) joined into one string."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def parse_request(data: dict[str, Any], where: str) -> ChatRequest:
    body = data.get("body") if isinstance(data.get("body"), dict) else data
    if isinstance(body.get("prompt"), str):
        return ChatRequest(prompt=body["prompt"])
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise PromptsFileError(f"{where}: expected \"messages\" (a non-empty list) or \"prompt\"")
    parsed: list[Message] = []
    for message in messages:
        if not isinstance(message, dict) or "role" not in message:
            raise PromptsFileError(f"{where}: every message needs a \"role\"")
        parsed.append({**message, "content": text_of(message.get("content"))})
    return ChatRequest(tuple(parsed))


def load_prompts(path: Path) -> list[SiteRequests]:
    groups: dict[str, dict[str, list[ChatRequest]]] = {}
    first_line: dict[str, int] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise PromptsFileError(f"{where}: not JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise PromptsFileError(f"{where}: expected a JSON object")
        site = str(data.get("site") or path.name)
        layout = str(data.get("layout") or "current")
        if layout not in ("current", "fixed"):
            raise PromptsFileError(f"{where}: layout must be \"current\" or \"fixed\", not {layout!r}")
        first_line.setdefault(site, number)
        groups.setdefault(site, {}).setdefault(layout, []).append(parse_request(data, where))
    if not groups:
        raise PromptsFileError(f"{path}: no requests")
    return [
        SiteRequests(
            path=site,
            line=first_line[site],
            api="prompts-file",
            current=tuple(runs.get("current", ())),
            fixed=tuple(runs["fixed"]) if "fixed" in runs else None,
            notes=(f"replayed as given from {path.name}",),
        )
        for site, runs in groups.items()
    ]
