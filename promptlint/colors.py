"""Whether output is colored: ``--color auto|always|never``, then the ``NO_COLOR`` and
``FORCE_COLOR`` conventions (https://no-color.org, https://force-color.org), then whether stdout
is a terminal. An explicit ``--color always/never`` wins over the environment; in ``auto`` a
non-empty ``NO_COLOR`` wins over ``FORCE_COLOR``."""

from __future__ import annotations

import os
import sys
from typing import TextIO

MODES = ("auto", "always", "never")
_mode = "auto"


def set_mode(mode: str) -> None:
    global _mode
    if mode not in MODES:
        raise ValueError(f"--color must be one of {', '.join(MODES)}, got {mode!r}")
    _mode = mode


def wanted(stream: TextIO | None = None) -> bool:
    if _mode != "auto":
        return _mode == "always"
    if os.environ.get("NO_COLOR", ""):
        return False
    if os.environ.get("FORCE_COLOR", ""):
        return True
    stream = stream or sys.stdout
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
