"""Per-role CPU and page faults of this process's tree, for every perf script.

Roles: ``host`` (this process), ``judges`` (judge workers: ``execlens.judge.JudgePool``),
``servers`` (fork servers, and the waiting process in front of one when the PID
namespace is on), ``zygotes`` (the servers' forking children) and ``children`` (the
sandboxed runs: what the zygotes and servers reaped).  Read from ``/proc`` before and
after a measured call, so other load on the machine does not enter these figures.
A process that appears during the call counts whole; one that ends and is reaped counts
in its reaper's ``children`` totals (a retired zygote's own time lands in ``children``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["ROLES", "format_roles", "measure", "per_item", "snapshot"]

ROLES = ("host", "judges", "servers", "zygotes", "children")
_TICKS = os.sysconf("SC_CLK_TCK")
T = TypeVar("T")


def _stat(pid: int) -> tuple[int, int, int, int] | None:
    """(own ticks, own minor faults, reaped children's ticks, their faults)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (
        int(fields[11]) + int(fields[12]),
        int(fields[7]),
        int(fields[13]) + int(fields[14]),
        int(fields[8]),
    )


def _kids(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                out.extend(int(p) for p in handle.read().split())
    except OSError:
        pass
    return out


def _is_server(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return b"execlens.engine._server" in handle.read()
    except OSError:
        return False


def _inner_server(pid: int) -> bool:
    """Whether ``pid`` is pid 1 of its own PID namespace (the real server)."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("NSpid:"):
                    return line.split()[-1] == "1" and len(line.split()) > 2
    except OSError:
        pass
    return False


def snapshot() -> dict[int, tuple[str, tuple[int, int, int, int]]]:
    """Every process of this tree: pid -> (role, its /proc counters)."""
    found: dict[int, tuple[str, tuple[int, int, int, int]]] = {}

    def visit(pid: int, role: str) -> None:
        stat = _stat(pid)
        if stat is None:
            return
        found[pid] = (role, stat)
        for kid in _kids(pid):
            if role in ("host", "judges"):
                kid_role = "servers" if _is_server(kid) else "judges"
            elif role == "servers":
                kid_role = "servers" if _inner_server(kid) else "zygotes"
            else:
                kid_role = "children"
            visit(kid, kid_role)

    visit(os.getpid(), "host")
    return found


def measure(call: Callable[[], T]) -> tuple[T, dict[str, dict[str, int]]]:
    """``call()``'s result and each role's CPU ticks and faults spent during it."""
    before = snapshot()
    started = time.process_time()
    result = call()
    host_seconds = time.process_time() - started
    after = snapshot()
    totals = {role: {"ticks": 0, "faults": 0} for role in ROLES}
    for pid, (role, now) in after.items():
        then = before.get(pid, (role, (0, 0, 0, 0)))[1]
        totals[role]["ticks"] += now[0] - then[0]
        totals[role]["faults"] += now[1] - then[1]
        if role in ("servers", "zygotes"):  # what they reaped: sandboxed runs
            totals["children"]["ticks"] += now[2] - then[2]
            totals["children"]["faults"] += now[3] - then[3]
    # The host's CPU from its own clock (nanoseconds, all threads): /proc's ticks are
    # 10 ms, coarser than a whole batch's host share.
    totals["host"]["ticks"] = round(host_seconds * _TICKS)
    totals["host"]["ns"] = round(host_seconds * 1e9)
    return result, totals


def per_item(totals: dict[str, dict[str, int]], items: int) -> dict[str, dict[str, float]]:
    """CPU ms and faults per item of each role, and the host's share of all CPU."""
    out: dict[str, Any] = {
        role: {
            "cpu_ms": round((t["ns"] / 1e6 if "ns" in t else t["ticks"] / _TICKS * 1e3) / items, 4),
            "faults": round(t["faults"] / items, 2),
        }
        for role, t in totals.items()
    }
    cpu = sum(out[role]["cpu_ms"] for role in totals)
    out["host_share"] = round(out["host"]["cpu_ms"] / cpu, 3) if cpu else 0.0
    return out


def format_roles(label: str, roles: dict[str, Any]) -> str:
    """One line: each role's CPU ms and faults per item."""
    parts = [f"{r} {roles[r]['cpu_ms']:.3f} ms/{roles[r]['faults']:.0f} flt" for r in ROLES]
    return f"  {label}: " + ", ".join(parts) + f"; host share {roles['host_share']:.0%}"
