"""promptlint's verifier: replays prompts through a real serving engine (or a simulator of its
prefix cache) and measures hit rate and time to first token, current layout against the fixed one.

Heavy dependencies (vLLM, torch) are imported lazily; ``promptlint check`` never needs them.
"""
