"""The embedded model, trainable: its shipped GGUF converted once to safetensors.

transformers can load a GGUF (dequantised to fp32) but cannot save a model loaded that
way until the quantizer bookkeeping is removed; loading the GGUF also takes ~18 s each
time.  So the conversion runs once and lands in the cache directory, keyed by the GGUF's
sha256: ``<cache>/trainable/<sha256[:16]>/`` with a ``complete`` marker written last.
Concurrent callers wait on a file lock; an interrupted conversion leaves no marker and
is redone.  No model hub is contacted (``HF_HUB_OFFLINE=1`` while loading).
"""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

__all__ = ["EMBEDDED", "TrainDependencyError", "embedded_model_dir", "resolve_model_path"]

EMBEDDED = "embedded"
_MARKER = "complete"
TRAIN_INSTALL = "pip install 'execlens[train]'  (torch, transformers>=5, trl==1.16.*, peft, gguf)"


class TrainDependencyError(RuntimeError):
    """A training dependency (torch, transformers, trl, gguf, peft) is not installed."""


def require(*modules: str) -> None:
    """Raise :class:`TrainDependencyError` naming the install command if any is missing."""
    import importlib.util

    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise TrainDependencyError(
            f"training needs {', '.join(missing)}; install with `{TRAIN_INSTALL}`"
        )


def _convert(gguf: Path, target: Path) -> None:
    require("torch", "transformers", "gguf")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    # A GGUF-loaded model refuses save_pretrained while it looks quantised.
    # Plain attributes of the model object (typed by torch's Module.__setattr__ as
    # tensors or modules, hence setattr).
    setattr(model, "hf_quantizer", None)  # noqa: B010
    if hasattr(model.config, "quantization_config"):
        delattr(model.config, "quantization_config")
    setattr(model, "is_quantized", False)  # noqa: B010
    staging = target.with_name(target.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    model.save_pretrained(str(staging), safe_serialization=True)
    tokenizer.save_pretrained(str(staging))
    shutil.rmtree(target, ignore_errors=True)
    os.replace(staging, target)
    (target / _MARKER).write_text(gguf.name + "\n")


def embedded_model_dir(cache_dir: str | Path | None = None) -> Path:
    """The embedded model's safetensors folder, converting the GGUF on first call."""
    from execlens.models import default_cache_dir, locate_local_model, model_digest

    gguf = locate_local_model()
    digest = model_digest(gguf)
    root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    target = root / "trainable" / digest[:16]
    if (target / _MARKER).is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with (target.parent / f"{target.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one conversion; the others wait and reuse it
        if not (target / _MARKER).is_file():
            _convert(gguf, target)
    return target


def resolve_model_path(model: str) -> str:
    """``embedded`` -> the converted embedded model's folder; anything else unchanged
    (a local folder or a hub id for transformers)."""
    return str(embedded_model_dir()) if model == EMBEDDED else model
