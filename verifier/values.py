"""Realistic values for the holes of a layout, request by request.

A replay is only convincing when each hole changes the way it does in production: clock values
minutes apart, a fresh uuid per request, a different user per request, a different order of the
same items. Everything else gets one fixed plausible value shared by all requests, so only the
volatility the analyzer found can make two requests differ. Values are deterministic (seeded), so
replays and the tests' exact token counts do not change from run to run.
"""

from __future__ import annotations

import json
import random
import re
import uuid
from datetime import datetime, timedelta

from promptlint.model import Hole, Volatility

REPLAY_START = datetime(2025, 6, 2, 9, 0, 0)
MINUTES_APART = 7  # far below provider cache TTLs (5-10 min idle), far above a clock's resolution

# A fixed prior exchange for conversation-history holes: stable across turns of one conversation.
SYNTHETIC_HISTORY: tuple[dict[str, str], ...] = (
    {"role": "user", "content": "Hi, I ordered a pair of running shoes last week and they have not arrived."},
    {"role": "assistant", "content": "I'm sorry about the wait. Could you give me the order number so I can check its status?"},
    {"role": "user", "content": "Sure, it is 48213."},
    {"role": "assistant", "content": "Thank you. Order 48213 left our warehouse on Monday and is due within two business days."},
)

_ITEMS = ("search_docs", "get_weather", "create_ticket", "lookup_order", "send_email",
          "calendar_events", "translate_text", "currency_rates")
LATEST_QUESTION = "Can you help me change the delivery address of my latest order?"
_DOCUMENT = ("Orders can be changed free of charge until they leave the warehouse. After that, "
             "customers can ask the carrier to redirect the parcel from the tracking page.")
_NAMES = ("Ada", "Grace", "Linus", "Margaret", "Alan", "Barbara", "Ken", "Frances")


def identifier(expression: str) -> str:
    """The last name in an expression, lower-case: ``self.user.id`` -> ``id``."""
    names = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", expression)
    return names[-1].lower() if names else "value"


class HoleFiller:
    """Values for one call site's holes; ``value(hole, i)`` is the value in request ``i``."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def _rng(self, hole: Hole, index: int) -> random.Random:
        return random.Random(f"{self.seed}|{hole.expression}|{index}")

    def value(self, hole: Hole, index: int) -> str:
        if hole.is_history:
            return render_history_text()
        if hole.volatility is Volatility.ORDER_UNSTABLE:
            return self.listing(hole, self.items(hole, index))
        if hole.volatility is Volatility.PER_REQUEST:
            return self.per_request(hole, index)
        if hole.volatility in (Volatility.PER_USER, Volatility.PER_SESSION):
            return self.per_user(hole, index)
        return self.fixed(hole)

    def items(self, hole: Hole, index: int) -> list[str]:
        """The same plausible items in a different order each request (set or shuffle order)."""
        items = list(_ITEMS[:6])
        self._rng(hole, index).shuffle(items)
        return items

    def sorted_items(self, hole: Hole) -> str:
        """The fix for an order-unstable hole: the same items, always sorted."""
        return self.listing(hole, sorted(_ITEMS[:6]))

    @staticmethod
    def listing(hole: Hole, items: list[str]) -> str:
        """Items as the code would print them: a JSON object for serialized dicts, else a list."""
        if "json" in hole.expression.lower() or "json" in hole.category:
            return json.dumps({item: {"type": "string"} for item in items})
        return ", ".join(items)

    def per_request(self, hole: Hole, index: int) -> str:
        rng = self._rng(hole, index)
        category = hole.category
        if category == "clock" or "time" in category or "date" in category:
            moment = REPLAY_START + timedelta(minutes=MINUTES_APART * index, seconds=rng.randint(0, 59))
            return moment.isoformat(sep=" ", timespec="seconds")
        if category == "uuid":
            return str(uuid.UUID(int=rng.getrandbits(128), version=4))
        if category == "counter":
            return str(1000 + index)
        if category == "random":
            return f"{rng.random():.8f}"
        return f"{rng.getrandbits(64):016x}"

    def request_content(self, hole: Hole, index: int) -> str:
        """A value of the final user turn (the question, the document): new in every request."""
        return f"[request {index + 1}, {self._rng(hole, index).getrandbits(32):08x}] {self.fixed(hole)}"

    def per_user(self, hole: Hole, index: int) -> str:
        """A different user (or session) in every request: no two requests come from the same one."""
        rng = self._rng(hole, index)
        name = identifier(hole.expression)
        if "name" in name:
            return f"{_NAMES[index % len(_NAMES)]} {rng.randint(100, 999)}"
        if "email" in name:
            return f"user{rng.randint(10000, 99999)}@example.com"
        prefix = "session" if hole.volatility is Volatility.PER_SESSION else "user"
        return f"{prefix}-{rng.randint(10000, 99999)}-{index}"

    def fixed(self, hole: Hole) -> str:
        """One plausible value shared by every request (stable, unknown, per-day, per-process)."""
        name = identifier(hole.expression)
        if hole.volatility is Volatility.PER_DAY:
            return REPLAY_START.date().isoformat()
        if hole.volatility is Volatility.PER_PROCESS:
            return "worker-1 (pid 4242)"
        if any(word in name for word in ("question", "query", "message", "input", "prompt", "text")):
            return LATEST_QUESTION
        if any(word in name for word in ("doc", "context", "knowledge", "article", "snippet", "body")):
            return _DOCUMENT
        if any(word in name for word in ("subject", "title", "topic")):
            return "Delivery address change"
        if "name" in name:
            return "Acme Support"
        return f"<{name}>"


def render_history_text() -> str:
    """The synthetic history as text, for a history hole that sits inside a message."""
    return "\n".join(f"{m['role']}: {m['content']}" for m in SYNTHETIC_HISTORY)
