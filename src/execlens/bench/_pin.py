"""Which version of a benchmark's data a run read, for the run's identity.

``--data-revision REV`` pins a Hugging Face hub load (``datasets.load_dataset(...,
revision=REV)``).  :func:`data_revision` hands the revision to every hub load a
benchmark's loader makes while it is active -- through a context variable, so that the
``Benchmark.load(data)`` protocol, and every benchmark written against it, stays as it
is -- and records those loads.  :func:`data_fingerprint` is what a run's identity holds:
the revision when pinned, else a digest of the records loaded, so that a rerun against
data that changed underneath (a hub dataset updated, a local file edited) starts a new
run instead of silently resuming, or being compared with, the old one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from ._run import records_digest

__all__ = [
    "DataOptionError",
    "HubLoads",
    "active_revision",
    "check_data_options",
    "check_revision_used",
    "data_fingerprint",
    "data_revision",
    "note_hub_load",
    "unpinned_warning",
]


class DataOptionError(ValueError):
    """``--data`` / ``--data-revision`` asked for something that cannot be; the message
    names the fix."""


@dataclass
class HubLoads:
    """The revision hub loads are pinned to (None: the hub's current version) and the
    hub sources (``hf://name:split[@rev]``) loaded so far."""

    revision: str | None
    sources: list[str] = field(default_factory=list)


_ACTIVE: ContextVar[HubLoads | None] = ContextVar("execlens_hub_loads", default=None)


@contextmanager
def data_revision(revision: str | None = None) -> Iterator[HubLoads]:
    """Within the block, hub loads use ``revision``; the yielded record lists them."""
    loads = HubLoads(revision)
    token = _ACTIVE.set(loads)
    try:
        yield loads
    finally:
        _ACTIVE.reset(token)


def active_revision() -> str | None:
    """The revision of the enclosing :func:`data_revision` block (None outside one)."""
    loads = _ACTIVE.get()
    return None if loads is None else loads.revision


def note_hub_load(source: str) -> None:
    """Record that ``source`` was loaded from the hub (inside a :func:`data_revision`
    block; a no-op outside one)."""
    loads = _ACTIVE.get()
    if loads is not None:
        loads.sources.append(source)


def check_data_options(data: str | None, revision: str | None) -> None:
    """Refuse a revision that cannot apply: an empty one, or one beside a local ``data``."""
    if revision is None:
        return
    if not revision.strip():
        raise DataOptionError(
            "--data-revision is empty: give a commit hash (or tag) of the "
            "hub dataset, or leave the option out"
        )
    if data is not None:
        raise DataOptionError(
            f"--data-revision pins a Hugging Face hub dataset, but --data {data} is a local "
            f"copy, read as it is: drop --data to load the hub at {revision}, or drop "
            "--data-revision (a datasets save_to_disk directory is pinned to its "
            "fingerprint as --data DIR@FINGERPRINT)"
        )


def check_revision_used(loads: HubLoads, benchmark: str) -> None:
    """Refuse a revision no hub load used: the benchmark read its data elsewhere."""
    if loads.revision is not None and not loads.sources:
        raise DataOptionError(
            f"--data-revision {loads.revision}: {benchmark} loaded no Hugging Face hub "
            "dataset (its data ships with execlens or comes from --data); drop "
            "--data-revision"
        )


def data_fingerprint(records: Sequence[Any], loads: HubLoads) -> dict[str, str]:
    """``{"revision": REV}`` for a pinned hub load, else ``{"sha256": ...}`` of the
    records (:func:`records_digest`)."""
    if loads.revision is not None:
        return {"revision": loads.revision}
    return {"sha256": records_digest(records)}


def unpinned_warning(loads: HubLoads, fingerprint: dict[str, str]) -> str | None:
    """The one-line warning for hub data loaded at no pinned revision, or None."""
    if loads.revision is not None or not loads.sources:
        return None
    digest = fingerprint.get("sha256", "")[:12]
    return (
        f"{', '.join(dict.fromkeys(loads.sources))} is not pinned to a revision: the run "
        f"records a digest of the rows loaded (sha256 {digest}...), so a changed hub "
        "dataset starts a new run rather than resuming this one; pass --data-revision "
        "COMMIT to pin it"
    )
