"""promptlint: find LLM prompt layouts that destroy the provider's prefix cache."""

__version__ = "0.1.0"
