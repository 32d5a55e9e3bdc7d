"""Token counting: the bundled o200k_base against fixed reference ids, user tokenizers, the
tiktoken-to-tokenizer.json converter."""

from __future__ import annotations

import base64
import gzip
import json
import random
from pathlib import Path

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers

from promptlint.config import ConfigError
from promptlint.estimate.tiktoken_convert import PATTERNS, byte_to_unicode, tokenizer_json
from promptlint.estimate.tokens import DEFAULT_TOKENIZER, load_counter

# Ids produced by tiktoken 0.14.0's o200k_base (`encode_ordinary`) reading the official
# o200k_base.tiktoken file (sha256 446a9538...a2d); recorded once, so no test needs tiktoken.
O200K_REFERENCE: dict[str, list[int]] = {
    "You are a helpful assistant for Acme Home Networks.":
        [3575, 553, 261, 10297, 29186, 395, 6986, 1047, 6136, 58780, 13],
    "Current time: 2026-11-30T09:51:00.123456+00:00\n":
        [6576, 1058, 25, 220, 1323, 21, 12, 994, 12, 1130, 51, 3114, 25, 6231, 25, 504, 13, 7633,
         19354, 10, 504, 25, 504, 198],
    "Réponds en français, s'il te plaît — merci !":
        [56641, 4940, 82, 469, 30450, 11, 265, 14683, 729, 154950, 2733, 53446, 1073],
    "日本語のテキストと한국어 텍스트":
        [9048, 40909, 3385, 16056, 18368, 38236, 5330, 114854, 5959, 57901, 235, 42321],
    'def answer(question: str) -> str:\n    return client.chat.completions.create(model="gpt-4o")\n':
        [1314, 6052, 78997, 25, 989, 8, 2747, 989, 734, 271, 622, 3054, 44816, 1136, 24884, 756,
         3916, 15279, 580, 70, 555, 12, 19, 78, 1896],
    '{"name": "search_orders", "parameters": {"type": "object", "properties": {"order_id": '
    '{"type": "string"}}}}':
        [10848, 897, 1243, 392, 2624, 88420, 672, 392, 24021, 1243, 10494, 2493, 1243, 392, 3369,
         672, 392, 35913, 1243, 10494, 2143, 1537, 1243, 10494, 2493, 1243, 392, 1655, 57612, 6478],
    "   \n\n\t  trailing spaces   ": [29104, 7758, 57985, 18608, 271],
    "Emoji 🎉🚀 and symbols ∑∫√ <|endoftext|>":
        [96950, 139786, 231, 112927, 222, 326, 29502, 35353, 239, 18085, 104, 103946, 464, 91, 419,
         1440, 919, 91, 29],
}


@pytest.fixture(scope="module")
def counter():
    return load_counter()


@pytest.mark.parametrize("text", list(O200K_REFERENCE))
def test_bundled_o200k_matches_tiktoken_ids(counter, text):
    assert counter.ids(text) == O200K_REFERENCE[text]
    assert counter.count(text) == len(O200K_REFERENCE[text])


def test_bundled_counter_describes_itself(counter):
    assert counter.name == DEFAULT_TOKENIZER == "o200k_base"
    assert counter.bundled
    assert counter.is_exact_for("o200k_base")
    assert not counter.is_exact_for(None)  # e.g. a Claude model: an approximation
    assert counter.count("") == 0


def test_counts_are_remembered(counter):
    text = "remember me " * 50
    assert counter.count(text) == counter.count(text) == len(counter.ids(text))


def _long_mixed_text() -> str:
    rng = random.Random(20261130)
    words = ["router", "firmware", "Wi-Fi", "réseau", "設定", "reset", "  ", "\n", "2026-11-30",
             "{", "}", "ACME", "don't", "we'll", "🚀", "x" * 40, "\t", "1234567"]
    return " ".join(rng.choice(words) for _ in range(20000))


def test_long_mixed_text_matches_tiktoken_count(counter):
    assert counter.count(_long_mixed_text()) == 41654  # tiktoken o200k_base, measured once


def _word_tokenizer(path: Path) -> None:
    vocab = {"[UNK]": 0, "hello": 1, "world": 2, "stable": 3}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(path))


def test_user_tokenizer_is_exact_and_named_after_its_folder(tmp_path):
    folder = tmp_path / "MyModel-7B"
    folder.mkdir()
    _word_tokenizer(folder / "tokenizer.json")
    counter = load_counter("MyModel-7B", tmp_path)  # a folder, relative to the project root
    assert counter.name == "MyModel-7B"
    assert not counter.bundled
    assert counter.is_exact_for(None)
    assert counter.count("hello world, stable") == 4  # hello world , stable


def test_user_tokenizer_gzip_and_absolute_path(tmp_path):
    plain = tmp_path / "tokenizer.json"
    _word_tokenizer(plain)
    packed = tmp_path / "small.tokenizer.json.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    counter = load_counter(str(packed))
    assert counter.name == "small"
    assert counter.count("hello hello world") == 3


def test_missing_or_broken_tokenizer_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        load_counter("nope/tokenizer.json", tmp_path)
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot load"):
        load_counter(str(broken))


def test_converter_reproduces_tiktoken_bpe_on_a_tiny_vocabulary():
    # Ranks: the 256 bytes, then "ab" (256), "abc" (257) built as "ab"+"c", "bc" (258).
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({b"ab": 256, b"abc": 257, b"bc": 258})
    data = tokenizer_json(ranks, PATTERNS["o200k"])
    to_char = byte_to_unicode()
    assert data["model"]["merges"] == [f"{to_char[97]} {to_char[98]}",
                                       f"{to_char[97]}{to_char[98]} {to_char[99]}",
                                       f"{to_char[98]} {to_char[99]}"]
    tokenizer = Tokenizer.from_str(json.dumps(data))
    # tiktoken merges the lowest-ranked pair first: a b c -> ab c -> abc.
    assert tokenizer.encode("abc", add_special_tokens=False).ids == [257]
    assert tokenizer.encode("bcab", add_special_tokens=False).ids == [258, 256]


def test_converter_reads_tiktoken_files(tmp_path):
    from promptlint.estimate.tiktoken_convert import load_ranks

    ranks_file = tmp_path / "tiny.tiktoken"
    ranks_file.write_bytes(b"".join(base64.b64encode(bytes([b])) + b" %d\n" % b for b in range(256)))
    assert load_ranks(ranks_file)[b"a"] == 97


def test_a_run_with_nothing_to_count_never_imports_the_tokenizer_library(tmp_path: Path) -> None:
    """A clean run (a pre-commit hook on most commits) pays for neither the tokenizer's load nor
    the `tokenizers` import; a run with a finding imports it to count."""
    import subprocess
    import sys

    from tests.test_cache_incremental import CLOCK_FIRST

    def imported_after(source: str) -> str:
        root = tmp_path / str(len(source))
        root.mkdir()
        (root / "app.py").write_text(source, encoding="utf-8")
        code = ("import sys; from pathlib import Path; from promptlint.config import Config; "
                "from promptlint.engine import analyze; "
                f"root = Path({str(root)!r}); analyze([root], Config(root=root, cache_dir=None), cwd=root); "
                "print('tokenizers' in sys.modules)")
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()

    assert imported_after("x = 1\n") == "False"
    assert imported_after(CLOCK_FIRST) == "True"



def _run_python(code: str) -> str:
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def test_a_helper_process_counts_what_this_one_would_and_is_replaced_if_it_dies() -> None:
    """The bundled tokenizer loaded in a forked helper (count_in_background): the counts are the
    tokenizer's, this process never loads it; once the helper is gone, this process loads it and
    counts on (in a subprocess: the helper is a process-wide resource)."""
    texts = list(O200K_REFERENCE)
    code = f"""
import os, signal
from promptlint.estimate import tokens
tokens.count_in_background(None, processes=2)
counter = tokens.load_counter()
helper = tokens._HELPERS["o200k_base"]
first = [counter.count(t) for t in {texts[:4]!r}]
by_helper = counter.loaded and "tokenizer" not in counter.__dict__
os.kill(helper._process.pid, signal.SIGKILL)
helper._process.join()
rest = [counter.count(t) for t in {texts[4:]!r}]
print(first + rest, by_helper, "tokenizer" in counter.__dict__)
"""
    assert _run_python(code) == f"{[len(O200K_REFERENCE[t]) for t in texts]} True True"


def test_the_check_loads_the_tokenizer_beside_an_in_process_evaluation(tmp_path: Path) -> None:
    """`promptlint check` (Config.count_in_background) on a small project evaluated in this
    process: the tokenizer is loaded by the helper on the free core, with the same estimate; with
    one process allowed (`-j 1`), or from the library's `analyze` by default, it is loaded here."""
    from tests.test_cache_incremental import CLOCK_FIRST

    (tmp_path / "app.py").write_text(CLOCK_FIRST, encoding="utf-8")

    def run(settings: str) -> str:
        return _run_python(
            "from pathlib import Path; from promptlint.config import Config; from promptlint.engine import analyze; "
            f"from promptlint.estimate.tokens import load_counter; root = Path({str(tmp_path)!r}); "
            f"result = analyze([root], Config(root=root, cache_dir=None{settings}), cwd=root); "
            "counter = load_counter(); "
            "print([f.estimate.lost_tokens_per_call for f in result.findings], 'tokenizer' in counter.__dict__)")

    here = run("")
    assert here.endswith("True") and "None" not in here
    assert run(", count_in_background=True, jobs=2") == here.replace("True", "False")
    assert run(", count_in_background=True, jobs=1") == here


def test_no_helper_is_forked_beside_other_threads() -> None:
    """A language server answers from threads: a fork would copy one of them, and a lock another
    holds (an import) would never be released in the helper. It counts in its own process."""
    code = """
import threading
from promptlint.estimate import tokens
stop = threading.Event()
thread = threading.Thread(target=stop.wait)
thread.start()
tokens.count_in_background(None, processes=2)
stop.set()
print(tokens._HELPERS, tokens.load_counter().count("hello world"))
"""
    assert _run_python(code) == "{} 2"
