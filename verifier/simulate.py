"""A model of vLLM's automatic prefix cache (V1 engine), exact for requests served one at a time.

What it mirrors (``vllm/v1/core/kv_cache_utils.py`` and ``kv_cache_manager.get_computed_blocks``):
- only full blocks of B tokens are cached, each identified by a hash chained to its parent block,
  so block i matches only when blocks 0..i all match;
- a lookup walks the chain from the start and stops at the first miss;
- the hit is capped at N-1 tokens (the last prompt token is always recomputed), in whole blocks:
  ``cached = B * floor(min(P, N - 1) / B)`` for a prompt of N tokens sharing P tokens with the cache;
- after the prefill, the prompt's full blocks are in the cache (the one generated token of a
  ``max_tokens=1`` request never gets its KV computed, so it never completes a block).
Eviction is not modelled: the verifier's runs are far smaller than the engine's KV cache.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence


def block_hashes(token_ids: Sequence[int], block_size: int) -> list[bytes]:
    """The hash chain of the full blocks of ``token_ids`` (a partial last block has no hash)."""
    hashes: list[bytes] = []
    parent = b""
    for start in range(0, len(token_ids) - block_size + 1, block_size):
        block = token_ids[start : start + block_size]
        parent = hashlib.sha256(parent + b"|" + ",".join(map(str, block)).encode()).digest()
        hashes.append(parent)
    return hashes


def cached_tokens(shared_prefix: int, prompt_tokens: int, block_size: int) -> int:
    """vLLM's hit for a prompt of ``prompt_tokens`` whose first ``shared_prefix`` tokens are cached."""
    if prompt_tokens <= 0:
        return 0
    return block_size * (min(shared_prefix, prompt_tokens - 1) // block_size)


class PrefixCache:
    """The set of cached block hashes of one engine (one endpoint)."""

    def __init__(self, block_size: int) -> None:
        if block_size <= 0:
            raise ValueError(f"block size must be positive, not {block_size}")
        self.block_size = block_size
        self._blocks: set[bytes] = set()

    def lookup(self, token_ids: Sequence[int]) -> int:
        """Cached tokens vLLM would report for this prompt now (nothing is stored)."""
        matched = 0
        for digest in block_hashes(token_ids, self.block_size):
            if digest not in self._blocks:
                break
            matched += 1
        return cached_tokens(matched * self.block_size, len(token_ids), self.block_size)

    def serve(self, token_ids: Sequence[int]) -> int:
        """Look the prompt up, then cache its full blocks, as serving it would."""
        hit = self.lookup(token_ids)
        self._blocks.update(block_hashes(token_ids, self.block_size))
        return hit

    def reset(self) -> None:
        self._blocks.clear()


def replay(prompts: Iterable[Sequence[int]], block_size: int, endpoints: int = 1) -> list[int]:
    """Cached tokens of each prompt, served in order from empty caches.

    With several endpoints the requests go round-robin and each endpoint has its own cache, which
    is what a load balancer without prefix-aware routing does to hit rates.
    """
    caches = [PrefixCache(block_size) for _ in range(max(1, endpoints))]
    return [caches[i % len(caches)].serve(ids) for i, ids in enumerate(prompts)]
