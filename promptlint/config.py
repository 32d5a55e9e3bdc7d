"""Configuration: ``[tool.promptlint]`` in pyproject.toml (or ``promptlint.toml``), found upwards
from the analyzed path; CLI flags override it. Unknown keys are errors, never silently ignored."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from promptlint.model import Severity


class ConfigError(Exception):
    """Bad configuration: reported with exit code 2."""


@dataclass(frozen=True)
class Config:
    root: Path = Path(".")  # project root: where the config was found, else the analyzed path
    config_file: Path | None = None
    select: tuple[str, ...] = ()  # empty: all rules
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    force_exclude: bool = False  # apply exclude/gitignore to files named on the command line too
    check_tests: bool = False  # analyze test code too (discover.TEST_FOLDERS and TEST_FILES)
    fail_on: Severity = Severity.WARNING
    show_info: bool = False
    # Not a setting: False when info findings are analyzed only for suppressions and then hidden,
    # so the estimator (a ~0.6 s tokenizer load) is not run for them.
    estimate_info: bool = True
    # Not a setting: True for the command line's runs, which may load the bundled tokenizer in a
    # helper process while they evaluate in this one (estimate.tokens.count_in_background).
    count_in_background: bool = False
    # Not a setting: True while a Jupyter notebook's cells are analyzed (promptlint.notebooks); its
    # calls all run in one kernel process, so per-process orders are one order there.
    one_process: bool = False
    min_stable_chars: int = 200  # stable text after a volatile value below this is "a few tokens"
    # Knowledge extensions (same shapes as the files in rules/):
    sources: dict[str, Any] = field(default_factory=dict, hash=False)
    stable: tuple[str, ...] = ()  # allowlist of qualified names / attribute paths known stable
    sanitizers: tuple[str, ...] = ()
    wrappers: tuple[dict[str, Any], ...] = ()
    client_wrappers: dict[str, Any] = field(default_factory=dict, hash=False)  # name -> [client args]
    http_paths: dict[str, Any] = field(default_factory=dict, hash=False)  # URL path ending -> LLM callable
    system_messages: dict[str, Any] = field(default_factory=dict, hash=False)  # name -> [text args]
    agent_instructions: dict[str, Any] = field(default_factory=dict, hash=False)  # name -> [args]
    chat_templates: tuple[str, ...] = ()  # chat template constructors judged where they are built
    lookups: dict[str, Any] = field(default_factory=dict, hash=False)  # category -> [method globs]
    lookup_types: dict[str, Any] = field(default_factory=dict, hash=False)  # category -> ["pkg.Type.method"]
    run_state: dict[str, Any] = field(default_factory=dict, hash=False)  # type -> [attributes]
    graph_nodes: dict[str, Any] = field(default_factory=dict, hash=False)  # package -> [registering methods]
    request_system: dict[str, Any] = field(default_factory=dict, hash=False)  # type -> [attribute paths]
    request_messages: dict[str, Any] = field(default_factory=dict, hash=False)  # type -> [message list attributes]
    agent_settings: dict[str, Any] = field(default_factory=dict, hash=False)  # agent -> keyword -> what it adds
    setting_names: tuple[str, ...] = ()  # value names that are deployment settings (PC010)
    memory_names: tuple[str, ...] = ()  # value names that hold what a memory store remembers (PC001)
    tool_list_names: tuple[str, ...] = ()  # names of lists that hold a request's tools (PC006)
    # Estimator
    tokenizer: str | None = None  # path to a tokenizer.json for exact counts
    providers: tuple[str, ...] = ()  # providers/models to price when the call's model is unknown
    calls_per_day: float = 1000.0
    calls_per_conversation: float = 10.0  # a per-session value misses on one call of a conversation
    traffic: tuple[tuple[str, float], ...] = ()  # glob of path[:function] -> calls per day
    prices: tuple[dict[str, Any], ...] = ()  # extra or overriding price rows
    # Cache and speed
    cache_dir: str | None = ".promptlint_cache"
    jobs: int = 0  # 0: one per core
    file_timeout_s: float = 10.0
    max_file_bytes: int = 5_000_000


_KEYS: dict[str, str] = {  # toml key -> Config field
    "select": "select",
    "ignore": "ignore",
    "extend-select": "extend_select",
    "per-file-ignores": "per_file_ignores",
    "exclude": "exclude",
    "extend-exclude": "extend_exclude",
    "respect-gitignore": "respect_gitignore",
    "force-exclude": "force_exclude",
    "check-tests": "check_tests",
    "fail-on": "fail_on",
    "show-info": "show_info",
    "min-stable-chars": "min_stable_chars",
    "sources": "sources",
    "stable": "stable",
    "sanitizers": "sanitizers",
    "wrappers": "wrappers",
    "client-wrappers": "client_wrappers",
    "http-paths": "http_paths",
    "system-messages": "system_messages",
    "agent-instructions": "agent_instructions",
    "chat-templates": "chat_templates",
    "lookups": "lookups",
    "lookup-types": "lookup_types",
    "run-state": "run_state",
    "graph-nodes": "graph_nodes",
    "request-system": "request_system",
    "agent-settings": "agent_settings",
    "request-messages": "request_messages",
    "setting-names": "setting_names",
    "memory-names": "memory_names",
    "tool-list-names": "tool_list_names",
    "tokenizer": "tokenizer",
    "providers": "providers",
    "calls-per-day": "calls_per_day",
    "calls-per-conversation": "calls_per_conversation",
    "traffic": "traffic",
    "prices": "prices",
    "cache-dir": "cache_dir",
    "jobs": "jobs",
    "file-timeout": "file_timeout_s",
    "max-file-bytes": "max_file_bytes",
}


def find_config(start: Path) -> Path | None:
    """The nearest pyproject.toml with a [tool.promptlint] table, or promptlint.toml, upwards."""
    here = start.resolve()
    if here.is_file():
        here = here.parent
    for folder in (here, *here.parents):
        own = folder / "promptlint.toml"
        if own.is_file():
            return own
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and "[tool.promptlint" in _read_text(pyproject):
            return pyproject
    return None


PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def project_root(folder: Path) -> Path:
    """The project a single file belongs to: the nearest folder upwards with a project marker.

    Used when files are named one by one (pre-commit, editors) and no configuration exists: the
    analysis must still see the whole project, since a value can come from another module.
    """
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).exists() for marker in PROJECT_MARKERS):
            return candidate
    return folder


def outside_packages(folder: Path) -> Path:
    """The folder a package named on the command line is imported from: a package (a folder with
    `__init__.py`) is part of a project, not one, and its modules import their siblings by the
    top package's name (`gui_agents/s3` imports `gui_agents.s3.core`), so the analysis needs the
    folder above the top package to see the modules beside it."""
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        folder = folder.parent
    return folder


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def load_config(start: Path, config_file: Path | None = None) -> Config:
    """Load the configuration that applies to ``start`` (a file or folder)."""
    path = config_file or find_config(start)
    if path is None:
        root = start.resolve()
        if root.is_file():
            return Config(root=project_root(outside_packages(root.parent)))
        return Config(root=outside_packages(root))
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc}") from exc
    table = data if path.name == "promptlint.toml" else data.get("tool", {}).get("promptlint", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.promptlint] must be a table")
    return apply_settings(Config(root=path.parent.resolve(), config_file=path), table, str(path))


def apply_settings(config: Config, table: dict[str, Any], where: str) -> Config:
    """Validate a settings table (from a file or the CLI) and return the updated config."""
    changes: dict[str, Any] = {}
    for key, value in table.items():
        name = _KEYS.get(key) or _KEYS.get(key.replace("_", "-"))
        if name is None:
            known = ", ".join(sorted(_KEYS))
            raise ConfigError(f"{where}: unknown key '{key}' in [tool.promptlint] (known: {known})")
        changes[name] = _coerce(name, value, where, key)
    config = replace(config, **changes)
    _check_rule_codes(config, where)
    return config


def _coerce(name: str, value: Any, where: str, key: str) -> Any:
    def fail(expected: str) -> ConfigError:
        return ConfigError(f"{where}: '{key}' must be {expected}, got {value!r}")

    if name in ("select", "ignore", "extend_select", "exclude", "extend_exclude", "stable",
                "sanitizers", "providers", "chat_templates", "setting_names", "memory_names",
                "tool_list_names"):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise fail("a list of strings")
        return tuple(value)
    if name == "per_file_ignores":
        if not isinstance(value, dict) or not all(
            isinstance(v, list) and all(isinstance(c, str) for c in v) for v in value.values()
        ):
            raise fail("a table of glob = [codes]")
        return tuple((glob, tuple(codes)) for glob, codes in value.items())
    if name == "traffic":
        if not isinstance(value, dict) or not all(
            isinstance(v, (int, float)) and v >= 0 for v in value.values()
        ):
            raise fail("a table of 'path-glob[:function]' = calls per day")
        return tuple((k, float(v)) for k, v in value.items())
    if name == "fail_on":
        try:
            return Severity(value)
        except ValueError:
            raise fail("one of 'info', 'warning', 'error'") from None
    if name in ("respect_gitignore", "show_info", "force_exclude", "check_tests"):
        if not isinstance(value, bool):
            raise fail("true or false")
        return value
    if name in ("min_stable_chars", "jobs", "max_file_bytes"):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise fail("a non-negative integer")
        return value
    if name in ("calls_per_day", "calls_per_conversation", "file_timeout_s"):
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
            raise fail("a positive number")
        return float(value)
    if name == "sources":
        if not isinstance(value, dict):
            raise fail("a table of qualified name = {volatility, category}")
        return value
    if name == "agent_settings":
        if not isinstance(value, dict) or not all(isinstance(v, dict) and all(isinstance(s, dict) for s in v.values())
                                                  for v in value.values()):
            raise fail("a table of qualified name = {keyword = {volatility, category, text}}")
        return value
    if name == "http_paths":
        if not isinstance(value, dict) or not all(isinstance(k, str) and k[:1] in ("/", ":") and isinstance(v, str)
                                                  for k, v in value.items()):
            raise fail('a table of "/url/path/ending" (or ":method") = "the LLM callable whose request it sends"')
        return value
    if name in ("lookups", "lookup_types"):
        if not isinstance(value, dict) or not all(
            isinstance(v, list) and all(isinstance(a, str) for a in v) for v in value.values()
        ):
            raise fail("a table of category = [method names or globs]" if name == "lookups"
                       else "a table of category = [\"package.Type.method\" names]")
        return value
    if name in ("system_messages", "agent_instructions", "run_state", "request_system", "request_messages",
                "client_wrappers", "graph_nodes"):
        if not isinstance(value, dict) or not all(
            isinstance(v, list) and all(isinstance(a, str) for a in v) for v in value.values()
        ):
            raise fail("a table of qualified name = [attribute names]"
                       if name in ("run_state", "request_system", "request_messages")
                       else "a table of package = [method names]" if name == "graph_nodes"
                       else "a table of qualified name = [argument names or #N positions]")
        return value
    if name in ("wrappers", "prices"):
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise fail("an array of tables")
        return tuple(value)
    if name in ("tokenizer", "cache_dir"):
        if value is not None and not isinstance(value, str):
            raise fail("a string")
        return value or None
    return value


def _check_rule_codes(config: Config, where: str) -> None:
    from promptlint.checks import is_known_selector

    codes = [*config.select, *config.ignore, *config.extend_select]
    codes += [c for _, cs in config.per_file_ignores for c in cs]
    for code in codes:
        if not is_known_selector(code):
            raise ConfigError(f"{where}: unknown rule code or prefix '{code}' (see `promptlint rules`)")
