"""promptlint: find LLM prompt layouts that destroy the provider's prefix cache.

The stable Python API is ``promptlint.check(paths, config=...) -> Result`` and the classes of
``promptlint.api`` (docs/integrations.md#python-api); they are imported on first use, so
``import promptlint`` stays cheap for the command line and the pre-commit hook.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_API = ("check", "Result", "Finding", "FileError", "Summary", "CallSite", "VolatileSource", "Related",
        "Estimate", "ProviderLoss", "CheckError", "ConfigError")
__all__ = ["__version__", *_API]

if TYPE_CHECKING:
    from promptlint.api import (CallSite, CheckError, ConfigError, Estimate, FileError, Finding, ProviderLoss,
                                Related, Result, Summary, VolatileSource, check)


def __getattr__(name: str) -> Any:
    if name in _API:
        from promptlint import api

        return getattr(api, name)
    raise AttributeError(f"module 'promptlint' has no attribute {name!r}")
