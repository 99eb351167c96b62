"""The version of codex-deck (read by the packaging too)."""

__version__ = "0.1.0"
