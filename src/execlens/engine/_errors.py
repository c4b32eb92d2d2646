"""The error the engine's host side raises: it could not start, or was used after closing."""

from __future__ import annotations

__all__ = ["EngineError"]


class EngineError(RuntimeError):
    """The engine could not start or was used after closing."""
