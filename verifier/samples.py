"""Two hand-made layouts with the classic cache busters, in the analyzer's own records.

They let the verifier be tested and demonstrated without the analyzer (the tests, the GPU script's
fallback), and they pin exact token counts: their text never changes with the demo app.
- ``support_bot``: a long system prompt that opens with the current time (a clock, per request).
- ``agent_with_tools``: tool names from a set (order changes per process run), then a system prompt
  that ends with the user's id, then the conversation history and the question.
"""

from __future__ import annotations

from promptlint.model import CallSite, Hole, Literal, Location, Origin, Part, PromptLayout, Volatility

_RULES = (
    "Greet the customer by name when it is known and keep a friendly, professional tone.",
    "Answer only questions about orders, deliveries, returns, refunds, accounts and products.",
    "Never promise a delivery date that the order system does not show.",
    "Ask for the order number before you look up an order, and confirm it back to the customer.",
    "Refunds are issued to the original payment method within five business days.",
    "Items can be returned within thirty days of delivery if they are unused and in their box.",
    "Shipping is free for orders above fifty euros; below that it costs four euros ninety.",
    "Do not share another customer's data, even if the person says they are a family member.",
    "If the customer is angry, acknowledge the problem first and then offer a concrete next step.",
    "Escalate to a human agent when the customer asks for it twice or mentions a legal dispute.",
    "Use short paragraphs and bullet lists for steps; avoid jargon and internal system names.",
    "When a product is out of stock, offer the nearest alternative and the restock date if known.",
    "Prices include value added tax; business customers can request an invoice without it.",
    "Gift cards cannot be refunded or exchanged for cash, but they never expire.",
    "For damaged items, ask for a photo and create a ticket with the category damaged-on-arrival.",
    "Explain the difference between standard and express shipping when a customer is in a hurry.",
)
POLICY = "\n".join(
    f"{n}. {rule} This rule applies to every conversation, in every language, on every channel."
    for n, rule in enumerate(_RULES, start=1)
)


def _location(path: str, line: int) -> Location:
    return Location(path, line, 1, line, 80)


def _hole(expression: str, volatility: Volatility, category: str, path: str, line: int) -> Hole:
    location = _location(path, line)
    origin = Origin(location, expression, category, volatility)
    return Hole(volatility, expression, location, origin)


def support_bot() -> PromptLayout:
    path = "samples/support_bot.py"
    now = _hole("datetime.now()", Volatility.PER_REQUEST, "clock", path, 12)
    question = Hole(Volatility.UNKNOWN, "question", _location(path, 20))
    return PromptLayout(
        call=CallSite(_location(path, 20), "openai.chat.completions", "openai", "gpt-4o", "answer"),
        parts=(
            Part("system", (
                Literal("Current time: "), now,
                Literal("\nYou are the support assistant of Acme Shoes. Follow these rules:\n" + POLICY),
            )),
            Part("final_user", (question,)),
        ),
    )


def agent_with_tools() -> PromptLayout:
    path = "samples/agent.py"
    tools = _hole("set(TOOLS)", Volatility.ORDER_UNSTABLE, "set-order", path, 8)
    user = _hole("user.id", Volatility.PER_USER, "user-id", path, 15)
    history = Hole(Volatility.STABLE, "history", _location(path, 16), is_history=True)
    question = Hole(Volatility.UNKNOWN, "question", _location(path, 17))
    return PromptLayout(
        call=CallSite(_location(path, 18), "openai.chat.completions", "openai", None, "Agent.run"),
        parts=(
            Part("tools", (Literal("Available tools: "), tools)),
            Part("system", (
                Literal("You are an agent that can call tools. Rules:\n" + POLICY + "\nUser id: "),
                user,
            )),
            Part("history", (history,)),
            Part("final_user", (question,)),
        ),
    )


def sample_layouts() -> tuple[PromptLayout, ...]:
    return (support_bot(), agent_with_tools())
