"""CodeI/O's parsed samples as runtime programs (``rawcode_1k_parsed.jsonl``).

CodeI/O is a synthesis source, not a benchmark: each record's ``refcode`` defines
``main_solution`` (or ``funcname``), and each of its ``ios`` pairs gives the keyword
arguments of one run.  The benchmarks' data are read by their own folders
(``execlens.bench.load_programs`` asks them first and falls back to this reader).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._sources import RuntimeProgram, require_field, source_rows

__all__ = ["is_codeio_record", "programs_from_codeio"]


def is_codeio_record(record: Mapping[str, Any]) -> bool:
    """Whether a record has CodeI/O's fields (``refcode`` and ``ios``)."""
    return {"refcode", "ios"} <= set(record)


def programs_from_codeio(path: str | Path) -> list[RuntimeProgram]:
    """CodeI/O parsed samples: ``main_solution(**input)`` for each I/O pair."""
    path = Path(path)
    out = []
    for number, row in enumerate(source_rows(path)):
        record = number + 1
        require_field(
            path, record, row, "refcode", "the program's source text", lambda v: isinstance(v, str)
        )
        require_field(
            path,
            record,
            row,
            "funcname",
            "the function's name",
            lambda v: isinstance(v, str) and v.isidentifier(),
            optional=True,
        )
        require_field(
            path,
            record,
            row,
            "ios",
            'a list of {"input": {...}} pairs',
            lambda v: isinstance(v, list) and all(isinstance(p, dict) and "input" in p for p in v),
        )
        require_field(
            path, record, row, "meta", "an object", lambda v: isinstance(v, dict), optional=True
        )
        code, name, ios = row["refcode"], row.get("funcname") or "main_solution", row["ios"]
        problem_id = f"codeio/{(row.get('meta') or {}).get('msgidx', number)}"
        for index, pair in enumerate(ios):
            kwargs = pair["input"]
            if not isinstance(kwargs, dict):
                continue
            # JSON values are Python literals once dumped with repr-compatible forms.
            call = f"{name}(**{_literal(kwargs)})"
            out.append(
                RuntimeProgram(
                    source="codeio",
                    problem_id=problem_id,
                    input_index=index,
                    program=code,
                    call=call,
                )
            )
    return out


def _literal(value: Any) -> str:
    """Python source for a JSON value (``true`` → ``True``, ``null`` → ``None``)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return repr(value)
