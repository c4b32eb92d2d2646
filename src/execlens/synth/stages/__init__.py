"""The synthesis stages, one module each.

Nothing here lists them: the registry (``execlens.synth._stage.load_stages``) imports
every module of this package, and each registers its stage.  Adding a stage is adding a
file.
"""

from __future__ import annotations

__all__: list[str] = []
