"""The isolation report: each layer, whether it is active, how it was had, and why not.

It travels from the server to the host as JSON, is printed by ``execlens doctor`` and
recorded by every run (:meth:`IsolationReport.summary`).  :func:`refusal` and
:func:`require_full` decide whether a server may serve in ``auto`` and ``full`` modes.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from execlens.engine._errors import IsolationUnavailable

__all__ = ["ALLOWED_ENV", "IsolationReport", "LayerStatus", "refusal", "require_full"]

#: Layers ``full`` does not insist on: the kernel may lack them without fault.
OPTIONAL_FOR_FULL = frozenset({"landlock", "cgroup", "user_namespace"})
#: Without these ``auto`` refuses to run.
REQUIRED_FOR_AUTO = ("filesystem", "pid_namespace")


class LayerStatus:
    """Whether one isolation layer is active, how it was had, and why not when it is not."""

    __slots__ = ("active", "detail", "name", "via")

    def __init__(self, name: str, active: bool, detail: str = "", via: str = "") -> None:
        self.name = name
        self.active = active
        self.detail = detail
        self.via = via  # "root", "user namespace", "landlock", "seccomp", "rlimit"...

    def __repr__(self) -> str:
        return (
            f"LayerStatus({self.name!r}, active={self.active}, via={self.via!r}, "
            f"detail={self.detail!r})"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"name": self.name, "active": self.active, "via": self.via, "detail": self.detail}


class IsolationReport:
    """All layers of one server, as set up on this machine."""

    def __init__(
        self,
        uid: int | None = None,
        gid: int | None = None,
        python: str | None = None,
        kernel: str | None = None,
    ) -> None:
        self.layers: list[LayerStatus] = []
        # What the sandbox's filesystem shows: every path bound into the minimal root
        # (["/"] for the host view, [] without a mount namespace).
        self.visible: list[str] = []
        self.uid = uid
        self.gid = gid
        self.host_uid: int | None = uid  # the children's uid as the host sees it
        # How the namespaces were had: "root", "user namespace", "landlock" (none: the
        # Landlock fallback) or "none".
        self.method = ""
        self.mode = ""  # the isolation mode asked for (set by the host)
        # The server's scratch parent in the host's /tmp, which the host removes when the
        # server stops; None where it lives in the sandbox's own tmpfs.
        self.scratch_parent: str | None = None
        self.python = python if python is not None else sys.version.split()[0]
        self.kernel = kernel if kernel is not None else os.uname().release

    def add(self, name: str, active: bool, detail: str = "", via: str = "") -> None:
        """Record one layer's status (a later entry for the same name replaces it)."""
        self.layers = [layer for layer in self.layers if layer.name != name]
        self.layers.append(LayerStatus(name, active, detail, via if active else ""))

    def layer(self, name: str) -> LayerStatus | None:
        """The named layer's status, if reported."""
        return next((layer for layer in self.layers if layer.name == name), None)

    def active(self, name: str) -> bool:
        """Whether the named layer is active."""
        return any(layer.name == name and layer.active for layer in self.layers)

    def missing(self) -> list[str]:
        """The names of the layers that are not active."""
        return [layer.name for layer in self.layers if not layer.active]

    def summary(self) -> dict[str, Any]:
        """What a run records: the mode, how it was had, each layer's state in a word
        (nothing that differs between two runs on one machine: no uid, pid or path)."""
        return {
            "mode": self.mode,
            "method": self.method,
            "layers": {
                layer.name: (layer.via or "active") if layer.active else "missing"
                for layer in self.layers
            },
            "missing": self.missing(),
        }

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "layers": [layer.to_dict() for layer in self.layers],
            "uid": self.uid,
            "gid": self.gid,
            "host_uid": self.host_uid,
            "method": self.method,
            "mode": self.mode,
            "python": self.python,
            "kernel": self.kernel,
            "visible": list(self.visible),
            "scratch_parent": self.scratch_parent,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IsolationReport:
        """Rebuild from :meth:`to_dict` output."""
        report = cls(
            uid=data.get("uid"),
            gid=data.get("gid"),
            python=data.get("python", ""),
            kernel=data.get("kernel", ""),
        )
        report.host_uid = data.get("host_uid", report.uid)
        report.method = data.get("method", "")
        report.mode = data.get("mode", "")
        report.layers = [LayerStatus(**layer) for layer in data.get("layers", [])]
        report.visible = list(data.get("visible", []))
        report.scratch_parent = data.get("scratch_parent")
        return report


def _reason(report: IsolationReport, name: str) -> str:
    layer = report.layer(name)
    return f"{name} ({layer.detail})" if layer is not None and layer.detail else name


def refusal(report: IsolationReport, minimal_root: bool) -> str:
    """Why ``auto`` may not run with ``report``'s layers ('' when it may).

    The filesystem layer is not required where the host view was asked for explicitly.
    """
    required = [n for n in REQUIRED_FOR_AUTO if minimal_root or n != "filesystem"]
    missing = [n for n in required if not report.active(n)]
    if not missing:
        return ""
    kept = [layer.name for layer in report.layers if layer.active and layer.name != "clean_env"]
    return (
        "isolation='auto' will not run untrusted code without "
        + " and ".join(_reason(report, n) for n in missing)
        + "; to run anyway with what this machine offers ("
        + ", ".join(kept)
        + "), pass isolation='degraded' (execlens --isolation degraded, or "
        "EXECLENS_ISOLATION=degraded), which warns on every run"
    )


def require_full(report: IsolationReport) -> None:
    """Raise :class:`IsolationUnavailable` unless every layer ``full`` insists on is active."""
    missing = [n for n in report.missing() if n not in OPTIONAL_FOR_FULL]
    if missing:
        raise IsolationUnavailable(
            "isolation='full' but these layers are missing: " + ", ".join(missing)
        )


ALLOWED_ENV = frozenset(
    {
        "PATH",
        "LANG",
        "LC_ALL",
        "HOME",
        "PYTHONHASHSEED",
        "PYTHONPATH",
        "PYTHONDONTWRITEBYTECODE",
        "OPENBLAS_NUM_THREADS",
        "OMP_NUM_THREADS",
        "MKL_NUM_THREADS",
        "NUMEXPR_NUM_THREADS",
        "PYTHONIOENCODING",
        "TMPDIR",
        "PWD",
        "SHLVL",
        "_",
        "LC_CTYPE",
        "LD_BIND_NOW",
    }
)
