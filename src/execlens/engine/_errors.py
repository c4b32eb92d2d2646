"""The errors the engine's host side raises: it could not start, or was used after closing."""

from __future__ import annotations

__all__ = ["EngineError", "IsolationUnavailable"]


class EngineError(RuntimeError):
    """The engine could not start or was used after closing."""


class IsolationUnavailable(EngineError):
    """The isolation mode asked for cannot be had on this machine; the message names what
    is missing, why, and the explicit opt-in (``isolation='degraded'``)."""
