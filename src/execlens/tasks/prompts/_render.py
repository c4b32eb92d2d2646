"""The jinja2 environments that fill prompt templates.

The templates are transcriptions of the official prompt strings, so an environment must
not touch whitespace: trailing newlines are kept (CRUXEval's prompts end in one, REval's do
not) and nothing is escaped (prompts are Python code, not HTML).  Each benchmark folder
keeps its templates beside its code and renders them through
:func:`render_template_from`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import jinja2

__all__ = ["TEMPLATE_DIR", "render_template", "render_template_from"]

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"


@cache
def _environment(directory: str) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(directory),
        keep_trailing_newline=True,
        autoescape=False,
        undefined=jinja2.StrictUndefined,  # a missing field is a bug, never an empty string
    )


def render_template_from(directory: str | Path, name: str, /, **fields: object) -> str:
    """Render ``<directory>/<name>`` with ``fields``; values are inserted verbatim."""
    return _environment(str(Path(directory).resolve())).get_template(name).render(**fields)


def render_template(name: str, **fields: object) -> str:
    """Render ``templates/<name>`` (this package's own templates) with ``fields``."""
    return render_template_from(TEMPLATE_DIR, name, **fields)
