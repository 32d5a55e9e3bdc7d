"""What the reach pass (engine._reaching) read of each file, kept so that an edit which changes
nothing it reads does not send it back over the whole project.

The reach answer depends on the names each file calls (which files get parsed) and, for the
parsed files, on their definitions: what each calls, whether it can be called without arguments,
and where its parameters flow. A definition that calls nothing and has no flows (a constant
getter, a function appended by an edit) is *inert*: it never reaches an LLM call and gives no
slot; its name only counts among the definitions of that name when wrappers are inferred, which
matters only for names that some definition gives slots to (see ``infer_wrappers``). So an edited
file leaves the stored answer valid when its called names, its active (non-inert) definitions in
order, and its inert definitions of names that have flows are all unchanged. The reaching
definitions of that file are then found again by their place among the active ones.

The record is its own cache file, read only when the files' hashes no longer match the stored
reach (a warm run never reads it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from promptlint.analysis.reach import Definition
from promptlint.cache import stable_hash


@dataclass(frozen=True)
class FileInputs:
    """What the reach pass read of one file."""

    sha: str | None
    called: str  # digest of whether it is an entry and of the names it calls that lead somewhere
    active: str | None  # digest of its active definitions in order; None: not parsed
    active_index: tuple[int, ...] = ()  # where each active definition stands among all of them
    inert: tuple[str, ...] = ()  # names of its inert definitions, sorted

    def to_json(self) -> list[Any]:
        return [self.sha, self.called, self.active, list(self.active_index), list(self.inert)]

    @staticmethod
    def from_json(raw: Any) -> FileInputs:
        sha, called, active, index, inert = raw
        return FileInputs(None if sha is None else str(sha), str(called), None if active is None else str(active),
                          tuple(int(i) for i in index), tuple(str(n) for n in inert))


def _digest(value: Any) -> str:
    return stable_hash(value)[:24]


def _inert(definition: Definition) -> bool:
    return not definition[1] and not definition[3]


def file_inputs(sha: str | None, entry: bool, called: tuple[str, ...], relevant: frozenset[str],
                definitions: tuple[Definition, ...] | None) -> FileInputs:
    """The record of one file: ``definitions`` None when the reach pass did not parse it. Of
    the names it calls (read from its text, so its own ``def name(`` counts), only those that
    decided anything count: the names that lead to an LLM call or an assembly point, at any
    round of the pass (``relevant``); a file is parsed for calling one of them."""
    called_digest = _digest([entry, sorted(relevant.intersection(called))])
    if definitions is None:
        return FileInputs(sha, called_digest, None)
    index = tuple(i for i, d in enumerate(definitions) if not _inert(d))
    active = [[d[0], sorted(d[1]), d[2], [list(flow) for flow in d[3]]] for d in (definitions[i] for i in index)]
    return FileInputs(sha, called_digest, _digest(active), index,
                      tuple(sorted(d[0] for d in definitions if _inert(d))))


def flow_names(definitions: Any) -> list[str]:
    """Names with at least one definition whose parameters flow somewhere: the only names whose
    count of definitions can change which wrappers are inferred."""
    return sorted({d[0] for found in definitions for d in found if d[3]})


def same_reach(before: FileInputs, now: FileInputs, flow_named: frozenset[str]) -> bool:
    """Whether the reach pass reads the same of this file now as it did."""
    if before.called != now.called or before.active != now.active:
        return False
    changed_inert = set(before.inert) ^ set(now.inert)
    return changed_inert.isdisjoint(flow_named)


def moved_indices(selected: tuple[int, ...], before: FileInputs, now: FileInputs) -> tuple[int, ...] | None:
    """The reaching definitions of a file, as indices into its definitions now (inert ones may
    have been added or removed around them); None when they cannot be placed."""
    position = {index: place for place, index in enumerate(before.active_index)}
    if any(index >= 0 and index not in position for index in selected):
        return None
    return tuple(index if index < 0 else now.active_index[position[index]] for index in selected)
