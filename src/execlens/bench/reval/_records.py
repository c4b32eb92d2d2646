"""REval ground truth as plain data, so judging needs no tracer.

One :class:`QuestionTruth` per (line, variable) question and mode: whether the line ran,
which lines ran next (``-1``: none), and the accepted values of the variable after it (as
value envelopes; none = ``Nil``).  One :class:`OutputTruth` per (problem, input) pair for
the strict output judge: the values each ``??`` mask of the pair's snippet must take.
:class:`RevalContext` carries what a judge needs to know about the question itself (code,
entry point, test class, the output template).  Everything round-trips through JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MaskTruth", "OutputTruth", "QuestionTruth", "RevalContext"]


@dataclass(frozen=True, slots=True)
class QuestionTruth:
    """The answers to one (line, variable) question under one mode.

    ``next_lines`` is sorted and never empty: ``(-1,)`` when nothing ran after the line
    (or it never ran, as REval's ``get_next_line`` has it).  ``state`` holds the accepted
    values of the variable after the line (envelopes, duplicates dropped); empty means
    ``Nil``.  ``note`` says why the truth may differ from the reference's (e.g. a value
    our envelopes cannot hold), or is empty.
    """

    covered: bool
    next_lines: tuple[int, ...]
    state: tuple[dict[str, Any], ...] = ()
    note: str = ""

    @property
    def nil(self) -> bool:
        """Whether the state answer is ``Nil``."""
        return not self.state

    @property
    def state_types(self) -> tuple[str, ...]:
        """The type names of the accepted values (JetBrains layout)."""
        return tuple(str(e.get("__type__")) for e in self.state)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (the state as a list of envelopes plus their type names)."""
        out: dict[str, Any] = {
            "covered": self.covered,
            "next_lines": list(self.next_lines),
            "state": [dict(e) for e in self.state],
            "state_types": list(self.state_types),
        }
        if self.note:
            out["note"] = self.note
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QuestionTruth:
        """Rebuild from :meth:`to_dict` output."""
        return cls(
            covered=bool(data["covered"]),
            next_lines=tuple(int(x) for x in data["next_lines"]),
            state=tuple(dict(e) for e in data.get("state") or ()),
            note=str(data.get("note", "")),
        )


@dataclass(frozen=True, slots=True)
class MaskTruth:
    """What one ``??`` of an output snippet stands for, and the values it may take.

    ``hidden`` are the runtime values of the expression the mask hides (for HumanEval's
    ``assert f(x) == ??``: the value ``f(x)`` returned).  ``other`` are the values of the
    other argument of a two-argument equality assertion whose hidden side is a literal
    (``assertEqual(res, ??)`` hiding ``60``: the values of ``res``).  ``assertion`` names
    the assertion (``"=="`` for HumanEval); ``places``/``delta`` are an
    ``assertAlmostEqual``'s tolerance.  ``leak`` flags a mask whose answer is visible or
    meaningless: ``"hides_expression"`` (the mask hides the expression under test) or
    ``"literal_visible"`` (…and the expected literal stays in the snippet).
    """

    hidden: tuple[dict[str, Any], ...]
    other: tuple[dict[str, Any], ...] = ()
    assertion: str = "=="
    places: int | None = None
    delta: float | None = None
    leak: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        out: dict[str, Any] = {
            "hidden": [dict(e) for e in self.hidden],
            "assertion": self.assertion,
        }
        if self.other:
            out["other"] = [dict(e) for e in self.other]
        if self.places is not None:
            out["places"] = self.places
        if self.delta is not None:
            out["delta"] = self.delta
        if self.leak:
            out["leak"] = self.leak
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MaskTruth:
        """Rebuild from :meth:`to_dict` output."""
        return cls(
            hidden=tuple(dict(e) for e in data.get("hidden") or ()),
            other=tuple(dict(e) for e in data.get("other") or ()),
            assertion=str(data.get("assertion", "==")),
            places=data.get("places"),
            delta=data.get("delta"),
            leak=str(data.get("leak", "")),
        )


@dataclass(frozen=True, slots=True)
class OutputTruth:
    """The strict output task's truth for one pair: one :class:`MaskTruth` per ``??``.

    ``error`` is set when the values could not be recorded (the reference test failed
    here); ``leak`` lists the pair's leakage flags (``"call_in_docstring"`` for a
    HumanEval call shown with its result in the docstring, and the masks' flags).
    """

    masks: tuple[MaskTruth, ...]
    error: str = ""
    leak: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        out: dict[str, Any] = {"masks": [m.to_dict() for m in self.masks]}
        if self.error:
            out["error"] = self.error
        if self.leak:
            out["leak"] = list(self.leak)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> OutputTruth:
        """Rebuild from :meth:`to_dict` output."""
        return cls(
            masks=tuple(MaskTruth.from_dict(m) for m in data.get("masks") or ()),
            error=str(data.get("error", "")),
            leak=tuple(str(x) for x in data.get("leak") or ()),
        )


@dataclass(frozen=True, slots=True)
class RevalContext:
    """What a REval judge needs to know about the question, besides its truth.

    ``kind`` is ``"humaneval"`` or ``"classeval"``; ``code`` the problem's code as stored
    (path answers are matched against its lines); ``entry_point`` the function (HumanEval)
    or class (ClassEval); ``test`` and ``test_class`` the ClassEval unittest source and the
    pair's test class; ``template`` the pair's ``output_pred`` (``??`` masks); ``line`` and
    ``var`` the question (1-indexed line), absent for the output task.
    """

    kind: str
    code: str
    entry_point: str
    template: str = ""
    test: str | None = None
    test_class: str | None = None
    line: int | None = None
    var: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def mask_count(self) -> int:
        """How many ``??`` the output template has."""
        return self.template.count("??")


def dedupe_envelopes(envelopes: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], ...]:
    """Envelopes with duplicates dropped (canonical JSON), first occurrence order kept."""
    import json

    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for envelope in envelopes:
        key = json.dumps(envelope, sort_keys=True, ensure_ascii=False)
        if key not in seen:
            seen.add(key)
            out.append(dict(envelope))
    return tuple(out)
