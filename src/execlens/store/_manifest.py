"""A run's manifest: what the run is (its identity) and what produced it (versions, and
the environment it ran in, e.g. the sandbox's isolation)."""

from __future__ import annotations

import json
import platform
import time
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import Any

from ._atomic import read_json, write_json_atomic
from ._errors import StoreError

__all__ = ["MANIFEST_NAME", "Manifest", "current_versions", "identity_differences"]

MANIFEST_NAME = "manifest.json"
_PACKAGES = ("execlens", "numpy", "pyarrow")


def current_versions() -> dict[str, str]:
    """Python's and the relevant packages' versions, as recorded in a manifest."""
    versions = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "absent"
    return versions


def normalise(identity: Any) -> Any:
    """``identity`` as JSON gives it back (tuples become lists, keys strings)."""
    try:
        return json.loads(json.dumps(identity, sort_keys=True, allow_nan=False))
    except (TypeError, ValueError) as error:
        raise StoreError(
            f"run identity is not plain JSON ({error}); pass strings, numbers, lists and dicts"
        ) from None


def identity_differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The top-level keys whose values differ (missing on either side counts)."""
    return sorted(key for key in set(old) | set(new) if old.get(key, ...) != new.get(key, ...))


@dataclass(frozen=True)
class Manifest:
    """``manifest.json``: ``identity`` decides whether a rerun resumes this run."""

    identity: dict[str, Any]
    versions: dict[str, str] = field(default_factory=current_versions)
    created: str = ""
    # What the run ran under besides versions (``"isolation"``: the sandbox's layers);
    # not part of the identity, so a rerun elsewhere still resumes.
    environment: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def new(cls, identity: dict[str, Any]) -> Manifest:
        """A manifest for a run starting now."""
        return cls(
            identity=normalise(identity),
            versions=current_versions(),
            created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        )

    @classmethod
    def load(cls, path: Path) -> Manifest:
        """Read ``path``; an unreadable manifest is a ``StoreError`` naming the fix."""
        data = read_json(path)
        if not isinstance(data, dict) or not isinstance(data.get("identity"), dict):
            raise StoreError(
                f"{path} is not a run manifest (no identity object); "
                f"use another --out, or --overwrite to replace the run"
            )
        versions = data.get("versions")
        environment = data.get("environment")
        return cls(
            identity=data["identity"],
            versions=dict(versions) if isinstance(versions, dict) else {},
            created=str(data.get("created", "")),
            environment=dict(environment) if isinstance(environment, dict) else {},
        )

    def with_environment(self, key: str, value: Any) -> Manifest:
        """A copy recording ``value`` (plain JSON) under ``environment[key]``."""
        return replace(self, environment={**self.environment, key: normalise(value)})

    def to_dict(self) -> dict[str, Any]:
        """The JSON form written to ``manifest.json``."""
        data = {"identity": self.identity, "versions": self.versions, "created": self.created}
        if self.environment:
            data["environment"] = self.environment
        return data

    def save(self, path: Path) -> None:
        """Write atomically."""
        write_json_atomic(path, self.to_dict())
