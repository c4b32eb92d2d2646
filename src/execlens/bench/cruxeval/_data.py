"""CRUXEval: 800 ``{code, input, output, id}`` records (HF ``cruxeval-org/cruxeval``, ``test``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execlens.bench import (
    LoadResult,
    Row,
    check_str,
    load_single_file_dataset,
    parse_samples,
)
from execlens.tasks.prompts import RenderedPrompt

from ._prompts import render_cruxeval

__all__ = ["CRUXEVAL_HUB", "CruxEvalSample", "load_cruxeval"]

CRUXEVAL_HUB = "cruxeval-org/cruxeval"
_LOCAL_NAMES = ("cruxeval.jsonl", "data/cruxeval.jsonl", "test.jsonl", "cruxeval.json")


@dataclass(frozen=True)
class CruxEvalSample:
    """One CRUXEval sample.

    ``input`` is the argument-list text (``'bcksrut', 'q'``; not always a literal, once
    empty); ``output`` the literal repr of the return value.
    """

    id: str
    code: str
    input: str
    output: str

    @property
    def sample_id(self) -> str:
        """The stable id: the dataset's own (``sample_0`` ...), the key of generation files."""
        return self.id

    def render(self, task: str, style: str) -> RenderedPrompt:
        """The official prompt for ``task`` (input/output) in ``style`` (direct/cot/phind)."""
        return render_cruxeval(
            task, style, code=self.code, input=self.input, output=self.output, sample_id=self.id
        )


def _sample(row: dict[str, Any]) -> CruxEvalSample:
    return CruxEvalSample(
        id=check_str(row, "id"),
        code=check_str(row, "code"),
        input=check_str(row, "input", empty_ok=True),
        output=check_str(row, "output"),
    )


def _parse(rows: list[Row], source: str) -> LoadResult[CruxEvalSample]:
    return parse_samples(rows, source, _sample)


def load_cruxeval(
    data: str | Path | None = None, *, split: str = "test"
) -> LoadResult[CruxEvalSample]:
    """Load CRUXEval from ``data`` (a file, or a directory with ``cruxeval.jsonl``); without
    ``data``, the copy shipped with execlens (the hub only if that copy was removed)."""
    if data is None:
        from ._packaged import DATA_DIR

        if (DATA_DIR / "cruxeval.jsonl").is_file():  # offline: no hub needed for CRUXEval
            data = DATA_DIR
    return load_single_file_dataset(
        data, hub=CRUXEVAL_HUB, split=split, local_names=_LOCAL_NAMES, what="CRUXEval", parse=_parse
    )
