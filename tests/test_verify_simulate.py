"""The simulator's block math, against the figures measured on vLLM (CPU, block size 128)."""

from __future__ import annotations

import pytest

from verifier.simulate import PrefixCache, block_hashes, cached_tokens, replay

B = 128


def diverging(shared: int, length: int = 400, base: int = 0) -> tuple[list[int], list[int]]:
    """Two prompts of ``length`` tokens whose first ``shared`` tokens are the same."""
    first = list(range(base, base + length))
    second = first[:shared] + [10_000 + i for i in range(length - shared)]
    return first, second


@pytest.mark.parametrize(
    ("shared", "expected"),
    [(127, 0), (128, 128), (129, 128), (255, 128), (256, 256), (0, 0), (383, 256), (384, 384)],
)
def test_hit_is_the_shared_prefix_in_whole_blocks(shared: int, expected: int) -> None:
    first, second = diverging(shared)
    assert replay([first, second], B) == [0, expected]


def test_an_identical_repeat_is_capped_at_n_minus_1() -> None:
    prompt = list(range(256))
    assert replay([prompt, prompt], B) == [0, 128]  # the last token is always recomputed


def test_a_repeat_one_token_longer_than_whole_blocks_hits_them_all() -> None:
    prompt = list(range(257))
    assert replay([prompt, prompt], B) == [0, 256]


@pytest.mark.parametrize(("shared", "length", "expected"), [(300, 129, 128), (300, 128, 0), (5, 1, 0)])
def test_cached_tokens_formula(shared: int, length: int, expected: int) -> None:
    assert cached_tokens(shared, length, B) == expected


def test_a_short_prompt_has_no_full_block() -> None:
    assert block_hashes(list(range(127)), B) == []
    assert len(block_hashes(list(range(256)), B)) == 2


def test_hashes_are_chained_so_a_change_in_block_0_kills_every_later_match() -> None:
    prompt = list(range(512))
    changed = [999_999] + prompt[1:]
    assert replay([prompt, changed], B) == [0, 0]
    assert block_hashes(prompt, B)[1] != block_hashes(changed, B)[1]  # same tokens, other parent


def test_any_earlier_request_can_supply_the_prefix() -> None:
    a, b = diverging(200)
    c = a[:300] + [7] * 100
    assert replay([a, b, c], B) == [0, 128, 256]


def test_lookup_does_not_store() -> None:
    cache = PrefixCache(B)
    prompt = list(range(300))
    assert cache.lookup(prompt) == 0
    assert cache.lookup(prompt) == 0
    assert cache.serve(prompt) == 0
    assert cache.lookup(prompt) == 256
    cache.reset()
    assert cache.lookup(prompt) == 0


def test_round_robin_endpoints_each_warm_up_separately() -> None:
    prompts = [list(range(300))] * 4
    assert replay(prompts, B, endpoints=1) == [0, 256, 256, 256]
    assert replay(prompts, B, endpoints=2) == [0, 0, 256, 256]


def test_gpu_block_size_16() -> None:
    first, second = diverging(100)
    assert replay([first, second], 16) == [0, 96]


def test_block_size_must_be_positive() -> None:
    with pytest.raises(ValueError):
        PrefixCache(0)
