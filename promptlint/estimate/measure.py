"""Measure how far the bundled tokenizer's counts are from an exact reference tokenizer.

    python -m promptlint.estimate.measure --reference path/to/tokenizer.json fixtures/

Each text file (or, with ``--layouts``, each prompt layout's literal text found by the analyzer)
is counted with both tokenizers; the report gives the ratio of the totals and the spread of the
per-text relative error ``(bundled - reference) / reference``. The figures in docs/estimator.md
were made with this.
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass
from pathlib import Path

from promptlint.estimate.tokens import TokenCounter, load_counter

TEXT_SUFFIXES = {".py", ".txt", ".md", ".yaml", ".yml", ".j2", ".jinja", ".jinja2", ".json",
                 ".toml", ".prompt", ".tmpl"}


@dataclass(frozen=True)
class ErrorStats:
    reference: str
    texts: int
    bundled_tokens: int
    reference_tokens: int
    mean_abs_error: float
    p90_abs_error: float
    max_abs_error: float

    @property
    def ratio(self) -> float:
        return self.bundled_tokens / self.reference_tokens if self.reference_tokens else 0.0


def compare(texts: list[str], bundled: TokenCounter, reference: TokenCounter) -> ErrorStats:
    pairs = [(bundled.count(t), reference.count(t)) for t in texts if t.strip()]
    errors = sorted(abs(b - r) / r for b, r in pairs if r)
    return ErrorStats(
        reference=reference.name,
        texts=len(pairs),
        bundled_tokens=sum(b for b, _ in pairs),
        reference_tokens=sum(r for _, r in pairs),
        mean_abs_error=statistics.fmean(errors) if errors else 0.0,
        p90_abs_error=errors[int(0.9 * (len(errors) - 1))] if errors else 0.0,
        max_abs_error=errors[-1] if errors else 0.0,
    )


def file_texts(paths: list[Path]) -> list[str]:
    files = [p for root in paths for p in ([root] if root.is_file() else sorted(root.rglob("*")))
             if p.is_file() and p.suffix in TEXT_SUFFIXES]
    return [f.read_text(encoding="utf-8", errors="replace") for f in files]


def layout_texts(paths: list[Path]) -> list[str]:
    """The literal prompt text of every layout the analyzer finds (one text per layout)."""
    from promptlint.config import load_config
    from promptlint.engine import analyze
    from promptlint.model import Literal

    texts = []
    for path in paths:
        result = analyze([path], load_config(path))
        for layout in result.layouts:
            texts.append("".join(s.text for _, s in layout.segments() if isinstance(s, Literal)))
    return texts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--reference", action="append", required=True,
                        help="tokenizer.json (or .json.gz) of an exact reference; repeatable")
    parser.add_argument("--layouts", action="store_true", help="measure prompt layouts, not files")
    args = parser.parse_args(argv)
    texts = layout_texts(args.paths) if args.layouts else file_texts(args.paths)
    bundled = load_counter()
    print(f"{'reference':<28} {'texts':>6} {'bundled':>9} {'reference':>9} {'ratio':>6} "
          f"{'mean|err|':>9} {'p90|err|':>9} {'max|err|':>9}")
    for spec in args.reference:
        s = compare(texts, bundled, load_counter(str(Path(spec).resolve())))
        print(f"{s.reference:<28} {s.texts:>6} {s.bundled_tokens:>9} {s.reference_tokens:>9} "
              f"{s.ratio:>6.3f} {s.mean_abs_error:>9.1%} {s.p90_abs_error:>9.1%} {s.max_abs_error:>9.1%}")


if __name__ == "__main__":
    main()
