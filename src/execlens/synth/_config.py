"""The synthesis run's configuration (YAML, validated by pydantic).

```yaml
out: runs/codeio-demo
executor: local            # or ray
sources:
  - path: ../shared/data/codeio/rawcode_1k_parsed.jsonl   # .jsonl(.gz) / .json(.gz) / .parquet
    limit: 20
    pairs_per_function: 3
  - path: reasoning_gym/data/codeio.jsonl.gz   # another layout: map its columns
    columns: {refcode: code_sample, problem_description: task_description,
              io_requirements: input_output_spec, input_generator: input_generator}
  - dataset: some/hf-dataset   # a `datasets` dataset with a `content` column
    split: train
    revision: 3f2a...          # a hub name needs a pinned revision
model: {name: local}          # or {name: Qwen/..., base_url: http://127.0.0.1:8000/v1}
stages: [collect, prompts, predict, verify, revise, assemble]
```
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

if TYPE_CHECKING:
    from execlens.synth._stage import Stage

__all__ = ["SOURCE_FIELDS", "ConfigError", "SynthConfig", "load_config"]

# The record kinds sources hand in: raw code files and functions (see ``_sources``).
SOURCE_KINDS = ("raw", "function")


class ConfigError(ValueError):
    """A config file that cannot drive a run; the message names the field and the fix."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


#: The fields a source record can hold, by execlens' name (``columns`` maps them to a
#: source's own column names).
SOURCE_FIELDS = (
    "content",
    "refcode",
    "input_generator",
    "problem_description",
    "io_requirements",
    "ios",
    "funcname",
    "meta",
)


def package_file(spec: str) -> Path:
    """The file ``<package>/<path inside it>`` of an installed package (not imported)."""
    import importlib.util

    top, _, inside = spec.strip("/").partition("/")
    if not top or not inside:
        raise ValueError(
            f"package: {spec!r} must name a package and a file in it, e.g. "
            "reasoning_gym/data/codeio.jsonl.gz"
        )
    try:
        found = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        found = None
    locations = list(found.submodule_search_locations or []) if found is not None else []
    if not locations:
        raise ValueError(
            f"package: {top!r} is not installed here (pip install it, or give path: to the file)"
        )
    for location in locations:
        candidate = Path(location) / inside
        if candidate.is_file():
            return candidate
    raise ValueError(f"package: {top!r} (at {locations[0]}) has no file {inside!r}")


class SourceConfig(_Strict):
    """One input: a data file, or a ``datasets`` dataset (a saved directory, a local
    dataset folder or a hub name at a pinned ``revision``).

    Files: ``.jsonl``, ``.json`` (one array of records), either gzipped (``.gz``), and
    ``.parquet``; ``path`` may also be a directory written by ``Dataset.save_to_disk``.
    Raw code (a ``content`` column) enters at ``transform``; records that already hold
    a function (``refcode``, with or without stored ``ios`` pairs) enter at ``collect``.
    ``columns`` maps execlens' field names to the source's columns, e.g. reasoning-gym's
    CodeI/O data: ``{refcode: code_sample, problem_description: task_description,
    io_requirements: input_output_spec, input_generator: input_generator}``.
    """

    path: Path | None = None
    dataset: str | None = None
    package: str | None = None
    """A data file inside an installed Python package, ``<package>/<file in it>`` (e.g.
    ``reasoning_gym/data/codeio.jsonl.gz``): found wherever the package is installed, so
    a config runs on any machine that has it."""
    split: str = "train"
    revision: str | None = None
    columns: dict[str, str] = Field(default_factory=dict)
    name: str | None = None
    offset: int = Field(default=0, ge=0)
    limit: int | None = Field(default=None, ge=1)
    pairs_per_function: int = Field(default=3, ge=2, le=100)

    @model_validator(mode="before")
    @classmethod
    def _package_file(cls, data: Any) -> Any:
        # Resolved to a path here: everything downstream reads files.
        if isinstance(data, dict) and data.get("package") is not None:
            if data.get("path") is not None:
                raise ValueError("give one of path or package, not both")
            return {**data, "path": package_file(str(data["package"]))}
        return data

    @model_validator(mode="after")
    def _one_origin(self) -> SourceConfig:
        from execlens.store import RECORD_SUFFIXES

        if (self.path is None) == (self.dataset is None):
            raise ValueError("give exactly one of path (a data file), package or dataset")
        if (
            self.path is not None
            and not self.path.is_dir()
            and not self.path.name.lower().endswith(RECORD_SUFFIXES)
        ):
            raise ValueError(
                f"path must end in {', '.join(RECORD_SUFFIXES)} (or be a "
                f"saved datasets directory), not {self.path.name!r}"
            )
        unknown = sorted(set(self.columns) - set(SOURCE_FIELDS))
        if unknown:
            raise ValueError(
                f"columns: {unknown[0]!r} is not a field; map these fields to "
                f"your columns: {', '.join(SOURCE_FIELDS)}"
            )
        return self

    @property
    def label(self) -> str:
        """The source's name in record ids and the card."""
        if self.name:
            return self.name
        if self.path is not None:
            from execlens.store import RECORD_SUFFIXES

            name = self.path.name  # codeio.jsonl.gz -> codeio
            for suffix in RECORD_SUFFIXES:
                if name.lower().endswith(suffix):
                    return name[: -len(suffix)]
            return name
        return str(self.dataset).replace("/", "_")


class ModelSettings(_Strict):
    """The model: ``local`` (the embedded one) or a served model behind ``base_url``.

    ``timeout`` (seconds per request) and ``max_retries`` (retries of a request that got
    no answer: connection refused, timeout, 5xx, 429; with exponential backoff from 1 s)
    set how long a dead server takes to fail the run: ``max_retries: 0`` and a short
    ``timeout`` fail fast.  A request still unanswered is never a verdict: the run ends
    with an error and a rerun asks it again."""

    name: str = "local"
    base_url: str | None = None
    api_key: str | None = None
    max_concurrency: int = Field(default=8, ge=1)
    timeout: float = Field(default=600.0, gt=0)
    max_retries: int | None = Field(default=None, ge=0)
    """``None``: the client's default (``execlens.models.RetryPolicy``)."""

    def client_settings(self) -> dict[str, Any]:
        """The ``ClientConfig`` fields this section sets (beside model, URL and key)."""
        from execlens.models import RetryPolicy

        settings: dict[str, Any] = {
            "max_concurrency": self.max_concurrency,
            "timeout": self.timeout,
        }
        if self.max_retries is not None:
            settings["retry"] = RetryPolicy(max_retries=self.max_retries)
        return settings


class SamplingSettings(_Strict):
    """Sampling of one stage's requests.

    ``max_tokens`` is the first ask's budget; a reply the token limit cut (a thinking
    model's thought, often) is asked once more with ``thinking_max_tokens`` (within the
    server's context; ``null`` never asks again): the one budget rule every path that
    asks a model shares (``execlens.models.TokenBudget``).
    """

    n: int = Field(default=1, ge=1)
    temperature: float = Field(default=0.0, ge=0.0)
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    max_tokens: int = Field(default=512, ge=1)
    thinking_max_tokens: int | None = Field(default=32768, ge=1)
    seed: int | None = 0


class LimitSettings(_Strict):
    """Sandbox limits: one function run (collection, one check) and its memory."""

    run_seconds: float = Field(default=5.0, gt=0)
    memory_mb: int = Field(default=512, ge=64)
    generator_calls: int = Field(default=1000, ge=1, le=100_000)


class RaySettings(_Strict):
    """Where Ray runs: ``address`` of a cluster, else a local instance of ``num_cpus``."""

    address: str | None = None
    num_cpus: int = Field(default=2, ge=1)
    actors: int = Field(default=2, ge=1)


class SynthConfig(_Strict):
    """A whole synthesis run."""

    out: Path
    executor: Literal["local", "ray"] = "local"
    workers: int = Field(default=2, ge=1)
    ray: RaySettings = RaySettings()
    sources: list[SourceConfig] = Field(min_length=1)
    stages: list[str] = Field(min_length=1)
    model: ModelSettings | None = None
    sampling: SamplingSettings = SamplingSettings()
    transform_sampling: SamplingSettings = SamplingSettings(max_tokens=1024)
    limits: LimitSettings = LimitSettings()
    mount_ro: list[Path] = Field(default_factory=list)
    """Host directories the programs may read, read-only (the sandbox shows them nothing
    else of the host); off by default.  For functions that need a data directory."""

    @field_validator("mount_ro", mode="before")
    @classmethod
    def _not_empty(cls, paths: Any) -> Any:
        # Path("") is the working directory: an empty entry would show the project
        # (``.git`` included) to every program.
        if isinstance(paths, list) and any(isinstance(p, str) and not p.strip() for p in paths):
            raise ValueError("mount_ro holds an empty path; name existing directories")
        return paths

    @field_validator("mount_ro")
    @classmethod
    def _mountable(cls, paths: list[Path]) -> list[Path]:
        # Checked here so a typo fails before the run starts; the engine refuses the
        # paths its own view is built on (/proc, /tmp...) when it starts.
        for path in paths:
            if not path.exists():
                raise ValueError(f"mount_ro path {path} does not exist")
        return paths

    # Each stage's own settings (its ``settings_model``), given in YAML under the stage's
    # key at the top level (``difficulty: {low: 0.1}``): gathered here by the registry.
    stage_settings: dict[str, Any] = Field(default_factory=dict)
    templates: dict[Literal["transform", "i", "o", "tip"], str] = Field(default_factory=dict)
    shard_size: int = Field(default=8, ge=1)
    hash_seed: int = 0
    check_seed: int = 1
    seed: int = 0
    cache: bool = True

    @model_validator(mode="before")
    @classmethod
    def _gather_stage_settings(cls, data: Any) -> Any:
        # A stage's settings block sits at the top level under its key; which keys are
        # stage settings is the registry's to say, so a new stage needs no field here.
        if not isinstance(data, dict):
            return data
        from execlens.synth._stage import load_stages

        keys = {c.key() for c in load_stages().values() if c.settings_model is not None}
        data = dict(data)
        gathered = dict(data.pop("stage_settings", None) or {})
        for key in [k for k in data if k in keys]:
            gathered[key] = data.pop(key)
        data["stage_settings"] = gathered
        return data

    @field_validator("stages")
    @classmethod
    def _known_stages(cls, stages: list[str]) -> list[str]:
        from execlens.synth._stage import load_stages, pipeline_order

        order = pipeline_order()
        unknown = [s for s in stages if s not in order]
        if unknown:
            raise ValueError(f"unknown stage {unknown[0]!r}; stages are {', '.join(order)}")
        if len(set(stages)) != len(stages):
            raise ValueError("a stage is listed twice")
        registry = load_stages()
        return sorted(stages, key=lambda s: (registry[s].order, s))

    @model_validator(mode="after")
    def _stage_inputs(self) -> SynthConfig:
        # What each stage reads must be written by its upstream: its ``consumes`` stage,
        # else the previous stage of the main line; a first stage reads the sources.
        from execlens.synth._stage import load_stages

        registry = load_stages()
        previous = None
        for name in self.stages:
            cls = registry[name]
            if cls.consumes is not None and cls.consumes not in self.stages:
                raise ValueError(
                    f"stage {name!r} reads {cls.consumes!r}'s output: add "
                    f"{cls.consumes!r} to stages"
                )
            upstream = registry[cls.consumes] if cls.consumes else previous
            kind = upstream.writes if upstream is not None else SOURCE_KINDS
            if cls.reads is not None and cls.reads not in (
                kind if isinstance(kind, tuple) else (kind,)
            ):
                writers = [
                    c.name
                    for c in sorted(registry.values(), key=lambda c: c.order)
                    if c.writes == cls.reads
                ]
                named = " or ".join(map(repr, writers)) or "a stage that writes them"
                raise ValueError(
                    f"stage {name!r} reads {named}'s output ({cls.reads} "
                    f"records), which no stage before it writes: add {named} "
                    f"to stages"
                )
            if cls.consumes is None and not cls.global_stage:
                previous = cls
        return self

    @model_validator(mode="after")
    def _validate_stage_settings(self) -> SynthConfig:
        from execlens.synth._stage import load_stages

        models = {
            c.key(): c.settings_model
            for c in load_stages().values()
            if c.settings_model is not None
        }
        for key, value in list(self.stage_settings.items()):
            model = models.get(key)
            if model is None:
                raise ValueError(f"stage_settings: no stage has settings {key!r}")
            if not isinstance(value, model):
                try:
                    self.stage_settings[key] = model.model_validate(value)
                except ValidationError as exc:
                    first = exc.errors()[0]
                    where = ".".join(str(p) for p in first.get("loc", ()))
                    message = first.get("msg", "invalid").removeprefix("Value error, ")
                    raise ValueError(f"{key}{'.' + where if where else ''}: {message}") from None
        return self

    @model_validator(mode="after")
    def _check_seeds_and_model(self) -> SynthConfig:
        from execlens.synth._stage import load_stages

        if self.check_seed == self.hash_seed:
            raise ValueError("check_seed must differ from hash_seed (the determinism rerun)")
        registry = load_stages()
        needs_model = [s for s in self.stages if registry[s].needs_model]
        if needs_model and self.model is None:
            raise ValueError(
                f"stage {needs_model[0]!r} needs a model: add "
                "`model: {name: local}` or a served model with base_url"
            )
        return self

    def needs_model(self) -> bool:
        """Whether a configured stage sends model requests."""
        from execlens.synth._stage import load_stages

        registry = load_stages()
        return any(registry[s].needs_model for s in self.stages)

    def stage_settings_for(self, stage: type[Stage]) -> Any:
        """The validated settings of ``stage`` (a Stage class): the config's, else its
        settings model's defaults."""
        model = stage.settings_model
        if model is None:
            return None
        value = self.stage_settings.get(stage.key())
        return value if value is not None else model()

    def identity(self) -> dict[str, Any]:
        """What makes two runs the same run (the manifest's identity): everything that
        shapes the records, not where or how it executes."""
        data = self.model_dump(
            mode="json", exclude={"out", "executor", "workers", "ray", "stage_settings"}
        )
        # Each configured stage's settings at the top level under its key, defaults
        # included (a default that changes is another run); stages not run add nothing.
        from execlens.synth._stage import load_stages

        registry = load_stages()
        for name in self.stages:
            settings = self.stage_settings_for(registry[name])
            if settings is not None:
                data[registry[name].key()] = settings.model_dump(mode="json")
        if data.get("model"):
            data["model"].pop("api_key", None)
            data["model"].pop("max_concurrency", None)
            data["model"].pop("timeout", None)
        return data


def _location(error: ErrorDetails) -> str:
    parts = []
    for part in error.get("loc", ()):
        if isinstance(part, int):
            parts.append(f"[{part}]")
        else:
            parts.append(("." if parts else "") + str(part))
    return "".join(parts) or "(top level)"


def load_config(path: str | Path, **overrides: Any) -> SynthConfig:
    """Read and validate a YAML config; ``overrides`` replace top-level fields.

    Raises :class:`ConfigError` with one line naming the file, the field and the fix.
    """
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no such config file")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text; save the config as UTF-8") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to read; is this the config?") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ConfigError(f"{path}: not valid YAML{where}: fix the syntax") from exc
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path}: the config must be a mapping of fields (out, sources, stages ...)"
        )
    data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return SynthConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        message = first.get("msg", "invalid").removeprefix("Value error, ")
        raise ConfigError(f"{path}: field {_location(first)}: {message}") from exc
