"""Plain, frozen records passed between the analysis stages.

Every stage (discover → index → layouts → rules → estimate → report) reads and writes only these
types, so each stage can be tested alone and reporters never need to compute anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Volatility(str, Enum):
    """How often a value changes between two calls that should share a prompt prefix."""

    STABLE = "stable"
    PER_PROCESS = "per-process"  # import-time values, hostname, pid: one miss per worker
    PER_DAY = "per-day"  # a date without time: one miss a day
    PER_SESSION = "per-session"  # computed once per object/conversation and stored
    PER_USER = "per-user"  # user/tenant/session identifiers: no sharing across users
    PER_REQUEST = "per-request"  # clock, uuid, random, counters
    ORDER_UNSTABLE = "order-unstable"  # iteration over sets, shuffle, sample
    UNKNOWN = "unknown"  # parameters, I/O: not flagged ("unknown is not volatile")

    @property
    def is_volatile(self) -> bool:
        return self not in (Volatility.STABLE, Volatility.UNKNOWN)


class Severity(str, Enum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


@dataclass(frozen=True)
class Location:
    """A source range; 1-based lines and columns (columns count characters, not bytes)."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    cell: int | None = None  # Jupyter notebooks: the 1-based cell; line and end_line are within it

    def contains(self, other: Location) -> bool:
        """Whether ``other`` lies within this range, in the same file."""
        return other.path == self.path and other.cell == self.cell \
            and (self.line, self.column) <= (other.line, other.column) \
            and (other.end_line, other.end_column) <= (self.end_line, self.end_column)

    def short(self) -> str:
        if self.cell is not None:
            return f"{self.path}:cell {self.cell}:{self.line}:{self.column}"
        return f"{self.path}:{self.line}:{self.column}"


class HashedOnce:
    """Frozen values hashed again and again (a call's arguments are its memo key, values deep):
    the hash is computed once per object. Set as ``__hash__ = HashedOnce.__hash__`` in each class
    body, where ``dataclass`` leaves it alone; never pickled, since another process hashes
    strings differently."""

    def __hash__(self) -> int:
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = hash(self._hashed())
            object.__setattr__(self, "_hash", cached)
        return cached

    def _hashed(self) -> tuple:
        """What the hash is of: every field, unless a class says otherwise."""
        return tuple(getattr(self, name) for name in self.__dataclass_fields__)  # type: ignore[attr-defined]

    def __getstate__(self) -> dict:
        return {name: value for name, value in self.__dict__.items() if name != "_hash"}


@dataclass(frozen=True)
class Origin:
    """Where a volatile value is born, e.g. the ``datetime.now()`` call."""

    location: Location
    source: str  # qualified name of the source, e.g. "datetime.datetime.now"
    category: str  # clock, uuid, random, counter, user-id, set-order, shuffle, ...
    volatility: Volatility
    fix: str | None = None  # a fix of its own (an agent setting to turn off): the finding's hint

    @property
    def quoted(self) -> str:
        """The source as reporters show it: `datetime.datetime.now`; a description that names
        its own code ("derived from `question`") as it is."""
        return self.source if "`" in self.source else f"`{self.source}`"


@dataclass(frozen=True)
class Step(HashedOnce):
    """One hop a value made on its way into the prompt (assignment, call, return, template slot)."""

    __hash__ = HashedOnce.__hash__

    location: Location
    description: str


@dataclass(frozen=True)
class Literal(HashedOnce):
    """Prompt text known statically."""

    __hash__ = HashedOnce.__hash__

    text: str
    location: Location | None = None


@dataclass(frozen=True)
class Hole(HashedOnce):
    """Prompt content whose value is not known statically."""

    __hash__ = HashedOnce.__hash__

    volatility: Volatility
    expression: str  # short source text of the expression, for messages
    location: Location | None  # where the value enters the prompt (the code frame points here)
    origin: Origin | None = None
    path: tuple[Step, ...] = ()
    is_history: bool = False  # conversation history: stable across turns of one conversation
    # Where only the latest items of this list (one that grows) are kept, and the slice that keeps
    # them (`history[-k:]`): once the list is longer, the first item kept changes on every request.
    window: Step | None = None
    assumption: str | None = None  # stated when a conclusion rests on an assumption
    # The test of the `if` (with no `else`) whose body added this value to the text: present only
    # when that option is on, so it is a cause of its own next to values added under other tests.
    guard: Location | None = None

    @property
    def category(self) -> str:
        return self.origin.category if self.origin else "unknown"

    @property
    def plainly_unknown(self) -> bool:
        """A value the analysis knows nothing about: no volatility, no origin, no history."""
        return self.volatility is Volatility.UNKNOWN and self.origin is None and not self.is_history


@dataclass(frozen=True)
class CacheBreakpoint:
    """An explicit cache marker (Anthropic ``cache_control``, Bedrock ``cachePoint``)."""

    location: Location | None


Segment = Literal | Hole | CacheBreakpoint


@dataclass(frozen=True)
class Part:
    """One part of a request in the provider's cache order: tools, system, messages, final user turn."""

    name: str  # "tools" | "system" | "messages" | "final_user" | provider-specific
    segments: tuple[Segment, ...]
    location: Location | None = None


@dataclass(frozen=True)
class Setting:
    """A request field that is not prompt text but changes caching (prompt_cache_key, cache_salt)."""

    name: str
    value: Segment


@dataclass(frozen=True)
class CallSite:
    location: Location
    api: str  # e.g. "openai.chat.completions", "anthropic.messages"
    provider: str  # "openai", "anthropic", "gemini", "bedrock", "litellm", "langchain", ...
    model: str | None = None  # literal model name when known
    function: str | None = None  # enclosing function's qualified name
    # Judged where it is handed to an inferred wrapper: the wrapper's name, and the LLM calls
    # (location, api, provider) it reaches further down (set by the engine once every entry is
    # evaluated).
    via: str | None = None
    reaches: tuple[tuple[Location, str, str], ...] = ()

    def pricing_provider(self) -> str:
        """The provider whose prices apply: the API's, or, for a prompt judged where it is handed
        to a wrapper, the one provider of every LLM call that wrapper reaches."""
        providers = {provider for _, _, provider in self.reaches}
        return providers.pop() if len(providers) == 1 else self.provider


# How a finding's related location names an LLM call its prompt reaches through a wrapper, and how
# many such calls are kept per wrapper name (a name shared by every provider class reaches many).
SENDS = "which sends it with the"
REACHES = "reaches the"  # the last step of a path: "reaches the `openai.chat.completions` call here"
MAX_REACHED = 16


@dataclass(frozen=True)
class Via:
    """An inferred wrapper a prompt is handed to, and the model the call names for it, if any."""

    name: str
    model: str | None = None


@dataclass(frozen=True)
class PromptLayout:
    """What one LLM call sends, in the provider's cache order."""

    call: CallSite
    parts: tuple[Part, ...]
    settings: tuple[Setting, ...] = ()

    def segments(self) -> tuple[tuple[str, Segment], ...]:
        """All segments in cache order, each with the name of its part."""
        return tuple((part.name, seg) for part in self.parts for seg in part.segments)


@dataclass(frozen=True)
class Edit:
    """Replace [start, end) character offsets of a file's text with ``replacement``."""

    path: str
    start: int
    end: int
    replacement: str


@dataclass(frozen=True)
class Fix:
    description: str
    safe: bool
    edits: tuple[Edit, ...] = ()


@dataclass(frozen=True)
class RelatedLocation:
    location: Location
    message: str
    # False: a step of the value's path (or a call it reaches). True: something else said about
    # the finding – another place the same cause shows, the option that adds the value – which
    # reporters list apart from the path (text `note` lines, not a SARIF code-flow step).
    note: bool = False

    @property
    def is_origin(self) -> bool:
        """The step where the volatile value is born (reporters show it as `born at` instead)."""
        return self.message.endswith(ORIGIN_VERBS)


# How a finding's first step says where its value is born: a call (`datetime.now`), a counter
# that advances (`cycle`, `step += 1`), or text derived from the request's input.
ORIGIN_VERB = {"counter": "changes here", "request-derived": "is derived here"}
ORIGIN_VERBS = ("is called here", *ORIGIN_VERB.values())


@dataclass(frozen=True)
class ProviderLoss:
    """Estimated loss of one finding for one provider/model (filled by the estimator)."""

    provider: str
    model: str
    lost_tokens_per_call: int
    usd_per_1k_calls: float
    usd_per_month: float
    calls_per_day: float
    price_as_of: str
    note: str = ""


@dataclass(frozen=True)
class Estimate:
    lost_tokens_per_call: int | None
    tokenizer: str
    exact: bool  # False when the tokenizer is an approximation of the provider's
    unknown_length: bool = False  # a stable part's length is unknown (a parameter)
    losses: tuple[ProviderLoss, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class Finding:
    rule: str  # stable code, e.g. "PC001"
    name: str  # slug, e.g. "volatile-before-stable"
    severity: Severity
    location: Location  # at the volatile content
    message: str
    call_site: CallSite
    volatile_source: Origin | None = None
    related: tuple[RelatedLocation, ...] = ()
    fix: Fix | None = None
    hint: str = ""
    estimate: Estimate | None = None
    fingerprint: str = ""  # line-independent identity, for baselines
    layout_index: int | None = None  # index into AnalysisResult.layouts of the call's layout
    bust_index: int | None = None  # index into that layout's segments() of the volatile segment

    @property
    def notes(self) -> tuple[RelatedLocation, ...]:
        """What is said beside the value's path (``RelatedLocation.note``), in order."""
        return tuple(related for related in self.related if related.note)


INPUT_ERROR = "input"  # the file could not be analyzed (syntax error, binary, too large, time budget)
INTERNAL_ERROR = "internal"  # promptlint itself failed on the file: a bug in promptlint, exit code 2


@dataclass(frozen=True)
class FileError:
    path: str
    message: str
    kind: str = INPUT_ERROR
    exception: str | None = None  # internal errors: "KeyError: 'x'"
    where: str | None = None  # internal errors: promptlint's innermost frame, "promptlint/x.py:12 in f"

    @property
    def internal(self) -> bool:
        return self.kind == INTERNAL_ERROR


@dataclass(frozen=True)
class AnalysisResult:
    findings: tuple[Finding, ...]
    errors: tuple[FileError, ...]
    layouts: tuple[PromptLayout, ...] = ()
    files_analyzed: int = 0
    stats: dict[str, float] = field(default_factory=dict, hash=False, compare=False)
    # The requested files whose text may hold a suppression directive (absolute paths), so the
    # suppression stage need not read every file again; None: not known, read them all.
    directive_files: tuple[str, ...] | None = field(default=None, compare=False)
    # The Jupyter notebooks among the requested paths (absolute), found by the same walk, so the
    # notebook stage need not walk the tree again; None: not known.
    notebooks: tuple[str, ...] | None = field(default=None, compare=False)
