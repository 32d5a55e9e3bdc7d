"""Build a small random-weight Llama model with a byte-level BPE tokenizer and a chat template.

    python verifier/scripts/build_tiny_model.py OUT_DIR [--hidden 512 --layers 4 --vocab 4096]
    python verifier/scripts/build_tiny_model.py OUT_DIR --hidden 2048 --layers 24 --heads 16 \
        --device cuda --dtype bfloat16          # ~1.3B parameters, for a GPU

No model hub is needed: the tokenizer is trained on a corpus generated here from a fixed seed, so
two builds with the same options give the same tokenizer (and so the same token counts, which the
tests assert exactly) and the same weights. Random weights are fine for the verifier: prefix
caching is about tokens, not about the text making sense. Needs ``tokenizers``, ``transformers``
and ``torch`` (all in the verifier's vLLM environment); a build takes a few seconds.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

# Roles get their own special tokens so the template's markers are single tokens, as in real models.
SPECIAL_TOKENS = [
    "<|endoftext|>", "<|system|>", "<|user|>", "<|assistant|>", "<|tool|>", "<|end|>",
]
# String content only, as most real templates; rendered identically by transformers, by vLLM and by
# promptlint's jinja2 fallback (verifier/chat.py).
CHAT_TEMPLATE = (
    "{%- for message in messages %}"
    "{{- '<|' + message['role'] + '|>\\n' + message['content'] + '<|end|>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|assistant|>\\n' }}{%- endif %}"
)

_WORDS = (
    "the of and to in is you that it for are as with on be at this have from or by not your we "
    "can an will all use if when which their more about do user assistant system tool request "
    "response answer question customer order account support policy time date today current "
    "please help must should never always only before after first last stable cache prefix token "
    "prompt model json format schema function call result error retry search document context "
    "summary reply short clear polite refund shipping invoice product price plan team project "
    "report data file code review test deploy service server client session id name email phone "
    "address city country language english value list item note example rule step reason"
).split()
_PUNCT = [".", ".", ".", ",", ",", ":", ";", "?", "!"]


def corpus(seed: int = 0, sentences: int = 20_000) -> list[str]:
    """Deterministic English-like text with digits, code and JSON, enough to train a 4k BPE."""
    rng = random.Random(seed)
    lines: list[str] = []
    for i in range(sentences):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(4, 18))]
        words[0] = words[0].capitalize()
        line = " ".join(words) + rng.choice(_PUNCT)
        if i % 7 == 0:
            line += f" {rng.randint(0, 99999)} {rng.randint(1, 12):02d}:{rng.randint(0, 59):02d}"
        if i % 11 == 0:
            line = json.dumps({rng.choice(_WORDS): rng.choice(_WORDS), "id": rng.randint(0, 999)})
        if i % 13 == 0:
            line = f"- {rng.choice(_WORDS)}_{rng.choice(_WORDS)}(): {line}"
        lines.append(line)
    return lines


def train_tokenizer(vocab_size: int):  # -> transformers.PreTrainedTokenizerFast
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus(), trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<|endoftext|>",
        eos_token="<|end|>",
        pad_token="<|endoftext|>",
        unk_token=None,
        chat_template=CHAT_TEMPLATE,
        model_max_length=8192,
    )


def build_model(vocab_size: int, hidden: int, layers: int, heads: int, eos_id: int, bos_id: int,
                device: str = "cpu", dtype: str = "float32"):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=hidden,
        intermediate_size=hidden * 8 // 3 // 32 * 32,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=heads,
        max_position_embeddings=8192,
        bos_token_id=bos_id,
        eos_token_id=eos_id,
        pad_token_id=bos_id,
        tie_word_embeddings=False,
    )
    # Initializing a billion random weights takes minutes on a CPU and seconds on a GPU.
    with torch.device(device):
        model = LlamaForCausalLM(config)
    return model.to(dtype=getattr(torch, dtype))


def build(out_dir: Path, hidden: int = 512, layers: int = 4, heads: int = 8, vocab: int = 4096,
          device: str = "cpu", dtype: str = "float32") -> Path:
    tokenizer = train_tokenizer(vocab)
    model = build_model(
        len(tokenizer), hidden, layers, heads, tokenizer.eos_token_id, tokenizer.bos_token_id,
        device, dtype,
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(out_dir)
    model.save_pretrained(out_dir, safe_serialization=True)
    return out_dir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--vocab", type=int, default=4096)
    parser.add_argument("--device", default="cpu", help="where to initialize the weights (cuda: fast)")
    parser.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        build(args.out_dir, args.hidden, args.layers, args.heads, args.vocab, args.device, args.dtype)
    except ImportError as exc:
        print(f"build_tiny_model: needs tokenizers, transformers and torch ({exc}); run it with "
              "the verifier's environment, e.g. .venv-verify/bin/python", file=sys.stderr)
        return 2
    print(f"built {args.out_dir} in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
