"""The cheap first pass: which files can possibly send an LLM request, decided from text alone.

A file is an entry point when it imports an LLM SDK or a declared wrapper, or imports a project
module that does (transitively): ``from .clients import openai_client`` makes ``agent.py`` an
entry even though it never names ``openai``. Everything else is parsed only if an entry's values
lead into it.
"""

from __future__ import annotations

import re
from pathlib import Path

from promptlint.analysis.index import module_names_for, resolve_relative

IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+([\w., \t()*]+)|import[ \t]+([\w., \t]+))",
                    re.MULTILINE)


def imported_modules(text: str, package: str) -> set[str]:
    """Absolute names of the modules (and `from x import y` candidates x.y) a source imports."""
    names: set[str] = set()
    for match in IMPORT.finditer(text):
        source, imported, plain = match.groups()
        if plain:
            names.update(part.split(" as ")[0].strip() for part in plain.split(",") if part.strip())
            continue
        level = len(source) - len(source.lstrip("."))
        base = resolve_relative(package, source.lstrip(".") or None, level)
        if base:
            names.add(base)
        for item in imported.replace("(", " ").replace(")", " ").split(","):
            item = item.split(" as ")[0].strip()
            if item and item != "*":
                names.add(f"{base}.{item}" if base else item)
    return names


def entry_files(texts: dict[Path, str], root: Path, triggers: set[str]) -> list[Path]:
    """Files that import an SDK/wrapper directly, or a project module that does."""
    module_of: dict[str, Path] = {}
    imports: dict[Path, set[str]] = {}
    for path, text in texts.items():
        names = module_names_for(path, root)
        for name in names:
            module_of.setdefault(name, path)
        package = names[0] if path.name == "__init__.py" and names else (names[0].rpartition(".")[0] if names else "")
        imports[path] = imported_modules(text, package)
    relevant = {path for path, names in imports.items() if any(n.split(".")[0] in triggers for n in names)}
    changed = True
    while changed:  # a few rounds: import chains in applications are short
        changed = False
        relevant_modules = {name for name, path in module_of.items() if path in relevant}
        for path, names in imports.items():
            if path not in relevant and names & relevant_modules:
                relevant.add(path)
                changed = True
    return sorted(relevant)
