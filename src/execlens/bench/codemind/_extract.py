"""CodeMind answer extraction, as ``scripts/parse_result.py`` and
``scripts/clean_generations_synthesis.py`` do it for the chat models (``gpt-*``).

* IER (``parse_chatgpt``): ``raw.split('<<<Output>>>')[-1].split('[END-OF-RESPONSE]')[0]``
  -- the text after the *last* ``<<<Output>>>``, up to the first ``[END-OF-RESPONSE]``
  after it; a response without the marker is kept whole (up to ``[END-OF-RESPONSE]``);
* SR: ``raw.split("```python")[1].split("```")[0]`` -- the first fenced Python block.
  Upstream raises IndexError without one (the whole script stops); here the answer is
  empty, named ``no_code_block``, and fails like any program that defines nothing.

String work only: nothing is evaluated.
"""

from __future__ import annotations

from execlens.tasks.prompts import Extraction

__all__ = ["END_MARK", "OUTPUT_MARK", "extract_ier", "extract_sr"]

OUTPUT_MARK = "<<<Output>>>"
END_MARK = "[END-OF-RESPONSE]"


def extract_ier(raw: str) -> Extraction:
    """The IER prediction text (whitespace kept: the comparison removes it)."""
    how = []
    failure = None
    if OUTPUT_MARK in raw:
        how.append("after_last_output_mark")
    else:
        failure = "no_output_mark"
    text = raw.split(OUTPUT_MARK)[-1]
    if END_MARK in text:
        how.append("before_end_mark")
    text = text.split(END_MARK)[0]
    if not text.strip():
        failure = failure or "empty"
    return Extraction(text=text, how=tuple(how), failure=failure)


def extract_sr(raw: str) -> Extraction:
    """The synthesised program: the first ```` ```python ```` block."""
    parts = raw.split("```python")
    if len(parts) < 2:
        return Extraction(text="", how=(), failure="no_code_block")
    return Extraction(text=parts[1].split("```")[0], how=("python_block",), failure=None)
