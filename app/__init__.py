"""LexSpec: a self-hosted legal drafting studio."""

__version__ = "0.1.0"
