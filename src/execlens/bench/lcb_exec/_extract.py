"""LiveCodeBench code-execution answer extraction.

As lcb_runner/utils/extraction_utils.py ``extract_execution_code`` does it.  The chat
runner sends no stop string and cuts at ``[/ANSWER]`` itself, so nothing is cut
beforehand.
"""

from __future__ import annotations

from execlens.tasks.prompts import Extraction

__all__ = ["extract_lcb"]


def extract_lcb(raw: str, style: str) -> Extraction:
    """Extract a LiveCodeBench code-execution answer (the predicted output expression)."""
    if style not in ("direct", "cot"):
        raise ValueError(f"LiveCodeBench execution has no prompt style {style!r}")
    how: list[str] = []
    failure: str | None = None
    text = raw
    if style == "cot":
        if "[ANSWER]" in text:
            text = text.split("[ANSWER]")[1].strip()
            how.append("after_answer_tag")
        else:
            failure = "no_answer_tag"
    if "==" in text:
        text = text.split("==")[1].strip()
        how.append("after_first_eq")
    else:
        failure = failure or "no_assertion"
    if "[/ANSWER]" in text:
        text = text.split("[/ANSWER]")[0].strip()
        how.append("before_close_tag")
    else:
        text = text.split("\n")[0].strip()
        how.append("first_line")
    text = text.strip()
    if not text:
        failure = "empty"
    return Extraction(text=text, how=tuple(how), failure=failure)
