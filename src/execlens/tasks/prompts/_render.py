"""The jinja2 environment that fills the benchmark templates.

The templates are transcriptions of the official prompt strings, so the environment must
not touch whitespace: trailing newlines are kept (CRUXEval's prompts end in one, REval's do
not) and nothing is escaped (prompts are Python code, not HTML).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2

__all__ = ["TEMPLATE_DIR", "render_template"]

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
        keep_trailing_newline=True,
        autoescape=False,
        undefined=jinja2.StrictUndefined,  # a missing field is a bug, never an empty string
    )


def render_template(name: str, **fields: object) -> str:
    """Render ``templates/<name>`` with ``fields``; values are inserted verbatim."""
    return _environment().get_template(name).render(**fields)
