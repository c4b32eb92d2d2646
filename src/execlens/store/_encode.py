"""One JSON line per record: the byte form every JSONL shard and log shares."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ._errors import StoreError

__all__ = ["encode_lines"]


def encode_lines(records: Iterable[Mapping[str, Any]], where: str) -> bytes:
    """``records`` as UTF-8 JSON lines; a record JSON cannot hold is a ``StoreError``."""
    lines = []
    for number, record in enumerate(records, 1):
        if not isinstance(record, Mapping):
            raise StoreError(
                f"{where}: record {number} is a {type(record).__name__}, "
                f"not a dict; only JSON objects are stored"
            )
        try:
            lines.append(json.dumps(record, ensure_ascii=False))
        except (TypeError, ValueError) as error:
            raise StoreError(
                f"{where}: record {number} is not plain JSON ({error}); convert it before storing"
            ) from None
    return "".join(line + "\n" for line in lines).encode("utf-8")
