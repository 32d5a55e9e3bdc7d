"""`promptlint lsp`: the language server (promptlint/lsp.py) over stdio, for editors."""

from __future__ import annotations

import importlib.util

import typer


def register(app: typer.Typer) -> None:
    app.command("lsp")(lsp)


MISSING = ("promptlint: error: the language server needs pygls: pip install 'promptlint[lsp]' "
           "(or pip install 'pygls>=2')")


def lsp() -> None:
    """Run the language server on stdin/stdout: diagnostics on open and save, quick fixes (docs/integrations.md)."""
    if importlib.util.find_spec("pygls") is None:
        typer.echo(MISSING, err=True)
        raise typer.Exit(2)
    from promptlint.lsp import main

    main()


def standalone() -> None:
    """The `promptlint-lsp` console script: the same server, the same message without pygls."""
    import sys

    if importlib.util.find_spec("pygls") is None:
        print(MISSING, file=sys.stderr)
        sys.exit(2)
    from promptlint.lsp import main

    main()
