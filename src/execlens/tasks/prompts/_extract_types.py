"""The record every answer extractor returns."""

from __future__ import annotations

from dataclasses import dataclass

# REval's ``Nil`` ("the line is not executed / no value", distinct from ``None``) is the
# same marker the value envelopes use.
from execlens.values import NIL

__all__ = ["Extraction", "NIL", "StateAnswer", "apply_stop"]


@dataclass(frozen=True)
class StateAnswer:
    """A REval state answer split at its last ``;``: the value text and the normalised type name."""

    value: str
    type: str


@dataclass(frozen=True)
class Extraction:
    """What the official post-processing makes of one raw model output.

    ``text`` is always exactly what the official code would hand to its scorer (even when
    that is garbage). ``how`` lists the steps that applied, in order. ``failure`` names why
    the output is probably not an answer in the requested format (``None`` when it is);
    where the official code substitutes a default (REval: NO, -2, ERROR) ``value`` holds
    that default. ``value`` is the task-specific reading: ``bool`` for REval coverage, the
    list of 1-indexed line numbers for path, a :class:`StateAnswer` or :data:`NIL` for
    state, the padded snippet for output; ``None`` where the text is the answer.
    """

    text: str
    how: tuple[str, ...]
    failure: str | None = None
    value: object = None

    @property
    def ok(self) -> bool:
        """True when the output had the requested shape."""
        return self.failure is None


def apply_stop(text: str, stops: tuple[str, ...] | list[str]) -> tuple[str, bool]:
    """Cut ``text`` before the earliest stop string, as the serving engine would have.

    Returns the cut text and whether a stop string was found.
    """
    cut = len(text)
    for stop in stops:
        if stop:
            at = text.find(stop)
            if at != -1:
                cut = min(cut, at)
    return text[:cut], cut != len(text)
