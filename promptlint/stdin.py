"""``check --stdin-filename PATH``: analyze one file read from stdin (editors, formatters' pipes).

The text is analyzed as a file at PATH: PATH picks the configuration (found upwards from it), the
per-file ignores, ``--force-exclude``, whether it is Python or a template, and the path every
finding shows. The analysis sees that one file alone (the buffer is not on disk, so the rest of
the project cannot be mixed with it consistently): a value born in another module is not followed. Code frames show the text read, not the file on disk; no fixes are offered.
Nothing is written to the project: the text goes to a temporary folder, and no cache is used.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from pathlib import Path
from typing import Any

from promptlint.config import Config
from promptlint.pipeline import CheckOptions, CheckOutcome, run_check


def run_on_stdin(stdin_filename: Path, text: str, config: Config, options: CheckOptions, cwd: Path) -> CheckOutcome:
    root = config.root.resolve()
    absolute = Path(os.path.abspath(cwd / stdin_filename))
    try:
        relative = absolute.relative_to(root)
    except ValueError:
        relative = Path(absolute.name)
    shown = os.path.relpath(absolute, cwd) if absolute.is_relative_to(cwd) else str(absolute)
    with tempfile.TemporaryDirectory(prefix="promptlint-stdin-") as folder:
        scratch = Path(folder).resolve()
        target = scratch / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        isolated = dataclasses.replace(config, root=scratch, config_file=None, cache_dir=None,
                                       respect_gitignore=False, force_exclude=False)
        # No fixes: their edits address the scratch copy, not the editor's buffer.
        stdin_options = dataclasses.replace(options, diff_ref=None, baseline=None, fix=False, show_fixes=False,
                                            keep_unfiltered=False, attach_fixes=False)
        outcome = run_check([target], isolated, stdin_options, scratch)
        inner = relative.as_posix()
        mapping = {inner: shown, str(target): shown, os.path.relpath(target, scratch): shown}
        result = outcome.result
    from promptlint.reporters.text import BUFFERS

    BUFFERS[shown] = tuple(text.splitlines())  # code frames show the buffer, not the file on disk
    return CheckOutcome(_mapped(result, mapping), outcome.notes)


def _mapped(value: Any, mapping: dict[str, str]) -> Any:
    """A copy of a result with every ``path`` field in ``mapping`` replaced (locations, edits, errors)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for field in dataclasses.fields(value):
            current = getattr(value, field.name)
            if field.name == "path" and isinstance(current, str):
                if current in mapping:
                    changes[field.name] = mapping[current]
            elif isinstance(current, (tuple, list)) or dataclasses.is_dataclass(current):
                new = _mapped(current, mapping)
                if new is not current:
                    changes[field.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    if isinstance(value, (tuple, list)):
        items = [_mapped(item, mapping) for item in value]
        if any(a is not b for a, b in zip(items, value)):
            return type(value)(items)
    return value
