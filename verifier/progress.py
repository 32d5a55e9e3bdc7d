"""Progress while replaying: rich bars on a terminal, a few plain lines elsewhere (CI logs)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from verifier.backends import RunKey
from verifier.records import SiteRequests


class RichProgress:
    """One bar per run (site × layout) plus a line for the current phase, on stderr."""

    def __init__(self, sites: Sequence[SiteRequests], stream: TextIO | None = None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.stream = stream or sys.stderr
        self.live = self.stream.isatty()
        self.progress = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=Console(file=self.stream), transient=True, disable=not self.live,
        )
        self.phase_task = self.progress.add_task("", total=None)
        self.tasks = {
            (i, name): self.progress.add_task(f"{site.label} {name}", total=len(requests))
            for i, site in enumerate(sites) for name, requests in site.runs().items()
        }

    def __enter__(self) -> RichProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def phase(self, text: str) -> None:
        self.progress.update(self.phase_task, description=text)
        if not self.live:
            print(f"promptlint verify: {text}", file=self.stream, flush=True)

    def advance(self, run: RunKey) -> None:
        self.progress.advance(self.tasks[run])
