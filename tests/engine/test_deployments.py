"""The sandbox holds where users run it (issue 23): the attack and honest-program suites
again, in a subprocess per deployment (``deploy_setup.py``), all three at once.

* (a) ``root`` — root with every capability;
* (b) ``no-sysadmin`` — root without ``CAP_SYS_ADMIN`` (a default container);
* (c) ``user`` — a non-root uid with an interpreter it can read;
* (d) ``no-userns`` — a non-root uid where user namespaces are refused.

In (a)–(c) every named case passes (none may skip) and no ``attack``/``honest`` test fails;
in (d) ``auto`` refuses with one ``error:`` line and ``degraded`` runs and says so.  Needs
root with every capability (as CI runs ``make test``); skipped elsewhere.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SETUP = Path(__file__).with_name("deploy_setup.py")
#: The cases issue 23 names, by test name: each must pass (not skip) in (a)-(c).
NAMED = (
    "test_attack_reading_a_0644_token_in_a_home_directory",
    "test_attack_reading_the_callers_environ_and_memory_and_signalling_it",
    "test_attack_links_planted_at_the_next_scratch_path_then_a_server_crash",
    "test_attack_sysv_shared_memory_between_two_jobs_and_two_engines",
    "test_attack_writing_under_a_submount_of_a_mount_ro_directory",
    "test_attack_vsock_and_other_socket_families",
    "test_attack_kill_minus_one",
    "test_attack_reading_host_process_arguments_through_proc",
    # the channel between a child and its server
    "test_attack_o_nonblock_on_the_output_pipes",
    "test_attack_a_200_kb_nested_frame",
    "test_attack_a_forged_frame_of_five_million_items",
    "test_attack_results_forged_for_the_next_input",
    # one origin changing another's verdict, per judge path
    "test_attack_a_generation_passing_the_others_of_its_sample",
    "test_attack_a_function_flipping_another_functions_verdict",
    "test_attack_a_group_mate_changing_a_trl_reward",
    "test_attack_a_group_mate_changing_a_verl_reward",
)
_CAP_SYS_ADMIN = 21


def _has_every_capability() -> bool:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> _CAP_SYS_ADMIN & 1)
    return False


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.geteuid() != 0 or not _has_every_capability(),
        reason="setting deployments up needs root with CAP_SYS_ADMIN (as CI runs make test)",
    ),
]


def _suite_files() -> list[str]:
    """Every test file holding attack- or honest-marked tests (other packages' too)."""
    found = []
    for path in sorted((REPO_ROOT / "tests").rglob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        if "mark.attack" in text or "mark.honest" in text:
            found.append(str(path.relative_to(REPO_ROOT)))
    return found


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO_ROOT / "src"), env.get("PYTHONPATH", "")) if p
    )
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("EXECLENS_ISOLATION", None)
    return env


def _deployed(setup: str, *command: str) -> list[str]:
    return [sys.executable, str(SETUP), setup, "--", *command]


def _outcomes(junit: Path) -> dict[str, str]:
    """Each test's outcome (passed, failed, skipped, xfailed) from a JUnit XML report."""
    outcomes: dict[str, str] = {}
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        name = case.get("name", "").split("[")[0]
        kinds = {child.tag for child in case}
        if "failure" in kinds or "error" in kinds:
            outcome = "failed"
        elif "skipped" in kinds:
            skipped = case.find("skipped")
            kind = skipped.get("type", "") if skipped is not None else ""
            outcome = "xfailed" if "xfail" in kind else "skipped"
        else:
            outcome = "passed"
        # A parametrised test fails if any of its cases does.
        if outcomes.get(name) != "failed":
            outcomes[name] = outcome
    return outcomes


def _run_suite(setup: str, files: list[str], reports: Path, only_named: bool) -> str:
    """Run the suites under ``setup``; '' if they hold, else what went wrong."""
    junit = reports / f"{setup}.xml"
    selection = ["-k", " or ".join(NAMED)] if only_named else []
    command = _deployed(
        setup,
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-m",
        "attack or honest",
        *selection,
        f"--junitxml={junit}",
        "-o",
        "junit_family=xunit1",
        *files,
    )
    done = subprocess.run(
        command,
        cwd=REPO_ROOT,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    tail = (done.stdout + done.stderr)[-3000:]
    if not junit.exists():
        return f"{setup}: no report (exit {done.returncode})\n{tail}"
    outcomes = _outcomes(junit)
    failed = sorted(n for n, o in outcomes.items() if o == "failed")
    not_held = {n: outcomes.get(n, "absent") for n in NAMED if outcomes.get(n) != "passed"}
    # No xfail is allowed: every honest program works under every deployment.
    xfailed = {n for n, o in outcomes.items() if o == "xfailed"}
    if failed or not_held or xfailed:
        return (
            f"{setup}: failed {failed}, named not passed {not_held}, "
            f"unexpected xfail {sorted(xfailed)}\n{tail}"
        )
    return ""


def test_attack_and_honest_suites_hold_as_root_without_sys_admin_and_as_a_user() -> None:
    """One after the other: the suites' wall-time limits assume the machine is not shared
    three ways.  As root with every capability (this session's own set-up, where the
    whole suite already ran) only the named cases run again, to prove none skipped."""
    files = _suite_files()
    reports = Path(tempfile.mkdtemp(prefix="execlens-deploy-"))
    try:
        reports.chmod(0o777)  # the non-root run writes its report here too
        problems = [
            _run_suite(setup, files, reports, only_named=setup == "root")
            for setup in ("root", "no-sysadmin", "user")
        ]
    finally:
        shutil.rmtree(reports, ignore_errors=True)
    problems = [p for p in problems if p]
    assert not problems, "\n\n".join(problems)


_PROGRAM = "x = 20\n"


def test_where_user_namespaces_are_refused_auto_refuses_and_degraded_says_so() -> None:
    execlens = (sys.executable, "-m", "execlens")
    refused = subprocess.run(
        _deployed("no-userns", *execlens, "run", "-", "--call", "x + 1"),
        input=_PROGRAM,
        capture_output=True,
        text=True,
        env=_environment(),
        timeout=300,
        check=False,
    )
    assert refused.returncode == 2, refused.stderr
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: isolation='auto'"), lines
    assert "pid_namespace" in lines[0] and "--isolation degraded" in lines[0]
    assert "max_user_namespaces" in lines[0]  # why: named, not guessed at
    degraded = subprocess.run(
        _deployed(
            "no-userns",
            *execlens,
            "run",
            "-",
            "--call",
            "x + 1",
            "--isolation",
            "degraded",
            "--json",
        ),
        input=_PROGRAM,
        capture_output=True,
        text=True,
        env=_environment(),
        timeout=300,
        check=False,
    )
    assert degraded.returncode == 0, degraded.stderr
    assert json.loads(degraded.stdout)["value"]["__value__"] == 21
    warnings = [line for line in degraded.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "isolation='degraded'" in warnings[0], degraded.stderr
    assert "pid_namespace" in warnings[0]
    doctor = subprocess.run(
        _deployed("no-userns", *execlens, "doctor", "--isolation", "degraded", "--json"),
        capture_output=True,
        text=True,
        env=_environment(),
        timeout=300,
        check=False,
    )
    report = json.loads(doctor.stdout)
    layers = {layer["name"]: layer for layer in report["layers"]}
    assert report["method"] == "landlock" or not layers["landlock"]["active"]
    assert not layers["pid_namespace"]["active"] and not layers["user_namespace"]["active"]
    if layers["landlock"]["active"]:
        assert layers["filesystem"]["via"] == "landlock"
