"""The CodeI/O stages, one module each; importing this package registers them all."""

from __future__ import annotations

from execlens.synth.stages import (  # noqa: F401 - each module registers its stage
    _assemble,
    _collect,
    _difficulty,
    _predict,
    _prompts,
    _revise,
    _runtime_tasks,
    _transform,
    _verify,
)

__all__: list[str] = []
