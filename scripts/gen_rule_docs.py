"""Write docs/rules/*.md from the rule modules' docstrings (the single source of rule docs).

    python scripts/gen_rule_docs.py          # write the pages
    python scripts/gen_rule_docs.py --check  # exit 1 if a committed page is out of date

tests/test_rule_docs.py runs the check, so a rule's docs cannot drift from its page.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from promptlint.rule_docs import PAGES_FOLDER, pages  # noqa: E402


def main(argv: list[str]) -> int:
    folder = REPO / PAGES_FOLDER
    stale = []
    for name, content in pages().items():
        path = folder / name
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != content:
            stale.append(path)
            if "--check" not in argv:
                folder.mkdir(parents=True, exist_ok=True)
                path.write_text(content, encoding="utf-8")
    if "--check" in argv and stale:
        print("out of date (run python scripts/gen_rule_docs.py):", *map(str, stale), sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
