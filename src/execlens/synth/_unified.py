"""Parse a transform response into CodeI/O's unified format.

Four sections, as the transform prompt asks: ``## Main Function`` (the last fenced
python block, which must define ``main_solution``), ``## Input Output Description``
(raw text), ``## Input Generator`` (either capitalisation; the last python block, which
must define ``input_generator``), ``## Problem Statement`` (the rest).  A response that
lacks any of them is rejected with the reason naming what is missing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["UnifiedParse", "parse_unified"]

_HEADER = re.compile(
    r"^##\s*(main function|input output description|input generator|"
    r"problem statement)\s*$",
    re.IGNORECASE | re.MULTILINE,
)
_PYTHON_BLOCK = re.compile(r"```python[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)


@dataclass(frozen=True)
class UnifiedParse:
    """The four parts, or ``reason`` (a rejection name) when the response lacks one."""

    refcode: str = ""
    io_requirements: str = ""
    input_generator: str = ""
    problem_description: str = ""
    reason: str | None = None


def _sections(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    matches = list(_HEADER.finditer(text))
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        found[match.group(1).lower()] = text[match.end() : end].strip()
    return found


def _last_python(section: str, name: str) -> str | None:
    blocks = [b.strip() for b in _PYTHON_BLOCK.findall(section)]
    if not blocks:
        return None
    code = blocks[-1]
    return code if re.search(rf"\bdef\s+{name}\s*\(", code) else ""


def parse_unified(text: str) -> UnifiedParse:
    """Split a transform response into its parts (see the module docstring)."""
    parts = _sections(text)
    if "main function" not in parts:
        return UnifiedParse(reason="missing_main_function")
    refcode = _last_python(parts["main function"], "main_solution")
    if refcode is None:
        return UnifiedParse(reason="main_function_without_code")
    if not refcode:
        return UnifiedParse(reason="no_main_solution")
    io_req = parts.get("input output description", "")
    if not io_req:
        return UnifiedParse(reason="missing_io_description")
    if "input generator" not in parts:
        return UnifiedParse(reason="missing_input_generator")
    generator = _last_python(parts["input generator"], "input_generator")
    if not generator:
        return UnifiedParse(reason="no_input_generator")
    statement = parts.get("problem statement", "")
    if not statement:
        return UnifiedParse(reason="missing_problem_statement")
    try:
        compile(refcode, "<main_solution>", "exec")
        compile(generator, "<input_generator>", "exec")
    except SyntaxError:
        return UnifiedParse(reason="syntax_error")
    except ValueError:
        return UnifiedParse(reason="syntax_error")
    return UnifiedParse(
        refcode=refcode,
        io_requirements=io_req,
        input_generator=generator,
        problem_description=statement,
    )
