"""Knowledge as data: volatile sources, sanitizers and LLM call signatures from ``rules/``,
extended by the user's configuration. Mechanism lives in ``promptlint.analysis``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from collections.abc import Iterable
from typing import Any

import yaml

from promptlint.config import Config, ConfigError
from promptlint.model import Volatility


ROLE_MARKER = "<role>"  # a called-name stand-in for "builds a role-tagged message" (see analysis/reach.py)
# A called-name stand-in for "returns the system message it builds": its callers place it in their
# list, where what follows it is seen (analysis/message_lists.py `returned_messages`).
RETURNS_SYSTEM_MARKER = "<returns system>"
# A role read from a setting named for the system role (`role=agent.system_message_role`,
# `role=SYSTEM_ROLE`): the setting holds the system role's name, whichever it is.
SYSTEM_ROLE_SETTING_WORD = r"(?:\w+_)?system(?:_message)?_role"
SYSTEM_ROLE_SETTING = re.compile(SYSTEM_ROLE_SETTING_WORD, re.IGNORECASE)


def rules_dir() -> Path:
    """The repository's ``rules/`` in a checkout, else the copy packaged inside the wheel."""
    checkout = Path(__file__).resolve().parent.parent / "rules"
    if (checkout / "llm_calls.yaml").is_file():
        return checkout
    return Path(__file__).resolve().parent / "_rules"


@dataclass(frozen=True)
class Source:
    volatility: Volatility
    category: str
    mutates: int | None = None  # index of an argument the call reorders in place (shuffle)
    via_next: bool = False  # a counter object: the value is produced by next(obj)


@dataclass(frozen=True)
class AgentSetting:
    """Content a framework writes into the system prompt it builds when a setting is on."""

    volatility: Volatility
    category: str
    text: str  # what is written, for messages ("the current time")
    unless: str | None = None  # a keyword whose literal False turns the setting off again
    fix: str | None = None  # how to keep the content out of the system prompt (the finding's hint)


@dataclass(frozen=True)
class PartSpec:
    part: str
    arg: str
    shape: str


@dataclass(frozen=True)
class ApiSpec:
    api: str
    provider: str
    callables: tuple[str, ...]
    model: str | None
    parts: tuple[PartSpec, ...]
    settings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Knowledge:
    sources: dict[str, Source]
    identifier_names: dict[str, Volatility]
    identifier_attributes: dict[str, Volatility]
    sanitizers: dict[str, frozenset[Volatility]]
    memoizers: frozenset[str]
    types: dict[str, str]
    chaining: dict[str, frozenset[str]]
    apis: dict[str, ApiSpec]  # callable -> spec
    # Calls giving back the client they wrap (rules/llm_calls.yaml client_wrappers): name -> [args]
    client_wrappers: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Raw HTTP requests (rules/llm_calls.yaml): the clients' POST calls (URL first), their calls
    # taking the method first, and the URL path ending -> the callable whose request it sends.
    http_posts: frozenset[str] = frozenset()
    http_requests: frozenset[str] = frozenset()
    http_paths: dict[str, str] = field(default_factory=dict)
    # Calls running the function they are handed (rules/llm_calls.yaml forwarders): name ->
    # (the function's position, whether keyword arguments go to it).
    forwarders: dict[str, tuple[int, bool]] = field(default_factory=dict)
    stable: tuple[str, ...] = ()
    trigger_words: tuple[str, ...] = field(default=())
    api_method_names: frozenset[str] = frozenset()
    # Assembly points (rules/prompt_sinks.yaml): system content judged where it is put together.
    system_roles: frozenset[str] = frozenset()
    content_keys: tuple[str, ...] = ()
    role_keys: tuple[str, ...] = ("role",)
    system_messages: dict[str, tuple[str, ...]] = field(default_factory=dict)
    user_roles: frozenset[str] = frozenset()
    system_keywords: tuple[str, ...] = ()
    user_arguments: tuple[str, ...] = ()
    request_inputs: frozenset[str] = frozenset()  # parameter names holding the request's own input
    conversation_inputs: frozenset[str] = frozenset()  # parameter names holding the conversation so far
    observation_inputs: frozenset[str] = frozenset()  # parameter names holding what an agent's step observed
    memory_names: frozenset[str] = frozenset()  # value names holding what a memory store remembers
    tool_list_names: frozenset[str] = frozenset()  # names of lists that hold a request's tools
    # Framework settings that replay only the last N turns (PC009): name -> (window keywords, when keywords)
    history_windows: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)
    user_messages: dict[str, tuple[str, ...]] = field(default_factory=dict)
    agent_instructions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    chat_templates: frozenset[str] = frozenset()  # chat prompt templates judged where they are built
    # Lookups (rules/sources.yaml): (method glob, category) and, for generic method names,
    # (category, methods, receiver words).
    lookups: tuple[tuple[str, str], ...] = ()
    lookup_receivers: tuple[tuple[str, frozenset[str], tuple[str, ...]], ...] = ()
    # Methods of library clients that are lookups however the receiver is named: "pkg.Type.method" -> category.
    lookup_types: dict[str, str] = field(default_factory=dict)
    # Framework run state handed to callbacks (rules/sources.yaml run_state): type -> attributes.
    run_state: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Graph frameworks whose nodes take the run's state (rules/sources.yaml graph_nodes):
    # package -> the methods that register a node.
    graph_nodes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Request objects a model callback rewrites (rules/prompt_sinks.yaml request_system): type -> attributes.
    request_system: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Their message lists (rules/prompt_sinks.yaml request_messages): type -> attributes.
    request_messages: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Agent settings that add changing system content (rules/prompt_sinks.yaml agent_settings):
    # constructor -> keyword -> what it adds.
    agent_settings: dict[str, dict[str, AgentSetting]] = field(default_factory=dict)

    def lookup_category(self, method: str, receiver: str | None) -> str | None:
        """The category of a lookup call (``retrieval``, ``memory``) by its method's name and the
        last name of the object it is called on; None when it is not one."""
        key = (method, receiver)  # every call the evaluator meets asks: answered once per name pair
        if key not in self._lookup_answers:
            self._lookup_answers[key] = self._lookup_category(method.lower(), receiver)
        return self._lookup_answers[key]

    @cached_property
    def _lookup_answers(self) -> dict[tuple[str, str | None], str | None]:
        return {}

    def _lookup_category(self, method: str, receiver: str | None) -> str | None:
        for category, regex in _lookup_regexes(self.lookups):
            if regex.match(method):
                return category
        for category, methods, words in self.lookup_receivers:
            if method in methods and any(part.startswith(word) or part.endswith(word)
                                         for part in _name_parts(receiver or "") for word in words):
                return category
        return None

    @cached_property
    def client_types(self) -> frozenset[str]:
        """The abstract client types the constructors in ``types`` make (``openai.client``)."""
        return frozenset(self.types.values())

    @cached_property
    def client_constructor_call(self) -> re.Pattern[str]:
        """A call of one of the client constructors in ``types`` by its last name (`ChatOpenAI(`),
        to tell from a module's text whether it may build a client."""
        names = sorted({name.split("(")[0].rsplit(".", 1)[-1] for name in self.types if "." in name.split("(")[0]})
        return re.compile(rf"\b(?:{'|'.join(map(re.escape, names))})\(")

    @cached_property
    def callback_types(self) -> frozenset[str]:
        """Last names of the request types a model callback rewrites (``LlmRequest``): how a
        callback's parameter annotation is recognised, before any import is resolved."""
        return _last_names([*self.request_system, *self.request_messages])

    @property
    def assembly_names(self) -> frozenset[str]:
        """Last names of the assembly constructors, plus the role marker: what the reach looks for."""
        names = {name.rsplit(".", 1)[-1] for name in (*self.system_messages, *self.agent_instructions,
                                                      *self.agent_settings, *self.chat_templates)}
        return frozenset(names | {ROLE_MARKER})

    def is_stable_name(self, name: str) -> bool:
        return any(_glob_match(pattern, name) for pattern in self.stable)


def _glob_match(pattern: str, name: str) -> bool:
    return _glob_regex(pattern).match(name) is not None


@lru_cache(maxsize=4096)
def _name_parts(name: str) -> tuple[str, ...]:
    """A receiver's name parts (`chunks_vdb`, `vectorStore`), each matched at its start or end by
    the store words: `vectorstore` is a vector store, while `storage` is not a `rag`."""
    return tuple(part for part in re.split(r"[_\W]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()) if part)


@lru_cache(maxsize=8)
def _lookup_regexes(lookups: tuple[tuple[str, str], ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """One pattern per category: a lookup is tested on every call the evaluator sees."""
    categories = dict.fromkeys(category for _, category in lookups)
    return tuple((category, re.compile("^(?:" + "|".join(_glob_source(p) for p, c in lookups if c == category) + ")$"))
                 for category in categories)


def _glob_source(pattern: str) -> str:
    return re.escape(pattern).replace(r"\*", ".*")


@lru_cache(maxsize=1024)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    # Compiled once: lookups are matched against every call the evaluator sees.
    return re.compile("^" + _glob_source(pattern) + "$")


def _load_yaml(name: str) -> dict[str, Any]:
    with open(rules_dir() / name, encoding="utf-8") as handle:
        # libyaml's safe loader when built in: ten times faster, and every run loads these tables.
        return yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}


@lru_cache(maxsize=1)
def _builtin_tables() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    return (_load_yaml("sources.yaml"), _load_yaml("sanitizers.yaml"), _load_yaml("llm_calls.yaml"),
            _load_yaml("prompt_sinks.yaml"))


def builtin_system_keywords() -> tuple[str, ...]:
    """Keyword arguments that name system content in any call (rules/prompt_sinks.yaml)."""
    return tuple(_builtin_tables()[3]["system_keywords"])


def builtin_callback_types() -> tuple[str, ...]:
    """Last names of the request types a model callback rewrites (rules/prompt_sinks.yaml)."""
    sinks = _builtin_tables()[3]
    return tuple(sorted(_last_names([*sinks.get("request_system", {}), *sinks.get("request_messages", {})])))


def builtin_http_paths() -> tuple[str, ...]:
    """URL path endings of providers' chat endpoints (rules/llm_calls.yaml http_paths)."""
    return tuple(_builtin_tables()[2].get("http_paths", {}))


def builtin_forwarders() -> dict[str, tuple[int, bool]]:
    """Calls that run the function they are handed (rules/llm_calls.yaml forwarders)."""
    return {name: (int(spec["function"]), bool(spec.get("keywords", True)))
            for name, spec in _builtin_tables()[2].get("forwarders", {}).items()}


def forwarded_positions() -> dict[str, int]:
    """The forwarders by last name, with where the function they run is among their arguments:
    what the name-based passes (the text scan, the reach, the parameter summaries) match."""
    return {name.rsplit(".", 1)[-1]: position for name, (position, _) in builtin_forwarders().items()}


def _http_paths(table: dict[str, str], apis: dict[str, ApiSpec], where: str) -> dict[str, str]:
    unknown = sorted(str(callable_) for callable_ in table.values() if callable_ not in apis)
    if unknown:
        raise ConfigError(f"{where}: http paths: {', '.join(unknown)} names no LLM call "
                          f"(one of the `callables` of rules/llm_calls.yaml or a declared wrapper)")
    return dict(table)


def _last_names(qualnames: Iterable[str]) -> frozenset[str]:
    return frozenset(name.rsplit(".", 1)[-1] for name in qualnames)


def setting_names(config: Config) -> frozenset[str]:
    """Value names taken to be deployment settings (rules/prompt_sinks.yaml, `setting-names`)."""
    return frozenset(name.lower() for name in (*_builtin_tables()[3].get("setting_names", ()), *config.setting_names))


def request_input_names() -> frozenset[str]:
    """Value names taken to hold the request's own new input (rules/prompt_sinks.yaml)."""
    return frozenset(name.lower() for name in _builtin_tables()[3].get("request_inputs", ()))


def registering_methods(frameworks: dict[str, tuple[str, ...]], imports: Iterable[str]) -> frozenset[str]:
    """The methods that register a graph node (rules/sources.yaml ``graph_nodes``) in a module
    with these imports: those of the frameworks it imports."""
    imported = tuple(imports)
    return frozenset(method for package, names in frameworks.items()
                     if any(name == package or name.startswith(package + ".") for name in imported)
                     for method in names)


def _argument_lists(table: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    return {name: tuple(str(arg) for arg in args) for name, args in table.items()}


def _parse_source(name: str, raw: Any, where: str) -> Source:
    if not isinstance(raw, dict) or "volatility" not in raw:
        raise ConfigError(f"{where}: source '{name}' needs a table with 'volatility' and 'category'")
    try:
        volatility = Volatility(raw["volatility"])
    except ValueError:
        choices = ", ".join(v.value for v in Volatility)
        raise ConfigError(f"{where}: source '{name}': volatility must be one of {choices}") from None
    return Source(volatility, str(raw.get("category", "custom")), raw.get("mutates"),
                  bool(raw.get("via_next", False)))


def _agent_settings(table: dict[str, Any], where: str) -> dict[str, dict[str, AgentSetting]]:
    settings: dict[str, dict[str, AgentSetting]] = {}
    for name, keywords in table.items():
        if not isinstance(keywords, dict):
            raise ConfigError(f"{where}: agent settings of '{name}' must be a table of "
                              "keyword = {volatility, category, text}")
        settings[name] = {}
        for keyword, raw in keywords.items():
            source = _parse_source(f"{name}({keyword}=True)", raw, where)
            unless = raw.get("unless")
            fix = raw.get("fix")
            settings[name][str(keyword)] = AgentSetting(source.volatility, source.category,
                                                        str(raw.get("text", "changing content")),
                                                        str(unless) if unless else None,
                                                        str(fix) if fix else None)
    return settings


def _parse_api(raw: dict[str, Any], where: str) -> ApiSpec:
    try:
        parts = tuple(PartSpec(p["part"], str(p["arg"]), p.get("shape", "text")) for p in raw["parts"])
        callables = raw["callables"]
        if isinstance(callables, str):
            callables = [callables]
        return ApiSpec(
            api=raw.get("api", callables[0]),
            provider=raw.get("provider", "unknown"),
            callables=tuple(callables),
            model=raw.get("model"),
            parts=parts,
            settings=tuple(raw.get("settings", ())),
        )
    except (KeyError, TypeError, IndexError) as exc:
        raise ConfigError(
            f"{where}: an LLM call signature needs 'callables' and 'parts' "
            f"([{{part, arg, shape}}]); problem with {exc}"
        ) from None


# Methods of a client object whose names every framework also gives its own methods: Ollama's
# `chat` and `generate`. As bare names they made every `chat(...)` lead to an LLM call (langroid's
# cold run 5 → 10 s); they are matched with the receiver the SDK's examples name.
GENERIC_CLIENT_METHODS = frozenset({"chat", "generate"})


def _call_suffixes(callable_name: str) -> tuple[str, ...]:
    """How an LLM call looks at the call site, specific enough for a text-level pre-selection:
    ``completions.create`` (not every ``.create``), ``generate_content``, ``completion``; a
    generic client method with its usual receivers (``ollama.chat``, ``client.chat``)."""
    parts = callable_name.split(".")
    method = parts[-1]
    if method in GENERIC_CLIENT_METHODS and len(parts) == 3 and parts[1] == "client":
        return f"{parts[0]}.{method}", f"client.{method}"
    if method in ("create", "parse", "stream", "invoke", "ainvoke", "batch", "astream", "count_tokens") \
            and len(parts) >= 2 and parts[-2] not in ("chat_model", "client"):
        return (f"{parts[-2]}.{method}",)
    return (method,)


def load_knowledge(config: Config) -> Knowledge:
    sources_raw, sanitizers_raw, calls_raw, sinks_raw = _builtin_tables()
    sources = {k: _parse_source(k, v, "rules/sources.yaml") for k, v in sources_raw["sources"].items()}
    where = str(config.config_file or "configuration")
    sources.update({k: _parse_source(k, v, where) for k, v in config.sources.items()})
    identifier_names = {
        name.lower(): Volatility(vol)
        for vol, names in sources_raw.get("identifier_names", {}).items()
        for name in names
    }
    identifier_attributes = {
        name: Volatility(vol)
        for vol, names in sources_raw.get("identifier_attributes", {}).items()
        for name in names
    }
    sanitizers = {
        name: frozenset(Volatility(v) for v in spec.get("removes", []))
        for name, spec in sanitizers_raw["sanitizers"].items()
    }
    for name in config.sanitizers:
        sanitizers[name] = frozenset(v for v in Volatility if v.is_volatile)
    apis: dict[str, ApiSpec] = {}
    for raw in [*calls_raw["apis"], *config.wrappers]:
        spec = _parse_api(raw, where)
        for callable_name in spec.callables:
            apis[callable_name] = spec
    system_messages = {**_argument_lists(sinks_raw["system_messages"]), **_argument_lists(config.system_messages)}
    agent_instructions = {**_argument_lists(sinks_raw["agent_instructions"]),
                          **_argument_lists(config.agent_instructions)}
    lookups = [(str(name).lower(), category) for category, names in sources_raw.get("lookups", {}).items()
               for name in names]
    lookups += [(str(name).lower(), category) for category, names in config.lookups.items() for name in names]
    lookup_receivers = tuple((category, frozenset(spec["methods"]), tuple(spec["receivers"]))
                             for category, spec in sources_raw.get("lookup_receivers", {}).items())
    lookup_types = {f"{type_name}.{method}": category
                    for category, types in sources_raw.get("lookup_types", {}).items()
                    for type_name, methods in types.items() for method in methods}
    lookup_types.update((name, category) for category, names in config.lookup_types.items() for name in names)
    run_state = {**_argument_lists(sources_raw.get("run_state", {})), **_argument_lists(config.run_state)}
    graph_nodes = {**_argument_lists(sources_raw.get("graph_nodes", {})), **_argument_lists(config.graph_nodes)}
    request_system = {**_argument_lists(sinks_raw.get("request_system", {})), **_argument_lists(config.request_system)}
    request_messages = {**_argument_lists(sinks_raw.get("request_messages", {})),
                        **_argument_lists(config.request_messages)}
    agent_settings = _agent_settings(sinks_raw.get("agent_settings", {}), "rules/prompt_sinks.yaml")
    for name, keywords in _agent_settings(config.agent_settings, where).items():
        agent_settings[name] = {**agent_settings.get(name, {}), **keywords}
    client_wrappers = {**_argument_lists(calls_raw.get("client_wrappers", {})),
                       **_argument_lists(config.client_wrappers)}
    triggers = {name.split(".")[0] for name in calls_raw["types"]}
    triggers |= {name.split(".")[0] for name in [*apis, *system_messages, *agent_instructions, *agent_settings,
                                                 *client_wrappers]}
    return Knowledge(
        sources=sources,
        identifier_names=identifier_names,
        identifier_attributes=identifier_attributes,
        sanitizers=sanitizers,
        memoizers=frozenset(sanitizers_raw.get("memoizers", [])),
        types=dict(calls_raw["types"]),
        chaining={k: frozenset(v) for k, v in calls_raw.get("chaining", {}).items()},
        apis=apis,
        client_wrappers=client_wrappers,
        http_posts=frozenset(calls_raw.get("http_posts", ())),
        http_requests=frozenset(calls_raw.get("http_requests", ())),
        http_paths={**_http_paths(calls_raw.get("http_paths", {}), apis, "rules/llm_calls.yaml"),
                    **_http_paths(config.http_paths, apis, where)},
        forwarders=builtin_forwarders(),
        stable=config.stable,
        trigger_words=tuple(sorted(triggers)),
        # `<client type>.__call__` (a client called as a function) is never spelled at a call site;
        # as a name it made every project `__call__` look like an LLM API (agno 52 → 81 CPU-s).
        api_method_names=frozenset(suffix for name in apis for suffix in _call_suffixes(name) if not suffix.startswith("__"))
        | {"send_message"},
        system_roles=frozenset(sinks_raw["system_roles"]),
        content_keys=tuple(sinks_raw["content_keys"]),
        role_keys=tuple(sinks_raw.get("role_keys", ("role",))),
        system_messages=system_messages,
        user_roles=frozenset(sinks_raw["user_roles"]),
        system_keywords=tuple(sinks_raw["system_keywords"]),
        user_arguments=tuple(sinks_raw["user_arguments"]),
        request_inputs=frozenset(sinks_raw.get("request_inputs", ())),
        conversation_inputs=frozenset(sinks_raw.get("conversation_inputs", ())),
        observation_inputs=frozenset(sinks_raw.get("observation_inputs", ())),
        memory_names=frozenset(name.lower() for name in (*sinks_raw.get("memory_names", ()), *config.memory_names)),
        tool_list_names=frozenset(name.lower() for name in (*sinks_raw.get("tool_list_names", ()),
                                                            *config.tool_list_names)),
        history_windows={name: (tuple(spec.get("window", ())), tuple(spec.get("when", ())))
                         for name, spec in sinks_raw.get("history_windows", {}).items()},
        user_messages=_argument_lists(sinks_raw["user_messages"]),
        agent_instructions=agent_instructions,
        chat_templates=frozenset((*sinks_raw.get("chat_templates", ()), *config.chat_templates)),
        lookups=tuple(lookups),
        lookup_receivers=lookup_receivers,
        lookup_types=lookup_types,
        run_state=run_state,
        graph_nodes=graph_nodes,
        request_system=request_system,
        request_messages=request_messages,
        agent_settings=agent_settings,
    )
