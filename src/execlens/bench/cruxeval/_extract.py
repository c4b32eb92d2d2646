"""CRUXEval answer extraction, step for step as the official post-processing does it.

* the vLLM harness (inference/tasks/{output,input}_prediction.py
  ``postprocess_generation``), the default ``flavor="harness"``;
* the OpenAI runner (openai/openai_prompt.py ``extract_answer_*``), ``flavor="openai"``:
  same idea, but a CoT output lacking ``[ANSWER]`` yields its last line, and input mode
  cuts at ``assert`` rather than ``assert f``.

Both official runners generate with stop ``[/ANSWER]`` (``# done`` for the Phind
variant), so the text never holds it; raw outputs that do (a server that ignored the
stop) are cut there first.
"""

from __future__ import annotations

from collections.abc import Sequence

from execlens.tasks.prompts import Extraction, apply_stop

__all__ = ["extract_cruxeval"]


def extract_cruxeval(
    raw: str,
    task: str,
    style: str,
    *,
    flavor: str = "harness",
    stop: Sequence[str] | None = None,
) -> Extraction:
    """Extract a CRUXEval answer from a raw generation (the text after the prompt).

    ``task`` ``"output"`` gives the predicted output expression, ``"input"`` the predicted
    call ``f(...)``. ``style`` is ``"direct"``, ``"cot"`` or ``"phind"``. ``stop`` defaults
    (``None``) to the official stop strings; pass ``()`` to keep the text whole.
    """
    if task not in ("input", "output"):
        raise ValueError(f"CRUXEval has no task {task!r}")
    if style not in ("direct", "cot", "phind"):
        raise ValueError(f"CRUXEval has no prompt style {style!r}")
    if flavor not in ("harness", "openai"):
        raise ValueError(
            f"unknown CRUXEval extraction flavor {flavor!r} (expected 'harness' or 'openai')"
        )
    if stop is None:
        stops: tuple[str, ...] = ("# done",) if style == "phind" else ("[/ANSWER]",)
    else:
        stops = tuple(stop)
    how: list[str] = []
    text, stopped = apply_stop(raw, stops)
    if stopped:
        how.append("cut_at_stop")
    failure: str | None = None
    cot = style == "cot"

    if cot:
        if "[ANSWER]" in text:
            text = text.split("[ANSWER]")[1].strip()
            how.append("after_answer_tag")
        elif flavor == "openai":
            # openai_prompt.py: no [ANSWER] -> the last line, nothing else applied
            text = text.split("\n")[-1].strip()
            how.append("last_line")
            return Extraction(
                text=text, how=tuple(how), failure="no_answer_tag" if text else "empty"
            )
        else:
            failure = "no_answer_tag"

    if task == "output":
        if "==" in text:
            text = text.split("==")[1].strip()
            how.append("after_first_eq")
        elif style != "phind":  # the Phind prompt ends in "==", so its answer has none
            failure = failure or "no_assertion"
    else:
        if "==" in text:
            text = text.split("==")[0].strip()
            how.append("before_first_eq")
        else:
            failure = failure or "no_assertion"
        marker = "assert f" if flavor == "harness" else "assert"
        if marker in text:
            # harness: "f" + text after "assert f"; openai: text after "assert"
            rest = text.split(marker)[1].strip()
            text = "f" + rest if flavor == "harness" else rest
            how.append("after_assert_f" if flavor == "harness" else "after_assert")
    text = text.strip()
    if not text:
        failure = "empty"
    return Extraction(text=text, how=tuple(how), failure=failure)
