"""Calls per day for a call site: ``traffic`` globs in the config, else ``calls-per-day``.

A traffic key is ``path-glob`` or ``path-glob:function``; the function part matches the enclosing
function's qualified name, its last component (``answer`` matches ``Agent.answer``) or a glob. The
most specific key wins: one naming a function beats one naming only a file, and a longer glob
beats a shorter one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

from promptlint.config import Config
from promptlint.model import CallSite

_FUNCTION = re.compile(r"^[\w.*?\[\]<>]+$")


@dataclass(frozen=True)
class Traffic:
    calls_per_day: float
    source: str  # "traffic 'app/agent.py:answer'" or "default calls-per-day"


def traffic_for(call: CallSite, config: Config) -> Traffic:
    path = _relative_path(call.location.path, config.root)
    best: tuple[tuple[int, int], str, float] | None = None
    for key, value in config.traffic:
        glob, function = split_key(key)
        if not _path_matches(path, glob):
            continue
        if function is not None and not _function_matches(call.function, function):
            continue
        rank = (function is not None, len(glob.replace("*", "")))
        if best is None or rank > best[0]:
            best = (rank, key, value)
    if best is None:
        return Traffic(config.calls_per_day, "default calls-per-day")
    return Traffic(best[2], f"traffic '{best[1]}'")


def split_key(key: str) -> tuple[str, str | None]:
    if ":" in key:
        glob, function = key.rsplit(":", 1)
        if glob and _FUNCTION.match(function):
            return glob, function
    return key, None


def _relative_path(path: str, root: Path) -> str:
    candidate = Path(path)
    if candidate.is_absolute():
        try:
            candidate = candidate.resolve().relative_to(root.resolve())
        except ValueError:
            pass
    return PurePosixPath(candidate.as_posix()).as_posix().removeprefix("./")


def _path_matches(path: str, glob: str) -> bool:
    glob = glob.removeprefix("./")
    return fnmatchcase(path, glob) or fnmatchcase(path, f"*/{glob}")


def _function_matches(function: str | None, pattern: str) -> bool:
    if not function:
        return False
    return (function == pattern or function.endswith(f".{pattern}")
            or fnmatchcase(function, pattern))
