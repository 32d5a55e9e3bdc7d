"""The cheap first pass: which files can possibly send an LLM request, decided from text alone.

A file is an entry point when it imports an LLM SDK or a declared wrapper, or imports a project
module that does (transitively): ``from .clients import openai_client`` makes ``agent.py`` an
entry even though it never names ``openai``. Everything else is parsed only if an entry's values
lead into it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from promptlint.analysis.index import resolve_relative

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


def package_of(path: Path, names: list[str]) -> str:
    """The package a module's relative imports resolve against."""
    if not names:
        return ""
    return names[0] if path.name == "__init__.py" else names[0].rpartition(".")[0]


def imports_trigger(imported: Iterable[str], triggers: set[str]) -> bool:
    """Whether a file imports an LLM SDK or a declared wrapper itself."""
    return any(name.split(".")[0] in triggers for name in imported)


def relevant_files(imports: dict[Path, set[str] | frozenset[str] | tuple[str, ...]],
                   names: dict[Path, list[str]], triggers: set[str]) -> list[Path]:
    """The closure of "imports an SDK/wrapper" over project imports, from each file's imports."""
    module_of: dict[str, Path] = {}
    for path in imports:
        for name in names.get(path, ()):
            module_of.setdefault(name, path)
    relevant = {path for path, imported in imports.items() if imports_trigger(imported, triggers)}
    importers: dict[str, list[Path]] = {}
    for path, imported in imports.items():
        for name in imported:
            importers.setdefault(name, []).append(path)
    pending = [name for name, path in module_of.items() if path in relevant]
    while pending:  # breadth-first over "is imported by"
        name = pending.pop()
        for importer in importers.get(name, ()):
            if importer not in relevant:
                relevant.add(importer)
                pending += [n for n in names.get(importer, ()) if module_of.get(n) == importer]
    return sorted(relevant, key=lambda path: path.parts)  # as sorted(), without Path.__lt__'s cost
