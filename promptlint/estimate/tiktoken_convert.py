"""Convert a tiktoken BPE ranks file into a Hugging Face ``tokenizer.json`` (byte-level BPE).

This is how ``promptlint/data/o200k_base.tokenizer.json.gz`` was made, and users can run it on any
other ``*.tiktoken`` file they have locally::

    python -m promptlint.estimate.tiktoken_convert o200k_base.tiktoken out.tokenizer.json.gz \
        --pattern o200k

Why the result counts exactly like tiktoken:
- tiktoken splits text with a regex, then merges, inside each piece, the adjacent pair whose
  concatenation has the lowest rank. A merge list ordered by the rank of the merged token makes
  Hugging Face's BPE pick the same pair at every step.
- The merge that builds token ``t`` (rank ``r``) is found by running that same BPE on ``t``'s bytes
  with only the ranks below ``r``: it must end in exactly two parts.
- ``ignore_merges`` makes a piece that is itself a token map to that token directly, as tiktoken does.
Special tokens (``<|endoftext|>``, ...) are left out on purpose: prompt text that contains them is
counted as ordinary text, like ``encode_ordinary``.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
from pathlib import Path

# Split patterns from tiktoken_ext/openai_public.py (tiktoken 0.14.0, MIT licence).
PATTERNS: dict[str, str] = {
    "o200k": "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
    # cl100k's own pattern uses `\s++$`, and `$` means end of *line* in Oniguruma (which the
    # tokenizers library uses); this equivalent form matched tiktoken on every test text.
    "cl100k": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
}


def byte_to_unicode() -> dict[int, str]:
    """GPT-2's reversible map from bytes to printable characters (what ByteLevel expects)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]
    codes = list(printable)
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            codes.append(256 + extra)
            extra += 1
    return {byte: chr(code) for byte, code in zip(printable, codes)}


def load_ranks(path: Path) -> dict[bytes, int]:
    ranks: dict[bytes, int] = {}
    for line in path.read_bytes().splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


def split_by_ranks(token: bytes, ranks: dict[bytes, int], below: int) -> list[bytes]:
    """tiktoken's BPE on ``token``'s bytes using only ranks below ``below``."""
    parts = [bytes([b]) for b in token]
    while True:
        best_rank, best_at = below, -1
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and rank < best_rank:
                best_rank, best_at = rank, i
        if best_at < 0:
            return parts
        parts[best_at:best_at + 2] = [parts[best_at] + parts[best_at + 1]]


def tokenizer_json(ranks: dict[bytes, int], pattern: str) -> dict:
    to_char = byte_to_unicode()

    def text(token: bytes) -> str:
        return "".join(to_char[b] for b in token)

    vocab = {text(token): rank for token, rank in ranks.items()}
    merges = []
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) == 1:
            continue
        parts = split_by_ranks(token, ranks, rank)
        if len(parts) != 2:
            raise ValueError(f"token {token!r} (rank {rank}) is not one merge of two tokens")
        merges.append(f"{text(parts[0])} {text(parts[1])}")
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated",
                 "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                 "use_regex": False},
            ],
        },
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                    "use_regex": False},
        "model": {
            "type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
            "ignore_merges": True, "vocab": vocab, "merges": merges,
        },
    }


def write(data: dict, out: Path) -> None:
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if out.suffix == ".gz":
        # mtime=0 keeps the output byte-identical between runs.
        out.write_bytes(gzip.compress(payload, compresslevel=9, mtime=0))
    else:
        out.write_bytes(payload)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ranks", type=Path, help="a *.tiktoken file (base64 token, rank per line)")
    parser.add_argument("out", type=Path, help="tokenizer.json to write (.gz to compress)")
    parser.add_argument("--pattern", default="o200k", help=f"one of {sorted(PATTERNS)} or a regex")
    args = parser.parse_args(argv)
    pattern = PATTERNS.get(args.pattern, args.pattern)
    write(tokenizer_json(load_ranks(args.ranks), pattern), args.out)


if __name__ == "__main__":
    main()
