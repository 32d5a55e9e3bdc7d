"""Estimate what each finding costs: cached tokens lost per call, and dollars per provider.

The pipeline stage after the checks: ``estimate(result, config)`` returns the result with each
finding's ``estimate`` filled. Pure: no printing, no network. See docs/estimator.md.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

from promptlint.config import Config
from promptlint.estimate.cost import ONCE_A_CONVERSATION, TokenLoss, money, named_parts, token_loss
from promptlint.estimate.prices import Priced, PriceTable, load_price_table
from promptlint.estimate.profile import bust_segment, measure
from promptlint.estimate.tokens import TokenCounter, load_counter
from promptlint.estimate.traffic import traffic_for
from promptlint.model import (
    AnalysisResult, Estimate, Finding, Hole, PromptLayout, ProviderLoss, Severity, Volatility,
)

__all__ = ["agree_with_estimate", "estimate", "estimate_finding", "format_estimate", "load_counter",
           "load_price_table"]


def estimate(result: AnalysisResult, config: Config, *, today: date | None = None,
             counter: TokenCounter | None = None) -> AnalysisResult:
    """``result`` with every finding's ``estimate`` filled."""
    if not result.findings:  # loading the tokenizer takes ~0.6 s: not for a clean run
        return result
    counter = counter or load_counter(config.tokenizer, config.root)
    table = load_price_table(config, today)
    findings = tuple(
        replace(finding, estimate=estimate_finding(finding, result.layouts, counter, table, config))
        for finding in result.findings
    )
    return replace(result, findings=findings)


def estimate_finding(finding: Finding, layouts: tuple[PromptLayout, ...], counter: TokenCounter,
                     table: PriceTable, config: Config) -> Estimate:
    layout = _layout(finding, layouts)
    if layout is None or finding.bust_index is None:
        return Estimate(None, counter.name, exact=not counter.bundled,
                        note="no prompt layout for this finding: nothing to count")
    # PC001 counts what a value loses up to the next one that changes on every request.
    profile = measure(layout, finding.bust_index, counter, own_share=finding.rule == "PC001")
    priced = table.resolve(finding.call_site.pricing_provider(), finding.call_site.model, config.providers)
    token_losses = [token_loss(profile, item.row) for item in priced]
    context = _CallContext(finding, layout, counter, table, config)
    losses = tuple(_provider_loss(item, tokens, context) for item, tokens in zip(priced, token_losses))
    exact = all(counter.is_exact_for(item.row.tokenizer) for item in priced) if priced \
        else not counter.bundled
    lost = max((t.lost for t in token_losses), default=profile.stable_after_bust)
    unknown = sorted({u for t in token_losses for u in t.unknown}) if priced else \
        list(profile.unknowns_between(profile.bust, profile.stable_end))
    return Estimate(
        lost_tokens_per_call=None if unknown and lost == 0 else lost,
        tokenizer=counter.name,
        exact=exact,
        unknown_length=bool(unknown),
        losses=losses,
        note=_estimate_note(unknown, counter, priced, exact),
    )


def _layout(finding: Finding, layouts: tuple[PromptLayout, ...]) -> PromptLayout | None:
    index = finding.layout_index
    return layouts[index] if index is not None and 0 <= index < len(layouts) else None


@dataclass(frozen=True)
class _CallContext:
    finding: Finding
    layout: PromptLayout
    counter: TokenCounter
    table: PriceTable
    config: Config


def _provider_loss(item: Priced, tokens: TokenLoss, context: _CallContext) -> ProviderLoss:
    row, counter = item.row, context.counter
    traffic = traffic_for(context.finding.call_site, context.config)
    volatility = _volatility(context.finding, context.layout)
    cost = money(tokens.lost, row, traffic.calls_per_day, volatility, context.table.month_days,
                 context.config.calls_per_conversation)
    notes = [item.note, tokens.note]
    if (context.finding.bust_index or 0) < 0 and tokens.lost:
        notes.append("a request setting that changes per call sends every call to a cold cache")
    if tokens.unknown and tokens.lost:
        notes.append(f"at least: plus {named_parts(tokens.unknown)} (unknown length)")
    if not counter.is_exact_for(row.tokenizer):
        notes.append(f"tokens approximated with {counter.name}")
    if tokens.lost and cost.warm < 0.9:
        notes.append(f"only {cost.warm:.0%} of calls come within the {row.ttl} TTL at this traffic")
    if tokens.lost and volatility in ONCE_A_CONVERSATION:
        notes.append(f"{ONCE_PER_CONVERSATION} (1 call in {context.config.calls_per_conversation:g}: "
                     "calls-per-conversation)")
    elif tokens.lost and cost.busted_calls_per_day < traffic.calls_per_day:
        notes.append(f"a {volatility.value if volatility else ''} value misses about once a day")
    return ProviderLoss(
        provider=row.provider,
        model=row.model,
        lost_tokens_per_call=tokens.lost,
        usd_per_1k_calls=round(cost.usd_per_1k_calls, 6),
        usd_per_month=round(cost.usd_per_month, 4),
        calls_per_day=traffic.calls_per_day,
        price_as_of=row.as_of,
        note="; ".join(n for n in notes if n),
    )


def _volatility(finding: Finding, layout: PromptLayout) -> Volatility | None:
    segment = bust_segment(layout, finding.bust_index if finding.bust_index is not None else -1)
    if isinstance(segment, Hole):
        return segment.volatility
    return finding.volatile_source.volatility if finding.volatile_source else None


def _estimate_note(unknown: list[str], counter: TokenCounter, priced: tuple[Priced, ...],
                   exact: bool) -> str:
    notes = []
    if unknown:
        notes.append(f"lower bound: also loses {named_parts(unknown)} (unknown length)")
    if not exact:
        models = sorted({p.row.model for p in priced if not counter.is_exact_for(p.row.tokenizer)})
        notes.append(f"tokens counted with {counter.name}, an approximation for {', '.join(models)}")
    return "; ".join(notes)


# Said in a loss's note when only a conversation's first call misses (per-session, per-user values).
ONCE_PER_CONVERSATION = "misses on the first call of each conversation only"
SMALLEST_MEANINGFUL_BOUND = 64  # tokens: below the smallest provider cache block that pays off


def agree_with_estimate(finding: Finding, info_when_nothing_lost: bool = False) -> Finding:
    """An error or warning whose estimate loses less than a cache block for every provider, with
    nothing of unknown length after it, says so and what would make it matter, and is at most a
    warning (``info`` where the rule says so, ``Rule.quiet_when_nothing_lost``): the
    message and severity never claim a loss the estimate denies. (With content of unknown length
    after it, a history, the estimate is a lower bound and says nothing.)"""
    estimate = finding.estimate
    if finding.severity is Severity.INFO or estimate is None or not estimate.losses or estimate.unknown_length:
        return finding
    most = max(loss.lost_tokens_per_call for loss in estimate.losses)
    if most >= SMALLEST_MEANINGFUL_BOUND:
        return finding
    severity = Severity.INFO if info_when_nothing_lost else Severity.WARNING
    why = (f"estimated loss: {most:,} tokens per call, since the stable text after it is below the providers' "
           f"minimum cacheable prefix; it matters once more stable text follows it ({severity.value})")
    return replace(finding, severity=severity, message=f"{finding.message}; {why}")


def format_estimate(estimate: Estimate | None) -> str:
    """One line for reporters, e.g. "~1,850 cached tokens lost per call; up to $957.38/month
    (anthropic/claude-sonnet-4.5, 5,000 calls/day, prices as of 2026-10-08) [estimate]"."""
    if estimate is None:
        return ""
    if estimate.lost_tokens_per_call is None:
        why = next((loss.note.split("; at least")[0] for loss in estimate.losses if loss.note),
                   "stable content of unknown length")
        return f"lost cached tokens per call: unknown ({why}) [estimate]"
    if estimate.lost_tokens_per_call == 0 and not estimate.unknown_length:
        why = next((loss.note.split("; ")[0] for loss in estimate.losses if loss.note), "")
        return f"no cached tokens lost per call{': ' + why if why else ''} [estimate]"
    bound = "at least " if estimate.unknown_length else "~"
    accuracy = "exact" if estimate.exact else "approx."
    if estimate.unknown_length and estimate.lost_tokens_per_call < SMALLEST_MEANINGFUL_BOUND:
        # A lower bound of a few tokens (a newline known before text we cannot see) says nothing:
        # pricing it would read as "this costs nothing".
        return (f"lost cached tokens per call: unknown (stable content of unknown length; only "
                f"{estimate.lost_tokens_per_call:,} known, {estimate.tokenizer}) [estimate]")
    per = "per conversation" if any(ONCE_PER_CONVERSATION in loss.note for loss in estimate.losses) else "per call"
    text = (f"{bound}{estimate.lost_tokens_per_call:,} cached tokens lost {per} "
            f"({estimate.tokenizer}, {accuracy})")
    worst = max(estimate.losses, key=lambda loss: loss.usd_per_month, default=None)
    if worst is not None and worst.usd_per_month > 0:
        scope = "up to " if len(estimate.losses) > 1 else ""
        text += (f"; {scope}{format_usd(worst.usd_per_month)}/month ({worst.provider}/{worst.model}, "
                 f"{worst.calls_per_day:,.0f} calls/day, prices as of {worst.price_as_of})")
    elif worst is not None and all(loss.lost_tokens_per_call and loss.usd_per_1k_calls == 0
                                   for loss in estimate.losses):  # priced at nothing: Ollama, llama.cpp
        text += f"; self-hosted ({worst.provider}): a miss costs prefill time before the first token, not dollars"
    return text + " [estimate]"


def format_usd(amount: float) -> str:
    if amount >= 100:
        return f"${amount:,.0f}"
    if amount >= 1:
        return f"${amount:,.2f}"
    return f"${amount:.4f}".rstrip("0").rstrip(".") if amount > 0 else "$0"
