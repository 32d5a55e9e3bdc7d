"""Internal errors: an exception raised by promptlint's own code is a bug in promptlint, never a
problem of the user's file. It is recorded as a FileError of kind "internal" (the exception and
where in promptlint it happened), the rest of the run completes, and the exit code is 2
(docs/robustness.md), so a crash can neither read as a finding nor hide behind a clean run.
"""

from __future__ import annotations

import traceback
from pathlib import Path

from promptlint.model import INTERNAL_ERROR, FileError

PACKAGE_ROOT = Path(__file__).resolve().parent
# The project has no public issue-tracker URL yet (README uses <owner> placeholders): name it plainly.
REPORT_HINT = "please report it on promptlint's issue tracker with this message and, if you can, the file"


def internal_error(path: str, exc: BaseException, stage: str) -> FileError:
    """A FileError of kind "internal" for ``exc``, raised while ``stage`` ran on ``path``."""
    exception = f"{type(exc).__name__}: {exc}"
    where = raised_at(exc)
    message = f"internal error in promptlint ({stage}; a bug in promptlint, not in this file): {exception}"
    if where:
        message += f" [at {where}]"
    return FileError(path, message, kind=INTERNAL_ERROR, exception=exception, where=where)


def raised_at(exc: BaseException) -> str | None:
    """The innermost frame of promptlint's own code in the traceback, as "promptlint/x.py:12 in f";
    the innermost frame of all when none is promptlint's (an exception raised inside a library)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return None
    ours = [f for f in frames if _inside_package(f.filename)]
    frame = (ours or frames)[-1]
    return f"{_short(frame.filename)}:{frame.lineno} in {frame.name}"


def _inside_package(filename: str) -> bool:
    try:
        return Path(filename).resolve().is_relative_to(PACKAGE_ROOT)
    except (OSError, ValueError):
        return False


def _short(filename: str) -> str:
    """A path relative to promptlint's parent folder ("promptlint/engine.py"), else the name as is."""
    try:
        return Path(filename).resolve().relative_to(PACKAGE_ROOT.parent).as_posix()
    except (OSError, ValueError):
        return filename
