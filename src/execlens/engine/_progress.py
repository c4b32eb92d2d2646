"""Progress reporting for ``Engine.map``: a rich progress bar, a caller's callback, or none."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from execlens.engine._types import Job, Outcome

__all__ = ["progress_hook"]


def progress_hook(
    progress: bool | Callable[[Outcome], None], jobs: Iterable[Job]
) -> tuple[Callable[[Outcome], None], Callable[[], None]]:
    """``(called with each outcome, called once at the end)`` for ``map``'s ``progress``."""
    if callable(progress):
        return progress, lambda: None
    if not progress:
        return (lambda outcome: None), (lambda: None)
    # Imported only when a bar is asked for: rich is heavy and most callers never show one.
    from rich.progress import Progress

    total = len(jobs) if hasattr(jobs, "__len__") else None  # type: ignore[arg-type]
    bar = Progress(transient=False)
    task = bar.add_task("running", total=total)
    bar.start()
    return (lambda outcome: bar.advance(task)), bar.stop
