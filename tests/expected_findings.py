"""The findings promptlint reports today on the labelled corpus and the demo app, as the exact list
``tests/data/expected_findings.json`` holds (compared by tests/test_corpus_and_demo.py).

Print the current list (to review a change of results, then update the file deliberately):

    python -m tests.expected_findings > tests/data/expected_findings.json

The test compares against the committed file, never against this output: a change in results
must show up as a diff of that file, with a commit message saying why.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from promptlint.config import load_config
from promptlint.engine import analyze
from promptlint.model import AnalysisResult

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "fixtures" / "corpus"
DEMO = REPO / "fixtures" / "demo_app"
DATA = Path(__file__).resolve().parent / "data" / "expected_findings.json"
NOTE = ("Exact findings (path, line, rule, severity) at the default level, per corpus case and for the demo app. "
        "Update deliberately, never by habit: regenerate with `python -m tests.expected_findings > "
        "tests/data/expected_findings.json`, review the diff, and say in the commit message why each change is "
        "right (a new true bust found, a false positive gone, a severity that follows a documented rule).")

Row = tuple[str, int, str, str]


def analyze_folder(folder: Path) -> AnalysisResult:
    config = load_config(folder)
    return analyze([folder], config, cwd=folder)


def rows(result: AnalysisResult) -> list[Row]:
    return sorted((f.location.path, f.location.line, f.rule, f.severity.value) for f in result.findings)


def corpus_folders() -> list[Path]:
    return sorted(path.parent for path in CORPUS.glob("*/case.yaml"))


def current() -> dict[str, object]:
    return {
        "note": NOTE,
        "corpus": {folder.name: [list(r) for r in rows(analyze_folder(folder))] for folder in corpus_folders()},
        "demo_app": [list(r) for r in rows(analyze_folder(DEMO))],
    }


def load_expected() -> dict[str, object]:
    return json.loads(DATA.read_text(encoding="utf-8"))


def dump(document: dict[str, object]) -> str:
    """One finding per line, so a change of results is a readable diff."""
    lines = ["{", f'  "note": {json.dumps(document["note"])},', '  "corpus": {']
    corpus = document["corpus"]
    assert isinstance(corpus, dict)
    for i, (name, found) in enumerate(corpus.items()):
        lines.append(f'    {json.dumps(name)}: {_rows_json(found, 6)}{"," if i < len(corpus) - 1 else ""}')
    lines += ["  },", f'  "demo_app": {_rows_json(document["demo_app"], 4)}', "}"]
    return "\n".join(lines) + "\n"


def _rows_json(found: object, indent: int) -> str:
    assert isinstance(found, list)
    if not found:
        return "[]"
    pad = " " * indent
    inner = (",\n").join(pad + json.dumps(row) for row in found)
    return "[\n" + inner + "\n" + " " * (indent - 2) + "]"


if __name__ == "__main__":
    sys.stdout.write(dump(current()))
