"""CRUXEval's samples as runtime programs: ``f(<input>)`` on each sample's code.

What ``execlens tasks build`` and the runtime benchmark read from ``cruxeval.jsonl``
(or any JSONL in its shape) through the benchmark's ``programs`` hook.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from execlens.tasks import RuntimeProgram, require_field, source_rows

__all__ = ["programs_from_cruxeval", "recognises_cruxeval"]


def recognises_cruxeval(path: Path, first: Mapping[str, Any]) -> bool:
    """Whether a file is CRUXEval-shaped: its first record has ``code``, ``input`` and
    ``output`` (the name does not matter: a user's own samples are read too)."""
    return {"code", "input", "output"} <= set(first)


def programs_from_cruxeval(path: str | Path) -> list[RuntimeProgram]:
    """CRUXEval samples: ``f(<input>)`` on each sample's code.

    Every record is validated: a malformed one is a ``SourceError`` naming the record
    number, the field and what was expected.
    """
    path = Path(path)
    out = []
    for number, row in enumerate(source_rows(path), 1):
        require_field(
            path,
            number,
            row,
            "id",
            "a string such as 'sample_0'",
            lambda v: isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)),
        )
        require_field(path, number, row, "code", "the program's source text", _is_str)
        require_field(
            path, number, row, "input", "the argument list as text, e.g. '[1, 2], 3'", _is_str
        )
        require_field(path, number, row, "output", "the output as text", _is_str, optional=True)
        out.append(
            RuntimeProgram(
                source="cruxeval",
                problem_id=str(row["id"]),
                input_index=0,
                program=row["code"],
                call=f"f({row['input']})",
                meta=(("expected_output", row.get("output")),),
            )
        )
    return out


def _is_str(value: Any) -> bool:
    return isinstance(value, str)
